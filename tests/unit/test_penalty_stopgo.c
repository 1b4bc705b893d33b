/* Myrinet Stop & Go model (paper 001 §V-B): published Fig. 6 numbers, every
 * evaluation path against an independent brute force, error bound of the
 * MCMC estimate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/penalty.h"

#include "stopgo.h" /* internal: paths, options, statistics */

/* The bound the scalable estimate must meet against exact (brief: 5 %). */
#define MCMC_REL_BOUND 0.05

static void load_fig6(ct_graph *g, double *pen, double *emis, double *minimum)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vectors/fig6_stopgo.txt", CT_FIXTURES);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(ct_graph_init(g, 7, NULL), 0);
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char name;
        int s, d;
        double e, mn, p;
        if (line[0] == '#' || sscanf(line, " %c %d %d %lf %lf %lf", &name, &s, &d, &e, &mn, &p) != 6)
            continue;
        assert_int_equal(ct_graph_add(g, s, d, 1, 4e6, NULL), 0);
        emis[n] = e, minimum[n] = mn, pen[n] = p;
        n++;
    }
    fclose(f);
    assert_int_equal(n, 6);
}

/* --- independent reference: the paper's definition on individual
 * communications, by trying every subset (multiplicities expanded). --- */
static void brute(const ct_graph *g, double *pen)
{
    int src[24], dst[24], arc[24], n = 0;
    for (size_t i = 0; i < g->ncomm; i++)
        for (int64_t k = 0; k < g->comm[i].mult; k++) {
            assert_true(n < 24);
            src[n] = g->comm[i].src, dst[n] = g->comm[i].dst, arc[n] = (int)i, n++;
        }
    double nsets = 0, emis[24] = {0};
    for (uint32_t set = 0; set < (1u << n); set++) {
        int ok = 1;
        for (int a = 0; a < n && ok; a++) {
            int in = (set >> a) & 1, blocked = 0;
            for (int b = 0; b < n; b++) {
                if (b == a || !((set >> b) & 1))
                    continue;
                if (src[a] == src[b] || dst[a] == dst[b])
                    blocked = 1; /* 001 §V-B: same source or same destination waits */
            }
            if (in && blocked)
                ok = 0; /* not a set of simultaneously sending communications */
            if (!in && !blocked)
                ok = 0; /* not maximal: a could send too */
        }
        if (!ok)
            continue;
        nsets++;
        for (int a = 0; a < n; a++)
            if ((set >> a) & 1)
                emis[a]++;
    }
    for (size_t i = 0; i < g->ncomm; i++) {
        double mn = INFINITY;
        for (int a = 0; a < n; a++)
            if (src[a] == g->comm[i].src && emis[a] < mn)
                mn = emis[a];
        pen[i] = nsets / mn;
    }
    (void)arc;
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* A random small graph: 3..8 nodes, each ordered pair present with a random
 * density, multiplicities 1..3; at most `maxcomm` individual communications. */
static void random_graph(ct_graph *g, uint64_t *s, int maxcomm)
{
    for (;;) {
        int n = 3 + (int)(lcg(s) % 6);
        double dens = 0.15 + 0.45 * (double)(lcg(s) % 1000) / 1000.0;
        assert_int_equal(ct_graph_init(g, n, NULL), 0);
        int total = 0;
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++) {
                if (u == v || (double)(lcg(s) % 1000) / 1000.0 >= dens)
                    continue;
                int64_t m = (lcg(s) % 5 == 0) ? 2 + (int64_t)(lcg(s) % 2) : 1;
                assert_int_equal(ct_graph_add(g, u, v, m, 1.0, NULL), 0);
                total += (int)m;
            }
        if (total >= 2 && total <= maxcomm)
            return;
        ct_graph_free(g);
    }
}

static double max_rel(const double *a, const double *ref, size_t n)
{
    double mx = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(a[i] - ref[i]) / ref[i];
        if (e > mx)
            mx = e;
    }
    return mx;
}

static void test_fig6_exact(void **state)
{
    (void)state;
    ct_graph g;
    double pen[6], emis[6], minimum[6], got[6], ge[6], nsets = 0;
    load_fig6(&g, pen, emis, minimum);
    ct_err err = {{0}};
    assert_int_equal(ct_stopgo_exact_counts(&g, &nsets, ge, &err), 0);
    assert_true(fabs(nsets - 5.0) < 1e-12); /* five sets of states (Fig. 5) */
    for (int i = 0; i < 6; i++)
        assert_true(fabs(ge[i] - emis[i]) < 1e-12); /* Fig. 6 "Sum" row */
    ct_stopgo_method methods[] = {CT_STOPGO_EXACT, CT_STOPGO_SCALABLE, CT_STOPGO_AUTO};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(ct_stopgo_penalties(methods[k], 0, &g, got, &err), 0);
        for (int i = 0; i < 6; i++) {
            assert_true(fabs(got[i] - pen[i]) < 1e-12); /* Fig. 6 "penalty" row */
            assert_true(fabs(nsets / got[i] - minimum[i]) < 1e-12); /* "Minimum" row */
        }
    }
    ct_graph_free(&g);
}

static void test_fig6_every_path(void **state)
{
    (void)state;
    ct_graph g;
    double pen[6], emis[6], minimum[6], got[6];
    load_fig6(&g, pen, emis, minimum);
    sg_path paths[] = {SG_DP, SG_ENUM};
    for (int k = 0; k < 2; k++) {
        sg_opts o = {.method = CT_STOPGO_AUTO, .force = paths[k]};
        sg_stats st;
        assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, got, &st, NULL), 0);
        assert_true(max_rel(got, pen, 6) < 1e-12);
        assert_int_equal(st.components, 1); /* a..f are linked through node 0, 1 and 4 */
    }
    /* MCMC: the estimate, within the stated bound */
    sg_opts o = {.force = SG_MCMC, .seed = 1};
    assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, got, NULL, NULL), 0);
    assert_true(max_rel(got, pen, 6) <= MCMC_REL_BOUND);
    ct_graph_free(&g);
}

/* Exact paths (ENUM, DP) and the method SCALABLE against the brute force. */
static void test_random_exact_paths(void **state)
{
    (void)state;
    uint64_t s = 42;
    for (int t = 0; t < 150; t++) {
        ct_graph g;
        random_graph(&g, &s, 16);
        double *ref = malloc(g.ncomm * sizeof *ref), *got = malloc(g.ncomm * sizeof *got);
        brute(&g, ref);
        sg_path paths[] = {SG_ENUM, SG_DP};
        for (int k = 0; k < 2; k++) {
            sg_opts o = {.force = paths[k]};
            ct_err err = {{0}};
            int rc = stopgo_penalties_ex(&o, &g, NULL, got, NULL, &err);
            if (rc)
                print_error("graph %d path %d: %s\n", t, k, err.msg);
            assert_int_equal(rc, 0);
            assert_true(max_rel(got, ref, g.ncomm) < 1e-9);
        }
        assert_int_equal(ct_stopgo_penalties(CT_STOPGO_SCALABLE, 0, &g, got, NULL), 0);
        assert_true(max_rel(got, ref, g.ncomm) <= MCMC_REL_BOUND);
        free(ref), free(got);
        ct_graph_free(&g);
    }
}

/* The MCMC estimate alone (what runs on components too big for the exact
 * paths) against exact enumeration on a fixed-seed set of random graphs. */
static void test_random_mcmc_bound(void **state)
{
    (void)state;
    uint64_t s = 7;
    double worst = 0;
    for (int t = 0; t < 40; t++) {
        ct_graph g;
        random_graph(&g, &s, 40);
        double *ref = malloc(g.ncomm * sizeof *ref), *got = malloc(g.ncomm * sizeof *got);
        assert_int_equal(ct_stopgo_penalties(CT_STOPGO_EXACT, 0, &g, ref, NULL), 0);
        sg_opts o = {.force = SG_MCMC, .seed = (unsigned long)t + 1};
        assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, got, NULL, NULL), 0);
        double e = max_rel(got, ref, g.ncomm);
        if (e > worst)
            worst = e;
        free(ref), free(got);
        ct_graph_free(&g);
    }
    print_message("MCMC worst relative error over 40 graphs: %.4f (bound %.2f)\n", worst,
                  MCMC_REL_BOUND);
    assert_true(worst <= MCMC_REL_BOUND);
}

/* Closed form for all-to-all (uniform and factorable multiplicities). */
static void test_closed_form_alltoall(void **state)
{
    (void)state;
    for (int n = 3; n <= 7; n++)
        for (int variant = 0; variant < 3; variant++) {
            ct_graph g;
            ct_graph_init(&g, n, NULL);
            for (int u = 0; u < n; u++)
                for (int v = 0; v < n; v++) {
                    if (u == v)
                        continue;
                    /* 0: mult 1; 1: mult 2; 2: t_u * t_v with t = 1, 2, 1, 3, ... */
                    int64_t m = variant == 0 ? 1
                                : variant == 1 ? 2
                                               : (int64_t)(1 + (u % 2) * (1 + u % 3)) *
                                                     (1 + (v % 2) * (1 + v % 3));
                    ct_graph_add(&g, u, v, m, 1.0, NULL);
                }
            size_t E = g.ncomm;
            double *ref = malloc(E * sizeof *ref), *got = malloc(E * sizeof *got);
            assert_int_equal(ct_stopgo_penalties(CT_STOPGO_EXACT, 0, &g, ref, NULL), 0);
            sg_opts o = {.force = SG_CLOSED};
            ct_err err = {{0}};
            int rc = stopgo_penalties_ex(&o, &g, NULL, got, NULL, &err);
            if (rc)
                print_error("n=%d variant %d: %s\n", n, variant, err.msg);
            assert_int_equal(rc, 0);
            assert_true(max_rel(got, ref, E) < 1e-9);
            free(ref), free(got);
            ct_graph_free(&g);
        }
    /* n = 3, mult 1 by hand: 2 perfect + 3 with one idle pair = 5 sets, each
     * pair in 2 of them -> penalty 2.5. */
    ct_graph g;
    ct_graph_init(&g, 3, NULL);
    for (int u = 0; u < 3; u++)
        for (int v = 0; v < 3; v++)
            if (u != v)
                ct_graph_add(&g, u, v, 1, 1.0, NULL);
    double p[6];
    assert_int_equal(ct_stopgo_penalties(CT_STOPGO_SCALABLE, 0, &g, p, NULL), 0);
    for (int i = 0; i < 6; i++)
        assert_true(fabs(p[i] - 2.5) < 1e-12);
    ct_graph_free(&g);
    /* not an all-to-all: forcing the closed form is refused */
    ct_graph_init(&g, 4, NULL);
    ct_graph_add(&g, 0, 1, 1, 1.0, NULL);
    ct_graph_add(&g, 0, 2, 1, 1.0, NULL);
    ct_graph_add(&g, 3, 2, 1, 1.0, NULL);
    sg_opts o = {.force = SG_CLOSED};
    ct_err err = {{0}};
    assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "closed form"));
    ct_graph_free(&g);
}

/* Fan-out of k from one node: k sets, each communication in one -> k. */
static void test_fanout_and_components(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 10, NULL);
    for (int k = 1; k <= 4; k++)
        ct_graph_add(&g, 0, k, 1, 1.0, NULL);
    ct_graph_add(&g, 5, 6, 3, 1.0, NULL); /* 3 copies of one pair: 3 sets */
    ct_graph_add(&g, 7, 8, 1, 1.0, NULL); /* alone: penalty 1 */
    double p[6];
    sg_stats st;
    sg_opts o = {.method = CT_STOPGO_SCALABLE};
    assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, p, &st, NULL), 0);
    for (int i = 0; i < 4; i++)
        assert_true(fabs(p[i] - 4.0) < 1e-12);
    assert_true(fabs(p[4] - 3.0) < 1e-12);
    assert_true(fabs(p[5] - 1.0) < 1e-12);
    assert_int_equal(st.components, 3);
    /* active mask: the fan-out reduced to 2 arcs behaves as a fan-out of 2 */
    unsigned char act[6] = {1, 0, 1, 0, 1, 1};
    assert_int_equal(stopgo_penalties_ex(&o, &g, act, p, NULL, NULL), 0);
    assert_true(fabs(p[0] - 2.0) < 1e-12 && fabs(p[2] - 2.0) < 1e-12);
    assert_true(p[1] == 0.0 && p[3] == 0.0);
    ct_graph_free(&g);
}

/* A bidirectional ring of 300 nodes: one long component, out of reach of the
 * enumeration; the DP handles it exactly and symmetry gives one penalty. A
 * 10-node ring checks the DP against enumeration. */
static void test_ring_dp(void **state)
{
    (void)state;
    int sizes[] = {10, 300};
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        ct_graph g;
        ct_graph_init(&g, n, NULL);
        for (int u = 0; u < n; u++) {
            ct_graph_add(&g, u, (u + 1) % n, 1, 1.0, NULL);
            ct_graph_add(&g, u, (u + n - 1) % n, 1, 1.0, NULL);
        }
        double *p = malloc(g.ncomm * sizeof *p), *q = malloc(g.ncomm * sizeof *q);
        sg_stats st;
        sg_opts o = {.method = CT_STOPGO_SCALABLE};
        assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, p, &st, NULL), 0);
        assert_int_equal(st.mcmc, 0);
        for (size_t i = 1; i < g.ncomm; i++)
            assert_true(fabs(p[i] - p[0]) < 1e-9 * p[0]);
        assert_true(p[0] > 1.0 && p[0] < 4.0);
        if (n == 10) {
            assert_int_equal(ct_stopgo_penalties(CT_STOPGO_EXACT, 0, &g, q, NULL), 0);
            assert_true(max_rel(p, q, g.ncomm) < 1e-9);
        }
        free(p), free(q);
        ct_graph_free(&g);
    }
}

static void test_exact_refuses_large(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 16, NULL);
    for (int u = 0; u < 16; u++)
        for (int v = 0; v < 16; v++)
            if (u != v)
                ct_graph_add(&g, u, v, 1, 1.0, NULL);
    double *p = malloc(g.ncomm * sizeof *p);
    ct_err err = {{0}};
    sg_opts o = {.method = CT_STOPGO_EXACT, .enum_max_steps = 200000};
    assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "exact enumeration"));
    assert_non_null(strstr(err.msg, "scalable"));
    /* the scalable method answers: 16-node all-to-all, closed form */
    sg_stats st;
    o = (sg_opts){.method = CT_STOPGO_SCALABLE};
    assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, p, &st, NULL), 0);
    assert_int_equal(st.closed, 1);
    for (size_t i = 0; i < g.ncomm; i++)
        assert_true(p[i] > 14.0 && p[i] < 16.0);
    free(p);
    ct_graph_free(&g);
}

static void test_bad_input(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 3, NULL);
    ct_graph_add(&g, 0, 1, 1, 1.0, NULL);
    double p[1];
    ct_err err = {{0}};
    sg_opts o = {.method = (ct_stopgo_method)9};
    assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "accepted"));
    o = (sg_opts){.force = (sg_path)17};
    assert_int_equal(stopgo_penalties_ex(&o, &g, NULL, p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "accepted"));
    ct_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig6_exact),
        cmocka_unit_test(test_fig6_every_path),
        cmocka_unit_test(test_random_exact_paths),
        cmocka_unit_test(test_random_mcmc_bound),
        cmocka_unit_test(test_closed_form_alltoall),
        cmocka_unit_test(test_fanout_and_components),
        cmocka_unit_test(test_ring_dp),
        cmocka_unit_test(test_exact_refuses_large),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
