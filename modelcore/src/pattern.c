/* Patterns -> node-level graphs with multiplicities (paper 001 §IV-A: the
 * graph's vertices are nodes, a task-level communication between two nodes
 * is an arc). Task-level communications are folded into arcs as they are
 * generated and merged by node pair (acc_finish), so the cost is linear in
 * tasks and the graph holds one arc per node pair and size. */
#include "contention/pattern.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/collective.h"
#include "contention/trace.h"
#include "grow.h"

const char *ct_pattern_name(ct_pattern_kind k)
{
    switch (k) {
    case CT_PAT_ALLTOALL:
        return "alltoall";
    case CT_PAT_RING:
        return "ring";
    case CT_PAT_HALVES:
        return "halves";
    case CT_PAT_HALO2D:
        return "halo2d";
    case CT_PAT_HALO3D:
        return "halo3d";
    case CT_PAT_HALO2D_PHASED:
        return "halo2d-phased";
    case CT_PAT_HALO3D_PHASED:
        return "halo3d-phased";
    case CT_PAT_TRACE:
        return "trace";
    }
    return "unknown";
}

int ct_pattern_parse(const char *s, ct_pattern *p, ct_err *err)
{
    static const char *const accepted =
        "accepted: alltoall, ring, halves, halo2d, halo3d, halo2d-phased, halo3d-phased, "
        "trace:FILE";
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
        {"halo2d-phased", CT_PAT_HALO2D_PHASED}, {"halo3d-phased", CT_PAT_HALO3D_PHASED},
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
    return ct_err_set(err, "unknown pattern '%.64s' (%s)", s, accepted);
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
/* arc accumulator: task-level communications are appended (runs of
 * identical ones folded on the fly), then sorted by (src, dst) with two
 * counting-sort passes over the node numbers and merged. Sequential passes
 * keep a 65,536-task random layout cheap where a hash table would miss the
 * cache on every communication. */

typedef struct raw {
    int32_t src, dst;
    double bytes;
    int64_t mult;
} raw;

typedef struct acc {
    ct_graph *g;
    double *intra; /* per node, may be NULL */
    raw *v;
    size_t n, cap;
    int have_last;
    raw last; /* the run being folded */
} acc;

static void acc_init(acc *a, ct_graph *g, double *intra)
{
    memset(a, 0, sizeof *a);
    a->g = g;
    a->intra = intra;
}

static void acc_free(acc *a)
{
    free(a->v);
    a->v = NULL;
}

static int acc_push(acc *a, raw r, ct_err *err)
{
    if (grow_array((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v, 1024) < 0)
        return ct_err_set(err, "out of memory for %zu communications", a->n + 1);
    a->v[a->n++] = r;
    return 0;
}

static int acc_flush(acc *a, ct_err *err)
{
    if (!a->have_last)
        return 0;
    a->have_last = 0;
    return acc_push(a, a->last, err);
}

/* mult communications of `bytes` from node s to node d */
static int acc_add(acc *a, int32_t s, int32_t d, int64_t mult, double bytes, ct_err *err)
{
    if (s == d) {
        if (a->intra)
            a->intra[s] += (double)mult * bytes;
        return 0;
    }
    if (a->have_last && s == a->last.src && d == a->last.dst && bytes == a->last.bytes) {
        a->last.mult += mult;
        return 0;
    }
    if (acc_flush(a, err) < 0)
        return -1;
    a->last = (raw){.src = s, .dst = d, .bytes = bytes, .mult = mult};
    a->have_last = 1;
    return 0;
}

static int cmp_bytes(const void *pa, const void *pb)
{
    const raw *x = pa, *y = pb;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* Stable counting sort of `in` into `out` by key(src or dst). */
static int count_sort(const raw *in, raw *out, size_t n, int32_t nnodes, int by_src, ct_err *err)
{
    size_t *cnt = calloc((size_t)nnodes + 1, sizeof *cnt);
    if (!cnt)
        return ct_err_set(err, "out of memory for %d nodes", (int)nnodes);
    for (size_t i = 0; i < n; i++)
        cnt[(by_src ? in[i].src : in[i].dst) + 1]++;
    for (int32_t k = 0; k < nnodes; k++)
        cnt[k + 1] += cnt[k];
    for (size_t i = 0; i < n; i++)
        out[cnt[by_src ? in[i].src : in[i].dst]++] = in[i];
    free(cnt);
    return 0;
}

static int acc_finish(acc *a, ct_err *err)
{
    if (acc_flush(a, err) < 0)
        return -1;
    if (a->n == 0)
        return 0;
    raw *tmp = malloc(a->n * sizeof *tmp);
    if (!tmp)
        return ct_err_set(err, "out of memory for %zu communications", a->n);
    /* LSD: by destination, then (stably) by source */
    if (count_sort(a->v, tmp, a->n, a->g->nnodes, 0, err) < 0 ||
        count_sort(tmp, a->v, a->n, a->g->nnodes, 1, err) < 0) {
        free(tmp);
        return -1;
    }
    free(tmp);
    int rc = 0;
    for (size_t i = 0; i < a->n && rc == 0;) {
        size_t j = i + 1, mixed = 0;
        while (j < a->n && a->v[j].src == a->v[i].src && a->v[j].dst == a->v[i].dst) {
            mixed |= a->v[j].bytes != a->v[i].bytes;
            j++;
        }
        if (mixed) /* only traces mix sizes on one node pair */
            qsort(a->v + i, j - i, sizeof *a->v, cmp_bytes);
        for (size_t k = i; k < j && rc == 0;) {
            int64_t m = 0;
            size_t q = k;
            while (q < j && a->v[q].bytes == a->v[k].bytes)
                m += a->v[q++].mult;
            rc = ct_graph_add(a->g, a->v[k].src, a->v[k].dst, m, a->v[k].bytes, err);
            k = q;
        }
        i = j;
    }
    return rc;
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
                rc = ct_graph_add(a->g, i, j, (int64_t)t[i] * t[j], m, err);
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

/* The halo's exchanges along dimension only (-1: every dimension). */
static int graph_halo(const ct_layout *l, int ndims, int only, double m, acc *a, ct_err *err)
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
        if (only >= 0 && d != only)
            continue;
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
    ct_coll_params cp; /* no fabric here: collectives expanded with zero-cost choices */
    ct_coll_params_hockney(0, 0, &cp);
    if (ct_trace_load_expanded_bounded(p->trace, &p->trace_limits, &cp, &tr, NULL, err) < 0)
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

int ct_pattern_halo_dims(ct_pattern_kind k)
{
    switch (k) {
    case CT_PAT_HALO2D:
    case CT_PAT_HALO2D_PHASED:
        return 2;
    case CT_PAT_HALO3D:
    case CT_PAT_HALO3D_PHASED:
        return 3;
    default:
        return 0;
    }
}

int ct_pattern_nphases(const ct_pattern *p)
{
    if (p && (p->kind == CT_PAT_HALO2D_PHASED || p->kind == CT_PAT_HALO3D_PHASED))
        return ct_pattern_halo_dims(p->kind);
    return 1;
}

int ct_pattern_graph(const ct_pattern *p, const ct_layout *l, ct_graph *g, double *intra_bytes,
                     ct_err *err)
{
    return ct_pattern_graph_phase(p, -1, l, g, intra_bytes, err);
}

/* phase -1: every phase together */
int ct_pattern_graph_phase(const ct_pattern *p, int phase, const ct_layout *l, ct_graph *g,
                           double *intra_bytes, ct_err *err)
{
    if (!p || !l || !g || !l->node_of || l->ntasks < 1 || l->nnodes < 1)
        return ct_err_set(err, "ct_pattern_graph: empty layout");
    if (phase < -1 || phase >= ct_pattern_nphases(p))
        return ct_err_set(err, "pattern %s has no phase %d (accepted: 0..%d)",
                          ct_pattern_name(p->kind), phase, ct_pattern_nphases(p) - 1);
    if (ct_pattern_nphases(p) == 1)
        phase = -1;
    if (ct_graph_init(g, l->nnodes, err) < 0)
        return -1;
    if (intra_bytes)
        for (int32_t i = 0; i < l->nnodes; i++)
            intra_bytes[i] = 0;
    if (!isfinite(p->bytes) || p->bytes < 0) {
        return ct_err_set(err, "message size %g bytes (accepted: finite, >= 0)", p->bytes);
    }
    acc a;
    acc_init(&a, g, intra_bytes);
    int rc;
    switch (p->kind) {
    case CT_PAT_ALLTOALL:
        rc = graph_alltoall(l, p->bytes, &a, err);
        break;
    case CT_PAT_RING:
        rc = graph_ring(l, p->bytes, &a, err);
        break;
    case CT_PAT_HALVES:
        rc = graph_halves(l, p->bytes, &a, err);
        break;
    case CT_PAT_HALO2D:
    case CT_PAT_HALO3D:
    case CT_PAT_HALO2D_PHASED:
    case CT_PAT_HALO3D_PHASED:
        rc = graph_halo(l, ct_pattern_halo_dims(p->kind), phase, p->bytes, &a, err);
        break;
    case CT_PAT_TRACE:
        rc = graph_trace(p, l, &a, err);
        break;
    default:
        rc = ct_err_set(err, "unknown pattern kind %d", (int)p->kind);
        break;
    }
    if (rc == 0 && p->kind != CT_PAT_ALLTOALL)
        rc = acc_finish(&a, err);
    acc_free(&a);
    if (rc < 0)
        ct_graph_free(g);
    return rc;
}
