/* Error reporting (error.c: ct_err_set, ct_err_prefix), size parsing and
 * the time/size formatters (units.c: ct_parse_size, ct_format_*). Includes the umbrella header, so this test also
 * fails to build if one public header stops compiling beside the others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <float.h>
#include <string.h>

#include "contention/contention.h"

static void test_err_set_formats_and_returns_minus_one(void **state)
{
    (void)state;
    ct_err e = {{0}};
    assert_int_equal(ct_err_set(&e, "bad value '%s' at %d", "x", 7), -1);
    assert_string_equal(e.msg, "bad value 'x' at 7");
    /* a NULL err is allowed and still reports failure */
    assert_int_equal(ct_err_set(NULL, "ignored %d", 1), -1);
}

static void test_err_prefix_prepends(void **state)
{
    (void)state;
    ct_err e = {{0}};
    ct_err_set(&e, "unknown model 'x' (accepted: none, gige)");
    assert_int_equal(ct_err_prefix(&e, "%s:%d: ", "sig.yaml", 12), -1);
    assert_string_equal(e.msg, "sig.yaml:12: unknown model 'x' (accepted: none, gige)");
    /* prefixes stack: the newest goes first */
    ct_err_prefix(&e, "fabric %s: ", "ib");
    assert_string_equal(e.msg, "fabric ib: sig.yaml:12: unknown model 'x' (accepted: none, gige)");
    assert_int_equal(ct_err_prefix(NULL, "x"), -1);
}

static void test_err_prefix_empty_message(void **state)
{
    (void)state;
    ct_err e = {{0}};
    ct_err_prefix(&e, "only:");
    assert_string_equal(e.msg, "only:");
}

static void test_err_prefix_truncates_at_capacity(void **state)
{
    (void)state;
    ct_err e;
    memset(e.msg, 'm', sizeof e.msg - 1);
    e.msg[sizeof e.msg - 1] = '\0';
    ct_err_prefix(&e, "%s", "HEAD:");
    /* always terminated, never longer than the buffer, head kept, tail cut */
    assert_int_equal(strlen(e.msg), CT_ERR_MAX - 1);
    assert_memory_equal(e.msg, "HEAD:mmm", 8);
    assert_int_equal(e.msg[CT_ERR_MAX - 2], 'm');

    /* a prefix longer than the buffer alone is cut too, and the old text dropped */
    char big[CT_ERR_MAX * 2];
    memset(big, 'p', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ct_err_set(&e, "old");
    ct_err_prefix(&e, "%s", big);
    assert_int_equal(strlen(e.msg), CT_ERR_MAX - 1);
    assert_null(strstr(e.msg, "old"));
}

static double size_ok(const char *s)
{
    ct_err e = {{0}};
    double b = -1;
    int rc = ct_parse_size(s, &b, &e);
    if (rc != 0)
        fail_msg("ct_parse_size(\"%s\") failed: %s", s, e.msg);
    return b;
}

static void size_bad(const char *s, const char *needle)
{
    ct_err e = {{0}};
    double b = 123.0;
    assert_int_equal(ct_parse_size(s, &b, &e), -1);
    assert_true(b == 123.0); /* untouched on failure */
    if (!strstr(e.msg, needle))
        fail_msg("ct_parse_size(\"%s\"): message '%s' lacks '%s'", s ? s : "(null)", e.msg, needle);
}

static void test_parse_size_plain_and_suffixes(void **state)
{
    (void)state;
    assert_true(size_ok("0") == 0.0);
    assert_true(size_ok("1") == 1.0);
    assert_true(size_ok("4096") == 4096.0);
    assert_true(size_ok("1.5") == 1.5);
    assert_true(size_ok("8B") == 8.0);
    assert_true(size_ok("8b") == 8.0);
    /* binary multiples, any case, with optional i and B */
    assert_true(size_ok("1K") == 1024.0);
    assert_true(size_ok("1k") == 1024.0);
    assert_true(size_ok("2KB") == 2048.0);
    assert_true(size_ok("2KiB") == 2048.0);
    assert_true(size_ok("2Ki") == 2048.0);
    assert_true(size_ok("4M") == 4194304.0);
    assert_true(size_ok("4mb") == 4194304.0);
    assert_true(size_ok("4MiB") == 4194304.0);
    assert_true(size_ok("1G") == 1073741824.0);
    assert_true(size_ok("1GiB") == 1073741824.0);
    assert_true(size_ok("0.5M") == 524288.0);
    assert_true(size_ok("1e3K") == 1024000.0);
}

static void test_parse_size_garbage(void **state)
{
    (void)state;
    size_bad(NULL, "empty size");
    size_bad("", "empty size");
    size_bad("abc", "invalid size 'abc'");
    size_bad("M", "invalid size 'M'");
    size_bad("4X", "invalid size suffix in '4X'");
    size_bad("4T", "invalid size suffix");      /* no tera: accepted list names K, M, G */
    size_bad("4KK", "invalid size suffix");
    size_bad("4BB", "invalid size suffix");
    size_bad("4iB", "invalid size suffix");     /* i only after a multiple */
    size_bad("4K ", "invalid size suffix");     /* trailing blank */
    size_bad("4 K", "invalid size suffix");
    size_bad("nan", "invalid size 'nan'");
    size_bad("inf", "invalid size 'inf'");
}

static void test_parse_size_negative(void **state)
{
    (void)state;
    size_bad("-1", "non-negative");
    size_bad("-4M", "non-negative");
    size_bad("-inf", "invalid size");
}

static void test_parse_size_overflow(void **state)
{
    (void)state;
    /* beyond a double before the suffix */
    size_bad("1e400", "invalid size '1e400'");
    /* finite number, infinite once multiplied by the suffix */
    size_bad("1e308G", "too large");
    size_bad("1e300G", "too large");
    size_bad("1.7e308K", "too large");
    /* the largest double is still accepted without a suffix */
    assert_true(size_ok("1.7976931348623157e308") == DBL_MAX);
    assert_true(size_ok("1e299G") == 1e299 * 1073741824.0);
}

static void test_format_time(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(ct_format_time(0, 4, b, sizeof b), "0 s");
    assert_string_equal(ct_format_time(12.3e-6, 4, b, sizeof b), "12.3 us");
    assert_string_equal(ct_format_time(4.934e-3, 3, b, sizeof b), "4.93 ms");
    assert_string_equal(ct_format_time(4.934e-3, 4, b, sizeof b), "4.934 ms");
    assert_string_equal(ct_format_time(1.25, 4, b, sizeof b), "1.25 s");
    assert_string_equal(ct_format_time(123.456, 3, b, sizeof b), "123 s");
    /* unit boundaries: 1 ms and 1 s belong to the larger unit */
    assert_string_equal(ct_format_time(1e-3, 3, b, sizeof b), "1 ms");
    assert_string_equal(ct_format_time(1.0, 3, b, sizeof b), "1 s");
    assert_string_equal(ct_format_time(0.999e-3, 3, b, sizeof b), "999 us");
    /* the unit is chosen on |s| */
    assert_string_equal(ct_format_time(-2e-3, 4, b, sizeof b), "-2 ms");
    /* a short buffer is cut, never overrun */
    char tiny[4];
    ct_format_time(1.25, 4, tiny, sizeof tiny);
    assert_string_equal(tiny, "1.2");
}

static void test_format_bytes(void **state)
{
    (void)state;
    char b[32];
    /* rounded to significant digits, largest unit not above the value */
    assert_string_equal(ct_format_bytes(300, 4, b, sizeof b), "300 B");
    assert_string_equal(ct_format_bytes(2048, 4, b, sizeof b), "2 KiB");
    assert_string_equal(ct_format_bytes(1572864, 4, b, sizeof b), "1.5 MiB");
    assert_string_equal(ct_format_bytes(100000, 4, b, sizeof b), "97.66 KiB");
    assert_string_equal(ct_format_bytes(1099511627776.0 * 3, 4, b, sizeof b), "3 TiB");
    assert_string_equal(ct_format_bytes(1099511627776.0 * 2048, 4, b, sizeof b), "2048 TiB");
    /* exact (digits 0): the largest unit that divides the value */
    assert_string_equal(ct_format_bytes(0, 0, b, sizeof b), "0 B");
    assert_string_equal(ct_format_bytes(1000, 0, b, sizeof b), "1000 B");
    assert_string_equal(ct_format_bytes(1536, 0, b, sizeof b), "1536 B");
    assert_string_equal(ct_format_bytes(65536, 0, b, sizeof b), "64 KiB");
    assert_string_equal(ct_format_bytes(1048576, 0, b, sizeof b), "1 MiB");
    assert_string_equal(ct_format_bytes(1572864, 0, b, sizeof b), "1536 KiB");
    assert_string_equal(ct_format_bytes(1073741824.0 * 5, 0, b, sizeof b), "5 GiB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_err_set_formats_and_returns_minus_one),
        cmocka_unit_test(test_err_prefix_prepends),
        cmocka_unit_test(test_err_prefix_empty_message),
        cmocka_unit_test(test_err_prefix_truncates_at_capacity),
        cmocka_unit_test(test_parse_size_plain_and_suffixes),
        cmocka_unit_test(test_parse_size_garbage),
        cmocka_unit_test(test_parse_size_negative),
        cmocka_unit_test(test_parse_size_overflow),
        cmocka_unit_test(test_format_time),
        cmocka_unit_test(test_format_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
