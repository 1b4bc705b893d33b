/* Gigabit Ethernet model, paper 001 §V-A: published Fig. 2 / Fig. 4 numbers,
 * the p_i reading, multiplicities, the active mask and input checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contention/penalty.h"
#include "ct_test_util.h"

/* Published parameters (001 §V-A). */
#define BETA 0.75
#define GI 0.036
#define GO 0.115

/* Fig. 4 lists penalties to at most 5 decimals; the formulas give them exactly. */
#define TOL 1e-9

static void load_fig4(ct_graph *g, double *stat)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vectors/fig4_gige.txt", CT_FIXTURES);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(ct_graph_init(g, 7, NULL), 0);
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char name;
        int s, d;
        double meas, pred, prog, st;
        if (line[0] == '#' ||
            sscanf(line, " %c %d %d %lf %lf %lf %lf", &name, &s, &d, &meas, &pred, &prog, &st) != 7)
            continue;
        assert_int_equal(ct_graph_add(g, s, d, 1, 4.0 * 1024 * 1024, NULL), 0);
        stat[n++] = st;
    }
    fclose(f);
    assert_int_equal(n, 6);
}

static void test_fig4_static(void **state)
{
    (void)state;
    ct_graph g;
    double want[6], p[6], q[6];
    load_fig4(&g, want);
    ct_err err = {{0}};
    assert_int_equal(ct_gige_penalties(BETA, GI, GO, &g, p, &err), 0);
    for (int i = 0; i < 6; i++)
        assert_true(fabs(p[i] - want[i]) < TOL);
    /* the literal card(C_o^m) reading agrees on this graph */
    assert_int_equal(ct_gige_penalties_ex(BETA, GI, GO, CT_GIGE_LITERAL_PI, &g, NULL, q, &err), 0);
    for (int i = 0; i < 6; i++)
        assert_true(fabs(q[i] - want[i]) < TOL);
    ct_graph_free(&g);
}

/* Fig. 2: node 0 sending to k distinct nodes gives k * beta for k >= 2. */
static void test_fig2_fanout(void **state)
{
    (void)state;
    fig2_row rows[8];
    size_t n = load_fig2(rows, 8);
    for (size_t r = 0; r < n; r++) {
        int k = rows[r].k;
        ct_graph g;
        ct_graph_init(&g, k + 1, NULL);
        for (int d = 1; d <= k; d++)
            ct_graph_add(&g, 0, d, 1, 1.0, NULL);
        double p[8];
        assert_int_equal(ct_gige_penalties(BETA, GI, GO, &g, p, NULL), 0);
        for (int d = 0; d < k; d++)
            assert_true(fabs(p[d] - rows[r].gige) < 1e-12); /* 1, 1.5, 2.25 */
        ct_graph_free(&g);
    }
    assert_int_equal(n, 3);
}

/* A graph where the two readings of p_i's last branch differ. Arc 0->2:
 * Δo(0) = 2 and both of 0's destinations have Δi = 3, so it is in C_o^m with
 * card 2: p_o = 2β = 1.5. At node 2 (Δi = 3) the max Δo over its sources is
 * Δo(1) = 3, so 0->2 is not in C_i^m, card(C_i^m) = 1:
 *   default p_i = 3β(1 - γi/1) = 2.169, literal p_i = 3β(1 - γi/card(C_o^m) = 2) = 2.2095. */
static void test_pi_readings(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 9, NULL);
    int arcs[][2] = {{0, 2}, {0, 3}, {1, 2}, {1, 4}, {1, 5}, {7, 2}, {6, 3}, {8, 3}};
    for (int i = 0; i < 8; i++)
        ct_graph_add(&g, arcs[i][0], arcs[i][1], 1, 1.0, NULL);
    double p[8], q[8];
    assert_int_equal(ct_gige_penalties(BETA, GI, GO, &g, p, NULL), 0);
    assert_int_equal(ct_gige_penalties_ex(BETA, GI, GO, CT_GIGE_LITERAL_PI, &g, NULL, q, NULL), 0);
    assert_true(fabs(p[0] - 2.169) < TOL);
    assert_true(fabs(q[0] - 2.2095) < TOL);
    /* 1->2 is in C_i^m (card 1): 3β(1 + γi(3 - 1)) = 2.412; p_o: Δo = 3, its
     * destinations have Δi 3, 1, 1 -> in C_o^m, card 1: 2.25(1 + 2γo) = 2.7675 */
    assert_true(fabs(p[2] - 2.7675) < TOL);
    ct_graph_free(&g);
}

/* Multiplicities count communications: one arc of mult 3 equals three arcs. */
static void test_multiplicity(void **state)
{
    (void)state;
    ct_graph a, b;
    ct_graph_init(&a, 4, NULL);
    ct_graph_init(&b, 4, NULL);
    ct_graph_add(&a, 0, 1, 3, 1.0, NULL);
    ct_graph_add(&a, 0, 2, 1, 1.0, NULL);
    ct_graph_add(&a, 3, 1, 2, 1.0, NULL);
    for (int k = 0; k < 3; k++)
        ct_graph_add(&b, 0, 1, 1, 1.0, NULL);
    ct_graph_add(&b, 0, 2, 1, 1.0, NULL);
    ct_graph_add(&b, 3, 1, 1, 1.0, NULL);
    ct_graph_add(&b, 3, 1, 1, 1.0, NULL);
    double pa[3], pb[6];
    assert_int_equal(ct_gige_penalties(BETA, GI, GO, &a, pa, NULL), 0);
    assert_int_equal(ct_gige_penalties(BETA, GI, GO, &b, pb, NULL), 0);
    assert_true(fabs(pa[0] - pb[0]) < TOL && fabs(pa[0] - pb[2]) < TOL);
    assert_true(fabs(pa[1] - pb[3]) < TOL);
    assert_true(fabs(pa[2] - pb[4]) < TOL && fabs(pa[2] - pb[5]) < TOL);
    /* by hand, 0->1: Δo(0) = 4, Δi(1) = 5 = max over 0's destinations, card(C_o^m) = 3:
     * p_o = 4β(1 + γo(4-3)) = 3.345; at node 1 the sources have Δo 4 and 2, so
     * 0->1 is in C_i^m with card 3: p_i = 5β(1 + γi(5-3)) = 4.02 */
    assert_true(fabs(pa[0] - 4.02) < TOL);
    ct_graph_free(&a);
    ct_graph_free(&b);
}

/* All-to-all over n nodes: every arc is in both max sets, p = (n-1)β. */
static void test_alltoall(void **state)
{
    (void)state;
    ct_graph g;
    int n = 16;
    ct_graph_init(&g, n, NULL);
    for (int u = 0; u < n; u++)
        for (int v = 0; v < n; v++)
            if (u != v)
                ct_graph_add(&g, u, v, 1, 1.0, NULL);
    double p[240];
    assert_int_equal(ct_gige_penalties(BETA, GI, GO, &g, p, NULL), 0);
    for (int i = 0; i < 240; i++)
        assert_true(fabs(p[i] - 15 * BETA) < TOL);
    ct_graph_free(&g);
}

/* The active mask gives the penalties of the sub-graph of active arcs. */
static void test_active_mask(void **state)
{
    (void)state;
    ct_graph g, h;
    double stat[6], p[6], q[6];
    load_fig4(&g, stat);
    unsigned char act[6] = {1, 1, 1, 0, 1, 0}; /* d and f finished */
    ct_graph_init(&h, 7, NULL);
    for (int i = 0; i < 6; i++)
        if (act[i])
            ct_graph_add(&h, g.comm[i].src, g.comm[i].dst, 1, 1.0, NULL);
    assert_int_equal(ct_gige_penalties_ex(BETA, GI, GO, 0, &g, act, p, NULL), 0);
    assert_int_equal(ct_gige_penalties(BETA, GI, GO, &h, q, NULL), 0);
    for (int i = 0, j = 0; i < 6; i++) {
        if (!act[i]) {
            assert_true(p[i] == 0.0);
            continue;
        }
        assert_true(fabs(p[i] - q[j++]) < TOL);
    }
    ct_graph_free(&g);
    ct_graph_free(&h);
}

static void test_bad_parameters(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 2, NULL);
    ct_graph_add(&g, 0, 1, 1, 1.0, NULL);
    double p[1];
    ct_err err = {{0}};
    assert_int_equal(ct_gige_penalties(0.0, GI, GO, &g, p, &err), -1);
    assert_non_null(strstr(err.msg, "beta"));
    assert_int_equal(ct_gige_penalties(NAN, GI, GO, &g, p, &err), -1);
    assert_int_equal(ct_gige_penalties(BETA, 1.0, GO, &g, p, &err), -1);
    assert_non_null(strstr(err.msg, "gamma_i"));
    assert_int_equal(ct_gige_penalties(BETA, GI, -0.1, &g, p, &err), -1);
    assert_non_null(strstr(err.msg, "gamma_o"));
    assert_int_equal(ct_gige_penalties_ex(BETA, GI, GO, 8u, &g, NULL, p, &err), -1);
    assert_non_null(strstr(err.msg, "flags"));
    ct_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig4_static),  cmocka_unit_test(test_fig2_fanout),
        cmocka_unit_test(test_pi_readings),  cmocka_unit_test(test_multiplicity),
        cmocka_unit_test(test_alltoall),     cmocka_unit_test(test_active_mask),
        cmocka_unit_test(test_bad_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
