/* Patterns -> node-level graphs with multiplicities (paper 001 §IV-A: the
 * graph's vertices are nodes, a task-level communication between two nodes
 * is an arc). Task-level communications are folded into arcs as they are
 * generated, through a hash table keyed by (src node, dst node, bytes), so
 * the cost is linear in tasks and the graph holds one arc per node pair. */
#include "contention/pattern.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/trace.h"

const char *ct_pattern_name(ct_pattern_kind k)
{
    switch (k) {
    case CT_PAT_ALLTOALL: return "alltoall";
    case CT_PAT_RING: return "ring";
    case CT_PAT_HALVES: return "halves";
    case CT_PAT_HALO2D: return "halo2d";
    case CT_PAT_HALO3D: return "halo3d";
    case CT_PAT_TRACE: return "trace";
    }
    return "unknown";
}

int ct_pattern_parse(const char *s, ct_pattern *p, ct_err *err)
{
    static const char *const accepted =
        "accepted: alltoall, ring, halves, halo2d, halo3d, trace:FILE";
    if (!p)
        return ct_err_set(err, "ct_pattern_parse: NULL pattern");
    memset(p, 0, sizeof *p);
    p->bytes = CT_PATTERN_DEFAULT_BYTES;
    if (!s || !*s)
        return ct_err_set(err, "empty pattern (%s)", accepted);
    static const struct {
        const char *name;
        ct_pattern_kind kind;
    } names[] = {
        {"alltoall", CT_PAT_ALLTOALL}, {"ring", CT_PAT_RING},     {"halves", CT_PAT_HALVES},
        {"halo2d", CT_PAT_HALO2D},     {"halo3d", CT_PAT_HALO3D},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) {
            p->kind = names[i].kind;
            return 0;
        }
    if (strncmp(s, "trace:", 6) == 0) {
        const char *path = s + 6;
        if (!*path)
            return ct_err_set(err, "pattern 'trace:' names no file (expected trace:FILE)");
        if (strlen(path) >= sizeof p->trace)
            return ct_err_set(err, "pattern trace path is %zu characters long (at most %zu)",
                              strlen(path), sizeof p->trace - 1);
        p->kind = CT_PAT_TRACE;
        memcpy(p->trace, path, strlen(path) + 1);
        return 0;
    }
    return ct_err_set(err, "unknown pattern '%s' (%s)", s, accepted);
}

/* ------------------------------------------------------------------ */

int ct_grid_dims(int64_t n, int ndims, int32_t *dims, ct_err *err)
{
    if (n < 1 || n > INT32_MAX)
        return ct_err_set(err, "grid of %lld tasks out of range (1..%d)", (long long)n, INT32_MAX);
    if (ndims < 1 || ndims > 3)
        return ct_err_set(err, "grid of %d dimensions (accepted: 1, 2, 3)", ndims);
    if (ndims == 1) {
        dims[0] = (int32_t)n;
        return 0;
    }
    /* the smallest spread largest - smallest; ties keep the first found,
     * which has the larger smallest side */
    int64_t best[3] = {n, 1, 1};
    int64_t best_spread = INT64_MAX;
    int64_t cmax = ndims == 3 ? (int64_t)cbrt((double)n) + 1 : 1;
    for (int64_t c = cmax; c >= 1; c--) {
        if (n % c)
            continue;
        int64_t rest = n / c;
        for (int64_t b = (int64_t)sqrt((double)rest) + 1; b >= c; b--) {
            if (rest % b)
                continue;
            int64_t a = rest / b;
            if (a < b)
                continue;
            int64_t spread = ndims == 3 ? a - c : a - b;
            if (spread < best_spread) {
                best_spread = spread;
                best[0] = a;
                best[1] = b;
                best[2] = c;
            }
            break; /* the largest b <= sqrt(rest) is the most balanced for this c */
        }
    }
    for (int d = 0; d < ndims; d++)
        dims[d] = (int32_t)best[d];
    return 0;
}

/* ------------------------------------------------------------------ */
/* arc accumulator */

typedef struct acc {
    ct_graph *g;
    size_t *slot;      /* hash slots: arc index + 1, 0 = empty */
    size_t nslots;     /* power of two */
    double *intra;     /* per node, may be NULL */
    /* run-length cache: consecutive identical communications are common */
    int32_t last_src, last_dst;
    double last_bytes;
    int64_t last_mult;
} acc;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static uint64_t arc_hash(int32_t s, int32_t d, double bytes)
{
    uint64_t b;
    memcpy(&b, &bytes, sizeof b);
    return mix(((uint64_t)(uint32_t)s << 32 | (uint32_t)d) ^ mix(b));
}

static int acc_init(acc *a, ct_graph *g, double *intra, size_t expect, ct_err *err)
{
    memset(a, 0, sizeof *a);
    a->g = g;
    a->intra = intra;
    a->last_src = -1;
    size_t n = 64;
    while (n < 2 * expect && n < ((size_t)1 << 40))
        n <<= 1;
    a->slot = calloc(n, sizeof *a->slot);
    if (!a->slot)
        return ct_err_set(err, "out of memory for a %zu-slot arc table", n);
    a->nslots = n;
    return 0;
}

static void acc_free(acc *a)
{
    free(a->slot);
    a->slot = NULL;
}

static int acc_grow(acc *a, ct_err *err)
{
    size_t n = a->nslots * 2;
    size_t *s = calloc(n, sizeof *s);
    if (!s)
        return ct_err_set(err, "out of memory for a %zu-slot arc table", n);
    for (size_t i = 0; i < a->g->ncomm; i++) {
        const ct_comm *c = &a->g->comm[i];
        size_t h = arc_hash(c->src, c->dst, c->bytes) & (n - 1);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = i + 1;
    }
    free(a->slot);
    a->slot = s;
    a->nslots = n;
    return 0;
}

static int acc_commit(acc *a, int32_t s, int32_t d, int64_t mult, double bytes, ct_err *err)
{
    size_t h = arc_hash(s, d, bytes) & (a->nslots - 1);
    while (a->slot[h]) {
        ct_comm *c = &a->g->comm[a->slot[h] - 1];
        if (c->src == s && c->dst == d && c->bytes == bytes) {
            c->mult += mult;
            return 0;
        }
        h = (h + 1) & (a->nslots - 1);
    }
    if (ct_graph_add(a->g, s, d, mult, bytes, err) < 0)
        return -1;
    a->slot[h] = a->g->ncomm;
    if (2 * a->g->ncomm > a->nslots)
        return acc_grow(a, err);
    return 0;
}

static int acc_flush(acc *a, ct_err *err)
{
    if (a->last_src < 0)
        return 0;
    int rc = acc_commit(a, a->last_src, a->last_dst, a->last_mult, a->last_bytes, err);
    a->last_src = -1;
    return rc;
}

/* mult communications of `bytes` from node s to node d */
static int acc_add(acc *a, int32_t s, int32_t d, int64_t mult, double bytes, ct_err *err)
{
    if (s == d) {
        if (a->intra)
            a->intra[s] += (double)mult * bytes;
        return 0;
    }
    if (s == a->last_src && d == a->last_dst && bytes == a->last_bytes) {
        a->last_mult += mult;
        return 0;
    }
    if (acc_flush(a, err) < 0)
        return -1;
    a->last_src = s;
    a->last_dst = d;
    a->last_bytes = bytes;
    a->last_mult = mult;
    return 0;
}

/* ------------------------------------------------------------------ */

static int graph_alltoall(const ct_layout *l, double m, acc *a, ct_err *err)
{
    int32_t *t = calloc((size_t)l->nnodes, sizeof *t);
    if (!t)
        return ct_err_set(err, "out of memory for %d nodes", (int)l->nnodes);
    ct_layout_counts(l, t);
    int rc = 0;
    for (int32_t i = 0; i < l->nnodes && rc == 0; i++) {
        if (!t[i])
            continue;
        /* t_i tasks each send to the t_i - 1 others of their node */
        if (a->intra)
            a->intra[i] += (double)t[i] * (double)(t[i] - 1) * m;
        for (int32_t j = 0; j < l->nnodes && rc == 0; j++)
            if (j != i && t[j])
                rc = acc_commit(a, i, j, (int64_t)t[i] * t[j], m, err);
    }
    free(t);
    return rc;
}

static int graph_ring(const ct_layout *l, double m, acc *a, ct_err *err)
{
    int32_t n = l->ntasks;
    if (n < 2)
        return 0;
    for (int32_t i = 0; i < n; i++)
        if (acc_add(a, l->node_of[i], l->node_of[(i + 1) % n], 1, m, err) < 0)
            return -1;
    return acc_flush(a, err);
}

static int graph_halves(const ct_layout *l, double m, acc *a, ct_err *err)
{
    int32_t h = l->ntasks / 2;
    /* two passes keep runs of identical arcs together */
    for (int32_t i = 0; i < h; i++)
        if (acc_add(a, l->node_of[i], l->node_of[i + h], 1, m, err) < 0)
            return -1;
    for (int32_t i = 0; i < h; i++)
        if (acc_add(a, l->node_of[i + h], l->node_of[i], 1, m, err) < 0)
            return -1;
    return acc_flush(a, err);
}

static int graph_halo(const ct_layout *l, int ndims, double m, acc *a, ct_err *err)
{
    int32_t dims[3] = {1, 1, 1};
    if (ct_grid_dims(l->ntasks, ndims, dims, err) < 0)
        return -1;
    /* row-major: the last dimension varies fastest */
    int64_t stride[3];
    stride[ndims - 1] = 1;
    for (int d = ndims - 2; d >= 0; d--)
        stride[d] = stride[d + 1] * dims[d + 1];
    /* one pass per direction keeps runs of identical arcs together */
    for (int d = 0; d < ndims; d++) {
        for (int dir = -1; dir <= 1; dir += 2) {
            for (int64_t r = 0; r < l->ntasks; r++) {
                int64_t coord = (r / stride[d]) % dims[d];
                int64_t c2 = coord + dir;
                if (c2 < 0 || c2 >= dims[d])
                    continue; /* not periodic */
                int64_t peer = r + dir * stride[d];
                if (acc_add(a, l->node_of[r], l->node_of[peer], 1, m, err) < 0)
                    return -1;
            }
            if (acc_flush(a, err) < 0)
                return -1;
        }
    }
    return 0;
}

static int graph_trace(const ct_pattern *p, const ct_layout *l, acc *a, ct_err *err)
{
    ct_trace tr;
    if (ct_trace_load(p->trace, &tr, err) < 0)
        return -1;
    int rc = 0;
    if (tr.ntasks != l->ntasks) {
        rc = ct_err_set(err, "%s: trace has %d tasks but the job runs %d (they must match)",
                        p->trace, (int)tr.ntasks, (int)l->ntasks);
        goto out;
    }
    for (size_t c = 0; c < tr.ncomm && rc == 0; c++) {
        const ct_event *e = ct_trace_comm_event(&tr, c);
        rc = acc_add(a, l->node_of[tr.comm_src[c]], l->node_of[e->peer], 1, e->value, err);
    }
    if (rc == 0)
        rc = acc_flush(a, err);
out:
    ct_trace_free(&tr);
    return rc;
}

int ct_pattern_graph(const ct_pattern *p, const ct_layout *l, ct_graph *g, double *intra_bytes,
                     ct_err *err)
{
    if (!p || !l || !g || !l->node_of || l->ntasks < 1 || l->nnodes < 1)
        return ct_err_set(err, "ct_pattern_graph: empty layout");
    if (ct_graph_init(g, l->nnodes, err) < 0)
        return -1;
    if (intra_bytes)
        for (int32_t i = 0; i < l->nnodes; i++)
            intra_bytes[i] = 0;
    if (!isfinite(p->bytes) || p->bytes < 0) {
        return ct_err_set(err, "message size %g bytes (accepted: finite, >= 0)", p->bytes);
    }
    size_t expect = p->kind == CT_PAT_ALLTOALL ? (size_t)l->nnodes * (size_t)l->nnodes
                                               : (size_t)l->nnodes * 8;
    acc a;
    if (acc_init(&a, g, intra_bytes, expect, err) < 0)
        return -1;
    int rc;
    switch (p->kind) {
    case CT_PAT_ALLTOALL: rc = graph_alltoall(l, p->bytes, &a, err); break;
    case CT_PAT_RING: rc = graph_ring(l, p->bytes, &a, err); break;
    case CT_PAT_HALVES: rc = graph_halves(l, p->bytes, &a, err); break;
    case CT_PAT_HALO2D: rc = graph_halo(l, 2, p->bytes, &a, err); break;
    case CT_PAT_HALO3D: rc = graph_halo(l, 3, p->bytes, &a, err); break;
    case CT_PAT_TRACE: rc = graph_trace(p, l, &a, err); break;
    default: rc = ct_err_set(err, "unknown pattern kind %d", (int)p->kind); break;
    }
    acc_free(&a);
    if (rc < 0)
        ct_graph_free(g);
    return rc;
}
