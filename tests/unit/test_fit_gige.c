/* GigE parameter estimation, paper 001 §V-A (fit_gige.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contention/fit.h"
#include "ct_test_util.h"

/* beta from Fig. 2's pure outgoing conflicts: 1.5/2 = 2.25/3 = 0.75. */
static void test_beta_fig2(void **state)
{
    (void)state;
    fig2_row rows[8];
    size_t n = load_fig2(rows, 8);
    int k[8];
    double pen[8];
    for (size_t i = 0; i < n; i++) {
        k[i] = rows[i].k;
        pen[i] = rows[i].gige;
    }
    assert_int_equal(n, 3);
    double beta = 0;
    ct_err err = {{0}};
    assert_int_equal(ct_fit_gige_beta(k, pen, n, &beta, &err), 0);
    assert_true(fabs(beta - 0.75) < 1e-12);
    /* the mean over k >= 2: (2.0/2 + 2.4/3) / 2 = 0.9 */
    int k2[] = {2, 3};
    double p2[] = {2.0, 2.4};
    assert_int_equal(ct_fit_gige_beta(k2, p2, 2, &beta, &err), 0);
    assert_true(fabs(beta - 0.9) < 1e-12);
}

static void test_beta_rejects(void **state)
{
    (void)state;
    double beta = -1;
    ct_err err = {{0}};
    int k1[] = {1};
    double p1[] = {1.0};
    assert_int_equal(ct_fit_gige_beta(k1, p1, 1, &beta, &err), -1);
    assert_non_null(strstr(err.msg, "k >= 2"));
    assert_int_equal(ct_fit_gige_beta(k1, p1, 0, &beta, &err), -1);
    int k0[] = {0, 2};
    double pp[] = {1.0, 1.5};
    assert_int_equal(ct_fit_gige_beta(k0, pp, 2, &beta, &err), -1);
    assert_non_null(strstr(err.msg, "k = 0"));
    int k2[] = {2, 3};
    double bad[] = {1.5, NAN};
    assert_int_equal(ct_fit_gige_beta(k2, bad, 2, &beta, &err), -1);
    bad[1] = -2.0;
    assert_int_equal(ct_fit_gige_beta(k2, bad, 2, &beta, &err), -1);
    assert_true(beta == -1); /* untouched on failure */
}

/* The Fig. 4 times the model itself gives for a and f, 3β(1-γ)t_ref, return
 * the published gammas for any t_ref. */
static void test_gammas_round_trip(void **state)
{
    (void)state;
    double trefs[] = {0.047517, 1.0, 3e-3};
    for (int i = 0; i < 3; i++) {
        double t = trefs[i], gi = 0, go = 0;
        double ta = 3 * 0.75 * (1 - 0.115) * t, tf = 3 * 0.75 * (1 - 0.036) * t;
        assert_int_equal(ct_fit_gige_gammas(0.75, t, ta, tf, &gi, &go, NULL), 0);
        assert_true(fabs(go - 0.115) < 1e-12 && fabs(gi - 0.036) < 1e-12);
    }
}

/* What the paper's printed numbers allow (documented in doc/models-penalty.md):
 *  - from the printed measured t_a = 0.095 s, t_f = 0.103 s no single t_ref
 *    gives both gammas to 3 decimals (gamma_o = 0.115 needs t_ref near
 *    0.04771 s, gamma_i = 0.036 near 0.04749 s);
 *  - with t_ref = 0.047517 s (the value that reproduces the Predicted column),
 *    the printed times give gamma_o = 0.1114, gamma_i = 0.0366, and the
 *    published gammas correspond to t_a = 0.094618 s, t_f = 0.103064 s, which
 *    print as 0.095 and 0.103: consistent with rounded measurements. */
static void test_gammas_fig4(void **state)
{
    (void)state;
    double gi, go;
    assert_int_equal(ct_fit_gige_gammas(0.75, 0.047517, 0.095, 0.103, &gi, &go, NULL), 0);
    assert_true(fabs(go - 0.1114) < 1e-4);
    assert_true(fabs(gi - 0.0366) < 1e-4);
    assert_int_equal(ct_fit_gige_gammas(0.75, 0.047517, 0.094618, 0.103064, &gi, &go, NULL), 0);
    assert_true(fabs(go - 0.115) < 1e-5 && fabs(gi - 0.036) < 1e-5);
    assert_int_equal(lround(0.094618 * 1000), 95);
    assert_int_equal(lround(0.103064 * 1000), 103);
    /* t_ref fitted to gamma_o misses gamma_i, and the other way round */
    assert_int_equal(ct_fit_gige_gammas(0.75, 0.095 / (2.25 * 0.885), 0.095, 0.103, &gi, &go, NULL),
                     0);
    assert_true(fabs(go - 0.115) < 1e-12 && fabs(gi - 0.036) > 0.004);
    assert_int_equal(ct_fit_gige_gammas(0.75, 0.103 / (2.25 * 0.964), 0.095, 0.103, &gi, &go, NULL),
                     0);
    assert_true(fabs(gi - 0.036) < 1e-12 && fabs(go - 0.115) > 0.004);
}

static void test_gammas_reject(void **state)
{
    (void)state;
    double gi = 7, go = 7;
    ct_err err = {{0}};
    assert_int_equal(ct_fit_gige_gammas(0.0, 0.05, 0.09, 0.1, &gi, &go, &err), -1);
    assert_non_null(strstr(err.msg, "beta"));
    assert_int_equal(ct_fit_gige_gammas(0.75, -1, 0.09, 0.1, &gi, &go, &err), -1);
    assert_non_null(strstr(err.msg, "t_ref"));
    assert_int_equal(ct_fit_gige_gammas(0.75, 0.05, NAN, 0.1, &gi, &go, &err), -1);
    assert_non_null(strstr(err.msg, "t_a"));
    /* t_f above 3βt_ref would make gamma_i negative */
    assert_int_equal(ct_fit_gige_gammas(0.75, 0.05, 0.09, 0.2, &gi, &go, &err), -1);
    assert_non_null(strstr(err.msg, "t_f"));
    assert_true(gi == 7 && go == 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_beta_fig2),         cmocka_unit_test(test_beta_rejects),
        cmocka_unit_test(test_gammas_round_trip), cmocka_unit_test(test_gammas_fig4),
        cmocka_unit_test(test_gammas_reject),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
