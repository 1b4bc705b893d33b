/* pLogP collectives (paper 003): broadcast (Table 1), scatter (Table 2),
 * All-to-All bounds (Table 3), segment search and strategy selection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "contention/alltoall.h"
#include "contention/plogp.h"
#include "ct_test_util.h"

/* Hand values are computed in microseconds with exact decimals: 1e-12 relative. */
#define RTOL 1e-12
#define US 1e-6

/* g(m): 10 us at 0 B, 30 us at 1000 B, 90 us at 3000 B (slopes 0.02 and 0.03 us/B) */
static const double tm[] = {0, 1000, 3000};
static const double tg[] = {10 * US, 30 * US, 90 * US};
static const ct_plogp net = {{3, tm, tg}, 5 * US};

static void test_gap_interpolation(void **state)
{
    (void)state;
    const ct_gap_table *t = &net.gap;
    assert_int_equal(ct_gap_check(t, NULL), 0);
    close_rel(ct_gap_eval(t, 0), 10 * US, RTOL, "g(0)");
    close_rel(ct_gap_eval(t, 1), 10.02 * US, RTOL, "g(1)");
    close_rel(ct_gap_eval(t, 500), 20 * US, RTOL, "g(500)");
    close_rel(ct_gap_eval(t, 1000), 30 * US, RTOL, "g(1000) on a point");
    close_rel(ct_gap_eval(t, 2000), 60 * US, RTOL, "g(2000)");
    /* beyond the table: the last segment continued, 90 + 0.03 * 1000 */
    close_rel(ct_gap_eval(t, 4000), 120 * US, RTOL, "g(4000) extrapolated");
    close_rel(ct_gap_eval(t, 5000), 150 * US, RTOL, "g(5000) extrapolated");

    /* below the first point: first segment continued, floored at 0 */
    const double m2[] = {100, 200}, g2[] = {5 * US, 7 * US};
    ct_gap_table t2 = {2, m2, g2};
    close_rel(ct_gap_eval(&t2, 50), 4 * US, RTOL, "g(50) below table");
    const double g3[] = {1 * US, 11 * US};
    ct_gap_table t3 = {2, m2, g3};
    assert_true(ct_gap_eval(&t3, 0) == 0.0);
    /* a falling last segment is held flat beyond the table */
    const double m4[] = {0, 1000, 2000}, g4[] = {10 * US, 30 * US, 20 * US};
    ct_gap_table t4 = {3, m4, g4};
    close_rel(ct_gap_eval(&t4, 1500), 25 * US, RTOL, "g(1500) falling segment");
    close_rel(ct_gap_eval(&t4, 5000), 20 * US, RTOL, "g(5000) held");
    /* one point: constant */
    ct_gap_table t5 = {1, m2, g2};
    close_rel(ct_gap_eval(&t5, 1e6), 5 * US, RTOL, "single point");
}

static void test_gap_check_rejects(void **state)
{
    (void)state;
    ct_err err = {{0}};
    ct_gap_table empty = {0, tm, tg};
    assert_int_equal(ct_gap_check(&empty, &err), -1);
    assert_non_null(strstr(err.msg, "empty"));
    const double mu[] = {0, 1000, 1000}, g[] = {1e-5, 2e-5, 3e-5};
    ct_gap_table unsorted = {3, mu, g};
    assert_int_equal(ct_gap_check(&unsorted, &err), -1);
    assert_non_null(strstr(err.msg, "point 2: m = 1000 after m = 1000"));
    const double mn[] = {0, 10, 20}, gn[] = {1e-5, -2e-5, 3e-5};
    ct_gap_table neg = {3, mn, gn};
    assert_int_equal(ct_gap_check(&neg, &err), -1);
    assert_non_null(strstr(err.msg, "point 1: g = -2e-05"));
    const double mnan[] = {0, NAN};
    ct_gap_table nanm = {2, mnan, g};
    assert_int_equal(ct_gap_check(&nanm, &err), -1);
    assert_non_null(strstr(err.msg, "point 1: m = nan"));
}

/* 003 Table 1, P = 6 (floor log2 = 2, ceil log2 = 3), m = 2000 (g = 60 us),
 * s = 500 (g = 20 us, k = 4), L = 5 us, g(1) = 10.02 us. */
static void test_broadcast_table1_hand(void **state)
{
    (void)state;
    const struct {
        ct_bcast_strategy st;
        double us;
        const char *calc;
    } want[] = {
        {CT_BCAST_FLAT, 305, "5*60 + 5"},
        {CT_BCAST_FLAT_RDV, 335.04, "5*60 + 2*10.02 + 3*5"},
        {CT_BCAST_SEG_FLAT, 405, "5*(20*4) + 5"},
        {CT_BCAST_CHAIN, 325, "5*(60 + 5)"},
        {CT_BCAST_CHAIN_RDV, 475.2, "5*(60 + 2*10.02 + 3*5)"},
        {CT_BCAST_SEG_CHAIN, 185, "5*(20 + 5) + 20*3"},
        {CT_BCAST_BINARY, 375, "3*(2*60 + 5)"},
        {CT_BCAST_BINOMIAL, 135, "2*60 + 3*5"},
        {CT_BCAST_BINOMIAL_RDV, 225.12, "2*60 + 3*(2*10.02 + 3*5)"},
        {CT_BCAST_SEG_BINOMIAL, 175, "2*20*4 + 3*5"},
    };
    assert_int_equal(sizeof want / sizeof want[0], CT_BCAST_COUNT);
    for (size_t i = 0; i < CT_BCAST_COUNT; i++) {
        double T = -1;
        ct_err err = {{0}};
        assert_int_equal(ct_plogp_bcast(&net, want[i].st, 6, 2000, 500, &T, &err), 0);
        close_rel(T, want[i].us * US, RTOL, want[i].calc);
    }
    /* unsegmented strategies ignore s */
    double T1, T2;
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_FLAT, 6, 2000, 1, &T1, NULL), 0);
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_FLAT, 6, 2000, 2000, &T2, NULL), 0);
    assert_true(T1 == T2);
    /* a segment that does not divide m: k = ceil(2000/600) = 4, g(600) = 22 us:
     * seg-chain 5*(22 + 5) + 22*3 = 201 us */
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_SEG_CHAIN, 6, 2000, 600, &T1, NULL), 0);
    close_rel(T1, 201 * US, RTOL, "seg-chain s=600");
    /* P a power of two: floor = ceil = 3; binomial P = 8: 3*60 + 3*5 = 195 us */
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_BINOMIAL, 8, 2000, 0, &T1, NULL), 0);
    close_rel(T1, 195 * US, RTOL, "binomial P=8");
}

static void test_broadcast_metadata(void **state)
{
    (void)state;
    int upper = 0, seg = 0;
    for (int st = 0; st < CT_BCAST_COUNT; st++) {
        assert_non_null(ct_bcast_name((ct_bcast_strategy)st));
        upper += ct_bcast_is_upper_bound((ct_bcast_strategy)st);
        seg += ct_bcast_is_segmented((ct_bcast_strategy)st);
    }
    assert_int_equal(upper, 1); /* only the Binary Tree row is printed with <= */
    assert_true(ct_bcast_is_upper_bound(CT_BCAST_BINARY));
    assert_int_equal(seg, 3);
    assert_null(ct_bcast_name(CT_BCAST_COUNT));
    assert_string_equal(ct_bcast_name(CT_BCAST_SEG_CHAIN), "seg-chain");
    for (int st = 0; st < CT_SCATTER_COUNT; st++)
        assert_non_null(ct_scatter_name((ct_scatter_strategy)st));
    assert_null(ct_scatter_name(CT_SCATTER_COUNT));
}

/* 003 Table 2, P = 6 (ceil log2 = 3), m = 1000 (g = 30 us), L = 5 us. */
static void test_scatter_table2_hand(void **state)
{
    (void)state;
    const struct {
        ct_scatter_strategy st;
        double us;
        const char *calc;
    } want[] = {
        {CT_SCATTER_FLAT, 155, "5*30 + 5"},
        {CT_SCATTER_CHAIN, 475, "g(1000)+g(2000)+g(3000)+g(4000)+g(5000) + 5*5 = 450 + 25"},
        {CT_SCATTER_PIPELINED_CHAIN, 175, "5*(30 + 5)"},
        {CT_SCATTER_BINOMIAL, 225, "g(1000)+g(2000)+g(4000) + 3*5 = 210 + 15"},
    };
    assert_int_equal(sizeof want / sizeof want[0], CT_SCATTER_COUNT);
    for (size_t i = 0; i < CT_SCATTER_COUNT; i++) {
        double T = -1;
        assert_int_equal(ct_plogp_scatter(&net, want[i].st, 6, 1000, &T, NULL), 0);
        close_rel(T, want[i].us * US, RTOL, want[i].calc);
    }
}

/* 003 §3: s = m / 2^i. Seg-chain, P = 6, m = 2000: s = 2000 -> 325, 1000 ->
 * 5*35 + 30 = 205, 500 -> 185, 250 -> 5*20 + 15*7 = 205, 125 -> 275 (us). */
static void test_segment_search(void **state)
{
    (void)state;
    double s, T;
    ct_err err = {{0}};
    assert_int_equal(ct_plogp_best_segment(&net, CT_BCAST_SEG_CHAIN, 6, 2000, &s, &T, &err), 0);
    assert_true(s == 500);
    close_rel(T, 185 * US, RTOL, "best seg-chain");
    /* argmin over every candidate s = ceil(m / 2^i), i = 0..floor(log2 m) */
    const ct_bcast_strategy segs[] = {CT_BCAST_SEG_FLAT, CT_BCAST_SEG_CHAIN, CT_BCAST_SEG_BINOMIAL};
    const double ms[] = {1, 2, 3, 1000, 2000, 3000, 65536, 100000};
    const int64_t Ps[] = {2, 6, 17, 64};
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < sizeof ms / sizeof ms[0]; b++)
            for (size_t c = 0; c < sizeof Ps / sizeof Ps[0]; c++) {
                assert_int_equal(ct_plogp_best_segment(&net, segs[a], Ps[c], ms[b], &s, &T, &err),
                                 0);
                double min = INFINITY;
                int ncand = 0;
                for (int i = 0; ldexp(1.0, i) <= ms[b]; i++) {
                    double si = ceil(ldexp(ms[b], -i)), Ti;
                    assert_int_equal(ct_plogp_bcast(&net, segs[a], Ps[c], ms[b], si, &Ti, NULL), 0);
                    min = fmin(min, Ti);
                    ncand++;
                }
                assert_true(ncand >= 1);
                assert_true(T == min);
                double Ts;
                assert_int_equal(ct_plogp_bcast(&net, segs[a], Ps[c], ms[b], s, &Ts, NULL), 0);
                assert_true(Ts == T);
            }
    /* ties go to the largest s: with g proportional to size, seg-binomial
     * costs floor(log2 P) * g(m) + ceil(log2 P) * L for every s dividing m
     * (exactly, in binary floating point, for s = 8192 / 2^i) */
    const double pm[] = {0, 10000}, pg[] = {0, 200 * US};
    const ct_plogp lin = {{2, pm, pg}, 1 * US};
    assert_int_equal(ct_plogp_best_segment(&lin, CT_BCAST_SEG_BINOMIAL, 16, 8192, &s, &T, &err), 0);
    assert_true(s == 8192);
    close_rel(T, (4 * 163.84 + 4) * US, 1e-9, "seg-binomial tie");

    assert_int_equal(ct_plogp_best_segment(&net, CT_BCAST_BINOMIAL, 6, 2000, &s, &T, &err), -1);
    assert_non_null(strstr(err.msg, "not segmented"));
}

static void test_selectors(void **state)
{
    (void)state;
    ct_plogp_choice c;
    ct_err err = {{0}};
    /* P = 6, m = 2000: binomial 135 us beats seg-chain 185; seg-binomial also
     * reaches 135 at s = m and ties go to the lower id (the unsegmented form) */
    assert_int_equal(ct_plogp_bcast_best(&net, 6, 2000, &c, &err), 0);
    assert_int_equal(c.strategy, CT_BCAST_BINOMIAL);
    close_rel(c.time, 135 * US, RTOL, "best bcast");
    assert_true(c.segment == 0);
    assert_int_equal(c.upper_bound, 0);

    /* gap proportional to size (0.02 us/B), L = 1 us, P = 16, m = 8192: the
     * pipeline wins with 1-byte segments: 15*(0.02 + 1) + 0.02*8191 = 179.12 us
     * (binomial: 4*163.84 + 4*1 = 659.36 us) */
    const double pm[] = {0, 10000}, pg[] = {0, 200 * US};
    const ct_plogp lin = {{2, pm, pg}, 1 * US};
    assert_int_equal(ct_plogp_bcast_best(&lin, 16, 8192, &c, &err), 0);
    assert_int_equal(c.strategy, CT_BCAST_SEG_CHAIN);
    assert_true(c.segment == 1);
    close_rel(c.time, 179.12 * US, 1e-9, "best bcast pipeline");

    /* the selector returns the minimum over every strategy */
    const double ms[] = {1, 100, 2000, 50000};
    const int64_t Ps[] = {2, 3, 6, 33, 128};
    for (size_t a = 0; a < sizeof ms / sizeof ms[0]; a++)
        for (size_t b = 0; b < sizeof Ps / sizeof Ps[0]; b++) {
            assert_int_equal(ct_plogp_bcast_best(&net, Ps[b], ms[a], &c, &err), 0);
            for (int st = 0; st < CT_BCAST_COUNT; st++) {
                double T, s;
                if (ct_bcast_is_segmented((ct_bcast_strategy)st))
                    assert_int_equal(ct_plogp_best_segment(&net, (ct_bcast_strategy)st, Ps[b],
                                                           ms[a], &s, &T, NULL),
                                     0);
                else
                    assert_int_equal(
                        ct_plogp_bcast(&net, (ct_bcast_strategy)st, Ps[b], ms[a], 0, &T, NULL), 0);
                assert_true(c.time <= T);
            }
            ct_plogp_choice sc;
            assert_int_equal(ct_plogp_scatter_best(&net, Ps[b], ms[a], &sc, &err), 0);
            for (int st = 0; st < CT_SCATTER_COUNT; st++) {
                double T;
                assert_int_equal(
                    ct_plogp_scatter(&net, (ct_scatter_strategy)st, Ps[b], ms[a], &T, NULL), 0);
                assert_true(sc.time <= T);
            }
        }

    /* scatter: P = 6, m = 1000: flat 155 us */
    assert_int_equal(ct_plogp_scatter_best(&net, 6, 1000, &c, &err), 0);
    assert_int_equal(c.strategy, CT_SCATTER_FLAT);
    close_rel(c.time, 155 * US, RTOL, "best scatter");
    /* large fixed gap (100 us + 1e-4 us/B), P = 64, m = 100, L = 5 us: binomial
     * sum_{j=0}^{5} g(2^j*100) + 6*5 = 600 + 0.63 + 30 = 630.63 us */
    const double fm[] = {0, 1e6}, fg[] = {100 * US, 200 * US};
    const ct_plogp fixed = {{2, fm, fg}, 5 * US};
    assert_int_equal(ct_plogp_scatter_best(&fixed, 64, 100, &c, &err), 0);
    assert_int_equal(c.strategy, CT_SCATTER_BINOMIAL);
    close_rel(c.time, 630.63 * US, 1e-9, "best scatter binomial");
}

static void test_rejects_bad_input(void **state)
{
    (void)state;
    double T;
    ct_err err = {{0}};
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_FLAT, 1, 2000, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "P = 1"));
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_FLAT, (int64_t)1 << 40, 2000, 0, &T, &err), -1);
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_FLAT, 6, 0, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "m = 0"));
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_FLAT, 6, NAN, 0, &T, &err), -1);
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_SEG_CHAIN, 6, 2000, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "s = 0"));
    assert_int_equal(ct_plogp_bcast(&net, CT_BCAST_SEG_FLAT, 6, 2000, 4000, &T, &err), -1);
    assert_non_null(strstr(err.msg, "0 < s <= m"));
    assert_int_equal(ct_plogp_bcast(&net, (ct_bcast_strategy)42, 6, 2000, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "strategy 42"));
    assert_int_equal(ct_plogp_scatter(&net, (ct_scatter_strategy)-1, 6, 2000, &T, &err), -1);
    ct_plogp badL = net;
    badL.L = -1;
    assert_int_equal(ct_plogp_scatter(&badL, CT_SCATTER_FLAT, 6, 2000, &T, &err), -1);
    assert_non_null(strstr(err.msg, "L = -1"));
    ct_plogp_choice c;
    assert_int_equal(ct_plogp_bcast_best(NULL, 6, 2000, &c, &err), -1);
}

/* 003 Table 3 and §5.1, P = 24, g = 1 ms, o_s = 0.2 ms, o_r = 0.3 ms, L = 50 us:
 * upper = 23*1e-3 + 23*3e-4 + 5e-5 = 0.02995; lower = 23*2e-4 + 23*3e-4 + 5e-5 = 0.01155;
 * T = lower + (upper - lower) * 2/3 = 0.01155 + 0.0184*2/3. */
static void test_alltoall_bounds(void **state)
{
    (void)state;
    close_rel(ct_plogp_a2a_upper(24, 1e-3, 3e-4, 5e-5), 0.02995, RTOL, "upper");
    close_rel(ct_plogp_a2a_lower(24, 2e-4, 3e-4, 5e-5), 0.01155, RTOL, "lower");
    close_rel(ct_plogp_a2a(24, 1e-3, 2e-4, 3e-4, 5e-5, 2.0 / 3.0), 0.01155 + 0.0184 * 2.0 / 3.0,
              RTOL, "gamma 2/3");
    close_rel(ct_plogp_a2a(24, 1e-3, 2e-4, 3e-4, 5e-5, 0), 0.01155, RTOL, "gamma 0");
    close_rel(ct_plogp_a2a(24, 1e-3, 2e-4, 3e-4, 5e-5, 1), 0.02995, RTOL, "gamma 1");
    assert_true(ct_plogp_a2a(1, 1e-3, 2e-4, 3e-4, 5e-5, 2.0 / 3.0) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gap_interpolation),
        cmocka_unit_test(test_gap_check_rejects),
        cmocka_unit_test(test_broadcast_table1_hand),
        cmocka_unit_test(test_broadcast_metadata),
        cmocka_unit_test(test_scatter_table2_hand),
        cmocka_unit_test(test_segment_search),
        cmocka_unit_test(test_selectors),
        cmocka_unit_test(test_rejects_bad_input),
        cmocka_unit_test(test_alltoall_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
