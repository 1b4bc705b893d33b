/* Fitting (papers 000/002 §V): Hockney alpha/beta from ping-pongs, the
 * Alltoall signature gamma, delta, M by least squares, its diagnostics and
 * the unsaturated-reference warning (000 §6.3, 002 §V-C). */
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

/* Deterministic noise (xorshift64*, fixed seeds): the same numbers on every libc. */
static uint64_t rng_state;
static double uniform_pm1(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 0x2545F4914F6CDD1DULL;
    return (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* The model written out independently of the library (alltoall.h formula):
 * T = (n-1) alpha + t(n-t) (m beta gamma + [m >= M] delta) + t(t-1) m / bw. */
static double truth(int32_t nodes, int32_t t, double m, double alpha, double beta, double gamma,
                    double delta, double M, double bw)
{
    double n = (double)nodes * t;
    double T = (n - 1) * alpha + t * (n - t) * (m * beta * gamma + (m >= M ? delta : 0.0));
    if (bw > 0)
        T += t * (t - 1.0) * m / bw;
    return T;
}

static const double sizes[] = {256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const int32_t layouts[][2] = {{8, 1}, {16, 1}, {24, 1}, {32, 1}, {8, 2}, {6, 4}};
#define NLAYOUTS (sizeof layouts / sizeof layouts[0])

/* One sample per (layout, size), time * (1 + noise * U[-1, 1]). */
static size_t make_samples(ct_a2a_sample *s, const pub_sig *p, double noise, double bw,
                           uint64_t seed)
{
    rng_state = seed;
    size_t n = 0;
    for (size_t l = 0; l < NLAYOUTS; l++)
        for (size_t k = 0; k < NSIZES; k++) {
            s[n].nodes = layouts[l][0];
            s[n].tasks_per_node = layouts[l][1];
            s[n].m = sizes[k];
            double T = truth(s[n].nodes, s[n].tasks_per_node, s[n].m, p->alpha, p->beta,
                             p->sig.gamma, p->sig.delta, p->sig.M, bw);
            s[n].t = T * (1.0 + noise * uniform_pm1());
            n++;
        }
    return n;
}

/* 000 §V: recover each published signature from noisy synthetic runs.
 * Noise: uniform +-2 % per sample (fixed seeds 1..5). Tolerances: gamma
 * within 4 %, delta within 2 %, M exact; for Myrinet (published delta = 0)
 * any fitted delta stays below 2 % of one message's cost at its M, i.e.
 * under the noise, which is what 000 §VI-C reports ("delta < 1 us"). */
static void test_recover_published_noisy(void **state)
{
    (void)state;
    pub_sig sig[8];
    size_t ns = load_sigs(sig, 8);
    assert_int_equal(ns, 4);
    ct_a2a_sample s[NLAYOUTS * NSIZES];
    for (size_t k = 0; k < ns; k++)
        for (uint64_t seed = 1; seed <= 5; seed++) {
            size_t n = make_samples(s, &sig[k], 0.02, 0, 0x9E3779B97F4A7C15ULL * seed);
            ct_a2a_sig out;
            ct_fit_diag d;
            ct_err err = {{0}};
            int rc = ct_fit_signature(s, n, sig[k].alpha, sig[k].beta, 0, NULL, 0, &out, &d, &err);
            if (rc != 0)
                print_error("%s: %s\n", sig[k].name, err.msg);
            assert_int_equal(rc, 0);
            char what[96];
            snprintf(what, sizeof what, "%.60s seed %d gamma", sig[k].name, (int)seed);
            close_rel(out.gamma, sig[k].sig.gamma, 0.04, what);
            if (sig[k].sig.delta > 0) {
                snprintf(what, sizeof what, "%.60s seed %d delta", sig[k].name, (int)seed);
                close_rel(out.delta, sig[k].sig.delta, 0.02, what);
                assert_true(out.M == sig[k].sig.M);
            } else if (out.delta > 0) {
                double cost = sig[k].alpha + out.M * sig[k].beta * out.gamma;
                assert_true(out.delta < 0.02 * cost);
            }
            /* the fit explains the data down to the noise */
            assert_true(d.max_rel_err < 0.03);
            assert_true(d.r2 > 0.999);
            assert_int_equal(d.unsaturated, 0);
            assert_int_equal(d.npoints, n);
        }
}

/* Without noise the fit is exact, also with several tasks per node and an
 * intra-node bandwidth (tolerance 1e-9 relative). */
static void test_recover_exact_layout_aware(void **state)
{
    (void)state;
    pub_sig sig[8];
    size_t ns = load_sigs(sig, 8);
    ct_a2a_sample s[NLAYOUTS * NSIZES];
    for (size_t k = 0; k < ns; k++) {
        size_t n = make_samples(s, &sig[k], 0, 2e9, 1);
        ct_a2a_sig out;
        ct_fit_diag d;
        ct_err err = {{0}};
        assert_int_equal(
            ct_fit_signature(s, n, sig[k].alpha, sig[k].beta, 2e9, NULL, 0, &out, &d, &err), 0);
        close_rel(out.gamma, sig[k].sig.gamma, 1e-9, "exact gamma");
        if (sig[k].sig.delta > 0) {
            close_rel(out.delta, sig[k].sig.delta, 1e-9, "exact delta");
            assert_true(out.M == sig[k].sig.M);
        } else {
            assert_true(out.delta < 1e-15);
        }
        assert_true(d.max_rel_err < 1e-9);
        close_rel(d.r2, 1.0, 1e-12, "exact r2");
        assert_string_equal(d.warning, "");
    }
}

/* Ignoring intra_bw when the data contain it (or the reverse) is a model
 * error the diagnostics must show. */
static void test_wrong_intra_bw_shows_in_diag(void **state)
{
    (void)state;
    pub_sig sig[8];
    load_sigs(sig, 8);
    ct_a2a_sample s[NLAYOUTS * NSIZES];
    size_t n = make_samples(s, &sig[1], 0, 2e8, 1); /* slow memory: 200 MB/s */
    ct_a2a_sig out;
    ct_fit_diag d;
    assert_int_equal(ct_fit_signature(s, n, sig[1].alpha, sig[1].beta, 0, NULL, 0, &out, &d, NULL),
                     0);
    assert_true(d.max_rel_err > 0.01);
}

static void test_candidates_and_ties(void **state)
{
    (void)state;
    pub_sig sig[8];
    load_sigs(sig, 8);
    const pub_sig *fe = &sig[0];
    ct_a2a_sample s[NLAYOUTS * NSIZES];
    size_t n = make_samples(s, fe, 0, 0, 1);
    ct_a2a_sig out;
    ct_fit_diag d;
    ct_err err = {{0}};
    /* explicit candidates, unsorted */
    const double c1[] = {8192, 1024, 2048, 4096};
    assert_int_equal(ct_fit_signature(s, n, fe->alpha, fe->beta, 0, c1, 4, &out, &d, &err), 0);
    assert_true(out.M == 2048);
    close_rel(out.delta, fe->sig.delta, 1e-9, "delta with candidates");
    /* 1500 and 2048 split the measured sizes (..., 1024 | 2048, ...) the same
     * way: equal residuals, and the documented tie rule keeps the smaller M */
    const double c2[] = {2048, 1500};
    assert_int_equal(ct_fit_signature(s, n, fe->alpha, fe->beta, 0, c2, 2, &out, &d, &err), 0);
    assert_true(out.M == 1500);
    /* a threshold above every sample: delta is not identifiable -> 0, M = 0 */
    const double c3[] = {1e9};
    assert_int_equal(ct_fit_signature(s, n, fe->alpha, fe->beta, 0, c3, 1, &out, &d, &err), 0);
    assert_true(out.delta == 0.0);
    assert_true(out.M == 0.0);
    assert_true(out.gamma > 0);
    assert_true(d.max_rel_err > 0.5); /* the 8.23 ms jump cannot be explained by gamma alone */
}

static void test_residuals_match_diag(void **state)
{
    (void)state;
    pub_sig sig[8];
    load_sigs(sig, 8);
    ct_a2a_sample s[NLAYOUTS * NSIZES];
    size_t n = make_samples(s, &sig[1], 0.02, 0, 77);
    ct_a2a_sig out;
    ct_fit_diag d;
    assert_int_equal(ct_fit_signature(s, n, sig[1].alpha, sig[1].beta, 0, NULL, 0, &out, &d, NULL),
                     0);
    double rel[NLAYOUTS * NSIZES], mx = 0, mean = 0, ss = 0;
    ct_fit_residuals(s, n, sig[1].alpha, sig[1].beta, 0, &out, rel);
    for (size_t i = 0; i < n; i++) {
        mx = fmax(mx, fabs(rel[i]));
        mean += fabs(rel[i]) / (double)n;
        ss += (rel[i] * s[i].t) * (rel[i] * s[i].t);
    }
    close_rel(d.max_rel_err, mx, 1e-12, "max rel err");
    close_rel(d.mean_abs_rel_err, mean, 1e-12, "mean abs rel err");
    close_rel(d.rmse, sqrt(ss / (double)n), 1e-9, "rmse");
    assert_true(d.mean_abs_rel_err <= d.max_rel_err);
    assert_true(d.mean_abs_rel_err > 0.002); /* noise is there */
    /* residual definition: (pred - meas) / meas; a 10 % slower sample */
    ct_a2a_sample one = s[0];
    double r0;
    ct_fit_residuals(&one, 1, sig[1].alpha, sig[1].beta, 0, &out, &r0);
    one.t *= 1.1;
    double r1;
    ct_fit_residuals(&one, 1, sig[1].alpha, sig[1].beta, 0, &out, &r1);
    close_rel(r1, (1 + r0) / 1.1 - 1, 1e-12, "residual definition");
}

/* 000 §6.3 / 002 §V-C: Myrinet saturates only past ~40 processes. Synthetic runs whose
 * contention grows with n until 48 processes make the relative error trend
 * with n: the warning must fire; on clean data it must not. */
static void test_unsaturated_warning(void **state)
{
    (void)state;
    const double alpha = 7e-6, beta = 1.0 / 250e6, gamma = 2.49754;
    ct_a2a_sample s[64];
    size_t n = 0;
    rng_state = 12345;
    for (int32_t nodes = 8; nodes <= 40; nodes += 8)
        for (size_t k = 2; k < NSIZES; k++) {
            double geff = 1.0 + (gamma - 1.0) * fmin(1.0, nodes / 48.0);
            s[n] = (ct_a2a_sample){.nodes = nodes, .tasks_per_node = 1, .m = sizes[k], .t = 0};
            s[n].t =
                truth(nodes, 1, sizes[k], alpha, beta, geff, 0, 0, 0) * (1 + 0.01 * uniform_pm1());
            n++;
        }
    ct_a2a_sig out;
    ct_fit_diag d;
    assert_int_equal(ct_fit_signature(s, n, alpha, beta, 0, NULL, 0, &out, &d, NULL), 0);
    assert_int_equal(d.unsaturated, 1);
    assert_true(d.rel_err_slope < 0); /* over-predicts few processes, under-predicts many */
    assert_non_null(strstr(d.warning, "saturate"));

    /* clean: constant gamma, 2 % noise, same process counts */
    n = 0;
    rng_state = 12345;
    for (int32_t nodes = 8; nodes <= 40; nodes += 8)
        for (size_t k = 2; k < NSIZES; k++) {
            s[n] = (ct_a2a_sample){.nodes = nodes, .tasks_per_node = 1, .m = sizes[k], .t = 0};
            s[n].t =
                truth(nodes, 1, sizes[k], alpha, beta, gamma, 0, 0, 0) * (1 + 0.02 * uniform_pm1());
            n++;
        }
    assert_int_equal(ct_fit_signature(s, n, alpha, beta, 0, NULL, 0, &out, &d, NULL), 0);
    assert_int_equal(d.unsaturated, 0);
    assert_string_equal(d.warning, "");
    assert_true(fabs(d.rel_err_slope) * 32 < CT_FIT_TREND_MIN);

    /* one process count (the papers' protocol): no trend can be computed */
    n = 0;
    for (size_t k = 0; k < NSIZES; k++) {
        s[n] = (ct_a2a_sample){.nodes = 24, .tasks_per_node = 1, .m = sizes[k], .t = 0};
        s[n].t = truth(24, 1, sizes[k], alpha, beta, gamma, 0, 0, 0);
        n++;
    }
    assert_int_equal(ct_fit_signature(s, n, alpha, beta, 0, NULL, 0, &out, &d, NULL), 0);
    assert_int_equal(d.unsaturated, 0);
    assert_non_null(strstr(d.warning, "one process count"));
}

static void expect_fail(const ct_a2a_sample *s, size_t n, double alpha, double beta, double bw,
                        const double *cand, size_t nc, const char *needle)
{
    ct_a2a_sig out;
    ct_fit_diag d;
    ct_err err = {{0}};
    assert_int_equal(ct_fit_signature(s, n, alpha, beta, bw, cand, nc, &out, &d, &err), -1);
    if (!strstr(err.msg, needle)) {
        print_error("message '%s' lacks '%s'\n", err.msg, needle);
        fail();
    }
}

static void test_signature_rejects_bad_input(void **state)
{
    (void)state;
    ct_a2a_sample good[5] = {
        {8, 1, 1024, 0.01, 0, 0, 0},  {8, 1, 4096, 0.02, 0, 0, 0},  {16, 1, 1024, 0.02, 0, 0, 0},
        {16, 1, 4096, 0.04, 0, 0, 0}, {24, 1, 8192, 0.09, 0, 0, 0},
    };
    ct_a2a_sample s[5];
    const double a = 50e-6, b = 8e-9;
    expect_fail(good, 3, a, b, 0, NULL, 0, "3 Alltoall samples (accepted: at least 4");
    expect_fail(NULL, 5, a, b, 0, NULL, 0, "at least 4");
    memcpy(s, good, sizeof s);
    s[2].t = -0.5;
    expect_fail(s, 5, a, b, 0, NULL, 0, "sample 2: t = -0.5");
    s[2].t = 0;
    expect_fail(s, 5, a, b, 0, NULL, 0, "sample 2: t = 0");
    s[2].t = NAN;
    expect_fail(s, 5, a, b, 0, NULL, 0, "sample 2: t = nan");
    memcpy(s, good, sizeof s);
    s[4].m = INFINITY;
    expect_fail(s, 5, a, b, 0, NULL, 0, "sample 4: m = inf");
    s[4].m = 0;
    expect_fail(s, 5, a, b, 0, NULL, 0, "sample 4: m = 0");
    memcpy(s, good, sizeof s);
    s[1].nodes = 0;
    expect_fail(s, 5, a, b, 0, NULL, 0, "sample 1: nodes = 0");
    memcpy(s, good, sizeof s);
    s[3].tasks_per_node = -2;
    expect_fail(s, 5, a, b, 0, NULL, 0, "sample 3: tasks_per_node = -2");
    memcpy(s, good, sizeof s);
    s[0].nodes = 1;
    expect_fail(s, 5, a, b, 0, NULL, 0, "sample 0: 1 process");
    expect_fail(good, 5, -1e-6, b, 0, NULL, 0, "alpha = -1e-06");
    expect_fail(good, 5, NAN, b, 0, NULL, 0, "alpha = nan");
    /* alpha = 0, what ct_fit_hockney clamps a negative start-up time to, fits */
    {
        ct_a2a_sig out;
        ct_fit_diag d;
        ct_err err = {{0}};
        assert_int_equal(ct_fit_signature(good, 5, 0, b, 0, NULL, 0, &out, &d, &err), 0);
        assert_true(out.gamma > 0);
    }
    expect_fail(good, 5, a, NAN, 0, NULL, 0, "beta = nan");
    expect_fail(good, 5, a, b, NAN, NULL, 0, "intra_bw");
    const double badc[] = {1024, -3};
    expect_fail(good, 5, a, b, 0, badc, 2, "M candidate 1 = -3");
    memcpy(s, good, sizeof s);
    for (int i = 0; i < 5; i++)
        s[i].m = 4096;
    expect_fail(s, 5, a, b, 0, NULL, 0, "two distinct sizes");
    /* times falling with the message size: gamma would be negative */
    ct_a2a_sample fall[4] = {
        {8, 1, 1024, 0.04, 0, 0, 0},
        {8, 1, 65536, 0.01, 0, 0, 0},
        {16, 1, 1024, 0.08, 0, 0, 0},
        {16, 1, 65536, 0.02, 0, 0, 0},
    };
    expect_fail(fall, 4, a, b, 0, NULL, 0, "gamma <= 0");
}

/* Hockney: exact on noise-free ping-pongs, within 2 % (alpha) and 1 %
 * (beta) under +-2 % noise (fixed seed), and refuses bad input. */
static void test_fit_hockney(void **state)
{
    (void)state;
    const double alpha = 60e-6, beta = 8e-8;
    ct_p2p_sample s[12];
    size_t n = 0;
    for (double m = 0; n < 12; m = m ? m * 4 : 1)
        s[n++] = (ct_p2p_sample){m, alpha + m * beta, 0};
    double a, b;
    ct_fit_diag d;
    ct_err err = {{0}};
    assert_int_equal(ct_fit_hockney(s, n, &a, &b, &d, &err), 0);
    close_rel(a, alpha, 1e-9, "alpha exact");
    close_rel(b, beta, 1e-9, "beta exact");
    assert_true(d.max_rel_err < 1e-9);
    assert_string_equal(d.warning, "");

    rng_state = 99;
    for (size_t i = 0; i < n; i++)
        s[i].t = (alpha + s[i].m * beta) * (1 + 0.02 * uniform_pm1());
    assert_int_equal(ct_fit_hockney(s, n, &a, &b, &d, &err), 0);
    close_rel(a, alpha, 0.02, "alpha noisy");
    close_rel(b, beta, 0.01, "beta noisy");
    assert_true(d.max_rel_err < 0.04);

    /* two points: allowed, with a warning */
    ct_p2p_sample two[2] = {{0, 1e-4, 0}, {1e6, 1.1e-3, 0}};
    assert_int_equal(ct_fit_hockney(two, 2, &a, &b, &d, &err), 0);
    close_rel(a, 1e-4, 1e-9, "alpha 2 points");
    close_rel(b, 1e-9, 1e-9, "beta 2 points");
    assert_non_null(strstr(d.warning, "fewer than 4"));

    /* negative intercept: clamped to 0 with a warning */
    ct_p2p_sample neg[4] = {{1000, 0.5e-6, 0}, {2000, 2e-6, 0}, {4000, 5e-6, 0}, {8000, 11e-6, 0}};
    assert_int_equal(ct_fit_hockney(neg, 4, &a, &b, &d, &err), 0);
    assert_true(a == 0.0);
    assert_true(b > 0);
    assert_non_null(strstr(d.warning, "alpha clamped"));

    ct_p2p_sample bad[4] = {{0, 1e-4, 0}, {1024, 2e-4, 0}, {2048, -1, 0}, {4096, 4e-4, 0}};
    assert_int_equal(ct_fit_hockney(bad, 4, &a, &b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "sample 2: t = -1"));
    bad[2] = (ct_p2p_sample){-5, 1e-4, 0};
    assert_int_equal(ct_fit_hockney(bad, 4, &a, &b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "sample 2: m = -5"));
    bad[2] = (ct_p2p_sample){NAN, 1e-4, 0};
    assert_int_equal(ct_fit_hockney(bad, 4, &a, &b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "sample 2: m = nan"));
    assert_int_equal(ct_fit_hockney(s, 1, &a, &b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "at least 2"));
    ct_p2p_sample same[3] = {{64, 1e-4, 0}, {64, 2e-4, 0}, {64, 3e-4, 0}};
    assert_int_equal(ct_fit_hockney(same, 3, &a, &b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "two distinct sizes"));
    ct_p2p_sample down[3] = {{64, 3e-4, 0}, {128, 2e-4, 0}, {256, 1e-4, 0}};
    assert_int_equal(ct_fit_hockney(down, 3, &a, &b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "beta"));
}

/* alpha with beta known (osu_bw's peak), weights 1/t^2 as ct_fit_hockney */
static void test_fit_hockney_alpha(void **state)
{
    (void)state;
    double alpha = -1;
    ct_fit_diag d;
    ct_err err = {{0}};
    /* exact Hockney data: the intercept comes back, r2 = 1 */
    ct_p2p_sample line[] = {{0, 50e-6, 0}, {1024, 50e-6 + 1024 * 8e-9, 0}, {1048576, 50e-6 + 1048576 * 8e-9, 0}};
    assert_int_equal(ct_fit_hockney_alpha(line, 3, 8e-9, &alpha, &d, &err), 0);
    assert_float_equal(alpha, 50e-6, 50e-6 * 1e-12);
    assert_int_equal(d.npoints, 3);
    assert_float_equal(d.r2, 1.0, 1e-12);
    assert_true(d.max_rel_err < 1e-12);
    /* by hand: t = 1 and 2 at m = 0, w = 1 and 1/4:
     * alpha = (1*1 + 2/4) / (1 + 1/4) = 1.2 (not the plain mean 1.5) */
    ct_p2p_sample two[] = {{0, 1.0, 0}, {0, 2.0, 0}};
    assert_int_equal(ct_fit_hockney_alpha(two, 2, 1e-9, &alpha, &d, &err), 0);
    assert_float_equal(alpha, 1.2, 1e-15);
    /* |1.2-1|/1 = 0.2, |1.2-2|/2 = 0.4 */
    assert_float_equal(d.max_rel_err, 0.4, 1e-15);
    assert_float_equal(d.mean_abs_rel_err, 0.3, 1e-15);
    /* a negative intercept is clamped at 0 */
    ct_p2p_sample fast[] = {{1000, 1e-6, 0}};
    assert_int_equal(ct_fit_hockney_alpha(fast, 1, 1e-8, &alpha, NULL, &err), 0);
    assert_true(alpha == 0.0);
    /* refusals */
    assert_int_equal(ct_fit_hockney_alpha(line, 0, 8e-9, &alpha, NULL, &err), -1);
    assert_int_equal(ct_fit_hockney_alpha(line, 3, 0, &alpha, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "beta = 0"));
    assert_int_equal(ct_fit_hockney_alpha(line, 3, NAN, &alpha, NULL, &err), -1);
    ct_p2p_sample zero_t[] = {{0, 1e-6, 0}, {64, 0, 0}};
    assert_int_equal(ct_fit_hockney_alpha(zero_t, 2, 1e-9, &alpha, NULL, &err), -1);
    assert_true(strlen(err.msg) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recover_published_noisy),
        cmocka_unit_test(test_recover_exact_layout_aware),
        cmocka_unit_test(test_wrong_intra_bw_shows_in_diag),
        cmocka_unit_test(test_candidates_and_ties),
        cmocka_unit_test(test_residuals_match_diag),
        cmocka_unit_test(test_unsaturated_warning),
        cmocka_unit_test(test_signature_rejects_bad_input),
        cmocka_unit_test(test_fit_hockney),
        cmocka_unit_test(test_fit_hockney_alpha),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
