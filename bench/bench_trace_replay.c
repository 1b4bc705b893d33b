/* Deciding from a recording (doc/recorder.md): a generated recording of a
 * 1,024-node x 64-task stencil job (scripts/gen-record-trace: 2-D halo,
 * Allreduce on MPI_COMM_WORLD, Bcast on row communicators) loaded, its
 * collectives expanded (collective.c) and scored for block and cyclic by
 * ct_score, the plugin's path, on paper 001's GigE model. Prints each
 * stage's time. ct_score replays a trace of at most CT_SCORE_REPLAY_MAX_EVENTS
 * expanded events and aggregates a larger one per phase (score.h);
 * MAX_EVENTS sets that bound (-1: always replay, for comparison).
 *
 *   bench_trace_replay TRACE [NODES [TASKS_PER_NODE [MAX_EVENTS]]]
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr,
                "usage: bench_trace_replay TRACE [NODES [TASKS_PER_NODE [MAX_EVENTS]]]\n");
        return 2;
    }
    int32_t nodes = argc > 2 ? atoi(argv[2]) : 1024;
    int32_t tpn = argc > 3 ? atoi(argv[3]) : 64;
    ct_fabric f;
    bench_gige_fabric(&f, "gige_paper", 0);
    ct_err err = {{0}};

    double t0 = bench_now();
    ct_trace tr;
    if (ct_trace_load(argv[1], &tr, &err) < 0) {
        fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
        return 1;
    }
    double t1 = bench_now();
    ct_coll_params cp;
    ct_coll_params_from_fabric(&f, &cp);
    ct_trace x;
    ct_coll_stats st;
    if (ct_trace_expand(&tr, &cp, &x, &st, &err) < 0) {
        fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
        return 1;
    }
    double t2 = bench_now();
    printf("bench_trace_replay: %s, %d tasks\n", argv[1], (int)tr.ntasks);
    printf("  load      %8.1f ms  %zu events, %zu collective events, %zu communicators\n",
           (t1 - t0) * 1e3, tr.nevents, tr.ncoll, tr.ncomms);
    printf("  expand    %8.1f ms  %zu collective calls -> %zu events, %zu messages\n",
           (t2 - t1) * 1e3, st.instances, x.nevents, x.ncomm);
    ct_trace_free(&tr);
    ct_trace_free(&x);

    ct_alloc a;
    if (ct_alloc_uniform(nodes, tpn, &a, &err) < 0) {
        fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
        return 1;
    }
    ct_score_request req;
    memset(&req, 0, sizeof req);
    req.alloc = &a;
    req.ntasks = nodes * tpn;
    req.replay_max_events = argc > 4 ? atoll(argv[4]) : 0;
    char pat[4200];
    snprintf(pat, sizeof pat, "trace:%s", argv[1]);
    if (ct_pattern_parse(pat, &req.pattern, &err) < 0) {
        fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
        return 1;
    }
    ct_score_result res;
    double t3 = bench_now();
    if (ct_score(&f, &req, &res, &err) < 0) {
        fprintf(stderr, "bench_trace_replay: %s\n", err.msg);
        return 1;
    }
    double t4 = bench_now();
    printf("  ct_score  %8.1f ms  (load + expand + block and cyclic %s; the plugin's path)\n",
           (t4 - t3) * 1e3, res.aggregated ? "aggregated per phase" : "replayed");
    for (size_t i = 0; i < res.n; i++)
        printf("    %-8s predicted %.6f s, no contention %.6f s\n", res.c[i].name,
               res.c[i].predicted_s, res.c[i].uncontended_s);
    if (res.note[0])
        printf("  note: %s\n", res.note);
    ct_alloc_free(&a);
    return 0;
}
