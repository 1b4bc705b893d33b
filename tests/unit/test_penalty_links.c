/* The link-level model on a switch tree (penalty_links.c): exact reduction
 * to the node-level models when the job sits under one switch, hand-computed
 * penalties on two leaves, the max-min property over every link on random
 * trees, progressive times through the tree, the busiest link. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contention/penalty.h"
#include "contention/progressive.h"
#include "contention/topology.h"
#include "ct_test_util.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_u(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int32_t rnd(int32_t n)
{
    return (int32_t)(next_u() % (uint64_t)n);
}

static void random_graph(ct_graph *g, int32_t nn, int narcs)
{
    ct_err err;
    assert_int_equal(ct_graph_init(g, nn, &err), 0);
    for (int k = 0; k < narcs; k++) {
        int32_t a = rnd(nn), b = rnd(nn);
        if (a == b)
            continue;
        int64_t m = rnd(5) == 0 ? 1 + rnd(4) : 1;
        assert_int_equal(ct_graph_add(g, a, b, m, 1e5 * (1 + rnd(10)), &err), 0);
    }
    ct_graph_coalesce(g);
}

/* A tree map by hand: nsw switches, parent[] and capacity per switch. */
static void make_map(ct_tree_map *m, int32_t nsw, const int32_t *parent, const double *cap,
                     int32_t nn, const int32_t *leaf)
{
    memset(m, 0, sizeof *m);
    m->nswitches = nsw;
    m->parent = malloc((size_t)nsw * sizeof *m->parent);
    m->depth = malloc((size_t)nsw * sizeof *m->depth);
    m->up_cap = malloc((size_t)nsw * sizeof *m->up_cap);
    m->up_duplex = calloc((size_t)nsw, sizeof *m->up_duplex);
    m->name = calloc((size_t)nsw, sizeof *m->name);
    m->leaf = malloc((size_t)nn * sizeof *m->leaf);
    for (int32_t s = 0; s < nsw; s++) {
        m->parent[s] = parent[s];
        m->up_cap[s] = cap[s];
        snprintf(m->name[s], sizeof m->name[s], "s%d", (int)s);
    }
    for (int32_t s = 0; s < nsw; s++) {
        int32_t d = 0;
        for (int32_t x = s; parent[x] >= 0; x = parent[x])
            d++;
        m->depth[s] = d;
    }
    m->nnodes = nn;
    for (int32_t i = 0; i < nn; i++)
        m->leaf[i] = leaf[i];
}

static ct_penalty_model model(ct_model_kind k, unsigned flags)
{
    /* parameter slots are per model (penalty.h) */
    ct_penalty_model m = {.kind = k};
    if (k == CT_MODEL_GIGE) {
        m = CT_GIGE_MODEL(0.75, 0.036, 0.115);
        m.integer[CT_GIGE_FLAGS] = flags;
    } else if (k == CT_MODEL_STOPGO) {
        m = CT_STOPGO_MODEL(CT_STOPGO_SCALABLE, 0);
    } else if (k == CT_MODEL_DUPLEX) {
        m = CT_DUPLEX_MODEL(0.12);
        m.real[CT_DUPLEX_INCAST] = 0.09;
    } else if (k == CT_MODEL_TCPSHARE) {
        m = CT_TCPSHARE_MODEL(1.5);
    }
    return m;
}

/* Every node under one leaf of a 4-switch tree (and the flat map): the
 * static penalties and the progressive times are the node-level model's,
 * bit for bit, on 300 random graphs per model. */
static void test_single_switch_is_exactly_node_level(void **state)
{
    (void)state;
    const ct_model_kind kinds[] = {CT_MODEL_NONE,      CT_MODEL_GIGE,   CT_MODEL_GIGE,
                                   CT_MODEL_STOPGO,    CT_MODEL_FAIRSHARE, CT_MODEL_DUPLEX,
                                   CT_MODEL_TCPSHARE};
    const unsigned flags[] = {0, 0, CT_GIGE_LITERAL_PI, 0, 0, 0, 0};
    const int32_t parent[] = {-1, 0, 0, 1};
    const double cap[] = {0, 0.5, 0.25, 0.125};
    ct_err err;
    int compared = 0;
    for (int rep = 0; rep < 300; rep++) {
        int32_t nn = 2 + rnd(12);
        ct_graph g;
        random_graph(&g, nn, 1 + rnd(4 * nn));
        int32_t leaf[16];
        int32_t the_leaf = 2 + rnd(2);
        for (int32_t i = 0; i < nn; i++)
            leaf[i] = the_leaf;
        ct_tree_map tm, flat;
        make_map(&tm, 4, parent, cap, nn, leaf);
        assert_int_equal(ct_tree_map_flat(nn, &flat, &err), 0);
        double *alone = malloc((g.ncomm + 1) * sizeof *alone);
        for (size_t i = 0; i < g.ncomm; i++)
            alone[i] = g.comm[i].bytes / 1.25e7;
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            ct_penalty_model node = model(kinds[k], flags[k]), tree = node, fl = node;
            tree.tree = &tm;
            fl.tree = &flat;
            double *p0 = malloc((g.ncomm + 1) * sizeof *p0), *p1 = malloc((g.ncomm + 1) * sizeof *p1),
                   *p2 = malloc((g.ncomm + 1) * sizeof *p2);
            assert_int_equal(ct_penalties(&node, &g, p0, &err), 0);
            assert_int_equal(ct_penalties(&tree, &g, p1, &err), 0);
            assert_int_equal(ct_penalties(&fl, &g, p2, &err), 0);
            assert_memory_equal(p0, p1, g.ncomm * sizeof *p0);
            assert_memory_equal(p0, p2, g.ncomm * sizeof *p0);
            if (kinds[k] != CT_MODEL_STOPGO || g.ncomm < 40) {
                assert_int_equal(ct_progressive_times(&node, &g, alone, p0, &err), 0);
                assert_int_equal(ct_progressive_times(&tree, &g, alone, p1, &err), 0);
                assert_memory_equal(p0, p1, g.ncomm * sizeof *p0);
            }
            free(p0), free(p1), free(p2);
            compared++;
        }
        free(alone);
        ct_tree_map_free(&tm);
        ct_tree_map_free(&flat);
        ct_graph_free(&g);
    }
    assert_int_equal(compared, 300 * 7);
}

/* The duplex fair share on a tree is one max-min over the δ-coupled NIC
 * constraints and the switch links (session 8): a NIC's capacity that an
 * uplink-bound flow cannot use goes to the node's other flows. By hand, two
 * leaves {0, 1}, {2, 3}, leaf uplinks of 0.25 NIC, δ = 0.2, no incast term;
 * A 0 -> 2 (crosses), B 0 -> 1, D 1 -> 0. Level 0.25 fills the uplink: A =
 * 0.25. Then out(0) holds A (1 x 0.25) and B + δ D (weight 1.2): (1 -
 * 0.25) / 1.2 = 0.625 < in(0)'s (1 - δ 0.25) / 1.2 = 0.792: B = D = 0.625.
 * Penalties 4, 1.6, 1.6. (The max composition it replaces gave the
 * node-level 1 / 0.4545 = 2.2 to B and D: out(0) shared by all three.) */
static void test_duplex_joint_filling(void **state)
{
    (void)state;
    ct_err err;
    ct_graph g;
    assert_int_equal(ct_graph_init(&g, 4, &err), 0);
    assert_int_equal(ct_graph_add(&g, 0, 2, 1, 1e6, &err), 0);
    assert_int_equal(ct_graph_add(&g, 0, 1, 1, 1e6, &err), 0);
    assert_int_equal(ct_graph_add(&g, 1, 0, 1, 1e6, &err), 0);
    const int32_t parent[] = {-1, 0, 0}, leaf[] = {1, 1, 2, 2};
    const double cap[] = {0, 0.25, 0.25};
    ct_tree_map tm;
    make_map(&tm, 3, parent, cap, 4, leaf);
    ct_penalty_model m = CT_DUPLEX_MODEL(0.2);
    m.tree = &tm;
    double p[3];
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    close_rel(p[0], 4.0, 1e-12, "A, uplink-bound");
    close_rel(p[1], 1.6, 1e-12, "B, the NIC's rest");
    close_rel(p[2], 1.6, 1e-12, "D, coupled to out(0)");
    /* on one switch: all three share out(0) at 1 / 2.2 */
    m.tree = NULL;
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    for (int i = 0; i < 3; i++)
        close_rel(p[i], 2.2, 1e-12, "one switch");
    /* the incast term multiplies after the filling: node 0 sends to 2 peer
     * nodes (1 and 2), each with a single peer that way: slack, k = 1 */
    m = CT_DUPLEX_MODEL(0.2);
    m.real[CT_DUPLEX_INCAST] = 0.5;
    m.tree = &tm;
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    close_rel(p[1], 1.6, 1e-12, "B with slack");
    ct_tree_map_free(&tm);
    ct_graph_free(&g);
}

/* Issue 14's measured case: two leaves of two nodes, a trunk of one NIC's
 * bandwidth, `halves` over 8 tasks in block (2 per node): node 0 <-> 2 and
 * 1 <-> 3, two communications each way per pair, all four crossing the
 * trunk in each direction. */
static void test_two_leaves_halves_block(void **state)
{
    (void)state;
    ct_err err;
    ct_graph g;
    assert_int_equal(ct_graph_init(&g, 4, &err), 0);
    const int32_t pairs[4][2] = {{0, 2}, {1, 3}, {2, 0}, {3, 1}};
    for (int k = 0; k < 4; k++)
        assert_int_equal(ct_graph_add(&g, pairs[k][0], pairs[k][1], 2, 1e6, &err), 0);
    const int32_t parent[] = {-1, 0, 0}, leaf[] = {1, 1, 2, 2};
    const double cap[] = {0, 1, 1};
    ct_tree_map tm;
    make_map(&tm, 3, parent, cap, 4, leaf);
    double p[4];
    /* fair share: 4 communications share the uplink of capacity 1 -> 1/4 each */
    ct_penalty_model m = model(CT_MODEL_FAIRSHARE, 0);
    m.tree = &tm;
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    for (int k = 0; k < 4; k++)
        close_rel(p[k], 4.0, 1e-12, "fairshare, trunk 1");
    /* GigE: the NICs alone give 2*beta = 1.5 (Delta 2, every arc in C^m);
     * the trunk beta * 4 / 1 = 3 */
    ct_penalty_model node = model(CT_MODEL_GIGE, 0);
    assert_int_equal(ct_penalties(&node, &g, p, &err), 0);
    close_rel(p[0], 1.5, 1e-12, "gige, one switch");
    m = node;
    m.tree = &tm;
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    for (int k = 0; k < 4; k++)
        close_rel(p[k], 3.0, 1e-12, "gige, trunk 1");
    /* a 4:1 wide trunk (capacity 4): the NICs are the bottleneck again */
    tm.up_cap[1] = tm.up_cap[2] = 4;
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    close_rel(p[0], 1.5, 1e-12, "gige, trunk 4");
    m = model(CT_MODEL_FAIRSHARE, 0);
    m.tree = &tm;
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    close_rel(p[0], 2.0, 1e-12, "fairshare, trunk 4 (NIC shared by 2)");
    /* Stop & Go on a half-NIC trunk: 4 / 0.5 = 8 */
    tm.up_cap[1] = tm.up_cap[2] = 0.5;
    m = model(CT_MODEL_STOPGO, 0);
    m.tree = &tm;
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    close_rel(p[2], 8.0, 1e-12, "stopgo, trunk 0.5");
    /* busiest link: leaf s1's uplink, 4 communications on 0.5 */
    ct_link_use u;
    assert_int_equal(ct_links_busiest(&tm, &g, NULL, &u, &err), 0);
    assert_int_equal(u.kind, CT_LINK_UP);
    assert_int_equal(u.index, 1);
    close_rel(u.ratio, 8.0, 1e-12, "busiest ratio");
    char buf[64];
    assert_string_equal(ct_link_label(&tm, &u, buf, sizeof buf), "s1 uplink");
    /* progressive: all four finish together at 4 x alone under fair share
     * with a trunk of 1 */
    tm.up_cap[1] = tm.up_cap[2] = 1;
    m = model(CT_MODEL_FAIRSHARE, 0);
    m.tree = &tm;
    double alone[4] = {0.08, 0.08, 0.08, 0.08}, fin[4];
    assert_int_equal(ct_progressive_times(&m, &g, alone, fin, &err), 0);
    close_rel(fin[0], 0.32, 1e-12, "progressive, fair share");
    /* a map over the wrong number of nodes is refused */
    tm.nnodes = 3;
    assert_int_equal(ct_penalties(&m, &g, p, &err), -1);
    assert_non_null(strstr(err.msg, "tree map over 3 nodes for a graph of 4 nodes"));
    tm.nnodes = 4;
    ct_tree_map_free(&tm);
    ct_graph_free(&g);
}

/* An uplink's duplex share (session 11): one pair each way across a
 * half-NIC trunk, on four distinct NICs (0 -> 2 up leaf1's uplink, 3 -> 1
 * down it), ran 1.15-1.3 x one pair alone on the emulated 4:1 trunk. With
 * duplex δ = 0.2 each direction carries 1 + 0.2 communications' worth:
 * Stop & Go and GigE price (1 + δ) x the one-way penalty (2 -> 2.4; GigE's
 * share 0.75 -> 1.5 x 1.2 = 1.8), the duplex model's joint filling gives
 * each flow 0.5 / 1.2 (the reverse direction carries 1 > 1.1 x 0.5: it is
 * saturated, links.h). One way only, or two flows the same way, are
 * unchanged; δ = 0 (and no up_duplex at all) gives the same doubles. */
static void test_uplink_duplex(void **state)
{
    (void)state;
    ct_err err;
    ct_graph g;
    assert_int_equal(ct_graph_init(&g, 4, &err), 0);
    assert_int_equal(ct_graph_add(&g, 0, 2, 1, 1e6, &err), 0);
    assert_int_equal(ct_graph_add(&g, 3, 1, 1, 1e6, &err), 0);
    const int32_t parent[] = {-1, 0, 0}, leaf[] = {1, 1, 2, 2};
    const double cap[] = {0, 0.5, 0.5};
    ct_tree_map tm;
    make_map(&tm, 3, parent, cap, 4, leaf);
    /* the TCP share: each flow crosses one standing queue (its uplink; its
     * NICs carry one communication, the downlink is fed by the uplink), so
     * it fills as the duplex model does */
    const ct_model_kind kinds[] = {CT_MODEL_STOPGO, CT_MODEL_GIGE, CT_MODEL_DUPLEX,
                                   CT_MODEL_FAIRSHARE, CT_MODEL_TCPSHARE};
    const double one_way[] = {2.0, 1.5, 2.0, 2.0, 2.0}, both[] = {2.4, 1.8, 2.4, 2.0, 2.4};
    for (int k = 0; k < 5; k++) {
        ct_penalty_model m = model(kinds[k], 0);
        m.tree = &tm;
        double p0[2], p[2];
        assert_non_null(tm.up_duplex);
        tm.up_duplex[1] = tm.up_duplex[2] = 0;
        assert_int_equal(ct_penalties(&m, &g, p0, &err), 0);
        close_rel(p0[0], one_way[k], 1e-12, "duplex 0: the one-way penalty");
        double *keep = tm.up_duplex;
        tm.up_duplex = NULL; /* a map without the array: the same doubles */
        assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
        assert_memory_equal(p, p0, sizeof p);
        tm.up_duplex = keep;
        tm.up_duplex[1] = tm.up_duplex[2] = 0.2;
        assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
        for (int i = 0; i < 2; i++)
            close_rel(p[i], both[k], 1e-12,
                      k == 3 ? "fair share (the baseline) ignores it" : "one pair each way");
        /* both the same way: nothing in the other direction */
        ct_graph h;
        assert_int_equal(ct_graph_init(&h, 4, &err), 0);
        assert_int_equal(ct_graph_add(&h, 0, 2, 1, 1e6, &err), 0);
        assert_int_equal(ct_graph_add(&h, 1, 3, 1, 1e6, &err), 0);
        assert_int_equal(ct_penalties(&m, &h, p, &err), 0);
        tm.up_duplex[1] = tm.up_duplex[2] = 0;
        assert_int_equal(ct_penalties(&m, &h, p0, &err), 0);
        assert_memory_equal(p, p0, sizeof p);
        ct_graph_free(&h);
    }
    /* an unequal load: 2 up, 1 down, δ = 0.5, Stop & Go: the up direction
     * carries 2 + 0.5 = 2.5 -> 5 on the half-NIC link, the down 1 + 1 = 2 -> 4 */
    assert_int_equal(ct_graph_add(&g, 1, 3, 1, 1e6, &err), 0);
    tm.up_duplex[1] = tm.up_duplex[2] = 0.5;
    ct_penalty_model m = model(CT_MODEL_STOPGO, 0);
    m.tree = &tm;
    double p[3];
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    close_rel(p[0], 5.0, 1e-12, "up, 2 + 0.5 x 1");
    close_rel(p[2], 5.0, 1e-12, "up, 2 + 0.5 x 1");
    close_rel(p[1], 4.0, 1e-12, "down, 1 + 0.5 x 2");
    /* a trunk as fast as a NIC: one flow each way does not saturate it (its
     * queue forms at the sender's NIC; links.h): no share; two each way do */
    tm.up_cap[1] = tm.up_cap[2] = 1;
    ct_graph one;
    assert_int_equal(ct_graph_init(&one, 4, &err), 0);
    assert_int_equal(ct_graph_add(&one, 0, 2, 1, 1e6, &err), 0);
    assert_int_equal(ct_graph_add(&one, 3, 1, 1, 1e6, &err), 0);
    assert_int_equal(ct_penalties(&m, &one, p, &err), 0);
    close_rel(p[0], 1.0, 1e-12, "trunk 1, one each way: not saturated");
    assert_int_equal(ct_graph_add(&one, 1, 3, 1, 1e6, &err), 0);
    assert_int_equal(ct_graph_add(&one, 2, 0, 1, 1e6, &err), 0);
    double q[4];
    assert_int_equal(ct_penalties(&m, &one, q, &err), 0);
    for (int i = 0; i < 4; i++)
        close_rel(q[i], 3.0, 1e-12, "trunk 1, two each way: 2 + 0.5 x 2");
    ct_penalty_model dm = model(CT_MODEL_DUPLEX, 0);
    dm.real[CT_DUPLEX_INCAST] = 0;
    dm.tree = &tm;
    assert_int_equal(ct_penalties(&dm, &one, q, &err), 0);
    for (int i = 0; i < 4; i++)
        close_rel(q[i], 3.0, 1e-12, "duplex model, trunk 1, two each way: 1 / (1 / 3)");
    ct_graph_free(&one);
    ct_tree_map_free(&tm);
    ct_graph_free(&g);
}

/* The Alltoall's uplink excess (calibrate's uplink-bound samples): two
 * leaves of two nodes. 4 x 1 through an uplink of one NIC: the uplink carries
 * 2 x 2 = 4 messages each way, a NIC 3: 4/3. 4 x 2: 4 x 4 = 16 against
 * 2 x 6 = 12: 4/3. 3 x 1 (n1, n2 | n3): leaf2's uplink 1 x 2 = 2, a NIC 2:
 * 1. A half-NIC uplink doubles each; one leaf, or no tasks across, is 0. */
static void test_alltoall_uplink_excess(void **state)
{
    (void)state;
    ct_err err;
    const int32_t parent[] = {-1, 0, 0}, leaf[] = {1, 1, 2, 2};
    const double cap[] = {0, 1, 1};
    ct_tree_map tm;
    make_map(&tm, 3, parent, cap, 4, leaf);
    double x;
    int32_t sw;
    const int32_t t41[] = {1, 1, 1, 1}, t42[] = {2, 2, 2, 2}, t31[] = {1, 1, 1, 0},
                  t21[] = {1, 1, 0, 0};
    assert_int_equal(ct_links_alltoall_uplink_excess(&tm, t41, &x, &sw, &err), 0);
    close_rel(x, 4.0 / 3, 1e-12, "4 x 1, uplink of one NIC");
    assert_int_equal(sw, 1);
    assert_int_equal(ct_links_alltoall_uplink_excess(&tm, t42, &x, NULL, &err), 0);
    close_rel(x, 16.0 / 12, 1e-12, "4 x 2");
    assert_int_equal(ct_links_alltoall_uplink_excess(&tm, t31, &x, &sw, &err), 0);
    close_rel(x, 1.0, 1e-12, "3 x 1");
    tm.up_cap[1] = tm.up_cap[2] = 0.5;
    assert_int_equal(ct_links_alltoall_uplink_excess(&tm, t31, &x, &sw, &err), 0);
    close_rel(x, 2.0, 1e-12, "3 x 1, half-NIC uplink");
    assert_int_equal(ct_links_alltoall_uplink_excess(&tm, t41, &x, NULL, &err), 0);
    close_rel(x, 8.0 / 3, 1e-12, "4 x 1, half-NIC uplink");
    /* the first two nodes share leaf1: nothing crosses */
    assert_int_equal(ct_links_alltoall_uplink_excess(&tm, t21, &x, &sw, &err), 0);
    assert_true(x == 0);
    assert_int_equal(sw, -1);
    ct_tree_map_free(&tm);
}

/* Max-min fairness over every link of random 3-level trees: no link over
 * its capacity, and every communication crosses a saturated link on which
 * no communication gets a larger rate (its bottleneck). The TCP share
 * (penalty_tcpshare.c) on the same trees: no link over its capacity, every
 * communication frozen at a saturated link of its route (its weights let
 * others there go faster). */
static void test_fair_shares_on_random_trees(void **state)
{
    (void)state;
    ct_err err;
    for (int rep = 0; rep < 400; rep++) {
        const ct_model_kind kind = rep % 2 ? CT_MODEL_TCPSHARE : CT_MODEL_FAIRSHARE;
        /* switches: 0 top, 1-2 aggregation, 3-6 leaves */
        const int32_t parent[] = {-1, 0, 0, 1, 1, 2, 2};
        double cap[7] = {0};
        for (int s = 1; s < 7; s++)
            cap[s] = 0.25 * (1 + rnd(8));
        int32_t nn = 4 + rnd(12), leaf[16];
        for (int32_t i = 0; i < nn; i++)
            leaf[i] = 3 + rnd(4);
        ct_tree_map tm;
        make_map(&tm, 7, parent, cap, nn, leaf);
        ct_graph g;
        random_graph(&g, nn, 2 + rnd(3 * nn));
        ct_penalty_model m = model(kind, 0);
        m.tree = &tm;
        double *p = malloc((g.ncomm + 1) * sizeof *p);
        assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
        /* link usage, recomputed here by walking the tree independently */
        double use[2 * 16 + 14] = {0}, cp[2 * 16 + 14], maxr[2 * 16 + 14] = {0};
        for (int32_t v = 0; v < nn; v++)
            cp[2 * v] = cp[2 * v + 1] = 1.0;
        for (int s = 0; s < 7; s++)
            cp[32 + 2 * s] = cp[32 + 2 * s + 1] = cap[s];
        int32_t links[64][20];
        int nl[64] = {0};
        assert_true(g.ncomm <= 64);
        for (size_t i = 0; i < g.ncomm; i++) {
            int32_t a = g.comm[i].src, b = g.comm[i].dst, x = leaf[a], y = leaf[b];
            links[i][nl[i]++] = 2 * a;
            links[i][nl[i]++] = 2 * b + 1;
            while (x != y) {
                if (tm.depth[x] >= tm.depth[y]) {
                    links[i][nl[i]++] = 32 + 2 * x;
                    x = parent[x];
                } else {
                    links[i][nl[i]++] = 32 + 2 * y + 1;
                    y = parent[y];
                }
            }
            double r = 1.0 / p[i];
            for (int j = 0; j < nl[i]; j++) {
                use[links[i][j]] += r * (double)g.comm[i].mult;
                if (r > maxr[links[i][j]])
                    maxr[links[i][j]] = r;
            }
        }
        for (int l = 0; l < 46; l++)
            if (use[l] > 0)
                assert_true(use[l] <= cp[l] * (1 + 1e-9));
        for (size_t i = 0; i < g.ncomm; i++) {
            double r = 1.0 / p[i];
            int ok = 0;
            for (int j = 0; j < nl[i] && !ok; j++) {
                int l = links[i][j];
                ok = use[l] >= cp[l] * (1 - 1e-9) &&
                     (kind == CT_MODEL_TCPSHARE || r >= maxr[l] * (1 - 1e-9));
            }
            if (!ok) {
                print_error("rep %d arc %zu (%d->%d) rate %g has no bottleneck\n", rep, i,
                            (int)g.comm[i].src, (int)g.comm[i].dst, r);
                fail();
            }
        }
        free(p);
        ct_tree_map_free(&tm);
        ct_graph_free(&g);
    }
}

/* The TCP share (penalty_tcpshare.c) by hand: node 1 of leaf s1 sends 2
 * communications to node 0 under the same leaf and 2 to node 2 under leaf
 * s2, through s1's uplink of half a NIC. Standing queues: node 1's NIC out
 * (4 communications offered) and s1's uplink (fed by that NIC: 1 > 1.1 x
 * 0.5); node 0's NIC in (fed by node 1's NIC alone: 1), s2's downlink (fed
 * by s1's uplink: 0.5) and node 2's NIC in (0.5) hold none. So the in-leaf
 * flows cross h = 1 queue, the crossing ones h = 2 and rise at 2^-1.5 of
 * their rate: node 1's NIC fills at level 1 / (2 + 2 x 2^-1.5) first,
 * penalties 2 + 2^-0.5 and (2 + 2^-0.5) x 2^1.5 (the fair share: 4 each).
 * Progressively: the in-leaf flows end at 2.7071 x alone, having let the
 * crossing ones through 2^-1.5 of their bytes; those two then share the
 * uplink, 0.25 each: they end at 2 + 2^-0.5 + 4 (1 - 2^-1.5) = 5.2929 x
 * alone (the fair share: 4; measured on the emulated 4:1 trunk for the
 * halo's block layout, whose middle nodes are this node 1: 5.9,
 * doc/multiswitch.md). Bias 0 is the fair share bit for bit. */
static void test_tcpshare_beat_down(void **state)
{
    (void)state;
    ct_err err;
    ct_graph g;
    assert_int_equal(ct_graph_init(&g, 4, &err), 0);
    assert_int_equal(ct_graph_add(&g, 1, 0, 2, 1e6, &err), 0);
    assert_int_equal(ct_graph_add(&g, 1, 2, 2, 1e6, &err), 0);
    const int32_t parent[] = {-1, 0, 0}, leaf[] = {1, 1, 2, 2};
    const double cap[] = {0, 0.5, 0.5};
    ct_tree_map tm;
    make_map(&tm, 3, parent, cap, 4, leaf);
    ct_penalty_model m = model(CT_MODEL_TCPSHARE, 0), fs = model(CT_MODEL_FAIRSHARE, 0);
    m.tree = fs.tree = &tm;
    double p[2], q[2], alone[2] = {0.1, 0.1}, fin[2];
    const double in_leaf = 2 + pow(2, -0.5);
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    close_rel(p[0], in_leaf, 1e-12, "tcpshare: in-leaf, one queue");
    close_rel(p[1], in_leaf * pow(2, 1.5), 1e-12, "tcpshare: crossing, two queues");
    assert_int_equal(ct_penalties(&fs, &g, q, &err), 0);
    close_rel(q[0], 4.0, 1e-12, "fairshare: in-leaf");
    close_rel(q[1], 4.0, 1e-12, "fairshare: crossing");
    assert_int_equal(ct_progressive_times(&m, &g, alone, fin, &err), 0);
    close_rel(fin[0], 0.1 * in_leaf, 1e-12, "tcpshare: in-leaf end");
    close_rel(fin[1], 0.1 * (in_leaf + 4 * (1 - pow(2, -1.5))), 1e-12, "tcpshare: crossing end");
    assert_int_equal(ct_progressive_times(&fs, &g, alone, fin, &err), 0);
    close_rel(fin[1], 0.4, 1e-12, "fairshare: crossing end");
    /* bias 0: the fair share, the same doubles */
    m.real[CT_TCPSHARE_BIAS] = 0;
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    assert_memory_equal(p, q, sizeof p);
    /* a wide uplink (2 NICs) holds no queue: one queue each, the fair share */
    m.real[CT_TCPSHARE_BIAS] = 1.5;
    tm.up_cap[1] = tm.up_cap[2] = 2;
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    assert_int_equal(ct_penalties(&fs, &g, q, &err), 0);
    close_rel(p[1], 4.0, 1e-12, "tcpshare, wide uplink");
    close_rel(q[1], 4.0, 1e-12, "fairshare, wide uplink");
    /* a ring over both leaves whose uplinks were measured 12 % apart (0.446
     * and 0.4998 NIC, run r4aa) with their duplex shares: the crossing flow
     * from the faster uplink into the slower downlink reads no queue there
     * (one pipe), so both crossing flows fill as in the duplex model's
     * coupling, 0.446 / 1.158 each (before that rule: 2.37 and 6.70) */
    ct_graph r;
    assert_int_equal(ct_graph_init(&r, 4, &err), 0);
    for (int32_t v = 0; v < 4; v++)
        assert_int_equal(ct_graph_add(&r, v, (v + 1) % 4, 1, 1e6, &err), 0);
    tm.up_cap[1] = 0.446, tm.up_cap[2] = 0.4998;
    tm.up_duplex[1] = 0.158, tm.up_duplex[2] = 0.068;
    ct_penalty_model dx = CT_DUPLEX_MODEL(0);
    dx.tree = &tm;
    double pr[4], pd[4];
    m.real[CT_TCPSHARE_BIAS] = 1.5;
    assert_int_equal(ct_penalties(&m, &r, pr, &err), 0);
    assert_int_equal(ct_penalties(&dx, &r, pd, &err), 0);
    for (int k = 0; k < 4; k++)
        close_rel(pr[k], pd[k], 1e-12, "tcpshare = duplex coupling, uplinks 12 % apart");
    close_rel(pr[1], 1.158 / 0.446, 1e-12, "crossing flow, leaf1's uplink");
    close_rel(pr[3], pr[1], 1e-12, "the other crossing flow alike");
    tm.up_duplex[1] = tm.up_duplex[2] = 0;
    ct_graph_free(&r);
    /* out of range: refused by its key */
    m.real[CT_TCPSHARE_BIAS] = 5;
    assert_int_equal(ct_penalties(&m, &g, p, &err), -1);
    assert_non_null(strstr(err.msg, "bias"));
    ct_tree_map_free(&tm);
    ct_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_switch_is_exactly_node_level),
        cmocka_unit_test(test_two_leaves_halves_block),
        cmocka_unit_test(test_alltoall_uplink_excess),
        cmocka_unit_test(test_uplink_duplex),
        cmocka_unit_test(test_duplex_joint_filling),
        cmocka_unit_test(test_fair_shares_on_random_trees),
        cmocka_unit_test(test_tcpshare_beat_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
