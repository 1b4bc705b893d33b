/* Slurm's environment string formats -> plain values for libcontention.
 * Syntax as Slurm 22.05 writes it (src/common/hostlist.c and
 * slurm_step_layout.c, read, not copied). */
#include "ctslurm/slurmfmt.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cpu_list_accepted =
    "expected comma-separated COUNT or COUNT(xREPEAT), e.g. 4(x2),3,1(x5)";

/* Reads a decimal integer at *p (no sign); -1 when there is none or it
 * exceeds max. */
static long read_uint(const char **p, long max)
{
    const char *s = *p;
    if (!isdigit((unsigned char)*s))
        return -1;
    long v = 0;
    while (isdigit((unsigned char)*s)) {
        /* checked before it is computed: a long run of digits must not
         * overflow (found by fuzzing, tests/fuzz/fuzz_cpulist.c) */
        if (v > (max - (*s - '0')) / 10)
            return -1;
        v = v * 10 + (*s - '0');
        s++;
    }
    *p = s;
    return v;
}

/* One pass over a compressed CPU list: counts nodes, and fills cpus when
 * it is not NULL (second pass). */
static int scan_cpu_list(const char *list, int32_t *cpus, int64_t *nnodes, ct_err *err)
{
    const char *p = list;
    int64_t n = 0;
    for (;;) {
        const char *item = p;
        long c = read_uint(&p, CT_ALLOC_MAX_CPUS);
        if (c < 1)
            return ct_err_set(err,
                              "cpu list '%s': column %d: bad CPU count at '%.16s' "
                              "(each count is 1..%d; %s)",
                              list, (int)(item - list) + 1, item, CT_ALLOC_MAX_CPUS,
                              cpu_list_accepted);
        long rep = 1;
        if (*p == '(') {
            const char *r = p;
            p++;
            if (*p != 'x')
                return ct_err_set(err, "cpu list '%s': column %d: expected '(x' at '%.16s' (%s)",
                                  list, (int)(r - list) + 1, r, cpu_list_accepted);
            p++;
            rep = read_uint(&p, CT_ALLOC_MAX_NODES);
            if (rep < 1 || *p != ')')
                return ct_err_set(err,
                                  "cpu list '%s': column %d: bad repeat at '%.16s' "
                                  "(repeat is 1..%d; %s)",
                                  list, (int)(r - list) + 1, r, CT_ALLOC_MAX_NODES,
                                  cpu_list_accepted);
            p++;
        }
        if (n + rep > CT_ALLOC_MAX_NODES)
            return ct_err_set(err, "cpu list '%s': more than %d nodes", list, CT_ALLOC_MAX_NODES);
        if (cpus)
            for (long k = 0; k < rep; k++)
                cpus[n + k] = (int32_t)c;
        n += rep;
        if (*p == '\0')
            break;
        if (*p != ',')
            return ct_err_set(err, "cpu list '%s': column %d: unexpected '%c' (%s)", list,
                              (int)(p - list) + 1, *p, cpu_list_accepted);
        p++;
    }
    *nnodes = n;
    return 0;
}

int ctslurm_parse_cpus_per_node(const char *cpus_per_node, ct_alloc *a, ct_err *err)
{
    a->nnodes = 0;
    a->cpus = NULL;
    if (!cpus_per_node || !*cpus_per_node)
        return ct_err_set(err, "empty cpu list (%s)", cpu_list_accepted);
    int64_t n = 0;
    if (scan_cpu_list(cpus_per_node, NULL, &n, err) < 0)
        return -1;
    int32_t *cpus = malloc((size_t)n * sizeof *cpus);
    if (!cpus)
        return ct_err_set(err, "out of memory for %lld nodes", (long long)n);
    if (scan_cpu_list(cpus_per_node, cpus, &n, err) < 0) {
        free(cpus);
        return -1;
    }
    a->nnodes = (int32_t)n;
    a->cpus = cpus;
    return 0;
}

/* ------------------------------------------------------------------ */
/* host lists */

static const char *const hostlist_accepted =
    "expected comma-separated host names with optional [RANGES], e.g. n[1-4,7],login2";

int ctslurm_count_hosts(const char *nodelist, int64_t *count, ct_err *err)
{
    if (!nodelist || !*nodelist)
        return ct_err_set(err, "empty host list (%s)", hostlist_accepted);
    const int64_t cap = (int64_t)CT_ALLOC_MAX_NODES * 64;
    int64_t total = 0;
    const char *p = nodelist;
    while (*p) {
        int64_t term = 1;
        int chars = 0;
        while (*p && *p != ',') {
            if (*p == ']')
                return ct_err_set(err, "host list '%s': column %d: ']' without '[' (%s)", nodelist,
                                  (int)(p - nodelist) + 1, hostlist_accepted);
            if (*p != '[') {
                chars++;
                p++;
                continue;
            }
            const char *open = p++;
            int64_t in_bracket = 0;
            for (;;) {
                const char *num = p;
                long lo = read_uint(&p, LONG_MAX / 4);
                long hi = lo;
                size_t wide = (size_t)(p - num); /* digits as written (zero padding) */
                if (lo >= 0 && *p == '-') {
                    const char *h = ++p;
                    hi = read_uint(&p, LONG_MAX / 4);
                    if ((size_t)(p - h) > wide)
                        wide = (size_t)(p - h);
                }
                if (wide > CTSLURM_RANGE_DIGITS_MAX)
                    return ct_err_set(err, "host list '%s': column %d: a range number of more "
                                           "than %d digits at '%.16s' (%s)",
                                      nodelist, (int)(num - nodelist) + 1, CTSLURM_RANGE_DIGITS_MAX,
                                      num, hostlist_accepted);
                if (lo < 0 || hi < lo)
                    return ct_err_set(err, "host list '%s': column %d: bad range at '%.16s' (%s)",
                                      nodelist, (int)(num - nodelist) + 1, num, hostlist_accepted);
                in_bracket += hi - lo + 1;
                if (in_bracket > cap)
                    return ct_err_set(err, "host list '%s': more than %lld hosts", nodelist,
                                      (long long)cap);
                if (*p == ',') {
                    p++;
                    continue;
                }
                if (*p == ']') {
                    p++;
                    break;
                }
                return ct_err_set(err, "host list '%s': column %d: unterminated '[' (%s)", nodelist,
                                  (int)(open - nodelist) + 1, hostlist_accepted);
            }
            term *= in_bracket;
            chars++;
            if (term > cap)
                return ct_err_set(err, "host list '%s': more than %lld hosts", nodelist,
                                  (long long)cap);
        }
        if (chars == 0)
            return ct_err_set(err, "host list '%s': column %d: empty host name (%s)", nodelist,
                              (int)(p - nodelist) + 1, hostlist_accepted);
        total += term;
        if (total > cap)
            return ct_err_set(err, "host list '%s': more than %lld hosts", nodelist,
                              (long long)cap);
        if (*p == ',') {
            p++;
            if (!*p)
                return ct_err_set(err, "host list '%s': trailing ',' (%s)", nodelist,
                                  hostlist_accepted);
        }
    }
    *count = total;
    return 0;
}

/* ---- host list expansion ----------------------------------------------- */

typedef struct hosts_out {
    char **v;
    int64_t n, cap, max;
} hosts_out;

static int hosts_push(hosts_out *o, const char *s, size_t len)
{
    if (o->n >= o->max)
        return -2;
    if (o->n == o->cap) {
        int64_t cap = o->cap ? 2 * o->cap : 16;
        char **v = realloc(o->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        o->v = v;
        o->cap = cap;
    }
    char *d = malloc(len + 1);
    if (!d)
        return -1;
    memcpy(d, s, len);
    d[len] = '\0';
    o->v[o->n++] = d;
    return 0;
}

/* Expand term[0..len) (one comma-free name pattern) after the fixed prefix
 * pre[0..plen); brackets are expanded left to right. */
static int expand_term(hosts_out *o, char *pre, size_t plen, size_t precap, const char *t,
                       size_t len)
{
    const char *open = memchr(t, '[', len);
    if (!open) {
        if (plen + len + 1 > precap)
            return -3;
        memcpy(pre + plen, t, len);
        return hosts_push(o, pre, plen + len);
    }
    size_t head = (size_t)(open - t);
    if (plen + head + 1 > precap)
        return -3;
    memcpy(pre + plen, t, head);
    const char *close = memchr(open, ']', len - head);
    if (!close)
        return -3;
    const char *p = open + 1, *rest = close + 1;
    size_t restlen = len - (size_t)(rest - t);
    while (p < close) {
        const char *q = p;
        while (q < close && *q != ',')
            q++;
        /* lo[-hi] with the width of lo as written */
        const char *dash = memchr(p, '-', (size_t)(q - p));
        size_t wlo = (size_t)((dash ? dash : q) - p);
        char buf[CTSLURM_RANGE_DIGITS_MAX + 1];
        if (wlo == 0 || wlo >= sizeof buf)
            return -3;
        memcpy(buf, p, wlo);
        buf[wlo] = '\0';
        long lo = strtol(buf, NULL, 10), hi = lo;
        if (dash) {
            size_t wh = (size_t)(q - dash - 1);
            if (wh == 0 || wh >= sizeof buf)
                return -3;
            memcpy(buf, dash + 1, wh);
            buf[wh] = '\0';
            hi = strtol(buf, NULL, 10);
        }
        if (hi < lo)
            return -3;
        for (long v = lo; v <= hi; v++) {
            int w = snprintf(buf, sizeof buf, "%0*ld", (int)wlo, v);
            if (w < 0 || plen + head + (size_t)w + 1 > precap)
                return -3;
            memcpy(pre + plen + head, buf, (size_t)w);
            int rc = expand_term(o, pre, plen + head + (size_t)w, precap, rest, restlen);
            if (rc)
                return rc;
        }
        p = q < close ? q + 1 : q;
    }
    return 0;
}

void ctslurm_hosts_free(char **names, int64_t n)
{
    for (int64_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

int ctslurm_expand_hosts(const char *hostlist, int64_t max, char ***names, int64_t *n,
                         ct_err *err)
{
    *names = NULL;
    *n = 0;
    int64_t count;
    if (ctslurm_count_hosts(hostlist, &count, err) < 0) /* the syntax checks */
        return -1;
    if (count > max)
        return ct_err_set(err, "host list '%.200s' names %lld hosts (accepted: at most %lld)",
                          hostlist, (long long)count, (long long)max);
    hosts_out o = {NULL, 0, 0, max};
    char pre[256];
    int rc = 0;
    const char *p = hostlist;
    while (*p && rc == 0) {
        const char *q = p;
        int depth = 0;
        while (*q && (*q != ',' || depth)) {
            depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
            q++;
        }
        rc = expand_term(&o, pre, 0, sizeof pre, p, (size_t)(q - p));
        p = *q ? q + 1 : q;
    }
    if (rc) {
        ctslurm_hosts_free(o.v, o.n);
        return rc == -1 ? ct_err_set(err, "out of memory expanding host list '%.200s'", hostlist)
                        : ct_err_set(err, "host list '%.200s': a name longer than %zu characters "
                                          "or a malformed range (%s)",
                                     hostlist, sizeof pre - 1, hostlist_accepted);
    }
    *names = o.v;
    *n = o.n;
    return 0;
}

/* ---- SLURM_HOSTFILE ---------------------------------------------------- */

typedef struct host_index {
    char *const *hosts;
    int64_t *order; /* indices of hosts sorted by name */
    int64_t n;
} host_index;

static char *const *sort_hosts; /* qsort has no context argument in C11 */

static int cmp_host(const void *a, const void *b)
{
    return strcmp(sort_hosts[*(const int64_t *)a], sort_hosts[*(const int64_t *)b]);
}

/* Index of the host named [s, s + n) or -1. */
static int64_t find_host(const host_index *hi, const char *s, size_t n)
{
    int64_t lo = 0, hi_ = hi->n - 1;
    while (lo <= hi_) {
        int64_t mid = lo + (hi_ - lo) / 2;
        const char *h = hi->hosts[hi->order[mid]];
        int c = strncmp(s, h, n);
        if (c == 0 && h[n] != '\0')
            c = -1; /* s is a proper prefix of h */
        if (c == 0)
            return hi->order[mid];
        if (c < 0)
            hi_ = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

int ctslurm_parse_hostfile(const char *label, const char *text, size_t len, char *const *hosts,
                           int64_t nhosts, int32_t ntasks, int32_t *node_of, int32_t *nread,
                           ct_err *err)
{
    *nread = 0;
    if (!label)
        label = "hostfile";
    if (nhosts < 1 || !hosts)
        return ct_err_set(err, "%s: no node names to match it against", label);
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        long at = 1;
        for (const char *q = text; q < nul; q++)
            at += *q == '\n';
        return ct_err_set(err, "%s: line %ld: contains a NUL byte (accepted: a text file, node "
                               "names)",
                          label, at);
    }
    host_index hi = {.hosts = hosts, .n = nhosts};
    hi.order = malloc((size_t)nhosts * sizeof *hi.order);
    if (!hi.order)
        return ct_err_set(err, "%s: out of memory", label);
    for (int64_t i = 0; i < nhosts; i++)
        hi.order[i] = i;
    sort_hosts = hosts;
    qsort(hi.order, (size_t)nhosts, sizeof *hi.order, cmp_host);
    int rc = 0;
    int32_t got = 0;
    long line = 0;
    const char *p = text, *end = text + len;
    while (p < end && got < ntasks && rc == 0) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        line++;
        const char *hash = memchr(p, '#', (size_t)(eol - p));
        const char *e = hash ? hash : eol;
        const char *s = p;
        p = eol < end ? eol + 1 : end;
        while (s < e && isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
        if (s == e)
            continue; /* blank or comment */
        while (s <= e && got < ntasks && rc == 0) {
            const char *c = memchr(s, ',', (size_t)(e - s));
            const char *ee = c ? c : e;
            const char *star = memchr(s, '*', (size_t)(ee - s));
            const char *ne = star ? star : ee;
            while (ne > s && isspace((unsigned char)ne[-1]))
                ne--;
            const char *ns = s;
            while (ns < ne && isspace((unsigned char)*ns))
                ns++;
            if (ns == ne && star) {
                rc = ct_err_set(err, "%s: line %ld: no node name before '*' in '%.*s' (accepted: "
                                     "NAME or NAME*COUNT, comma-separated)",
                                label, line, (int)(e - s > 64 ? 64 : e - s), s);
                break;
            }
            if (ns == ne) { /* an empty entry: srun skips it too */
                if (!c)
                    break;
                s = c + 1;
                continue;
            }
            long count = 1;
            if (star) {
                const char *q = star + 1;
                while (q < ee && isspace((unsigned char)*q))
                    q++;
                const char *qs = q;
                count = 0;
                while (q < ee && isdigit((unsigned char)*q) && count <= INT32_MAX)
                    count = count * 10 + (*q++ - '0');
                while (q < ee && isspace((unsigned char)*q))
                    q++;
                if (q == qs || q != ee || count < 1 || count > INT32_MAX) {
                    rc = ct_err_set(err, "%s: line %ld: bad count in '%.*s' (accepted: NAME*COUNT, "
                                         "COUNT 1..%d)",
                                    label, line, (int)(ee - s > 64 ? 64 : ee - s), s, INT32_MAX);
                    break;
                }
            }
            int64_t k = find_host(&hi, ns, (size_t)(ne - ns));
            if (k < 0) {
                char some[160];
                size_t o = 0;
                some[0] = '\0';
                for (int64_t i = 0; i < nhosts && i < 4 && o < sizeof some; i++)
                    o += (size_t)snprintf(some + o, sizeof some - o, "%s%s", i ? " " : "", hosts[i]);
                rc = ct_err_set(err, "%s: line %ld: '%.*s' is not a node of the allocation (its "
                                     "%lld nodes: %s%s)",
                                label, line, (int)(ne - ns > 64 ? 64 : ne - ns), ns,
                                (long long)nhosts, some, nhosts > 4 ? " ..." : "");
                break;
            }
            for (long j = 0; j < count && got < ntasks; j++)
                node_of[got++] = (int32_t)k;
            if (!c)
                break;
            s = c + 1;
        }
    }
    free(hi.order);
    if (rc < 0)
        return -1;
    *nread = got;
    return 0;
}

int ctslurm_hostfile_layout(const char *label, const char *text, size_t len, char *const *hosts,
                            int64_t nhosts, int32_t ntasks, ct_layout *out, ct_err *err)
{
    memset(out, 0, sizeof *out);
    if (!label)
        label = "hostfile";
    int32_t *node_of = malloc((size_t)(ntasks > 0 ? ntasks : 1) * sizeof *node_of), got = 0;
    if (!node_of)
        return ct_err_set(err, "%s: out of memory for %d tasks", label, (int)ntasks);
    int rc = ctslurm_parse_hostfile(label, text, len, hosts, nhosts, ntasks, node_of, &got, err);
    if (rc == 0 && ct_layout_explicit((int32_t)nhosts, got, node_of, out, err) < 0)
        rc = ct_err_prefix(err, "%s: ", label);
    free(node_of);
    return rc < 0 ? -1 : 0;
}
