/* Max-min fair-share baseline (penalty_fairshare.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "contention/penalty.h"

#define TOL 1e-12

static void test_simple(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 8, NULL);
    ct_graph_add(&g, 0, 1, 1, 1.0, NULL); /* alone: rate 1 */
    ct_graph_add(&g, 2, 3, 3, 1.0, NULL); /* 3 flows on one NIC pair: 1/3 each */
    ct_graph_add(&g, 4, 5, 1, 1.0, NULL); /* fan-out 2 from node 4 */
    ct_graph_add(&g, 4, 6, 1, 1.0, NULL);
    double p[4];
    assert_int_equal(ct_fairshare_penalties(&g, p, NULL), 0);
    assert_true(fabs(p[0] - 1.0) < TOL);
    assert_true(fabs(p[1] - 3.0) < TOL);
    assert_true(fabs(p[2] - 2.0) < TOL && fabs(p[3] - 2.0) < TOL);
    ct_graph_free(&g);
}

/* Fig. 4's graph by hand: NIC out(0) and in(3) carry 3 flows each and fill at
 * 1/3, freezing a, b, c, e, f; d then takes what b leaves at in(2): 2/3. */
static void test_fig4_graph(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 7, NULL);
    int arcs[][2] = {{0, 1}, {0, 2}, {0, 3}, {4, 2}, {5, 3}, {6, 3}};
    for (int i = 0; i < 6; i++)
        ct_graph_add(&g, arcs[i][0], arcs[i][1], 1, 1.0, NULL);
    double p[6], want[6] = {3, 3, 3, 1.5, 3, 3};
    assert_int_equal(ct_fairshare_penalties(&g, p, NULL), 0);
    for (int i = 0; i < 6; i++)
        assert_true(fabs(p[i] - want[i]) < TOL);
    unsigned char act[6] = {1, 1, 0, 1, 0, 0}; /* a, b, d: out(0) 2 flows -> 1/2, d 1/2 */
    assert_int_equal(ct_fairshare_penalties_ex(&g, act, p, NULL), 0);
    assert_true(fabs(p[0] - 2) < TOL && fabs(p[1] - 2) < TOL && fabs(p[3] - 2) < TOL);
    assert_true(p[2] == 0.0 && p[4] == 0.0 && p[5] == 0.0);
    ct_graph_free(&g);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Max-min fairness on random graphs: no NIC over capacity, and every flow has
 * a bottleneck: a full NIC on which no flow has a higher rate. */
static void test_maxmin_property(void **state)
{
    (void)state;
    uint64_t s = 3;
    for (int t = 0; t < 200; t++) {
        int n = 2 + (int)(lcg(&s) % 12);
        ct_graph g;
        ct_graph_init(&g, n, NULL);
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++)
                if (u != v && lcg(&s) % 3 == 0)
                    ct_graph_add(&g, u, v, 1 + (int64_t)(lcg(&s) % 3), 1.0, NULL);
        if (g.ncomm == 0) {
            ct_graph_free(&g);
            continue;
        }
        double *p = malloc(g.ncomm * sizeof *p);
        assert_int_equal(ct_fairshare_penalties(&g, p, NULL), 0);
        double *uo = calloc((size_t)n, sizeof *uo), *ui = calloc((size_t)n, sizeof *ui);
        double *mo = calloc((size_t)n, sizeof *mo), *mi = calloc((size_t)n, sizeof *mi);
        for (size_t i = 0; i < g.ncomm; i++) {
            double r = 1.0 / p[i];
            assert_true(r > 0 && r <= 1.0 + 1e-12);
            uo[g.comm[i].src] += r * (double)g.comm[i].mult;
            ui[g.comm[i].dst] += r * (double)g.comm[i].mult;
            if (r > mo[g.comm[i].src])
                mo[g.comm[i].src] = r;
            if (r > mi[g.comm[i].dst])
                mi[g.comm[i].dst] = r;
        }
        for (int v = 0; v < n; v++)
            assert_true(uo[v] <= 1 + 1e-9 && ui[v] <= 1 + 1e-9);
        for (size_t i = 0; i < g.ncomm; i++) {
            double r = 1.0 / p[i];
            int so = uo[g.comm[i].src] > 1 - 1e-9 && r >= mo[g.comm[i].src] - 1e-12;
            int si = ui[g.comm[i].dst] > 1 - 1e-9 && r >= mi[g.comm[i].dst] - 1e-12;
            assert_true(so || si);
        }
        free(p), free(uo), free(ui), free(mo), free(mi);
        ct_graph_free(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple),
        cmocka_unit_test(test_fig4_graph),
        cmocka_unit_test(test_maxmin_property),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
