/* pattern.c: patterns -> node-level graphs with multiplicities. Each graph
 * is checked against a brute-force count of the task-level communications
 * made here, independently, on even and uneven layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "contention/layout.h"
#include "contention/pattern.h"
#include "ctslurm/slurmfmt.h"

static void test_parse(void **state)
{
    (void)state;
    ct_pattern p;
    ct_err err = {{0}};
    static const struct {
        const char *s;
        ct_pattern_kind k;
    } good[] = {{"alltoall", CT_PAT_ALLTOALL},
                {"ring", CT_PAT_RING},
                {"halves", CT_PAT_HALVES},
                {"halo2d", CT_PAT_HALO2D},
                {"halo3d", CT_PAT_HALO3D},
                {"halo2d-phased", CT_PAT_HALO2D_PHASED},
                {"halo3d-phased", CT_PAT_HALO3D_PHASED}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        assert_int_equal(ct_pattern_parse(good[i].s, &p, &err), 0);
        assert_int_equal(p.kind, good[i].k);
        assert_string_equal(ct_pattern_name(p.kind), good[i].s);
        assert_true(p.bytes == CT_PATTERN_DEFAULT_BYTES);
    }
    assert_int_equal(ct_pattern_parse("trace:/tmp/x.trace", &p, &err), 0);
    assert_int_equal(p.kind, CT_PAT_TRACE);
    assert_string_equal(p.trace, "/tmp/x.trace");
    assert_int_equal(ct_pattern_parse("trace:", &p, &err), -1);
    assert_non_null(strstr(err.msg, "trace:FILE"));
    assert_int_equal(ct_pattern_parse("", &p, &err), -1);
    assert_int_equal(ct_pattern_parse("Ring", &p, &err), -1);
    assert_non_null(strstr(err.msg, "'Ring'"));
    assert_non_null(
        strstr(err.msg, "accepted: alltoall, ring, halves, halo2d, halo3d, halo2d-phased, "
                        "halo3d-phased, trace:FILE"));
    assert_int_equal(ct_pattern_parse(NULL, &p, &err), -1);
}

/* Phased halos: phase d holds exactly the unphased halo's arcs along grid
 * dimension d. 16 tasks, halo3d grid 4x2x2 (row-major: strides 4, 2, 1) on
 * 4 nodes x 4 tasks, block: node = first coordinate, so phase 0 is the node
 * chain 0-1-2-3 (4 tasks per boundary, both ways: 4 per arc, 6 arcs) and
 * phases 1 and 2 stay on the node (4 messages per node each). */
static void test_phased_halo_graphs(void **state)
{
    (void)state;
    ct_alloc a;
    assert_int_equal(ctslurm_parse_cpus_per_node("4(x4)", &a, NULL), 0);
    ct_layout l;
    assert_int_equal(ct_layout_build(&a, 16, 1, CT_DIST_BLOCK, 0, 0, &l, NULL), 0);
    ct_pattern p;
    ct_err err = {{0}};
    assert_int_equal(ct_pattern_parse("halo3d-phased", &p, &err), 0);
    p.bytes = 1000;
    assert_int_equal(ct_pattern_nphases(&p), 3);
    assert_int_equal(ct_pattern_halo_dims(p.kind), 3);
    double intra[4];
    ct_graph g;
    assert_int_equal(ct_pattern_graph_phase(&p, 0, &l, &g, intra, &err), 0);
    assert_int_equal(g.ncomm, 6);
    assert_int_equal(ct_graph_total(&g), 24);
    for (size_t i = 0; i < g.ncomm; i++) {
        assert_int_equal(abs(g.comm[i].src - g.comm[i].dst), 1);
        assert_int_equal(g.comm[i].mult, 4);
        assert_true(g.comm[i].bytes == 1000);
    }
    for (int k = 0; k < 4; k++)
        assert_true(intra[k] == 0);
    ct_graph_free(&g);
    for (int ph = 1; ph < 3; ph++) {
        assert_int_equal(ct_pattern_graph_phase(&p, ph, &l, &g, intra, &err), 0);
        assert_int_equal(g.ncomm, 0);
        for (int k = 0; k < 4; k++)
            assert_true(intra[k] == 4 * 1000.0);
        ct_graph_free(&g);
    }
    /* all phases together = the unphased halo3d */
    ct_graph u, h;
    double iu[4], ih[4];
    assert_int_equal(ct_pattern_graph(&p, &l, &u, iu, &err), 0);
    ct_pattern q = p;
    q.kind = CT_PAT_HALO3D;
    assert_int_equal(ct_pattern_graph(&q, &l, &h, ih, &err), 0);
    assert_int_equal(u.ncomm, h.ncomm);
    assert_int_equal(ct_graph_total(&u), ct_graph_total(&h));
    for (int k = 0; k < 4; k++)
        assert_true(iu[k] == ih[k] && iu[k] == 8 * 1000.0);
    ct_graph_free(&u);
    ct_graph_free(&h);
    assert_int_equal(ct_pattern_graph_phase(&p, 3, &l, &g, intra, &err), -1);
    assert_non_null(strstr(err.msg, "halo3d-phased has no phase 3 (accepted: 0..2)"));
    assert_int_equal(ct_pattern_nphases(&q), 1);
    ct_layout_free(&l);
    ct_alloc_free(&a);
}

static void test_grid_dims(void **state)
{
    (void)state;
    static const struct {
        int64_t n;
        int nd;
        int32_t d[3];
    } cases[] = {
        {12, 2, {4, 3, 1}},  {16, 2, {4, 4, 1}}, {7, 2, {7, 1, 1}},        {1, 2, {1, 1, 1}},
        {8, 3, {2, 2, 2}},   {12, 3, {3, 2, 2}}, {65536, 3, {64, 32, 32}}, {27, 3, {3, 3, 3}},
        {13, 3, {13, 1, 1}}, {64, 2, {8, 8, 1}}, {10, 1, {10, 1, 1}},
    };
    ct_err err = {{0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t d[3] = {1, 1, 1};
        assert_int_equal(ct_grid_dims(cases[i].n, cases[i].nd, d, &err), 0);
        for (int k = 0; k < cases[i].nd; k++)
            if (d[k] != cases[i].d[k])
                fail_msg("n=%lld nd=%d: dim %d is %d, expected %d", (long long)cases[i].n,
                         cases[i].nd, k, d[k], cases[i].d[k]);
    }
    int32_t d[3];
    assert_int_equal(ct_grid_dims(0, 2, d, &err), -1);
    assert_int_equal(ct_grid_dims(8, 4, d, &err), -1);
    assert_non_null(strstr(err.msg, "accepted: 1, 2, 3"));
}

/* Brute force: per node pair, the task-level communications of the pattern. */
static void brute(ct_pattern_kind k, const ct_layout *l, double m, int64_t *pair, double *intra)
{
    int32_t N = l->nnodes, n = l->ntasks;
    memset(pair, 0, sizeof(int64_t) * (size_t)N * (size_t)N);
    for (int32_t i = 0; i < N; i++)
        intra[i] = 0;
    int32_t dims[3] = {1, 1, 1};
    int nd = k == CT_PAT_HALO2D ? 2 : 3;
    if (k == CT_PAT_HALO2D || k == CT_PAT_HALO3D)
        assert_int_equal(ct_grid_dims(n, nd, dims, NULL), 0);
    for (int32_t s = 0; s < n; s++) {
        int32_t peers[8];
        int np = 0;
        switch (k) {
        case CT_PAT_ALLTOALL:
            for (int32_t d = 0; d < n; d++) {
                if (d == s)
                    continue;
                int32_t a = l->node_of[s], b = l->node_of[d];
                if (a == b)
                    intra[a] += m;
                else
                    pair[(size_t)a * N + b]++;
            }
            continue;
        case CT_PAT_RING:
            if (n > 1)
                peers[np++] = (s + 1) % n;
            break;
        case CT_PAT_HALVES:
            if (s < n / 2)
                peers[np++] = s + n / 2;
            else if (s < 2 * (n / 2))
                peers[np++] = s - n / 2;
            break;
        default: {
            /* coordinates, last dimension fastest */
            int32_t c[3], r = s;
            for (int d = nd - 1; d >= 0; d--) {
                c[d] = r % dims[d];
                r /= dims[d];
            }
            for (int d = 0; d < nd; d++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    int32_t c2[3] = {c[0], c[1], c[2]};
                    c2[d] += dir;
                    if (c2[d] < 0 || c2[d] >= dims[d])
                        continue;
                    int32_t q = 0;
                    for (int e = 0; e < nd; e++)
                        q = q * dims[e] + c2[e];
                    peers[np++] = q;
                }
        }
        }
        for (int j = 0; j < np; j++) {
            int32_t a = l->node_of[s], b = l->node_of[peers[j]];
            if (a == b)
                intra[a] += m;
            else
                pair[(size_t)a * N + b]++;
        }
    }
}

static void check_against_brute(ct_pattern_kind k, const ct_layout *l)
{
    const double m = 4096;
    ct_pattern p = {.kind = k, .bytes = m};
    ct_graph g;
    ct_err err = {{0}};
    int32_t N = l->nnodes;
    double *intra = calloc((size_t)N, sizeof *intra);
    double *bintra = calloc((size_t)N, sizeof *bintra);
    int64_t *pair = calloc((size_t)N * N, sizeof *pair);
    int64_t *seen = calloc((size_t)N * N, sizeof *seen);
    assert_non_null(pair);
    if (ct_pattern_graph(&p, l, &g, intra, &err) != 0)
        fail_msg("%s: %s", ct_pattern_name(k), err.msg);
    brute(k, l, m, pair, bintra);
    for (size_t i = 0; i < g.ncomm; i++) {
        const ct_comm *c = &g.comm[i];
        assert_true(c->src != c->dst);
        assert_true(c->bytes == m);
        /* merged: one arc per node pair */
        assert_int_equal(seen[(size_t)c->src * N + c->dst], 0);
        seen[(size_t)c->src * N + c->dst] = c->mult;
    }
    for (int32_t a = 0; a < N; a++) {
        for (int32_t b = 0; b < N; b++)
            if (seen[(size_t)a * N + b] != pair[(size_t)a * N + b])
                fail_msg("%s, %s layout, %d tasks: arc %d->%d mult %lld, brute force %lld",
                         ct_pattern_name(k), ct_dist_name(l->dist), l->ntasks, a, b,
                         (long long)seen[(size_t)a * N + b], (long long)pair[(size_t)a * N + b]);
        assert_true(intra[a] == bintra[a]);
    }
    ct_graph_free(&g);
    free(intra);
    free(bintra);
    free(pair);
    free(seen);
}

static void test_graphs_match_brute_force(void **state)
{
    (void)state;
    static const struct {
        const char *cpus;
        int32_t ntasks;
    } allocs[] = {
        {"4(x4)", 16},  {"4(x2),3,1(x5)", 16}, {"4(x2),1(x2)", 10}, {"8(x6)", 45},
        {"3,1(x3)", 5}, {"16(x8)", 128},       {"1(x7)", 7},
    };
    const ct_pattern_kind kinds[] = {CT_PAT_ALLTOALL, CT_PAT_RING, CT_PAT_HALVES, CT_PAT_HALO2D,
                                     CT_PAT_HALO3D};
    const ct_dist dists[] = {CT_DIST_BLOCK, CT_DIST_CYCLIC, CT_DIST_PLANE, CT_DIST_RANDOM};
    int checked = 0;
    for (size_t i = 0; i < sizeof allocs / sizeof allocs[0]; i++) {
        ct_alloc a;
        ct_err err = {{0}};
        assert_int_equal(ctslurm_parse_cpus_per_node(allocs[i].cpus, &a, &err), 0);
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++) {
            ct_layout l;
            assert_int_equal(ct_layout_build(&a, allocs[i].ntasks, 1, dists[d], 3, 11, &l, &err),
                             0);
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
                check_against_brute(kinds[k], &l);
                checked++;
            }
            ct_layout_free(&l);
        }
        ct_alloc_free(&a);
    }
    assert_int_equal(checked, 7 * 4 * 5);
}

static void test_known_graphs(void **state)
{
    (void)state;
    /* ring over 4 nodes x 4 tasks: block (RRP) crosses the network 4 times,
     * cyclic (RRN) 16 times, on 4 arcs of multiplicity 4 */
    ct_alloc a;
    ct_layout b, c;
    ct_graph g;
    ct_err err = {{0}};
    double intra[4];
    ct_pattern ring = {.kind = CT_PAT_RING, .bytes = 100};
    assert_int_equal(ctslurm_parse_cpus_per_node("4(x4)", &a, &err), 0);
    assert_int_equal(ct_layout_build(&a, 16, 1, CT_DIST_BLOCK, 0, 0, &b, &err), 0);
    assert_int_equal(ct_layout_build(&a, 16, 1, CT_DIST_CYCLIC, 0, 0, &c, &err), 0);
    assert_int_equal(ct_pattern_graph(&ring, &b, &g, intra, &err), 0);
    assert_int_equal(g.ncomm, 4);
    assert_int_equal(ct_graph_total(&g), 4);
    for (int k = 0; k < 4; k++)
        assert_true(intra[k] == 300); /* 3 neighbours inside each node */
    ct_graph_free(&g);
    assert_int_equal(ct_pattern_graph(&ring, &c, &g, intra, &err), 0);
    assert_int_equal(g.ncomm, 4);
    assert_int_equal(ct_graph_total(&g), 16);
    for (size_t i = 0; i < g.ncomm; i++)
        assert_int_equal(g.comm[i].mult, 4);
    ct_graph_free(&g);
    /* halves: cyclic keeps every pair inside a node here, block none */
    ct_pattern halves = {.kind = CT_PAT_HALVES, .bytes = 100};
    assert_int_equal(ct_pattern_graph(&halves, &c, &g, intra, &err), 0);
    assert_int_equal(g.ncomm, 0);
    for (int k = 0; k < 4; k++)
        assert_true(intra[k] == 400);
    ct_graph_free(&g);
    assert_int_equal(ct_pattern_graph(&halves, &b, &g, NULL, &err), 0);
    assert_int_equal(ct_graph_total(&g), 16);
    ct_graph_free(&g);
    /* odd task count: the last task has no partner */
    ct_layout o;
    assert_int_equal(ct_layout_build(&a, 7, 1, CT_DIST_CYCLIC, 0, 0, &o, &err), 0);
    assert_int_equal(ct_pattern_graph(&halves, &o, &g, intra, &err), 0);
    double sum = 0;
    for (int k = 0; k < 4; k++)
        sum += intra[k];
    assert_true(ct_graph_total(&g) * 100 + sum == 6 * 100);
    ct_graph_free(&g);
    ct_layout_free(&o);
    /* bad size */
    ct_pattern bad = {.kind = CT_PAT_RING, .bytes = -1};
    assert_int_equal(ct_pattern_graph(&bad, &b, &g, NULL, &err), -1);
    ct_layout_free(&b);
    ct_layout_free(&c);
    ct_alloc_free(&a);
}

static void test_large_is_compact(void **state)
{
    (void)state;
    /* 1,024 nodes x 64 tasks: arcs stay per node pair, never per task pair */
    ct_alloc a;
    ct_layout l;
    ct_graph g;
    ct_err err = {{0}};
    assert_int_equal(ct_alloc_uniform(1024, 64, &a, &err), 0);
    assert_int_equal(ct_layout_build(&a, 65536, 1, CT_DIST_CYCLIC, 0, 0, &l, &err), 0);
    ct_pattern p = {.kind = CT_PAT_HALO3D, .bytes = 1};
    assert_int_equal(ct_pattern_graph(&p, &l, &g, NULL, &err), 0);
    assert_true(g.ncomm <= 6 * 1024);
    /* 64 x 32 x 32 grid: 2 * (63*32*32 + 64*31*32 + 64*32*31) messages in all */
    int64_t total = ct_graph_total(&g);
    assert_true(total <= 2 * (63 * 32 * 32 + 64 * 31 * 32 + 64 * 32 * 31));
    ct_graph_free(&g);
    ct_layout_free(&l);
    ct_alloc_free(&a);
}

static void test_trace_graph(void **state)
{
    (void)state;
    char path[] = "/tmp/ct-test-pattern-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "tasks 4\n"
                       "send 0 2 1000\n"
                       "recv 2 0\n"
                       "send 1 3 1000\n"
                       "recv 3 1\n"
                       "send 0 1 500\n"
                       "recv 1 0\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char spec[64];
    snprintf(spec, sizeof spec, "trace:%s", path);
    ct_pattern p;
    ct_err err = {{0}};
    assert_int_equal(ct_pattern_parse(spec, &p, &err), 0);
    ct_alloc a;
    ct_layout l;
    ct_graph g;
    double intra[2];
    assert_int_equal(ctslurm_parse_cpus_per_node("2(x2)", &a, &err), 0);
    /* block: tasks 0,1 on node 0 and 2,3 on node 1 */
    assert_int_equal(ct_layout_build(&a, 4, 1, CT_DIST_BLOCK, 0, 0, &l, &err), 0);
    if (ct_pattern_graph(&p, &l, &g, intra, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(g.ncomm, 1);
    assert_int_equal(g.comm[0].mult, 2);
    assert_true(g.comm[0].bytes == 1000);
    assert_true(intra[0] == 500);
    ct_graph_free(&g);
    ct_layout_free(&l);
    /* the trace's task count must match the job's */
    assert_int_equal(ct_layout_build(&a, 3, 1, CT_DIST_BLOCK, 0, 0, &l, &err), 0);
    assert_int_equal(ct_pattern_graph(&p, &l, &g, intra, &err), -1);
    assert_non_null(strstr(err.msg, "4 tasks"));
    ct_layout_free(&l);
    ct_alloc_free(&a);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_grid_dims),
        cmocka_unit_test(test_phased_halo_graphs),
        cmocka_unit_test(test_graphs_match_brute_force),
        cmocka_unit_test(test_known_graphs),
        cmocka_unit_test(test_large_is_compact),
        cmocka_unit_test(test_trace_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
