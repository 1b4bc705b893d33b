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
    {"off", CTP_MODE_OFF},   {"report", CTP_MODE_REPORT},
};

int ctp_mode_parse(const char *s, ctp_mode *m, ct_err *err)
{
    for (size_t i = 0; s && i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (strcmp(s, mode_names[i].name) == 0) {
            *m = mode_names[i].mode;
            return 0;
        }
    return ct_err_set(err, "invalid mode '%s' (accepted: " CTP_MODES_ACCEPTED ")", s ? s : "");
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
                          "invalid size '%s' (expected a positive number of bytes with "
                          "optional K, M or G suffix, e.g. 4M)",
                          s);
    *bytes = b;
    return 0;
}

/* ------------------------------------------------------------------ */
/* srun's options (Slurm 22.05, src/common/slurm_opt.c, srun's subset) */

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
    W_UNSUPPORTED, /* changes the step's nodes or CPUs in ways not modelled */
};

typedef struct srun_opt {
    const char *name;
    char shortc; /* 0: long only */
    enum arg arg;
    enum what what;
} srun_opt;

static const srun_opt srun_opts[] = {
    {"accel-bind", 0, REQ, W_OTHER},
    {"account", 'A', REQ, W_OTHER},
    {"acctg-freq", 0, REQ, W_OTHER},
    {"bbf", 0, REQ, W_OTHER},
    {"bcast", 0, OPT, W_OTHER},
    {"bcast-exclude", 0, REQ, W_OTHER},
    {"begin", 'b', REQ, W_OTHER},
    {"bb", 0, REQ, W_OTHER},
    {"cluster-constraint", 0, REQ, W_OTHER},
    {"chdir", 'D', REQ, W_OTHER},
    {"clusters", 'M', REQ, W_OTHER},
    {"cluster", 0, REQ, W_OTHER},
    {"comment", 0, REQ, W_OTHER},
    {"compress", 0, OPT, W_OTHER},
    {"constraint", 'C', REQ, W_OTHER},
    {"container", 0, REQ, W_OTHER},
    {"context", 0, REQ, W_OTHER},
    {"contiguous", 0, NO, W_OTHER},
    {"core-spec", 'S', REQ, W_OTHER},
    {"cores-per-socket", 0, REQ, W_UNSUPPORTED},
    {"cpu-bind", 0, REQ, W_OTHER},
    {"cpu_bind", 0, REQ, W_OTHER},
    {"cpu-freq", 0, REQ, W_OTHER},
    {"cpus-per-gpu", 0, REQ, W_UNSUPPORTED},
    {"cpus-per-task", 'c', REQ, W_CPT},
    {"deadline", 0, REQ, W_OTHER},
    {"debugger-test", 0, NO, W_OTHER},
    {"delay-boot", 0, REQ, W_OTHER},
    {"dependency", 'd', REQ, W_OTHER},
    {"disable-status", 'X', NO, W_OTHER},
    {"distribution", 'm', REQ, W_DIST},
    {"epilog", 0, REQ, W_OTHER},
    {"error", 'e', REQ, W_OTHER},
    {"exclude", 'x', REQ, W_UNSUPPORTED},
    {"exclusive", 0, OPT, W_OTHER},
    {"exact", 0, NO, W_OTHER},
    {"export", 0, REQ, W_OTHER},
    {"extra-node-info", 'B', REQ, W_UNSUPPORTED},
    {"gid", 0, REQ, W_OTHER},
    {"gpu-bind", 0, REQ, W_OTHER},
    {"gpu-freq", 0, REQ, W_OTHER},
    {"gpus", 'G', REQ, W_UNSUPPORTED},
    {"gpus-per-node", 0, REQ, W_UNSUPPORTED},
    {"gpus-per-socket", 0, REQ, W_UNSUPPORTED},
    {"gpus-per-task", 0, REQ, W_UNSUPPORTED},
    {"gres", 0, REQ, W_OTHER},
    {"gres-flags", 0, REQ, W_OTHER},
    {"help", 'h', NO, W_OTHER},
    {"hint", 0, REQ, W_UNSUPPORTED},
    {"hold", 'H', NO, W_OTHER},
    {"immediate", 'I', OPT, W_OTHER},
    {"input", 'i', REQ, W_OTHER},
    {"interactive", 0, NO, W_OTHER},
    {"jobid", 0, REQ, W_UNSUPPORTED},
    {"job-name", 'J', REQ, W_OTHER},
    {"kill-on-bad-exit", 'K', OPT, W_OTHER},
    {"label", 'l', NO, W_OTHER},
    {"licenses", 'L', REQ, W_OTHER},
    {"mail-type", 0, REQ, W_OTHER},
    {"mail-user", 0, REQ, W_OTHER},
    {"threads", 'T', REQ, W_OTHER},
    {"mcs-label", 0, REQ, W_OTHER},
    {"mem", 0, REQ, W_OTHER},
    {"mem-bind", 0, REQ, W_OTHER},
    {"mem-per-cpu", 0, REQ, W_OTHER},
    {"mem-per-gpu", 0, REQ, W_OTHER},
    {"mincpus", 0, REQ, W_OTHER},
    {"mpi", 0, REQ, W_OTHER},
    {"msg-timeout", 0, REQ, W_OTHER},
    {"multi-prog", 0, NO, W_OTHER},
    {"network", 0, REQ, W_OTHER},
    {"nice", 0, OPT, W_OTHER},
    {"no-allocate", 'Z', NO, W_UNSUPPORTED},
    {"no-kill", 'k', OPT, W_OTHER},
    {"nodefile", 'F', REQ, W_UNSUPPORTED},
    {"nodelist", 'w', REQ, W_UNSUPPORTED},
    {"nodes", 'N', REQ, W_NODES},
    {"ntasks", 'n', REQ, W_NTASKS},
    {"ntasks-per-core", 0, REQ, W_UNSUPPORTED},
    {"ntasks-per-node", 0, REQ, W_NTPN},
    {"ntasks-per-socket", 0, REQ, W_UNSUPPORTED},
    {"ntasks-per-tres", 0, REQ, W_UNSUPPORTED},
    {"ntasks-per-gpu", 0, REQ, W_UNSUPPORTED},
    {"open-mode", 0, REQ, W_OTHER},
    {"output", 'o', REQ, W_OTHER},
    {"overcommit", 'O', NO, W_UNSUPPORTED},
    {"overlap", 0, OPT, W_OTHER},
    {"oversubscribe", 's', NO, W_OTHER},
    {"pack-group", 0, REQ, W_UNSUPPORTED},
    {"het-group", 0, REQ, W_UNSUPPORTED},
    {"partition", 'p', REQ, W_OTHER},
    {"power", 0, REQ, W_OTHER},
    {"prefer", 0, REQ, W_OTHER},
    {"preserve-env", 'E', NO, W_OTHER},
    {"priority", 0, REQ, W_OTHER},
    {"profile", 0, REQ, W_OTHER},
    {"prolog", 0, REQ, W_OTHER},
    {"propagate", 0, OPT, W_OTHER},
    {"pty", 0, NO, W_OTHER},
    {"qos", 'q', REQ, W_OTHER},
    {"quiet", 'Q', NO, W_QUIET},
    {"quit-on-interrupt", 0, NO, W_OTHER},
    {"reboot", 0, NO, W_OTHER},
    {"relative", 'r', REQ, W_UNSUPPORTED},
    {"reservation", 0, REQ, W_OTHER},
    {"resv-ports", 0, OPT, W_OTHER},
    {"send-libs", 0, OPT, W_OTHER},
    {"signal", 0, REQ, W_OTHER},
    {"slurmd-debug", 0, REQ, W_OTHER},
    {"sockets-per-node", 0, REQ, W_UNSUPPORTED},
    {"spread-job", 0, NO, W_UNSUPPORTED},
    {"switches", 0, REQ, W_OTHER},
    {"task-epilog", 0, REQ, W_OTHER},
    {"task-prolog", 0, REQ, W_OTHER},
    {"tasks-per-node", 0, REQ, W_NTPN},
    {"test-only", 0, NO, W_OTHER},
    {"thread-spec", 0, REQ, W_OTHER},
    {"threads-per-core", 0, REQ, W_UNSUPPORTED},
    {"time", 't', REQ, W_OTHER},
    {"time-min", 0, REQ, W_OTHER},
    {"tmp", 0, REQ, W_OTHER},
    {"uid", 0, REQ, W_OTHER},
    {"unbuffered", 'u', NO, W_OTHER},
    {"use-min-nodes", 0, NO, W_UNSUPPORTED},
    {"usage", 0, NO, W_OTHER},
    {"verbose", 'v', NO, W_VERBOSE},
    {"version", 'V', NO, W_OTHER},
    {"wait", 'W', REQ, W_OTHER},
    {"wckey", 0, REQ, W_OTHER},
    {"whole", 0, NO, W_OTHER},
    {"x11", 0, OPT, W_OTHER},
    /* this plugin's own options (SPANK adds them to srun's table) */
    {"contention", 0, REQ, W_MODE},
    {"contention-pattern", 0, REQ, W_PATTERN},
    {"contention-size", 0, REQ, W_SIZE},
};
#define NOPTS (sizeof srun_opts / sizeof srun_opts[0])

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
static const srun_opt *find_long(const char *name, size_t len, int *ambiguous)
{
    *ambiguous = 0;
    const srun_opt *hit = NULL;
    for (size_t i = 0; i < NOPTS; i++)
        if (strlen(srun_opts[i].name) == len && strncmp(srun_opts[i].name, name, len) == 0)
            return &srun_opts[i];
    for (size_t i = 0; i < NOPTS; i++) {
        if (strncmp(srun_opts[i].name, name, len) != 0)
            continue;
        if (!hit)
            hit = &srun_opts[i];
        else if (!same_option(hit, &srun_opts[i]))
            *ambiguous = 1;
    }
    return *ambiguous ? NULL : hit;
}

static const srun_opt *find_short(char c)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (srun_opts[i].shortc == c)
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
    memset(o, 0, sizeof *o);
    o->ok = 1;
    /* srun takes a lone ':' anywhere, even after the command, as the
     * separator of a heterogeneous step */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], ":") == 0) {
            stop(o, "%s", "heterogeneous step (':' on the command line)");
            return;
        }
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
            const srun_opt *op = find_long(name, len, &amb);
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
            const srun_opt *op = find_short(*p);
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
    int n = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\0')
            n++;
    if (len > 0 && buf[len - 1] != '\0')
        n++; /* a last argument without its NUL */
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v) {
        free(buf);
        return ct_err_set(err, "out of memory reading %s", path);
    }
    size_t start = 0;
    int k = 0;
    for (size_t i = 0; i <= len && k < n; i++) {
        if (i == len || buf[i] == '\0') {
            v[k] = malloc(i - start + 1);
            if (!v[k]) {
                ctp_argv_free(k, v);
                free(buf);
                return ct_err_set(err, "out of memory reading %s", path);
            }
            memcpy(v[k], buf + start, i - start);
            v[k][i - start] = '\0';
            k++;
            start = i + 1;
        }
    }
    free(buf);
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
