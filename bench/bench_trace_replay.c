/* Deciding from a recording (doc/recorder.md): a generated recording of a
 * 1,024-node x 64-task stencil job (scripts/gen-record-trace: 2-D halo,
 * Allreduce on MPI_COMM_WORLD, Bcast on row communicators) decided on as the
 * plugin does (plugin/decide.c): the file read within the plugin's default
 * bounds (ct_trace_load_bounded: trace_max_bytes, trace_max_events, tasks),
 * then ct_score on the trace read, which expands the collectives on the fly
 * into the phases it aggregates (collective.h ct_trace_phases_build) and
 * scores block and cyclic on paper 001's GigE model. The decision is
 * repeated REPS times (default 7); each run prints its stages, then the
 * median, minimum and maximum of the decision's wall time and of its CPU
 * time (on a shared host the wall time depends on the load). For comparison it
 * also times, once, the expansion into a full trace (ct_trace_expand), which
 * the launch path no longer does for a large trace. ct_score replays a trace
 * of at most CT_SCORE_REPLAY_MAX_EVENTS expanded events and aggregates a
 * larger one per phase (score.h); MAX_EVENTS sets that bound (0: default,
 * -1: always replay).
 *
 *   bench_trace_replay TRACE [NODES [TASKS_PER_NODE [MAX_EVENTS [REPS]]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contention/collective.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/score.h"
#include "contention/signatures.h"
#include "contention/trace.h"
#include "bench_common.h"

/* the plugin's defaults (plugin/plugin.h CTP_TRACE_MAX_BYTES, _EVENTS) */
#define PLUGIN_TRACE_MAX_BYTES ((size_t)32 << 20)
#define PLUGIN_TRACE_MAX_EVENTS ((size_t)8000000)

static int cmp_double(const void *a, const void *b);

/* CPU time of this process: on a shared host the wall time of a run
 * depends on the load, its CPU time much less */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_trace_replay TRACE [NODES [TASKS_PER_NODE [MAX_EVENTS "
                        "[REPS]]]]\n");
        return 2;
    }
    int32_t nodes = argc > 2 ? atoi(argv[2]) : 1024;
    int32_t tpn = argc > 3 ? atoi(argv[3]) : 64;
    int64_t max_replay = argc > 4 ? atoll(argv[4]) : 0;
    int reps = argc > 5 ? atoi(argv[5]) : 7;
    if (reps < 1 || reps > 1000)
        reps = 7;
    ct_fabric f;
    bench_gige_fabric(&f, "gige_paper", 0);
    ct_err err = {{0}};
    ct_alloc a;
    if (ct_alloc_uniform(nodes, tpn, &a, &err) < 0) {
        fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
        return 1;
    }
    ct_trace_limits lim = {.max_bytes = PLUGIN_TRACE_MAX_BYTES,
                           .max_events = PLUGIN_TRACE_MAX_EVENTS,
                           .max_tasks = nodes * tpn};
    ct_coll_params cp;
    ct_coll_params_from_fabric(&f, &cp);
    cp.max_events = lim.max_events;

    /* for comparison: the full expansion the launch path no longer builds */
    {
        ct_trace tr, x;
        ct_coll_stats st;
        double t0 = bench_now();
        if (ct_trace_load_bounded(argv[1], &lim, &tr, &err) < 0) {
            fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
            return 1;
        }
        double t1 = bench_now();
        ct_trace_phases tp;
        cp.coll_phase = 1; /* as ct_score cuts them: a collective call, one phase */
        if (ct_trace_phases_build(&tr, &cp, &tp, &st, &err) < 0) {
            fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
            return 1;
        }
        double t2 = bench_now();
        printf("bench_trace_replay: %s, %d tasks on %d x %d\n", argv[1], (int)tr.ntasks,
               (int)nodes, (int)tpn);
        printf("  read      %8.1f ms  %zu events, %zu collective events, %zu communicators\n",
               (t1 - t0) * 1e3, tr.nevents, tr.ncoll, tr.ncomms);
        printf("  phases    %8.1f ms  %zu collective calls -> %llu events expanded, %zu "
               "messages in %zu phases (not materialised)\n",
               (t2 - t1) * 1e3, st.instances, (unsigned long long)tp.events, tp.nmsg,
               tp.nphase);
        ct_trace_phases_free(&tp);
        if (tr.ncoll) {
            double t3 = bench_now();
            if (ct_trace_expand(&tr, &cp, &x, &st, &err) < 0) {
                fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
                return 1;
            }
            double t4 = bench_now();
            printf("  (expand   %8.1f ms  into a full trace of %zu events, %zu messages: "
                   "not on the launch path)\n",
                   (t4 - t3) * 1e3, x.nevents, x.ncomm);
            ct_trace_free(&x);
        }
        ct_trace_free(&tr);
    }

    char pat[4200];
    snprintf(pat, sizeof pat, "trace:%s", argv[1]);
    double *tot = malloc((size_t)reps * sizeof *tot), *cpu = malloc((size_t)reps * sizeof *cpu);
    if (!tot || !cpu)
        return 1;
    ct_score_result res;
    for (int r = 0; r < reps; r++) {
        ct_score_request req;
        memset(&req, 0, sizeof req);
        req.alloc = &a;
        req.ntasks = nodes * tpn;
        req.replay_max_events = max_replay;
        if (ct_pattern_parse(pat, &req.pattern, &err) < 0) {
            fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
            return 1;
        }
        req.pattern.trace_limits = lim;
        ct_trace tr;
        double c0 = cpu_now(), t0 = bench_now();
        if (ct_trace_load_bounded(argv[1], &lim, &tr, &err) < 0) {
            fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
            return 1;
        }
        req.trace = &tr; /* read once, as decide.c does */
        double t1 = bench_now();
        if (ct_score(&f, &req, &res, &err) < 0) {
            fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
            return 1;
        }
        double t2 = bench_now(), c2 = cpu_now();
        ct_trace_free(&tr);
        tot[r] = (t2 - t0) * 1e3;
        cpu[r] = (c2 - c0) * 1e3;
        printf("  run %-2d    %8.1f ms  = read %.1f ms + ct_score %.1f ms (block and cyclic %s); "
               "CPU %.1f ms\n",
               r + 1, tot[r], (t1 - t0) * 1e3, (t2 - t1) * 1e3,
               res.aggregated ? "aggregated per phase" : "replayed", cpu[r]);
    }
    for (size_t i = 0; i < res.n; i++)
        printf("    %-8s predicted %.6f s, no contention %.6f s\n", res.c[i].name,
               res.c[i].predicted_s, res.c[i].uncontended_s);
    if (res.note[0])
        printf("  note: %s\n", res.note);
    double wmin = tot[0], wmax = tot[0], cmin = cpu[0], cmax = cpu[0];
    for (int r = 1; r < reps; r++) {
        wmin = tot[r] < wmin ? tot[r] : wmin;
        wmax = tot[r] > wmax ? tot[r] : wmax;
        cmin = cpu[r] < cmin ? cpu[r] : cmin;
        cmax = cpu[r] > cmax ? cpu[r] : cmax;
    }
    printf("  decision (read + ct_score), %d runs: wall median %.1f ms (min %.1f, max %.1f), "
           "CPU median %.1f ms (min %.1f, max %.1f); the plugin's budget_ms: 200 by default\n",
           reps, median(tot, reps), wmin, wmax, median(cpu, reps), cmin, cmax);
    free(tot);
    free(cpu);
    ct_alloc_free(&a);
    return 0;
}
