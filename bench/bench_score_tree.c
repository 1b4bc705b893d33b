/* Scorer speed on a switch tree (issue 14): NODES nodes x TASKS_PER_NODE
 * tasks under LEAVES leaf switches (contiguous blocks) and one spine, each
 * uplink oversubscribed 4:1, paper 001's GigE model generalised to links
 * (penalty_links.c) and paper 000's GigE Alltoall signature with the uplink
 * term (grid_lg.c). Prints milliseconds per decision (block + cyclic scored
 * together, as at launch; target: well under the plugin's launch budget)
 * and the scorer's note; then the whole launch-time decision: the scorer
 * plus the optimized placement search over the same tree (ct_place_search
 * with .tree, as plugin/decide.c runs them; the plugin's default budget is
 * 200 ms), with the search's choice and its predicted gain.
 * `interleaved` numbers the nodes round-robin over the leaves (node v under
 * leaf v mod LEAVES: Slurm's order then crosses a leaf at every node, the
 * case the switch-ordered start is for).
 *
 *   bench_score_tree [NODES [TASKS_PER_NODE [LEAVES [REPEATS [interleaved]]]]]
 *   CT_BENCH_MODEL=duplex: the duplex fair share instead of GigE;
 *   CT_BENCH_MODEL=tcpshare: the TCP share (bias 1.5, penalty_tcpshare.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/placement.h"
#include "contention/score.h"
#include "contention/signatures.h"
#include "contention/topology.h"
#include "bench_common.h"

int main(int argc, char **argv)
{
    int32_t nodes = argc > 1 ? atoi(argv[1]) : 1024;
    int32_t tpn = argc > 2 ? atoi(argv[2]) : 16;
    int32_t leaves = argc > 3 ? atoi(argv[3]) : 32;
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    int inter = argc > 5 && strcmp(argv[5], "interleaved") == 0;
    /* one placement search only, for an instruction count under
     * valgrind --tool=callgrind --toggle-collect=ct_place_search */
    const char *only = argc > 7 ? argv[6] : NULL;
    int only_tree = argc > 7 && strcmp(argv[7], "tree") == 0;
    if (nodes < 1 || tpn < 1 || leaves < 1 || leaves > nodes || reps < 1 ||
        (argc > 5 && !inter && strcmp(argv[5], "contiguous") != 0) || argc == 7 ||
        (argc > 7 && !only_tree && strcmp(argv[7], "flat") != 0)) {
        fprintf(stderr, "usage: bench_score_tree [NODES [TASKS_PER_NODE [LEAVES [REPEATS "
                        "[interleaved|contiguous [PATTERN tree|flat]]]]]]\n");
        return 2;
    }
    ct_fabric f;
    bench_gige_fabric(&f, "gige_tree", 1);
    /* CT_BENCH_MODEL=duplex: the duplex fair share (calibrate --incast's
     * pattern model; its tree rule is one max-min over NICs and links) */
    const char *mdl = getenv("CT_BENCH_MODEL");
    if (mdl && strcmp(mdl, "duplex") == 0) {
        f.penalty = CT_DUPLEX_MODEL(0.12);
        f.penalty.real[CT_DUPLEX_INCAST] = 0.09;
        snprintf(f.name, sizeof f.name, "duplex_tree");
    } else if (mdl && strcmp(mdl, "tcpshare") == 0) {
        f.penalty = CT_TCPSHARE_MODEL(1.5);
        snprintf(f.name, sizeof f.name, "tcpshare_tree");
    } else if (mdl && strcmp(mdl, "gige") != 0) {
        fprintf(stderr, "bench_score_tree: CT_BENCH_MODEL=%s (accepted: gige, duplex, tcpshare)\n",
                mdl);
        return 2;
    }

    /* the tree in NIC units: leaf l holds nodes [l*nodes/leaves, (l+1)*nodes/leaves),
     * its uplink carries (its nodes) / 4 NICs */
    ct_tree_map t;
    ct_err err = {{0}};
    if (ct_tree_map_flat(nodes, &t, &err) < 0)
        return 1;
    ct_tree_map_free(&t);
    memset(&t, 0, sizeof t);
    t.nswitches = leaves + 1;
    t.parent = malloc((size_t)t.nswitches * sizeof *t.parent);
    t.depth = malloc((size_t)t.nswitches * sizeof *t.depth);
    t.up_cap = malloc((size_t)t.nswitches * sizeof *t.up_cap);
    t.name = calloc((size_t)t.nswitches, sizeof *t.name);
    t.leaf = malloc((size_t)nodes * sizeof *t.leaf);
    t.nnodes = nodes;
    if (!t.parent || !t.depth || !t.up_cap || !t.name || !t.leaf)
        return 1;
    t.parent[0] = -1, t.depth[0] = 0, t.up_cap[0] = 0;
    snprintf(t.name[0], sizeof t.name[0], "spine");
    for (int32_t l = 1; l <= leaves; l++) {
        t.parent[l] = 0, t.depth[l] = 1;
        snprintf(t.name[l], sizeof t.name[l], "leaf%d", (int)l);
    }
    for (int32_t v = 0; v < nodes; v++)
        t.leaf[v] = inter ? 1 + v % leaves : 1 + (int32_t)((int64_t)v * leaves / nodes);
    for (int32_t l = 1; l <= leaves; l++) {
        int32_t below = 0;
        for (int32_t v = 0; v < nodes; v++)
            below += t.leaf[v] == l;
        t.up_cap[l] = below / 4.0;
    }

    ct_alloc a;
    if (ct_alloc_uniform(nodes, tpn, &a, &err) < 0) {
        fprintf(stderr, "bench_score_tree: %s\n", err.msg);
        return 1;
    }
    if (only) {
        ct_place_request preq;
        memset(&preq, 0, sizeof preq);
        preq.alloc = &a;
        preq.ntasks = nodes * tpn;
        preq.cpus_per_task = 1;
        if (ct_pattern_parse(only, &preq.pattern, &err) < 0) {
            fprintf(stderr, "bench_score_tree: %s\n", err.msg);
            return 2;
        }
        preq.pattern.bytes = 65536;
        preq.seed = 1;
        preq.tree = only_tree ? &t : NULL;
        ct_place_result pr;
        if (ct_place_search(&f, &preq, &pr, &err) < 0) {
            fprintf(stderr, "bench_score_tree: %s\n", err.msg);
            return 1;
        }
        printf("%s %s: work %llu units, %.2f ms, optimized = %s\n", only,
               only_tree ? "tree" : "flat", (unsigned long long)pr.work,
               (pr.search_s + pr.verify_s) * 1e3, pr.chosen);
        ct_place_result_free(&pr);
        ct_alloc_free(&a);
        ct_tree_map_free(&t);
        return 0;
    }
    static const char *const pats[] = {"alltoall", "ring", "halves", "halo2d", "halo3d"};
    printf("bench_score_tree: %d nodes x %d tasks under %d leaves (4:1 uplinks, %s), fabric %s, "
           "best of %d\n",
           nodes, tpn, leaves, inter ? "nodes interleaved over the leaves" : "contiguous leaves",
           f.name, reps);
    printf("%-9s %12s %-8s %12s %-8s %12s  %s\n", "pattern", "ms/decision", "winner",
           "predicted_s", "other", "predicted_s", "busiest link of the winner");
    double worst = 0, lworst = 0;
    for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++) {
        ct_score_request req;
        memset(&req, 0, sizeof req);
        req.alloc = &a;
        req.ntasks = nodes * tpn;
        req.cpus_per_task = 1;
        if (ct_pattern_parse(pats[k], &req.pattern, &err) < 0)
            return 1;
        req.pattern.bytes = 65536;
        req.tree = &t;
        double best = 1e30;
        ct_score_result r;
        for (int i = 0; i < reps; i++) {
            double t0 = bench_now();
            if (ct_score(&f, &req, &r, &err) < 0) {
                fprintf(stderr, "bench_score_tree: %s: %s\n", pats[k], err.msg);
                return 1;
            }
            double ms = (bench_now() - t0) * 1e3;
            if (ms < best)
                best = ms;
        }
        if (best > worst)
            worst = best;
        printf("%-9s %12.2f %-8s %12.4g %-8s %12.4g  %s (%.3g)\n", pats[k], best, r.c[0].name,
               r.c[0].predicted_s, r.n > 1 ? r.c[1].name : "-", r.n > 1 ? r.c[1].predicted_s : 0,
               r.c[0].busiest_link, r.c[0].busiest_ratio);
        if (r.note[0])
            printf("%-9s note: %s\n", pats[k], r.note);
        /* the launch-time decision: scorer + placement search over the tree */
        ct_place_request preq;
        memset(&preq, 0, sizeof preq);
        preq.alloc = &a;
        preq.ntasks = req.ntasks;
        preq.cpus_per_task = 1;
        preq.pattern = req.pattern;
        preq.seed = 1;
        preq.tree = &t;
        double lbest = 1e30;
        ct_place_result pr;
        memset(&pr, 0, sizeof pr);
        for (int i = 0; i < reps; i++) {
            ct_place_result_free(&pr);
            double t0 = bench_now();
            if (ct_score(&f, &req, &r, &err) < 0 || ct_place_search(&f, &preq, &pr, &err) < 0) {
                fprintf(stderr, "bench_score_tree: %s: %s\n", pats[k], err.msg);
                return 1;
            }
            double ms = (bench_now() - t0) * 1e3;
            if (ms < lbest)
                lbest = ms;
        }
        if (lbest > lworst)
            lworst = lbest;
        printf("%-9s launch (score + placement) %.2f ms: optimized = %s, %.4g s, gain %.0f%%\n",
               pats[k], lbest, pr.chosen, pr.predicted_s, 100 * pr.gain);
        /* what the work cap (max_work) counts against what the search takes,
         * over the tree and on one switch: ms per million work units (best
         * of REPEATS), the calibration of the link model's screening weight */
        for (int tr = 1; tr >= 0 && pats[k][0] != 'a'; tr--) {
            preq.tree = tr ? &t : NULL;
            double sbest = 1e30;
            for (int i = 0; i < reps; i++) {
                ct_place_result_free(&pr);
                if (ct_place_search(&f, &preq, &pr, &err) < 0) {
                    fprintf(stderr, "bench_score_tree: %s: %s\n", pats[k], err.msg);
                    return 1;
                }
                double ms = (pr.search_s + pr.verify_s) * 1e3;
                if (ms < sbest)
                    sbest = ms;
            }
            printf("%-9s search %-11s %8.2f ms, %8.3f Mwork, %7.2f ms/Mwork\n", pats[k],
                   tr ? "tree:" : "one switch:", sbest, pr.work / 1e6,
                   pr.work ? sbest / (pr.work / 1e6) : 0.0);
        }
        ct_place_result_free(&pr);
    }
    printf("bench_score_tree: slowest decision %.2f ms (scorer), %.2f ms (scorer + placement "
           "search)\n",
           worst, lworst);
    ct_alloc_free(&a);
    ct_tree_map_free(&t);
    return 0;
}
