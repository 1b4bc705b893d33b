/* A small iterative MPI application for the recorder's overhead benchmark
 * (scripts/bench-record): per iteration a compute phase, a ring exchange
 * (Isend/Irecv/Waitall), a Sendrecv, an Allreduce on MPI_COMM_WORLD, a
 * Bcast and an Alltoall on a split communicator, and a Barrier. Prints the
 * wall time of the loop on rank 0. Usage: ct-record-app ITERS BYTES WORK
 * [ABORT_AT] (rank 0 calls MPI_Abort at that iteration: the recorder's
 * abnormal-exit path).
 *        ct-record-app calls N: N iterations of 4 cheap recorded calls on
 *        one rank (Irecv + Isend to itself, Waitall, Barrier on
 *        MPI_COMM_SELF); prints ns per iteration (the recorder's cost per
 *        call, with and without it). */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int calls(long n)
{
    char a[8] = {0}, b[8];
    MPI_Request rq[2];
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        MPI_Irecv(b, 8, MPI_CHAR, 0, 0, MPI_COMM_SELF, &rq[0]);
        MPI_Isend(a, 8, MPI_CHAR, 0, 0, MPI_COMM_SELF, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        MPI_Barrier(MPI_COMM_SELF);
    }
    double t = MPI_Wtime() - t0;
    printf("calls %.1f ns per iteration of 4 calls (%ld iterations)\n", t / n * 1e9, n);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && strcmp(argv[1], "calls") == 0)
        return calls(atol(argv[2]));
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    int bytes = argc > 2 ? atoi(argv[2]) : 65536;
    long work = argc > 3 ? atol(argv[3]) : 200000;
    int abort_at = argc > 4 ? atoi(argv[4]) : -1;
    char *sb = calloc((size_t)bytes * (size_t)size + 1, 1);
    char *rb = calloc((size_t)bytes * (size_t)size + 1, 1);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hsize;
    MPI_Comm_size(half, &hsize);
    volatile double acc = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        if (it == abort_at && rank == 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        for (long i = 0; i < work; i++) /* compute */
            acc += (double)i * 1e-9;
        MPI_Request rq[2];
        int right = (rank + 1) % size, left = (rank - 1 + size) % size;
        MPI_Irecv(rb, bytes, MPI_CHAR, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sb, bytes, MPI_CHAR, right, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        MPI_Sendrecv(sb, bytes / 2, MPI_CHAR, left, 2, rb, bytes, MPI_CHAR, right, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double x = acc, y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(sb, bytes, MPI_CHAR, 0, half);
        MPI_Alltoall(sb, bytes / size, MPI_CHAR, rb, bytes / size, MPI_CHAR, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("loop %.6f s (%d iterations, %d bytes, work %ld)\n", t, iters, bytes, work);
    MPI_Comm_free(&half);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
