/* plugin/decide.c: the srun decision from a command line, an environment
 * (given here as a list, never the process's) and plugstack.conf arguments,
 * scored on tests/fixtures/plugin/signatures.yaml. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../plugin/plugin.h"

#define SIGS CT_FIXTURES "/plugin/signatures.yaml"

typedef struct fake_env {
    const char *const *vars; /* "NAME=VALUE", NULL-terminated */
} fake_env;

static const char *fake_getenv(const char *name, void *ctx)
{
    const fake_env *e = ctx;
    size_t n = strlen(name);
    for (const char *const *v = e->vars; *v; v++)
        if (strncmp(*v, name, n) == 0 && (*v)[n] == '=')
            return *v + n + 1;
    return NULL;
}

/* An allocation like `salloc -N4 -n16` on nodes of 4 CPUs. */
#define ALLOC_4x4                                                                                  \
    "SLURM_JOB_ID=12", "SLURM_JOB_CPUS_PER_NODE=4(x4)", "SLURM_JOB_NODELIST=n[1-4]",               \
        "SLURM_JOB_NUM_NODES=4", "SLURM_NTASKS=16", "SLURM_JOB_PARTITION=debug"

static void decide_v(ctp_slurm_version v, const char *const *argv_extra,
                     const char *const *vars, const char *plugstack, ctp_decision *d);

static void decide(const char *const *argv_extra, const char *const *vars, const char *plugstack,
                   ctp_decision *d)
{
    decide_v(CTP_SLURM_22_05, argv_extra, vars, plugstack, d);
}

/* what spank.c's busy_steps() would have found in slurmctld's step list */
static int32_t busy_count;
static const char *busy_list = "";
/* and what its node_tcp_cc() would have read in /proc */
static const char *node_cc = "";

static void decide_v(ctp_slurm_version v, const char *const *argv_extra,
                     const char *const *vars, const char *plugstack, ctp_decision *d)
{
    ctp_config c;
    ct_err err = {{0}};
    /* plugstack: space-separated arguments */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", plugstack);
    char *av[16];
    int ac = 0;
    for (char *t = strtok(buf, " "); t && ac < 16; t = strtok(NULL, " "))
        av[ac++] = t;
    if (ctp_config_parse(ac, av, &c, &err) != 0)
        fail_msg("%s", err.msg);
    char *argv[32] = {"srun"};
    int argc = 1;
    for (const char *const *a = argv_extra; a && *a; a++)
        argv[argc++] = (char *)*a;
    argv[argc++] = "hostname";
    ctp_srun_args args;
    ctp_srun_args_parse_for(v, argc, argv, &args);
    args.busy_steps = busy_count;
    snprintf(args.busy_ids, sizeof args.busy_ids, "%s", busy_list);
    snprintf(args.node_tcp_cc, sizeof args.node_tcp_cc, "%s", node_cc);
    fake_env e = {vars};
    ctp_decide(&c, &args, fake_getenv, &e, d);
}

#define V(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NOARGS ((const char *const *)NULL)

static void test_off_by_default(void **state)
{
    (void)state;
    ctp_decision d;
    decide(NOARGS, V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.mode, CTP_MODE_OFF);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.level, CTP_LEVEL_NONE);
    assert_string_equal(d.mapping, "");
    /* an explicit --contention=off beats an admin's default=auto */
    decide(V("--contention=off"), V(ALLOC_4x4), "signatures=" SIGS " default=auto", &d);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.level, CTP_LEVEL_NONE);
}

/* An allocation like `salloc -N4 -n32` on nodes of 8 CPUs. */
#define ALLOC_8x4                                                                                  \
    "SLURM_JOB_ID=13", "SLURM_JOB_CPUS_PER_NODE=8(x4)", "SLURM_JOB_NODELIST=n[1-4]",               \
        "SLURM_JOB_NUM_NODES=4", "SLURM_NTASKS=32", "SLURM_JOB_PARTITION=debug"

/* min_switch=: auto leaves block, Slurm's default, only for a candidate
 * predicted that much faster (default 5 %). On the fixture, halo3d-phased
 * of 1 MiB: 4(x4) cyclic 51.9 ms against block's 59.8 ms (13.3 % of block's),
 * 8(x4) cyclic 0.129096 s against block's 0.129144 s (0.04 %). */
static void test_auto_min_switch(void **state)
{
    (void)state;
    ctp_decision d;
    const char *halo[] = {"--contention=auto", "--contention-pattern=halo3d-phased", NULL};
    /* 13 %: past the default, cyclic */
    decide(halo, V(ALLOC_4x4), "signatures=" SIGS " min_gain=off", &d);
    assert_string_equal(d.distribution, "cyclic");
    assert_non_null(strstr(d.message, "contention: cyclic chosen (auto): "));
    double cyclic_slowdown = d.slowdown;
    /* under min_switch=20%: block kept, said why, block's slowdown exported */
    decide(halo, V(ALLOC_4x4), "signatures=" SIGS " min_gain=off min_switch=20%", &d);
    assert_string_equal(d.distribution, "block");
    assert_string_equal(d.mapping, "block");
    assert_string_equal(d.log.launched, "block");
    assert_string_equal(d.log.choice, "block");
    assert_non_null(strstr(d.message, "contention: block chosen (auto, Slurm's default: cyclic "
                                      "predicted 13.3% faster, under min_switch 20%): "));
    assert_int_equal(d.have_slowdown, 1);
    assert_true(d.slowdown > cyclic_slowdown * 1.5); /* block's 5.91 against cyclic's 2.86 */
    /* 0.04 %: the default keeps block; min_switch=0 takes any gain */
    decide(halo, V(ALLOC_8x4), "signatures=" SIGS " min_gain=off", &d);
    assert_string_equal(d.distribution, "block");
    assert_non_null(strstr(d.message, "cyclic predicted 0.0% faster, under min_switch 5%"));
    decide(halo, V(ALLOC_8x4), "signatures=" SIGS " min_gain=off min_switch=0", &d);
    assert_string_equal(d.distribution, "cyclic");
    /* report says what auto would do with these thresholds */
    const char *rep[] = {"--contention=report", "--contention-pattern=halo3d-phased", NULL};
    decide(rep, V(ALLOC_8x4), "signatures=" SIGS " min_gain=off", &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "contention: report: cyclic predicted fastest; auto would "
                                      "launch block (cyclic predicted 0.0% faster, under "
                                      "min_switch 5%), layout left to Slurm (block)"));
    decide(rep, V(ALLOC_8x4), "signatures=" SIGS, &d);
    assert_non_null(strstr(d.message, "; auto would launch the optimized placement, layout left"));
    ctp_decision_free(&d);
    /* report changes nothing, also where the optimized placement could not
     * launch (--ntasks-per-node) */
    const char *rep_ntpn[] = {"--contention=report", "--contention-pattern=halo3d-phased",
                              "--ntasks-per-node=8", NULL};
    decide(rep_ntpn, V(ALLOC_8x4), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.use_hostfile, 0);
    assert_non_null(strstr(d.message, "contention: report: cyclic predicted fastest; auto would "
                                      "launch block (cyclic predicted 0.0% faster, under "
                                      "min_switch 5%) (the optimized placement would not launch: "
                                      "--ntasks-per-node 8 is in force"));
    ctp_decision_free(&d);
    /* forced cyclic is the user's word, whatever min_switch says */
    const char *forced[] = {"--contention=cyclic", "--contention-pattern=halo3d-phased", NULL};
    decide(forced, V(ALLOC_8x4), "signatures=" SIGS " min_switch=50%", &d);
    assert_string_equal(d.distribution, "cyclic");
    /* with the optimized placement (59 % predicted on 8(x4)) refused for
     * --ntasks-per-node, the fallback follows the same rule */
    const char *ntpn[] = {"--contention=auto", "--contention-pattern=halo3d-phased",
                          "--ntasks-per-node=8", NULL};
    decide(ntpn, V(ALLOC_8x4), "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_string_equal(d.distribution, "block");
    assert_non_null(strstr(d.message, "block chosen instead (cyclic predicted 0.0% faster, "
                                      "under min_switch 5%)"));
    ctp_decision_free(&d);
}

static void test_auto_ring_and_halves(void **state)
{
    (void)state;
    ctp_decision d;
    decide(V("--contention=auto", "--contention-pattern=ring"), V(ALLOC_4x4), "signatures=" SIGS,
           &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "block");
    assert_string_equal(d.mapping, "block");
    assert_int_equal(d.have_slowdown, 1);
    assert_int_equal(d.level, CTP_LEVEL_VERBOSE); /* said with srun -v */
    assert_non_null(strstr(d.message, "contention: block chosen (auto)"));
    assert_non_null(strstr(d.message, "cyclic"));
    assert_non_null(strstr(d.message, "fabric gige_lab (gige)"));

    decide(NOARGS, V(ALLOC_4x4), "signatures=" SIGS " default=auto pattern=halves", &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "cyclic");
    assert_true(d.slowdown >= 1.0);
    assert_non_null(strstr(d.message, "halves 1 MiB, 16 tasks on 4 nodes"));
}

static void test_option_from_sbatch_env(void **state)
{
    (void)state;
    ctp_decision d;
    decide(NOARGS,
           V(ALLOC_4x4, "SLURM_SPANK__SLURM_SPANK_OPTION_contention_contention=auto",
             "SLURM_SPANK__SLURM_SPANK_OPTION_contention_contention_pattern=halves",
             "SLURM_SPANK__SLURM_SPANK_OPTION_contention_contention_size=64K"),
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "cyclic");
    assert_non_null(strstr(d.message, "halves 64 KiB"));
    /* srun's own command line wins over what sbatch passed on */
    decide(V("--contention-pattern=ring"),
           V(ALLOC_4x4, "SLURM_SPANK__SLURM_SPANK_OPTION_contention_contention=auto",
             "_SLURM_SPANK_OPTION_contention_contention_pattern=halves"),
           "signatures=" SIGS, &d);
    assert_string_equal(d.distribution, "block");
    fake_env e = {V("_SLURM_SPANK_OPTION_contention_contention_size=2M")};
    assert_string_equal(ctp_option_from_env("contention-size", fake_getenv, &e), "2M");
    assert_null(ctp_option_from_env("contention", fake_getenv, &e));
}

static void test_user_wins(void **state)
{
    (void)state;
    ctp_decision d;
    decide(V("-m", "block", "--contention=cyclic"), V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_string_equal(d.mapping, "");
    assert_non_null(strstr(d.message, "chosen by the user (-m block)"));
    decide(NOARGS, V(ALLOC_4x4, "SLURM_DISTRIBUTION=cyclic"),
           "signatures=" SIGS " default=auto pattern=ring", &d);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.level, CTP_LEVEL_VERBOSE); /* from the admin's default: quiet */
    assert_non_null(strstr(d.message, "SLURM_DISTRIBUTION=cyclic"));
}

static void test_report(void **state)
{
    (void)state;
    ctp_decision d;
    decide(V("--contention=report", "--contention-pattern=halves"), V(ALLOC_4x4),
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.level, CTP_LEVEL_INFO); /* said at default verbosity */
    assert_non_null(strstr(d.message, "contention: report: cyclic predicted fastest; auto would "
                                      "launch cyclic, layout left to Slurm (block)"));
    assert_string_equal(d.mapping, "block"); /* what Slurm launches */
    assert_int_equal(d.have_slowdown, 1);
    assert_true(d.slowdown > 1.0);
    /* with the user's -m, the report is about that layout */
    decide(V("--contention=report", "--contention-pattern=halves", "-m", "cyclic"), V(ALLOC_4x4),
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_string_equal(d.mapping, "cyclic");
    assert_true(d.slowdown == 1.0);
}

/* srun -m arbitrary --contention=report (halves) with the hostfile (open
 * as fd, named by env_hf) holding text */
static void report_arbitrary(int fd, const char *text, const char *env_hf, ctp_decision *d)
{
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(pwrite(fd, text, strlen(text), 0), (ssize_t)strlen(text));
    decide(V("--contention=report", "--contention-pattern=halves", "-m", "arbitrary"),
           V(ALLOC_4x4, env_hf), "signatures=" SIGS, d);
}

/* report with -m arbitrary: the user's SLURM_HOSTFILE is what launches; it is
 * priced beside block and cyclic (halves on 4 x 4: the cyclic layout written
 * as a hostfile costs exactly cyclic's time, all pairs intra-node; block's
 * costs block's), and when it cannot be the report says why and goes on.
 * Nothing is set either way. */
static void test_report_user_hostfile(void **state)
{
    (void)state;
    char hf[] = "/tmp/ct-user-hosts-XXXXXX";
    int fd = mkstemp(hf);
    assert_true(fd >= 0);
    char env_hf[64];
    snprintf(env_hf, sizeof env_hf, "SLURM_HOSTFILE=%s", hf);
    const char *name = strrchr(hf, '/') + 1;
    struct {
        const char *text, *want;
    } cases[] = {
        {"# cyclic\nn1,n2,n3,n4\nn1,n2,n3,n4\nn1,n2,n3,n4\nn1,n2,n3,n4\n", "x1.00"},
        {"n1*4\nn2*4\nn3*4\nn4*4\n", "slower than cyclic"},
    };
    ctp_decision d, ref;
    decide(V("--contention=report", "--contention-pattern=halves"), V(ALLOC_4x4),
           "signatures=" SIGS, &ref);
    for (size_t i = 0; i < 2; i++) {
        report_arbitrary(fd, cases[i].text, env_hf, &d);
        assert_int_equal(d.set_distribution, 0);
        assert_int_equal(d.level, CTP_LEVEL_INFO);
        if (strcmp(d.mapping, "arbitrary") != 0)
            fail_msg("case %zu: mapping %s: %s", i, d.mapping, d.message);
        char want[128];
        snprintf(want, sizeof want, "layout left to Slurm (arbitrary: SLURM_HOSTFILE %s predicted ",
                 name);
        if (!strstr(d.message, want) || !strstr(d.message, cases[i].want))
            fail_msg("case %zu: %s", i, d.message);
        assert_int_equal(d.have_slowdown, 1);
    }
    /* block's layout as a hostfile: block's slowdown, as the plain report
     * (layout left to Slurm: block) gives it */
    assert_true(fabs(d.slowdown - ref.slowdown) <= 1e-12 * ref.slowdown);
    /* not priced, said, still a report */
    struct {
        const char *text, *why;
    } bad[] = {
        {"n1\nx9\n", ": line 2: 'x9' is not a node of the allocation"},
        {"n1*5\nn2*4\nn3*4\nn4*3\n", "more than 4 tasks on node 0"},
        {"n1*4\n", "names 4 tasks, the step runs 16"},
    };
    for (size_t i = 0; i < 3; i++) {
        report_arbitrary(fd, bad[i].text, env_hf, &d);
        assert_int_equal(d.set_distribution, 0);
        assert_int_equal(d.level, CTP_LEVEL_INFO);
        if (!strstr(d.message, "contention: report: cyclic predicted fastest") ||
            !strstr(d.message, bad[i].why))
            fail_msg("bad %zu: %s", i, d.message);
    }
    decide(V("--contention=report", "--contention-pattern=halves", "-m", "arbitrary"),
           V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_non_null(strstr(d.message, "(arbitrary: SLURM_HOSTFILE not priced: no SLURM_HOSTFILE)"));
    assert_int_equal(d.have_slowdown, 0);
    /* auto leaves the user's -m arbitrary alone, as any -m */
    decide(V("--contention=auto", "--contention-pattern=halves", "-m", "arbitrary"),
           V(ALLOC_4x4, env_hf), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "distribution chosen by the user (-m arbitrary)"));
    close(fd);
    unlink(hf);
}

static void test_forced(void **state)
{
    (void)state;
    ctp_decision d;
    decide(V("--contention=cyclic"), V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "cyclic");
    assert_int_equal(d.have_slowdown, 1);
    /* no allocation, no signature file: still forced, without a prediction */
    decide(V("--contention=block"), V("PATH=/bin"), "", &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "block");
    assert_int_equal(d.have_slowdown, 0);
    assert_int_equal(d.level, CTP_LEVEL_VERBOSE);
}

static void test_fail_open(void **state)
{
    (void)state;
    ctp_decision d;
    /* missing signature file */
    decide(V("--contention=auto"), V(ALLOC_4x4), "signatures=/nonexistent/sig.yaml", &d);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.level, CTP_LEVEL_WARNING);
    assert_non_null(
        strstr(d.message, "contention: warning: signature file: /nonexistent/sig.yaml"));
    assert_non_null(strstr(d.message, "job launched unchanged"));
    assert_null(strchr(d.message, '\n')); /* one line */
    /* strict=yes turns it into an error that stops srun */
    decide(V("--contention=auto"), V(ALLOC_4x4), "signatures=/nonexistent/sig.yaml strict=yes", &d);
    assert_int_equal(d.level, CTP_LEVEL_FATAL);
    assert_non_null(strstr(d.message, "contention: error:"));
    /* no signature file configured */
    decide(V("--contention=auto"), V(ALLOC_4x4), "", &d);
    assert_int_equal(d.level, CTP_LEVEL_WARNING);
    assert_non_null(strstr(d.message, "signatures="));
    /* unparsable geometry */
    decide(V("--contention=auto"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x", "SLURM_NTASKS=8"), "signatures=" SIGS,
           &d);
    assert_int_equal(d.level, CTP_LEVEL_WARNING);
    assert_non_null(strstr(d.message, "SLURM_JOB_CPUS_PER_NODE"));
    decide(V("--contention=auto"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x4)", "SLURM_JOB_NODELIST=n[1-3]",
             "SLURM_NTASKS=8"),
           "signatures=" SIGS, &d);
    assert_int_equal(d.level, CTP_LEVEL_WARNING);
    assert_non_null(strstr(d.message, "has 3 nodes"));
    /* a partition_fabric= naming a fabric the file lacks */
    decide(V("--contention=auto"), V(ALLOC_4x4), "signatures=" SIGS " partition_fabric=debug:ib",
           &d);
    assert_int_equal(d.level, CTP_LEVEL_WARNING);
    assert_non_null(strstr(d.message, "fabric 'ib'"));
    assert_non_null(strstr(d.message, "gige_lab, plain"));
}

/* text into a new file under /tmp; path: a "...XXXXXX" template, filled in */
static void write_temp(char *path, const char *text)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void test_unknown_partition(void **state)
{
    (void)state;
    char path[] = "/tmp/ct-test-decide-XXXXXX";
    write_temp(path, "version: 1\n"
                     "fabrics:\n"
                     "  eth:\n"
                     "    p2p: {alpha_us: 50, bandwidth_MBps: 125}\n"
                     "partitions:\n"
                     "  debug: eth\n");
    char ps[128];
    snprintf(ps, sizeof ps, "signatures=%s", path);
    ctp_decision d;
    decide(V("--contention=auto"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x4)", "SLURM_NTASKS=16",
             "SLURM_JOB_PARTITION=gpu"),
           ps, &d);
    assert_int_equal(d.level, CTP_LEVEL_WARNING);
    assert_non_null(strstr(d.message, "no fabric for partition 'gpu'"));
    /* fabric= covers partitions mapped nowhere */
    snprintf(ps, sizeof ps, "signatures=%s fabric=eth", path);
    decide(V("--contention=auto"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x4)", "SLURM_NTASKS=16",
             "SLURM_JOB_PARTITION=gpu"),
           ps, &d);
    assert_int_equal(d.set_distribution, 1);
    assert_non_null(strstr(d.message, "fabric eth (alltoall-signature)"));
    assert_non_null(strstr(d.message, "note: fabric has no Alltoall signature"));
    unlink(path);
}

/* A fabric calibrated under one TCP congestion control, srun on a job's
 * node running another (session 62; spank.c reads it only where
 * SLURMD_NODENAME is set): the decision's line says so and names the node,
 * and nothing else changes; the same one, or none read, or a fabric that
 * does not say: no word. */
static void test_tcp_congestion_control(void **state)
{
    (void)state;
    char path[] = "/tmp/ct-test-decide-XXXXXX";
    write_temp(path, "version: 1\n"
                     "fabrics:\n"
                     "  eth:\n"
                     "    tcp_congestion_control: cubic\n"
                     "    p2p: {alpha_us: 50, bandwidth_MBps: 125}\n"
                     "    intra_node_bandwidth_MBps: 5000\n"
                     "partitions:\n"
                     "  debug: eth\n");
    char ps[128];
    snprintf(ps, sizeof ps, "signatures=%s", path);
    const char *ring[] = {"--contention=report", "--contention-pattern=ring", NULL};
    ctp_decision d, same;
    node_cc = "bbr";
    decide(ring, V(ALLOC_4x4, "SLURMD_NODENAME=n1"), ps, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "fabric eth ("));
    assert_non_null(strstr(d.message, "; TCP: fabric calibrated under cubic, node n1 runs bbr"));
    /* the decision log records both (session 63), for contention-admin report */
    ctp_logctx none = {.time = 0, .job = -1, .step = -1, .uid = 0};
    char line[4096];
    assert_true(ctp_log_format(&d, &none, line, sizeof line) > 0);
    assert_non_null(strstr(line, " why=report fabric_tcp=cubic node_tcp=bbr msg=contention: "));
    node_cc = "cubic";
    decide(ring, V(ALLOC_4x4), ps, &same);
    assert_null(strstr(same.message, "TCP:"));
    assert_string_equal(same.log.choice, d.log.choice); /* the note changes no decision */
    assert_true(ctp_log_format(&same, &none, line, sizeof line) > 0);
    assert_non_null(strstr(line, " fabric_tcp=cubic node_tcp=cubic msg="));
    node_cc = "";
    decide(ring, V(ALLOC_4x4), ps, &same);
    assert_null(strstr(same.message, "TCP:"));
    assert_true(ctp_log_format(&same, &none, line, sizeof line) > 0);
    assert_non_null(strstr(line, " fabric_tcp=cubic node_tcp=- msg="));
    /* the fixture's fabric says none: no word whatever the node runs */
    node_cc = "bbr";
    decide(ring, V(ALLOC_4x4), "signatures=" SIGS, &same);
    assert_non_null(strstr(same.message, "fabric gige_lab ("));
    assert_null(strstr(same.message, "TCP:"));
    assert_true(ctp_log_format(&same, &none, line, sizeof line) > 0);
    assert_non_null(strstr(line, " fabric_tcp=- node_tcp=bbr msg="));
    node_cc = "";
    unlink(path);
}

static void test_partition_map(void **state)
{
    (void)state;
    ctp_decision d;
    decide(V("--contention=auto", "--contention-pattern=ring"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x4)", "SLURM_NTASKS=16",
             "SLURM_JOB_PARTITION=other"),
           "signatures=" SIGS, &d);
    assert_non_null(strstr(d.message, "fabric plain (none)"));
    /* plugstack.conf's mapping beats the file's */
    decide(V("--contention=auto", "--contention-pattern=ring"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x4)", "SLURM_NTASKS=16",
             "SLURM_JOB_PARTITION=other"),
           "signatures=" SIGS " partition_fabric=other:gige_lab", &d);
    assert_non_null(strstr(d.message, "fabric gige_lab (gige)"));
}

static void test_nothing_to_decide(void **state)
{
    (void)state;
    ctp_decision d;
    /* not inside an allocation */
    decide(V("--contention=auto"), V("PATH=/bin"), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.level, CTP_LEVEL_INFO);
    assert_non_null(strstr(d.message, "not inside an allocation"));
    decide(NOARGS, V("PATH=/bin"), "signatures=" SIGS " default=auto", &d);
    assert_int_equal(d.level, CTP_LEVEL_VERBOSE);
    /* one task per node whatever the mapping (salloc -N4 without -n) */
    decide(V("--contention=auto"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=1(x4)", "SLURM_JOB_NUM_NODES=4"),
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "4 tasks on 4 nodes"));
    decide(V("--contention=auto", "-n", "3"), V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_non_null(strstr(d.message, "3 tasks on 4 nodes"));
    /* a step on part of the allocation: Slurm picks the nodes */
    decide(V("--contention=auto", "-N", "2", "-n", "8"), V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "srun -N 2"));
    /* options and variables that move the step */
    decide(V("--contention=auto", "-w", "n1"), V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "--nodelist"));
    decide(V("--contention=auto"), V(ALLOC_4x4, "SLURM_OVERCOMMIT=1"), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    /* too many tasks for the CPUs: srun will say so itself */
    decide(V("--contention=auto", "-c", "2"), V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "16 tasks of 2 CPUs"));
    /* an unreadable command line leaves everything to Slurm */
    decide(V("--contention=auto", "--container-image=x"), V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.level, CTP_LEVEL_WARNING);
    assert_non_null(strstr(d.message, "--container-image"));
    /* an invalid mode is srun's to refuse: say nothing */
    decide(V("--contention=bogus"), V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.level, CTP_LEVEL_NONE);
    assert_int_equal(d.set_distribution, 0);
}

static void test_geometry_inputs(void **state)
{
    (void)state;
    ctp_decision d;
    /* SRUN_CPUS_PER_TASK counts (srun 22.05 ignores SLURM_CPUS_PER_TASK) */
    decide(V("--contention=auto"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x4)", "SLURM_NTASKS=8",
             "SLURM_CPUS_PER_TASK=4", "SLURM_JOB_PARTITION=debug"),
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 1);
    decide(V("--contention=auto"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x4)", "SLURM_NTASKS=10",
             "SRUN_CPUS_PER_TASK=2", "SLURM_JOB_PARTITION=debug"),
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "10 tasks of 2 CPUs"));
    /* --ntasks-per-node without -n: nodes x ntasks-per-node tasks */
    decide(V("--contention=auto", "--ntasks-per-node=3"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x4)", "SLURM_JOB_NUM_NODES=4"),
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 1);
    assert_non_null(strstr(d.message, "12 tasks on 4 nodes"));
    /* the uneven allocation of `salloc -N8 -n16` */
    decide(V("--contention=auto", "--contention-pattern=halves"),
           V("SLURM_JOB_ID=1", "SLURM_JOB_CPUS_PER_NODE=4(x2),3,1(x5)", "SLURM_NTASKS=16",
             "SLURM_JOB_NODELIST=n[1-8]", "SLURM_NNODES=8"),
           "signatures=" SIGS " min_gain=off", &d); /* block vs cyclic only */
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "cyclic");
    assert_non_null(strstr(d.message, "16 tasks on 8 nodes"));
}

/* A small mutable environment for envmark.c. */
typedef struct menv {
    char vars[8][128];
    int n;
} menv;

static const char *menv_get(const char *name, void *ctx)
{
    menv *e = ctx;
    size_t n = strlen(name);
    for (int i = 0; i < e->n; i++)
        if (strncmp(e->vars[i], name, n) == 0 && e->vars[i][n] == '=')
            return e->vars[i] + n + 1;
    return NULL;
}

static int menv_set(const char *name, const char *value, void *ctx)
{
    menv *e = ctx;
    size_t n = strlen(name);
    for (int i = 0; i < e->n; i++)
        if (strncmp(e->vars[i], name, n) == 0 && e->vars[i][n] == '=') {
            if (value)
                snprintf(e->vars[i], sizeof e->vars[i], "%s=%s", name, value);
            else
                memmove(e->vars[i], e->vars[--e->n], sizeof e->vars[i]);
            return 0;
        }
    if (value && e->n < 8)
        snprintf(e->vars[e->n++], sizeof e->vars[0], "%s=%s", name, value);
    return 0;
}

/* Issue 10, defect 1: what the plugin sets for srun never passes for the
 * user's choice later. */
static void test_envmark(void **state)
{
    (void)state;
    menv e = {.n = 0};
    assert_int_equal(ctp_set_ours("SLURM_DISTRIBUTION", "cyclic", menv_set, &e), 0);
    assert_string_equal(menv_get("SLURM_DISTRIBUTION", &e), "cyclic");
    assert_string_equal(menv_get("SLURM_CONTENTION_SET_SLURM_DISTRIBUTION", &e), "cyclic");
    assert_int_equal(ctp_set_ours("PATH", "/x", menv_set, &e), -1); /* not ours to set */

    /* the step: both go */
    menv step = e;
    assert_int_equal(ctp_strip_step_env(menv_get, menv_set, &step), 1);
    assert_null(menv_get("SLURM_DISTRIBUTION", &step));
    assert_null(menv_get("SLURM_CONTENTION_SET_SLURM_DISTRIBUTION", &step));
    assert_int_equal(step.n, 0);
    /* a step without a marker keeps a user's SLURM_DISTRIBUTION */
    menv user = {.n = 0};
    menv_set("SLURM_DISTRIBUTION", "block", &user);
    assert_int_equal(ctp_strip_step_env(menv_get, menv_set, &user), 0);
    assert_string_equal(menv_get("SLURM_DISTRIBUTION", &user), "block");

    /* a later srun: a value equal to the marker was left by the plugin */
    char note[64];
    menv left = e;
    assert_int_equal(ctp_forget_ours(menv_get, menv_set, &left, note, sizeof note), 1);
    assert_string_equal(note, "SLURM_DISTRIBUTION");
    assert_int_equal(left.n, 0);
    /* ... a value the user changed after is the user's */
    menv changed = e;
    menv_set("SLURM_DISTRIBUTION", "block", &changed);
    assert_int_equal(ctp_forget_ours(menv_get, menv_set, &changed, note, sizeof note), 0);
    assert_string_equal(menv_get("SLURM_DISTRIBUTION", &changed), "block");
    assert_null(menv_get("SLURM_CONTENTION_SET_SLURM_DISTRIBUTION", &changed));
    /* ... and the decision then keeps the user's distribution */
    const char *const vars[] = {ALLOC_4x4, "SLURM_DISTRIBUTION=block", NULL};
    ctp_decision d;
    decide(V("--contention=auto", "--contention-pattern=halves"), vars, "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "chosen by the user"));

    /* the interactive step (use_interactive_step's shell) is never laid out */
    const char *const alloc[] = {ALLOC_4x4, NULL};
    decide(V("--interactive", "--preserve-env", "--pty"), alloc,
           "signatures=" SIGS " default=auto pattern=halves", &d);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.mapping[0], '\0');
    assert_non_null(strstr(d.message, "interactive step"));
    /* the same srun without --interactive would have set cyclic */
    decide(V("--preserve-env"), alloc, "signatures=" SIGS " default=auto pattern=halves", &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "cyclic");
}

/* Issue 10, defect 3: -c from the environment follows the release: 22.05
 * and 23.02 read SRUN_CPUS_PER_TASK, 23.11 on SLURM_CPUS_PER_TASK. On 4 x 4
 * with 8 tasks, 2 CPUs each fill every node (block = cyclic by node count),
 * 1 CPU each leaves room: the message's task slots tell which was read. */
static void test_cpus_per_task_by_release(void **state)
{
    (void)state;
    ctp_decision d;
    const char *const slurm_cpt[] = {ALLOC_4x4, "SLURM_CPUS_PER_TASK=8", NULL};
    const char *const srun_cpt[] = {ALLOC_4x4, "SRUN_CPUS_PER_TASK=8", NULL};
    /* tasks of 8 CPUs do not fit nodes of 4 (defect 2: left to Slurm): that
     * is how we see which variable -c was read from */
    decide_v(CTP_SLURM_22_05, V("--contention=report"), slurm_cpt, "signatures=" SIGS, &d);
    assert_null(strstr(d.message, "fewer than the 8"));
    decide_v(CTP_SLURM_22_05, V("--contention=report"), srun_cpt, "signatures=" SIGS, &d);
    assert_non_null(strstr(d.message, "has 4 CPUs, fewer than the 8 of a task"));
    decide_v(CTP_SLURM_23_11, V("--contention=report"), slurm_cpt, "signatures=" SIGS, &d);
    assert_non_null(strstr(d.message, "has 4 CPUs, fewer than the 8 of a task"));
    decide_v(CTP_SLURM_23_11, V("--contention=report"), srun_cpt, "signatures=" SIGS, &d);
    assert_null(strstr(d.message, "fewer than the 8"));
    decide_v(CTP_SLURM_26_05, V("--contention=report"), slurm_cpt, "signatures=" SIGS, &d);
    assert_non_null(strstr(d.message, "has 4 CPUs, fewer than the 8 of a task"));
}


/* A fabric with a switch tree (issue 14): 2 tasks per node on n[1-4] under
 * two leaves with 4:1 uplinks; ring/block crosses each uplink once, cyclic
 * twice: block chosen, the report names the tree and the busiest link. Nodes
 * missing from the tree: scored as one switch, said so, job not failed. */
static void test_switch_tree(void **state)
{
    (void)state;
    ctp_decision d;
#define ALLOC_2x4                                                                                  \
    "SLURM_JOB_ID=12", "SLURM_JOB_CPUS_PER_NODE=2(x4)", "SLURM_JOB_NUM_NODES=4", "SLURM_NTASKS=8"
    decide(V("--contention=auto", "--contention-pattern=ring"),
           V(ALLOC_2x4, "SLURM_JOB_NODELIST=n[1-4]"),
           "signatures=" CT_FIXTURES "/plugin/tree.yaml", &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "block");
    assert_non_null(strstr(d.message, "switch tree: 2 leaves, busiest link leaf1 uplink"));
    decide(V("--contention=auto", "--contention-pattern=ring"),
           V(ALLOC_2x4, "SLURM_JOB_NODELIST=n[1-3],m9"),
           "signatures=" CT_FIXTURES "/plugin/tree.yaml", &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "block");
    assert_non_null(strstr(d.message, "switch tree not used: node 'm9' is not in the fabric"));
    /* leaves interleaved in Slurm's order: block and cyclic both cross the
     * uplinks at every node boundary (ring: 4 x alone on the 4:1 uplink);
     * the placement search's switch-ordered block (n1 n3 | n2 n4) crosses
     * once per direction (2 x alone) and is launched through the hostfile */
    decide(V("--contention=auto", "--contention-pattern=ring"),
           V(ALLOC_2x4, "SLURM_JOB_NODELIST=n[1-4]"),
           "signatures=" CT_FIXTURES "/plugin/tree_interleaved.yaml", &d);
    assert_int_equal(d.use_hostfile, 1);
    assert_string_equal(d.distribution, "arbitrary");
    assert_string_equal(d.mapping, "optimized");
    assert_non_null(strstr(d.message, "(switch start), 50% faster"));
    assert_int_equal(d.ntasks, 8);
    static const int want[8] = {0, 0, 2, 2, 1, 1, 3, 3}; /* n1 n1 n3 n3 n2 n2 n4 n4 */
    for (int t = 0; t < 8; t++)
        assert_int_equal(d.node_of[t], want[t]);
    ctp_decision_free(&d);
}

/* The optimized candidate (placement.c). A concurrent 4x4 halo2d on 4 nodes
 * x 4 tasks: 2x2 tiles cut the remote communications from 24 to 16 and
 * halve the busiest NIC (test_placement.c), which the model predicts well
 * past the default min_gain of 10 %. */
static void assert_tiles(const ctp_decision *d)
{
    assert_int_equal(d->ntasks, 16);
    assert_non_null(d->node_of);
    static const int tile[4][4] = {{0, 1, 4, 5}, {2, 3, 6, 7}, {8, 9, 12, 13}, {10, 11, 14, 15}};
    for (int t = 0; t < 4; t++)
        for (int i = 1; i < 4; i++)
            assert_int_equal(d->node_of[tile[t][i]], d->node_of[tile[t][0]]);
}

static void test_optimized_auto(void **state)
{
    (void)state;
    ctp_decision d;
    decide(V("--contention=auto", "--contention-pattern=halo2d"), V(ALLOC_4x4),
           "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 1);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "arbitrary");
    assert_string_equal(d.mapping, "optimized");
    assert_string_equal(d.fallback, "block"); /* block and cyclic tie: Slurm's default */
    assert_tiles(&d);
    assert_int_equal(d.level, CTP_LEVEL_VERBOSE);
    assert_non_null(strstr(d.message, "contention: optimized placement chosen (auto)"));
    assert_non_null(strstr(d.message, "min_gain 10%"));
    /* the hostfile cannot be written: block instead, one line */
    ctp_decision_fallback(&d, "hostfile: no space left on device");
    assert_int_equal(d.use_hostfile, 0);
    assert_null(d.node_of);
    assert_string_equal(d.distribution, "block");
    assert_string_equal(d.mapping, "block");
    assert_int_equal(d.level, CTP_LEVEL_INFO);
    assert_non_null(strstr(d.message, "contention: optimized placement not launched (hostfile: "
                                      "no space left on device): block chosen instead"));
    assert_null(strchr(d.message, '\n'));
    ctp_decision_free(&d);

    /* past what the admin asks for: block and cyclic only */
    decide(V("--contention=auto", "--contention-pattern=halo2d"), V(ALLOC_4x4),
           "signatures=" SIGS " min_gain=99%", &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_string_equal(d.distribution, "block");
    assert_non_null(strstr(d.message, "block chosen (auto"));
    assert_non_null(strstr(d.message, "optimized "));
    ctp_decision_free(&d);
    /* min_gain=off: no search in auto */
    decide(V("--contention=auto", "--contention-pattern=halo2d"), V(ALLOC_4x4),
           "signatures=" SIGS " min_gain=off", &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_null(strstr(d.message, "optimized"));
    /* a ring is best in rank order: never a hostfile */
    decide(V("--contention=auto", "--contention-pattern=ring"), V(ALLOC_4x4), "signatures=" SIGS,
           &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_string_equal(d.distribution, "block");
    assert_non_null(strstr(d.message, "optimized = block (nothing predicted faster)"));
    /* report says what optimized would do, changes nothing */
    decide(V("--contention=report", "--contention-pattern=halo2d"), V(ALLOC_4x4),
           "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "optimized "));
    ctp_decision_free(&d);
}

/* A placement is launched only when it is predicted faster than the
 * scorer's winner too: measure's LAMMPS pppm recording (2 per node) under
 * budget_ms, the search skipped the trace replay and compared screenings:
 * "block 2.95 s, cyclic 3.27 s, optimized 4.42 s (scotch, gain 12%)" - the
 * placement is 50 % slower than block by the scorer's replayed times. */
static void test_optimized_beats(void **state)
{
    (void)state;
    ctp_placed p;
    memset(&p, 0, sizeof p);
    p.have = 1;
    p.explicit_layout = 1;
    p.predicted_s = 4.42;
    p.gain = 0.12;
    assert_false(ctp_optimized_beats(&p, 2.95));
    p.predicted_s = 2.5;
    assert_true(ctp_optimized_beats(&p, 2.95));
    assert_false(ctp_optimized_beats(&p, 2.5)); /* a tie keeps the scorer's layout */
    p.explicit_layout = 0;
    assert_false(ctp_optimized_beats(&p, 2.95));
    p.explicit_layout = 1;
    p.have = 0;
    assert_false(ctp_optimized_beats(&p, 2.95));
    assert_false(ctp_optimized_beats(NULL, 2.95));
    p.have = 1;
    p.predicted_s = -1; /* not verified */
    assert_false(ctp_optimized_beats(&p, 2.95));
}

static void test_optimized_forced(void **state)
{
    (void)state;
    ctp_decision d;
    /* forced: launched whatever min_gain says */
    decide(V("--contention=optimized", "--contention-pattern=halo2d"), V(ALLOC_4x4),
           "signatures=" SIGS " min_gain=99%", &d);
    assert_int_equal(d.use_hostfile, 1);
    assert_string_equal(d.distribution, "arbitrary");
    assert_tiles(&d);
    assert_non_null(strstr(d.message, "contention: optimized placement forced"));
    ctp_decision_free(&d);
    /* nothing better than block for a ring: block is launched, and said */
    decide(V("--contention=optimized", "--contention-pattern=ring"), V(ALLOC_4x4),
           "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_string_equal(d.distribution, "block");
    assert_int_equal(d.level, CTP_LEVEL_INFO);
    assert_non_null(strstr(d.message, "no placement predicted faster than block"));
    /* the user's -m always wins */
    decide(V("--contention=optimized", "--contention-pattern=halo2d", "-m", "cyclic"),
           V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "distribution chosen by the user"));
    /* --ntasks-per-node: arbitrary distribution is not offered, one line */
    decide(V("--contention=optimized", "--contention-pattern=halo2d", "--ntasks-per-node=4"),
           V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_string_equal(d.distribution, "block");
    assert_int_equal(d.level, CTP_LEVEL_INFO);
    assert_non_null(strstr(d.message, "contention: optimized placement not launched "
                                      "(--ntasks-per-node 4 is in force"));
    ctp_decision_free(&d);
    /* -N on the command line: srun 23.11+ exits with "--nodes is
     * incompatible with --distribution=arbitrary", so block is launched
     * with one line; 22.05 and 23.02 take it */
    decide_v(CTP_SLURM_24_11, V("--contention=optimized", "--contention-pattern=halo2d", "-N", "4"),
             V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_string_equal(d.distribution, "block");
    assert_int_equal(d.level, CTP_LEVEL_INFO);
    assert_non_null(strstr(d.message, "contention: optimized placement not launched (srun -N 4: "
                                      "Slurm 24.11 refuses -N with arbitrary distribution)"));
    assert_null(strchr(d.message, '\n'));
    ctp_decision_free(&d);
    decide_v(CTP_SLURM_23_11, V("--contention=auto", "--contention-pattern=halo2d", "-N4"),
             V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 0);
    assert_non_null(strstr(d.message, "Slurm 23.11 refuses -N with arbitrary distribution"));
    ctp_decision_free(&d);
    decide_v(CTP_SLURM_23_02, V("--contention=optimized", "--contention-pattern=halo2d", "-N", "4"),
             V(ALLOC_4x4), "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 1);
    assert_tiles(&d);
    ctp_decision_free(&d);
    /* salloc's SLURM_NNODES (-N from the environment) is accepted by srun */
    decide_v(CTP_SLURM_24_11, V("--contention=optimized", "--contention-pattern=halo2d"),
             V(ALLOC_4x4, "SLURM_NNODES=4"), "signatures=" SIGS, &d);
    assert_int_equal(d.use_hostfile, 1);
    ctp_decision_free(&d);
}

/* the hostfile: one host per task, in task order, 0644, in the directory */
static void test_write_hostfile(void **state)
{
    (void)state;
    char dir[] = "/tmp/ct-hostfile-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *hosts[] = {"n1", "n2", "n3"};
    int32_t node_of[] = {2, 0, 0, 1, 2};
    char path[256];
    ct_err err = {{0}};
    assert_int_equal(ctp_write_hostfile(dir, node_of, 5, hosts, 3, path, sizeof path, &err), 0);
    assert_int_equal(strncmp(path, dir, strlen(dir)), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[64] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    assert_string_equal(buf, "n3\nn1\nn1\nn2\nn3\n");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    unlink(path);
    /* a node outside the list, a relative directory, a missing one */
    int32_t bad[] = {0, 3};
    assert_int_equal(ctp_write_hostfile(dir, bad, 2, hosts, 3, path, sizeof path, &err), -1);
    assert_non_null(strstr(err.msg, "task 1 on node 3 but the node list has 3 hosts"));
    assert_int_equal(ctp_write_hostfile("tmp", node_of, 5, hosts, 3, path, sizeof path, &err),
                     -1);
    assert_non_null(strstr(err.msg, "not an absolute path"));
    assert_int_equal(
        ctp_write_hostfile("/nonexistent/dir", node_of, 5, hosts, 3, path, sizeof path, &err), -1);
    assert_non_null(strstr(err.msg, "cannot create /nonexistent/dir/contention-hostfile."));
    rmdir(dir);
}

/* Hostfiles of sruns killed before slurm_spank_exit: a later srun removes
 * those of dead pids that are old enough, and nothing else. */
static void test_sweep_hostfiles(void **state)
{
    (void)state;
    char dir[] = "/tmp/ct-sweep-XXXXXX";
    assert_non_null(mkdtemp(dir));
    pid_t dead = fork();
    assert_true(dead >= 0);
    if (dead == 0)
        _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead); /* reaped: that pid is gone */
    const time_t now = time(NULL);
    struct {
        long pid;
        const char *tail;
        time_t age;
        int gone; /* expected removed */
    } f[] = {
        {(long)dead, ".aaaaaa", 3600, 1},          /* dead srun, old: removed */
        {(long)dead, ".bbbbbb", 5, 0},             /* dead but young: kept */
        {(long)getpid(), ".cccccc", 3600, 0},      /* live pid: kept */
        {-1, "", 3600, 0},                         /* old name without a pid: kept */
    };
    char path[4][300];
    for (int i = 0; i < 4; i++) {
        if (f[i].pid > 0)
            snprintf(path[i], sizeof path[i], "%s/" CTP_HOSTFILE_PREFIX "%ld%s", dir, f[i].pid,
                     f[i].tail);
        else
            snprintf(path[i], sizeof path[i], "%s/" CTP_HOSTFILE_PREFIX "Zx81Qa", dir);
        FILE *fp = fopen(path[i], "w");
        assert_non_null(fp);
        fclose(fp);
        struct timeval tv[2] = {{.tv_sec = now - f[i].age}, {.tv_sec = now - f[i].age}};
        assert_int_equal(utimes(path[i], tv), 0);
    }
    /* a symlink named like a dead srun's file is not followed nor removed */
    char link[300];
    snprintf(link, sizeof link, "%s/" CTP_HOSTFILE_PREFIX "%ld.dddddd", dir, (long)dead);
    assert_int_equal(symlink("/etc/passwd", link), 0);
    /* another user's files are not ours */
    assert_int_equal(ctp_sweep_hostfiles(dir, getuid() + 1, now), 0);
    assert_int_equal(ctp_sweep_hostfiles(dir, getuid(), now), 1);
    for (int i = 0; i < 4; i++)
        assert_int_equal(access(path[i], F_OK) == 0, !f[i].gone);
    assert_int_equal(ctp_sweep_hostfiles("/nonexistent/dir", getuid(), now), 0);
    assert_int_equal(ctp_sweep_hostfiles("relative", getuid(), now), 0);
    /* ctp_write_hostfile names its file with this process's pid */
    char *hosts[] = {"n1"};
    int32_t node_of[] = {0};
    char mine[256], want[64];
    ct_err err = {{0}};
    assert_int_equal(ctp_write_hostfile(dir, node_of, 1, hosts, 1, mine, sizeof mine, &err), 0);
    snprintf(want, sizeof want, "/" CTP_HOSTFILE_PREFIX "%ld.", (long)getpid());
    assert_non_null(strstr(mine, want));
    unlink(mine);
    unlink(link);
    for (int i = 0; i < 4; i++)
        unlink(path[i]);
    assert_int_equal(rmdir(dir), 0);
}

/* A step the plugin does not model: one line naming want and "layout left to
 * Slurm", at info level, nothing set, nothing priced. */
static void assert_left_alone(const char *opt, const char *mode, const char *const *vars,
                              const char *want)
{
    ctp_decision d;
    decide(V(opt, mode, "--contention-pattern=halves"), vars, "signatures=" SIGS, &d);
    if (!strstr(d.message, want) || !strstr(d.message, "layout left to Slurm"))
        fail_msg("%s %s: got '%s'", opt, mode, d.message);
    assert_int_equal(d.level, CTP_LEVEL_INFO);
    assert_int_equal(d.set_distribution, 0);
    assert_int_equal(d.use_hostfile, 0);
    assert_int_equal(d.have_slowdown, 0);
    assert_string_equal(d.mapping, "");
    assert_string_equal(d.log.why, "not-modelled");
    ctp_decision_free(&d);
}

/* Heterogeneous jobs and steps (seen on a real cluster, session 42): salloc
 * of two components sets only the *_HET_GROUP_<n> allocation variables, and
 * its sruns were told "not inside an allocation"; a step with ':' said
 * nothing at all, even to an explicit --contention. Session 43: a step on one
 * component (--het-group=N, component 0 by default) is decided on that
 * component's allocation, read as srun reads it (hetjob.c); a step on several
 * names what it is, once, and is left as Slurm lays it out. */
static void test_heterogeneous(void **state)
{
    (void)state;
    ctp_decision d;
    static const char *const salloc_het[] = {
        "SLURM_JOB_ID=2", "SLURM_HET_SIZE=2", "SLURM_JOB_CPUS_PER_NODE_HET_GROUP_0=2",
        "SLURM_JOB_CPUS_PER_NODE_HET_GROUP_1=4(x3)", "SLURM_JOB_NODELIST_HET_GROUP_0=n1",
        "SLURM_JOB_NODELIST_HET_GROUP_1=n[2-4]", "SLURM_NTASKS_HET_GROUP_0=2",
        "SLURM_NTASKS_HET_GROUP_1=12", "SLURM_JOB_ID_HET_GROUP_1=3", NULL};
    /* component 1: 12 tasks on its 3 nodes of 4 CPUs, halves -> cyclic */
    decide(V("--het-group=1", "--contention=auto", "--contention-pattern=halves"), salloc_het,
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "cyclic");
    assert_string_equal(d.log.cpus, "4(x3)");
    assert_int_equal(d.log.nodes, 3);
    assert_int_equal(d.log.tasks, 12);
    if (!strstr(d.message, "12 tasks on 3 nodes") ||
        !strstr(d.message, "[heterogeneous job: component 1 of 2]"))
        fail_msg("got '%s'", d.message);
    /* ring on it -> block; --pack-group is the old name */
    ctp_decision_free(&d);
    decide(V("--pack-group", "1", "--contention=auto", "--contention-pattern=ring"), salloc_het,
           "signatures=" SIGS, &d);
    assert_string_equal(d.distribution, "block");
    /* the default component is 0: 2 tasks on its one node */
    ctp_decision_free(&d);
    decide(V("--contention=auto", "--contention-pattern=halves"), salloc_het, "signatures=" SIGS,
           &d);
    assert_int_equal(d.log.nodes, 1);
    assert_int_equal(d.log.tasks, 2);
    assert_string_equal(d.log.cpus, "2");
    assert_non_null(strstr(d.message, "[heterogeneous job: component 0 of 2]"));
    /* a batch script: component 0's variables also unsuffixed, which do not
     * reach a step on component 1 (its own override them) */
    static const char *const batch_het[] = {
        "SLURM_JOB_ID=2", "SLURM_HET_SIZE=2", "SLURM_JOB_CPUS_PER_NODE=2",
        "SLURM_JOB_NODELIST=n1", "SLURM_JOB_NUM_NODES=1", "SLURM_NTASKS=2",
        "SLURM_JOB_CPUS_PER_NODE_HET_GROUP_0=2", "SLURM_JOB_CPUS_PER_NODE_HET_GROUP_1=4(x3)",
        "SLURM_JOB_NODELIST_HET_GROUP_0=n1", "SLURM_JOB_NODELIST_HET_GROUP_1=n[2-4]",
        "SLURM_JOB_NUM_NODES_HET_GROUP_1=3", "SLURM_NTASKS_HET_GROUP_1=8", NULL};
    ctp_decision_free(&d);
    decide(V("--het-group=1", "--contention=auto", "--contention-pattern=halves"), batch_het,
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 1); /* 8 tasks on 12 CPUs: an optimized placement */
    assert_int_equal(d.log.tasks, 8);
    assert_int_equal(d.log.nodes, 3);
    /* the component's own -m is the user's choice */
    static const char *const het_dist[] = {
        "SLURM_JOB_ID=2", "SLURM_HET_SIZE=2", "SLURM_JOB_CPUS_PER_NODE_HET_GROUP_0=2",
        "SLURM_JOB_CPUS_PER_NODE_HET_GROUP_1=4(x3)", "SLURM_JOB_NODELIST_HET_GROUP_1=n[2-4]",
        "SLURM_NTASKS_HET_GROUP_1=12", "SLURM_DISTRIBUTION_HET_GROUP_1=block", NULL};
    ctp_decision_free(&d);
    decide(V("--het-group=1", "--contention=auto", "--contention-pattern=halves"), het_dist,
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_string_equal(d.log.why, "user-env");
    assert_non_null(strstr(d.message, "SLURM_DISTRIBUTION=block"));
    /* forced cyclic on one component is set (it reaches that component only) */
    ctp_decision_free(&d);
    decide(V("--het-group=1", "--contention=cyclic"), salloc_het, "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "cyclic");

    /* not modelled: several components, a component the job lacks, a value
     * srun refuses, --het-group in a job of one component, a component
     * whose allocation is not in the environment */
    const char *const one_job[] = {ALLOC_4x4, NULL};
    const char *const one_job_het_size[] = {ALLOC_4x4, "SLURM_HET_SIZE=2", NULL};
    const struct {
        const char *opt;
        const char *const *vars;
        const char *want;
    } left[] = {
        {"--het-group=0,1", salloc_het, "srun --het-group=0,1 launches one step on several"},
        {"--het-group=[0-1]", salloc_het, "on several components"},
        {"--het-group=2", salloc_het, "srun --het-group=2: the heterogeneous job has 2 components"},
        {"--het-group=1x", salloc_het, "srun --het-group: invalid --het-group '1x'"},
        {"--het-group=0", one_job, "srun --het-group=0 in a job of one component"},
        {"--het-group=1", one_job_het_size,
         "heterogeneous job (2 components): component 1's allocation is not in the environment"},
    };
    static const char *const forced[] = {"--contention=auto", "--contention=report",
                                         "--contention=cyclic", "--contention=optimized"};
    for (size_t i = 0; i < sizeof left / sizeof *left; i++)
        for (size_t m = 0; m < sizeof forced / sizeof *forced; m++)
            assert_left_alone(left[i].opt, forced[m], left[i].vars, left[i].want);
    /* transparent (default=auto, no option): one line under srun -v only */
    ctp_decision_free(&d);
    decide(V("--het-group=0,1"), salloc_het, "signatures=" SIGS " default=auto", &d);
    assert_non_null(strstr(d.message, "on several components"));
    assert_int_equal(d.level, CTP_LEVEL_VERBOSE);

    /* srun A : B in a job of one component */
    const char *const alloc[] = {ALLOC_4x4, NULL};
    static const char *const modes[] = {"--contention=auto", "--contention=report",
                                        "--contention=cyclic", "--contention=optimized"};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        ctp_decision_free(&d);
        decide(V(modes[i], "--contention-pattern=halves", "-n2", "a", ":", "-n2", "b"), alloc,
               "signatures=" SIGS, &d);
        if (!strstr(d.message, "srun ':' launches a heterogeneous step"))
            fail_msg("%s: got '%s'", modes[i], d.message);
        assert_int_equal(d.level, CTP_LEVEL_INFO);
        /* nothing set: SLURM_DISTRIBUTION would reach every component */
        assert_int_equal(d.set_distribution, 0);
        assert_int_equal(d.use_hostfile, 0);
        assert_int_equal(d.have_slowdown, 0);
        assert_string_equal(d.mapping, "");
    }
    ctp_decision_free(&d);
    decide(V("-n2", "a", ":", "-n2", "b"), alloc, "signatures=" SIGS " default=auto", &d);
    assert_int_equal(d.level, CTP_LEVEL_VERBOSE);
    assert_int_equal(d.set_distribution, 0);
    /* off stays silent */
    ctp_decision_free(&d);
    decide(V("--contention=off", "-n2", "a", ":", "-n2", "b"), alloc, "signatures=" SIGS, &d);
    assert_int_equal(d.level, CTP_LEVEL_NONE);
    ctp_decision_free(&d);
}

/* srun -M/--clusters inside an allocation looks SLURM_JOB_ID up on the first
 * cluster it names (Slurm's srun/allocate.c, existing_allocation): on this
 * allocation's own cluster the step is decided, on another it is another
 * job's, and left to Slurm with one line. */
static void test_clusters(void **state)
{
    (void)state;
    ctp_decision d;
    static const char *const here[] = {ALLOC_4x4, "SLURM_CLUSTER_NAME=emu", NULL};
    static const char *const here_env_other[] = {ALLOC_4x4, "SLURM_CLUSTER_NAME=emu",
                                                 "SLURM_CLUSTERS=other", NULL};
    static const char *const nameless[] = {ALLOC_4x4, NULL};
    /* this cluster, however spelt: decided as without -M */
    const char *const same[] = {"-Memu", "--clusters=EMU", "-Memu,other", "--cluster=emu"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        decide(V(same[i], "--contention=auto", "--contention-pattern=halves"), here,
               "signatures=" SIGS, &d);
        if (!d.set_distribution || strcmp(d.distribution, "cyclic") != 0)
            fail_msg("%s: got '%s'", same[i], d.message);
        ctp_decision_free(&d);
    }
    decide(V("-M", "emu", "--contention=auto", "--contention-pattern=halves"), here,
           "signatures=" SIGS, &d);
    if (!d.set_distribution || strcmp(d.distribution, "cyclic") != 0)
        fail_msg("-M emu: got '%s'", d.message);
    ctp_decision_free(&d);
    /* the command line's -M is the one srun takes over SLURM_CLUSTERS */
    decide(V("-M", "emu", "--contention=auto", "--contention-pattern=halves"), here_env_other,
           "signatures=" SIGS, &d);
    assert_string_equal(d.distribution, "cyclic");
    ctp_decision_free(&d);
    /* another cluster, first in a list, from the environment, or this one
     * not known: one line, nothing set, for every mode */
    const struct {
        const char *opt;
        const char *const *vars;
        const char *want;
    } left[] = {
        {"-Mother", here, "srun -M other sends the step to cluster other's job 12, which is not "
                          "this allocation (cluster emu): layout left to Slurm"},
        {"--clusters=other,emu", here, "cluster other's job 12"},
        {"--cluster=other", here, "cluster other's job 12"},
        {"--contention-size=1M", here_env_other,
         "srun with SLURM_CLUSTERS=other sends the step to cluster other's job 12"},
        {"-Memu", nameless, "(no SLURM_CLUSTER_NAME tells this one's)"},
        {"--clusters=emuu", here, "cluster emuu's job"},
        {"--clusters=em", here, "cluster em's job"},
    };
    static const char *const modes[] = {"--contention=auto", "--contention=report",
                                        "--contention=optimized"};
    for (size_t i = 0; i < sizeof left / sizeof *left; i++)
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
            assert_left_alone(left[i].opt, modes[m], left[i].vars, left[i].want);
    /* a forced distribution is what srun -m would be on any cluster: set */
    decide(V("-Mother", "--contention=cyclic"), here, "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 1);
    assert_string_equal(d.distribution, "cyclic");
    ctp_decision_free(&d);
    /* transparent (default=auto): the same line under srun -v only */
    decide(V("-Mother"), here, "signatures=" SIGS " default=auto", &d);
    assert_int_equal(d.level, CTP_LEVEL_VERBOSE);
    assert_int_equal(d.set_distribution, 0);
    ctp_decision_free(&d);
}

/* Issue 10, defect 2: site CPU settings the layout model does not cover are
 * detected and left to Slurm with one line naming the reason. */
static void test_site_cpu_settings(void **state)
{
    (void)state;
    ctp_decision d;
    static const struct {
        const char *var, *want;
    } cases[] = {
        {"SLURM_HINT=nomultithread", "SLURM_HINT=nomultithread is set"},
        {"SLURM_THREADS_PER_CORE=1", "SLURM_THREADS_PER_CORE=1 is set (threads per core)"},
        {"SLURM_NTASKS_PER_CORE=1", "SLURM_NTASKS_PER_CORE=1 is set (tasks per core)"},
        {"SLURM_GPUS_PER_TASK=1", "GPUs per task"},
        {"SLURM_CPUS_PER_GPU=4", "CPUs per GPU"},
        {"SLURM_EXCLUSIVE=user", "SLURM_EXCLUSIVE=user is set (--exclusive)"},
        {"SLURM_EXACT=1", "(--exact)"},
        {"SLURM_HET_SIZE=2", "heterogeneous job (2 components)"},
        {"SLURM_JOB_CPUS_PER_NODE_HET_GROUP_1=4(x2)", "heterogeneous job"},
        {"SLURM_STEP_ID=3", "srun inside step 3, which holds CPUs"},
        {"SLURM_STEP_ID=-20", "srun inside step -20, which holds CPUs"},
        {"SLURM_STEP_ID=4294967280", "srun inside step 4294967280, which holds CPUs"},
        {"SLURM_STEP_ID=3x", "srun inside step 3x, which holds CPUs"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const vars[] = {ALLOC_4x4, cases[i].var, NULL};
        decide(V("--contention=auto", "--contention-pattern=halves"), vars, "signatures=" SIGS, &d);
        assert_int_equal(d.set_distribution, 0);
        if (!strstr(d.message, cases[i].want))
            fail_msg("%s: got '%s'", cases[i].var, d.message);
        assert_int_equal(d.level, CTP_LEVEL_INFO); /* one line, at default verbosity */
    }
    /* the interactive, batch and extern steps hold no CPUs; --overlap shares
     * them. slurm.h: interactive 0xfffffffa, batch 0xfffffffb, extern
     * 0xfffffffc; 22.05/24.11 print them unsigned, 26.05 signed (-6 seen in
     * its use_interactive_step shell) */
    static const char *const free_steps[] = {
        "SLURM_STEP_ID=4294967290", "SLURM_STEP_ID=4294967291", "SLURM_STEP_ID=4294967292",
        "SLURM_STEP_ID=4294967294", "SLURM_STEP_ID=4294967295", "SLURM_STEP_ID=-6",
        "SLURM_STEP_ID=-5",         "SLURM_STEP_ID=-4"};
    for (size_t i = 0; i < sizeof free_steps / sizeof *free_steps; i++) {
        const char *const vars[] = {ALLOC_4x4, free_steps[i], NULL};
        decide(V("--contention=auto", "--contention-pattern=halves"), vars, "signatures=" SIGS, &d);
        assert_int_equal(d.set_distribution, 1);
        assert_string_equal(d.distribution, "cyclic");
    }
    /* other steps running beside this srun (a background `srun &` in a
     * batch script), as slurmctld lists them */
    const char *const alloc4[] = {ALLOC_4x4, NULL};
    busy_count = 1, busy_list = "0";
    decide(V("--contention=auto", "--contention-pattern=halves"), alloc4, "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "step 0 of this job is running and holds CPUs"));
    assert_int_equal(d.level, CTP_LEVEL_INFO);
    busy_count = 2, busy_list = "0,3";
    decide(V("--contention=auto", "--contention-pattern=halves"), alloc4, "signatures=" SIGS, &d);
    assert_non_null(strstr(d.message, "steps 0,3 of this job are running and hold CPUs"));
    decide(V("--overlap", "--contention=auto", "--contention-pattern=halves"), alloc4,
           "signatures=" SIGS, &d); /* --overlap: this step may use their CPUs */
    assert_string_equal(d.distribution, "cyclic");
    busy_count = 0, busy_list = "";
    const char *const in_step[] = {ALLOC_4x4, "SLURM_STEP_ID=3", NULL};
    decide(V("--overlap", "--contention=auto", "--contention-pattern=halves"), in_step,
           "signatures=" SIGS, &d);
    assert_string_equal(d.distribution, "cyclic");
    /* 23.11+: SLURM_TRES_PER_TASK=cpu=N is -c; anything else is not modelled */
    const char *const tres_cpu[] = {ALLOC_4x4, "SLURM_TRES_PER_TASK=cpu=1", NULL};
    decide_v(CTP_SLURM_23_11, V("--contention=auto", "--contention-pattern=halves"), tres_cpu,
             "signatures=" SIGS, &d);
    assert_string_equal(d.distribution, "cyclic");
    const char *const tres_gpu[] = {ALLOC_4x4, "SLURM_TRES_PER_TASK=cpu=1,gres/gpu=1", NULL};
    decide_v(CTP_SLURM_23_11, V("--contention=auto", "--contention-pattern=halves"), tres_gpu,
             "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "SLURM_TRES_PER_TASK=cpu=1,gres/gpu=1"));
    /* srun options: --hint, --ntasks-per-core, --mem-per-cpu, --exclusive */
    static const char *const opts[] = {"--hint=nomultithread", "--ntasks-per-core=1",
                                       "--mem-per-cpu=100", "--exclusive", "--gpus-per-task=1"};
    const char *const alloc[] = {ALLOC_4x4, NULL};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        decide(V(opts[i], "--contention=auto", "--contention-pattern=halves"), alloc,
               "signatures=" SIGS, &d);
        assert_int_equal(d.set_distribution, 0);
        assert_non_null(strstr(d.message, "is not modelled"));
    }
    /* a node with fewer CPUs than -c */
    const char *const uneven[] = {"SLURM_JOB_ID=12", "SLURM_JOB_CPUS_PER_NODE=4,2",
                                  "SLURM_JOB_NUM_NODES=2", NULL};
    decide(V("-n2", "-c3", "--contention=auto", "--contention-pattern=halves"), uneven,
           "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "node 1 of the allocation has 2 CPUs, fewer than the 3"));

    /* slurm.conf's SelectTypeParameters (CR_PACK_NODES) */
    char sel[128];
    const char *conf = "# c\nSelectType=select/cons_tres\n  selecttypeparameters = "
                       "CR_CPU,CR_Pack_Nodes # packed\nNodeName=n1\n";
    assert_int_equal(ctp_select_params_text(conf, strlen(conf), sel, sizeof sel), 0);
    assert_string_equal(sel, "CR_CPU,CR_Pack_Nodes");
    assert_int_equal(ctp_has_word_ci(sel, "CR_PACK_NODES"), 1);
    assert_int_equal(ctp_has_word_ci("CR_CPU,CR_Pack_NodesX", "CR_PACK_NODES"), 0);
    assert_int_equal(ctp_select_params_text("NodeName=n1\n", 12, sel, sizeof sel), -1);
    char path[] = "/tmp/ct-slurmconf-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, conf, strlen(conf)), (ssize_t)strlen(conf));
    close(fd);
    char var[64];
    snprintf(var, sizeof var, "SLURM_CONF=%s", path);
    const char *const packed[] = {ALLOC_4x4, var, NULL};
    decide(V("--contention=auto", "--contention-pattern=halves"), packed, "signatures=" SIGS, &d);
    assert_int_equal(d.set_distribution, 0);
    assert_non_null(strstr(d.message, "SelectTypeParameters=CR_CPU,CR_Pack_Nodes (slurm.conf)"));
    unlink(path);
}

/* Issue 10, item 5: the decision log line, as doc/plugin.md specifies it. */
static void test_decision_log(void **state)
{
    (void)state;
    ctp_decision d;
    const char *const alloc[] = {ALLOC_4x4, NULL};
    decide(V("--contention=auto", "--contention-pattern=halves"), alloc, "signatures=" SIGS, &d);
    ctp_logctx c = {.time = 1795000000, .job = 12, .step = 3, .uid = 1000};
    snprintf(c.user, sizeof c.user, "alice");
    char line[4096];
    assert_true(ctp_log_format(&d, &c, line, sizeof line) > 0);
    const char *want = "contention/1 time=2026-11-18T11:06:40Z job=12 step=3 uid=1000 user=alice "
                       "mode=auto nodes=4 tasks=16 cpt=1 cpus=4(x4) pattern=halves bytes=1048576 "
                       "fabric=";
    if (strncmp(line, want, strlen(want)) != 0)
        fail_msg("got: %s", line);
    assert_non_null(strstr(line, " choice=cyclic launched=cyclic applied=yes why=- fabric_tcp=- "
                                 "node_tcp=- msg=contention: cyclic chosen"));
    assert_non_null(strstr(line, " pred=cyclic:"));
    assert_non_null(strstr(line, ",block:"));
    assert_null(strchr(line, '\n'));

    /* the user's -m: not applied, why=user-m; unknown fields are "-" */
    decide(V("--contention=auto", "-m", "block"), alloc, "signatures=" SIGS, &d);
    ctp_logctx none = {.time = 0, .job = -1, .step = -1, .uid = 0};
    assert_true(ctp_log_format(&d, &none, line, sizeof line) > 0);
    assert_non_null(strstr(line, " job=- step=- uid=0 user=- mode=auto nodes=- tasks=- cpt=- "
                                 "cpus=4(x4) pattern=- bytes=- fabric=- pred=- choice=- "
                                 "launched=block applied=no why=user-m fabric_tcp=- node_tcp=- "
                                 "msg="));
    /* a failure: why=fail-open, the reason in msg */
    decide(V("--contention=auto"), alloc, "signatures=/nonexistent.yaml", &d);
    assert_true(ctp_log_format(&d, &none, line, sizeof line) > 0);
    assert_non_null(strstr(line, " applied=no why=fail-open fabric_tcp=- node_tcp=- msg=contention: "
                                 "warning: "));
    /* values are %-encoded: a trace path with a space stays one field */
    decide(V("--contention=report", "--contention-pattern=trace:/t m/x,y.trace"), alloc,
           "signatures=" SIGS, &d);
    assert_true(ctp_log_format(&d, &none, line, sizeof line) > 0);
    assert_non_null(strstr(line, " pattern=trace:/t%20m/x%2Cy.trace "));
    /* forced modes are applied, why=forced */
    decide(V("--contention=cyclic", "--contention-pattern=ring"), alloc, "signatures=" SIGS, &d);
    assert_true(ctp_log_format(&d, &none, line, sizeof line) > 0);
    assert_non_null(strstr(line, " mode=cyclic "));
    assert_non_null(strstr(line, " launched=cyclic applied=yes why=forced "));
    /* too small a buffer is refused, not cut */
    assert_int_equal(ctp_log_format(&d, &none, line, 40), -1);

    /* the writer: appends whole lines to a regular file, refuses a FIFO */
    char dir[] = "/tmp/ct-declog-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64], what[256];
    snprintf(path, sizeof path, "%s/d.log", dir);
    assert_int_equal(ctp_log_write(path, "contention/1 a", what, sizeof what), 0);
    assert_int_equal(ctp_log_write(path, "contention/1 b", what, sizeof what), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[64] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, "contention/1 a\ncontention/1 b\n");
    unlink(path);
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(ctp_log_write(path, "x", what, sizeof what), -1); /* no reader: no block */
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_by_default),
        cmocka_unit_test(test_auto_ring_and_halves),
        cmocka_unit_test(test_auto_min_switch),
        cmocka_unit_test(test_optimized_auto),
        cmocka_unit_test(test_optimized_forced),
        cmocka_unit_test(test_optimized_beats),
        cmocka_unit_test(test_write_hostfile),
        cmocka_unit_test(test_sweep_hostfiles),
        cmocka_unit_test(test_option_from_sbatch_env),
        cmocka_unit_test(test_user_wins),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_report_user_hostfile),
        cmocka_unit_test(test_forced),
        cmocka_unit_test(test_fail_open),
        cmocka_unit_test(test_unknown_partition),
        cmocka_unit_test(test_partition_map),
        cmocka_unit_test(test_nothing_to_decide),
        cmocka_unit_test(test_geometry_inputs),
        cmocka_unit_test(test_envmark),
        cmocka_unit_test(test_cpus_per_task_by_release),
        cmocka_unit_test(test_switch_tree),
        cmocka_unit_test(test_site_cpu_settings),
        cmocka_unit_test(test_heterogeneous),
        cmocka_unit_test(test_clusters),
        cmocka_unit_test(test_decision_log),
        cmocka_unit_test(test_tcp_congestion_control),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
