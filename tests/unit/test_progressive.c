/* Progressive evaluation: reproduces paper 001 Fig. 4's predicted times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/progressive.h"

#define TREF 0.047517 /* s, shared/vectors/fig4_gige.txt */

typedef struct fig4 {
    ct_graph g;
    double predicted_s[6], completion[6], stat[6];
} fig4;

static void load_fig4(fig4 *f4)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vectors/fig4_gige.txt", CT_FIXTURES);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    ct_graph_init(&f4->g, 7, NULL);
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char name;
        int s, d;
        double meas, pred, prog, st;
        if (line[0] == '#' ||
            sscanf(line, " %c %d %d %lf %lf %lf %lf", &name, &s, &d, &meas, &pred, &prog, &st) != 7)
            continue;
        ct_graph_add(&f4->g, s, d, 1, 4.0 * 1024 * 1024, NULL);
        f4->predicted_s[n] = pred, f4->completion[n] = prog, f4->stat[n] = st;
        n++;
    }
    fclose(f);
    assert_int_equal(n, 6);
}

static const ct_penalty_model gige = {
    .kind = CT_MODEL_GIGE,
    .real = {[CT_GIGE_SHARE] = 0.75, [CT_GIGE_SKEW_IN] = 0.036, [CT_GIGE_SKEW_OUT] = 0.115}};

static void test_fig4_units_of_tref(void **state)
{
    (void)state;
    fig4 f4;
    load_fig4(&f4);
    double alone[6] = {1, 1, 1, 1, 1, 1}, fin[6];
    ct_err err = {{0}};
    assert_int_equal(ct_progressive_times(&gige, &f4.g, alone, fin, &err), 0);
    /* the vectors print 5-6 significant digits */
    for (int i = 0; i < 6; i++)
        assert_true(fabs(fin[i] - f4.completion[i]) < 1e-5);
    ct_graph_free(&f4.g);
}

static void test_fig4_seconds(void **state)
{
    (void)state;
    fig4 f4;
    load_fig4(&f4);
    double alone[6], fin[6];
    for (int i = 0; i < 6; i++)
        alone[i] = TREF;
    assert_int_equal(ct_progressive_times(&gige, &f4.g, alone, fin, NULL), 0);
    for (int i = 0; i < 6; i++) /* the paper's "Predicted T [s]" column, 3 decimals */
        assert_int_equal((long)lround(fin[i] * 1000), (long)lround(f4.predicted_s[i] * 1000));
    /* c: its static penalty alone would give 2.7675 * t_ref = 0.1315 s, which
     * the paper does not print; the progressive 0.1128 s rounds to its 0.113 */
    assert_true(fabs(f4.stat[2] - 2.7675) < 1e-9);
    assert_true(lround(f4.stat[2] * TREF * 1000) != lround(f4.predicted_s[2] * 1000));
    assert_true(fabs(fin[2] - f4.stat[2] * TREF) > 0.015);
    ct_graph_free(&f4.g);
}

/* Fair share, fan-out 2 with unequal sizes: both at 1/2 until the short one
 * (work 1) ends at t = 2; the long one has 1 left at full rate: t = 3. */
static void test_fairshare_unequal(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 3, NULL);
    ct_graph_add(&g, 0, 1, 1, 1.0, NULL);
    ct_graph_add(&g, 0, 2, 1, 2.0, NULL);
    ct_penalty_model fs = {.kind = CT_MODEL_FAIRSHARE};
    double alone[2] = {1.0, 2.0}, fin[2];
    assert_int_equal(ct_progressive_times(&fs, &g, alone, fin, NULL), 0);
    assert_true(fabs(fin[0] - 2.0) < 1e-12 && fabs(fin[1] - 3.0) < 1e-12);
    ct_penalty_model none = {.kind = CT_MODEL_NONE};
    assert_int_equal(ct_progressive_times(&none, &g, alone, fin, NULL), 0);
    assert_true(fin[0] == 1.0 && fin[1] == 2.0);
    ct_graph_free(&g);
}

/* Stop & Go on Fig. 6's graph: d, e, f (penalty 2.5) finish at 2.5, having
 * let a, b, c (penalty 5) do half their work; a, b, c are then a fan-out of
 * three (penalty 3) with 0.5 left: 2.5 + 1.5 = 4. */
static void test_stopgo_fig6(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 7, NULL);
    int arcs[][2] = {{0, 1}, {0, 2}, {0, 3}, {4, 1}, {5, 1}, {4, 6}};
    for (int i = 0; i < 6; i++)
        ct_graph_add(&g, arcs[i][0], arcs[i][1], 1, 1.0, NULL);
    ct_penalty_model sg = CT_STOPGO_MODEL(CT_STOPGO_EXACT, 0);
    double alone[6] = {1, 1, 1, 1, 1, 1}, fin[6], want[6] = {4, 4, 4, 2.5, 2.5, 2.5};
    assert_int_equal(ct_progressive_times(&sg, &g, alone, fin, NULL), 0);
    for (int i = 0; i < 6; i++)
        assert_true(fabs(fin[i] - want[i]) < 1e-12);
    ct_graph_free(&g);
}

/* An arc of mult 2 is two simultaneous communications: they finish together,
 * later than one alone; zero-length communications finish at 0. */
static void test_mult_and_zero(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 3, NULL);
    ct_graph_add(&g, 0, 1, 2, 1.0, NULL);
    ct_graph_add(&g, 2, 1, 1, 0.0, NULL);
    double alone[2] = {1.0, 0.0}, fin[2];
    assert_int_equal(ct_progressive_times(&gige, &g, alone, fin, NULL), 0);
    assert_true(fabs(fin[0] - 1.5) < 1e-12); /* 2 outgoing: 2β = 1.5 */
    assert_true(fin[1] == 0.0);
    ct_graph_free(&g);
}

/* The engine as first written (before the incremental rewrite): every
 * completion re-applies the model to every arc in flight and advances every
 * arc. Kept here, verbatim in behaviour, as the reference the event-batched,
 * incremental engine must reproduce. */
static int reference_times(const ct_penalty_model *m, const ct_graph *g, const double *alone,
                           double *finish)
{
    const size_t n = g->ncomm;
    unsigned char *active = malloc(n ? n : 1);
    double *rem = malloc((n ? n : 1) * sizeof *rem);
    double *p = malloc((n ? n : 1) * sizeof *p);
    assert_true(active && rem && p);
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        rem[i] = alone[i];
        active[i] = alone[i] > 0;
        finish[i] = 0.0;
        left += active[i];
    }
    double t = 0.0;
    int rc = 0;
    while (left > 0) {
        if (ct_penalties_active(m, g, active, p, NULL) < 0) {
            rc = -1;
            break;
        }
        double dt = INFINITY;
        for (size_t i = 0; i < n; i++)
            if (active[i] && rem[i] * p[i] < dt)
                dt = rem[i] * p[i];
        t += dt;
        for (size_t i = 0; i < n; i++) {
            if (!active[i])
                continue;
            if (rem[i] * p[i] <= dt * (1.0 + 1e-9)) {
                active[i] = 0;
                finish[i] = t;
                left--;
            } else {
                rem[i] -= dt / p[i];
            }
        }
    }
    free(active), free(rem), free(p);
    return rc;
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A random graph: nn nodes, up to na arcs with multiplicities 1-4 (some
 * node pairs repeated with other sizes), alone times from a small set when
 * `ties` (many simultaneous completions) or continuous otherwise, a few 0. */
static void random_case(ct_graph *g, double *alone, int32_t nn, size_t na, int ties)
{
    ct_graph_init(g, nn, NULL);
    for (size_t i = 0; i < na; i++) {
        int32_t s = (int32_t)(rnd() % (uint64_t)nn), d;
        do
            d = (int32_t)(rnd() % (uint64_t)nn);
        while (d == s);
        int64_t mult = 1 + (int64_t)(rnd() % 4);
        double a = ties ? (double)(1 + rnd() % 3) : 0.1 + (double)(rnd() % 100000) / 1e4;
        if (rnd() % 23 == 0)
            a = 0.0;
        assert_int_equal(ct_graph_add(g, s, d, mult, a, NULL), 0);
        alone[g->ncomm - 1] = a;
    }
}

/* The rewritten engine reproduces the reference on random graphs: GigE
 * (both readings of p_i), fair share and none on up to 300 arcs, Stop & Go
 * (exact and scalable) on small graphs; with ties and without. Tolerance:
 * 1e-9 relative (the two differ by the order of floating-point updates). */
static void test_matches_reference_random(void **state)
{
    (void)state;
    ct_penalty_model models[6] = {
        gige,
        gige,
        {.kind = CT_MODEL_FAIRSHARE},
        {.kind = CT_MODEL_NONE},
        CT_STOPGO_MODEL(CT_STOPGO_EXACT, 0),
        CT_STOPGO_MODEL(CT_STOPGO_SCALABLE, 7),
    };
    models[1].integer[CT_GIGE_FLAGS] = CT_GIGE_LITERAL_PI;
    rng_state = 20261122;
    size_t compared = 0, events_below_arcs = 0;
    for (int mi = 0; mi < 6; mi++) {
        int small = models[mi].kind == CT_MODEL_STOPGO;
        for (int trial = 0; trial < (small ? 12 : 40); trial++) {
            int32_t nn = 2 + (int32_t)(rnd() % (small ? 6 : 40));
            size_t na = 1 + rnd() % (small ? 9 : 300);
            int ties = trial % 2;
            double alone[300], fin[300], want[300];
            ct_graph g;
            random_case(&g, alone, nn, na, ties);
            ct_err err = {{0}};
            ct_progressive_stats st;
            if (reference_times(&models[mi], &g, alone, want) < 0) {
                ct_graph_free(&g); /* e.g. exact Stop & Go refusing: not this test's topic */
                continue;
            }
            assert_int_equal(ct_progressive_times_ex(&models[mi], &g, alone, fin, 0, &st, &err), 0);
            for (size_t i = 0; i < g.ncomm; i++)
                if (!(fabs(fin[i] - want[i]) <= 1e-9 * fabs(want[i])))
                    fail_msg("model %d trial %d arc %zu (%d->%d x%lld): %.17g, reference %.17g", mi,
                             trial, i, (int)g.comm[i].src, (int)g.comm[i].dst,
                             (long long)g.comm[i].mult, fin[i], want[i]);
            compared += g.ncomm;
            events_below_arcs += ties && st.events < g.ncomm;
            ct_graph_free(&g);
        }
    }
    assert_true(compared > 10000);
    assert_true(events_below_arcs > 20); /* simultaneous completions were batched */
}

/* Coalesced graphs (pattern-like: one arc per node pair, large mult) and a
 * dense all-to-all with equal sizes: batches of hundreds of completions. */
static void test_matches_reference_dense(void **state)
{
    (void)state;
    for (int32_t nn = 3; nn <= 24; nn += 7) {
        ct_graph g;
        ct_graph_init(&g, nn, NULL);
        for (int32_t s = 0; s < nn; s++)
            for (int32_t d = 0; d < nn; d++)
                if (s != d)
                    ct_graph_add(&g, s, d, 1 + (s * 7 + d * 3) % 5, 1.0, NULL);
        double *alone = malloc(g.ncomm * sizeof *alone), *fin = malloc(g.ncomm * sizeof *fin),
               *want = malloc(g.ncomm * sizeof *want);
        assert_true(alone && fin && want);
        for (size_t i = 0; i < g.ncomm; i++)
            alone[i] = 1e-3 * (double)(1 + i % 3);
        for (unsigned flags = 0; flags <= CT_GIGE_LITERAL_PI; flags += CT_GIGE_LITERAL_PI) {
            ct_penalty_model m = gige;
            m.integer[CT_GIGE_FLAGS] = flags;
            assert_int_equal(reference_times(&m, &g, alone, want), 0);
            assert_int_equal(ct_progressive_times(&m, &g, alone, fin, NULL), 0);
            for (size_t i = 0; i < g.ncomm; i++) /* 1e-9 relative, as above */
                assert_true(fabs(fin[i] - want[i]) <= 1e-9 * want[i]);
        }
        free(alone), free(fin), free(want);
        ct_graph_free(&g);
    }
}

/* The work bound: a bound below the first evaluation gives up with 1 (no
 * error); no bound, or a generous one, gives the same times. */
static void test_work_bound(void **state)
{
    (void)state;
    fig4 f4;
    load_fig4(&f4);
    double alone[6] = {1, 1, 1, 1, 1, 1}, fin[6], fin2[6];
    ct_progressive_stats st;
    ct_err err = {{0}};
    assert_int_equal(ct_progressive_times_ex(&gige, &f4.g, alone, fin, 3, &st, &err), 1);
    assert_int_equal(ct_progressive_times_ex(&gige, &f4.g, alone, fin, 0, &st, &err), 0);
    assert_true(st.events >= 3 && st.events <= 6); /* a and b finish together */
    assert_true(st.evals >= 6);
    assert_int_equal(ct_progressive_times_ex(&gige, &f4.g, alone, fin2, st.evals, NULL, &err), 0);
    for (int i = 0; i < 6; i++)
        assert_true(fin[i] == fin2[i]);
    ct_graph_free(&f4.g);
}

static void test_rejects(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 2, NULL);
    ct_graph_add(&g, 0, 1, 1, 1.0, NULL);
    double alone[1] = {-1.0}, fin[1];
    ct_err err = {{0}};
    assert_int_equal(ct_progressive_times(&gige, &g, alone, fin, &err), -1);
    assert_non_null(strstr(err.msg, "accepted"));
    alone[0] = 1.0;
    ct_penalty_model bad = gige;
    bad.real[CT_GIGE_SHARE] = -2;
    assert_int_equal(ct_progressive_times(&bad, &g, alone, fin, &err), -1);
    assert_non_null(strstr(err.msg, "beta"));
    ct_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig4_units_of_tref), cmocka_unit_test(test_fig4_seconds),
        cmocka_unit_test(test_fairshare_unequal),  cmocka_unit_test(test_stopgo_fig6),
        cmocka_unit_test(test_mult_and_zero),      cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_matches_reference_random),
        cmocka_unit_test(test_matches_reference_dense),
        cmocka_unit_test(test_work_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
