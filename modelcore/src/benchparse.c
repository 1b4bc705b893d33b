/* Parsers for benchmark outputs (formats in benchparse.h). Line-oriented,
 * bounded: a line is at most CT_BENCH_LINE_MAX bytes, an input at most
 * CT_BENCH_MAX_BYTES, so hostile files cost little. */
#include "contention/benchparse.h"
#include "contention/signatures.h" /* ct_tcp_cc_char */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contention/fileio.h"
#include "grow.h"

#define CT_BENCH_LINE_MAX 4096
#define MAX_TOKENS 32

typedef struct parser {
    const char *name;
    ct_err *err;
    ct_bench_data *out;
    const ct_bench_defaults *def;
    unsigned long lineno;
    /* `# key: value` comment directives, whole-file scope (0 = absent) */
    int32_t dir_tasks, dir_tpn, dir_nodes;
    /* ct-mpibench's '# pause m=M: median P s ...' for the next row (CSV) */
    double pause_m, pause_s; /* pause_s 0: none pending */
    /* ct-mpibench's '# step: incast' (CSV): every Alltoall row of the file
     * is calibrate's incast many-flow step (ct_a2a_sample.incast_step) */
    int incast_step;
} parser;

static int perr(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(parser *p, const char *fmt, ...)
{
    if (p->err) {
        char body[CT_ERR_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(body, sizeof body, fmt, ap);
        va_end(ap);
        if (p->lineno)
            ct_err_set(p->err, "%s:%lu: %s", p->name, p->lineno, body);
        else
            ct_err_set(p->err, "%s: %s", p->name, body);
    }
    return -1;
}

/* ---- line iteration ---------------------------------------------------- */

typedef struct lines {
    const char *buf;
    size_t len, pos;
    unsigned long no;
} lines;

/* Next line into out (without the newline or a trailing CR). Returns 1, 0 at
 * end, -1 when the line is too long or holds a NUL byte. */
static int next_line(lines *L, char *out, size_t outsz)
{
    if (L->pos >= L->len)
        return 0;
    const char *s = L->buf + L->pos;
    size_t rest = L->len - L->pos;
    const char *nl = memchr(s, '\n', rest);
    size_t n = nl ? (size_t)(nl - s) : rest;
    L->pos += nl ? n + 1 : n;
    L->no++;
    if (n && s[n - 1] == '\r')
        n--;
    if (n >= outsz || memchr(s, '\0', n))
        return -1;
    memcpy(out, s, n);
    out[n] = '\0';
    return 1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static size_t split_ws(char *s, char **tok, size_t max)
{
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == max)
            return max + 1;
        tok[n++] = t;
    }
    return n;
}

/* ---- values -------------------------------------------------------------- */

static int parse_double(const char *s, double *v)
{
    if (!*s)
        return -1;
    for (const char *c = s; *c; c++)
        if (!isdigit((unsigned char)*c) && !strchr("+-.eE", *c))
            return -1; /* no hex, inf, nan */
    errno = 0;
    char *end = NULL;
    double x = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

static int parse_int(const char *s, long lo, long hi, int32_t *v)
{
    if (!*s)
        return -1;
    const char *c = s;
    if (*c == '+')
        c++;
    if (!*c)
        return -1;
    for (; *c; c++)
        if (!isdigit((unsigned char)*c))
            return -1;
    errno = 0;
    long x = strtol(s, NULL, 10);
    if (errno == ERANGE || x < lo || x > hi)
        return -1;
    *v = (int32_t)x;
    return 0;
}

static size_t total(const ct_bench_data *d)
{
    return d->np2p + d->nbw + d->na2a;
}

/* Room for one more sample in *arr (n used of *cap), within the file's
 * sample limit. */
static int room_for_one(parser *p, void **arr, size_t *cap, size_t n, size_t elem)
{
    if (total(p->out) >= CT_BENCH_MAX_SAMPLES)
        return perr(p, "more than %d samples (accepted: fewer)", CT_BENCH_MAX_SAMPLES);
    if (grow_array(arr, cap, n + 1, elem, 64) < 0)
        return perr(p, "out of memory");
    return 0;
}

/* After unit conversion a value can leave the range its text was in
 * (1e308 MB/s is an infinite byte rate): check what is stored. */
static int sample_ok(parser *p, double m, double v, const char *what)
{
    if (!isfinite(m) || m < 0 || !isfinite(v) || !(v > 0))
        return perr(p, "%s %g for size %g is out of range once converted to SI (accepted: a "
                    "finite size >= 0 and a finite value > 0)", what, v, m);
    return 0;
}

static int add_p2p(parser *p, double m, double t, double t_min)
{
    ct_bench_data *d = p->out;
    if (sample_ok(p, m, t, "time") < 0)
        return -1;
    if (room_for_one(p, (void **)&d->p2p, &d->cap_p2p, d->np2p, sizeof *d->p2p) < 0)
        return -1;
    d->p2p[d->np2p++] = (ct_p2p_sample){.m = m, .t = t, .t_min = t_min};
    return 0;
}

static int add_bw(parser *p, double m, double bw)
{
    ct_bench_data *d = p->out;
    if (sample_ok(p, m, bw, "bandwidth") < 0)
        return -1;
    if (room_for_one(p, (void **)&d->bw, &d->cap_bw, d->nbw, sizeof *d->bw) < 0)
        return -1;
    d->bw[d->nbw++] = (ct_bw_sample){m, bw};
    return 0;
}

/* Resolve tasks per node for an Alltoall of n tasks: explicit row values
 * first (tpn, nodes; 0 = absent), then the file's directives, then the
 * caller's default, then one task per node. */
static int add_a2a(parser *p, int32_t n, int32_t tpn, int32_t nodes, double m, double t,
                   double t_min)
{
    if (sample_ok(p, m, t, "time") < 0)
        return -1;
    if (!tpn && !nodes) {
        tpn = p->dir_tpn;
        nodes = p->dir_nodes;
    }
    if (!tpn && !nodes && p->def)
        tpn = p->def->tasks_per_node;
    if (nodes) {
        if (n % nodes)
            return perr(p,
                        "%d tasks do not spread evenly over %d nodes (accepted: tasks a "
                        "multiple of nodes)",
                        (int)n, (int)nodes);
        int32_t t2 = n / nodes;
        if (tpn && tpn != t2)
            return perr(p,
                        "tasks_per_node %d disagrees with %d tasks on %d nodes (accepted: "
                        "tasks = nodes x tasks_per_node)",
                        (int)tpn, (int)n, (int)nodes);
        tpn = t2;
    }
    if (!tpn)
        tpn = 1;
    if (n % tpn)
        return perr(p,
                    "%d tasks are not a multiple of tasks_per_node %d (accepted: whole "
                    "nodes of tasks_per_node tasks each)",
                    (int)n, (int)tpn);
    ct_bench_data *d = p->out;
    if (room_for_one(p, (void **)&d->a2a, &d->cap_a2a, d->na2a, sizeof *d->a2a) < 0)
        return -1;
    d->a2a[d->na2a++] = (ct_a2a_sample){.nodes = n / tpn,
                                        .tasks_per_node = tpn,
                                        .m = m,
                                        .t = t,
                                        .t_min = t_min,
                                        .pause = p->pause_s > 0 && p->pause_m == m ? p->pause_s : 0};
    return 0;
}

/* ---- `# key: N` directives ----------------------------------------------- */

static int directive(parser *p, const char *line)
{
    static const char *const keys[] = {"tasks", "tasks_per_node", "nodes"};
    int32_t *slots[] = {&p->dir_tasks, &p->dir_tpn, &p->dir_nodes};
    const char *s = line + 1;
    while (*s == ' ' || *s == '\t')
        s++;
    for (size_t k = 0; k < 3; k++) {
        size_t kl = strlen(keys[k]);
        if (strncasecmp(s, keys[k], kl) != 0 || s[kl] != ':')
            continue;
        char val[64];
        snprintf(val, sizeof val, "%s", s + kl + 1);
        char *v = trim(val);
        int32_t x;
        if (parse_int(v, 1, INT32_MAX, &x) < 0)
            return perr(p, "'# %s:' is followed by '%s' (accepted: a positive integer)", keys[k],
                        v);
        if (*slots[k] && *slots[k] != x)
            return perr(p,
                        "'# %s: %d' contradicts an earlier '# %s: %d' (accepted: one value "
                        "per file)",
                        keys[k], (int)x, keys[k], (int)*slots[k]);
        *slots[k] = x;
    }
    return 0;
}

static int scan_directives(parser *p, const char *buf, size_t len)
{
    lines L = {buf, len, 0, 0};
    char line[CT_BENCH_LINE_MAX];
    int r;
    while ((r = next_line(&L, line, sizeof line)) > 0) {
        char *t = trim(line);
        p->lineno = L.no;
        if (t[0] == '#' && directive(p, t) < 0)
            return -1;
    }
    if (r < 0) {
        p->lineno = L.no;
        return perr(p, "line longer than %d bytes or holding a NUL byte (accepted: text)",
                    CT_BENCH_LINE_MAX - 1);
    }
    return 0;
}

/* ---- CSV ------------------------------------------------------------------ */

enum { COL_BENCH, COL_TASKS, COL_SIZE, COL_TAVG, COL_TMIN, COL_TPN, COL_NODES, COL_DETAIL, NCOLS };
static const char *const csv_cols[NCOLS] = {"benchmark", "tasks",          "size_bytes", "t_avg_s",
                                            "t_min_s",   "tasks_per_node", "nodes",      "detail"};
#define CSV_ACCEPTED                                                                               \
    "benchmark,tasks,size_bytes,t_avg_s and optionally t_min_s, tasks_per_node, nodes, detail"

static size_t split_csv(char *s, char **tok, size_t max)
{
    size_t n = 0;
    for (;;) {
        if (n == max)
            return max + 1;
        char *c = strchr(s, ',');
        if (c)
            *c = '\0';
        tok[n++] = trim(s);
        if (!c)
            return n;
        s = c + 1;
    }
}

/* ct-mpibench's "# pause m=M: median P s, min A s, max B s over N
 * repetitions (...)" (bench/mpi/ct_mpibench.c): kept for the next row; other
 * comments are ignored. -1 on a pause line whose M or P is not a number
 * (M >= 0, 0 < P <= 3600 s). */
static int pause_line(parser *p, const char *t)
{
    const char *s = t + 1 + strspn(t + 1, " \t");
    if (strncmp(s, "pause m=", 8) != 0)
        return 0;
    double m, v;
    int used = 0;
    if (sscanf(s + 8, "%lf: median %lf s%n", &m, &v, &used) != 2 || !used || !isfinite(m) ||
        m < 0 || !isfinite(v) || !(v > 0) || v > 3600)
        return perr(p, "pause line '%.60s' (accepted: '# pause m=BYTES: median SECONDS s ...' "
                       "as ct-mpibench writes it, 0 < SECONDS <= 3600)",
                    s);
    p->pause_m = m;
    p->pause_s = v;
    return 0;
}

/* ct-mpibench's "# step: incast (...)" (--step incast, which calibrate
 * gives its incast many-flow step, session 59): the file's Alltoall rows are
 * that step. -1 on a step line naming another step. Whole-file scope, as the
 * directives. */
static int step_line(parser *p, const char *t)
{
    const char *s = t + 1 + strspn(t + 1, " \t");
    if (strncmp(s, "step:", 5) != 0)
        return 0;
    const char *v = s + 5 + strspn(s + 5, " \t");
    size_t n = strcspn(v, " \t(");
    if (n != 6 || strncmp(v, "incast", 6) != 0)
        return perr(p, "step line '%.60s' (accepted: '# step: incast ...' as ct-mpibench "
                       "writes it for calibrate's incast many-flow step)",
                    s);
    p->incast_step = 1;
    return 0;
}

static int parse_csv(parser *p, const char *buf, size_t len)
{
    lines L = {buf, len, 0, 0};
    const size_t first = p->out->na2a; /* the file's Alltoall rows start here */
    char line[CT_BENCH_LINE_MAX];
    int col[NCOLS];
    size_t ncols = 0;
    int r;
    for (int i = 0; i < NCOLS; i++)
        col[i] = -1;
    while ((r = next_line(&L, line, sizeof line)) > 0) {
        p->lineno = L.no;
        char *t = trim(line);
        if (*t == '#' && (pause_line(p, t) < 0 || step_line(p, t) < 0))
            return -1;
        if (!*t || *t == '#')
            continue;
        char *tok[MAX_TOKENS];
        size_t n = split_csv(t, tok, MAX_TOKENS);
        if (n > MAX_TOKENS)
            return perr(p, "more than %d columns (accepted: %s)", MAX_TOKENS, CSV_ACCEPTED);
        if (!ncols) {
            for (size_t i = 0; i < n; i++) {
                int k = 0;
                while (k < NCOLS && strcasecmp(tok[i], csv_cols[k]) != 0)
                    k++;
                if (k == NCOLS)
                    return perr(p, "unknown column '%.40s' (accepted: %s)", tok[i], CSV_ACCEPTED);
                if (col[k] >= 0)
                    return perr(p, "column '%s' appears twice (accepted: each column once)",
                                csv_cols[k]);
                col[k] = (int)i;
            }
            for (int k = 0; k <= COL_TAVG; k++)
                if (col[k] < 0)
                    return perr(p, "header lacks column '%s' (accepted: %s)", csv_cols[k],
                                CSV_ACCEPTED);
            ncols = n;
            continue;
        }
        if (n != ncols)
            return perr(p,
                        "%zu fields where the header has %zu (accepted: one value per "
                        "column; leave optional ones empty)",
                        n, ncols);
        const char *bench = tok[col[COL_BENCH]];
        int is_pp = strcasecmp(bench, "pingpong") == 0;
        /* ct-mpibench's other measurements share the file; fit has no use for them */
        if (strcasecmp(bench, "conflict") == 0 || strcasecmp(bench, "pattern") == 0)
            continue;
        if (!is_pp && strcasecmp(bench, "alltoall") != 0)
            return perr(p,
                        "benchmark '%.40s' (accepted: pingpong, alltoall; conflict and "
                        "pattern rows are skipped)",
                        bench);
        int32_t tasks, tpn = 0, nodes = 0;
        double m, tavg, tmin = 0;
        if (parse_int(tok[col[COL_TASKS]], 2, INT32_MAX, &tasks) < 0)
            return perr(p, "tasks '%.40s' (accepted: an integer >= 2)", tok[col[COL_TASKS]]);
        if (parse_double(tok[col[COL_SIZE]], &m) < 0 || m < 0)
            return perr(p, "size_bytes '%.40s' (accepted: a number of bytes >= 0)",
                        tok[col[COL_SIZE]]);
        if (parse_double(tok[col[COL_TAVG]], &tavg) < 0 || !(tavg > 0))
            return perr(p, "t_avg_s '%.40s' (accepted: a time in seconds > 0)", tok[col[COL_TAVG]]);
        if (col[COL_TMIN] >= 0 && *tok[col[COL_TMIN]]) {
            if (parse_double(tok[col[COL_TMIN]], &tmin) < 0 || !(tmin > 0) || tmin > tavg)
                return perr(p,
                            "t_min_s '%.40s' (accepted: a time in seconds > 0 and <= "
                            "t_avg_s, or empty)",
                            tok[col[COL_TMIN]]);
        }
        if (col[COL_TPN] >= 0 && *tok[col[COL_TPN]] &&
            parse_int(tok[col[COL_TPN]], 1, INT32_MAX, &tpn) < 0)
            return perr(p, "tasks_per_node '%.40s' (accepted: an integer >= 1, or empty)",
                        tok[col[COL_TPN]]);
        if (col[COL_NODES] >= 0 && *tok[col[COL_NODES]] &&
            parse_int(tok[col[COL_NODES]], 1, INT32_MAX, &nodes) < 0)
            return perr(p, "nodes '%.40s' (accepted: an integer >= 1, or empty)",
                        tok[col[COL_NODES]]);
        if (is_pp) {
            if (tasks != 2 || tpn > 1 || (nodes && nodes != 2))
                return perr(p,
                            "pingpong row with %d tasks%s (accepted: 2 tasks on 2 nodes; a "
                            "ping-pong inside one node measures memory, not the network)",
                            (int)tasks, tpn > 1 || nodes == 1 ? " on one node" : "");
            if (add_p2p(p, m, tavg, tmin) < 0)
                return -1;
        } else if (add_a2a(p, tasks, tpn, nodes, m, tavg, tmin) < 0) {
            return -1;
        }
        p->pause_s = 0; /* a pause line belongs to the row after it only */
    }
    if (r < 0) {
        p->lineno = L.no;
        return perr(p, "line longer than %d bytes or holding a NUL byte (accepted: text)",
                    CT_BENCH_LINE_MAX - 1);
    }
    p->lineno = 0;
    if (!ncols)
        return perr(p, "no header line (accepted: %s)", CSV_ACCEPTED);
    for (size_t i = first; p->incast_step && i < p->out->na2a; i++)
        p->out->a2a[i].incast_step = 1;
    return 0;
}

/* ---- OSU ------------------------------------------------------------------ */

static int parse_osu(parser *p, const char *buf, size_t len, ct_bench_format fmt)
{
    lines L = {buf, len, 0, 0};
    char line[CT_BENCH_LINE_MAX];
    int header = 0, r;
    int32_t tasks = 0;
    if (fmt == CT_BENCH_OSU_ALLTOALL) {
        tasks = p->dir_tasks ? p->dir_tasks : p->def ? p->def->tasks : 0;
        if (p->dir_tasks == 0 && p->dir_nodes && p->dir_tpn)
            tasks = p->dir_nodes * p->dir_tpn;
        if (tasks < 2)
            return perr(p, "osu_alltoall output does not say how many processes ran (accepted: "
                           "a line '# tasks: N' with N >= 2 in the file, or fit --tasks N)");
    }
    while ((r = next_line(&L, line, sizeof line)) > 0) {
        p->lineno = L.no;
        char *t = trim(line);
        if (!*t)
            continue;
        if (*t == '#') {
            if (strncasecmp(t + 1 + strspn(t + 1, " \t"), "Size", 4) == 0)
                header = 1;
            continue;
        }
        char orig[48];
        snprintf(orig, sizeof orig, "%s", t); /* split_ws cuts t up */
        char *tok[MAX_TOKENS];
        size_t n = split_ws(t, tok, MAX_TOKENS);
        int32_t size;
        double v;
        if (n < 2 || n > MAX_TOKENS || parse_int(tok[0], 0, INT32_MAX, &size) < 0 ||
            parse_double(tok[1], &v) < 0)
            return perr(p,
                        "unexpected line '%s' (accepted: '# ...' comments and 'SIZE VALUE' "
                        "rows)",
                        orig);
        if (!header)
            return perr(p, "data row before the '# Size ...' header line (accepted: OSU output "
                           "with its header)");
        if (!(v > 0))
            return perr(p, "value %s for size %d (accepted: > 0)", tok[1], (int)size);
        int rc = fmt == CT_BENCH_OSU_BW        ? add_bw(p, size, v * 1e6)
                 : fmt == CT_BENCH_OSU_LATENCY ? add_p2p(p, size, v / 1e6, 0)
                                               : add_a2a(p, tasks, 0, 0, size, v / 1e6, 0);
        if (rc < 0)
            return -1;
    }
    if (r < 0) {
        p->lineno = L.no;
        return perr(p, "line longer than %d bytes or holding a NUL byte (accepted: text)",
                    CT_BENCH_LINE_MAX - 1);
    }
    return 0;
}

/* ---- Intel MPI Benchmarks -------------------------------------------------- */

static int parse_imb(parser *p, const char *buf, size_t len)
{
    lines L = {buf, len, 0, 0};
    char line[CT_BENCH_LINE_MAX];
    enum { B_NONE, B_PINGPONG, B_ALLTOALL, B_OTHER } bench = B_NONE;
    int32_t nprocs = 0;
    int col_bytes = -1, col_t = -1, r;
    size_t ncols = 0;
    while ((r = next_line(&L, line, sizeof line)) > 0) {
        p->lineno = L.no;
        char *t = trim(line);
        if (!*t)
            continue;
        if (strncmp(t, "#bytes", 6) == 0) {
            char *tok[MAX_TOKENS];
            size_t n = split_ws(t, tok, MAX_TOKENS);
            if (n > MAX_TOKENS)
                return perr(p,
                            "column header with more than %d columns (accepted: IMB-MPI1 "
                            "output)",
                            MAX_TOKENS);
            col_bytes = col_t = -1;
            const char *want = bench == B_PINGPONG ? "t[usec]" : "t_avg[usec]";
            for (size_t i = 0; i < n; i++) {
                if (strcmp(tok[i], "#bytes") == 0)
                    col_bytes = (int)i;
                if (strcmp(tok[i], want) == 0)
                    col_t = (int)i;
            }
            ncols = n;
            if ((bench == B_PINGPONG || bench == B_ALLTOALL) && col_t < 0)
                return perr(p, "%s column header lacks '%s' (accepted: IMB-MPI1 output)",
                            bench == B_PINGPONG ? "PingPong" : "Alltoall", want);
            continue;
        }
        if (*t == '#') {
            const char *s = t + 1 + strspn(t + 1, " \t");
            if (strncmp(s, "Benchmarking ", 13) == 0) {
                char name[64];
                snprintf(name, sizeof name, "%s", s + 13);
                char *nm = trim(name);
                bench = strcmp(nm, "PingPong") == 0   ? B_PINGPONG
                        : strcmp(nm, "Alltoall") == 0 ? B_ALLTOALL
                                                      : B_OTHER;
                nprocs = 0;
                ncols = 0;
                col_t = -1;
            } else if (strncmp(s, "#processes", 10) == 0) {
                const char *eq = strchr(s, '=');
                char num[32];
                snprintf(num, sizeof num, "%s", eq ? eq + 1 : "");
                char *sp = trim(num);
                sp[strcspn(sp, " \t(")] = '\0';
                if (parse_int(sp, 1, INT32_MAX, &nprocs) < 0)
                    return perr(p,
                                "'#processes' line without a count (accepted: '# #processes = N')");
            }
            continue;
        }
        if (bench == B_OTHER)
            continue; /* other benchmarks' rows: not ours to judge */
        if (bench == B_NONE || !ncols)
            return perr(p,
                        "unexpected line '%.40s' before a '# Benchmarking' block and its "
                        "'#bytes' header (accepted: IMB-MPI1 output)",
                        t);
        char orig[48];
        snprintf(orig, sizeof orig, "%s", t); /* split_ws cuts t up */
        char *tok[MAX_TOKENS];
        size_t n = split_ws(t, tok, MAX_TOKENS);
        int32_t size;
        double us;
        if (n != ncols || col_bytes < 0 || parse_int(tok[col_bytes], 0, INT32_MAX, &size) < 0 ||
            parse_double(tok[col_t], &us) < 0)
            return perr(p,
                        "unexpected line '%s' (accepted: %zu numbers per row, as in the "
                        "'#bytes' header)",
                        orig, ncols);
        if (!(us > 0))
            return perr(p, "time %s us for %d bytes (accepted: > 0)", tok[col_t], (int)size);
        if (nprocs == 0)
            return perr(p, "row without a '# #processes = N' line in its block (accepted: "
                           "IMB-MPI1 output)");
        if (bench == B_PINGPONG) {
            if (nprocs != 2)
                return perr(p, "PingPong with %d processes (accepted: 2)", (int)nprocs);
            if (add_p2p(p, size, us / 1e6, 0) < 0) /* IMB's t[usec] is half the round trip */
                return -1;
        } else if (nprocs >= 2 && add_a2a(p, nprocs, 0, 0, size, us / 1e6, 0) < 0) {
            return -1;
        }
    }
    if (r < 0) {
        p->lineno = L.no;
        return perr(p, "line longer than %d bytes or holding a NUL byte (accepted: text)",
                    CT_BENCH_LINE_MAX - 1);
    }
    return 0;
}

/* ---- detection, entry points ---------------------------------------------- */

ct_bench_format ct_bench_detect(const char *buf, size_t len)
{
    lines L = {buf, len, 0, 0};
    char line[CT_BENCH_LINE_MAX];
    int first_data = 1, r;
    while ((r = next_line(&L, line, sizeof line)) > 0 && L.no <= 200) {
        char *t = trim(line);
        if (!*t)
            continue;
        if (strstr(t, "# OSU MPI") == t) {
            if (strstr(t, "All-to-All") || strstr(t, "Alltoall"))
                return CT_BENCH_OSU_ALLTOALL;
            if (strstr(t, "Bi-Directional") || strstr(t, "Multiple"))
                return CT_BENCH_UNKNOWN;
            if (strstr(t, "Bandwidth"))
                return CT_BENCH_OSU_BW;
            if (strstr(t, "Latency"))
                return CT_BENCH_OSU_LATENCY;
            return CT_BENCH_UNKNOWN;
        }
        if (strstr(t, "Intel(R) MPI Benchmark") || strstr(t, "Intel (R) MPI Benchmark") ||
            strncmp(t, "# Benchmarking ", 15) == 0)
            return CT_BENCH_IMB;
        if (*t == '#')
            continue;
        if (first_data) {
            /* a CSV header names its columns, in any order */
            first_data = 0;
            for (char *c = t; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            if (strchr(t, ',') && strstr(t, "benchmark"))
                return CT_BENCH_CSV;
        }
    }
    return CT_BENCH_UNKNOWN;
}

const char *ct_bench_format_name(ct_bench_format f)
{
    switch (f) {
    case CT_BENCH_CSV:
        return "csv";
    case CT_BENCH_OSU_LATENCY:
        return "osu_latency";
    case CT_BENCH_OSU_BW:
        return "osu_bw";
    case CT_BENCH_OSU_ALLTOALL:
        return "osu_alltoall";
    case CT_BENCH_IMB:
        return "imb";
    case CT_BENCH_UNKNOWN:
        break;
    }
    return "unknown";
}

int ct_bench_parse(const char *name, const char *buf, size_t len, const ct_bench_defaults *def,
                   ct_bench_data *out, ct_bench_format *fmt, ct_err *err)
{
    parser p = {name ? name : "<buffer>", err, out, def, 0, 0, 0, 0, 0, 0, 0};
    if (fmt)
        *fmt = CT_BENCH_UNKNOWN;
    if (!buf)
        len = 0;
    if (len > CT_BENCH_MAX_BYTES)
        return perr(&p, "%zu bytes (accepted: at most %u)", len, CT_BENCH_MAX_BYTES);
    ct_bench_format f = ct_bench_detect(buf, len);
    if (fmt)
        *fmt = f;
    if (f == CT_BENCH_UNKNOWN)
        return perr(&p,
                    "unrecognised benchmark output (accepted: the project's CSV with header "
                    "'benchmark,tasks,size_bytes,t_avg_s', OSU osu_latency/osu_bw/osu_alltoall "
                    "output with its '# OSU MPI ...' title, IMB-MPI1 PingPong/Alltoall output)");
    size_t n0 = out->np2p, n1 = out->nbw, n2 = out->na2a;
    int rc = scan_directives(&p, buf, len);
    if (rc == 0) {
        p.lineno = 0;
        rc = f == CT_BENCH_CSV   ? parse_csv(&p, buf, len)
             : f == CT_BENCH_IMB ? parse_imb(&p, buf, len)
                                 : parse_osu(&p, buf, len, f);
    }
    if (rc == 0 && out->np2p == n0 && out->nbw == n1 && out->na2a == n2) {
        p.lineno = 0;
        rc = perr(&p,
                  "no measurements found in this %s output (accepted: at least one "
                  "ping-pong, bandwidth or Alltoall row)",
                  ct_bench_format_name(f));
    }
    if (rc < 0) {
        out->np2p = n0;
        out->nbw = n1;
        out->na2a = n2;
    }
    return rc;
}

int ct_bench_parse_file(const char *path, const ct_bench_defaults *def, ct_bench_data *out,
                        ct_bench_format *fmt, ct_err *err)
{
    if (fmt)
        *fmt = CT_BENCH_UNKNOWN;
    char *buf;
    size_t len;
    int rc = ct_read_file(path, CT_BENCH_MAX_BYTES, "a benchmark output", &buf, &len, err);
    if (rc == 0)
        rc = ct_bench_parse(path, buf, len, def, out, fmt, err);
    free(buf);
    return rc;
}

void ct_bench_free(ct_bench_data *d)
{
    if (!d)
        return;
    free(d->p2p);
    free(d->bw);
    free(d->a2a);
    memset(d, 0, sizeof *d);
}

int ct_bench_wait_line(const char *line, char *why, size_t whysz)
{
    if (whysz)
        why[0] = '\0';
    if (!line || strncmp(line, "# wait: ", 8) != 0)
        return -1;
    const char *w = line + 8;
    int kind = strncmp(w, "busy", 4) == 0     ? CT_WAIT_BUSY
               : strncmp(w, "polled", 6) == 0 ? CT_WAIT_POLLED
                                              : CT_WAIT_OTHER;
    const char *c = strstr(w, "): ");
    if (!c || !whysz)
        return kind;
    c += 3;
    size_t k = 0;
    for (; c[k] && c[k] != '\n' && c[k] != '\r' && k + 1 < whysz; k++)
        why[k] = (unsigned char)c[k] >= 0x20 && (unsigned char)c[k] < 0x7f ? c[k] : '?';
    why[k] = '\0';
    return kind;
}

int ct_bench_tcp_line(const char *line, char *cc, size_t ccsz)
{
    if (ccsz)
        cc[0] = '\0';
    if (!line || strncmp(line, "# tcp: ", 7) != 0)
        return -1;
    const char *w = line + 7;
    size_t k = 0;
    for (; ccsz && k + 1 < ccsz && ct_tcp_cc_char(w[k]); k++)
        cc[k] = w[k];
    if (ccsz)
        cc[k] = '\0';
    return 0;
}
