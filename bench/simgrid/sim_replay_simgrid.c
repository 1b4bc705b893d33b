/* The same trace replay as bench_simulate, done by SimGrid 3.32 (C API of
 * S4U): one actor per task on its node's host, blocking/non-blocking mailbox
 * puts and gets for send/isend/recv/irecv (SimGrid's communications are
 * rendez-vous too: a transfer starts once both sides are posted), sleeps for
 * compute events. The trace is read with libcontention's parser and placed
 * with the same block layout, so both simulators replay identical input.
 *
 * Platform: a SimGrid <cluster> of NODES hosts with CORES cores, each with a
 * private split-duplex link (bandwidth 1/beta, latency alpha/2: a route
 * crosses two private links) to a non-limiting backbone; tasks of one host
 * talk through its loopback at intra_bw. Network model CM02 (plain max-min
 * fair sharing, no latency/bandwidth correction factors, no cross-traffic):
 * the closest SimGrid model to this project's `fairshare` baseline.
 *
 * Usage: sim_replay_simgrid TRACE NODES [CORES=2]
 * Prints one "run=simgrid key=value ..." line (CPU time of simgrid_run).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include "contention/layout.h"
#include "contention/trace.h"

/* the same fabric as bench_simulate */
#define ALPHA 50e-6
#define BW 117e6
#define INTRA_BW 5e9

static ct_trace tr;
static ct_layout lay;
static uint64_t events_run;
static char token; /* SimGrid refuses a NULL payload; every message carries this */
static void *sink; /* where asynchronous receives drop it */

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static sg_mailbox_t box(int32_t src, int32_t dst)
{
    char name[48];
    snprintf(name, sizeof name, "%d>%d", (int)src, (int)dst);
    return sg_mailbox_by_name(name);
}

static _Noreturn void oom(int32_t t)
{
    fprintf(stderr, "sim_replay_simgrid: task %d: out of memory for its pending requests\n", (int)t);
    exit(1);
}

static void task_main(int argc, char **argv)
{
    (void)argc;
    int32_t t = (int32_t)atoi(argv[1]);
    size_t cap = 16, n = 0;
    sg_comm_t *pend = malloc(cap * sizeof *pend);
    if (!pend)
        oom(t);
    for (size_t i = tr.task_first[t]; i < tr.task_first[t + 1]; i++) {
        const ct_event *e = &tr.ev[i];
        events_run++;
        switch (e->kind) {
        case CT_EV_COMPUTE:
            if (e->value > 0)
                sg_actor_sleep_for(e->value);
            break;
        case CT_EV_SEND:
            sg_mailbox_put(box(t, e->peer), &token, (long)e->value);
            break;
        case CT_EV_RECV:
            sg_mailbox_get(box(e->peer, t));
            break;
        case CT_EV_ISEND:
        case CT_EV_IRECV:
            if (n == cap) {
                sg_comm_t *more = realloc(pend, (cap *= 2) * sizeof *pend);
                if (!more)
                    oom(t);
                pend = more;
            }
            if (e->kind == CT_EV_ISEND)
                pend[n++] = sg_mailbox_put_async(box(t, e->peer), &token, (long)e->value);
            else
                pend[n++] = sg_mailbox_get_async(box(e->peer, t), &sink);
            break;
        case CT_EV_WAITALL:
            sg_comm_wait_all(pend, n);
            n = 0;
            break;
        }
    }
    sg_comm_wait_all(pend, n);
    free(pend);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sim_replay_simgrid TRACE NODES [CORES]\n");
        return 2;
    }
    int nodes = atoi(argv[2]), cores = argc > 3 ? atoi(argv[3]) : 2;
    ct_err err;
    if (ct_trace_load(argv[1], &tr, &err)) {
        fprintf(stderr, "sim_replay_simgrid: %s\n", err.msg);
        return 1;
    }
    for (size_t i = 0; i < tr.nevents; i++)
        if ((tr.ev[i].kind == CT_EV_RECV || tr.ev[i].kind == CT_EV_IRECV) &&
            tr.ev[i].peer == CT_ANY_SOURCE) {
            fprintf(stderr,
                    "sim_replay_simgrid: %s:%d: receive from 'any' (this replay keys "
                    "SimGrid mailboxes by sender; traces with 'any' are not supported)\n",
                    tr.name, (int)tr.ev[i].line);
            return 1;
        }
    ct_alloc a;
    if (ct_alloc_uniform(nodes, cores, &a, &err) ||
        ct_layout_build(&a, tr.ntasks, 1, CT_DIST_BLOCK, 1, 0, &lay, &err)) {
        fprintf(stderr, "sim_replay_simgrid: %s\n", err.msg);
        return 1;
    }
    char plat[] = "/tmp/sim_replay_platform_XXXXXX";
    int fd = mkstemp(plat);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        perror("sim_replay_simgrid: platform file");
        return 1;
    }
    fprintf(f,
            "<?xml version='1.0'?>\n"
            "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            "<platform version=\"4.1\">\n"
            "  <cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-%d\" speed=\"1Gf\" "
            "core=\"%d\" bw=\"%.17gBps\" lat=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\" "
            "bb_bw=\"1e15Bps\" bb_lat=\"0s\" loopback_bw=\"%.17gBps\" loopback_lat=\"0s\"/>\n"
            "</platform>\n",
            nodes - 1, cores, BW, ALPHA / 2, INTRA_BW);
    fclose(f);
    char *sg_argv[] = {argv[0],
                       "--cfg=network/model:CM02",
                       "--cfg=network/crosstraffic:0",
                       "--cfg=network/TCP-gamma:0",
                       "--cfg=contexts/stack-size:128",
                       "--log=root.thres:critical",
                       NULL};
    int sg_argc = 6;
    simgrid_init(&sg_argc, sg_argv);
    simgrid_load_platform(plat);
    unlink(plat);
    for (int32_t t = 0; t < tr.ntasks; t++) {
        char host[32], name[32], id[16];
        snprintf(host, sizeof host, "n%d", (int)lay.node_of[t]);
        snprintf(name, sizeof name, "task%d", (int)t);
        snprintf(id, sizeof id, "%d", (int)t);
        const char *av[] = {name, id, NULL};
        sg_actor_create(name, sg_host_by_name(host), task_main, 2, (char **)av);
    }
    double c0 = cpu_s();
    simgrid_run();
    double dt = cpu_s() - c0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("run=simgrid model=CM02 nodes=%d tasks=%d comms=%zu events=%llu cpu_s=%.4f "
           "events_per_s=%.0f comms_per_s=%.0f makespan_s=%.6f maxrss_kib=%ld\n",
           nodes, (int)tr.ntasks, tr.ncomm, (unsigned long long)events_run, dt,
           (double)events_run / dt, (double)tr.ncomm / dt, simgrid_get_clock(), ru.ru_maxrss);
    ct_layout_free(&lay);
    ct_alloc_free(&a);
    ct_trace_free(&tr);
    return 0;
}
