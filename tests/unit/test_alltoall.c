/* Alltoall contention signature (papers 000/002): Proposition 1, eq. 4,
 * eq. 5, and the layout-aware form for several tasks per node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contention/alltoall.h"
#include "ct_test_util.h"

/* Hand-computed values below are exact decimal arithmetic: relative 1e-12. */
#define RTOL 1e-12

/* Published signatures: load_sigs (ct_test_util.h). */
static void test_prop1_hand(void **state)
{
    (void)state;
    /* n = 24, alpha 60 us, beta 80 ns/B, m = 4096:
     * 23*60e-6 + 23*4096*8e-8 = 1.38e-3 + 7.53664e-3 = 8.91664e-3 s */
    close_rel(ct_a2a_lower_bound(24, 60e-6, 8e-8, 4096), 8.91664e-3, RTOL, "Prop. 1");
    assert_true(ct_a2a_lower_bound(1, 60e-6, 8e-8, 4096) == 0.0);
    assert_true(ct_a2a_lower_bound(0, 60e-6, 8e-8, 4096) == 0.0);
}

static void test_eq4_eq5_hand(void **state)
{
    (void)state;
    ct_a2a_sig fe = {.gamma = 1.0195, .delta = 8.23e-3, .M = 2048}; /* 000 §6.1 Fast Ethernet */
    /* eq. 4, n = 24, m = 4096: 23*(60e-6 + 4096*8e-8*1.0195)
     *   = 23*(60e-6 + 3.3406976e-4) = 23*3.9406976e-4 = 9.06360448e-3 */
    close_rel(ct_a2a_eq4(24, 60e-6, 8e-8, 4096, 1.0195), 9.06360448e-3, RTOL, "eq. 4");
    /* eq. 5, m = 4096 >= M: + 23*8.23e-3 = 0.18929 -> 0.19835360448 */
    close_rel(ct_a2a_eq5(24, 60e-6, 8e-8, 4096, &fe), 0.19835360448, RTOL, "eq. 5 m >= M");
    /* eq. 5, m = 1024 < M: no delta; 23*(60e-6 + 8.351744e-5) = 3.30090112e-3 */
    close_rel(ct_a2a_eq5(24, 60e-6, 8e-8, 1024, &fe), 3.30090112e-3, RTOL, "eq. 5 m < M");
    /* delta applies at m == M exactly (000 eq. 5: "if m >= M") */
    double below = ct_a2a_eq5(24, 60e-6, 8e-8, 2047.999, &fe);
    double at = ct_a2a_eq5(24, 60e-6, 8e-8, 2048, &fe);
    assert_true(at - below > 23 * 8.23e-3 * 0.999);
    /* gamma = 1 and no delta: eq. 4 is Prop. 1 */
    close_rel(ct_a2a_eq4(40, 50e-6, 8e-9, 65536, 1.0), ct_a2a_lower_bound(40, 50e-6, 8e-9, 65536),
              RTOL, "eq. 4 at gamma 1");
}

/* The vectors test the form T = (n-1)(alpha + m beta gamma [+ delta if m >= M]). */
static void test_published_signatures_form(void **state)
{
    (void)state;
    pub_sig sig[16];
    size_t ns = load_sigs(sig, 16);
    assert_int_equal(ns, 4);
    const double sizes[] = {1, 512, 1023, 1024, 2047, 2048, 4096, 8191, 8192, 65536, 1 << 20};
    const int64_t ns_[] = {2, 8, 24, 40, 64};
    for (size_t k = 0; k < ns; k++)
        for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
            for (size_t b = 0; b < sizeof ns_ / sizeof ns_[0]; b++) {
                double m = sizes[a], n = (double)ns_[b];
                const ct_a2a_sig *s = &sig[k].sig;
                double want = (n - 1) * (sig[k].alpha + m * sig[k].beta * s->gamma +
                                         (m >= s->M ? s->delta : 0.0));
                char what[128];
                snprintf(what, sizeof what, "%.63s n=%g m=%g", sig[k].name, n, m);
                close_rel(ct_a2a_eq5(ns_[b], sig[k].alpha, sig[k].beta, m, s), want, 1e-12, what);
            }
    /* the fixture's values, as printed in the papers */
    assert_string_equal(sig[0].name, "fast_ethernet");
    close_rel(sig[0].sig.delta, 8.23e-3, RTOL, "FE delta 8.23 ms");
    close_rel(sig[1].sig.gamma, 4.3628, RTOL, "GigE gamma");
    assert_true(sig[2].sig.delta == 0.0);
    close_rel(sig[3].sig.M, 1024, RTOL, "grid M 1 KB");
}

/* One task per node: the layout-aware form IS eq. 5, bit for bit. */
static void test_layout_reduces_to_eq5(void **state)
{
    (void)state;
    pub_sig sig[16];
    size_t ns = load_sigs(sig, 16);
    int32_t ones[200];
    for (int k = 0; k < 200; k++)
        ones[k] = 1;
    const double sizes[] = {1, 100, 1024, 2048, 5000, 8192, 65536, 3e6};
    const double intra[] = {0, -1, 1e9, 5e10};
    for (size_t k = 0; k < ns; k++)
        for (int32_t n = 1; n <= 200; n += (n < 10 ? 1 : 37))
            for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
                for (size_t b = 0; b < sizeof intra / sizeof intra[0]; b++) {
                    const ct_a2a_sig *s = &sig[k].sig;
                    double e5 = ct_a2a_eq5(n, sig[k].alpha, sig[k].beta, sizes[a], s);
                    double la =
                        ct_a2a_layout(ones, n, sig[k].alpha, sig[k].beta, sizes[a], s, intra[b]);
                    double un =
                        ct_a2a_uniform(n, 1, sig[k].alpha, sig[k].beta, sizes[a], s, intra[b]);
                    if (!(la == e5 && un == e5)) {
                        print_error("%s n=%d m=%g: layout %.17g uniform %.17g eq5 %.17g\n",
                                    sig[k].name, (int)n, sizes[a], la, un, e5);
                        fail();
                    }
                    double lb = ct_a2a_layout_lower_bound(ones, n, sig[k].alpha, sig[k].beta,
                                                          sizes[a], intra[b]);
                    assert_true(lb == ct_a2a_lower_bound(n, sig[k].alpha, sig[k].beta, sizes[a]));
                }
}

static void test_layout_hand(void **state)
{
    (void)state;
    ct_a2a_sig fe = {.gamma = 1.0195, .delta = 8.23e-3, .M = 2048};
    double a = 60e-6, b = 8e-8, m = 4096, bw = 1e9;
    /* c = m b gamma + delta = 3.3406976e-4 + 8.23e-3 = 8.56406976e-3 per message */
    /* 4 nodes x 2 tasks: n = 8, r = 2*(8-2) = 12, intra 2*1*4096/1e9 = 8.192e-6:
     * 7*60e-6 + 12*8.56406976e-3 + 8.192e-6 = 4.2e-4 + 0.10276883712 + 8.192e-6 */
    int32_t two[4] = {2, 2, 2, 2};
    close_rel(ct_a2a_layout(two, 4, a, b, m, &fe, bw), 0.10319702912, RTOL, "4x2 layout");
    close_rel(ct_a2a_uniform(4, 2, a, b, m, &fe, bw), 0.10319702912, RTOL, "4x2 uniform");
    /* intra-node time ignored when intra_bw <= 0 */
    close_rel(ct_a2a_layout(two, 4, a, b, m, &fe, 0), 0.10318883712, RTOL, "4x2 no intra");
    /* uneven {3, 1}: n = 4, r = 3*1 = 3 on both nodes, intra on node 0 = 3*2*4096/1e9:
     * 3*60e-6 + 3*8.56406976e-3 + 2.4576e-5 = 1.8e-4 + 0.02569220928 + 2.4576e-5 */
    int32_t uneven[2] = {3, 1};
    close_rel(ct_a2a_layout(uneven, 2, a, b, m, &fe, bw), 0.02589678528, RTOL, "{3,1}");
    /* empty nodes change nothing */
    int32_t sparse[7] = {0, 3, 0, 0, 1, 0, 0};
    assert_true(ct_a2a_layout(sparse, 7, a, b, m, &fe, bw) ==
                ct_a2a_layout(uneven, 2, a, b, m, &fe, bw));
    /* one node: no network, only memory: (4-1)*alpha + 4*3*m/bw */
    int32_t one[1] = {4};
    close_rel(ct_a2a_layout(one, 1, a, b, m, &fe, bw), 3 * a + 12 * m / bw, RTOL, "one node");
}

/* gamma(k, f) = gamma + gamma_incast (k-1) + gamma_flows (f-1), this
 * project's extension: with both coefficients 0 it is the constant gamma of
 * 000 eq. 5 bit for bit; otherwise each node's port gets its own gamma. */
static void test_incast_gamma(void **state)
{
    (void)state;
    ct_a2a_sig s = {.gamma = 1.1, .delta = 1e-3, .M = 4096, .gamma_incast = 0.2, .gamma_flows = 0.01};
    assert_true(ct_a2a_gamma_at(&s, 1, 1) == 1.1);
    close_rel(ct_a2a_gamma_at(&s, 3, 12), 1.1 + 0.4 + 0.11, RTOL, "gamma(3, 12)");
    double a = 60e-6, b = 8e-8, m = 65536;
    /* 4 nodes x 2 tasks: k = 3, f = r = 2*(8-2) = 12: gamma = 1.61;
     * T = 7 a + 12 (m b 1.61 + 1e-3) = 4.2e-4 + 12 * (8.4410752e-3 + 1e-3) */
    close_rel(ct_a2a_uniform(4, 2, a, b, m, &s, 0), 4.2e-4 + 12 * (65536 * 8e-8 * 1.61 + 1e-3),
              RTOL, "4x2 incast");
    int32_t two[4] = {2, 2, 2, 2};
    assert_true(ct_a2a_layout(two, 4, a, b, m, &s, 0) == ct_a2a_uniform(4, 2, a, b, m, &s, 0));
    /* uneven {3, 1, 0}: k = 1 on both used nodes (the empty one does not count),
     * f = r = 3 on both: gamma = 1.1 + 0.02 = 1.12 */
    int32_t uneven[3] = {3, 1, 0};
    close_rel(ct_a2a_layout(uneven, 3, a, b, m, &s, 0), 3 * a + 3 * (m * b * 1.12 + 1e-3), RTOL,
              "{3,1,0}");
    /* the published form: coefficients 0 -> eq. 5 exactly, at any layout */
    ct_a2a_sig p = {.gamma = 1.1, .delta = 1e-3, .M = 4096};
    for (int32_t n = 2; n <= 24; n += 11)
        assert_true(ct_a2a_uniform(n, 1, a, b, m, &p, 0) == ct_a2a_eq5(n, a, b, m, &p));
    /* the bound stays the contention-free one (gamma = 1, no delta) */
    close_rel(ct_a2a_layout_lower_bound(two, 4, a, b, m, 0), 7 * a + 12 * m * b, RTOL, "bound");
    /* checked refuses a negative coefficient and a negative time */
    ct_err err;
    double T;
    s.gamma_flows = -0.1;
    assert_int_equal(ct_a2a_layout_checked(two, 4, a, b, m, &s, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "gamma_flows = -0.1"));
    s.gamma_flows = 0.01;
    assert_int_equal(ct_a2a_layout_checked(two, 4, -1e-3, b, m, &s, 0, &T, &err), 0);
    assert_int_equal(ct_a2a_layout_checked(two, 4, -1e-2, b, m, &s, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "alpha = -0.01"));
}

/* The busiest NIC sets the time: t tasks per node multiply the NIC's load by
 * t(n-t)/(n-1) over eq. 4/5 with n = all tasks. */
static void test_layout_vs_eq5_with_total_tasks(void **state)
{
    (void)state;
    ct_a2a_sig s = {.gamma = 1.0195, .delta = 0, .M = 0};
    double a = 60e-6, b = 8e-8, m = 1 << 20;
    for (int32_t t = 2; t <= 4; t++) {
        int32_t N = 8, n = N * t;
        double lay = ct_a2a_uniform(N, t, a, b, m, &s, 0);
        double e5 = ct_a2a_eq5(n, a, b, m, &s);
        double net_ratio = (lay - (n - 1) * a) / (e5 - (n - 1) * a);
        close_rel(net_ratio, (double)t * (n - t) / (n - 1), 1e-12, "NIC load ratio");
        assert_true(lay > 1.5 * e5);
    }
    /* a spread layout costs less than a packed one for the same tasks */
    int32_t packed[4] = {4, 4, 0, 0}, spread[4] = {2, 2, 2, 2};
    assert_true(ct_a2a_layout(spread, 4, a, b, m, &s, 0) <
                ct_a2a_layout(packed, 4, a, b, m, &s, 0));
}

static void test_layout_lower_bound(void **state)
{
    (void)state;
    pub_sig sig[16];
    size_t ns = load_sigs(sig, 16);
    int32_t lay[5] = {3, 1, 4, 1, 5};
    for (size_t k = 0; k < ns; k++) {
        if (sig[k].sig.gamma < 1)
            continue;
        for (double m = 1; m < 1e7; m *= 3) {
            double lb = ct_a2a_layout_lower_bound(lay, 5, sig[k].alpha, sig[k].beta, m, 1e9);
            double t = ct_a2a_layout(lay, 5, sig[k].alpha, sig[k].beta, m, &sig[k].sig, 1e9);
            assert_true(lb <= t);
        }
    }
    /* gamma = 1, delta = 0 gives the bound itself */
    ct_a2a_sig none = {.gamma = 1, .delta = 0, .M = 0};
    assert_true(ct_a2a_layout(lay, 5, 1e-5, 1e-9, 4096, &none, 1e9) ==
                ct_a2a_layout_lower_bound(lay, 5, 1e-5, 1e-9, 4096, 1e9));
}

static void test_layout_invalid(void **state)
{
    (void)state;
    ct_a2a_sig s = {.gamma = 2, .delta = 1e-3, .M = 1024};
    int32_t bad[3] = {2, -1, 2}, zero[2] = {0, 0}, ok[2] = {2, 2};
    assert_true(isnan(ct_a2a_layout(bad, 3, 1e-5, 1e-9, 10, &s, 0)));
    assert_true(isnan(ct_a2a_layout(zero, 2, 1e-5, 1e-9, 10, &s, 0)));
    assert_true(isnan(ct_a2a_layout(NULL, 2, 1e-5, 1e-9, 10, &s, 0)));
    assert_true(isnan(ct_a2a_layout(ok, 0, 1e-5, 1e-9, 10, &s, 0)));
    assert_true(isnan(ct_a2a_uniform(0, 2, 1e-5, 1e-9, 10, &s, 0)));

    ct_err err = {{0}};
    double T = -1;
    assert_int_equal(ct_a2a_layout_checked(bad, 3, 1e-5, 1e-9, 10, &s, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "tasks[1] = -1"));
    assert_int_equal(ct_a2a_layout_checked(zero, 2, 1e-5, 1e-9, 10, &s, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "no task"));
    assert_int_equal(ct_a2a_layout_checked(ok, 2, NAN, 1e-9, 10, &s, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "alpha = nan"));
    ct_a2a_sig neg = {.gamma = -1, .delta = 0, .M = 0};
    assert_int_equal(ct_a2a_layout_checked(ok, 2, 1e-5, 1e-9, 10, &neg, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "gamma = -1"));
    assert_int_equal(ct_a2a_layout_checked(ok, 2, 1e-5, 1e-9, 10, &s, NAN, &T, &err), -1);
    assert_non_null(strstr(err.msg, "intra_bw"));
    assert_int_equal(ct_a2a_layout_checked(ok, 2, 1e-5, 1e-9, 10, &s, 0, &T, &err), 0);
    assert_true(T == ct_a2a_layout(ok, 2, 1e-5, 1e-9, 10, &s, 0));
}

/* The per-call step (alltoall.h, our extension): once a call that crosses
 * the network, on the busiest node's share; none on one node; a negative
 * step (a refilled token bucket) floors the network part at 0; eq. 5 (the
 * papers' formula) does not see it. */
static void test_call_step(void **state)
{
    (void)state;
    double a = 50e-6, b = 8e-8, m = 262144, intra = 1e9;
    ct_a2a_sig s = {.gamma = 1.1, .delta = 1e-3, .M = 0, .gamma_incast = 0.05};
    ct_a2a_sig c = s;
    c.call = 2.5e-3;
    int32_t lay[3] = {3, 1, 2};
    close_rel(ct_a2a_layout(lay, 3, a, b, m, &c, intra),
              ct_a2a_layout(lay, 3, a, b, m, &s, intra) + 2.5e-3, 1e-12, "+step, uneven");
    close_rel(ct_a2a_uniform(4, 2, a, b, m, &c, intra),
              ct_a2a_uniform(4, 2, a, b, m, &s, intra) + 2.5e-3, 1e-12, "+step, uniform");
    assert_true(ct_a2a_uniform(4, 2, a, b, m, &c, intra) ==
                ct_a2a_layout((int32_t[]){2, 2, 2, 2}, 4, a, b, m, &c, intra));
    /* one node: no network, no step (3 alpha + 12 m / intra) */
    close_rel(ct_a2a_uniform(1, 4, a, b, m, &c, intra), 3 * a + 12 * m / intra, 1e-12,
              "one node");
    assert_true(ct_a2a_layout((int32_t[]){4, 0}, 2, a, b, m, &c, intra) ==
                ct_a2a_uniform(1, 4, a, b, m, &s, intra));
    /* a negative step: 2 x 1 of 4 KiB carries 4096 b (1.1) + 1 ms = 1.36 ms
     * of network time; a -3 ms step leaves alpha alone, not less */
    c.call = -3e-3;
    close_rel(ct_a2a_uniform(2, 1, a, b, 4096, &c, 0), a, 1e-12, "floored at 0");
    close_rel(ct_a2a_uniform(2, 1, a, b, m, &c, 0), a + m * b * 1.1 + 1e-3 - 3e-3, 1e-12,
              "above the floor");
    /* eq. 5, the papers' formula, ignores it */
    assert_true(ct_a2a_eq5(8, a, b, m, &c) == ct_a2a_eq5(8, a, b, m, &s));
    /* checked: either sign, finite */
    ct_err err;
    double T;
    assert_int_equal(ct_a2a_layout_checked(lay, 3, a, b, m, &c, intra, &T, &err), 0);
    c.call = NAN;
    assert_int_equal(ct_a2a_layout_checked(lay, 3, a, b, m, &c, intra, &T, &err), -1);
    assert_non_null(strstr(err.msg, "call step = nan"));
}

/* k_max, f_max (session 16): each incast term holds beyond the k, f it was
 * fitted up to; 0 = no limit (eq. 5's signatures and fits before). */
static void test_gamma_held_beyond_fit(void **state)
{
    (void)state;
    ct_a2a_sig s = {.gamma = 1.0, .gamma_incast = 0.1, .gamma_flows = 0.01};
    close_rel(ct_a2a_gamma_at(&s, 63, 48), 1.0 + 0.1 * 62 + 0.01 * 47, 1e-12, "no limit");
    s.k_max = 3;
    s.f_max = 12;
    close_rel(ct_a2a_gamma_at(&s, 63, 48), 1.0 + 0.1 * 2 + 0.01 * 11, 1e-12, "held");
    close_rel(ct_a2a_gamma_at(&s, 2, 5), 1.0 + 0.1 * 1 + 0.01 * 4, 1e-12, "within");
    /* the layout form uses it: 4 x 4 (k = 3, f = 48) priced at f = 12 */
    double a = 50e-6, b = 8e-8, m = 262144;
    close_rel(ct_a2a_uniform(4, 4, a, b, m, &s, 0), 15 * a + 48 * m * b * (1.0 + 0.2 + 0.11),
              1e-12, "4 x 4 held at f = 12");
    ct_err err;
    double T;
    s.f_max = -1;
    assert_int_equal(ct_a2a_layout_checked((int32_t[]){4, 4}, 2, a, b, m, &s, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "f_max = -1"));
}

/* The incast intercept (session 69): once a call, at a port fed by k >= 3
 * nodes, call_incast (k - 2), k held at k_max; nothing at k <= 2, nothing on
 * one node, nothing in eq. 5; uneven layouts by their incast degree (the
 * nodes holding tasks, less one). */
static void test_call_incast(void **state)
{
    (void)state;
    double a = 50e-6, b = 8e-8, m = 262144;
    ct_a2a_sig s = {.gamma = 1.1, .gamma_incast = 0.05, .call = 1e-3};
    ct_a2a_sig c = s;
    c.call_incast = 7e-3;
    /* k = 1, 2: unchanged, bit for bit */
    assert_true(ct_a2a_uniform(2, 4, a, b, m, &c, 0) == ct_a2a_uniform(2, 4, a, b, m, &s, 0));
    assert_true(ct_a2a_uniform(3, 2, a, b, m, &c, 0) == ct_a2a_uniform(3, 2, a, b, m, &s, 0));
    assert_true(ct_a2a_uniform(1, 4, a, b, m, &c, 1e9) == ct_a2a_uniform(1, 4, a, b, m, &s, 1e9));
    /* k = 3 and 5: once a call, (k - 2) times, whatever the tasks a node */
    close_rel(ct_a2a_uniform(4, 1, a, b, m, &c, 0), ct_a2a_uniform(4, 1, a, b, m, &s, 0) + 7e-3,
              1e-12, "4 x 1");
    close_rel(ct_a2a_uniform(4, 4, a, b, m, &c, 0), ct_a2a_uniform(4, 4, a, b, m, &s, 0) + 7e-3,
              1e-12, "4 x 4: not per message");
    close_rel(ct_a2a_uniform(6, 1, a, b, m, &c, 0),
              ct_a2a_uniform(6, 1, a, b, m, &s, 0) + 3 * 7e-3, 1e-12, "6 x 1");
    /* held at the fit's k_max = 3 (the incast terms' limit) */
    c.k_max = s.k_max = 3;
    close_rel(ct_a2a_uniform(8, 1, a, b, m, &c, 0), ct_a2a_uniform(8, 1, a, b, m, &s, 0) + 7e-3,
              1e-12, "8 x 1 held at k = 3");
    close_rel(ct_a2a_call_incast_share(&c, 7), 1, 1e-12, "share held");
    c.k_max = s.k_max = 0;
    close_rel(ct_a2a_call_incast_share(&c, 7), 5, 1e-12, "share, no limit");
    close_rel(ct_a2a_call_incast_share(&c, 2), 0, 1e-12, "share at k = 2");
    /* uneven: 5 nodes hold tasks (k = 4), the empty ones do not count */
    int32_t lay[6] = {3, 1, 0, 2, 1, 1};
    close_rel(ct_a2a_layout(lay, 6, a, b, m, &c, 0), ct_a2a_layout(lay, 6, a, b, m, &s, 0) + 14e-3,
              1e-12, "uneven, k = 4");
    assert_true(ct_a2a_eq5(8, a, b, m, &c) == ct_a2a_eq5(8, a, b, m, &s));
    /* checked: finite, >= 0 */
    ct_err err;
    double T;
    assert_int_equal(ct_a2a_layout_checked(lay, 6, a, b, m, &c, 0, &T, &err), 0);
    c.call_incast = -1e-3;
    assert_int_equal(ct_a2a_layout_checked(lay, 6, a, b, m, &c, 0, &T, &err), -1);
    assert_non_null(strstr(err.msg, "call_incast = -0.001"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prop1_hand),
        cmocka_unit_test(test_eq4_eq5_hand),
        cmocka_unit_test(test_published_signatures_form),
        cmocka_unit_test(test_layout_reduces_to_eq5),
        cmocka_unit_test(test_layout_hand),
        cmocka_unit_test(test_incast_gamma),
        cmocka_unit_test(test_layout_vs_eq5_with_total_tasks),
        cmocka_unit_test(test_layout_lower_bound),
        cmocka_unit_test(test_layout_invalid),
        cmocka_unit_test(test_call_step),
        cmocka_unit_test(test_gamma_held_beyond_fit),
        cmocka_unit_test(test_call_incast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
