/* plugin/config.c: plugstack.conf arguments (compiled in without Slurm). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../plugin/plugin.h"

#define PARSE(c, err, ...)                                                                         \
    ctp_config_parse((int)(sizeof((char *const[]){__VA_ARGS__}) / sizeof(char *)),                 \
                     (char *const[]){__VA_ARGS__}, c, err)

static void test_defaults(void **state)
{
    (void)state;
    ctp_config c;
    ct_err err = {{0}};
    assert_int_equal(ctp_config_parse(0, NULL, &c, &err), 0);
    assert_int_equal(c.default_mode, CTP_MODE_OFF);
    assert_string_equal(c.pattern, "alltoall");
    assert_true(c.size == 1048576.0);
    assert_int_equal(c.strict, 0);
    assert_string_equal(c.signatures, "");
    assert_string_equal(c.fabric, "");
    assert_int_equal(c.nparts, 0);
}

static void test_all_keys(void **state)
{
    (void)state;
    ctp_config c;
    ct_err err = {{0}};
    int rc = PARSE(&c, &err, "signatures=/etc/slurm/contention/signatures.yaml", "default=auto",
                   "pattern=halves", "size=64K", "partition_fabric=debug:gige_lab",
                   "partition_fabric=big:myrinet_gm", "fabric=plain", "strict=yes");
    if (rc != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(c.signatures, "/etc/slurm/contention/signatures.yaml");
    assert_int_equal(c.default_mode, CTP_MODE_AUTO);
    assert_string_equal(c.pattern, "halves");
    assert_true(c.size == 65536.0);
    assert_int_equal(c.nparts, 2);
    assert_string_equal(c.parts[0].partition, "debug");
    assert_string_equal(c.parts[0].fabric, "gige_lab");
    assert_string_equal(c.parts[1].partition, "big");
    assert_string_equal(c.parts[1].fabric, "myrinet_gm");
    assert_string_equal(c.fabric, "plain");
    assert_int_equal(c.strict, 1);
    assert_int_equal(PARSE(&c, &err, "strict=no", "pattern=trace:/srv/app.trace"), 0);
    assert_int_equal(c.strict, 0);
    assert_string_equal(c.pattern, "trace:/srv/app.trace");
    /* the last value of a key wins, like Slurm's own options */
    assert_int_equal(PARSE(&c, &err, "default=report", "default=block"), 0);
    assert_int_equal(c.default_mode, CTP_MODE_BLOCK);
}

static void test_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *arg;
        const char *needle;
    } bad[] = {
        {"bogus=1", "unknown argument 'bogus'"},
        {"Signatures=/x", "unknown argument 'Signatures'"},
        {"signatures", "not key=value"},
        {"=x", "not key=value"},
        {"signatures=relative/path.yaml", "not an absolute path"},
        {"default=sometimes", "accepted: auto, block, cyclic, off, report"},
        {"pattern=stencil", "accepted: alltoall, ring"},
        {"size=0", "positive"},
        {"size=12Q", "suffix"},
        {"partition_fabric=debug", "PARTITION:FABRIC"},
        {"partition_fabric=:gige", "PARTITION:FABRIC"},
        {"partition_fabric=debug:", "PARTITION:FABRIC"},
        {"partition_fabric=de bug:x", "PARTITION:FABRIC"},
        {"fabric=a/b", "fabric name"},
        {"strict=maybe", "accepted: yes, no"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ctp_config c;
        ct_err err = {{0}};
        char *const av[] = {"default=auto", (char *)bad[i].arg};
        assert_int_equal(ctp_config_parse(2, av, &c, &err), -1);
        if (strncmp(err.msg, "contention: plugstack.conf", 26) != 0)
            fail_msg("'%s': message '%s' lacks the contention: prefix", bad[i].arg, err.msg);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("'%s': message '%s' lacks '%s'", bad[i].arg, err.msg, bad[i].needle);
        /* what came before the bad argument was taken */
        assert_int_equal(c.default_mode, CTP_MODE_AUTO);
    }
    ctp_config c;
    ct_err err = {{0}};
    assert_int_equal(PARSE(&c, &err, "partition_fabric=a:x", "partition_fabric=a:y"), -1);
    assert_non_null(strstr(err.msg, "partition 'a' twice"));
    /* the unknown-key message lists every key */
    assert_int_equal(PARSE(&c, &err, "colour=blue"), -1);
    assert_non_null(strstr(err.msg, CTP_CONFIG_KEYS));
}

/* min_gain= and min_switch=: a percentage or a fraction below 1, or off;
 * defaults 10 % and 5 % */
static void test_min_gain(void **state)
{
    (void)state;
    ctp_config c;
    ct_err err = {{0}};
    assert_int_equal(PARSE(&c, &err, "default=auto"), 0);
    assert_true(c.min_gain == 0.10);
    assert_true(c.min_switch == 0.05);
    struct {
        const char *key;
        double *field;
    } keys[] = {{"min_gain", &c.min_gain}, {"min_switch", &c.min_switch}};
    for (size_t k = 0; k < 2; k++) {
        char arg[64], want[96];
        const char *key = keys[k].key;
        double *v = keys[k].field;
        snprintf(arg, sizeof arg, "%s=25%%", key);
        assert_int_equal(PARSE(&c, &err, arg), 0);
        assert_true(*v == 0.25);
        snprintf(arg, sizeof arg, "%s=0.05", key);
        assert_int_equal(PARSE(&c, &err, arg), 0);
        assert_true(*v == 0.05);
        snprintf(arg, sizeof arg, "%s=0", key);
        assert_int_equal(PARSE(&c, &err, arg), 0);
        assert_true(*v == 0);
        snprintf(arg, sizeof arg, "%s=off", key);
        assert_int_equal(PARSE(&c, &err, arg), 0);
        assert_true(isinf(*v));
        const char *bad[] = {"10", "100%", "-1%", "", "5%%", "nan"};
        snprintf(want, sizeof want, "contention: plugstack.conf: %s=: invalid gain", key);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            snprintf(arg, sizeof arg, "%s=%s", key, bad[i]);
            assert_int_equal(PARSE(&c, &err, arg), -1);
            if (!strstr(err.msg, want) ||
                !strstr(err.msg, "accepted: a percentage below 100 such as 10%"))
                fail_msg("'%s': message '%s'", arg, err.msg);
        }
    }
}

static void test_partition_limit(void **state)
{
    (void)state;
    char args[CTP_MAX_PARTITION_FABRICS + 1][40];
    char *av[CTP_MAX_PARTITION_FABRICS + 1];
    for (int i = 0; i <= CTP_MAX_PARTITION_FABRICS; i++) {
        snprintf(args[i], sizeof args[i], "partition_fabric=p%d:f", i);
        av[i] = args[i];
    }
    ctp_config c;
    ct_err err = {{0}};
    assert_int_equal(ctp_config_parse(CTP_MAX_PARTITION_FABRICS, av, &c, &err), 0);
    assert_int_equal(c.nparts, CTP_MAX_PARTITION_FABRICS);
    assert_int_equal(ctp_config_parse(CTP_MAX_PARTITION_FABRICS + 1, av, &c, &err), -1);
    assert_non_null(strstr(err.msg, "more than"));
}

/* Issue 10, defect 4: the launch-path bounds and their plugstack keys. */
static void test_bounds(void **state)
{
    (void)state;
    ctp_config c;
    ct_err err = {{0}};
    assert_int_equal(ctp_config_parse(0, NULL, &c, &err), 0);
    assert_int_equal(c.budget_ms, 200);
    assert_int_equal(c.trace_max_bytes, (size_t)32 << 20);
    assert_int_equal(c.trace_max_events, 8000000);
    assert_int_equal(PARSE(&c, &err, "budget_ms=1500", "trace_max_bytes=2M", "trace_max_events=5000"),
                     0);
    assert_int_equal(c.budget_ms, 1500);
    assert_int_equal(c.trace_max_bytes, (size_t)2 << 20);
    assert_int_equal(c.trace_max_events, 5000);
    static char *const bad[] = {"budget_ms=0",        "budget_ms=60001", "budget_ms=1.5",
                                      "budget_ms=",         "trace_max_bytes=0", "trace_max_bytes=2G",
                                      "trace_max_events=0", "trace_max_events=x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(PARSE(&c, &err, bad[i]), -1);
        assert_non_null(strstr(err.msg, "contention: plugstack.conf: "));
        assert_non_null(strstr(err.msg, "accepted:"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_all_keys),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_partition_limit),
        cmocka_unit_test(test_min_gain),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
