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
                if (lo >= 0 && *p == '-') {
                    p++;
                    hi = read_uint(&p, LONG_MAX / 4);
                }
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
        char buf[32];
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
