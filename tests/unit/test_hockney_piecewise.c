/* Piecewise Hockney model (p2p.h, this project's extension of 000/002 §III):
 * the accessor, and the fit recovering known segments from bent curves with
 * noise; one-segment data reduce exactly to ct_fit_hockney. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "contention/fit.h"
#include "contention/p2p.h"
#include "ct_test_util.h"

static uint64_t rng_state;
static double uniform_pm1(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 0x2545F4914F6CDD1DULL;
    return (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* sizes 0, 1, 2, 4 ... 4 MiB, `reps` samples each, time from `truth` with
 * relative noise U[-noise, noise]. */
static size_t make(ct_p2p_sample *s, const ct_p2p_curve *truth, double noise, int reps,
                   uint64_t seed)
{
    rng_state = seed;
    size_t n = 0;
    for (double m = 0; m <= 4194304; m = m ? 2 * m : 1)
        for (int r = 0; r < reps; r++) {
            s[n].m = m;
            s[n].t = ct_p2p_time(truth, m) * (1.0 + noise * uniform_pm1());
            n++;
        }
    return n;
}

static void test_accessor(void **state)
{
    (void)state;
    ct_p2p_curve c = {3,
                      {{0, 20e-6, 1e-9}, {65536, -5e-3, 8e-8}, {1048576, 1e-3, 9e-8}}};
    double a, b;
    ct_p2p_at(&c, 0, &a, &b);
    assert_true(a == 20e-6 && b == 1e-9);
    ct_p2p_at(&c, 65535, &a, &b);
    assert_true(a == 20e-6 && b == 1e-9);
    ct_p2p_at(&c, 65536, &a, &b);
    assert_true(a == -5e-3 && b == 8e-8);
    ct_p2p_at(&c, 4e6, &a, &b);
    assert_true(a == 1e-3 && b == 9e-8);
    /* 000 §III per segment: 1 MiB -> 1e-3 + 1048576 * 9e-8 = 0.09537184 */
    close_rel(ct_p2p_time(&c, 1048576), 0.09537184, 1e-12, "time in the third segment");
    ct_err err;
    assert_int_equal(ct_p2p_check(&c, "c", &err), 0);
    /* a segment whose line is negative where it starts is refused */
    c.seg[1].alpha = -6e-3; /* -6e-3 + 65536 * 8e-8 = -7.57e-4 */
    assert_int_equal(ct_p2p_check(&c, "c", &err), -1);
    assert_non_null(strstr(err.msg, "segment 2"));
    c.seg[1].alpha = -5e-3;
    c.seg[2].from = 65536; /* not ascending */
    assert_int_equal(ct_p2p_check(&c, "c", &err), -1);
    assert_non_null(strstr(err.msg, "segment 3 starts at 65536"));
    /* no curve: zeros */
    ct_p2p_curve none = {0, {{0, 0, 0}}};
    ct_p2p_at(&none, 100, &a, &b);
    assert_true(a == 0 && b == 0);
}

/* One straight line (noisy or exact): one segment, bit for bit ct_fit_hockney. */
static void test_straight_data_is_todays_fit(void **state)
{
    (void)state;
    ct_p2p_sample s[200];
    ct_p2p_curve truth;
    ct_p2p_single(&truth, 60e-6, 8e-8);
    const double noise[] = {0.0, 0.01, 0.03};
    for (size_t k = 0; k < 3; k++) {
        size_t n = make(s, &truth, noise[k], 3, 7 + k);
        double a, b;
        ct_fit_diag d1, d2;
        ct_err err;
        assert_int_equal(ct_fit_hockney(s, n, &a, &b, &d1, &err), 0);
        ct_p2p_curve c;
        ct_p2p_seg_diag sd[CT_P2P_MAX_SEG];
        assert_int_equal(ct_fit_hockney_piecewise(s, n, NULL, &c, &d2, sd, &err), 0);
        assert_int_equal(c.nseg, 1);
        assert_true(c.seg[0].alpha == a && c.seg[0].beta == b);
        assert_true(c.seg[0].from == 0);
        assert_true(d2.r2 == d1.r2 && d2.max_rel_err == d1.max_rel_err);
        assert_int_equal(sd[0].npoints, n);
        close_rel(sd[0].max_rel_err, d1.max_rel_err, 1e-9, "segment diag = overall");
    }
}

/* A token-bucket bend: fast up to the burst (veth speed), then the line
 * rate; 1 % noise, 3 repetitions. The single line is poor (the R^2 0.59,
 * 54 % max error kind); the fit finds the two segments and the bend. */
static void test_recovers_a_bend(void **state)
{
    (void)state;
    /* t = 20 us + m / 1 GB/s below 64 KiB; continuous above at 12.5 MB/s */
    double a2 = 20e-6 + 65536 * 1e-9 - 65536 * 8e-8;
    ct_p2p_curve truth = {2, {{0, 20e-6, 1e-9}, {65536, a2, 8e-8}}};
    ct_p2p_sample s[200];
    size_t n = make(s, &truth, 0.01, 3, 11);
    double a, b;
    ct_fit_diag d1, d2;
    ct_err err;
    assert_int_equal(ct_fit_hockney(s, n, &a, &b, &d1, &err), 0);
    assert_true(d1.max_rel_err > 0.5); /* the straight line misses the small sizes badly */
    ct_p2p_curve c;
    ct_p2p_seg_diag sd[CT_P2P_MAX_SEG];
    assert_int_equal(ct_fit_hockney_piecewise(s, n, NULL, &c, &d2, sd, &err), 0);
    assert_int_equal(c.nseg, 2);
    close_rel(c.seg[0].beta, 1e-9, 0.10, "fast segment beta");
    close_rel(c.seg[0].alpha, 20e-6, 0.05, "fast segment alpha");
    close_rel(c.seg[1].beta, 8e-8, 0.02, "line-rate beta");
    /* the bend lies between the measured 32 KiB and 128 KiB, near 64 KiB */
    print_message("bend at %g bytes; max err %.3f (%.3f, %.3f)\n", c.seg[1].from, d2.max_rel_err,
                  sd[0].max_rel_err, sd[1].max_rel_err);
    assert_true(c.seg[1].from > 32768 && c.seg[1].from <= 131072);
    close_rel(c.seg[1].from, 65536, 0.15, "bend");
    assert_true(d2.max_rel_err < 0.04);
    assert_true(d2.r2 > 0.999);
    for (size_t q = 0; q < 2; q++) {
        assert_true(sd[q].npoints >= 9);
        assert_true(sd[q].max_rel_err < 0.04);
        assert_true(sd[q].r2 > 0.99);
    }
}

/* Three regimes (eager, rendezvous, a TCP-window plateau) with 2 % noise. */
static void test_recovers_three_segments(void **state)
{
    (void)state;
    double b0 = 2e-9, b1 = 1.2e-8, b2 = 2e-8;
    double t1 = 5e-6 + 8192 * b0 + 30e-6; /* a 30 us protocol switch at 8 KiB */
    double a1 = t1 - 8192 * b1;
    double a2 = a1 + 524288 * b1 - 524288 * b2;
    ct_p2p_curve truth = {3, {{0, 5e-6, b0}, {8192, a1, b1}, {524288, a2, b2}}};
    ct_p2p_sample s[200];
    size_t n = make(s, &truth, 0.02, 4, 23);
    ct_p2p_curve c;
    ct_fit_diag d;
    ct_p2p_seg_diag sd[CT_P2P_MAX_SEG];
    ct_err err;
    assert_int_equal(ct_fit_hockney_piecewise(s, n, NULL, &c, &d, sd, &err), 0);
    for (size_t q = 0; q < c.nseg; q++)
        print_message("segment %zu: from %g alpha %g beta %g (%zu points, max err %.3f)\n", q,
                      c.seg[q].from, c.seg[q].alpha, c.seg[q].beta, sd[q].npoints,
                      sd[q].max_rel_err);
    assert_int_equal(c.nseg, 3);
    close_rel(c.seg[1].beta, b1, 0.05, "middle beta");
    close_rel(c.seg[2].beta, b2, 0.03, "top beta");
    assert_true(c.seg[1].from > 4096 && c.seg[1].from <= 8192);
    close_rel(c.seg[2].from, 524288, 0.10, "second bend (continuous there)");
    for (size_t q = 0; q < 3; q++)
        assert_true(sd[q].max_rel_err < 0.08);
    assert_true(d.max_rel_err < 0.08);
    /* max_seg = 1 forces the single line */
    ct_p2p_fit_opts o;
    ct_p2p_fit_opts_default(&o);
    o.max_seg = 1;
    assert_int_equal(ct_fit_hockney_piecewise(s, n, &o, &c, &d, sd, &err), 0);
    assert_int_equal(c.nseg, 1);
}

static void test_refuses_bad_input(void **state)
{
    (void)state;
    ct_p2p_sample s[3] = {{0, 1e-5}, {1024, -1}, {2048, 3e-5}};
    ct_p2p_curve c;
    ct_err err;
    assert_int_equal(ct_fit_hockney_piecewise(s, 3, NULL, &c, NULL, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "sample 1"));
    ct_p2p_fit_opts o;
    ct_p2p_fit_opts_default(&o);
    o.max_seg = CT_P2P_MAX_SEG + 1;
    s[1].t = 2e-5;
    assert_int_equal(ct_fit_hockney_piecewise(s, 3, &o, &c, NULL, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "max_seg"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accessor),
        cmocka_unit_test(test_straight_data_is_todays_fit),
        cmocka_unit_test(test_recovers_a_bend),
        cmocka_unit_test(test_recovers_three_segments),
        cmocka_unit_test(test_refuses_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
