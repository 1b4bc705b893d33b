/* placement.c: the placement search. Checked against numbers that follow
 * from the geometry (issue 13): a concurrent 2-D halo on a 4x4 non-periodic
 * grid over 4 nodes x 4 tasks sends 24 communications across the network
 * under block (3 row boundaries x 4 columns x 2 directions) and under cyclic
 * (the same by symmetry: each node holds a column), with 8 leaving the
 * busiest NIC (a middle row: 4 up, 4 down); 2x2 tiles send 16 (a third
 * fewer) with 4 at every NIC (half). No 4-task set of this grid has fewer
 * than 4 neighbours outside it, so 16 and 4 are the optimum. Remote traffic
 * is measured here with pattern.h/commgraph.h, not with the search's own
 * counters. Invariants: the per-node counts are kept, the same seed gives
 * the same placement, and the result is never predicted slower than block
 * or cyclic (with the scorer's evaluation: ct_place_predict). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "contention/collective.h"
#include "contention/commgraph.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/placement.h"
#include "contention/score.h"
#include "contention/signatures.h"
#include "ctslurm/slurmfmt.h"
#include "ct_test_util.h"

#define MIB (1024.0 * 1024.0)

static void request(ct_place_request *r, const ct_alloc *a, int32_t ntasks, const char *pattern,
                    double bytes, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    r->alloc = a;
    r->ntasks = ntasks;
    r->cpus_per_task = 1;
    r->seed = seed;
    assert_int_equal(ct_pattern_parse(pattern, &r->pattern, NULL), 0);
    r->pattern.bytes = bytes;
}

/* Communications crossing the network and the most leaving or entering one
 * node, measured on the node-level graph of pattern.h. */
static void traffic(const ct_pattern *p, const ct_layout *l, int64_t *remote, int64_t *busiest)
{
    ct_graph g;
    ct_err err;
    assert_int_equal(ct_pattern_graph(p, l, &g, NULL, &err), 0);
    int64_t *o = calloc((size_t)l->nnodes, sizeof *o), *i = calloc((size_t)l->nnodes, sizeof *i);
    assert_non_null(o);
    assert_non_null(i);
    ct_graph_degrees(&g, o, i);
    *remote = ct_graph_total(&g);
    *busiest = 0;
    for (int32_t k = 0; k < l->nnodes; k++) {
        *busiest = o[k] > *busiest ? o[k] : *busiest;
        *busiest = i[k] > *busiest ? i[k] : *busiest;
    }
    free(o);
    free(i);
    ct_graph_free(&g);
}

static void check_halo2d_4x4(const char *pattern)
{
    ct_fabric f;
    ct_test_gige_fabric(&f);
    ct_alloc a;
    assert_int_equal(ct_alloc_uniform(4, 4, &a, NULL), 0);
    ct_place_request req;
    request(&req, &a, 16, pattern, MIB, 1);
    ct_place_result r;
    ct_err err;
    if (ct_place_search(&f, &req, &r, &err) < 0)
        fail_msg("%s", err.msg);
    ct_pattern halo;
    assert_int_equal(ct_pattern_parse("halo2d", &halo, NULL), 0);
    halo.bytes = MIB;
    ct_layout lb;
    assert_int_equal(ct_layout_build(&a, 16, 1, CT_DIST_BLOCK, 0, 0, &lb, NULL), 0);
    int64_t rem, busy;
    traffic(&halo, &lb, &rem, &busy);
    assert_int_equal(rem, 24);
    assert_int_equal(busy, 8);
    traffic(&halo, &r.layout, &rem, &busy);
    assert_int_equal(rem, 16); /* a third less than block */
    assert_int_equal(busy, 4); /* half of block's busiest NIC */
    int32_t cnt[4];
    ct_layout_counts(&r.layout, cnt);
    for (int k = 0; k < 4; k++)
        assert_int_equal(cnt[k], 4);
    /* every node holds a 2x2 tile: its four tasks span 2 rows and 2 columns */
    for (int k = 0; k < 4; k++) {
        int rows = 0, cols = 0;
        for (int t = 0; t < 16; t++)
            if (r.layout.node_of[t] == k)
                rows |= 1 << (t / 4), cols |= 1 << (t % 4);
        assert_int_equal(__builtin_popcount((unsigned)rows), 2);
        assert_int_equal(__builtin_popcount((unsigned)cols), 2);
    }
    assert_true(r.predicted_s < r.block_s);
    assert_true(r.predicted_s < r.cyclic_s);
    assert_true(r.gain > 0);
    assert_int_equal(r.layout.dist, CT_DIST_EXPLICIT);
    ct_layout_free(&lb);
    ct_place_result_free(&r);
    ct_alloc_free(&a);
}

static void test_halo2d_4x4_tiles(void **state)
{
    (void)state;
    check_halo2d_4x4("halo2d");
}

/* The same exchange recorded as a trace (isend/irecv + waitall): the trace
 * path has no geometric start, so the tiles come from Scotch/refinement. */
static void test_halo2d_4x4_trace(void **state)
{
    (void)state;
    check_halo2d_4x4("trace:" CT_FIXTURES "/traces/halo2d_4x4.trace");
}

/* block and cyclic predicted by the search equal the scorer's figures; a
 * phased halo's too (timed phase by phase, not as its concurrent graph,
 * which the search screens: halo3d-phased on 4(x4) gave cyclic 0.528 s,
 * the concurrent halo3d's figure, where the scorer gives 0.534 s). On a
 * fabric with the project's own terms (the exchange step, the duplex
 * model's long-exchange term, the bucket's refill after the pattern's
 * pause) the search prices with them too: before session 30 it left them
 * out, and `contention-admin score` printed block at 7.39 ms as a candidate
 * and at 18.3 ms on its "optimized:" line. */
static void match_scorer(const ct_fabric *f, const ct_alloc *a, double pause)
{
    static const char *const pats[] = {"ring",   "halves",        "halo2d",
                                       "halo3d", "halo2d-phased", "halo3d-phased"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        ct_place_request req;
        request(&req, a, 16, pats[i], MIB, 7);
        if (pause >= 0) {
            req.pattern.has_pause = 1;
            req.pattern.pause = pause;
        }
        ct_place_result r;
        ct_err err;
        if (ct_place_search(f, &req, &r, &err) < 0)
            fail_msg("%s: %s", pats[i], err.msg);
        ct_score_request sr;
        memset(&sr, 0, sizeof sr);
        sr.alloc = a;
        sr.ntasks = 16;
        sr.cpus_per_task = 1;
        sr.pattern = req.pattern;
        ct_score_result s;
        assert_int_equal(ct_score(f, &sr, &s, &err), 0);
        for (size_t c = 0; c < s.n; c++) {
            double want = strcmp(s.c[c].name, "block") == 0 ? r.block_s : r.cyclic_s;
            if (fabs(s.c[c].predicted_s - want) > 1e-12 * want)
                fail_msg("%s %s (%s, pause %g): scorer %.9g s, search %.9g s", pats[i],
                         s.c[c].name, f->name, pause, s.c[c].predicted_s, want);
        }
        /* the search's own layout, priced by the scorer as a given layout */
        sr.given = &r.layout;
        sr.given_name = "optimized";
        assert_int_equal(ct_score(f, &sr, &s, &err), 0);
        assert_true(s.have_given);
        if (fabs(s.given.predicted_s - r.predicted_s) > 1e-12 * r.predicted_s)
            fail_msg("%s optimized (%s, pause %g): scorer %.9g s, search %.9g s", pats[i],
                     f->name, pause, s.given.predicted_s, r.predicted_s);
        assert_int_equal(r.phased, strstr(pats[i], "-phased") != NULL);
        ct_place_result_free(&r);
    }
}

static void test_block_cyclic_match_scorer(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    ct_alloc a;
    assert_int_equal(ctslurm_parse_cpus_per_node("4(x2),3,1(x5)", &a, NULL), 0);
    match_scorer(&f, &a, -1);
    /* the duplex model with the step, the long-exchange term (beyond 512 KiB,
     * so 1 MiB messages get it) and a 150 kB bucket, r p_cal = 62.5 kB */
    f.penalty = CT_DUPLEX_MODEL(0.05);
    f.penalty.real[CT_DUPLEX_LONG] = 0.1;
    f.penalty.real[CT_DUPLEX_LONG_FROM] = 524288;
    f.exchange = 3e-3;
    f.bucket = 1.5e5;
    f.bucket_pause = 0.5e-3;
    match_scorer(&f, &a, -1);
    match_scorer(&f, &a, 0.05);
    match_scorer(&f, &a, 0);
    ct_alloc_free(&a);
}

/* counts kept, determinism under a seed, never predicted worse than block
 * or cyclic, and the reported time is the layout's own */
static void test_invariants(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    static const char *const allocs[] = {"4(x2),3,1(x5)", "8(x4)", "6,2,5,3", "4(x16)"};
    static const int32_t ntasks[] = {16, 30, 0, 64};
    static const char *const pats[] = {
        "ring",          "halves",        "halo2d",
        "halo3d",        "halo2d-phased", "halo3d-phased",
        "trace:" CT_FIXTURES "/traces/halo2d_4x4.trace"};
    for (size_t ai = 0; ai < sizeof allocs / sizeof allocs[0]; ai++) {
        ct_alloc a;
        assert_int_equal(ctslurm_parse_cpus_per_node(allocs[ai], &a, NULL), 0);
        for (size_t pi = 0; pi < sizeof pats / sizeof pats[0]; pi++) {
            int32_t n = ntasks[ai];
            int is_trace = strncmp(pats[pi], "trace:", 6) == 0;
            if (is_trace && (n != 16 && !(n == 0 && ct_alloc_total(&a) == 16)))
                continue;
            ct_place_request req;
            request(&req, &a, n, pats[pi], 256 * 1024.0, 42);
            ct_place_result r1, r2;
            ct_err err;
            if (ct_place_search(&f, &req, &r1, &err) < 0)
                fail_msg("%s %s: %s", allocs[ai], pats[pi], err.msg);
            assert_int_equal(ct_place_search(&f, &req, &r2, &err), 0);
            assert_int_equal(r1.layout.ntasks, r2.layout.ntasks);
            assert_memory_equal(r1.layout.node_of, r2.layout.node_of,
                                (size_t)r1.layout.ntasks * sizeof(int32_t));
            ct_layout lb;
            assert_int_equal(
                ct_layout_build(&a, r1.ntasks, 1, CT_DIST_BLOCK, 0, 0, &lb, NULL), 0);
            int32_t *cb = calloc((size_t)a.nnodes, sizeof *cb);
            int32_t *co = calloc((size_t)a.nnodes, sizeof *co);
            assert_non_null(cb);
            assert_non_null(co);
            ct_layout_counts(&lb, cb);
            ct_layout_counts(&r1.layout, co);
            assert_memory_equal(cb, co, (size_t)a.nnodes * sizeof *cb);
            assert_true(r1.predicted_s <= r1.block_s);
            assert_true(r1.predicted_s <= r1.cyclic_s);
            double own;
            assert_int_equal(ct_place_predict(&f, &req.pattern, &r1.layout, &own, &err), 0);
            assert_true(fabs(own - r1.predicted_s) <= 1e-12 * r1.predicted_s);
            double bl;
            assert_int_equal(ct_place_predict(&f, &req.pattern, &lb, &bl, &err), 0);
            assert_true(fabs(bl - r1.block_s) <= 1e-12 * bl);
            free(cb);
            free(co);
            ct_layout_free(&lb);
            ct_place_result_free(&r1);
            ct_place_result_free(&r2);
        }
        ct_alloc_free(&a);
    }
}

/* a ring is best kept in rank order: block is optimal (one communication
 * leaves each node) and must come back unchanged */
static void test_ring_keeps_block(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    ct_alloc a;
    assert_int_equal(ct_alloc_uniform(8, 8, &a, NULL), 0);
    ct_place_request req;
    request(&req, &a, 64, "ring", MIB, 3);
    ct_place_result r;
    ct_err err;
    assert_int_equal(ct_place_search(&f, &req, &r, &err), 0);
    assert_string_equal(r.chosen, "block");
    assert_int_equal(r.layout.dist, CT_DIST_BLOCK);
    assert_true(r.gain == 0);
    ct_place_result_free(&r);
    ct_alloc_free(&a);
}

/* alltoall: eq. 5 depends on the counts only, so block is kept */
static void test_alltoall_block(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    ct_alloc a;
    assert_int_equal(ct_alloc_uniform(4, 4, &a, NULL), 0);
    ct_place_request req;
    request(&req, &a, 16, "alltoall", MIB, 3);
    ct_place_result r;
    assert_int_equal(ct_place_search(&f, &req, &r, NULL), 0);
    assert_string_equal(r.chosen, "block");
    assert_non_null(strstr(r.note, "alltoall"));
    for (int t = 0; t < 16; t++)
        assert_int_equal(r.layout.node_of[t], t / 4);
    ct_place_result_free(&r);
    ct_alloc_free(&a);
}

/* halo3d on 8 nodes x 8 tasks (a 4x4x4 grid): block gives each node a 2x4
 * slab of one plane; 2x2x2 cubes are the best split, each a corner cube
 * with 3 faces of 4 tasks towards other nodes: 12 communications leave every
 * node, 96 in all */
static void test_halo3d_cubes(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    ct_alloc a;
    assert_int_equal(ct_alloc_uniform(8, 8, &a, NULL), 0);
    ct_place_request req;
    request(&req, &a, 64, "halo3d", MIB, 5);
    ct_place_result r;
    ct_err err;
    assert_int_equal(ct_place_search(&f, &req, &r, &err), 0);
    ct_layout lb;
    assert_int_equal(ct_layout_build(&a, 64, 1, CT_DIST_BLOCK, 0, 0, &lb, NULL), 0);
    int64_t rb, bb, ro, bo;
    traffic(&req.pattern, &lb, &rb, &bb);
    traffic(&req.pattern, &r.layout, &ro, &bo);
    assert_int_equal(ro, 96);
    assert_int_equal(bo, 12);
    assert_true(rb > ro);
    assert_true(bb > bo);
    assert_true(r.predicted_s < r.block_s);
    ct_layout_free(&lb);
    ct_place_result_free(&r);
    ct_alloc_free(&a);
}

/* The work cap (max_work) is deterministic and never makes the result worse
 * than block and cyclic: with no room for anything optional the search
 * returns the better of block and cyclic, each optional step is skipped
 * with a note, and the same cap gives the same placement twice. A cap
 * large enough for everything gives the uncapped result. */
static void test_work_cap(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    ct_alloc a;
    assert_int_equal(ct_alloc_uniform(4, 4, &a, NULL), 0);
    ct_place_request req;
    request(&req, &a, 16, "halo2d", MIB, 1);
    ct_place_result free_r, tiny, tiny2, big;
    ct_err err;
    assert_int_equal(ct_place_search(&f, &req, &free_r, &err), 0);
    assert_string_equal(free_r.chosen, "tiles");
    assert_true(free_r.work > 0);
    req.max_work = 1;
    assert_int_equal(ct_place_search(&f, &req, &tiny, &err), 0);
    assert_int_equal(ct_place_search(&f, &req, &tiny2, &err), 0);
    /* block and cyclic tie on this grid: block kept */
    assert_string_equal(tiny.chosen, "block");
    assert_int_equal(tiny.layout.dist, CT_DIST_BLOCK);
    assert_true(tiny.gain == 0);
    assert_non_null(strstr(tiny.note, "tiling skipped (work cap)"));
    assert_non_null(strstr(tiny.note, "Scotch skipped (work cap)"));
    assert_non_null(strstr(tiny.note, "no refinement (work cap)"));
    assert_int_equal(tiny.ncand, 2);
    assert_memory_equal(tiny.layout.node_of, tiny2.layout.node_of, 16 * sizeof(int32_t));
    assert_true(fabs(tiny.block_s - free_r.block_s) <= 1e-12 * free_r.block_s);
    req.max_work = free_r.work + 1000000;
    assert_int_equal(ct_place_search(&f, &req, &big, &err), 0);
    assert_string_equal(big.chosen, free_r.chosen);
    assert_memory_equal(big.layout.node_of, free_r.layout.node_of, 16 * sizeof(int32_t));
    assert_string_equal(big.note, free_r.note);
    ct_place_result_free(&free_r);
    ct_place_result_free(&tiny);
    ct_place_result_free(&tiny2);
    ct_place_result_free(&big);
    ct_alloc_free(&a);
}

/* A trace handed in already read (req.trace) gives what reading it in the
 * search gives; with a cap below the replays' cost the candidates are
 * compared on the screening (said in the note, replayed = 0), and the
 * screening still finds the 2x2 tiles' 16 remote communications. */
static void test_trace_preloaded_and_capped(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    ct_alloc a;
    assert_int_equal(ct_alloc_uniform(4, 4, &a, NULL), 0);
    ct_place_request req;
    request(&req, &a, 16, "trace:" CT_FIXTURES "/traces/halo2d_4x4.trace", 0, 1);
    ct_place_result r1, r2, r3;
    ct_err err;
    assert_int_equal(ct_place_search(&f, &req, &r1, &err), 0);
    assert_int_equal(r1.replayed, 1);
    ct_trace tr;
    ct_coll_params cp;
    ct_coll_params_from_fabric(&f, &cp);
    assert_int_equal(ct_trace_load_expanded(req.pattern.trace, &cp, &tr, NULL, &err), 0);
    req.trace = &tr;
    assert_int_equal(ct_place_search(&f, &req, &r2, &err), 0);
    assert_string_equal(r2.chosen, r1.chosen);
    assert_memory_equal(r2.layout.node_of, r1.layout.node_of, 16 * sizeof(int32_t));
    assert_true(r2.predicted_s == r1.predicted_s);
    /* the three replays are more than half of this search's work: half the
     * work leaves room for the screening but not for them */
    req.max_work = r1.work / 2;
    assert_int_equal(ct_place_search(&f, &req, &r3, &err), 0);
    assert_int_equal(r3.replayed, 0);
    assert_non_null(strstr(r3.note, "not replayed (work cap)"));
    int64_t rem, busy;
    ct_pattern halo;
    assert_int_equal(ct_pattern_parse("halo2d", &halo, NULL), 0);
    halo.bytes = MIB;
    traffic(&halo, &r3.layout, &rem, &busy);
    assert_int_equal(rem, 16);
    assert_int_equal(busy, 4);
    /* a trace of another size is refused, as when the search reads it */
    req.ntasks = 8;
    ct_place_result r4;
    assert_int_equal(ct_place_search(&f, &req, &r4, &err), -1);
    assert_non_null(strstr(err.msg, "trace has 16 tasks but the job runs 8"));
    ct_trace_free(&tr);
    ct_place_result_free(&r1);
    ct_place_result_free(&r2);
    ct_place_result_free(&r3);
    ct_alloc_free(&a);
}

/* A switch tree in the cost (issue 14): 4 nodes x 2 tasks, nodes 0 and 2
 * under leaf1, 1 and 3 under leaf2 (Slurm's order interleaves the leaves),
 * uplinks of half a NIC, a ring of 1 MiB, fair share. Block over Slurm's
 * order crosses the leaves on all four node-to-node arcs: two
 * communications per uplink direction at 0.5 NIC -> 4 x alone; a ring cut
 * into two leaf halves of 4 consecutive ranks crosses once per direction,
 * which is the least any split can do -> 2 x alone (the optimum). Without
 * the tree, block is NIC-bound at 1 x alone and is kept. */
static void test_tree_ring_under_leaves(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    f.penalty.kind = CT_MODEL_FAIRSHARE;
    ct_alloc a;
    assert_int_equal(ct_alloc_uniform(4, 2, &a, NULL), 0);
    const int32_t leaf[] = {1, 2, 1, 2};
    ct_tree_map tm;
    ct_test_two_leaf_map(&tm, 4, leaf, 0.5);
    const double m = MIB, alone = f.alpha + m * f.beta;
    ct_place_request req;
    request(&req, &a, 8, "ring", m, 1);
    ct_place_result r;
    ct_err err;
    if (ct_place_search(&f, &req, &r, &err) < 0)
        fail_msg("%s", err.msg);
    assert_string_equal(r.chosen, "block");
    close_rel(r.predicted_s, alone, 1e-9, "ring block, one switch");
    ct_place_result_free(&r);

    req.tree = &tm;
    if (ct_place_search(&f, &req, &r, &err) < 0)
        fail_msg("%s", err.msg);
    /* fairshare shares the bytes' time, alpha once (session 56) */
    close_rel(r.block_s, f.alpha + 4 * m * f.beta, 1e-9, "ring block over the interleaved leaves");
    close_rel(r.predicted_s, f.alpha + 2 * m * f.beta, 1e-9, "ring under two leaves");
    assert_int_equal(r.layout.dist, CT_DIST_EXPLICIT);
    int crossings = 0, cnt[4] = {0};
    for (int t = 0; t < 8; t++) {
        cnt[r.layout.node_of[t]]++;
        crossings += leaf[r.layout.node_of[t]] != leaf[r.layout.node_of[(t + 1) % 8]];
    }
    assert_int_equal(crossings, 2);
    for (int k = 0; k < 4; k++)
        assert_int_equal(cnt[k], 2);
    /* the scorer's evaluation of the same layout over the same tree agrees */
    ct_score_request sreq;
    memset(&sreq, 0, sizeof sreq);
    sreq.alloc = &a;
    sreq.ntasks = 8;
    sreq.cpus_per_task = 1;
    sreq.pattern = req.pattern;
    sreq.tree = &tm;
    ct_score_result sr;
    assert_int_equal(ct_score(&f, &sreq, &sr, &err), 0);
    for (size_t i = 0; i < sr.n; i++)
        if (strcmp(sr.c[i].name, "block") == 0)
            close_rel(sr.c[i].predicted_s, r.block_s, 1e-9, "scorer's block over the tree");
    ct_place_result_free(&r);
    /* a tree over another node count is refused */
    tm.nnodes = 3;
    assert_int_equal(ct_place_search(&f, &req, &r, &err), -1);
    assert_non_null(strstr(err.msg, "switch tree over 3 nodes for an allocation of 4 nodes"));
    tm.nnodes = 4;
    ct_tree_map_free(&tm);
    ct_alloc_free(&a);
}

/* On a tree whose leaves interleave Slurm's node order (n0, n2 under one
 * leaf, n1, n3 under the other), the search offers block AND cyclic over the
 * switch-ordered nodes (n0 n2 n1 n3): "switch" and "switch-cyclic", each
 * screened at the model's time for its layout (cyclic over that order:
 * tasks on 0 2 1 3 0 2 1 3); with the leaves in Slurm's order, or without a
 * tree, neither is offered. */
static void test_tree_switch_starts(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    f.penalty.kind = CT_MODEL_FAIRSHARE;
    ct_alloc a;
    assert_int_equal(ct_alloc_uniform(4, 2, &a, NULL), 0);
    const int32_t leaf[] = {1, 2, 1, 2};
    ct_tree_map tm;
    ct_test_two_leaf_map(&tm, 4, leaf, 0.5);
    ct_place_request req;
    static const char *const pats[] = {"ring", "halves", "halo2d"};
    for (size_t q = 0; q < sizeof pats / sizeof pats[0]; q++) {
        request(&req, &a, 8, pats[q], MIB, 1);
        req.tree = &tm;
        ct_place_result r;
        ct_err err;
        if (ct_place_search(&f, &req, &r, &err) < 0)
            fail_msg("%s", err.msg);
        int sw = -1, sc = -1;
        for (int i = 0; i < r.ncand; i++) {
            if (strcmp(r.cand[i].name, "switch") == 0)
                sw = i;
            if (strcmp(r.cand[i].name, "switch-cyclic") == 0)
                sc = i;
        }
        assert_true(sw == 2 && sc == 3);
        static const int32_t sblock[] = {0, 0, 2, 2, 1, 1, 3, 3};
        static const int32_t scyc[] = {0, 2, 1, 3, 0, 2, 1, 3};
        const int32_t *lay[2] = {sblock, scyc};
        ct_fabric tf = f;
        tf.penalty.tree = &tm;
        for (int k = 0; k < 2; k++) {
            ct_layout l;
            assert_int_equal(ct_layout_explicit(4, 8, lay[k], &l, &err), 0);
            double t;
            assert_int_equal(ct_place_predict(&tf, &req.pattern, &l, &t, &err), 0);
            close_rel(r.cand[2 + k].predicted_s, t, 1e-9, "switch start screened at its layout");
            ct_layout_free(&l);
        }
        ct_place_result_free(&r);
        /* leaves in Slurm's order: the switch order is the allocation's own */
        const int32_t contiguous[] = {1, 1, 2, 2};
        ct_tree_map tc;
        ct_test_two_leaf_map(&tc, 4, contiguous, 0.5);
        req.tree = &tc;
        if (ct_place_search(&f, &req, &r, &err) < 0)
            fail_msg("%s", err.msg);
        for (int i = 0; i < r.ncand; i++)
            assert_null(strstr(r.cand[i].name, "switch"));
        ct_place_result_free(&r);
        ct_tree_map_free(&tc);
        req.tree = NULL;
        if (ct_place_search(&f, &req, &r, &err) < 0)
            fail_msg("%s", err.msg);
        for (int i = 0; i < r.ncand; i++)
            assert_null(strstr(r.cand[i].name, "switch"));
        ct_place_result_free(&r);
    }
    ct_tree_map_free(&tm);
    ct_alloc_free(&a);
}

/* The work cap counts the link model's screening on a tree (W_SCREEN_TREE,
 * twice the node-level weight): with the leaves in Slurm's order the tree
 * search has the same starts as one switch but counts more work, so a cap
 * that the one-switch search fits in leaves a step out over the tree. */
static void test_tree_work_counts_links(void **state)
{
    (void)state;
    ct_fabric f;
    ct_test_gige_fabric(&f);
    ct_alloc a;
    assert_int_equal(ct_alloc_uniform(4, 4, &a, NULL), 0);
    const int32_t leaf[] = {1, 1, 2, 2};
    ct_tree_map tm;
    ct_test_two_leaf_map(&tm, 4, leaf, 1.0);
    ct_place_request req;
    request(&req, &a, 16, "halo2d", MIB, 1);
    ct_place_result flat, tree, capped;
    ct_err err;
    assert_int_equal(ct_place_search(&f, &req, &flat, &err), 0);
    req.tree = &tm;
    assert_int_equal(ct_place_search(&f, &req, &tree, &err), 0);
    assert_int_equal(tree.ncand, flat.ncand);
    for (int i = 0; i < flat.ncand; i++)
        assert_string_equal(tree.cand[i].name, flat.cand[i].name);
    assert_true(tree.work > flat.work);
    assert_null(strstr(flat.note, "work cap"));
    req.max_work = flat.work;
    assert_int_equal(ct_place_search(&f, &req, &capped, &err), 0);
    assert_non_null(strstr(capped.note, "(work cap)"));
    assert_true(capped.work <= flat.work);
    ct_place_result_free(&flat);
    ct_place_result_free(&tree);
    ct_place_result_free(&capped);
    ct_tree_map_free(&tm);
    ct_alloc_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_halo2d_4x4_tiles),     cmocka_unit_test(test_halo2d_4x4_trace),
        cmocka_unit_test(test_block_cyclic_match_scorer), cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_ring_keeps_block),     cmocka_unit_test(test_alltoall_block),
        cmocka_unit_test(test_halo3d_cubes),         cmocka_unit_test(test_work_cap),
        cmocka_unit_test(test_trace_preloaded_and_capped),
        cmocka_unit_test(test_tree_ring_under_leaves),
        cmocka_unit_test(test_tree_switch_starts),
        cmocka_unit_test(test_tree_work_counts_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
