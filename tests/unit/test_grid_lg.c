/* Local Group two-cluster Alltoall (paper 002 §VI-B, Algorithm 1) and the
 * two-cluster models (002 eq. 6, eq. 7; 000 eq. 6). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/grid_lg.h"
#include "ct_test_util.h"

static int cluster(int32_t n1, int32_t v)
{
    return v < n1 ? 1 : 2;
}

/* Replay a schedule: every message starts at its origin, each transfer must
 * find its messages on `from`; at the end M_i,j sits on j, reached through
 * exactly one transfer (none for M_i,i), and the structure is Algorithm 1's. */
static void replay(int32_t n1, int32_t n2)
{
    ct_lg_schedule s;
    ct_err err = {{0}};
    if (ct_lg_schedule_build(n1, n2, &s, &err) != 0) {
        print_error("n1=%d n2=%d: %s\n", (int)n1, (int)n2, err.msg);
        fail();
    }
    const int32_t N = n1 + n2;
    assert_int_equal(s.nsteps, (n2 + n1 - 1) / n1);
    int32_t *loc = malloc((size_t)N * N * sizeof *loc);
    int32_t *hits = calloc((size_t)N * N, sizeof *hits);
    int32_t *seen = malloc((size_t)N * sizeof *seen); /* step a node was last paired in */
    assert_non_null(loc);
    assert_non_null(hits);
    assert_non_null(seen);
    for (int32_t i = 0; i < N; i++)
        for (int32_t j = 0; j < N; j++)
            loc[i * N + j] = i;
    for (int32_t v = 0; v < N; v++)
        seen[v] = -1;

    int phase = 1;
    int32_t step = 0, pairs = 0;
    for (size_t q = 0; q < s.ntransfers; q++) {
        const ct_lg_transfer *t = &s.t[q];
        /* phases and steps in order */
        assert_true(t->phase >= phase);
        if (t->phase == 2 && phase == 1) {
            /* end of the local phase: inter-cluster data wait on their store node */
            for (int32_t i = 0; i < N; i++)
                for (int32_t j = 0; j < N; j++) {
                    int32_t want =
                        cluster(n1, i) == cluster(n1, j) ? j : ct_lg_store_node(n1, n2, i, j);
                    assert_int_equal(loc[i * N + j], want);
                    /* the store node is on the sender's cluster */
                    assert_int_equal(cluster(n1, want), cluster(n1, i));
                }
        }
        phase = t->phase;
        assert_true(t->from != t->to);
        assert_true(t->nmsg > 0);
        if (t->phase == 1) {
            assert_int_equal(t->step, 0);
            assert_int_equal(cluster(n1, t->from), cluster(n1, t->to)); /* local only */
        } else {
            assert_int_equal(t->phase, 2);
            assert_true(t->step >= step && t->step >= 1 && t->step <= s.nsteps);
            step = t->step;
            assert_true(cluster(n1, t->from) != cluster(n1, t->to)); /* across only */
            int32_t c1 = t->from < n1 ? t->from : t->to, c2 = t->from < n1 ? t->to : t->from;
            assert_int_equal(c2, c1 + n1 * t->step); /* j = i + n1*s */
            if (t->from == c1) {
                /* one-port per step: a node meets one partner per step */
                assert_true(seen[c1] != t->step && seen[c2] != t->step);
                seen[c1] = seen[c2] = t->step;
                pairs++;
                /* C1 -> C2 carries M_k,j for every k in C1 */
                assert_int_equal(t->nmsg, (size_t)n1);
            } else {
                assert_true(q > 0 && s.t[q - 1].from == c1 && s.t[q - 1].to == c2);
            }
        }
        for (size_t k = 0; k < t->nmsg; k++) {
            int32_t o = t->msg[k].origin, d = t->msg[k].dest;
            assert_true(o >= 0 && o < N && d >= 0 && d < N && o != d);
            if (k > 0)
                assert_true(o > t->msg[k - 1].origin ||
                            (o == t->msg[k - 1].origin && d > t->msg[k - 1].dest));
            assert_int_equal(loc[o * N + d], t->from);
            assert_true(loc[o * N + d] != d); /* never leaves its destination */
            loc[o * N + d] = t->to;
            if (t->to == d)
                hits[o * N + d]++;
        }
    }
    /* 002 §VI-B-2: n2 inter-cluster exchanges in ceil(n2/n1) steps */
    assert_int_equal(pairs, n2);
    for (int32_t i = 0; i < N; i++)
        for (int32_t j = 0; j < N; j++) {
            assert_int_equal(loc[i * N + j], j);
            assert_int_equal(hits[i * N + j], i == j ? 0 : 1);
        }
    free(loc);
    free(hits);
    free(seen);
    ct_lg_schedule_free(&s);
}

static void test_replay_many(void **state)
{
    (void)state;
    for (int32_t n1 = 1; n1 <= 9; n1++)
        for (int32_t n2 = n1; n2 <= 20; n2++)
            replay(n1, n2);
    replay(1, 1);
    replay(1, 40);  /* n1 = 1: one C1 node meets every C2 node in turn */
    replay(16, 16); /* n1 = n2: a single step */
    replay(5, 23);  /* n2 not a multiple of n1 */
    replay(7, 50);
    replay(30, 30); /* 002 §VI-E's 30 + 30 grid */
    replay(12, 100);
}

/* tests/fixtures/vectors/lg_example.txt: 002 §VI-B-3, n1 = 3, n2 = 7. */
static void test_worked_example_fixture(void **state)
{
    (void)state;
    FILE *f = fopen(CT_FIXTURES "/vectors/lg_example.txt", "r");
    assert_non_null(f);
    int n1 = -1, n2 = -1, nstep_lines = 0, checked_store = 0, checked_send = 0;
    int pair_c1[16][16], pair_c2[16][16], npairs[16] = {0};
    int store_i = -1, store_j = -1, store_at = -1;
    int send_step = -1, send_from = -1, send_to = -1, send_o[16], send_d[16], nsend = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *p;
        if ((p = strstr(line, "n1=")))
            n1 = atoi(p + 3);
        if ((p = strstr(line, "n2=")))
            n2 = atoi(p + 3);
        if ((p = strstr(line, "M_")) && strstr(line, "is stored on node"))
            assert_int_equal(
                sscanf(p, "M_%d,%d is stored on node %d", &store_i, &store_j, &store_at), 3);
        if ((p = strstr(line, "in step")) && strstr(line, "sends")) {
            assert_int_equal(sscanf(p, "in step %d, node %d sends", &send_step, &send_from), 2);
            char *q = strstr(p, "sends") + 5;
            int o, d, used;
            while (sscanf(q, " M_%d,%d%n", &o, &d, &used) == 2) {
                assert_true(nsend < 16);
                send_o[nsend] = o;
                send_d[nsend] = d;
                nsend++;
                q += used;
            }
            assert_int_equal(sscanf(q, " to node %d", &send_to), 1);
        }
        int st, used;
        if (sscanf(line, "step %d:%n", &st, &used) == 1) {
            assert_true(st >= 1 && st < 16);
            char *q = line + used;
            int a, b, u;
            while (sscanf(q, " %d-%d%n", &a, &b, &u) == 2) {
                pair_c1[st][npairs[st]] = a;
                pair_c2[st][npairs[st]] = b;
                npairs[st]++;
                q += u;
            }
            nstep_lines++;
        }
    }
    fclose(f);
    assert_int_equal(n1, 3);
    assert_int_equal(n2, 7);
    assert_true(nstep_lines > 0 && store_at >= 0 && nsend > 0);

    /* phase 1: M_7,2 is stored on node 8 */
    assert_int_equal(ct_lg_store_node(n1, n2, store_i, store_j), store_at);
    checked_store = 1;

    ct_lg_schedule s;
    assert_int_equal(ct_lg_schedule_build(n1, n2, &s, NULL), 0);
    assert_int_equal(s.nsteps, nstep_lines);
    /* phase 1 really moves M_7,2 from 7 to 8 */
    int moved = 0;
    for (size_t q = 0; q < s.ntransfers; q++)
        if (s.t[q].phase == 1 && s.t[q].from == store_i && s.t[q].to == store_at)
            for (size_t k = 0; k < s.t[q].nmsg; k++)
                moved += s.t[q].msg[k].origin == store_i && s.t[q].msg[k].dest == store_j;
    assert_int_equal(moved, 1);

    /* phase 2: the step pairs, exactly as listed */
    for (int st = 1; st <= s.nsteps; st++) {
        int found = 0;
        for (size_t q = 0; q < s.ntransfers; q++) {
            const ct_lg_transfer *t = &s.t[q];
            if (t->phase != 2 || t->step != st || t->from >= n1)
                continue;
            int listed = 0;
            for (int k = 0; k < npairs[st]; k++)
                listed += pair_c1[st][k] == t->from && pair_c2[st][k] == t->to;
            assert_int_equal(listed, 1);
            found++;
        }
        assert_int_equal(found, npairs[st]);
    }
    /* in step 2, node 8 sends M_6,2 M_7,2 M_8,2 to node 2 (and nothing else) */
    int hit = 0;
    for (size_t q = 0; q < s.ntransfers; q++) {
        const ct_lg_transfer *t = &s.t[q];
        if (t->phase == 2 && t->step == send_step && t->from == send_from && t->to == send_to) {
            assert_int_equal(t->nmsg, (size_t)nsend);
            for (int k = 0; k < nsend; k++) {
                assert_int_equal(t->msg[k].origin, send_o[k]);
                assert_int_equal(t->msg[k].dest, send_d[k]);
            }
            hit++;
        }
    }
    assert_int_equal(hit, 1);
    checked_send = 1;
    assert_true(checked_store && checked_send);
    ct_lg_schedule_free(&s);
}

static void test_store_node_rules(void **state)
{
    (void)state;
    /* 002 §VI-B-1, n1 = 3, n2 = 7 */
    assert_int_equal(ct_lg_store_node(3, 7, 1, 8), 8 % 3);     /* C1 sender: j mod n1 */
    assert_int_equal(ct_lg_store_node(3, 7, 0, 2), 2);         /* C1 -> C1: direct */
    assert_int_equal(ct_lg_store_node(3, 7, 4, 9), 9);         /* C2 -> C2: direct */
    assert_int_equal(ct_lg_store_node(3, 7, 4, 0), 1 * 3 + 0); /* floor(4/3)*3 + 0 */
    assert_int_equal(ct_lg_store_node(3, 7, 9, 0), 9);         /* floor(9/3)*3 + 0 = itself */
    /* floor(9/3)*3 + 1 = 10 does not exist: waits on n1 + 1 = 4 (step 1) */
    assert_int_equal(ct_lg_store_node(3, 7, 9, 1), 4);
    assert_int_equal(ct_lg_store_node(3, 7, 9, 2), 5);
    assert_int_equal(ct_lg_store_node(0, 7, 1, 1), -1);
    assert_int_equal(ct_lg_store_node(3, 2, 1, 1), -1);
    assert_int_equal(ct_lg_store_node(3, 7, 10, 1), -1);
    assert_int_equal(ct_lg_store_node(3, 7, 1, -1), -1);
}

static void test_schedule_rejects(void **state)
{
    (void)state;
    ct_lg_schedule s;
    ct_err err = {{0}};
    assert_int_equal(ct_lg_schedule_build(0, 5, &s, &err), -1);
    assert_non_null(strstr(err.msg, "n1 = 0"));
    assert_int_equal(ct_lg_schedule_build(7, 3, &s, &err), -1);
    assert_non_null(strstr(err.msg, "n1 = 7 > n2 = 3"));
    assert_int_equal(ct_lg_schedule_build(1000, CT_LG_MAX_NODES, &s, &err), -1);
    assert_non_null(strstr(err.msg, "accepted: <="));
    assert_null(s.t);
    assert_int_equal(s.ntransfers, 0);
    assert_int_equal(ct_lg_schedule_build(1, 1, NULL, &err), -1);
}

/* Clusters of 002 §VI-E: GigE, grid signature gamma 2.6887, delta 5.039 ms,
 * M 1 KB (alpha 50 us and beta 8 ns/B chosen here), alpha_w 5 ms, beta_w 10 ns/B. */
static void test_models_hand(void **state)
{
    (void)state;
    const ct_lg_net c = {50e-6, 8e-9, {.gamma = 2.6887, .delta = 5.039e-3, .M = 1024}};
    const double aw = 5e-3, bw = 1e-8;
    /* n1 = 3, n2 = 7, m = 4096 >= M: m beta gamma = 3.2768e-5 * 2.6887 = 8.81033216e-5;
     * T_C2 = 6 * (5e-5 + 8.81033216e-5 + 5.039e-3) = 0.0310626199296 > T_C1;
     * eq. 7: + ceil(7/3) * (5e-3 + 1e-8*4096*3) = 3 * 5.12288e-3 = 0.01536864 */
    close_rel(ct_lg_eq7(3, 7, 4096, &c, &c, aw, bw), 0.0464312599296, 1e-12, "eq. 7");
    /* eq. 6 (002): + max(3, 7) * (5e-3 + 1e-8*4096) = 7 * 5.04096e-3 = 0.03528672 */
    close_rel(ct_lg_eq6(3, 7, 4096, &c, &c, aw, bw), 0.0663493399296, 1e-12, "eq. 6");
    /* 000's eq. 6 with n = n1 + n2 = 10: + 3 * (5e-3 + 1e-8*4096*10) = 0.0162288 */
    close_rel(ct_lg_eq6_gpc(3, 7, 4096, &c, &c, aw, bw, 10), 0.0472914199296, 1e-12, "000 eq. 6");
    /* ... and with n = n1 it is eq. 7 */
    assert_true(ct_lg_eq6_gpc(3, 7, 4096, &c, &c, aw, bw, 3) ==
                ct_lg_eq7(3, 7, 4096, &c, &c, aw, bw));
    /* m = 512 < M: no delta; T_C2 = 6 * (5e-5 + 1.10129152e-5) = 3.66077491...e-4;
     * + 3 * (5e-3 + 1e-8*512*3) = 0.01504608 */
    close_rel(ct_lg_eq7(3, 7, 512, &c, &c, aw, bw), 0.0154121574912, 1e-12, "eq. 7 m < M");
    /* clusters given the other way round: same answer */
    assert_true(ct_lg_eq7(7, 3, 4096, &c, &c, aw, bw) == ct_lg_eq7(3, 7, 4096, &c, &c, aw, bw));
    /* n1 = n2: one wide-area step */
    double local = ct_a2a_eq5(30, c.alpha, c.beta, 4096, &c.sig);
    close_rel(ct_lg_eq7(30, 30, 4096, &c, &c, aw, bw), local + aw + bw * 4096 * 30, 1e-12, "30+30");
    /* different local networks: the slower cluster sets the local part */
    const ct_lg_net slow = {60e-6, 8e-8, {.gamma = 1.0195, .delta = 8.23e-3, .M = 2048}};
    double t1 = ct_a2a_eq5(3, slow.alpha, slow.beta, 4096, &slow.sig);
    double t2 = ct_a2a_eq5(7, c.alpha, c.beta, 4096, &c.sig);
    close_rel(ct_lg_eq7(3, 7, 4096, &slow, &c, aw, bw), fmax(t1, t2) + 3 * (aw + bw * 4096 * 3),
              1e-12, "mixed");
    assert_true(isnan(ct_lg_eq7(0, 7, 4096, &c, &c, aw, bw)));
    assert_true(isnan(ct_lg_eq6(3, 7, 4096, NULL, &c, aw, bw)));
    /* LG beats the plain Alltoall model when the backbone is slow */
    assert_true(ct_lg_eq7(30, 30, 65536, &c, &c, 10e-3, bw) <
                ct_lg_eq6(30, 30, 65536, &c, &c, 10e-3, bw));
}


/* The tree form (issue 14): one task per node, two leaves of 2 and 3 nodes
 * under a wide uplink, is 002 eq. 7's two terms overlapped: the larger of
 * the local phase max(T_C1, T_C2) and the crossing ceil(3/2) (alpha + beta m 2);
 * a narrow uplink (capacity 1 NIC) shares the n1 = 2 crossing transfers:
 * beta_w = 2 beta, so the crossing sets the time from some size on; every
 * node under one leaf gives no uplink term. */
static void test_tree_alltoall_overlaps_eq7(void **state)
{
    (void)state;
    ct_err err;
    ct_tree_map t;
    assert_int_equal(ct_tree_map_flat(5, &t, &err), 0);
    ct_tree_map_free(&t);
    memset(&t, 0, sizeof t);
    t.nswitches = 3;
    int32_t parent[] = {-1, 0, 0}, depth[] = {0, 1, 1}, leaf[] = {1, 1, 2, 2, 2};
    double cap[] = {0, 100, 100};
    char names[3][CT_TOPO_NAME_MAX] = {"top", "a", "b"};
    t.parent = parent, t.depth = depth, t.up_cap = cap, t.name = names, t.leaf = leaf;
    t.nnodes = 5;
    const int32_t tasks[] = {1, 1, 1, 1, 1};
    ct_lg_net net = {.alpha = 60e-6, .beta = 1 / 12.5e6,
                     .sig = {.gamma = 1.0195, .delta = 8.23e-3, .M = 2048}};
    int crossing_sets = 0, local_sets = 0;
    for (double m = 1024; m <= 1 << 20; m *= 4) {
        double T;
        int32_t worst;
        assert_int_equal(
            ct_lg_tree_alltoall(tasks, &t, net.alpha, net.beta, m, &net.sig, 0, &T, &worst, &err),
            0);
        double local = fmax(ct_a2a_eq5(2, net.alpha, net.beta, m, &net.sig),
                            ct_a2a_eq5(3, net.alpha, net.beta, m, &net.sig));
        double cross = 2 * (net.alpha + net.beta * m * 2); /* ceil(3/2) (alpha_w + beta_w m n1) */
        /* eq. 7 is the sum of the same two terms */
        assert_true(fabs(ct_lg_eq7(2, 3, m, &net, &net, net.alpha, net.beta) - (local + cross)) <=
                    1e-12 * (local + cross));
        double want = fmax(local, cross);
        assert_true(fabs(T - want) <= 1e-12 * want);
        assert_true(worst == 1 || worst == 2);
        cap[1] = cap[2] = 1;
        assert_int_equal(
            ct_lg_tree_alltoall(tasks, &t, net.alpha, net.beta, m, &net.sig, 0, &T, NULL, &err), 0);
        cross = 2 * (net.alpha + 2 * net.beta * m * 2);
        want = fmax(local, cross);
        assert_true(fabs(T - want) <= 1e-12 * want);
        crossing_sets += cross > local;
        local_sets += local > cross;
        /* a measured duplex share of 0.25 on both uplinks (session 11):
         * the n1 = 2 transfers each way weigh 2 (1 + 0.25) on the one-NIC
         * uplink, beta_w = 2.5 beta; with a wide uplink nothing changes */
        double dup[3] = {0, 0.25, 0.25};
        t.up_duplex = dup;
        assert_int_equal(
            ct_lg_tree_alltoall(tasks, &t, net.alpha, net.beta, m, &net.sig, 0, &T, NULL, &err), 0);
        double cross_d = 2 * (net.alpha + 2.5 * net.beta * m * 2);
        assert_true(fabs(T - fmax(local, cross_d)) <= 1e-12 * fmax(local, cross_d));
        cap[1] = cap[2] = 100;
        assert_int_equal(
            ct_lg_tree_alltoall(tasks, &t, net.alpha, net.beta, m, &net.sig, 0, &T, NULL, &err), 0);
        want = fmax(local, 2 * (net.alpha + net.beta * m * 2));
        assert_true(fabs(T - want) <= 1e-12 * want);
        t.up_duplex = NULL;
    }
    /* both regimes occur over 1 KiB .. 1 MiB, so both branches are checked */
    assert_true(crossing_sets > 0 && local_sets > 0);
    int32_t one[] = {1, 1, 1, 1, 1};
    for (int i = 0; i < 5; i++)
        leaf[i] = 2;
    double T;
    assert_int_equal(
        ct_lg_tree_alltoall(one, &t, net.alpha, net.beta, 4096, &net.sig, 0, &T, NULL, &err), 0);
    assert_true(T == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_many),      cmocka_unit_test(test_worked_example_fixture),
        cmocka_unit_test(test_store_node_rules), cmocka_unit_test(test_schedule_rejects),
        cmocka_unit_test(test_models_hand),
        cmocka_unit_test(test_tree_alltoall_overlaps_eq7),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
