/* ct-tracer: run a trace (doc/trace-format.md) with real MPI calls and record
 * the measured time of every communication.
 *
 *   srun -n N ct-tracer TRACE OUT [--runs R] [--at-source]
 *   mpirun -n N ct-tracer TRACE OUT [--runs R] [--at-source]
 *
 * Every rank reads TRACE (rank r runs task r; N must equal the trace's task
 * count) and executes its events in order: compute = sleep (the CPU stays
 * free for the network stack), send/recv = MPI_Send/MPI_Recv, isend/irecv =
 * MPI_Isend/MPI_Irecv, waitall = MPI_Waitsome until every request is done
 * (so each request gets its own completion time). Communication c is sent
 * with tag c and received with MPI_ANY_TAG, which keeps the trace's matching
 * (per source, in order) and tells the receiver which communication arrived.
 * The whole trace runs R times (default 3), separated by barriers; the first
 * run warms connections up and is not recorded (001 §IV-B: "several
 * not-measured communications before each benchmark"); the mean over the
 * others is written.
 *
 * Time of a communication: from the send call to the completion of the
 * matching receive (the transfer is delivered), which is what the simulator
 * predicts. Paper 001 §IV-B timed at the source, from the call to MPI_Send's
 * return; --at-source records that instead. The two agree when MPI_Send
 * returns at delivery (rendez-vous), not when the message is buffered
 * (eager protocol, socket buffers). Delivery times compare clocks of two
 * ranks: CLOCK_MONOTONIC, one clock when all ranks share a host (an emulated
 * cluster); on real separate hosts use --at-source.
 *
 * OUT receives one "LABEL SECONDS" line per communication, the measured-time
 * format that `contention-admin simulate --measured` reads; OUT.runs has, per
 * communication and run, the time at the source and the time to delivery.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contention/trace.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_for(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

typedef struct req_info {
    MPI_Request req;
    int32_t comm; /* send: communication index; receive: -1 */
} req_info;

/* Run task `me` once: post[c] and sent[c] (send call, send completion) for
 * the communications it sends, got[c] (receive completion) for those it
 * receives; absolute CLOCK_MONOTONIC times. */
static void run_once(const ct_trace *tr, int me, char *buf, double *post, double *sent, double *got,
                     req_info *reqs, int *idx, MPI_Request *rq, MPI_Status *st)
{
    int n = 0;
    for (size_t i = tr->task_first[me]; i < tr->task_first[me + 1]; i++) {
        const ct_event *e = &tr->ev[i];
        int count = (int)e->value;
        int src = e->peer == CT_ANY_SOURCE ? MPI_ANY_SOURCE : e->peer;
        MPI_Status one;
        switch (e->kind) {
        case CT_EV_COMPUTE:
            sleep_for(e->value);
            break;
        case CT_EV_SEND:
            post[e->comm] = now_s();
            MPI_Send(buf, count, MPI_BYTE, e->peer, e->comm, MPI_COMM_WORLD);
            sent[e->comm] = now_s();
            break;
        case CT_EV_RECV:
            MPI_Recv(buf, INT32_MAX / 2, MPI_BYTE, src, MPI_ANY_TAG, MPI_COMM_WORLD, &one);
            got[one.MPI_TAG] = now_s();
            break;
        case CT_EV_ISEND:
            post[e->comm] = now_s();
            reqs[n].comm = e->comm;
            MPI_Isend(buf, count, MPI_BYTE, e->peer, e->comm, MPI_COMM_WORLD, &reqs[n].req);
            n++;
            break;
        case CT_EV_IRECV:
            reqs[n].comm = -1;
            MPI_Irecv(buf, INT32_MAX / 2, MPI_BYTE, src, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[n].req);
            n++;
            break;
        }
        if (e->kind == CT_EV_WAITALL || i + 1 == tr->task_first[me + 1]) {
            int left = n;
            for (int k = 0; k < n; k++)
                rq[k] = reqs[k].req;
            while (left > 0) {
                int done;
                MPI_Waitsome(n, rq, &done, idx, st);
                double t = now_s();
                for (int k = 0; k < done; k++) {
                    if (reqs[idx[k]].comm >= 0)
                        sent[reqs[idx[k]].comm] = t;
                    else
                        got[st[k].MPI_TAG] = t;
                }
                left -= done;
            }
            n = 0;
        }
    }
}

static void usage(int me)
{
    if (me == 0)
        fprintf(stderr, "usage: ct-tracer TRACE OUT [--runs R] [--at-source]   (R >= 2; the "
                        "first run is a warm-up)\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, runs = 3, at_source = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--at-source") == 0)
            at_source = 1;
        else
            runs = 0;
    }
    if (argc < 3 || runs < 2) {
        usage(me);
        MPI_Finalize();
        return 2;
    }
    ct_trace tr;
    ct_err err;
    if (ct_trace_load(argv[1], &tr, &err)) {
        if (me == 0)
            fprintf(stderr, "ct-tracer: %s\n", err.msg);
        MPI_Finalize();
        return 1;
    }
    int *tag_ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    const char *bad = tr.ncoll ? "it has collective events (ct-tracer replays point-to-point "
                                 "events only; run the recorded application itself)"
                      : tr.ntasks != np ? "its task count differs from the number of ranks"
                      : flag && (double)tr.ncomm > (double)*tag_ub
                          ? "it has more communications than MPI tags"
                          : NULL;
    double maxb = 1;
    for (size_t c = 0; c < tr.ncomm; c++)
        if (ct_trace_comm_event(&tr, c)->value > maxb)
            maxb = ct_trace_comm_event(&tr, c)->value;
    if (!bad && maxb > INT32_MAX / 2)
        bad = "a message is larger than 1 GiB";
    if (bad) {
        if (me == 0)
            fprintf(stderr,
                    "ct-tracer: %s (%d tasks, %zu communications) cannot run on %d "
                    "ranks: %s\n",
                    argv[1], (int)tr.ntasks, tr.ncomm, np, bad);
        MPI_Finalize();
        return 1;
    }
    size_t nreq = 1 + tr.task_first[me + 1] - tr.task_first[me];
    char *buf = calloc(1, (size_t)maxb);
    size_t nc = tr.ncomm ? tr.ncomm : 1;
    /* per run: post, send completion, receive completion (absolute times) */
    double *mine = calloc(3 * nc, sizeof *mine);
    double *all = me == 0 ? calloc(3 * nc * (size_t)runs, sizeof *all) : NULL;
    req_info *reqs = malloc(nreq * sizeof *reqs);
    int *idx = malloc(nreq * sizeof *idx);
    MPI_Request *rq = malloc(nreq * sizeof *rq);
    MPI_Status *st = malloc(nreq * sizeof *st);
    if (!buf || !mine || (me == 0 && !all) || !reqs || !idx || !rq || !st) {
        fprintf(stderr, "ct-tracer: rank %d: out of memory for %s (%zu communications, %zu "
                        "requests)\n", me, argv[1], tr.ncomm, nreq);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    for (int r = 0; r < runs; r++) {
        memset(mine, 0, 3 * nc * sizeof *mine);
        MPI_Barrier(MPI_COMM_WORLD);
        run_once(&tr, me, buf, mine, mine + nc, mine + 2 * nc, reqs, idx, rq, st);
        /* each entry is set by one rank only: the max gathers them */
        MPI_Reduce(mine, me == 0 ? all + 3 * nc * (size_t)r : NULL, (int)(3 * nc), MPI_DOUBLE,
                   MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (me == 0) {
        char path[4096];
        FILE *f = fopen(argv[2], "w");
        snprintf(path, sizeof path, "%s.runs", argv[2]);
        FILE *g = fopen(path, "w");
        if (!f || !g) {
            fprintf(stderr, "ct-tracer: cannot write %s: %s\n", f ? path : argv[2],
                    strerror(errno));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fprintf(f,
                "# measured by ct-tracer: %s, %d ranks, mean of %d runs after 1 warm-up\n"
                "# time from the send call to %s\n",
                argv[1], np, runs - 1,
                at_source ? "its return at the source (001 §IV-B)"
                          : "the completion of the matching receive (delivery)");
        fprintf(g, "# label, then per run (the first is the warm-up, not used): "
                   "at_source delivery, s\n");
        for (size_t c = 0; c < tr.ncomm; c++) {
            char lab[CT_LABEL_MAX];
            ct_trace_label(&tr, c, lab, sizeof lab);
            double sum = 0;
            fprintf(g, "%s", lab);
            for (int r = 0; r < runs; r++) {
                const double *a = all + 3 * nc * (size_t)r;
                double src = a[nc + c] - a[c], dlv = a[2 * nc + c] - a[c];
                fprintf(g, "  %.9f %.9f", src, dlv);
                if (r > 0)
                    sum += at_source ? src : dlv;
            }
            fprintf(g, "\n");
            fprintf(f, "%s %.9f\n", lab, sum / (runs - 1));
        }
        fclose(f);
        fclose(g);
        printf("ct-tracer: %zu communications of %s measured over %d runs -> %s\n", tr.ncomm,
               argv[1], runs - 1, argv[2]);
    }
    free(buf);
    free(mine);
    free(all);
    free(reqs);
    free(idx);
    free(rq);
    free(st);
    ct_trace_free(&tr);
    MPI_Finalize();
    return 0;
}
