/* The srun decision (local context, slurm_spank_init): environment and
 * command line -> ct_alloc -> ct_score -> what to set and what to say.
 * No Slurm calls here; spank.c applies the result. The model is entirely
 * in modelcore (ct_score): this file only translates Slurm's world. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contention/collective.h"
#include "contention/fileio.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/placement.h"
#include "contention/trace.h"
#include "contention/score.h"
#include "contention/signatures.h"
#include "contention/units.h"
#include "ctslurm/slurmfmt.h"
#include "plugin.h"

/* snprintf that truncates silently: messages are bounded on purpose */
static void strf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void strf(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}

static const char *env(ctp_getenv_fn fn, void *ctx, const char *name)
{
    const char *v = fn(name, ctx);
    return v && *v ? v : NULL;
}

const char *ctp_option_from_env(const char *name, ctp_getenv_fn getenv_fn, void *ctx)
{
    /* plugstack.c: "_SLURM_SPANK_OPTION_" + plugin + "_" + option, with
     * every non-alphanumeric character as '_'; sbatch/salloc hand it to
     * the job with a further "SLURM_SPANK_" prefix */
    char opt[64], var[160];
    strf(opt, sizeof opt, "%s", name);
    for (char *p = opt; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            *p = '_';
    strf(var, sizeof var, "SLURM_SPANK__SLURM_SPANK_OPTION_contention_%s", opt);
    const char *v = env(getenv_fn, ctx, var);
    if (v)
        return v;
    strf(var, sizeof var, "_SLURM_SPANK_OPTION_contention_%s", opt);
    return env(getenv_fn, ctx, var);
}

static void say(ctp_decision *d, ctp_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void vsay(ctp_decision *d, ctp_level level, const char *fmt, va_list ap)
{
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    d->level = level;
}

static void say(ctp_decision *d, ctp_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(d, level, fmt, ap);
    va_end(ap);
}

/* The step is left as Slurm lays it out: why (the decision log's word) and
 * the one line saying so. */
static void leave(ctp_decision *d, const char *why, ctp_level level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void leave(ctp_decision *d, const char *why, ctp_level level, const char *fmt, ...)
{
    strf(d->log.why, sizeof d->log.why, "%s", why);
    va_list ap;
    va_start(ap, fmt);
    vsay(d, level, fmt, ap);
    va_end(ap);
}

/* A failure where a score was wanted: fail open, or stop with strict=yes. */
static void fail(const ctp_config *cfg, ctp_decision *d, const char *what)
{
    strf(d->log.why, sizeof d->log.why, "fail-open");
    d->set_distribution = 0;
    d->mapping[0] = '\0';
    d->have_slowdown = 0;
    if (cfg->strict)
        say(d, CTP_LEVEL_FATAL, "contention: error: %s (strict=yes: srun stops)", what);
    else
        say(d, CTP_LEVEL_WARNING, "contention: warning: %s; job launched unchanged", what);
}

static int parse_count(const char *s, int32_t *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < 1 || x > INT32_MAX)
        return -1;
    *v = (int32_t)x;
    return 0;
}

/* The step's geometry as srun will see it. Returns 1 when it can be
 * scored, 0 when there is nothing to decide (d->message says why, or a
 * failure was recorded). */
typedef struct geometry {
    ct_alloc alloc; /* capped by --ntasks-per-node when that applies */
    int32_t ntasks;
    int32_t cpt;
    int32_t ntpn;   /* --ntasks-per-node in force (0: none) */
} geometry;


/* slurm.h: SLURM_MAX_NORMAL_STEP_ID (0xfffffff0) since 20.11; the ids above it
 * are Slurm's special steps (interactive 0xfffffffa, batch 0xfffffffb, extern
 * 0xfffffffc, pending 0xfffffffd), which hold no CPUs a new step would lack. */
#define CTP_MAX_NORMAL_STEP_ID 0xfffffff0LL

/* Whether SLURM_STEP_ID names a special step. Releases print these ids
 * unsigned (22.05, 24.11: 4294967290) or signed (26.05: -6); both are read.
 * Anything that is not a number is not special (the caller fails open). */
static int special_step_id(const char *sid)
{
    char *end;
    errno = 0;
    long long v = strtoll(sid, &end, 10);
    if (errno || end == sid || *end)
        return 0;
    if (v < 0)
        v += 0x100000000LL;
    return v > CTP_MAX_NORMAL_STEP_ID && v <= 0xffffffffLL;
}

/* The user's distribution (-m, else SLURM_DISTRIBUTION) or NULL. */
static const char *user_distribution(const ctp_srun_args *args, ctp_getenv_fn fn, void *ctx)
{
    return args->has_dist ? args->dist : env(fn, ctx, "SLURM_DISTRIBUTION");
}

/* Report mode with the user's -m arbitrary (user_dist, user_distribution):
 * their SLURM_HOSTFILE is the layout that launches, and it is priced
 * (user_layout) rather than refused. */
static int reports_user_hostfile(ctp_mode mode, const char *user_dist)
{
    const char *u = user_dist;
    return mode == CTP_MODE_REPORT && u && strncmp(u, "arbitrary", 9) == 0 &&
           (u[9] == '\0' || u[9] == ':' || u[9] == ',');
}

/* user_hf: reports_user_hostfile (SLURM_HOSTFILE is then the user's layout,
 * not a reason to leave the step alone) */
static int get_geometry(const ctp_config *cfg, const ctp_srun_args *args, ctp_getenv_fn fn,
                        void *ctx, int explicit_mode, int user_hf, ctp_decision *d, geometry *g)
{
    ctp_level quiet_or_info = explicit_mode ? CTP_LEVEL_INFO : CTP_LEVEL_VERBOSE;
    char what[CTP_MSG_MAX];
    ct_err err = {{0}};
    memset(g, 0, sizeof *g);
    /* heterogeneous jobs: fn/ctx is the step's component (ctp_decide) */
    const char *cpn = env(fn, ctx, "SLURM_JOB_CPUS_PER_NODE");
    if (!cpn || !env(fn, ctx, "SLURM_JOB_ID")) {
        say(d, quiet_or_info,
            "contention: not inside an allocation (no SLURM_JOB_CPUS_PER_NODE): srun lays out the "
            "job it allocates itself; nothing scored");
        return 0;
    }
    if (args->unsupported[0]) {
        say(d, quiet_or_info,
            "contention: srun %s changes the step's nodes or CPUs, which is not modelled: layout "
            "left to Slurm",
            args->unsupported);
        return 0;
    }
    /* srun -M/--clusters (or SLURM_CLUSTERS) inside an allocation looks up
     * SLURM_JOB_ID on the first cluster named (srun/allocate.c,
     * existing_allocation): on another cluster that id is another job,
     * whose allocation these variables do not describe */
    const char *cl = args->has_clusters ? args->clusters : env(fn, ctx, "SLURM_CLUSTERS");
    if (cl) {
        const char *here = env(fn, ctx, "SLURM_CLUSTER_NAME");
        size_t len = strcspn(cl, ",");
        if (!here || strlen(here) != len || strncasecmp(cl, here, len) != 0) {
            char where[160];
            if (here)
                strf(where, sizeof where, "cluster %s", here);
            else
                strf(where, sizeof where, "no SLURM_CLUSTER_NAME tells this one's");
            leave(d, "not-modelled", quiet_or_info,
                  "contention: srun %s%s sends the step to cluster %.*s's job %s, which is not "
                  "this allocation (%s): layout left to Slurm",
                  args->has_clusters ? "-M " : "with SLURM_CLUSTERS=", cl,
                  (int)(len < 64 ? len : 64), cl, env(fn, ctx, "SLURM_JOB_ID"), where);
            return 0;
        }
    }
    /* what srun reads from its environment and changes the CPUs a step may
     * use or the nodes it goes to (srun/opt.c env_vars[] of each release):
     * detected, not modelled (issue 10, defect 2) */
    static const struct {
        const char *var, *why;
    } unsupported_env[] = {
        {"SLURM_OVERCOMMIT", "overcommit"},
        {"SLURM_NTASKS_PER_GPU", "tasks per GPU"},
        {"SLURM_NTASKS_PER_TRES", "tasks per GPU"},
        {"SLURM_HOSTFILE", "an explicit host file"},
        {"SLURM_HINT", "a CPU hint (threads per core)"},
        {"SLURM_THREADS_PER_CORE", "threads per core"},
        {"SLURM_NTASKS_PER_CORE", "tasks per core"},
        {"SLURM_GPUS_PER_TASK", "GPUs per task"},
        {"SLURM_CPUS_PER_GPU", "CPUs per GPU"},
        {"SLURM_EXCLUSIVE", "--exclusive"},
        {"SLURM_EXACT", "--exact"},
    };
    for (size_t i = 0; i < sizeof unsupported_env / sizeof unsupported_env[0]; i++) {
        const char *v = env(fn, ctx, unsupported_env[i].var);
        if (v && !(user_hf && strcmp(unsupported_env[i].var, "SLURM_HOSTFILE") == 0)) {
            say(d, quiet_or_info,
                "contention: %s=%s is set (%s), which changes the CPUs the step may use and is "
                "not modelled: layout left to Slurm",
                unsupported_env[i].var, v, unsupported_env[i].why);
            return 0;
        }
    }
    /* 23.11+: sbatch -c also exports SLURM_TRES_PER_TASK=cpu=N (cpu:N),
     * which srun reads; anything but CPUs in it is not modelled */
    const char *tpt = ctp_srun_reads_cpus_per_task(args->version)
                          ? env(fn, ctx, "SLURM_TRES_PER_TASK")
                          : NULL;
    if (tpt && strspn(tpt, "cpu=:0123456789") != strlen(tpt)) {
        say(d, quiet_or_info,
            "contention: SLURM_TRES_PER_TASK=%s asks for more than CPUs per task, which is not "
            "modelled: layout left to Slurm",
            tpt);
        return 0;
    }
    /* srun inside a running step (other than the interactive, batch or
     * extern step) shares the allocation with it: without --overlap the new
     * step gets only the CPUs that step leaves free, which the allocation
     * variables do not tell */
    const char *sid = env(fn, ctx, "SLURM_STEP_ID");
    if (sid && !args->overlap && !env(fn, ctx, "SLURM_OVERLAP") && !special_step_id(sid)) {
        say(d, quiet_or_info,
            "contention: srun inside step %s, which holds CPUs of the allocation (without "
            "--overlap the step gets only the free ones, not modelled): layout left to Slurm",
            sid);
        return 0;
    }
    /* other steps running beside this one (e.g. `srun ... &` in a batch
     * script), as slurmctld listed them: same reason as above */
    if (args->busy_steps > 0 && !args->overlap && !env(fn, ctx, "SLURM_OVERLAP")) {
        say(d, quiet_or_info,
            "contention: step%s %s of this job %s running and hold%s CPUs of the allocation "
            "(without --overlap this step gets only the free ones, not modelled): layout left "
            "to Slurm",
            args->busy_steps > 1 ? "s" : "", args->busy_ids, args->busy_steps > 1 ? "are" : "is",
            args->busy_steps > 1 ? "" : "s");
        return 0;
    }
    /* SelectTypeParameters=CR_PACK_NODES packs tasks onto the first nodes */
    char sel[256];
    if (ctp_select_params(env(fn, ctx, "SLURM_CONF"), sel, sizeof sel) == 0 &&
        ctp_has_word_ci(sel, "CR_Pack_Nodes")) {
        say(d, quiet_or_info,
            "contention: SelectTypeParameters=%s (slurm.conf) packs tasks onto nodes, which is "
            "not modelled: layout left to Slurm",
            sel);
        return 0;
    }
    if (ctslurm_parse_cpus_per_node(cpn, &g->alloc, &err) < 0) {
        strf(what, sizeof what, "SLURM_JOB_CPUS_PER_NODE: %s", err.msg);
        fail(cfg, d, what);
        return 0;
    }
    const char *nl = env(fn, ctx, "SLURM_JOB_NODELIST");
    int64_t hosts = 0;
    if (nl && ctslurm_count_hosts(nl, &hosts, &err) < 0) {
        strf(what, sizeof what, "SLURM_JOB_NODELIST: %s", err.msg);
        goto bad;
    }
    if (nl && hosts != g->alloc.nnodes) {
        strf(what, sizeof what,
             "SLURM_JOB_NODELIST '%s' has %lld nodes but SLURM_JOB_CPUS_PER_NODE '%s' %d", nl,
             (long long)hosts, cpn, (int)g->alloc.nnodes);
        goto bad;
    }
    const char *nn = env(fn, ctx, "SLURM_JOB_NUM_NODES");
    if (!nn)
        nn = env(fn, ctx, "SLURM_NNODES");
    int32_t nnodes = 0;
    if (nn && (parse_count(nn, &nnodes) < 0 || nnodes != g->alloc.nnodes)) {
        strf(what, sizeof what,
             "SLURM_JOB_NUM_NODES '%s' disagrees with "
             "SLURM_JOB_CPUS_PER_NODE '%s' (%d nodes)",
             nn, cpn, (int)g->alloc.nnodes);
        goto bad;
    }
    nnodes = g->alloc.nnodes;

    /* cpus per task: -c, else the variable this release's srun reads:
     * SRUN_CPUS_PER_TASK up to 23.02, SLURM_CPUS_PER_TASK from 23.11 */
    g->cpt = 1;
    const char *s;
    const char *cpt_var =
        ctp_srun_reads_cpus_per_task(args->version) ? "SLURM_CPUS_PER_TASK" : "SRUN_CPUS_PER_TASK";
    if (args->has_cpt)
        g->cpt = args->cpt;
    else if ((s = env(fn, ctx, cpt_var)) && parse_count(s, &g->cpt) < 0) {
        strf(what, sizeof what, "%s '%s' is not a positive count", cpt_var, s);
        goto bad;
    }
    for (int32_t k = 0; k < g->alloc.nnodes; k++)
        if (g->alloc.cpus[k] < g->cpt) {
            say(d, quiet_or_info,
                "contention: node %d of the allocation has %d CPUs, fewer than the %d of a task "
                "(-c): layout left to Slurm",
                (int)k, (int)g->alloc.cpus[k], (int)g->cpt);
            goto none;
        }
    int has_ntasks = 0;
    if (args->has_ntasks) {
        g->ntasks = args->ntasks;
        has_ntasks = 1;
    } else if ((s = env(fn, ctx, "SLURM_NTASKS")) || (s = env(fn, ctx, "SLURM_NPROCS"))) {
        if (parse_count(s, &g->ntasks) < 0) {
            strf(what, sizeof what, "SLURM_NTASKS '%s' is not a positive count", s);
            goto bad;
        }
        has_ntasks = 1;
    }
    int32_t ntpn = 0;
    if (args->has_ntpn)
        ntpn = args->ntpn;
    else if ((s = env(fn, ctx, "SLURM_NTASKS_PER_NODE")) && parse_count(s, &ntpn) < 0)
        ntpn = 0; /* e.g. a per-node list: srun ignores what it cannot use either */

    int32_t step_nodes = nnodes;
    if (args->has_nodes && args->nodes_min != nnodes) {
        step_nodes = args->nodes_min;
        if (!has_ntasks || g->ntasks > step_nodes) {
            say(d, quiet_or_info,
                "contention: srun -N %d uses %d of the allocation's %d nodes, chosen by Slurm: "
                "layout left to Slurm",
                (int)args->nodes_min, (int)args->nodes_min, (int)nnodes);
            goto none;
        }
    }
    if (!has_ntasks)
        g->ntasks = ntpn > 0 ? step_nodes * ntpn : step_nodes; /* srun's defaults */
    else if (ntpn > 0 && g->ntasks / step_nodes != ntpn)
        ntpn = 0; /* srun drops a --ntasks-per-node that contradicts -n and -N */
    if (g->ntasks <= step_nodes) {
        say(d, quiet_or_info,
            "contention: %d tasks on %d nodes: one task per node whatever the mapping; layout "
            "left to Slurm",
            (int)g->ntasks, (int)step_nodes);
        goto none;
    }
    if (ntpn > 0) {
        /* slurm_step_layout.c caps each node at ntasks_per_node tasks */
        ct_alloc capped;
        int64_t cap = (int64_t)ntpn * g->cpt;
        if (ct_alloc_cap(&g->alloc, cap > INT32_MAX ? INT32_MAX : (int32_t)cap, &capped, &err) <
            0) {
            strf(what, sizeof what, "--ntasks-per-node: %s", err.msg);
            goto bad;
        }
        ct_alloc_free(&g->alloc);
        g->alloc = capped;
        g->ntpn = ntpn;
    }
    int64_t slots = ct_alloc_slots(&g->alloc, g->cpt);
    if (g->ntasks > slots) {
        say(d, quiet_or_info,
            "contention: %d tasks of %d CPUs need more than the allocation's %lld task slots "
            "(SLURM_JOB_CPUS_PER_NODE=%s): layout left to Slurm",
            (int)g->ntasks, (int)g->cpt, (long long)slots, cpn);
        goto none;
    }
    return 1;
bad:
    fail(cfg, d, what);
none:
    ct_alloc_free(&g->alloc);
    return 0;
}

/* The fabric for this job's partition: plugstack.conf partition_fabric=,
 * then the file's partition map, then plugstack.conf fabric=, then the
 * file's default. */
static const ct_fabric *pick_fabric(const ctp_config *cfg, const ct_sigfile *sf,
                                    const char *partition, char *what, size_t n)
{
    const char *name = NULL, *from = NULL;
    for (size_t i = 0; partition && i < cfg->nparts; i++)
        if (strcmp(cfg->parts[i].partition, partition) == 0) {
            name = cfg->parts[i].fabric;
            from = "plugstack.conf partition_fabric=";
        }
    if (!name && partition)
        for (size_t i = 0; i < sf->nparts; i++)
            if (strcmp(sf->parts[i].partition, partition) == 0)
                return &sf->fabrics[sf->parts[i].fabric];
    if (!name && cfg->fabric[0]) {
        name = cfg->fabric;
        from = "plugstack.conf fabric=";
    }
    if (name) {
        const ct_fabric *f = ct_sigfile_fabric(sf, name);
        if (!f) {
            char list[256] = "";
            for (size_t i = 0; i < sf->nfabrics; i++) {
                size_t l = strlen(list);
                strf(list + l, sizeof list - l, "%s%s", i ? ", " : "", sf->fabrics[i].name);
            }
            strf(what, n, "fabric '%s' (from %s) is not in %s (fabrics there: %s)", name, from,
                 cfg->signatures, list);
        }
        return f;
    }
    if (sf->default_fabric >= 0)
        return &sf->fabrics[sf->default_fabric];
    strf(what, n,
         "no fabric for partition '%s' in %s (map it there or with plugstack.conf "
         "partition_fabric=, or set a default fabric)",
         partition ? partition : "(none)", cfg->signatures);
    return NULL;
}

static const ct_candidate_score *find_cand(const ct_score_result *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->c[i].name, name) == 0)
            return &r->c[i];
    return NULL;
}

/* "block 12.3 ms x2.10, cyclic 5.86 ms x1.00" in candidate order */
static void fmt_scores(const ct_score_result *r, char *buf, size_t n)
{
    buf[0] = '\0';
    static const char *const order[] = {"block", "cyclic"};
    for (size_t k = 0; k < 2; k++) {
        const ct_candidate_score *c = find_cand(r, order[k]);
        if (!c)
            continue;
        char t[32];
        ct_format_time(c->predicted_s, 3, t, sizeof t);
        size_t l = strlen(buf);
        strf(buf + l, n - l, "%s%s %s x%.2f", k ? ", " : "", c->name, t, c->slowdown);
    }
}

/* The user's SLURM_HOSTFILE (report mode with -m arbitrary) as a layout
 * over the allocation's nodes, read with bounds (a regular file of at most
 * CTP_HOSTFILE_MAX_BYTES, the step's tasks); 0, or -1 with why in note. */
static int user_layout(const char *path, ctp_getenv_fn fn, void *ctx, const geometry *g,
                       ct_layout *out, char *note, size_t noten)
{
    const char *nl = env(fn, ctx, "SLURM_JOB_NODELIST");
    char **names = NULL, *text = NULL;
    int64_t nn = 0;
    size_t len = 0;
    ct_err err = {{0}};
    int rc = -1;
    if (!nl)
        strf(note, noten, "no SLURM_JOB_NODELIST");
    else if (ctslurm_expand_hosts(nl, g->alloc.nnodes, &names, &nn, &err) < 0 ||
             nn != g->alloc.nnodes)
        strf(note, noten, "SLURM_JOB_NODELIST: %s", err.msg[0] ? err.msg : "node count differs");
    else if (ct_read_file(path, CTP_HOSTFILE_MAX_BYTES, "a SLURM_HOSTFILE, one node name per task",
                          &text, &len, &err) < 0)
        strf(note, noten, "%s", err.msg);
    else if (ctslurm_hostfile_layout(path, text, len, names, nn, g->ntasks, out, &err) < 0)
        strf(note, noten, "%s", err.msg);
    else if (out->ntasks < g->ntasks)
        strf(note, noten, "%s: names %d tasks, the step runs %d", path, (int)out->ntasks,
             (int)g->ntasks);
    else
        rc = 0;
    if (rc < 0)
        ct_layout_free(out);
    free(text);
    ctslurm_hosts_free(names, nn);
    return rc;
}

/* Scores block and cyclic (and the user's hostfile, when given); 0 on
 * success, -1 after recording a failure (what explains it). */
static int score(const ctp_config *cfg, const ctp_srun_args *args, ctp_getenv_fn fn, void *ctx,
                 const geometry *g, ct_score_result *res, ctp_placed *placed, char *ctxline,
                 size_t ctxn, char *what, size_t whatn, ctp_logrec *lr, const char *hostfile,
                 char *hfnote, size_t hfn)
{
    if (placed)
        memset(placed, 0, sizeof *placed);
    ct_err err = {{0}};
    const char *pat_s =
        args->has_pattern ? args->pattern : ctp_option_from_env("contention-pattern", fn, ctx);
    if (!pat_s)
        pat_s = cfg->pattern;
    /* trace:NAME -> the user's profile (doc/recorder.md) */
    char resolved[4200];
    if (pat_s && strncmp(pat_s, "trace:", 6) == 0) {
        char path[4096];
        if (ct_trace_resolve(pat_s + 6, fn("XDG_DATA_HOME", ctx), fn("HOME", ctx), path,
                             sizeof path, &err) == 0 &&
            (size_t)snprintf(resolved, sizeof resolved, "trace:%s", path) < sizeof resolved)
            pat_s = resolved;
    }
    ct_score_request req;
    memset(&req, 0, sizeof req);
    if (ct_pattern_parse(pat_s, &req.pattern, &err) < 0) {
        strf(what, whatn, "pattern: %s", err.msg);
        return -1;
    }
    const char *size_s =
        args->has_size ? args->size : ctp_option_from_env("contention-size", fn, ctx);
    req.pattern.bytes = cfg->size;
    strf(lr->pattern, sizeof lr->pattern, "%s", pat_s);
    if (size_s && ctp_size_parse(size_s, &req.pattern.bytes, &err) < 0) {
        strf(what, whatn, "size: %s", err.msg);
        return -1;
    }
    if (!cfg->signatures[0]) {
        strf(what, whatn, "no signature file configured (plugstack.conf signatures=PATH)");
        return -1;
    }
    ct_sigfile sf;
    if (ct_sigfile_load(cfg->signatures, &sf, &err) < 0) {
        strf(what, whatn, "signature file: %s", err.msg);
        return -1;
    }
    const char *partition = env(fn, ctx, "SLURM_JOB_PARTITION");
    const ct_fabric *fab = pick_fabric(cfg, &sf, partition, what, whatn);
    ct_tree_map tree = {0};
    ct_trace trace, expanded;
    int have_trace = 0; /* read once here, for the scorer and the placement search */
    int have_expanded = 0; /* its collectives expanded for the placement search */
    int rc = 0;
    if (!fab) {
        rc = -1;
        goto out;
    }
    /* trace:FILE on the launch path: a regular file, bounded in bytes,
     * events (after collective expansion) and tasks (the job's) */
    req.pattern.trace_limits.max_bytes = cfg->trace_max_bytes;
    req.pattern.trace_limits.max_events = cfg->trace_max_events;
    req.pattern.trace_limits.max_tasks = g->ntasks;
    req.alloc = &g->alloc;
    req.ntasks = g->ntasks;
    req.cpus_per_task = g->cpt;
    /* the running release's step rules; the plugin only scores steps on
     * every node of the allocation, where they agree */
    req.slurm_version = args->release;
    /* a fabric with a switch tree: the allocation's nodes under their leaves
     * (issue 14); when they cannot be placed, score as one switch and say so */
    char treenote[200] = "";
    if (fab->topology) {
        const char *nl = env(fn, ctx, "SLURM_JOB_NODELIST");
        char **names = NULL;
        int64_t nn = 0;
        ct_err terr = {{0}};
        if (!nl)
            strf(treenote, sizeof treenote, "; switch tree not used: no SLURM_JOB_NODELIST");
        else if (ctslurm_expand_hosts(nl, g->alloc.nnodes, &names, &nn, &terr) < 0 ||
                 nn != g->alloc.nnodes ||
                 ct_tree_map_build(fab->topology, 1.0 / fab->beta, (const char *const *)names,
                                   (int32_t)nn, &tree, &terr) < 0)
            strf(treenote, sizeof treenote, "; switch tree not used: %s",
                 terr.msg[0] ? terr.msg : "node count differs");
        else {
            req.tree = &tree;
            strf(treenote, sizeof treenote, "; switch tree: %d leaves", (int)ct_tree_map_leaves(&tree));
        }
        ctslurm_hosts_free(names, nn);
    }
    lr->bytes = req.pattern.bytes;
    strf(lr->fabric, sizeof lr->fabric, "%s", fab->name);
    strf(lr->fabric_tcp, sizeof lr->fabric_tcp, "%s", fab->tcp_cc);
    if (req.pattern.kind == CT_PAT_TRACE) {
        /* read once, within the bounds; the scorer expands its collectives
         * (by the algorithms the fabric's models select, collective.h), on
         * the fly into the phases it aggregates when the trace is large */
        if (ct_trace_load_bounded(req.pattern.trace, &req.pattern.trace_limits, &trace, &err) <
            0) {
            strf(what, whatn, "scoring on fabric '%s': %s", fab->name, err.msg);
            rc = -1;
            goto out;
        }
        have_trace = 1;
        req.trace = &trace;
    }
    /* report mode, -m arbitrary: the user's hostfile priced beside block
     * and cyclic; if it cannot be (or the scorer refuses it, e.g. more
     * tasks on a node than its CPUs), the report says why and goes on */
    ct_layout given = {0, 0, NULL, CT_DIST_EXPLICIT, 0};
    if (hostfile && user_layout(hostfile, fn, ctx, g, &given, hfnote, hfn) == 0) {
        req.given = &given;
        const char *slash = strrchr(hostfile, '/');
        req.given_name = slash ? slash + 1 : hostfile;
    }
    int scored = ct_score(fab, &req, res, &err);
    if (scored < 0 && req.given) {
        strf(hfnote, hfn, "%s", err.msg);
        req.given = NULL;
        scored = ct_score(fab, &req, res, &err);
    }
    ct_layout_free(&given);
    if (scored < 0) {
        strf(what, whatn, "scoring on fabric '%s': %s", fab->name, err.msg);
        rc = -1;
        goto out;
    }
    /* the third candidate: a searched placement (placement.c), its work
     * capped by budget_ms; not for a trace too large to replay, which is
     * the only case where the expanded trace is needed here */
    if (placed && !res->aggregated) {
        const ct_trace *tp = req.trace;
        if (tp && tp->ncoll) {
            ct_coll_params cp;
            ct_coll_params_from_fabric(fab, &cp);
            cp.max_events = cfg->trace_max_events;
            if (ct_trace_expand(tp, &cp, &expanded, NULL, &err) < 0) {
                strf(what, whatn, "placement search on fabric '%s': %s", fab->name, err.msg);
                rc = -1;
                goto out;
            }
            have_expanded = 1;
            tp = &expanded;
        }
        if (ctp_place(fab, &req.pattern, tp, &g->alloc, req.tree, g->ntasks, g->cpt,
                      cfg->budget_ms, placed, &err) < 0) {
            strf(what, whatn, "placement search on fabric '%s': %s", fab->name, err.msg);
            rc = -1;
            goto out;
        }
    }
    char sz[32], tcpnote[96] = "";
    ct_format_bytes(req.pattern.bytes, 0, sz, sizeof sz); /* exact: the size as given */
    /* a signature prices the TCP congestion control it was measured with
     * (signatures.h tcp_cc, session 62): say where this node runs another */
    if (fab->tcp_cc[0] && args->node_tcp_cc[0] && strcmp(fab->tcp_cc, args->node_tcp_cc) != 0) {
        const char *node = env(fn, ctx, "SLURMD_NODENAME");
        strf(tcpnote, sizeof tcpnote, "; TCP: fabric calibrated under %s, node %.40s runs %s",
             fab->tcp_cc, node && *node ? node : "(unnamed)", args->node_tcp_cc);
    }
    strf(ctxline, ctxn, "%s %s, %d tasks on %d nodes, fabric %s (%s)%s%s%s%s%s%s",
         req.pattern.kind == CT_PAT_TRACE ? pat_s : ct_pattern_name(req.pattern.kind), sz,
         (int)g->ntasks, (int)g->alloc.nnodes, res->fabric, res->model, treenote,
         req.tree && res->n ? ", busiest link " : "",
         req.tree && res->n ? res->c[0].busiest_link : "", tcpnote, res->note[0] ? "; note: " : "",
         res->note);
out:
    if (have_expanded)
        ct_trace_free(&expanded);
    if (have_trace)
        ct_trace_free(&trace);
    ct_tree_map_free(&tree);
    ct_sigfile_free(&sf);
    return rc;
}

static void fmt_margin(double m, char *buf, size_t n)
{
    if (isinf(m))
        strf(buf, n, "margin inf");
    else
        strf(buf, n, "margin %.0f%%", m * 100);
}

ctp_mode ctp_effective_mode(const ctp_config *cfg, const ctp_srun_args *args, ctp_getenv_fn fn,
                            void *ctx)
{
    const char *mode_s = args->has_mode ? args->mode : ctp_option_from_env("contention", fn, ctx);
    ctp_mode mode = cfg->default_mode;
    if (mode_s && ctp_mode_parse(mode_s, &mode, NULL) < 0)
        return CTP_MODE_OFF;
    return mode;
}

/* the geometry and the scores, for the decision log */
static void log_geometry(ctp_logrec *lr, const geometry *g)
{
    lr->nodes = g->alloc.nnodes;
    lr->tasks = g->ntasks;
    lr->cpt = g->cpt;
}

static void log_scores(ctp_logrec *lr, const ct_score_result *r)
{
    lr->ncand = 0;
    for (size_t i = 0; i < r->n && lr->ncand < CTP_LOG_MAX_CAND; i++) {
        strf(lr->cand[lr->ncand], sizeof lr->cand[0], "%s", r->c[i].name);
        lr->pred[lr->ncand] = r->c[i].predicted_s;
        lr->ncand++;
    }
    if (r->n)
        strf(lr->choice, sizeof lr->choice, "%s", r->c[r->winner].name);
}

/* What auto launches of block, cyclic (and plane): ct_score_auto_pick's
 * rule with the plugstack's min_switch= (block kept unless the winner is
 * predicted that much faster). kept: why block is kept against the
 * ranking, "" otherwise. */
static const ct_candidate_score *auto_pick(const ctp_config *cfg, const ct_score_result *res,
                                           char *kept, size_t n)
{
    double gain;
    size_t k = ct_score_auto_pick(res, cfg->min_switch, &gain);
    kept[0] = '\0';
    if (k != res->winner)
        strf(kept, n, "%s predicted %.1f%% faster, under min_switch %.0f%%",
             res->c[res->winner].name, 100 * gain, 100 * cfg->min_switch);
    return &res->c[k];
}

/* fn/ctx: the environment as the step's component sees it (het); the
 * het view's own verdict is taken once the mode is known. */
static void decide_inner(const ctp_config *cfg, const ctp_srun_args *args, ctp_getenv_fn fn,
                         void *ctx, const ctp_het_view *het, ctp_decision *d)
{
    const char *mode_s = args->has_mode ? args->mode : ctp_option_from_env("contention", fn, ctx);
    ctp_mode mode = cfg->default_mode;
    if (mode_s && ctp_mode_parse(mode_s, &mode, NULL) < 0)
        return; /* srun's option processing refuses the value itself */
    d->mode = mode;
    if (mode == CTP_MODE_OFF)
        return;
    int explicit_mode = mode_s != NULL;
    ctp_level note = explicit_mode ? CTP_LEVEL_INFO : CTP_LEVEL_VERBOSE;

    if (args->het_step) {
        /* the first component's options were read; the step is not decided:
         * an environment variable set here would reach every component */
        leave(d, "not-modelled", note,
              "contention: srun ':' launches a heterogeneous step (several components), which is "
              "not modelled: layout left to Slurm");
        return;
    }
    if (het->state == CTP_HET_LEAVE) {
        leave(d, "not-modelled", note, "contention: %s: layout left to Slurm", het->why);
        return;
    }
    if (!args->ok) {
        /* -m or -n may hide behind what we could not read */
        leave(d, "cmdline", explicit_mode ? CTP_LEVEL_WARNING : CTP_LEVEL_VERBOSE,
              "contention: warning: srun's command line not understood (%s): layout left to "
              "Slurm",
              args->why);
        return;
    }
    if (args->interactive) {
        /* the use_interactive_step shell: one task, and whatever srun reads
         * here would be handed on to the shell (issue 10) */
        leave(d, "interactive", CTP_LEVEL_VERBOSE,
              "contention: interactive step (srun --interactive): nothing to lay out; the sruns "
              "inside it are decided one by one");
        return;
    }
    const char *user_dist = user_distribution(args, fn, ctx);
    const int user_hf = reports_user_hostfile(mode, user_dist);
    if (user_dist && mode != CTP_MODE_REPORT) {
        strf(d->log.why, sizeof d->log.why, "%s", args->has_dist ? "user-m" : "user-env");
        strf(d->log.launched, sizeof d->log.launched, "%s", user_dist);
        say(d, note,
            "contention: distribution chosen by the user (%s%s): --contention=%s not "
            "applied",
            args->has_dist ? "-m " : "SLURM_DISTRIBUTION=", user_dist, ctp_mode_name(mode));
        return;
    }

    geometry g;
    ct_score_result res;
    char ctxline[CTP_MSG_MAX / 2], what[CTP_MSG_MAX / 2], scores[256], margin[32];
    what[0] = '\0';

    if (mode == CTP_MODE_BLOCK || mode == CTP_MODE_CYCLIC) {
        const char *dist = mode == CTP_MODE_BLOCK ? "block" : "cyclic";
        d->set_distribution = 1;
        strf(d->distribution, sizeof d->distribution, "%s", dist);
        strf(d->mapping, sizeof d->mapping, "%s", dist);
        /* the prediction is a courtesy here: no warning when it cannot be made */
        ctp_decision scratch;
        memset(&scratch, 0, sizeof scratch);
        char extra[CTP_MSG_MAX] = "";
        strf(d->log.why, sizeof d->log.why, "forced");
        strf(d->log.launched, sizeof d->log.launched, "%s", dist);
        d->log.applied = 1;
        if (get_geometry(cfg, args, fn, ctx, 0, 0, &scratch, &g)) {
            log_geometry(&d->log, &g);
            if (score(cfg, args, fn, ctx, &g, &res, NULL, ctxline, sizeof ctxline, what,
                      sizeof what, &d->log, NULL, NULL, 0) == 0) {
                log_scores(&d->log, &res);
                const ct_candidate_score *c = find_cand(&res, dist);
                if (c) {
                    d->have_slowdown = 1;
                    d->slowdown = c->slowdown;
                }
                fmt_scores(&res, scores, sizeof scores);
                strf(extra, sizeof extra, ": %s; %s", scores, ctxline);
            }
            ct_alloc_free(&g.alloc);
        }
        say(d, CTP_LEVEL_VERBOSE, "contention: %s forced (mode %s)%s", dist, dist, extra);
        return;
    }

    /* auto and report need the geometry and the fabric */
    if (!get_geometry(cfg, args, fn, ctx, explicit_mode || mode == CTP_MODE_REPORT, user_hf, d,
                      &g)) {
        if (!d->log.why[0])
            strf(d->log.why, sizeof d->log.why, "%s",
                 strstr(d->message, "whatever the mapping") ||
                         strstr(d->message, "not inside an allocation")
                     ? "nothing-to-decide"
                     : "not-modelled");
        return;
    }
    log_geometry(&d->log, &g);
    /* arbitrary distribution takes the hostfile's per-node counts as they
     * are; with --ntasks-per-node Slurm checks them against it, so the
     * optimized placement is not offered there */
    int want_place = !(mode == CTP_MODE_AUTO && isinf(cfg->min_gain));
    char no_arbitrary[160] = "";
    if (g.ntpn > 0)
        strf(no_arbitrary, sizeof no_arbitrary,
             "--ntasks-per-node %d is in force, which arbitrary distribution does not honour",
             (int)g.ntpn);
    /* srun 23.11 and later exit with "--nodes is incompatible with
     * --distribution=arbitrary" when -N is on the command line (slurm_opt.c
     * _validate_arbitrary; -N from the environment, e.g. salloc's
     * SLURM_NNODES, is accepted): the step would not start at all. Topology
     * plugins refuse arbitrary distribution only for job allocations
     * (topology/block, ring, torus3d: "does not support arbitrary tasks
     * distribution"), never taken here: the plugin decides inside one. */
    else if (args->has_nodes && args->version >= CTP_SLURM_23_11)
        strf(no_arbitrary, sizeof no_arbitrary,
             "srun -N %d: Slurm %s refuses -N with arbitrary distribution",
             (int)args->nodes_min, ctp_slurm_version_name(args->version));
    /* report with -m arbitrary: the user's own layout is what launches;
     * price their SLURM_HOSTFILE too (hfnote: why it could not be) */
    const char *hostfile = NULL;
    char hfnote[200] = "";
    if (user_hf) {
        hostfile = env(fn, ctx, "SLURM_HOSTFILE");
        if (!hostfile)
            strf(hfnote, sizeof hfnote, "no SLURM_HOSTFILE");
    }
    ctp_placed placed;
    int rc = score(cfg, args, fn, ctx, &g, &res, want_place ? &placed : NULL, ctxline,
                   sizeof ctxline, what, sizeof what, &d->log, hostfile, hfnote, sizeof hfnote);
    ct_alloc_free(&g.alloc);
    if (rc == 0)
        log_scores(&d->log, &res);
    if (rc < 0) {
        fail(cfg, d, what);
        return;
    }
    fmt_scores(&res, scores, sizeof scores);
    fmt_margin(res.margin, margin, sizeof margin);
    const ct_candidate_score *win = &res.c[res.winner];
    char opt[192] = "";
    if (want_place && placed.have) {
        char t[32];
        ct_format_time(placed.predicted_s, 3, t, sizeof t);
        if (placed.explicit_layout)
            strf(opt, sizeof opt, ", optimized %s (%s, gain %.0f%%)", t, placed.from,
                 100 * placed.gain);
        else
            strf(opt, sizeof opt, ", optimized = %s (nothing predicted faster)", placed.from);
        if (strstr(placed.note, "work cap")) /* steps left out to stay within budget_ms */
            strf(opt + strlen(opt), sizeof opt - strlen(opt), " [search capped by budget_ms]");
    }
    if (want_place && placed.have && placed.explicit_layout && d->log.ncand < CTP_LOG_MAX_CAND) {
        strf(d->log.cand[d->log.ncand], sizeof d->log.cand[0], "optimized");
        d->log.pred[d->log.ncand++] = placed.predicted_s;
    }
    /* the search's gain is over ITS block and cyclic; for a trace whose
     * replay it skipped (work cap) those are screenings (all communications
     * in flight), not the scorer's replayed times: a placement predicted
     * slower than the scorer's winner is never launched */
    int beats = ctp_optimized_beats(want_place ? &placed : NULL, win->predicted_s);
    if (want_place && placed.have && placed.explicit_layout && !beats) {
        char t[32];
        ct_format_time(win->predicted_s, 3, t, sizeof t);
        strf(opt + strlen(opt), sizeof opt - strlen(opt), " [not below %s's %s by the scorer]",
             win->name, t);
    }
    int go_opt = beats && (mode == CTP_MODE_OPTIMIZED || placed.gain >= cfg->min_gain);
    char kept[128];
    const ct_candidate_score *pick = auto_pick(cfg, &res, kept, sizeof kept);
    int opt_refused = go_opt && no_arbitrary[0];
    if (opt_refused && mode == CTP_MODE_REPORT)
        go_opt = 0; /* report changes nothing; it says what auto would launch instead */
    if (go_opt && no_arbitrary[0]) {
        char why_kept[sizeof kept + 4] = "";
        if (mode == CTP_MODE_AUTO) {
            win = pick;
            if (kept[0])
                strf(why_kept, sizeof why_kept, " (%s)", kept);
        }
        say(d, CTP_LEVEL_INFO,
            "contention: optimized placement not launched (%s): %s chosen instead%s: %s%s, %s; %s",
            no_arbitrary, win->name, why_kept, scores, opt, margin, ctxline);
        d->log.applied = 1;
        strf(d->log.why, sizeof d->log.why, "%s", mode == CTP_MODE_AUTO ? "-" : "forced");
        strf(d->log.launched, sizeof d->log.launched, "%s", win->name);
        d->set_distribution = 1;
        strf(d->distribution, sizeof d->distribution, "%s", win->name);
        strf(d->mapping, sizeof d->mapping, "%s", win->name);
        d->have_slowdown = 1;
        d->slowdown = win->slowdown;
        ctp_placed_free(&placed);
        return;
    }
    if (go_opt && mode != CTP_MODE_REPORT) {
        d->log.applied = 1;
        strf(d->log.why, sizeof d->log.why, "%s", mode == CTP_MODE_AUTO ? "-" : "forced");
        strf(d->log.launched, sizeof d->log.launched, "optimized");
        strf(d->log.choice, sizeof d->log.choice, "optimized");
        d->use_hostfile = 1;
        d->ntasks = placed.ntasks;
        d->nnodes = placed.nnodes;
        d->node_of = placed.node_of; /* the decision owns it now */
        placed.node_of = NULL;
        strf(d->fallback, sizeof d->fallback, "%s", win->name);
        d->set_distribution = 1;
        strf(d->distribution, sizeof d->distribution, "arbitrary");
        strf(d->mapping, sizeof d->mapping, "optimized");
        d->have_slowdown = 1;
        d->slowdown = win->uncontended_s > 0 ? placed.predicted_s / win->uncontended_s : 1.0;
        char t[32];
        ct_format_time(placed.predicted_s, 3, t, sizeof t);
        if (mode == CTP_MODE_OPTIMIZED)
            say(d, CTP_LEVEL_VERBOSE,
                "contention: optimized placement forced: %s predicted (%s start), %.0f%% faster "
                "than %s: %s; %s",
                t, placed.from, 100 * placed.gain, win->name, scores, ctxline);
        else
            say(d, CTP_LEVEL_VERBOSE,
                "contention: optimized placement chosen (auto): %s predicted (%s start), %.0f%% "
                "faster than %s (min_gain %.0f%%): %s; %s",
                t, placed.from, 100 * placed.gain, win->name, 100 * cfg->min_gain, scores,
                ctxline);
        ctp_placed_free(&placed);
        return;
    }
    if (want_place)
        ctp_placed_free(&placed);
    if (mode == CTP_MODE_OPTIMIZED) { /* forced, but block or cyclic is the best found */
        d->log.applied = 1;
        strf(d->log.why, sizeof d->log.why, "forced");
        strf(d->log.launched, sizeof d->log.launched, "%s", win->name);
        d->set_distribution = 1;
        strf(d->distribution, sizeof d->distribution, "%s", win->name);
        strf(d->mapping, sizeof d->mapping, "%s", win->name);
        d->have_slowdown = 1;
        d->slowdown = win->slowdown;
        say(d, CTP_LEVEL_INFO,
            "contention: optimized: no placement predicted faster than %s, which is launched: "
            "%s%s, %s; %s",
            win->name, scores, opt, margin, ctxline);
        return;
    }
    if (mode == CTP_MODE_AUTO) {
        d->log.applied = 1;
        strf(d->log.why, sizeof d->log.why, "-");
        strf(d->log.launched, sizeof d->log.launched, "%s", pick->name);
        strf(d->log.choice, sizeof d->log.choice, "%s", pick->name);
        d->set_distribution = 1;
        strf(d->distribution, sizeof d->distribution, "%s", pick->name);
        strf(d->mapping, sizeof d->mapping, "%s", pick->name);
        d->have_slowdown = 1;
        d->slowdown = pick->slowdown;
        say(d, CTP_LEVEL_VERBOSE, "contention: %s chosen (auto%s%s): %s%s, %s; %s", pick->name,
            res.margin == 0 ? ", a tie: Slurm's default" : kept[0] ? ", Slurm's default: " : "",
            res.margin == 0 ? "" : kept, scores, opt, margin, ctxline);
        return;
    }
    /* report: what Slurm will launch is the user's first-level distribution
     * or its default, block */
    char launched[64] = "block";
    if (user_dist) {
        strf(launched, sizeof launched, "%s", user_dist);
        launched[strcspn(launched, ":,")] = '\0';
    }
    strf(d->log.why, sizeof d->log.why, "report");
    strf(d->log.launched, sizeof d->log.launched, "%s", launched);
    const ct_candidate_score *lc = res.have_given ? &res.given : find_cand(&res, launched);
    strf(d->mapping, sizeof d->mapping, "%s", launched);
    if (lc) {
        d->have_slowdown = 1;
        d->slowdown = lc->slowdown;
    }
    /* -m arbitrary: the user's hostfile as priced, or why it is not */
    char hftxt[320] = "";
    if (res.have_given) {
        char t[32];
        ct_format_time(res.given.predicted_s, 3, t, sizeof t);
        strf(hftxt, sizeof hftxt, ": SLURM_HOSTFILE %s predicted %s x%.2f", res.given.name, t,
             res.given.slowdown);
        if (win->predicted_s > 0 && res.given.predicted_s > win->predicted_s)
            strf(hftxt + strlen(hftxt), sizeof hftxt - strlen(hftxt), ", %.0f%% slower than %s",
                 100 * (res.given.predicted_s - win->predicted_s) / win->predicted_s, win->name);
    } else if (hfnote[0]) {
        strf(hftxt, sizeof hftxt, ": SLURM_HOSTFILE not priced: %s", hfnote);
    }
    char verdict[sizeof kept + sizeof no_arbitrary + 128];
    if (res.margin == 0)
        strf(verdict, sizeof verdict, "block and cyclic predicted equal");
    else
        strf(verdict, sizeof verdict, "%s predicted fastest", win->name);
    /* what --contention=auto would launch with this plugstack (min_gain,
     * min_switch), so that an admin can judge auto before enabling it */
    strf(verdict + strlen(verdict), sizeof verdict - strlen(verdict), "; auto would launch %s%s%s%s",
         go_opt ? "the optimized placement" : pick->name, !go_opt && kept[0] ? " (" : "",
         !go_opt ? kept : "", !go_opt && kept[0] ? ")" : "");
    if (opt_refused)
        strf(verdict + strlen(verdict), sizeof verdict - strlen(verdict),
             " (the optimized placement would not launch: %s)", no_arbitrary);
    say(d, CTP_LEVEL_INFO, "contention: report: %s, layout left to Slurm (%s%s): %s%s, %s; %s",
        verdict, launched, hftxt, scores, opt, margin, ctxline);
}

int ctp_optimized_beats(const ctp_placed *p, double scorer_best_s)
{
    return p && p->have && ct_place_beats(p->explicit_layout, p->predicted_s, scorer_best_s);
}

void ctp_decision_free(ctp_decision *d)
{
    if (!d)
        return;
    free(d->node_of);
    d->node_of = NULL;
    d->use_hostfile = 0;
}

void ctp_decision_fallback(ctp_decision *d, const char *why)
{
    /* keep the prediction: "contention: optimized placement chosen (auto): X"
     * becomes "...: block chosen instead; optimized: X" */
    char was[CTP_MSG_MAX];
    strf(was, sizeof was, "%s", d->message);
    const char *rest = strncmp(was, "contention: ", 12) == 0 ? strstr(was + 12, ": ") : NULL;
    ctp_decision_free(d);
    d->set_distribution = 1;
    strf(d->distribution, sizeof d->distribution, "%s", d->fallback);
    strf(d->mapping, sizeof d->mapping, "%s", d->fallback);
    say(d, CTP_LEVEL_INFO, "contention: optimized placement not launched (%s): %s chosen instead%s%s",
        why, d->fallback, rest ? "; optimized" : "", rest ? rest : "");
}

void ctp_decide(const ctp_config *cfg, const ctp_srun_args *args, ctp_getenv_fn fn, void *ctx,
                ctp_decision *d)
{
    memset(d, 0, sizeof *d);
    ctp_het_view het;
    ctp_het_view_init(&het, args, fn, ctx);
    decide_inner(cfg, args, ctp_het_getenv, &het, &het, d);
    if (het.state == CTP_HET_ONE && d->level != CTP_LEVEL_NONE) {
        /* the line names the component it speaks of */
        size_t l = strlen(d->message);
        strf(d->message + l, sizeof d->message - l, " [heterogeneous job: component %d of %d]",
             het.comp, het.size);
    }
    const char *cpn = env(ctp_het_getenv, &het, "SLURM_JOB_CPUS_PER_NODE");
    strf(d->log.cpus, sizeof d->log.cpus, "%s", cpn ? cpn : "");
    strf(d->log.node_tcp, sizeof d->log.node_tcp, "%s", args->node_tcp_cc);
    if (d->mode != CTP_MODE_OFF && !d->log.why[0])
        strf(d->log.why, sizeof d->log.why, "not-modelled");
}
