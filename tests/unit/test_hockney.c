/* Hockney point-to-point model (papers 000/002 §III). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "contention/hockney.h"

/* relative tolerance 1e-12: the values below are exact decimal arithmetic */
#define RTOL 1e-12

static void test_hockney_hand_values(void **state)
{
    (void)state;
    /* 000 §6.1 Fast Ethernet: alpha ~ 60 us, 100 Mbit/s = 12.5 MB/s -> beta = 80 ns/byte.
     * 1 KiB: 60e-6 + 1024 * 8e-8 = 60e-6 + 81.92e-6 = 141.92e-6 s */
    assert_float_equal(ct_hockney(60e-6, 8e-8, 1024), 141.92e-6, 141.92e-6 * RTOL);
    /* zero bytes costs the start-up alone */
    assert_float_equal(ct_hockney(60e-6, 8e-8, 0), 60e-6, 60e-6 * RTOL);
    /* 1 MiB on GigE (125 MB/s, beta = 8 ns/B), alpha 50 us: 50e-6 + 1048576 * 8e-9 = 8.438608e-3 */
    assert_float_equal(ct_hockney(50e-6, 8e-9, 1048576), 8.438608e-3, 8.438608e-3 * RTOL);
}

static void test_hockney_linear_in_m(void **state)
{
    (void)state;
    double a = 12e-6, b = 3.2e-9;
    for (double m = 1; m < 1e8; m *= 7) {
        double d = ct_hockney(a, b, 2 * m) - ct_hockney(a, b, m);
        assert_float_equal(d, m * b, m * b * 1e-9);
    }
}

static void test_beta_from_bandwidth(void **state)
{
    (void)state;
    assert_float_equal(ct_hockney_beta_from_bw(12.5e6), 8e-8, 8e-8 * RTOL);
    assert_float_equal(ct_hockney_beta_from_bw(125e6), 8e-9, 8e-9 * RTOL);
    assert_true(ct_hockney_beta_from_bw(0) == 0.0);
    assert_true(ct_hockney_beta_from_bw(-5) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hockney_hand_values),
        cmocka_unit_test(test_hockney_linear_in_m),
        cmocka_unit_test(test_beta_from_bandwidth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
