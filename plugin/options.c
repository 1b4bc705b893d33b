/* Option values (--contention, --contention-pattern, --contention-size) and
 * the scan of srun's own command line.
 *
 * Why scan argv at all: the decision must be taken in slurm_spank_init,
 * the only srun hook that runs before srun reads SLURM_DISTRIBUTION (see
 * doc/plugin.md). At that point srun has not parsed its command line, so
 * neither our option callbacks nor -n/-c/-m are known yet; the scan reads
 * them from /proc/self/cmdline, conservatively: anything it cannot read
 * with certainty makes the plugin leave the step alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/fileio.h"
#include "contention/pattern.h"
#include "contention/units.h"
#include "plugin.h"

static const struct {
    const char *name;
    ctp_mode mode;
} mode_names[] = {
    {"auto", CTP_MODE_AUTO}, {"block", CTP_MODE_BLOCK},   {"cyclic", CTP_MODE_CYCLIC},
    {"optimized", CTP_MODE_OPTIMIZED}, {"off", CTP_MODE_OFF}, {"report", CTP_MODE_REPORT},
};

int ctp_mode_parse(const char *s, ctp_mode *m, ct_err *err)
{
    for (size_t i = 0; s && i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (strcmp(s, mode_names[i].name) == 0) {
            *m = mode_names[i].mode;
            return 0;
        }
    return ct_err_set(err, "invalid mode '%.64s' (accepted: " CTP_MODES_ACCEPTED ")", s ? s : "");
}

const char *ctp_mode_name(ctp_mode m)
{
    for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (mode_names[i].mode == m)
            return mode_names[i].name;
    return "unknown";
}

int ctp_pattern_check(const char *s, ct_err *err)
{
    ct_pattern p;
    return ct_pattern_parse(s, &p, err);
}

int ctp_size_parse(const char *s, double *bytes, ct_err *err)
{
    double b;
    if (ct_parse_size(s, &b, err) < 0)
        return -1;
    if (!(b > 0))
        return ct_err_set(err,
                          "invalid size '%.64s' (expected a positive number of bytes with "
                          "optional K, M or G suffix, e.g. 4M)",
                          s);
    *bytes = b;
    return 0;
}

/* srun's --het-group value (srun/opt.c _get_het_group): a set of component
 * indices as hostlist_create reads "[VALUE]" (or VALUE when it starts with
 * '['): comma-separated indices and ranges, each index below 128
 * (MAX_HET_JOB_COMPONENTS). The scan here is stricter than hostlist's (no
 * spaces, no nested brackets): what it refuses is left to Slurm. */
#define CTP_HET_MAX_COMPONENTS 128

int ctp_het_group_parse(const char *s, int *comp, ct_err *err)
{
    const char *p = s ? s : "";
    size_t len = strlen(p);
    if (len >= 2 && p[0] == '[' && p[len - 1] == ']') {
        p++;
        len -= 2;
    }
    long first = -1;
    int several = 0;
    size_t i = 0;
    while (i < len) {
        long lo = 0, hi;
        size_t d = i;
        while (i < len && p[i] >= '0' && p[i] <= '9' && lo < CTP_HET_MAX_COMPONENTS)
            lo = lo * 10 + (p[i++] - '0');
        if (i == d || lo >= CTP_HET_MAX_COMPONENTS)
            goto bad;
        hi = lo;
        if (i < len && p[i] == '-') {
            d = ++i;
            hi = 0;
            while (i < len && p[i] >= '0' && p[i] <= '9' && hi < CTP_HET_MAX_COMPONENTS)
                hi = hi * 10 + (p[i++] - '0');
            if (i == d || hi >= CTP_HET_MAX_COMPONENTS || hi < lo)
                goto bad;
        }
        if (i < len && p[i] != ',')
            goto bad;
        if (i < len && ++i == len)
            goto bad; /* a trailing comma */
        if (first < 0)
            first = lo;
        if (lo != first || hi != first)
            several = 1;
    }
    if (first < 0)
        goto bad;
    *comp = (int)first;
    return several;
bad:
    return ct_err_set(err,
                      "invalid --het-group '%.64s' (expected component indices below %d, e.g. 1, "
                      "0,2 or 1-3)",
                      s ? s : "", CTP_HET_MAX_COMPONENTS);
}

/* ------------------------------------------------------------------ */
/* srun's options, per Slurm release. Each entry lists the releases whose
 * srun accepts it with that argument kind, as read from each release's
 * src/common/slurm_opt.c (common_options[], entries srun handles), tags
 * slurm-22-05-11-1, 23-02-8-1, 23-11-11-1, 24-05-8-1, 24-11-7-1, 25-05-8-1,
 * 25-11-7-1 and 26-05-3-1. A release not listed here is not scanned at all
 * (ctp_slurm_version_parse refuses it): a wrong table could mis-read an
 * argument as an option or the reverse. */

enum arg { NO = 0, REQ = 1, OPT = 2 };

enum what {
    W_OTHER = 0,
    W_NTASKS,
    W_CPT,
    W_NODES,
    W_DIST,
    W_NTPN,
    W_VERBOSE,
    W_QUIET,
    W_MODE,
    W_PATTERN,
    W_SIZE,
    W_INTERACTIVE, /* --interactive: the shell step of use_interactive_step */
    W_OVERLAP,     /* --overlap: the step may use CPUs other steps hold */
    W_HETGROUP,    /* --het-group (--pack-group): the components the step runs on */
    W_CLUSTERS,    /* -M/--clusters (--cluster): the cluster whose job the step joins */
    W_UNSUPPORTED, /* changes the step's nodes or CPUs in ways not modelled */
};

#define V2205 (1u << CTP_SLURM_22_05)
#define V2302 (1u << CTP_SLURM_23_02)
#define V2311 (1u << CTP_SLURM_23_11)
#define V2405 (1u << CTP_SLURM_24_05)
#define V2411 (1u << CTP_SLURM_24_11)
#define V2505 (1u << CTP_SLURM_25_05)
#define V2511 (1u << CTP_SLURM_25_11)
#define V2605 (1u << CTP_SLURM_26_05)
#define VALL ((1u << CTP_SLURM_NVERSIONS) - 1)
#define VFROM(v) (VALL & ~((v) - 1))

typedef struct srun_opt {
    const char *name;
    char shortc; /* 0: long only */
    enum arg arg;
    enum what what;
    unsigned versions; /* bit CTP_SLURM_*: srun of that release accepts it so */
} srun_opt;

static const srun_opt srun_opts[] = {
    {"accel-bind", 0, REQ, W_OTHER, VALL},
    {"account", 'A', REQ, W_OTHER, VALL},
    {"acctg-freq", 0, REQ, W_OTHER, VALL},
    {"async", 0, NO, W_OTHER, V2605},
    {"autocomplete", 0, REQ, W_OTHER, VFROM(V2302)},
    {"bb", 0, REQ, W_OTHER, VALL},
    {"bbf", 0, REQ, W_OTHER, VALL},
    {"bcast", 0, OPT, W_OTHER, VALL},
    {"bcast-exclude", 0, REQ, W_OTHER, VALL},
    {"begin", 'b', REQ, W_OTHER, VALL},
    {"chdir", 'D', REQ, W_OTHER, VALL},
    {"cluster", 0, REQ, W_CLUSTERS, VALL},
    {"cluster-constraint", 0, REQ, W_OTHER, VALL},
    {"clusters", 'M', REQ, W_CLUSTERS, VALL},
    {"comment", 0, REQ, W_OTHER, VALL},
    {"compress", 0, OPT, W_OTHER, VALL},
    {"consolidate-segments", 0, NO, W_UNSUPPORTED, VFROM(V2511)},
    {"constraint", 'C', REQ, W_OTHER, VALL},
    {"container", 0, REQ, W_OTHER, VALL},
    {"container-id", 0, REQ, W_OTHER, VFROM(V2302)},
    {"container-type", 0, REQ, W_OTHER, V2605},
    {"context", 0, REQ, W_OTHER, VALL},
    {"contiguous", 0, NO, W_OTHER, VALL},
    {"core-spec", 'S', REQ, W_OTHER, VALL},
    {"cores-per-socket", 0, REQ, W_UNSUPPORTED, VALL},
    {"cpu-bind", 0, REQ, W_OTHER, VALL},
    {"cpu-freq", 0, REQ, W_OTHER, VALL},
    {"cpu_bind", 0, REQ, W_OTHER, VALL},
    {"cpus-per-gpu", 0, REQ, W_UNSUPPORTED, VALL},
    {"cpus-per-task", 'c', REQ, W_CPT, VALL},
    {"deadline", 0, REQ, W_OTHER, VALL},
    {"debugger-test", 0, NO, W_OTHER, VALL},
    {"delay-boot", 0, REQ, W_OTHER, VALL},
    {"dependency", 'd', REQ, W_OTHER, VALL},
    {"disable-status", 'X', NO, W_OTHER, VALL},
    {"distribution", 'm', REQ, W_DIST, VALL},
    {"epilog", 0, REQ, W_OTHER, VALL},
    {"error", 'e', REQ, W_OTHER, VALL},
    {"exact", 0, NO, W_UNSUPPORTED, VALL},
    {"exclude", 'x', REQ, W_UNSUPPORTED, VALL},
    {"exclusive", 0, OPT, W_UNSUPPORTED, VALL},
    {"export", 0, REQ, W_OTHER, VALL},
    {"external-launcher", 0, NO, W_OTHER, V2311},
    {"external-launcher", 0, OPT, W_OTHER, VFROM(V2405)},
    {"extra", 0, REQ, W_OTHER, VFROM(V2302)},
    {"extra-node-info", 'B', REQ, W_UNSUPPORTED, VALL},
    {"gid", 0, REQ, W_OTHER, V2205},
    {"gpu-bind", 0, REQ, W_OTHER, VALL},
    {"gpu-freq", 0, REQ, W_OTHER, VALL},
    {"gpus", 'G', REQ, W_UNSUPPORTED, VALL},
    {"gpus-per-node", 0, REQ, W_UNSUPPORTED, VALL},
    {"gpus-per-socket", 0, REQ, W_UNSUPPORTED, VALL},
    {"gpus-per-task", 0, REQ, W_UNSUPPORTED, VALL},
    {"gres", 0, REQ, W_UNSUPPORTED, VALL},
    {"gres-flags", 0, REQ, W_OTHER, VALL},
    {"help", 'h', NO, W_OTHER, VALL},
    {"het-group", 0, REQ, W_HETGROUP, VALL},
    {"hint", 0, REQ, W_UNSUPPORTED, VALL},
    {"hold", 'H', NO, W_OTHER, VALL},
    {"ignore-signals", 0, REQ, W_OTHER, V2605},
    {"immediate", 'I', OPT, W_OTHER, VALL},
    {"input", 'i', REQ, W_OTHER, VALL},
    {"interactive", 0, NO, W_INTERACTIVE, VALL},
    {"job-name", 'J', REQ, W_OTHER, VALL},
    {"jobid", 0, REQ, W_UNSUPPORTED, VALL},
    {"kill-on-bad-exit", 'K', OPT, W_OTHER, VALL},
    {"label", 'l', NO, W_OTHER, VALL},
    {"licenses", 'L', REQ, W_OTHER, VALL},
    {"mail-type", 0, REQ, W_OTHER, VALL},
    {"mail-user", 0, REQ, W_OTHER, VALL},
    {"mcs-label", 0, REQ, W_OTHER, VALL},
    {"mem", 0, REQ, W_UNSUPPORTED, VALL},
    {"mem-bind", 0, REQ, W_OTHER, VALL},
    {"mem-per-cpu", 0, REQ, W_UNSUPPORTED, VALL},
    {"mem-per-gpu", 0, REQ, W_UNSUPPORTED, VALL},
    {"mem-update", 0, REQ, W_OTHER, V2605},
    {"mincpus", 0, REQ, W_OTHER, VALL},
    {"mpi", 0, REQ, W_OTHER, VALL},
    {"msg-timeout", 0, REQ, W_OTHER, VALL},
    {"multi-prog", 0, NO, W_OTHER, VALL},
    {"network", 0, REQ, W_OTHER, VALL},
    {"nice", 0, OPT, W_OTHER, VALL},
    {"no-allocate", 'Z', NO, W_UNSUPPORTED, VALL},
    {"no-kill", 'k', OPT, W_OTHER, VALL},
    {"nodefile", 'F', REQ, W_UNSUPPORTED, VALL},
    {"nodelist", 'w', REQ, W_UNSUPPORTED, VALL},
    {"nodes", 'N', REQ, W_NODES, VALL},
    {"ntasks", 'n', REQ, W_NTASKS, VALL},
    {"ntasks-per-core", 0, REQ, W_UNSUPPORTED, VALL},
    {"ntasks-per-gpu", 0, REQ, W_UNSUPPORTED, VALL},
    {"ntasks-per-node", 0, REQ, W_NTPN, VALL},
    {"ntasks-per-socket", 0, REQ, W_UNSUPPORTED, VALL},
    {"ntasks-per-tres", 0, REQ, W_UNSUPPORTED, VALL},
    {"oom-kill-step", 0, OPT, W_OTHER, VFROM(V2411)},
    {"open-mode", 0, REQ, W_OTHER, VALL},
    {"output", 'o', REQ, W_OTHER, VALL},
    {"overcommit", 'O', NO, W_UNSUPPORTED, VALL},
    {"overlap", 0, OPT, W_OVERLAP, VALL},
    {"oversubscribe", 's', NO, W_OTHER, VALL},
    {"pack-group", 0, REQ, W_HETGROUP, VALL},
    {"parsable", 0, NO, W_OTHER, V2605},
    {"partition", 'p', REQ, W_OTHER, VALL},
    {"power", 0, REQ, W_OTHER, V2205 | V2302 | V2311},
    {"prefer", 0, REQ, W_OTHER, VALL},
    {"preserve-env", 'E', NO, W_OTHER, VALL},
    {"priority", 0, REQ, W_OTHER, VALL},
    {"profile", 0, REQ, W_OTHER, VALL},
    {"prolog", 0, REQ, W_OTHER, VALL},
    {"propagate", 0, OPT, W_OTHER, VALL},
    {"pty", 0, NO, W_OTHER, V2205},
    {"pty", 0, OPT, W_OTHER, VFROM(V2302)},
    {"qos", 'q', REQ, W_OTHER, VALL},
    {"quiet", 'Q', NO, W_QUIET, VALL},
    {"quit-on-interrupt", 0, NO, W_OTHER, VALL},
    {"reboot", 0, NO, W_OTHER, VALL},
    {"relative", 'r', REQ, W_UNSUPPORTED, VALL},
    {"reservation", 0, REQ, W_OTHER, VALL},
    {"resources", 0, REQ, W_UNSUPPORTED, VFROM(V2511)},
    {"resv-ports", 0, OPT, W_OTHER, VALL},
    {"segment", 0, REQ, W_UNSUPPORTED, VFROM(V2405)},
    {"send-libs", 0, OPT, W_OTHER, VALL},
    {"signal", 0, REQ, W_OTHER, VALL},
    {"slurmd-debug", 0, REQ, W_OTHER, VALL},
    {"sockets-per-node", 0, REQ, W_UNSUPPORTED, VALL},
    {"spread-job", 0, NO, W_UNSUPPORTED, VALL},
    {"spread-segments", 0, NO, W_UNSUPPORTED, VFROM(V2511)},
    {"stepmgr", 0, NO, W_OTHER, VFROM(V2405)},
    {"switches", 0, REQ, W_OTHER, VALL},
    {"task-epilog", 0, REQ, W_OTHER, VALL},
    {"task-prolog", 0, REQ, W_OTHER, VALL},
    {"tasks-per-node", 0, REQ, W_NTPN, VALL},
    {"test-only", 0, NO, W_OTHER, VALL},
    {"thread-spec", 0, REQ, W_OTHER, VALL},
    {"threads", 'T', REQ, W_OTHER, VALL},
    {"threads-per-core", 0, REQ, W_UNSUPPORTED, VALL},
    {"time", 't', REQ, W_OTHER, VALL},
    {"time-min", 0, REQ, W_OTHER, VALL},
    {"tmp", 0, REQ, W_OTHER, VALL},
    {"treewidth", 0, REQ, W_OTHER, VFROM(V2311)},
    {"tres-bind", 0, REQ, W_OTHER, VFROM(V2311)},
    {"tres-per-task", 0, REQ, W_UNSUPPORTED, VFROM(V2302)},
    {"uid", 0, REQ, W_OTHER, V2205},
    {"unbuffered", 'u', NO, W_OTHER, VALL},
    {"usage", 0, NO, W_OTHER, VALL},
    {"use-min-nodes", 0, NO, W_UNSUPPORTED, VALL},
    {"verbose", 'v', NO, W_VERBOSE, VALL},
    {"version", 'V', NO, W_OTHER, VALL},
    {"wait", 'W', REQ, W_OTHER, VALL},
    {"wait-for-children", 0, NO, W_OTHER, VFROM(V2505)},
    {"wckey", 0, REQ, W_OTHER, VALL},
    {"whole", 0, NO, W_OTHER, VALL},
    {"x11", 0, OPT, W_OTHER, VALL},
    /* this plugin's own options (SPANK adds them to srun's table) */
    {"contention", 0, REQ, W_MODE, VALL},
    {"contention-pattern", 0, REQ, W_PATTERN, VALL},
    {"contention-size", 0, REQ, W_SIZE, VALL},
};
#define NOPTS (sizeof srun_opts / sizeof srun_opts[0])

static const char *const version_names[CTP_SLURM_NVERSIONS] = {
    "22.05", "23.02", "23.11", "24.05", "24.11", "25.05", "25.11", "26.05",
};

int ctp_slurm_version_parse(const char *s, ctp_slurm_version *v, ct_err *err)
{
    /* "22.05.8", "24.11.0-0rc1", "26.05": the release is the first two numbers */
    char rel[8] = "";
    if (s) {
        size_t n = strspn(s, "0123456789");
        if (n == 2 && s[2] == '.' && strspn(s + 3, "0123456789") == 2 &&
            (s[5] == '\0' || s[5] == '.' || s[5] == '-'))
            snprintf(rel, sizeof rel, "%.5s", s);
    }
    for (int i = 0; rel[0] && i < CTP_SLURM_NVERSIONS; i++)
        if (strcmp(rel, version_names[i]) == 0) {
            *v = (ctp_slurm_version)i;
            return 0;
        }
    return ct_err_set(err,
                      "Slurm %s has no srun option table in this plugin (known: " CTP_SLURM_KNOWN
                      ")",
                      s && *s ? s : "(unknown version)");
}

const char *ctp_slurm_version_name(ctp_slurm_version v)
{
    return (unsigned)v < CTP_SLURM_NVERSIONS ? version_names[v] : "unknown";
}

int ctp_srun_reads_cpus_per_task(ctp_slurm_version v)
{
    /* srun reads SRUN_CPUS_PER_TASK up to 23.02 (22.05.1 stopped reading
     * SLURM_CPUS_PER_TASK), SLURM_CPUS_PER_TASK again from 23.11 (srun/opt.c
     * env_vars[] of each release) */
    return v >= CTP_SLURM_23_11;
}

/* Two table entries are the same getopt option when they share short
 * letter and meaning (cpu-bind / cpu_bind, ntasks-per-node / tasks-per-node). */
static int same_option(const srun_opt *a, const srun_opt *b)
{
    return a == b ||
           (a->what == b->what && a->arg == b->arg && a->what != W_OTHER &&
            a->what != W_UNSUPPORTED) ||
           (strcmp(a->name, "cpu-bind") == 0 && strcmp(b->name, "cpu_bind") == 0) ||
           (strcmp(a->name, "cpu_bind") == 0 && strcmp(b->name, "cpu-bind") == 0) ||
           (strcmp(a->name, "pack-group") == 0 && strcmp(b->name, "het-group") == 0) ||
           (strcmp(a->name, "het-group") == 0 && strcmp(b->name, "pack-group") == 0);
}

/* Long option lookup as getopt_long does it: an exact name, else a unique
 * prefix (several prefixes of one option count as one). */
static const srun_opt *find_long(unsigned vbit, const char *name, size_t len, int *ambiguous)
{
    *ambiguous = 0;
    const srun_opt *hit = NULL;
    for (size_t i = 0; i < NOPTS; i++)
        if ((srun_opts[i].versions & vbit) && strlen(srun_opts[i].name) == len &&
            strncmp(srun_opts[i].name, name, len) == 0)
            return &srun_opts[i];
    for (size_t i = 0; i < NOPTS; i++) {
        if (!(srun_opts[i].versions & vbit) || strncmp(srun_opts[i].name, name, len) != 0)
            continue;
        if (!hit)
            hit = &srun_opts[i];
        else if (!same_option(hit, &srun_opts[i]))
            *ambiguous = 1;
    }
    return *ambiguous ? NULL : hit;
}

static const srun_opt *find_short(unsigned vbit, char c)
{
    for (size_t i = 0; i < NOPTS; i++)
        if ((srun_opts[i].versions & vbit) && srun_opts[i].shortc == c)
            return &srun_opts[i];
    return NULL;
}

static int parse_i32(const char *s, int32_t *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < 0 || x > INT32_MAX)
        return -1;
    *v = (int32_t)x;
    return 0;
}

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

static void stop(ctp_srun_args *o, const char *fmt, const char *what)
{
    o->ok = 0;
    snprintf(o->why, sizeof o->why, fmt, what);
}

/* Record option `op` with value `val` (NULL when it takes none). */
static void record(ctp_srun_args *o, const srun_opt *op, const char *shown, const char *val)
{
    if (!val) /* a flag (arg NO), whose case reads none: empty should an entry disagree */
        val = "";
    switch (op->what) {
    case W_NTASKS:
        if (parse_i32(val, &o->ntasks) == 0 && o->ntasks > 0)
            o->has_ntasks = 1;
        else
            stop(o, "unreadable task count in '%s'", shown);
        break;
    case W_CPT:
        if (parse_i32(val, &o->cpt) == 0 && o->cpt > 0)
            o->has_cpt = 1;
        else
            stop(o, "unreadable CPU count in '%s'", shown);
        break;
    case W_NODES: {
        /* -N min[-max] */
        char buf[64];
        copy(buf, sizeof buf, val);
        char *dash = strchr(buf, '-');
        o->nodes_max = 0;
        if (dash) {
            *dash = '\0';
            if (parse_i32(dash + 1, &o->nodes_max) < 0) {
                stop(o, "unreadable node count in '%s'", shown);
                break;
            }
        }
        if (parse_i32(buf, &o->nodes_min) == 0 && o->nodes_min > 0)
            o->has_nodes = 1;
        else
            stop(o, "unreadable node count in '%s'", shown);
        break;
    }
    case W_DIST:
        o->has_dist = 1;
        copy(o->dist, sizeof o->dist, val);
        break;
    case W_NTPN:
        if (parse_i32(val, &o->ntpn) == 0 && o->ntpn > 0)
            o->has_ntpn = 1;
        else
            stop(o, "unreadable task count in '%s'", shown);
        break;
    case W_VERBOSE:
        o->verbose++;
        break;
    case W_QUIET:
        o->quiet = 1;
        break;
    case W_MODE:
        o->has_mode = 1;
        copy(o->mode, sizeof o->mode, val);
        break;
    case W_PATTERN:
        o->has_pattern = 1;
        copy(o->pattern, sizeof o->pattern, val);
        break;
    case W_SIZE:
        o->has_size = 1;
        copy(o->size, sizeof o->size, val);
        break;
    case W_INTERACTIVE:
        o->interactive = 1;
        break;
    case W_OVERLAP:
        o->overlap = 1;
        break;
    case W_HETGROUP:
        o->has_het_group = 1;
        /* a value cut short could name fewer components: kept unreadable */
        copy(o->het_group, sizeof o->het_group, strlen(val) < sizeof o->het_group ? val : "?");
        break;
    case W_CLUSTERS:
        o->has_clusters = 1;
        copy(o->clusters, sizeof o->clusters, strlen(val) < sizeof o->clusters ? val : "?");
        break;
    case W_UNSUPPORTED:
        if (!o->unsupported[0])
            snprintf(o->unsupported, sizeof o->unsupported, "--%s", op->name);
        break;
    case W_OTHER:
        break;
    }
}

void ctp_srun_args_parse(int argc, char *const *argv, ctp_srun_args *o)
{
    ctp_srun_args_parse_for(CTP_SLURM_22_05, argc, argv, o);
}

static void scan(ctp_srun_args *o, unsigned vbit, int argc, char *const *argv);

void ctp_srun_args_parse_for(ctp_slurm_version v, int argc, char *const *argv, ctp_srun_args *o)
{
    memset(o, 0, sizeof *o);
    o->ok = 1;
    o->version = v;
    if ((unsigned)v >= CTP_SLURM_NVERSIONS) {
        stop(o, "%s", "no srun option table for this Slurm release");
        return;
    }
    /* srun takes a lone ':' anywhere, even after the command, as the
     * separator of a heterogeneous step: the first component's options are
     * read (the user's --contention among them), the step is not decided */
    int n = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], ":") == 0) {
            n = i;
            break;
        }
    scan(o, 1u << v, n, argv);
    if (n < argc) {
        o->het_step = 1;
        if (o->ok)
            stop(o, "%s", "heterogeneous step (':' on the command line)");
    }
}

/* srun's options in argv[1..argc) up to the command, into o */
static void scan(ctp_srun_args *o, unsigned vbit, int argc, char *const *argv)
{
    for (int i = 1; i < argc && o->ok; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            return;
        if (a[0] != '-' || a[1] == '\0')
            return; /* the command: srun's getopt stops at the first non-option */
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            int amb;
            const srun_opt *op = find_long(vbit, name, len, &amb);
            if (!op) {
                stop(o, amb ? "ambiguous option '%s'" : "unknown option '%s' (another plugin's?)",
                     a);
                return;
            }
            const char *val = NULL;
            if (op->arg == NO && eq) {
                stop(o, "option '%s' takes no argument", a);
                return;
            }
            if (eq)
                val = eq + 1;
            else if (op->arg == REQ) {
                if (i + 1 >= argc) {
                    stop(o, "option '%s' lacks its argument", a);
                    return;
                }
                val = argv[++i];
            }
            record(o, op, a, val);
            continue;
        }
        /* a cluster of short options: -lv, -n4, -n 4, -lmcyclic */
        for (const char *p = a + 1; *p && o->ok; p++) {
            const srun_opt *op = find_short(vbit, *p);
            if (!op) {
                char shown[3] = {'-', *p, '\0'};
                stop(o, "unknown option '%s'", shown);
                return;
            }
            if (op->arg == NO) {
                record(o, op, a, NULL);
                continue;
            }
            const char *val = p + 1;
            if (!*val && op->arg == REQ) {
                if (i + 1 >= argc) {
                    stop(o, "option '%s' lacks its argument", a);
                    return;
                }
                val = argv[++i];
            }
            record(o, op, a, *val || op->arg == REQ ? val : NULL);
            break; /* the rest of the cluster was the argument */
        }
    }
}

/* longest command line read: 16 MiB - 1, as before the shared reader */
#define CTP_CMDLINE_MAX (((size_t)1 << 24) - 1)

int ctp_read_cmdline(const char *path, int *argc, char ***argv, ct_err *err)
{
    *argc = 0;
    *argv = NULL;
    char *buf;
    size_t len;
    /* /proc/PID/cmdline: a regular file whose size stat does not know */
    if (ct_read_file(path, CTP_CMDLINE_MAX, "a NUL-separated command line", &buf, &len, err) < 0)
        return -1;
    int rc = ctp_split_cmdline(buf, len, argc, argv, err);
    free(buf);
    return rc;
}

int ctp_split_cmdline(const char *buf, size_t len, int *argc, char ***argv, ct_err *err)
{
    *argc = 0;
    *argv = NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\0')
            n++;
    if (len > 0 && buf[len - 1] != '\0')
        n++; /* a last argument without its NUL */
    if (n >= INT32_MAX)
        return ct_err_set(err, "command line of %zu arguments", n);
    char **v = calloc(n + 1, sizeof *v);
    if (!v)
        return ct_err_set(err, "out of memory splitting a command line");
    size_t start = 0;
    int k = 0;
    for (size_t i = 0; i <= len && (size_t)k < n; i++) {
        if (i == len || buf[i] == '\0') {
            v[k] = malloc(i - start + 1);
            if (!v[k]) {
                ctp_argv_free(k, v);
                return ct_err_set(err, "out of memory splitting a command line");
            }
            memcpy(v[k], buf + start, i - start);
            v[k][i - start] = '\0';
            k++;
            start = i + 1;
        }
    }
    *argc = k;
    *argv = v;
    return 0;
}

void ctp_argv_free(int argc, char **argv)
{
    if (!argv)
        return;
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}
