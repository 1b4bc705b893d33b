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
#include "slurm_compat.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
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
     "Communication pattern scored by --contention: alltoall, ring, halves, halo2d, halo3d, "
     "halo2d-phased, halo3d-phased (one dimension at a time) or trace:FILE (or trace:NAME, a profile saved by contention-admin record).",
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
 * task (host names expanded by libslurm from nl, the step's
 * SLURM_JOB_NODELIST, in the node order of SLURM_JOB_CPUS_PER_NODE), in
 * $TMPDIR or /tmp, owned by the user srun runs as. Any problem: block or
 * cyclic instead, one line. */
static void write_optimized(const char *nl)
{
    ct_hostlist hl = nl ? slurm_hostlist_create(nl) : NULL;
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
        ctp_sweep_hostfiles(dir, getuid(), time(NULL)); /* of sruns killed earlier */
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

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Read len bytes from fd before the deadline t0 + budget; 0, or -1 with
 * *timed_out set when the budget ran out. */
static int read_within(int fd, void *buf, size_t len, double t0, int *timed_out)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        int left_ms = (int)(config.budget_ms - (now_ms() - t0));
        if (left_ms <= 0) {
            *timed_out = 1;
            return -1;
        }
        struct pollfd pfd = {fd, POLLIN, 0};
        int r = poll(&pfd, 1, left_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            *timed_out = 1;
            return -1;
        }
        if (r < 0)
            return -1;
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

/* Whether a step slurmctld still lists as running belongs to an srun that
 * has already exited on this host: back-to-back sruns of a batch script see
 * the previous step listed for a moment after its srun returned (and a
 * SIGKILLed srun's step for longer), though it runs nothing beside us. Only
 * an srun of this host can be checked (same host name, pid gone). */
static int srun_gone(const job_step_info_t *st)
{
    char host[256];
    if (!st->srun_host || !st->srun_pid || st->srun_pid > INT32_MAX ||
        gethostname(host, sizeof host) != 0)
        return 0;
    host[sizeof host - 1] = '\0';
    size_t hl = strcspn(host, "."), sl = strcspn(st->srun_host, ".");
    if (hl != sl || strncmp(host, st->srun_host, hl) != 0) /* short names differ */
        return 0;
    return kill((pid_t)st->srun_pid, 0) != 0 && errno == ESRCH;
}

/* Other steps of this job that are running now and hold CPUs (not the
 * batch, extern or interactive step, nor one whose srun has exited here:
 * srun_gone), from slurmctld: their count and ids into a. Called in the decision child only, so that a slow slurmctld
 * costs the time budget, never srun's launch. Our own step does not exist
 * yet. Nothing is asked with --overlap (this step may use their CPUs) or
 * outside an allocation; a failed request leaves a unchanged (the decision
 * then goes by the environment alone). */
static void busy_steps(ctp_srun_args *a)
{
    ctp_het_view het; /* a heterogeneous job's steps are its components' */
    ctp_het_view_init(&het, a, process_getenv, NULL);
    const char *jid = ctp_het_job_id(&het);
    char *end;
    unsigned long job = jid ? strtoul(jid, &end, 10) : 0;
    if (!jid || !*jid || *end || job == 0 || job > UINT32_MAX || a->overlap ||
        getenv("SLURM_OVERLAP"))
        return;
    job_step_info_response_msg_t *resp = NULL;
    if (ct_get_job_steps((uint32_t)job, &resp, SHOW_ALL) != 0 || !resp)
        return;
    size_t len = 0;
    for (uint32_t i = 0; i < resp->job_step_count; i++) {
        const job_step_info_t *st = &resp->job_steps[i];
        if (st->step_id.job_id != (uint32_t)job || st->state != JOB_RUNNING ||
            st->step_id.step_id >= SLURM_MAX_NORMAL_STEP_ID || srun_gone(st))
            continue;
        a->busy_steps++;
        if (len < sizeof a->busy_ids) {
            int w = snprintf(a->busy_ids + len, sizeof a->busy_ids - len, "%s%u",
                             len ? "," : "", st->step_id.step_id);
            len += w > 0 ? (size_t)w : 0;
        }
    }
    slurm_free_job_step_info_response_msg(resp);
}

/* This node's TCP congestion control into a->node_tcp_cc (left "" when the
 * file cannot be read or does not hold a name): the decision compares it
 * with the one the fabric was calibrated under. Read only where srun runs
 * inside a job step on one of the job's nodes (SLURMD_NODENAME: a batch
 * script, the interactive step): a login node's TCP says nothing of the
 * compute nodes'. One read of a /proc file, in the decision child like
 * busy_steps(). */
static void node_tcp_cc(ctp_srun_args *a)
{
    char buf[64] = "";
    const char *node = getenv("SLURMD_NODENAME");
    if (!node || !*node)
        return;
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", "re");
    if (!f)
        return;
    if (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = '\0';
        if (ct_tcp_cc_ok(buf))
            snprintf(a->node_tcp_cc, sizeof a->node_tcp_cc, "%s", buf);
    }
    fclose(f);
}

/* The decision within the time budget (issue 10, defect 4): taken in a
 * child process, which hands the (pointer-free) ctp_decision back through a
 * pipe; past budget_ms the child is killed and the job launches untouched.
 * A child that dies (a crash in the model) fails open the same way, so
 * nothing in the decision can hang or crash srun. */
static void decide_bounded(const ctp_srun_args *args, ctp_decision *d)
{
    if (ctp_effective_mode(&config, args, process_getenv, NULL) == CTP_MODE_OFF) {
        ctp_decide(&config, args, process_getenv, NULL, d); /* says nothing, sets nothing */
        return;
    }
    int fd[2];
    if (pipe(fd) < 0) {
        ctp_decide(&config, args, process_getenv, NULL, d); /* cannot isolate: decide here */
        return;
    }
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        ctp_decide(&config, args, process_getenv, NULL, d);
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        ctp_decision mine;
        ctp_srun_args a = *args;
        busy_steps(&a);
        node_tcp_cc(&a);
        ctp_decide(&config, &a, process_getenv, NULL, &mine);
        /* the record, then the optimized placement's node_of (its only
         * pointer) as ntasks int32 */
        if (write_all(fd[1], &mine, sizeof mine) < 0 ||
            (mine.use_hostfile && mine.node_of &&
             write_all(fd[1], mine.node_of, (size_t)mine.ntasks * sizeof *mine.node_of) < 0))
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    int timed_out = 0, ok = read_within(fd[0], d, sizeof *d, t0, &timed_out) == 0;
    if (ok && d->use_hostfile && d->node_of) {
        /* d->node_of is the child's address: the array follows the record */
        d->node_of = NULL;
        int32_t *node_of = d->ntasks > 0 && d->ntasks <= (1 << 24)
                               ? malloc((size_t)d->ntasks * sizeof *node_of)
                               : NULL;
        ok = node_of && read_within(fd[0], node_of, (size_t)d->ntasks * sizeof *node_of, t0,
                                    &timed_out) == 0;
        if (ok)
            d->node_of = node_of;
        else
            free(node_of);
    } else if (ok && d->use_hostfile) {
        d->use_hostfile = 0; /* cannot happen: no placement without node_of */
    }
    close(fd[0]);
    if (!ok)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (ok)
        return;
    ctp_mode mode = ctp_effective_mode(&config, args, process_getenv, NULL);
    memset(d, 0, sizeof *d);
    d->mode = mode;
    d->level = CTP_LEVEL_WARNING;
    snprintf(d->log.why, sizeof d->log.why, "%s", timed_out ? "budget" : "fail-open");
    ctp_het_view het;
    ctp_het_view_init(&het, args, process_getenv, NULL);
    const char *cpn = ctp_het_getenv("SLURM_JOB_CPUS_PER_NODE", &het);
    snprintf(d->log.cpus, sizeof d->log.cpus, "%s", cpn ? cpn : "");
    if (timed_out)
        snprintf(d->message, sizeof d->message,
                 "contention: warning: decision exceeded its time budget of %d ms "
                 "(plugstack.conf budget_ms=); job launched unchanged",
                 config.budget_ms);
    else if (WIFSIGNALED(status))
        snprintf(d->message, sizeof d->message,
                 "contention: warning: decision failed (signal %d); job launched unchanged",
                 WTERMSIG(status));
    else
        snprintf(d->message, sizeof d->message,
                 "contention: warning: decision failed (no result); job launched unchanged");
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
        /* modelcore's step rules by release (micro included: 24.05.5) */
        if (ct_slurm_version_parse(release, &args.release, NULL) < 0)
            args.release = 0;
    }
    decide_bounded(&args, &decision);
    if (decision.level == CTP_LEVEL_FATAL) {
        slurm_error("%s", decision.message);
        return -1;
    }
    if (decision.use_hostfile) {
        ctp_het_view het; /* the nodes of the step's component */
        ctp_het_view_init(&het, &args, process_getenv, NULL);
        write_optimized(ctp_het_getenv("SLURM_JOB_NODELIST", &het));
    }
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

/* One decision-log line (plugstack.conf log=), now that the step exists. */
static void write_log(spank_t sp)
{
    if (!config.log[0] || decision.mode == CTP_MODE_OFF)
        return;
    ctp_logctx c;
    memset(&c, 0, sizeof c);
    c.time = (long long)time(NULL);
    uint32_t v;
    c.job = spank_get_item(sp, S_JOB_ID, &v) == ESPANK_SUCCESS ? (long long)v : -1;
    c.step = spank_get_item(sp, S_JOB_STEPID, &v) == ESPANK_SUCCESS ? (long long)v : -1;
    c.uid = (long long)getuid();
    struct passwd pw, *res = NULL;
    char pwbuf[1024];
    if (getpwuid_r(getuid(), &pw, pwbuf, sizeof pwbuf, &res) == 0 && res)
        snprintf(c.user, sizeof c.user, "%s", res->pw_name);
    char line[4096], what[256] = "line too long";
    if (ctp_log_format(&decision, &c, line, sizeof line) < 0 ||
        ctp_log_write(config.log, line, what, sizeof what) < 0)
        slurm_verbose("contention: decision log not written (%s)", what);
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (spank_context() != S_CTX_LOCAL || !config_ok)
        return 0;
    write_log(sp);
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
