/* contention.so: SPANK entry points. Dispatches on the context:
 *  - srun (local): slurm_spank_init takes the decision (decide.c) and sets
 *    SLURM_DISTRIBUTION before srun reads its environment (for the optimized
 *    placement: arbitrary, with SLURM_HOSTFILE naming a file written here and
 *    removed by slurm_spank_exit once the step is over); the message is
 *    printed from slurm_spank_local_user_init, once srun's -v/-Q apply;
 *  - sbatch/salloc (allocator): registers and validates the options, which
 *    Slurm hands on to the job's sruns as SLURM_SPANK_* variables;
 *  - slurmstepd (remote): registers the options so the values srun sends
 *    along are accepted; slurm_spank_user_init removes from the tasks'
 *    environment what the plugin set for srun (envmark.c); with
 *    --contention-record=FILE, slurm_spank_task_init preloads the recorder
 *    (libcontention-record.so, doc/recorder.md) in each task.
 * Fails open: nothing here stops srun unless plugstack.conf says strict=yes. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"

SPANK_PLUGIN(contention, 1);

static ctp_config config;
static int config_ok;
static ctp_decision decision;
static char hostfile[CTP_PATH_MAX]; /* written for this srun, removed at exit */

static int check_mode(int val, const char *optarg, int remote);
static int check_pattern(int val, const char *optarg, int remote);
static int check_size(int val, const char *optarg, int remote);
static int check_record(int val, const char *optarg, int remote);

/* Registered from slurm_spank_init (not exported as spank_options): Slurm
 * loads no static option table in sbatch/salloc, and registering in every
 * context keeps one definition. */
static struct spank_option options[] = {
    {"contention", "MODE",
     "Task mapping from predicted network contention: auto (launch with the mapping "
     "predicted fastest), block, cyclic, report (print the prediction, change nothing) or "
     "off. Default set by the admin.",
     1, 0, check_mode},
    {"contention-pattern", "PATTERN",
     "Communication pattern scored by --contention: alltoall, ring, halves, halo2d, halo3d or "
     "trace:FILE (or trace:NAME, a profile saved by contention-admin record).",
     1, 0, check_pattern},
    {"contention-size", "BYTES",
     "Message size of --contention-pattern, with K, M or G suffix (e.g. 64K, 4M).", 1, 0,
     check_size},
    {"contention-record", "FILE",
     "Record the tasks' MPI communication to FILE (a trace for --contention-pattern=trace:FILE; "
     "doc/recorder.md).",
     1, 0, check_record},
    SPANK_OPTIONS_TABLE_END,
};

static int check_mode(int val, const char *optarg, int remote)
{
    (void)val;
    ctp_mode m;
    ct_err err = {{0}};
    if (ctp_mode_parse(optarg, &m, &err) < 0) {
        if (!remote)
            slurm_error("contention: --contention: %s", err.msg);
        return -1;
    }
    return 0;
}

static int check_pattern(int val, const char *optarg, int remote)
{
    (void)val;
    ct_err err = {{0}};
    if (ctp_pattern_check(optarg, &err) < 0) {
        if (!remote)
            slurm_error("contention: --contention-pattern: %s", err.msg);
        return -1;
    }
    return 0;
}

static int check_size(int val, const char *optarg, int remote)
{
    (void)val;
    double b;
    ct_err err = {{0}};
    if (ctp_size_parse(optarg, &b, &err) < 0) {
        if (!remote)
            slurm_error("contention: --contention-size: %s", err.msg);
        return -1;
    }
    return 0;
}

static int check_record(int val, const char *optarg, int remote)
{
    (void)val;
    if (!optarg || !*optarg || strlen(optarg) >= 3000) {
        if (!remote)
            slurm_error("contention: --contention-record: expected a file name (at most 2999 "
                        "characters)");
        return -1;
    }
    return 0;
}

/* The recorder: next to contention.so in a build tree (BUILD/plugin/,
 * BUILD/recorder/), else where meson installed it. */
static int recorder_path(char *out, size_t n)
{
    Dl_info info;
    if (dladdr((void *)recorder_path, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash) {
            int k = snprintf(out, n, "%.*s/../recorder/libcontention-record.so",
                             (int)(slash - info.dli_fname), info.dli_fname);
            if (k > 0 && (size_t)k < n && access(out, R_OK) == 0)
                return 0;
        }
    }
#ifdef CT_RECORDER_LIB
    if (access(CT_RECORDER_LIB, R_OK) == 0 && strlen(CT_RECORDER_LIB) < n) {
        strcpy(out, CT_RECORDER_LIB);
        return 0;
    }
#endif
    return -1;
}

/* Task context, before exec: with --contention-record=FILE, preload the
 * recorder and tell it where to write. Fails open: the task runs unrecorded
 * after one contention: line. */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (spank_context() != S_CTX_REMOTE)
        return 0;
    struct spank_option *opt = NULL;
    for (struct spank_option *o = options; o->name; o++)
        if (strcmp(o->name, "contention-record") == 0)
            opt = o;
    char *file = NULL;
    if (!opt || spank_option_getopt(sp, opt, &file) != ESPANK_SUCCESS || !file || !*file)
        return 0;
    char lib[4096], path[8192], pwd[4096], pre[8192], old[4096];
    if (recorder_path(lib, sizeof lib) < 0) {
        slurm_error("contention: --contention-record: libcontention-record.so not found "
                    "(build with MPI and install it); task runs unrecorded");
        return 0;
    }
    if (file[0] != '/' && spank_getenv(sp, "PWD", pwd, sizeof pwd) == ESPANK_SUCCESS)
        snprintf(path, sizeof path, "%s/%s", pwd, file);
    else
        snprintf(path, sizeof path, "%s", file);
    if (spank_getenv(sp, "LD_PRELOAD", old, sizeof old) == ESPANK_SUCCESS && old[0])
        snprintf(pre, sizeof pre, "%s:%s", lib, old);
    else
        snprintf(pre, sizeof pre, "%s", lib);
    if (spank_setenv(sp, "CONTENTION_RECORD_FILE", path, 1) != ESPANK_SUCCESS ||
        spank_setenv(sp, "LD_PRELOAD", pre, 1) != ESPANK_SUCCESS)
        slurm_error("contention: --contention-record: cannot set the task environment; task "
                    "runs unrecorded");
    return 0;
}

static const char *process_getenv(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

static int process_setenv(const char *name, const char *value, void *ctx)
{
    (void)ctx;
    return value ? setenv(name, value, 1) : unsetenv(name);
}

/* the step's environment, in slurmstepd (remote context) */
static const char *step_getenv(const char *name, void *ctx)
{
    static char buf[2][4096];
    static int k;
    k ^= 1;
    if (spank_getenv((spank_t)ctx, name, buf[k], sizeof buf[k]) != ESPANK_SUCCESS)
        return NULL;
    return buf[k];
}

static int step_setenv(const char *name, const char *value, void *ctx)
{
    spank_err_t rc = value ? spank_setenv((spank_t)ctx, name, value, 1)
                           : spank_unsetenv((spank_t)ctx, name);
    return rc == ESPANK_SUCCESS ? 0 : -1;
}

static int strict_requested(int ac, char **av)
{
    for (int i = 0; i < ac; i++)
        if (strcmp(av[i], "strict=yes") == 0)
            return 1;
    return 0;
}

/* The optimized placement: its hostfile, one host of the allocation per
 * task (host names expanded by libslurm from SLURM_JOB_NODELIST, the node
 * order of SLURM_JOB_CPUS_PER_NODE), in $TMPDIR or /tmp, owned by the user
 * srun runs as. Any problem: block or cyclic instead, one line. */
static void write_optimized(void)
{
    const char *nl = getenv("SLURM_JOB_NODELIST");
    hostlist_t hl = nl ? slurm_hostlist_create(nl) : NULL;
    int n = hl ? slurm_hostlist_count(hl) : 0;
    char **hosts = n > 0 ? calloc((size_t)n, sizeof *hosts) : NULL;
    int k = 0;
    char *h;
    while (hosts && k < n && (h = slurm_hostlist_shift(hl))) {
        hosts[k] = strdup(h);
        free(h);
        if (!hosts[k])
            break;
        k++;
    }
    if (hl)
        slurm_hostlist_destroy(hl);
    char why[CTP_MSG_MAX / 2];
    if (!nl || k != n || n != decision.nnodes) {
        snprintf(why, sizeof why, "SLURM_JOB_NODELIST '%.200s' gives %d hosts for %d nodes",
                 nl ? nl : "", k, (int)decision.nnodes);
        ctp_decision_fallback(&decision, why);
    } else {
        const char *dir = getenv("TMPDIR");
        if (!dir || dir[0] != '/')
            dir = "/tmp";
        ct_err err = {{0}};
        if (ctp_write_hostfile(dir, decision.node_of, decision.ntasks, hosts, n, hostfile,
                               sizeof hostfile, &err) < 0) {
            hostfile[0] = '\0';
            snprintf(why, sizeof why, "hostfile: %.300s", err.msg);
            ctp_decision_fallback(&decision, why);
        }
    }
    for (int i = 0; i < k; i++)
        free(hosts[i]);
    free(hosts);
}

/* srun, before it reads its environment and command line. */
static int srun_init(spank_t sp)
{
    /* the variables describe this launch only, not an outer one */
    unsetenv("SLURM_CONTENTION_MAPPING");
    unsetenv("SLURM_CONTENTION_PREDICTED_SLOWDOWN");
    /* what an outer srun of ours set is not the user's choice (envmark.c) */
    ctp_forget_ours(process_getenv, process_setenv, NULL, NULL, 0);

    ctp_srun_args args;
    int argc = 0;
    char **argv = NULL;
    ct_err err = {{0}};
    const char *release = NULL;
    ctp_slurm_version ver;
    if (spank_get_item(sp, S_SLURM_VERSION, &release) != ESPANK_SUCCESS)
        release = NULL;
    if (ctp_slurm_version_parse(release, &ver, &err) < 0) {
        memset(&args, 0, sizeof args);
        snprintf(args.why, sizeof args.why, "%.150s", err.msg);
    } else if (ctp_read_cmdline("/proc/self/cmdline", &argc, &argv, &err) < 0) {
        memset(&args, 0, sizeof args);
        snprintf(args.why, sizeof args.why, "cannot read it: %.100s", err.msg);
    } else {
        ctp_srun_args_parse_for(ver, argc, argv, &args);
        ctp_argv_free(argc, argv);
    }
    ctp_decide(&config, &args, process_getenv, NULL, &decision);
    if (decision.level == CTP_LEVEL_FATAL) {
        slurm_error("%s", decision.message);
        return -1;
    }
    if (decision.use_hostfile)
        write_optimized();
    if (decision.use_hostfile) /* marked like SLURM_DISTRIBUTION (envmark.c) */
        ctp_set_ours("SLURM_HOSTFILE", hostfile, process_setenv, NULL);
    if (decision.set_distribution)
        ctp_set_ours("SLURM_DISTRIBUTION", decision.distribution, process_setenv, NULL);
    if (decision.mapping[0])
        setenv("SLURM_CONTENTION_MAPPING", decision.mapping, 1);
    if (decision.have_slowdown) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.3f", decision.slowdown);
        setenv("SLURM_CONTENTION_PREDICTED_SLOWDOWN", buf, 1);
    }
    return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
        return 0;
    for (struct spank_option *o = options; o->name; o++) {
        spank_err_t rc = spank_option_register(sp, o);
        if (rc != ESPANK_SUCCESS) {
            slurm_error("contention: cannot register --%s: %s", o->name, spank_strerror(rc));
            return -1;
        }
    }
    ct_err err = {{0}};
    config_ok = ctp_config_parse(ac, av, &config, &err) == 0;
    if (!config_ok) {
        if (ctx != S_CTX_REMOTE)
            slurm_error("%s%s", err.msg,
                        strict_requested(ac, av) ? "" : "; plugin disabled (fail-open)");
        return strict_requested(ac, av) ? -1 : 0;
    }
    if (ctx == S_CTX_LOCAL)
        return srun_init(sp);
    return 0;
}

/* slurmstepd, before the tasks start: the variables the plugin set for srun
 * to read leave the tasks' environment (envmark.c), so that neither a shell
 * (use_interactive_step) nor a task's own srun takes them for the user's. */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (spank_context() == S_CTX_REMOTE)
        ctp_strip_step_env(step_getenv, step_setenv, sp);
    return 0;
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
    (void)sp;
    (void)ac;
    (void)av;
    if (spank_context() != S_CTX_LOCAL || !config_ok)
        return 0;
    switch (decision.level) {
    case CTP_LEVEL_VERBOSE:
        slurm_verbose("%s", decision.message);
        break;
    case CTP_LEVEL_INFO:
    case CTP_LEVEL_WARNING:
        slurm_info("%s", decision.message);
        break;
    case CTP_LEVEL_NONE:
    case CTP_LEVEL_FATAL:
        break;
    }
    return 0;
}

/* srun, after the step: the optimized placement's hostfile goes. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    (void)sp;
    (void)ac;
    (void)av;
    if (spank_context() == S_CTX_LOCAL && hostfile[0]) {
        unlink(hostfile);
        hostfile[0] = '\0';
    }
    if (spank_context() == S_CTX_LOCAL)
        ctp_decision_free(&decision);
    return 0;
}
