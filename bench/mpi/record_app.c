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
 *        call, with and without it).
 *        ct-record-app poll sleep|spin MS: a program that polls (2 ranks
 *        or more; ranks 0 and 1 take part). Rank 1 works MS ms (spinning)
 *        and then sends 8 bytes to rank 0, which has posted the receive and
 *        polls it with MPI_Test, sleeping 1 ms between tests (sleep) or
 *        spinning 1 ms of CPU between tests (spin: work overlapped with the
 *        communication); then every rank waits for an MPI_Ibarrier (which
 *        the recorder does not record) the same way, rank 1 joining it MS
 *        ms after its send. Rank 0 prints the CPU time of both loops. The
 *        recorder's polling rule: rank 0 records ~0 compute before its
 *        waitall and before its final barrier with sleep, about those CPU
 *        times with spin.
 *        ct-record-app ring persistent|immediate ITERS: a ring exchange
 *        with persistent or immediate requests (recorded alike), then an
 *        MPI_Iprobe loop with sleeps on rank 0 (a poll).
 *        ct-record-app nbr blocking|nonblocking|cart: neighbourhood
 *        collectives (3 ranks or more) on a periodic and a non-periodic
 *        ring (MPI_Cart_create) and a graph (MPI_Graph_create), and, but for
 *        cart, a one-way ring (MPI_Dist_graph_create_adjacent): blocking or
 *        non-blocking ones recorded alike.
 *        ct-record-app mprobe matched|plain: two messages received with
 *        matched probes (Mprobe/Mrecv, Improbe/Imrecv) or plainly (Recv,
 *        Irecv): recorded alike.
 *        ct-record-app cancel cancelled|plain: a receive from
 *        MPI_ANY_SOURCE, with a second one cancelled or not posted:
 *        recorded alike.
 *        ct-record-app tests N: N failed MPI_Test calls (a receive nobody
 *        sends); prints ns per test (a poll's cost, with and without).
 *        ct-record-app colls blocking|nonblocking: each collective the
 *        recorder knows once (Barrier ... Alltoallv, or Ibarrier ...
 *        Ialltoallv each followed by MPI_Wait), sizes depending on the
 *        rank: the two recordings must have the same collective lines.
 *        ct-record-app colls inplace: the collectives that take
 *        MPI_IN_PLACE, each once with it.
 *        ct-record-app complete x: a ring's requests completed by each
 *        completion call in turn.
 *        ct-record-app tags x: messages received out of their send order
 *        by tag, and a receive from any source with any tag.
 *        ct-record-app startup MS plain|cross|uneven|region: a start-up
 *        (rank 0 works MS ms, then an MPI_Bcast on MPI_COMM_WORLD), then
 *        MPI_Pcontrol(1) and an MPI_Barrier, then 3 iterations of a ring
 *        exchange of 64 KiB, 5 ms of work and a Barrier. cross: rank 0 sends
 *        rank 1 8 bytes before the Pcontrol, which rank 1 receives after it
 *        (a message across the mark); uneven: only rank 0 calls
 *        MPI_Pcontrol(1); region: MPI_Pcontrol(0) after the first
 *        iteration. The recorder's start mark (doc/recorder.md, "Recording
 *        a region"). */
#include <time.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the BLOCKING call, or (nb) the NONBLOCKING one and a wait for its
 * request r at once: the modes that must record both alike */
#define ONE_OF(nb, r, BLOCKING, NONBLOCKING)                                                       \
    do {                                                                                           \
        if (nb) {                                                                                  \
            NONBLOCKING;                                                                           \
            MPI_Wait(&(r), MPI_STATUS_IGNORE);                                                     \
        } else {                                                                                   \
            BLOCKING;                                                                              \
        }                                                                                          \
    } while (0)

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

/* where spin's work goes (a file-scope volatile: neither optimised away nor
 * "set but not used", which gcc 15 says of a local volatile) */
static volatile double spin_sink;

/* spin for s seconds of wall time (CPU work) */
static void spin(double s)
{
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < s)
        for (int i = 0; i < 1000; i++)
            spin_sink += i * 0.5;
}

/* sleep 1 ms (a polling loop's nap) */
static void nap_1ms(void)
{
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

/* wait for rq by testing it, with a 1 ms sleep (nap) or 1 ms of spinning
 * between tests; returns the CPU time (ns) this thread used meanwhile */
static double poll_one(MPI_Request *rq, int nap)
{
    struct timespec c0, c1;
    int flag = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    while (MPI_Test(rq, &flag, MPI_STATUS_IGNORE), !flag) {
        if (nap)
            nap_1ms();
        else
            spin(1e-3);
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    return 1e9 * (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec);
}

static int poll_mode(const char *how, long ms)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nap = strcmp(how, "sleep") == 0;
    if (size < 2 || (!nap && strcmp(how, "spin") != 0) || ms < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: ct-record-app poll sleep|spin MS (2 ranks or more)\n");
        return 2;
    }
    char b[8] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), recv_cpu = 0;
    MPI_Request rq;
    if (rank == 1) {
        spin(1e-3 * (double)ms);
        MPI_Send(b, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        spin(1e-3 * (double)ms);
    } else if (rank == 0) {
        MPI_Irecv(b, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &rq);
        recv_cpu = poll_one(&rq, nap);
    }
    /* a non-blocking collective (not recorded), polled the same way: rank 1
     * joins it MS ms after its send */
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    double bar_cpu = poll_one(&rq, nap);
    if (rank == 0)
        printf("poll %s: received after %.3f s, %.0f ns of CPU in the loop, %.0f ns in the "
               "ibarrier's\n",
               how, MPI_Wtime() - t0, recv_cpu, bar_cpu);
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

/* an allocation failed: the job ends (MPI_Abort is not declared noreturn,
 * so the caller returns what this does) */
static int out_of_memory(void)
{
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

/* the collectives that take MPI_IN_PLACE, each once with it (at the root
 * where only the root may): colls inplace; frees what colls_mode allocated */
static int colls_inplace(int rank, int size, int *cnt, int *dsp, double *a, double *b)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Datatype c = MPI_CHAR, d = MPI_DOUBLE;
    const void *ip = MPI_IN_PLACE;
    MPI_Allreduce(ip, a, 3, d, MPI_SUM, w);
    MPI_Reduce(rank == 0 ? ip : a, a, 10, d, MPI_SUM, 0, w);
    MPI_Gather(rank == 0 ? ip : a, 5, c, b, 5, c, 0, w);
    MPI_Gatherv(rank == 1 ? ip : a, rank + 1, c, b, cnt, dsp, c, 1, w);
    MPI_Scatter(a, 7, c, rank == 0 ? MPI_IN_PLACE : b, 7, c, 0, w);
    MPI_Scatterv(a, cnt, dsp, c, rank == 0 ? MPI_IN_PLACE : b, rank + 1, c, 0, w);
    MPI_Allgather(ip, 9, c, b, 9, c, w);
    MPI_Allgatherv(ip, rank + 1, c, b, cnt, dsp, c, w);
    MPI_Alltoall(ip, 2, d, b, 2, d, w);
    /* in place, what rank r sends j is what j receives from r: r + j + 1 */
    for (int j = 0; j < size; j++)
        cnt[j] = rank + j + 1;
    MPI_Alltoallv(ip, cnt, dsp, c, b, cnt, dsp, c, w);
    MPI_Scan(ip, a, 4, d, MPI_SUM, w);
    MPI_Exscan(ip, a, 2, MPI_INT, MPI_SUM, w);
    free(cnt);
    free(dsp);
    free(a);
    free(b);
    return 0;
}

/* every collective the recorder knows, once, blocking or non-blocking (each
 * request waited for at once), with per-rank sizes: both must be recorded
 * alike */
static int colls_mode(const char *how)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nb = strcmp(how, "nonblocking") == 0, inplace = strcmp(how, "inplace") == 0;
    if (size < 2 || (!nb && !inplace && strcmp(how, "blocking") != 0)) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: ct-record-app colls blocking|nonblocking|inplace (2 ranks or more)\n");
        return 2;
    }
    /* cnt: i + 1 bytes to or from rank i; mine: rank + 1 from each rank
     * (what each sends me in the Alltoallv); displacements of 64 bytes */
    int n = size, *cnt = calloc((size_t)n, sizeof *cnt), *dsp = calloc((size_t)n, sizeof *dsp);
    int *mine = calloc((size_t)n, sizeof *mine);
    double *a = calloc(8 * (size_t)n * (size_t)n, sizeof *a);
    double *b = calloc(8 * (size_t)n * (size_t)n, sizeof *b);
    if (!cnt || !dsp || !mine || !a || !b)
        return out_of_memory();
    for (int i = 0; i < n; i++)
        cnt[i] = i + 1, dsp[i] = 64 * i, mine[i] = rank + 1;
    if (inplace) {
        free(mine);
        return colls_inplace(rank, size, cnt, dsp, a, b);
    }
    MPI_Request r;
#define ONE(BLOCKING, NONBLOCKING) ONE_OF(nb, r, BLOCKING, NONBLOCKING)
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Datatype c = MPI_CHAR, d = MPI_DOUBLE;
    ONE(MPI_Barrier(w), MPI_Ibarrier(w, &r));
    ONE(MPI_Bcast(a, 100, c, 1, w), MPI_Ibcast(a, 100, c, 1, w, &r));
    ONE(MPI_Reduce(a, b, 10, d, MPI_SUM, 0, w), MPI_Ireduce(a, b, 10, d, MPI_SUM, 0, w, &r));
    ONE(MPI_Allreduce(a, b, 3, d, MPI_SUM, w), MPI_Iallreduce(a, b, 3, d, MPI_SUM, w, &r));
    ONE(MPI_Gather(a, 5, c, b, 5, c, 0, w), MPI_Igather(a, 5, c, b, 5, c, 0, w, &r));
    ONE(MPI_Gatherv(a, rank + 1, c, b, cnt, dsp, c, 1, w),
        MPI_Igatherv(a, rank + 1, c, b, cnt, dsp, c, 1, w, &r));
    ONE(MPI_Scatter(a, 7, c, b, 7, c, 0, w), MPI_Iscatter(a, 7, c, b, 7, c, 0, w, &r));
    ONE(MPI_Scatterv(a, cnt, dsp, c, b, rank + 1, c, 0, w),
        MPI_Iscatterv(a, cnt, dsp, c, b, rank + 1, c, 0, w, &r));
    ONE(MPI_Allgather(a, 9, c, b, 9, c, w), MPI_Iallgather(a, 9, c, b, 9, c, w, &r));
    ONE(MPI_Allgatherv(a, rank + 1, c, b, cnt, dsp, c, w),
        MPI_Iallgatherv(a, rank + 1, c, b, cnt, dsp, c, w, &r));
    ONE(MPI_Alltoall(a, 2, d, b, 2, d, w), MPI_Ialltoall(a, 2, d, b, 2, d, w, &r));
    ONE(MPI_Alltoallv(a, cnt, dsp, c, b, mine, dsp, c, w),
        MPI_Ialltoallv(a, cnt, dsp, c, b, mine, dsp, c, w, &r));
    /* Alltoallw: i + 1 elements to rank i, ints to rank 2, chars to the
     * others (displacements in bytes) */
    MPI_Datatype *wt = calloc((size_t)n, sizeof *wt), *wr = calloc((size_t)n, sizeof *wr);
    int *wd = calloc((size_t)n, sizeof *wd);
    if (!wt || !wr || !wd)
        return out_of_memory();
    for (int i = 0; i < n; i++)
        wt[i] = i == 2 ? MPI_INT : c, wr[i] = rank == 2 ? MPI_INT : c, wd[i] = 128 * i;
    ONE(MPI_Alltoallw(a, cnt, wd, wt, b, mine, wd, wr, w),
        MPI_Ialltoallw(a, cnt, wd, wt, b, mine, wd, wr, w, &r));
    free(wt);
    free(wr);
    free(wd);
    /* each recorded as a reduce and a scatterv */
    ONE(MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, w),
        MPI_Ireduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, w, &r));
    ONE(MPI_Reduce_scatter_block(a, b, 2, d, MPI_SUM, w),
        MPI_Ireduce_scatter_block(a, b, 2, d, MPI_SUM, w, &r));
    ONE(MPI_Scan(a, b, 4, d, MPI_SUM, w), MPI_Iscan(a, b, 4, d, MPI_SUM, w, &r));
    ONE(MPI_Exscan(a, b, 2, MPI_INT, MPI_SUM, w), MPI_Iexscan(a, b, 2, MPI_INT, MPI_SUM, w, &r));
#undef ONE
    free(cnt);
    free(dsp);
    free(mine);
    free(a);
    free(b);
    return 0;
}

/* a ring exchange (receive from the left, send to the right) ITERS times,
 * with persistent requests (Recv_init/Send_init once, Startall + Waitall per
 * iteration, Request_free) or immediate ones (Irecv/Isend + Waitall): both
 * must be recorded alike; then an Iprobe loop with 1 ms sleeps for a message
 * rank 1 sends after 200 ms of work (a probe is a poll) */
static int ring_mode(const char *how, int iters)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int pers = strcmp(how, "persistent") == 0;
    if (size < 2 || (!pers && strcmp(how, "immediate") != 0) || iters < 1) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: ct-record-app ring persistent|immediate ITERS (2 ranks or more)\n");
        return 2;
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double sb[512] = {0}, rb[512];
    MPI_Request r[2];
    if (pers) {
        MPI_Recv_init(rb, 512, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Send_init(sb, 512, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[1]);
    }
    for (int i = 0; i < iters; i++) {
        if (pers) {
            MPI_Startall(2, r);
        } else {
            MPI_Irecv(rb, 512, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(sb, 512, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[1]);
        }
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    if (pers) {
        MPI_Request_free(&r[0]);
        MPI_Request_free(&r[1]);
    }
    char b[8] = {0};
    if (rank == 1) {
        spin(0.2);
        MPI_Send(b, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int flag = 0;
        while (MPI_Iprobe(1, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), !flag)
            nap_1ms();
        MPI_Recv(b, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

/* a ring exchange of 1 KiB eight times, its two requests completed each time
 * by another call: Waitall, Waitany, Waitsome, Testall, Testany, Testsome,
 * Wait, Test (each loop until both are done): recorded alike in C and
 * Fortran (ct-record-app-f complete) */
static int complete_mode(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char sb[1024] = {0}, rb[1024];
    for (int how = 0; how < 8; how++) {
        MPI_Request r[2];
        MPI_Status st[2];
        int left_n = 2, idx[2], k, flag;
        MPI_Irecv(rb, 1024, MPI_CHAR, left, 7, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sb, 1024, MPI_CHAR, right, 7, MPI_COMM_WORLD, &r[1]);
        while (left_n > 0) {
            switch (how) {
            case 0:
                MPI_Waitall(2, r, st);
                left_n = 0;
                break;
            case 1:
                MPI_Waitany(2, r, &k, &st[0]);
                left_n--;
                break;
            case 2:
                MPI_Waitsome(2, r, &k, idx, st);
                left_n -= k;
                break;
            case 3:
                MPI_Testall(2, r, &flag, st);
                left_n = flag ? 0 : left_n;
                break;
            case 4:
                MPI_Testany(2, r, &k, &flag, &st[0]);
                left_n -= flag && k != MPI_UNDEFINED;
                break;
            case 5:
                MPI_Testsome(2, r, &k, idx, st);
                left_n -= k;
                break;
            case 6:
                MPI_Wait(&r[0], &st[0]);
                MPI_Wait(&r[1], &st[1]);
                left_n = 0;
                break;
            default:
                for (int i = 0; i < 2; i++)
                    if (r[i] != MPI_REQUEST_NULL && (MPI_Test(&r[i], &flag, &st[i]), flag))
                        left_n--;
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

/* MPI's matching by tag and wildcard receives (ct-record-app tags x): rank 1
 * sends rank 0 100 bytes with tag 1, then 200 bytes with tag 2; rank 0
 * receives the tag-2 message first. Then every rank posts a receive from
 * MPI_ANY_SOURCE with MPI_ANY_TAG, sends 64 bytes with tag 7 to the next
 * rank and waits for both. Recorded with the tags, and the wildcard receive
 * with the source and tag that matched it, the trace replays as it ran. */
static int tags_mode(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char b[200] = {0}, r64[64], s64[64] = {0};
    if (rank == 1) {
        MPI_Send(b, 100, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        MPI_Send(b, 200, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(b, 200, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(b, 100, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Request r[2];
    MPI_Irecv(r64, 64, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(s64, 64, MPI_CHAR, (rank + 1) % size, 7, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    /* a duplicate of MPI_COMM_WORLD has its own messages: rank 1 sends 300
     * bytes with tag 1 on it, then 8 with tag 1 on MPI_COMM_WORLD, which
     * rank 0 receives first; then two communicators of the same members
     * (one split made twice), a barrier on each, the second's first */
    char d[300] = {0};
    MPI_Comm dup, h1, h2;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 1) {
        MPI_Send(d, 300, MPI_CHAR, 0, 1, dup);
        MPI_Send(d, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(d, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(d, 300, MPI_CHAR, 1, 1, dup, MPI_STATUS_IGNORE);
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &h1);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &h2);
    MPI_Barrier(h2);
    MPI_Barrier(h1);
    MPI_Comm_free(&h2);
    MPI_Comm_free(&h1);
    MPI_Comm_free(&dup);
    return 0;
}

/* neighbourhood collectives, blocking or non-blocking (each request waited
 * for at once), on a periodic ring: Neighbor_alltoall of 16 bytes,
 * Neighbor_allgather of 8, Neighbor_alltoallv of 10 bytes to the negative
 * neighbour and 20 to the positive one (so 20 from the negative one and 10
 * from the positive one); on a non-periodic ring (rank 0 and the last have
 * one neighbour): Neighbor_allgatherv of 8; on a graph where rank 0 is
 * linked to every other rank and they to it: Neighbor_alltoall of 4; on a
 * one-way ring (rank r sends to r + 1 only; not in the cart mode):
 * Neighbor_alltoallw of 32 bytes */
static int nbr_mode(const char *how)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nb = strcmp(how, "nonblocking") == 0, cart = strcmp(how, "cart") == 0;
    if (size < 3 || (!nb && !cart && strcmp(how, "blocking") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: ct-record-app nbr blocking|nonblocking|cart (3 ranks or more)\n");
        return 2;
    }
    char sb[64] = {0}, rb[64];
    MPI_Comm ring, line, star, oneway;
    int dims[1] = {size}, per[1] = {1}, noper[1] = {0};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, noper, 0, &line);
    int *index = calloc((size_t)size, sizeof *index), *edges = calloc(2 * (size_t)size, sizeof *edges);
    if (!index || !edges)
        return out_of_memory();
    for (int i = 0, e = 0; i < size; i++) { /* 0 - i for every i > 0 */
        if (i == 0)
            for (int j = 1; j < size; j++)
                edges[e++] = j;
        else
            edges[e++] = 0;
        index[i] = e;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &star);
    free(index);
    free(edges);
    MPI_Request r;
    int sc[2] = {10, 20}, rc_[2] = {20, 10}, d2[2] = {0, 32}, c2[2] = {8, 8};
#define NBR(BLOCKING, NONBLOCKING) ONE_OF(nb, r, BLOCKING, NONBLOCKING)
    MPI_Datatype c = MPI_CHAR;
    NBR(MPI_Neighbor_alltoall(sb, 16, c, rb, 16, c, ring),
        MPI_Ineighbor_alltoall(sb, 16, c, rb, 16, c, ring, &r));
    NBR(MPI_Neighbor_allgather(sb, 8, c, rb, 8, c, ring),
        MPI_Ineighbor_allgather(sb, 8, c, rb, 8, c, ring, &r));
    NBR(MPI_Neighbor_alltoallv(sb, sc, d2, c, rb, rc_, d2, c, ring),
        MPI_Ineighbor_alltoallv(sb, sc, d2, c, rb, rc_, d2, c, ring, &r));
    NBR(MPI_Neighbor_allgatherv(sb, 8, c, rb, c2, d2, c, line),
        MPI_Ineighbor_allgatherv(sb, 8, c, rb, c2, d2, c, line, &r));
    NBR(MPI_Neighbor_alltoall(sb, 4, c, rb, 4, c, star),
        MPI_Ineighbor_alltoall(sb, 4, c, rb, 4, c, star, &r));
    if (!cart) {
        int src = (rank - 1 + size) % size, dst = (rank + 1) % size, n32 = 32, w = 1;
        MPI_Aint d0 = 0;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &w, 1, &dst, &w, MPI_INFO_NULL, 0,
                                       &oneway); /* weighted: MPI_UNWEIGHTED is a
                                                    pointer gcc warns about */
        NBR(MPI_Neighbor_alltoallw(sb, &n32, &d0, &c, rb, &n32, &d0, &c, oneway),
            MPI_Ineighbor_alltoallw(sb, &n32, &d0, &c, rb, &n32, &d0, &c, oneway, &r));
        MPI_Comm_free(&oneway);
    }
#undef NBR
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&star);
    MPI_Comm_free(&line);
    MPI_Comm_free(&ring);
    return 0;
}

/* rank 1 sends rank 0 two messages (100 bytes, tag 1; 200 bytes, tag 2);
 * rank 0 takes them with matched probes (MPI_Mprobe + MPI_Mrecv, then an
 * MPI_Improbe loop + MPI_Imrecv + MPI_Wait) or plainly (MPI_Recv, then
 * MPI_Irecv + MPI_Wait): both must be recorded alike */
static int mprobe_mode(const char *how)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int matched = strcmp(how, "matched") == 0;
    if (size < 2 || (!matched && strcmp(how, "plain") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: ct-record-app mprobe matched|plain (2 ranks or more)\n");
        return 2;
    }
    char b[200] = {0};
    if (rank == 1) {
        MPI_Send(b, 100, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        MPI_Send(b, 200, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Request r;
        if (matched) {
            MPI_Message m;
            int flag = 0;
            MPI_Mprobe(1, 1, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
            MPI_Mrecv(b, 100, MPI_CHAR, &m, MPI_STATUS_IGNORE);
            while (MPI_Improbe(1, 2, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE), !flag)
                ;
            MPI_Imrecv(b, 200, MPI_CHAR, &m, &r);
        } else {
            MPI_Recv(b, 100, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Irecv(b, 200, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &r);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

/* rank 1 sends rank 0 one message of 8 bytes; rank 0 posts two receives
 * from MPI_ANY_SOURCE, waits for one (MPI_Waitany) and cancels the other
 * (cancelled), or posts and waits for one (plain): recorded alike, and the
 * cancelled recording replays */
static int cancel_mode(const char *how)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cancel = strcmp(how, "cancelled") == 0;
    if (size < 2 || (!cancel && strcmp(how, "plain") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: ct-record-app cancel cancelled|plain (2 ranks or more)\n");
        return 2;
    }
    char a[8] = {0}, b[8];
    if (rank == 1) {
        MPI_Send(a, 8, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Request r[2];
        int idx;
        MPI_Irecv(b, 8, MPI_CHAR, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &r[0]);
        if (cancel) {
            MPI_Irecv(a, 8, MPI_CHAR, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &r[1]);
            MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
            MPI_Cancel(&r[1 - idx]);
            MPI_Wait(&r[1 - idx], MPI_STATUS_IGNORE);
        } else {
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

/* N failed MPI_Test calls on a receive nobody sends (then cancelled): the
 * cost of a poll, with and without the recorder (its polling rule reads
 * the thread's CPU clock around each failed test) */
static int tests(long n)
{
    char b[8];
    MPI_Request rq;
    int flag = 0;
    MPI_Irecv(b, 8, MPI_CHAR, 0, 99, MPI_COMM_SELF, &rq);
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++)
        MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
    double t = MPI_Wtime() - t0;
    MPI_Cancel(&rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    printf("tests %.1f ns per failed MPI_Test (%ld tests)\n", t / (double)n * 1e9, n);
    return 0;
}

/* the start mark (MPI_Pcontrol): see the header */
static int startup_mode(long ms, const char *how)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cross = strcmp(how, "cross") == 0, uneven = strcmp(how, "uneven") == 0;
    int region = strcmp(how, "region") == 0;
    if (!cross && !uneven && !region && strcmp(how, "plain") != 0)
        return 2;
    enum { M = 65536 };
    static char sb[M], rb[M];
    char tiny[8] = {0};
    if (rank == 0)
        spin((double)ms / 1e3);
    MPI_Bcast(tiny, 8, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (cross && rank == 0)
        MPI_Send(tiny, 8, MPI_CHAR, 1, 5, MPI_COMM_WORLD); /* eager: returns */
    if (!uneven || rank == 0)
        MPI_Pcontrol(1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (cross && rank == 1)
        MPI_Recv(tiny, 8, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int it = 0; it < 3; it++) {
        MPI_Request rq[2];
        MPI_Irecv(rb, M, MPI_CHAR, (rank - 1 + size) % size, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sb, M, MPI_CHAR, (rank + 1) % size, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        spin(0.005);
        MPI_Barrier(MPI_COMM_WORLD);
        if (region && it == 0)
            MPI_Pcontrol(0);
    }
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
    /* the test modes (tests/recorder/run, scripts/bench-record) */
    const char *mode = argc > 2 ? argv[1] : "", *a2 = argc > 2 ? argv[2] : NULL;
    const char *a3 = argc > 3 ? argv[3] : NULL;
    int rc = -1;
    if (strcmp(mode, "ring") == 0 && a3)
        rc = ring_mode(a2, atoi(a3));
    else if (strcmp(mode, "mprobe") == 0)
        rc = mprobe_mode(a2);
    else if (strcmp(mode, "cancel") == 0)
        rc = cancel_mode(a2);
    else if (strcmp(mode, "tests") == 0)
        rc = tests(atol(a2));
    else if (strcmp(mode, "complete") == 0)
        rc = complete_mode();
    else if (strcmp(mode, "tags") == 0)
        rc = tags_mode();
    else if (strcmp(mode, "nbr") == 0)
        rc = nbr_mode(a2);
    else if (strcmp(mode, "colls") == 0)
        rc = colls_mode(a2);
    else if (strcmp(mode, "poll") == 0 && a3)
        rc = poll_mode(a2, atol(a3));
    else if (strcmp(mode, "startup") == 0 && a3)
        rc = startup_mode(atol(a2), a3);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
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
