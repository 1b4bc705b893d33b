/* plugin/options.c: option values and the scan of srun's command line
 * (compiled in without Slurm; see test_plugin_options.deps). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../plugin/plugin.h"

static void test_modes(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        ctp_mode m;
    } good[] = {{"auto", CTP_MODE_AUTO},
                {"block", CTP_MODE_BLOCK},
                {"cyclic", CTP_MODE_CYCLIC},
                {"off", CTP_MODE_OFF},
                {"report", CTP_MODE_REPORT}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ctp_mode m = CTP_MODE_OFF;
        assert_int_equal(ctp_mode_parse(good[i].s, &m, NULL), 0);
        assert_int_equal(m, good[i].m);
        assert_string_equal(ctp_mode_name(m), good[i].s);
    }
    static const char *const bad[] = {"bogus", "", "AUTO", "auto ", "plane=2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ctp_mode m = CTP_MODE_REPORT;
        ct_err err = {{0}};
        assert_int_equal(ctp_mode_parse(bad[i], &m, &err), -1);
        assert_int_equal(m, CTP_MODE_REPORT); /* untouched */
        assert_non_null(strstr(err.msg, "accepted: auto, block, cyclic, off, report"));
    }
    ct_err err = {{0}};
    ctp_mode m;
    assert_int_equal(ctp_mode_parse(NULL, &m, &err), -1);
}

static void test_pattern_and_size(void **state)
{
    (void)state;
    ct_err err = {{0}};
    assert_int_equal(ctp_pattern_check("halo3d", &err), 0);
    assert_int_equal(ctp_pattern_check("trace:/x", &err), 0);
    assert_int_equal(ctp_pattern_check("stencil", &err), -1);
    assert_non_null(strstr(err.msg, "accepted: alltoall, ring"));
    double b = 0;
    assert_int_equal(ctp_size_parse("4M", &b, &err), 0);
    assert_true(b == 4194304.0);
    assert_int_equal(ctp_size_parse("64K", &b, &err), 0);
    assert_true(b == 65536.0);
    assert_int_equal(ctp_size_parse("1000", &b, &err), 0);
    assert_true(b == 1000.0);
    static const char *const bad[] = {"0", "-1", "4X", "", "M"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b = 7;
        assert_int_equal(ctp_size_parse(bad[i], &b, &err), -1);
        assert_true(b == 7);
        assert_true(strlen(err.msg) > 0);
    }
}

/* A value longer than a message holds is quoted in part, so that what is
 * accepted still fits (doc/fuzzing.md, 11: found by the optvalues harness) */
static void test_long_values_say_what_is_accepted(void **state)
{
    (void)state;
    char v[700];
    memset(v, 'q', sizeof v - 1);
    v[sizeof v - 1] = '\0';
    ct_err err = {{0}};
    ctp_mode m;
    assert_int_equal(ctp_mode_parse(v, &m, &err), -1);
    assert_non_null(strstr(err.msg, "(accepted: auto, block"));
    assert_int_equal(ctp_pattern_check(v, &err), -1);
    assert_non_null(strstr(err.msg, "(accepted: alltoall, ring"));
    double b;
    assert_int_equal(ctp_size_parse(v, &b, &err), -1);
    assert_non_null(strstr(err.msg, "(expected a non-negative number"));
    assert_int_equal(ctp_min_gain_parse(v, &b, &err), -1);
    assert_non_null(strstr(err.msg, "(accepted: a percentage below 100"));
    memcpy(v, "4M", 2); /* a size with a long suffix */
    assert_int_equal(ctp_size_parse(v, &b, &err), -1);
    assert_non_null(strstr(err.msg, "(accepted: K, M, G"));
}

#define ARGV(...) ((char *const[]){"srun", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *const[]){"srun", __VA_ARGS__}) / sizeof(char *)))
#define SCAN(o, ...) ctp_srun_args_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o)

static void test_scan_basic(void **state)
{
    (void)state;
    ctp_srun_args o;
    SCAN(&o, "-n", "4", "-c2", "hostname", "-m", "cyclic", "-n", "9");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.has_ntasks, 1);
    assert_int_equal(o.ntasks, 4);
    assert_int_equal(o.has_cpt, 1);
    assert_int_equal(o.cpt, 2);
    assert_int_equal(o.has_dist, 0); /* after the command: the program's, not srun's */

    SCAN(&o, "-ln4", "-mcyclic", "a.out");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.ntasks, 4);
    assert_int_equal(o.has_dist, 1);
    assert_string_equal(o.dist, "cyclic");

    SCAN(&o, "--ntasks=8", "--distribution", "plane=2", "--", "-n", "3");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.ntasks, 8);
    assert_string_equal(o.dist, "plane=2");

    SCAN(&o, "--contention=auto", "--contention-pattern", "ring", "--contention-size=4M", "x");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.has_mode, 1);
    assert_string_equal(o.mode, "auto");
    assert_int_equal(o.has_pattern, 1);
    assert_string_equal(o.pattern, "ring");
    assert_int_equal(o.has_size, 1);
    assert_string_equal(o.size, "4M");

    SCAN(&o, "-v", "-vv", "--verbose", "-Q", "-l", "x");
    assert_int_equal(o.verbose, 4);
    assert_int_equal(o.quiet, 1);

    SCAN(&o, "-N2-3", "-n", "6", "x");
    assert_int_equal(o.has_nodes, 1);
    assert_int_equal(o.nodes_min, 2);
    assert_int_equal(o.nodes_max, 3);

    SCAN(&o, "--ntasks-per-node=2", "x");
    assert_int_equal(o.has_ntpn, 1);
    assert_int_equal(o.ntpn, 2);
    SCAN(&o, "--tasks-per-node", "3", "x");
    assert_int_equal(o.ntpn, 3);
}

static void test_scan_abbreviations_and_optional(void **state)
{
    (void)state;
    ctp_srun_args o;
    /* unique prefixes are what getopt_long accepts */
    SCAN(&o, "--dist=cyclic", "--ntasks-per-n=2", "--contention-s=4M", "x");
    assert_int_equal(o.ok, 1);
    assert_string_equal(o.dist, "cyclic");
    assert_int_equal(o.ntpn, 2);
    assert_string_equal(o.size, "4M");
    /* --cont: container, context, contiguous, contention... */
    SCAN(&o, "--cont=report", "x");
    assert_int_equal(o.ok, 0);
    SCAN(&o, "--cpu_b=cores", "-n2", "x");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.ntasks, 2);
    /* ambiguous prefixes stop the scan */
    SCAN(&o, "--n=3", "x");
    assert_int_equal(o.ok, 0);
    assert_non_null(strstr(o.why, "ambiguous"));
    SCAN(&o, "--contention-=x", "x");
    assert_int_equal(o.ok, 0);
    /* optional arguments only attach: the next word is the command */
    SCAN(&o, "--exclusive", "-n", "5", "x");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.ntasks, 5);
    SCAN(&o, "-I", "-n", "5", "x");
    assert_int_equal(o.ntasks, 5);
    SCAN(&o, "-I30", "-K1", "-n5", "x");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.ntasks, 5);
    SCAN(&o, "--overlap", "-m", "block", "x");
    assert_string_equal(o.dist, "block");
}

static void test_scan_conservative(void **state)
{
    (void)state;
    ctp_srun_args o;
    /* another plugin's option: its argument count is unknown */
    SCAN(&o, "--container-image", "ubuntu", "-m", "cyclic", "x");
    assert_int_equal(o.ok, 0);
    assert_non_null(strstr(o.why, "--container-image"));
    SCAN(&o, "-y", "x");
    assert_int_equal(o.ok, 0);
    SCAN(&o, "-n");
    assert_int_equal(o.ok, 0);
    assert_non_null(strstr(o.why, "lacks its argument"));
    SCAN(&o, "-n", "abc", "x");
    assert_int_equal(o.ok, 0);
    SCAN(&o, "--label=yes", "x");
    assert_int_equal(o.ok, 0);
    /* srun reads a lone ':' as a heterogeneous step, even after the command */
    SCAN(&o, "-n2", "a", ":", "-n3", "b");
    assert_int_equal(o.ok, 0);
    assert_int_equal(o.het_step, 1);
    assert_non_null(strstr(o.why, "heterogeneous"));
    SCAN(&o, "-n2", ":", "-n3", "b");
    assert_int_equal(o.ok, 0);
    assert_int_equal(o.het_step, 1);
    /* the first component's options are read: the user's --contention is
     * known (decide.c then names the heterogeneous step); a later
     * component's are not */
    SCAN(&o, "--contention=auto", "-n2", "a", ":", "--contention=cyclic", "-n3", "b");
    assert_int_equal(o.het_step, 1);
    assert_int_equal(o.has_mode, 1);
    assert_string_equal(o.mode, "auto");
    assert_int_equal(o.ntasks, 2);
    SCAN(&o, "-n2", "a", ":", "--contention=cyclic", "b");
    assert_int_equal(o.has_mode, 0);
    /* what stopped the first component's scan is the reason kept */
    SCAN(&o, "--container-image", "img", "a", ":", "b");
    assert_int_equal(o.het_step, 1);
    assert_non_null(strstr(o.why, "--container-image"));
    /* --het-group (--pack-group) is read, not refused: decide.c takes the
     * step's component from it (hetjob.c) */
    SCAN(&o, "--het-group=1", "-n4", "a");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.has_het_group, 1);
    assert_string_equal(o.het_group, "1");
    assert_string_equal(o.unsupported, "");
    assert_int_equal(o.ntasks, 4);
    SCAN(&o, "--pack-group", "0,2", "a");
    assert_string_equal(o.het_group, "0,2");
    SCAN(&o, "--het-group=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14", "a");
    assert_string_equal(o.het_group, "?"); /* cut short it could name fewer */
    /* -M/--clusters (--cluster) is read: decide.c compares it with the
     * allocation's cluster */
    SCAN(&o, "-Mc1,c2", "-n4", "a");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.has_clusters, 1);
    assert_string_equal(o.clusters, "c1,c2");
    assert_int_equal(o.ntasks, 4);
    SCAN(&o, "-M", "c3", "a");
    assert_string_equal(o.clusters, "c3");
    SCAN(&o, "--cluster=c4", "a");
    assert_string_equal(o.clusters, "c4");
    SCAN(&o, "--clusters", "c5", "-M", "c6", "a"); /* the last one given */
    assert_string_equal(o.clusters, "c6");
    SCAN(&o, "--clusters=a234567890123456789012345678901234567890123456789012345678901234",
         "a");
    assert_string_equal(o.clusters, "?"); /* cut short it could name another cluster */
    SCAN(&o, "-n2", "a");
    assert_int_equal(o.has_clusters, 0);
    /* no ':' (a ':' inside an argument is not one) */
    SCAN(&o, "-n2", "a", "b:c");
    assert_int_equal(o.het_step, 0);
    assert_int_equal(o.ok, 1);
    /* options that move the step off the allocation's nodes or CPUs */
    static const char *const moving[][2] = {
        {"-w", "n1"},        {"--nodelist", "n[1-2]"},   {"-x", "n3"},
        {"--relative", "1"}, {"--gpus-per-task", "1"},   {"-B", "2:2"},
        {"--jobid", "7"},    {"--hint", "nomultithread"}};
    for (size_t i = 0; i < sizeof moving / sizeof moving[0]; i++) {
        char *const argv[] = {"srun", (char *)moving[i][0], (char *)moving[i][1], "x", NULL};
        ctp_srun_args_parse(4, argv, &o);
        assert_int_equal(o.ok, 1);
        if (!o.unsupported[0])
            fail_msg("%s %s not flagged", moving[i][0], moving[i][1]);
    }
    SCAN(&o, "-O", "x");
    assert_string_equal(o.unsupported, "--overcommit");
    SCAN(&o, "-n", "4", "x");
    assert_string_equal(o.unsupported, "");
}

/* srun's --het-group values (srun/opt.c _get_het_group reads them as a
 * hostlist of component indices below 128) */
static void test_het_group_values(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int rc, comp;
    } cases[] = {
        {"0", 0, 0},      {"1", 0, 1},     {"[1]", 0, 1},    {"127", 0, 127}, {"01", 0, 1},
        {"1-1", 0, 1},    {"2,2", 0, 2},   {"0,1", 1, 0},    {"1-3", 1, 1},   {"[0-1]", 1, 0},
        {"3,1", 1, 3},    {"", -1, 0},     {"128", -1, 0},   {"1x", -1, 0},   {"-1", -1, 0},
        {"1,", -1, 0},    {",1", -1, 0},   {"3-1", -1, 0},   {"1-", -1, 0},   {"[1", -1, 0},
        {"[]", -1, 0},    {"1 2", -1, 0},  {"99999999999", -1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_err err = {{0}};
        int comp = -7;
        int rc = ctp_het_group_parse(cases[i].s, &comp, &err);
        if (rc != cases[i].rc || (rc >= 0 && comp != cases[i].comp))
            fail_msg("'%s': rc %d comp %d, wanted %d %d", cases[i].s, rc, comp, cases[i].rc,
                     cases[i].comp);
        if (rc < 0 && !strstr(err.msg, "invalid --het-group"))
            fail_msg("'%s': message '%s'", cases[i].s, err.msg);
    }
}

static void test_read_cmdline(void **state)
{
    (void)state;
    char path[] = "/tmp/ct-test-cmdline-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "srun\0-n\0004\0--contention=auto\0hostname"; /* no final NUL */
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    int argc;
    char **argv;
    ct_err err = {{0}};
    assert_int_equal(ctp_read_cmdline(path, &argc, &argv, &err), 0);
    assert_int_equal(argc, 5);
    assert_string_equal(argv[0], "srun");
    assert_string_equal(argv[2], "4");
    assert_string_equal(argv[4], "hostname");
    assert_null(argv[5]);
    ctp_srun_args o;
    ctp_srun_args_parse(argc, argv, &o);
    assert_int_equal(o.ntasks, 4);
    assert_string_equal(o.mode, "auto");
    ctp_argv_free(argc, argv);
    unlink(path);
    assert_int_equal(ctp_read_cmdline("/nonexistent/cmdline", &argc, &argv, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/cmdline"));
    /* our own command line reads back */
    assert_int_equal(ctp_read_cmdline("/proc/self/cmdline", &argc, &argv, &err), 0);
    assert_true(argc >= 1);
    assert_non_null(strstr(argv[0], "test_plugin_options"));
    ctp_argv_free(argc, argv);
}

#define SCANV(v, o, ...) ctp_srun_args_parse_for(v, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o)

/* Issue 10, defect 3: each release's srun table (read from its
 * src/common/slurm_opt.c); an unknown release is never scanned. */
static void test_versions(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        ctp_slurm_version v;
    } good[] = {{"22.05.8", CTP_SLURM_22_05},  {"23.02.7", CTP_SLURM_23_02},
                {"23.11.4", CTP_SLURM_23_11},  {"24.05.0", CTP_SLURM_24_05},
                {"24.11.5", CTP_SLURM_24_11},  {"25.05.1", CTP_SLURM_25_05},
                {"25.11.0-0rc1", CTP_SLURM_25_11}, {"26.05", CTP_SLURM_26_05}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ctp_slurm_version v = CTP_SLURM_NVERSIONS;
        assert_int_equal(ctp_slurm_version_parse(good[i].s, &v, NULL), 0);
        assert_int_equal(v, good[i].v);
        assert_int_equal(strncmp(ctp_slurm_version_name(v), good[i].s, 5), 0);
    }
    static const char *const bad[] = {"21.08.8", "27.05.0", "22.5", "2205", "", "x22.05", "22.05x",
                                      "122.05.1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ctp_slurm_version v;
        ct_err err = {{0}};
        assert_int_equal(ctp_slurm_version_parse(bad[i], &v, &err), -1);
        assert_non_null(strstr(err.msg, "known: 22.05, 23.02, 23.11, 24.05, 24.11"));
    }
    ct_err err = {{0}};
    ctp_slurm_version v;
    assert_int_equal(ctp_slurm_version_parse(NULL, &v, &err), -1);
    assert_non_null(strstr(err.msg, "(unknown version)"));

    /* -c from the environment: SRUN_CPUS_PER_TASK to 23.02, SLURM_ from 23.11 */
    assert_int_equal(ctp_srun_reads_cpus_per_task(CTP_SLURM_22_05), 0);
    assert_int_equal(ctp_srun_reads_cpus_per_task(CTP_SLURM_23_02), 0);
    assert_int_equal(ctp_srun_reads_cpus_per_task(CTP_SLURM_23_11), 1);
    assert_int_equal(ctp_srun_reads_cpus_per_task(CTP_SLURM_26_05), 1);

    ctp_srun_args o;
    /* --segment (24.05+) moves the step's nodes: unknown before, not modelled after */
    SCANV(CTP_SLURM_23_11, &o, "--segment=4", "-n8", "x");
    assert_int_equal(o.ok, 0);
    assert_non_null(strstr(o.why, "--segment=4"));
    SCANV(CTP_SLURM_24_05, &o, "--segment", "4", "-n8", "x");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.ntasks, 8);
    assert_string_equal(o.unsupported, "--segment");
    /* --tres-bind (23.11+) takes an argument: read right, or not at all */
    SCANV(CTP_SLURM_23_02, &o, "--tres-bind", "gres/gpu:closest", "-mcyclic", "x");
    assert_int_equal(o.ok, 0);
    SCANV(CTP_SLURM_23_11, &o, "--tres-bind", "gres/gpu:closest", "-mcyclic", "x");
    assert_int_equal(o.ok, 1);
    assert_string_equal(o.dist, "cyclic");
    assert_string_equal(o.unsupported, "");
    /* --tres-per-task (23.02+) can set CPUs per task */
    SCANV(CTP_SLURM_23_02, &o, "--tres-per-task=cpu:4", "x");
    assert_int_equal(o.ok, 1);
    assert_string_equal(o.unsupported, "--tres-per-task");
    /* --gid and --uid left srun after 22.05 */
    SCANV(CTP_SLURM_22_05, &o, "--gid", "0", "-n2", "x");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.ntasks, 2);
    SCANV(CTP_SLURM_23_02, &o, "--gid", "0", "-n2", "x");
    assert_int_equal(o.ok, 0);
    /* --pty took no argument in 22.05, an optional one from 23.02 */
    SCANV(CTP_SLURM_22_05, &o, "--pty=x", "bash");
    assert_int_equal(o.ok, 0);
    SCANV(CTP_SLURM_23_02, &o, "--pty=x", "bash");
    assert_int_equal(o.ok, 1);
    /* --external-launcher: no argument in 23.11, optional from 24.05 */
    SCANV(CTP_SLURM_23_11, &o, "--external-launcher=1", "x");
    assert_int_equal(o.ok, 0);
    SCANV(CTP_SLURM_24_05, &o, "--external-launcher=1", "-n3", "x");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.ntasks, 3);
    /* --power left srun in 24.05 */
    SCANV(CTP_SLURM_23_11, &o, "--power", "level", "-n2", "x");
    assert_int_equal(o.ok, 1);
    SCANV(CTP_SLURM_24_05, &o, "--power", "level", "-n2", "x");
    assert_int_equal(o.ok, 0);
    /* a prefix unique in one release is ambiguous or unknown in another:
     * --wait-f is --wait-for-children from 25.05, unknown before */
    SCANV(CTP_SLURM_25_05, &o, "--wait-f", "-n2", "x");
    assert_int_equal(o.ok, 1);
    assert_int_equal(o.ntasks, 2);
    SCANV(CTP_SLURM_24_11, &o, "--wait-f", "-n2", "x");
    assert_int_equal(o.ok, 0);
    /* --stepmgr (24.05+) takes no argument: the next word is not its value */
    SCANV(CTP_SLURM_24_05, &o, "--stepmgr", "-n", "6", "x");
    assert_int_equal(o.ntasks, 6);
    /* an unknown release: nothing is scanned */
    SCANV(CTP_SLURM_NVERSIONS, &o, "-n4", "x");
    assert_int_equal(o.ok, 0);
    assert_int_equal(o.has_ntasks, 0);
    /* every release reads the common options the same way */
    for (int r = 0; r < CTP_SLURM_NVERSIONS; r++) {
        SCANV((ctp_slurm_version)r, &o, "-ln16", "-c2", "--dist=cyclic", "--contention=auto",
              "--interactive", "--overlap", "x");
        assert_int_equal(o.ok, 1);
        assert_int_equal(o.ntasks, 16);
        assert_int_equal(o.cpt, 2);
        assert_string_equal(o.dist, "cyclic");
        assert_string_equal(o.mode, "auto");
        assert_int_equal(o.interactive, 1);
        assert_int_equal(o.overlap, 1);
        assert_int_equal(o.version, r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_pattern_and_size),
        cmocka_unit_test(test_long_values_say_what_is_accepted),
        cmocka_unit_test(test_scan_basic),
        cmocka_unit_test(test_scan_abbreviations_and_optional),
        cmocka_unit_test(test_scan_conservative),
        cmocka_unit_test(test_het_group_values),
        cmocka_unit_test(test_read_cmdline),
        cmocka_unit_test(test_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
