/* Placement search (see placement.h for the method). Our own extension:
 * papers 000-003 score given mappings; searching one is not in them. The
 * full-model evaluation below is the scorer's (score.c, score.h) applied to
 * an explicit layout, through the same public engines (pattern.h,
 * progressive.h, penalty.h, simulate.h). */
#include "contention/placement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <scotch.h>

#include "contention/collective.h"
#include "contention/commgraph.h"
#include "contention/models.h"
#include "contention/simulate.h"
#include "contention/topology.h"
#include "contention/trace.h"
#include "intra_node.h"
#include "phase_time.h"

/* The scorer's bounds (score.c): progressive evaluation while the estimated
 * penalty evaluations stay <= 10^6 (GigE, none), or while the graph has at
 * most 1024 node pairs (Stop & Go, fair share); run-time bound 4x that. */
#define EVAL_MAX_WORK CT_PHASE_PROGRESSIVE_MAX_EVALS
#define EVAL_MAX_ARCS 1024
/* Budget of adjacency entries the refinement may touch (about 10 ms). */
#define REFINE_BUDGET ((uint64_t)2000000)
/* Work estimates, in units of ct_place_request.max_work (one unit is about
 * 55 instructions, the cost of one graph entry in the refinement; ratios
 * from callgrind on bench_placement 1,024 x 64; doc/plugin.md): per
 * task arc for the task graph, per arc and start for its node-level graph
 * and screening, per (vertex + arc) of Scotch's graph, per task and
 * bisection level of the tiling, per trace event and replay (the replay's
 * ~1,000 instructions per event run at a third of the others' speed:
 * cache misses in the event heap). */
#define W_ARC 2
#define W_SCREEN 3
#define W_SCOTCH 80
#define W_TILES 4
#define W_REPLAY 50
/* Screening on a switch tree: the link model (penalty_links.c: routes, and
 * every switch link's load) costs about twice the node-level model per arc:
 * callgrind on bench_score_tree 1,024 x 16 under 32 leaves, the search's
 * instructions per work unit with W_SCREEN for both were 1.23 (halo3d,
 * contiguous leaves), 1.26 (halo2d), 1.36 (halo3d, interleaved) times
 * those on one switch, screening being ~40 % of the units (issue 14). */
#define W_SCREEN_TREE 6
/* Below this many tasks every start is verified with the full model. */
#define VERIFY_ALL_MAX_TASKS 4096

/* ------------------------------------------------------------------ */
/* task-level graph: per task, its peers with the bytes it sends to and
 * receives from each (one entry per direction of a communication) */

typedef struct tgraph {
    int32_t n;
    int64_t *off;  /* n + 1 */
    int32_t *peer;
    double *out;   /* bytes this task sends to peer on this entry */
    double *in;    /* bytes it receives */
    int64_t nent;
} tgraph;

typedef struct arcs {
    int32_t *s, *d;
    double *b;
    size_t n, cap;
} arcs;

static int arcs_add(arcs *a, int32_t s, int32_t d, double b, ct_err *err)
{
    if (s == d)
        return 0;
    if (a->n == a->cap) {
        size_t nc = a->cap ? 2 * a->cap : 1024;
        int32_t *ns = realloc(a->s, nc * sizeof *ns);
        if (ns)
            a->s = ns;
        int32_t *nd = ns ? realloc(a->d, nc * sizeof *nd) : NULL;
        if (nd)
            a->d = nd;
        double *nb = nd ? realloc(a->b, nc * sizeof *nb) : NULL;
        if (!nb)
            return ct_err_set(err, "out of memory for %zu communications", nc);
        a->b = nb;
        a->cap = nc;
    }
    a->s[a->n] = s;
    a->d[a->n] = d;
    a->b[a->n] = b;
    a->n++;
    return 0;
}

static void arcs_free(arcs *a)
{
    free(a->s);
    free(a->d);
    free(a->b);
    memset(a, 0, sizeof *a);
}

/* The task-level communications of a pattern (pattern.h's definitions). */
static int pattern_arcs(const ct_pattern *p, int32_t n, const ct_trace *tr, arcs *a, ct_err *err)
{
    double m = p->bytes;
    switch (p->kind) {
    case CT_PAT_RING:
        for (int32_t i = 0; n > 1 && i < n; i++)
            if (arcs_add(a, i, (i + 1) % n, m, err) < 0)
                return -1;
        return 0;
    case CT_PAT_HALVES:
        for (int32_t i = 0; i < n / 2; i++)
            if (arcs_add(a, i, i + n / 2, m, err) < 0 || arcs_add(a, i + n / 2, i, m, err) < 0)
                return -1;
        return 0;
    case CT_PAT_HALO2D:
    case CT_PAT_HALO3D:
    case CT_PAT_HALO2D_PHASED: /* the task graph of all phases together */
    case CT_PAT_HALO3D_PHASED: {
        int nd = ct_pattern_halo_dims(p->kind);
        int32_t dims[3] = {1, 1, 1};
        if (ct_grid_dims(n, nd, dims, err) < 0)
            return -1;
        int64_t stride[3];
        stride[nd - 1] = 1;
        for (int d = nd - 2; d >= 0; d--)
            stride[d] = stride[d + 1] * dims[d + 1];
        for (int64_t r = 0; r < n; r++)
            for (int d = 0; d < nd; d++) {
                int64_t c = (r / stride[d]) % dims[d];
                if (c > 0 && arcs_add(a, (int32_t)r, (int32_t)(r - stride[d]), m, err) < 0)
                    return -1;
                if (c + 1 < dims[d] && arcs_add(a, (int32_t)r, (int32_t)(r + stride[d]), m, err) < 0)
                    return -1;
            }
        return 0;
    }
    case CT_PAT_TRACE:
        for (size_t c = 0; c < tr->ncomm; c++) {
            const ct_event *e = ct_trace_comm_event(tr, c);
            if (arcs_add(a, tr->comm_src[c], e->peer, e->value, err) < 0)
                return -1;
        }
        return 0;
    default:
        return ct_err_set(err, "pattern %s has no task-level graph", ct_pattern_name(p->kind));
    }
}

static void tgraph_free(tgraph *g)
{
    free(g->off);
    free(g->peer);
    free(g->out);
    free(g->in);
    memset(g, 0, sizeof *g);
}

static int tgraph_build(const arcs *a, int32_t n, tgraph *g, ct_err *err)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    g->nent = 2 * (int64_t)a->n;
    g->off = calloc((size_t)n + 1, sizeof *g->off);
    size_t ne = g->nent ? (size_t)g->nent : 1;
    g->peer = malloc(ne * sizeof *g->peer);
    g->out = malloc(ne * sizeof *g->out);
    g->in = malloc(ne * sizeof *g->in);
    if (!g->off || !g->peer || !g->out || !g->in) {
        tgraph_free(g);
        return ct_err_set(err, "out of memory for a %d-task graph", (int)n);
    }
    for (size_t i = 0; i < a->n; i++)
        g->off[a->s[i] + 1]++, g->off[a->d[i] + 1]++;
    for (int32_t t = 0; t < n; t++)
        g->off[t + 1] += g->off[t];
    int64_t *pos = malloc((size_t)n * sizeof *pos);
    if (!pos) {
        tgraph_free(g);
        return ct_err_set(err, "out of memory for a %d-task graph", (int)n);
    }
    memcpy(pos, g->off, (size_t)n * sizeof *pos);
    for (size_t i = 0; i < a->n; i++) {
        int64_t k = pos[a->s[i]]++;
        g->peer[k] = a->d[i], g->out[k] = a->b[i], g->in[k] = 0;
        k = pos[a->d[i]]++;
        g->peer[k] = a->s[i], g->out[k] = 0, g->in[k] = a->b[i];
    }
    /* One entry per (task, peer): a recording repeats the same pair once per
     * message (thousands of times per iteration), and the refinement walks
     * peers of peers, which is quadratic in the entries per task. Summing the
     * bytes per peer keeps every load and cut the proxy computes. pos[] is
     * reused as "entry of peer x in the task being merged" (-1: none yet). */
    for (int32_t t = 0; t < n; t++)
        pos[t] = -1;
    int64_t w = 0;
    for (int32_t t = 0; t < n; t++) {
        int64_t lo = g->off[t], hi = g->off[t + 1];
        g->off[t] = w;
        int64_t first = w;
        for (int64_t k = lo; k < hi; k++) {
            int32_t x = g->peer[k];
            if (pos[x] >= first) {
                g->out[pos[x]] += g->out[k];
                g->in[pos[x]] += g->in[k];
                continue;
            }
            pos[x] = w;
            g->peer[w] = x, g->out[w] = g->out[k], g->in[w] = g->in[k];
            w++;
        }
    }
    g->off[n] = w;
    g->nent = w;
    free(pos);
    return 0;
}

/* ------------------------------------------------------------------ */
/* proxy: the busiest NIC when the whole pattern is in flight */

typedef struct pstate {
    const tgraph *g;
    int32_t nnodes;
    int32_t *node_of;
    double *out, *in; /* remote bytes per node */
    double maxload;
    int32_t nmax;
    double cut;       /* remote bytes in total */
    /* undo log of one tentative swap */
    int32_t *tn;
    double *to, *ti;
    int32_t ntouch, captouch;
    int32_t *stamp;
    int32_t stampv;
} pstate;

static double load_of(const pstate *s, int32_t k)
{
    return s->out[k] > s->in[k] ? s->out[k] : s->in[k];
}

static void pstate_rescan(pstate *s)
{
    s->maxload = 0;
    s->nmax = 0;
    for (int32_t k = 0; k < s->nnodes; k++) {
        double l = load_of(s, k);
        if (l > s->maxload)
            s->maxload = l, s->nmax = 1;
        else if (l == s->maxload)
            s->nmax++;
    }
}

static void pstate_free(pstate *s)
{
    free(s->node_of);
    free(s->out);
    free(s->in);
    free(s->tn);
    free(s->to);
    free(s->ti);
    free(s->stamp);
    memset(s, 0, sizeof *s);
}

static int pstate_init(pstate *s, const tgraph *g, int32_t nnodes, const int32_t *node_of,
                       ct_err *err)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->nnodes = nnodes;
    s->node_of = malloc((size_t)(g->n ? g->n : 1) * sizeof *s->node_of);
    s->out = calloc((size_t)nnodes, sizeof *s->out);
    s->in = calloc((size_t)nnodes, sizeof *s->in);
    s->stamp = calloc((size_t)nnodes, sizeof *s->stamp);
    if (!s->node_of || !s->out || !s->in || !s->stamp) {
        pstate_free(s);
        return ct_err_set(err, "out of memory for %d nodes", (int)nnodes);
    }
    memcpy(s->node_of, node_of, (size_t)g->n * sizeof *node_of);
    for (int32_t u = 0; u < g->n; u++)
        for (int64_t k = g->off[u]; k < g->off[u + 1]; k++)
            if (node_of[g->peer[k]] != node_of[u]) {
                s->out[node_of[u]] += g->out[k];
                s->in[node_of[u]] += g->in[k];
                s->cut += g->out[k];
            }
    pstate_rescan(s);
    return 0;
}

static int touch(pstate *s, int32_t k)
{
    if (s->stamp[k] == s->stampv)
        return 0;
    s->stamp[k] = s->stampv;
    if (s->ntouch == s->captouch) {
        int32_t nc = s->captouch ? 2 * s->captouch : 64;
        int32_t *a = realloc(s->tn, (size_t)nc * sizeof *a);
        if (a)
            s->tn = a;
        double *b = a ? realloc(s->to, (size_t)nc * sizeof *b) : NULL;
        if (b)
            s->to = b;
        double *c = b ? realloc(s->ti, (size_t)nc * sizeof *c) : NULL;
        if (!c)
            return -1;
        s->ti = c;
        s->captouch = nc;
    }
    s->tn[s->ntouch] = k;
    s->to[s->ntouch] = s->out[k];
    s->ti[s->ntouch] = s->in[k];
    s->ntouch++;
    return 0;
}

/* traffic of task u's entries with node assignment `at` (u on `nu`),
 * added with sign sg; entries to `skip` are left out */
static int apply_task(pstate *s, int32_t u, int32_t nu, int32_t skip, int32_t other, int32_t onode,
                      double sg, uint64_t *work)
{
    const tgraph *g = s->g;
    for (int64_t k = g->off[u]; k < g->off[u + 1]; k++) {
        int32_t x = g->peer[k];
        if (x == skip)
            continue;
        int32_t nx = x == other ? onode : s->node_of[x];
        if (nx == nu)
            continue;
        if (touch(s, nu) < 0 || touch(s, nx) < 0)
            return -1;
        s->out[nu] += sg * g->out[k];
        s->in[nu] += sg * g->in[k];
        s->in[nx] += sg * g->out[k];
        s->out[nx] += sg * g->in[k];
        s->cut += sg * (g->out[k] + g->in[k]);
    }
    *work += (uint64_t)(g->off[u + 1] - g->off[u]);
    return 0;
}

/* Objective after tentatively swapping u and v (the state is changed;
 * pstate_undo restores it). Returns -1 on out of memory. */
static int try_swap(pstate *s, int32_t u, int32_t v, double *nmaxload, int32_t *nnmax,
                    double *ncut, uint64_t *work)
{
    int32_t a = s->node_of[u], b = s->node_of[v];
    s->ntouch = 0;
    if (++s->stampv == INT32_MAX) {
        memset(s->stamp, 0, (size_t)s->nnodes * sizeof *s->stamp);
        s->stampv = 1;
    }
    /* remove u's and v's traffic (the u-v communications once), add it back
     * with u on b and v on a */
    if (apply_task(s, u, a, -1, -1, -1, -1.0, work) < 0 ||
        apply_task(s, v, b, u, -1, -1, -1.0, work) < 0 ||
        apply_task(s, u, b, -1, v, a, 1.0, work) < 0 || apply_task(s, v, a, u, -1, -1, 1.0, work) < 0)
        return -1;
    int32_t old_at_max = 0, tmaxn = 0;
    double tmax = -1;
    for (int32_t i = 0; i < s->ntouch; i++) {
        int32_t k = s->tn[i];
        double lo = s->to[i] > s->ti[i] ? s->to[i] : s->ti[i];
        if (lo == s->maxload)
            old_at_max++;
        double ln = load_of(s, k);
        if (ln > tmax)
            tmax = ln, tmaxn = 1;
        else if (ln == tmax)
            tmaxn++;
    }
    int32_t untouched = s->nmax - old_at_max;
    if (untouched > 0) {
        if (tmax > s->maxload)
            *nmaxload = tmax, *nnmax = tmaxn;
        else if (tmax == s->maxload)
            *nmaxload = tmax, *nnmax = untouched + tmaxn;
        else
            *nmaxload = s->maxload, *nnmax = untouched;
    } else if (tmax >= s->maxload) {
        *nmaxload = tmax, *nnmax = tmaxn;
    } else { /* every node at the maximum came down: look at all of them */
        double m = 0;
        int32_t c = 0;
        for (int32_t k = 0; k < s->nnodes; k++) {
            double l = load_of(s, k);
            if (l > m)
                m = l, c = 1;
            else if (l == m)
                c++;
        }
        *nmaxload = m, *nnmax = c;
        *work += (uint64_t)s->nnodes;
    }
    *ncut = s->cut;
    return 0;
}

static void undo_swap(pstate *s, double cut0)
{
    for (int32_t i = 0; i < s->ntouch; i++) {
        s->out[s->tn[i]] = s->to[i];
        s->in[s->tn[i]] = s->ti[i];
    }
    s->cut = cut0;
}

static int better(double m1, int32_t n1, double c1, double m0, int32_t n0, double c0)
{
    /* relative slack: the running sums drift by rounding */
    double eps = 1e-9 * (m0 > 1 ? m0 : 1), ceps = 1e-9 * (c0 > 1 ? c0 : 1);
    if (m1 < m0 - eps)
        return 1;
    if (m1 > m0 + eps)
        return 0;
    if (n1 != n0)
        return n1 < n0;
    return c1 < c0 - ceps;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Swaps of two tasks on different nodes, first improvement, tasks visited
 * in a seeded order. Partners of u: for each neighbour x of u on another
 * node B, x and x's neighbours on B (tasks on B's border facing u). */
static int refine(pstate *s, uint64_t seed, int32_t max_passes, uint64_t budget, int32_t *swaps,
                  uint64_t *spent, ct_err *err)
{
    const tgraph *g = s->g;
    int32_t n = g->n;
    int32_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    if (!order)
        return ct_err_set(err, "out of memory for %d tasks", (int)n);
    for (int32_t i = 0; i < n; i++)
        order[i] = i;
    uint64_t rng = seed, work = 0;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)(splitmix(&rng) % (uint64_t)(i + 1));
        int32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int rc = 0;
    for (int32_t pass = 0; pass < max_passes && work < budget && rc == 0; pass++) {
        int32_t accepted = 0;
        for (int32_t oi = 0; oi < n && work < budget && rc == 0; oi++) {
            int32_t u = order[oi];
            int32_t a = s->node_of[u];
            int done = 0;
            for (int64_t k = g->off[u]; k < g->off[u + 1] && !done && rc == 0; k++) {
                int32_t x = g->peer[k];
                int32_t b = s->node_of[x];
                if (b == a)
                    continue;
                for (int64_t q = g->off[x] - 1; q < g->off[x + 1] && !done; q++) {
                    work++; /* candidates looked at count, not only swaps tried */
                    int32_t v = q < g->off[x] ? x : g->peer[q];
                    if (v == u || s->node_of[v] != b)
                        continue;
                    double m, c, cut0 = s->cut;
                    int32_t nm;
                    if (try_swap(s, u, v, &m, &nm, &c, &work) < 0) {
                        rc = ct_err_set(err, "out of memory in the placement refinement");
                        break;
                    }
                    if (better(m, nm, c, s->maxload, s->nmax, cut0)) {
                        s->node_of[u] = b;
                        s->node_of[v] = a;
                        s->maxload = m;
                        s->nmax = nm;
                        accepted++;
                        done = 1;
                    } else {
                        undo_swap(s, cut0);
                    }
                }
            }
        }
        *swaps += accepted;
        if (!accepted)
            break;
        pstate_rescan(s); /* drop rounding drift of the running maxima */
        work += (uint64_t)s->nnodes;
    }
    free(order);
    *spent += work;
    return rc;
}

/* ------------------------------------------------------------------ */
/* starts */

/* Move tasks from nodes above their count to nodes below it, best
 * connectivity gain first, until every node holds exactly want[k]. */
static int repair(const tgraph *g, int32_t nnodes, const int32_t *want, int32_t *node_of,
                  ct_err *err)
{
    int32_t n = g->n;
    int32_t *have = calloc((size_t)nnodes, sizeof *have);
    double *conn = calloc((size_t)nnodes, sizeof *conn);
    int32_t *cand_t = malloc((size_t)(n ? n : 1) * sizeof *cand_t);
    int32_t *cand_b = malloc((size_t)(n ? n : 1) * sizeof *cand_b);
    double *cand_g = malloc((size_t)(n ? n : 1) * sizeof *cand_g);
    int32_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    int rc = 0;
    if (!have || !conn || !cand_t || !cand_b || !cand_g || !idx) {
        rc = ct_err_set(err, "out of memory repairing a %d-task placement", (int)n);
        goto out;
    }
    for (int32_t u = 0; u < n; u++)
        have[node_of[u]]++;
    int32_t under_cursor = 0;
    for (;;) {
        int32_t nc = 0;
        for (int32_t u = 0; u < n; u++) {
            int32_t a = node_of[u];
            if (have[a] <= want[a])
                continue;
            int32_t best = -1;
            double bg = 0;
            for (int64_t k = g->off[u]; k < g->off[u + 1]; k++)
                conn[node_of[g->peer[k]]] += g->out[k] + g->in[k];
            for (int64_t k = g->off[u]; k < g->off[u + 1]; k++) {
                int32_t b = node_of[g->peer[k]];
                if (b != a && have[b] < want[b] && (best < 0 || conn[b] > bg ||
                                                    (conn[b] == bg && b < best)))
                    best = b, bg = conn[b];
            }
            double ca = conn[a];
            for (int64_t k = g->off[u]; k < g->off[u + 1]; k++)
                conn[node_of[g->peer[k]]] = 0;
            if (best < 0) { /* no under-full neighbour node: the next under-full node */
                for (int32_t t = 0; t < nnodes && best < 0; t++) {
                    int32_t b = (under_cursor + t) % nnodes;
                    if (have[b] < want[b])
                        best = b;
                }
                bg = 0;
            }
            if (best < 0)
                continue;
            cand_t[nc] = u, cand_b[nc] = best, cand_g[nc] = bg - ca;
            idx[nc] = nc;
            nc++;
        }
        if (nc == 0)
            break;
        /* best gain first, ties by task number (deterministic): shell sort */
        int32_t gap;
        for (gap = 1; gap < nc / 3; gap = 3 * gap + 1)
            ;
        for (; gap > 0; gap /= 3)
            for (int32_t i = gap; i < nc; i++) {
                int32_t x = idx[i], j = i;
                while (j >= gap && (cand_g[idx[j - gap]] < cand_g[x] ||
                                    (cand_g[idx[j - gap]] == cand_g[x] && idx[j - gap] > x))) {
                    idx[j] = idx[j - gap];
                    j -= gap;
                }
                idx[j] = x;
            }
        int32_t moved = 0;
        for (int32_t i = 0; i < nc; i++) {
            int32_t c = idx[i], u = cand_t[c], a = node_of[u], b = cand_b[c];
            if (have[a] > want[a] && have[b] < want[b]) {
                node_of[u] = b;
                have[a]--, have[b]++;
                moved++;
            }
        }
        under_cursor = (under_cursor + 1) % nnodes;
        if (!moved) {
            rc = ct_err_set(err, "placement repair made no progress (internal error)");
            break;
        }
    }
out:
    free(have);
    free(conn);
    free(cand_t);
    free(cand_b);
    free(cand_g);
    free(idx);
    return rc;
}

/* Stable counting sort of t[0..m) by coordinate d of the process grid
 * (coord[t * 3 + d]: the task's coordinates, computed once). */
static int sort_by_dim(int32_t *t, int32_t m, int d, const int32_t *dims, const int32_t *coord,
                       int32_t *tmp, ct_err *err)
{
    int64_t *cnt = calloc((size_t)dims[d] + 1, sizeof *cnt);
    if (!cnt)
        return ct_err_set(err, "out of memory for a %d-wide grid", (int)dims[d]);
    for (int32_t i = 0; i < m; i++)
        cnt[coord[(int64_t)t[i] * 3 + d] + 1]++;
    for (int32_t c = 0; c < dims[d]; c++)
        cnt[c + 1] += cnt[c];
    for (int32_t i = 0; i < m; i++)
        tmp[cnt[coord[(int64_t)t[i] * 3 + d]]++] = t[i];
    memcpy(t, tmp, (size_t)m * sizeof *t);
    free(cnt);
    return 0;
}

/* Recursive coordinate bisection of the process grid: the nodes are halved,
 * the tasks split along their widest dimension at exactly the first half's
 * task count (our own start for halo patterns). */
static int rcb(int32_t *t, int32_t m, const int32_t *nodes, int32_t nn, const int32_t *want,
               int nd, const int32_t *dims, const int32_t *coord, int32_t *tmp, int32_t *node_of,
               uint64_t *work, ct_err *err)
{
    if (nn == 1) {
        for (int32_t i = 0; i < m; i++)
            node_of[t[i]] = nodes[0];
        *work += (uint64_t)m;
        return 0;
    }
    int32_t h = nn / 2, left = 0;
    for (int32_t i = 0; i < h; i++)
        left += want[nodes[i]];
    int best = 0;
    int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {-1, -1, -1};
    for (int32_t i = 0; i < m; i++) {
        const int32_t *c = coord + (int64_t)t[i] * 3;
        for (int d = 0; d < nd; d++) {
            lo[d] = c[d] < lo[d] ? c[d] : lo[d];
            hi[d] = c[d] > hi[d] ? c[d] : hi[d];
        }
    }
    for (int d = 1; d < nd; d++)
        if (hi[d] - lo[d] > hi[best] - lo[best])
            best = d;
    /* already in order along `best` when the previous split was along it */
    int sorted = 1;
    for (int32_t i = 1; i < m && sorted; i++)
        sorted = coord[(int64_t)t[i - 1] * 3 + best] <= coord[(int64_t)t[i] * 3 + best];
    *work += 3 * (uint64_t)m;
    if (!sorted && sort_by_dim(t, m, best, dims, coord, tmp, err) < 0)
        return -1;
    if (rcb(t, left, nodes, h, want, nd, dims, coord, tmp, node_of, work, err) < 0)
        return -1;
    return rcb(t + left, m - left, nodes + h, nn - h, want, nd, dims, coord, tmp, node_of, work,
               err);
}

static int start_tiles(const ct_pattern *p, int32_t n, int32_t nnodes, const int32_t *want,
                       int32_t *node_of, uint64_t *work, ct_err *err)
{
    int nd = ct_pattern_halo_dims(p->kind);
    int32_t dims[3] = {1, 1, 1};
    if (ct_grid_dims(n, nd, dims, err) < 0)
        return -1;
    int64_t stride[3];
    stride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--)
        stride[d] = stride[d + 1] * dims[d + 1];
    int32_t *t = malloc((size_t)n * sizeof *t), *tmp = malloc((size_t)n * sizeof *tmp);
    int32_t *nodes = malloc((size_t)nnodes * sizeof *nodes);
    int32_t *coord = malloc((size_t)n * 3 * sizeof *coord);
    int rc = 0;
    if (!t || !tmp || !nodes || !coord) {
        rc = ct_err_set(err, "out of memory for %d tasks", (int)n);
        goto out;
    }
    int32_t nn = 0;
    for (int32_t k = 0; k < nnodes; k++)
        if (want[k] > 0)
            nodes[nn++] = k;
    for (int32_t i = 0; i < n; i++) {
        t[i] = i;
        for (int d = 0; d < 3; d++)
            coord[(int64_t)i * 3 + d] = d < nd ? (int32_t)((i / stride[d]) % dims[d]) : 0;
    }
    rc = rcb(t, n, nodes, nn, want, nd, dims, coord, tmp, node_of, work, err);
out:
    free(t);
    free(tmp);
    free(nodes);
    free(coord);
    return rc;
}

/* Scotch: map the task graph (consecutive ranks grouped into at most
 * CT_PLACE_SCOTCH_MAX_VERTICES vertices) onto a complete graph whose
 * vertex weights are the per-node counts, then repair to exact counts. */
static int start_scotch(const tgraph *g, const arcs *a, int32_t nnodes, const int32_t *want,
                        uint64_t seed, int32_t *node_of, ct_err *err)
{
    int32_t n = g->n;
    int32_t grp = (n + CT_PLACE_SCOTCH_MAX_VERTICES - 1) / CT_PLACE_SCOTCH_MAX_VERTICES;
    int32_t nv = (n + grp - 1) / grp;
    int32_t nparts = 0;
    int rc = 0;
    for (int32_t k = 0; k < nnodes; k++)
        nparts += want[k] > 0;
    SCOTCH_Num *vert = calloc((size_t)nv + 1, sizeof *vert);
    SCOTCH_Num *velo = malloc((size_t)nv * sizeof *velo);
    SCOTCH_Num *part = malloc((size_t)nv * sizeof *part);
    SCOTCH_Num *pw = malloc((size_t)nparts * sizeof *pw);
    int32_t *pnode = malloc((size_t)nparts * sizeof *pnode);
    size_t ne = a->n ? 2 * a->n : 1;
    int32_t *es = malloc(ne * sizeof *es), *ed = malloc(ne * sizeof *ed);
    int32_t *es2 = malloc(ne * sizeof *es2), *ed2 = malloc(ne * sizeof *ed2);
    double *eb = malloc(ne * sizeof *eb), *eb2 = malloc(ne * sizeof *eb2);
    SCOTCH_Num *edge = malloc(ne * sizeof *edge), *edlo = malloc(ne * sizeof *edlo);
    int64_t *cnt = calloc((size_t)nv + 1, sizeof *cnt);
    if (!vert || !velo || !part || !pw || !pnode || !es || !ed || !es2 || !ed2 || !eb || !eb2 ||
        !edge || !edlo || !cnt) {
        rc = ct_err_set(err, "out of memory for Scotch's %d-vertex graph", (int)nv);
        goto out;
    }
    for (int32_t k = 0, p = 0; k < nnodes; k++)
        if (want[k] > 0)
            pw[p] = want[k], pnode[p++] = k;
    for (int32_t v = 0; v < nv; v++)
        velo[v] = (v + 1) * grp <= n ? grp : n - v * grp;
    /* both directions of every communication between two groups, sorted by
     * (group, peer group) with two stable counting sorts, then merged */
    size_t m = 0;
    double bmin = INFINITY;
    for (size_t i = 0; i < a->n; i++) {
        int32_t gs = a->s[i] / grp, gd = a->d[i] / grp;
        if (gs == gd)
            continue;
        es[m] = gs, ed[m] = gd, eb[m++] = a->b[i];
        es[m] = gd, ed[m] = gs, eb[m++] = a->b[i];
        if (a->b[i] > 0 && a->b[i] < bmin)
            bmin = a->b[i];
    }
    for (int pass = 0; pass < 2; pass++) {
        int32_t *key = pass == 0 ? ed : es;
        memset(cnt, 0, ((size_t)nv + 1) * sizeof *cnt);
        for (size_t i = 0; i < m; i++)
            cnt[key[i] + 1]++;
        for (int32_t v = 0; v < nv; v++)
            cnt[v + 1] += cnt[v];
        for (size_t i = 0; i < m; i++) {
            int64_t k = cnt[key[i]]++;
            es2[k] = es[i], ed2[k] = ed[i], eb2[k] = eb[i];
        }
        memcpy(es, es2, m * sizeof *es);
        memcpy(ed, ed2, m * sizeof *ed);
        memcpy(eb, eb2, m * sizeof *eb);
    }
    if (!isfinite(bmin))
        bmin = 1;
    SCOTCH_Num ecount = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        double sum = 0;
        while (j < m && es[j] == es[i] && ed[j] == ed[i])
            sum += eb[j++];
        vert[es[i] + 1]++;
        edge[ecount] = ed[i];
        double w = sum / bmin; /* in units of the smallest message, capped */
        edlo[ecount++] = w < 1 ? 1 : w > 1e6 ? 1000000 : (SCOTCH_Num)llround(w);
        i = j;
    }
    for (int32_t v = 0; v < nv; v++)
        vert[v + 1] += vert[v];

    SCOTCH_Context ctx;
    SCOTCH_Graph sg, bg;
    SCOTCH_Arch arch;
    SCOTCH_Strat strat;
    int have_ctx = 0, have_g = 0, have_bg = 0, have_arch = 0, have_strat = 0;
    if (SCOTCH_contextInit(&ctx) != 0) {
        rc = ct_err_set(err, "Scotch: context initialisation failed");
        goto scotch_out;
    }
    have_ctx = 1;
    /* one thread, a fixed seed: the same mapping every time */
    SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
    SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1);
    if (SCOTCH_contextRandomClone(&ctx) != 0) {
        rc = ct_err_set(err, "Scotch: random state initialisation failed");
        goto scotch_out;
    }
    SCOTCH_contextRandomSeed(&ctx, (SCOTCH_Num)(seed & 0x7fffffff));
    /* the calling thread only: no helper threads inside srun (and none to
     * wait for on a loaded host) */
    if (SCOTCH_contextThreadSpawn(&ctx, 1, NULL) != 0) {
        rc = ct_err_set(err, "Scotch: single-thread context refused");
        goto scotch_out;
    }
    if (SCOTCH_graphInit(&sg) != 0) {
        rc = ct_err_set(err, "Scotch: graph initialisation failed");
        goto scotch_out;
    }
    have_g = 1;
    if (SCOTCH_graphBuild(&sg, 0, nv, vert, vert + 1, velo, NULL, ecount, edge, edlo) != 0) {
        rc = ct_err_set(err, "Scotch: graph of %d vertices and %d arcs refused", (int)nv,
                        (int)ecount);
        goto scotch_out;
    }
    if (SCOTCH_graphInit(&bg) != 0 || (have_bg = 1, SCOTCH_contextBindGraph(&ctx, &sg, &bg)) != 0) {
        rc = ct_err_set(err, "Scotch: binding the graph to its context failed");
        goto scotch_out;
    }
    if (SCOTCH_archInit(&arch) != 0 || (have_arch = 1, SCOTCH_archCmpltw(&arch, nparts, pw)) != 0) {
        rc = ct_err_set(err, "Scotch: weighted complete graph of %d nodes refused", (int)nparts);
        goto scotch_out;
    }
    if (SCOTCH_stratInit(&strat) != 0 ||
        (have_strat = 1, SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATSPEED, nparts, 0.05)) != 0) {
        rc = ct_err_set(err, "Scotch: mapping strategy refused");
        goto scotch_out;
    }
    if (SCOTCH_graphMap(&bg, &arch, &strat, part) != 0) {
        rc = ct_err_set(err, "Scotch: mapping %d vertices onto %d nodes failed", (int)nv,
                        (int)nparts);
        goto scotch_out;
    }
    for (int32_t u = 0; u < n; u++) {
        SCOTCH_Num p = part[u / grp];
        node_of[u] = p >= 0 && p < nparts ? pnode[p] : pnode[0];
    }
scotch_out:
    if (have_strat)
        SCOTCH_stratExit(&strat);
    if (have_arch)
        SCOTCH_archExit(&arch);
    if (have_bg)
        SCOTCH_graphExit(&bg);
    if (have_g)
        SCOTCH_graphExit(&sg);
    if (have_ctx)
        SCOTCH_contextExit(&ctx);
    if (rc == 0)
        rc = repair(g, nnodes, want, node_of, err);
out:
    free(vert);
    free(velo);
    free(part);
    free(pw);
    free(pnode);
    free(es);
    free(ed);
    free(es2);
    free(ed2);
    free(eb);
    free(eb2);
    free(edge);
    free(edlo);
    free(cnt);
    return rc;
}

/* full model: the scorer's evaluation of explicit layouts */

static uint64_t progressive_work(const ct_graph *g, int32_t *no, int32_t *ni)
{
    memset(no, 0, (size_t)g->nnodes * sizeof *no);
    memset(ni, 0, (size_t)g->nnodes * sizeof *ni);
    uint64_t w = 0;
    for (size_t i = 0; i < g->ncomm; i++)
        no[g->comm[i].src]++, ni[g->comm[i].dst]++;
    for (size_t i = 0; i < g->ncomm; i++)
        w += (uint64_t)no[g->comm[i].src] + (uint64_t)ni[g->comm[i].dst];
    return w;
}

/* Time k node-level graphs (itime: their intra-node times) with one
 * evaluation method for all, as the scorer compares its candidates, and
 * the scorer's pricing of a phase (phase_time.h: the exchange step, the
 * long-exchange term and the refill after pause, s, < 0 unknown, included).
 * *method: -1 = choose (progressive while every graph is within the
 * scorer's bounds, first-instant penalties otherwise; the choice is written
 * back), 0 = first-instant, 1 = progressive. Returns 1 when method 1 was
 * imposed but a graph is past the bounds (nothing timed). */
static int time_graphs(const ct_fabric *f, const ct_graph *g, const double *itime, int k,
                       double pause, double *pred, int *method, ct_err *err)
{
    int rc = 0;
    size_t maxarcs = 0;
    int32_t nn = g[0].nnodes;
    for (int i = 0; i < k; i++)
        maxarcs = g[i].ncomm > maxarcs ? g[i].ncomm : maxarcs;
    int32_t *no = malloc((size_t)nn * sizeof *no), *ni = malloc((size_t)nn * sizeof *ni);
    if (!no || !ni) {
        rc = ct_err_set(err, "out of memory for %d nodes", (int)nn);
        goto out;
    }
    /* models with incremental hooks (contention/models.h) scale with work */
    const ct_model_info *minfo = ct_model_info_of(f->penalty.kind);
    int incremental = minfo && minfo->incremental;
    int fits = incremental || maxarcs <= EVAL_MAX_ARCS;
    for (int i = 0; i < k && fits && incremental; i++)
        if (progressive_work(&g[i], no, ni) > EVAL_MAX_WORK)
            fits = 0;
    int prog = *method < 0 ? fits : *method;
    if (prog && !fits) {
        rc = 1;
        goto out;
    }
    for (int i = 0; i < k && rc == 0; i++) {
        double unc;
        int r = ct_phase_time(f, &g[i], itime[i], prog, f->penalty.tree, pause, &pred[i], &unc,
                              err);
        if (r == 1) {
            if (*method >= 0) { /* imposed: the caller starts over */
                rc = 1;
                break;
            }
            prog = 0; /* past the bound: every graph with first-instant penalties */
            i = -1;
            continue;
        }
        if (r < 0)
            rc = -1;
    }
    if (rc == 0)
        *method = prog;
out:
    free(no);
    free(ni);
    return rc;
}

static int cmp_double(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return x < y ? -1 : x > y;
}

/* The node-level graph of task arcs under node_of, arcs in the order
 * pattern.c gives them (by source node, destination node, then size) so
 * that the progressive engine sees the same graph as the scorer's. */
static int node_graph(const arcs *a, const int32_t *node_of, int32_t nnodes, ct_graph *g,
                      double *itime, const ct_fabric *f, ct_err *err)
{
    if (ct_graph_init(g, nnodes, err) < 0)
        return -1;
    size_t m = 0;
    int rc = 0;
    double *intra = calloc((size_t)nnodes, sizeof *intra);
    int32_t *s1 = malloc((a->n ? a->n : 1) * sizeof *s1), *d1 = malloc((a->n ? a->n : 1) * sizeof *d1);
    int32_t *s2 = malloc((a->n ? a->n : 1) * sizeof *s2), *d2 = malloc((a->n ? a->n : 1) * sizeof *d2);
    double *b1 = malloc((a->n ? a->n : 1) * sizeof *b1), *b2 = malloc((a->n ? a->n : 1) * sizeof *b2);
    size_t *cnt = calloc((size_t)nnodes + 1, sizeof *cnt);
    if (!intra || !s1 || !d1 || !s2 || !d2 || !b1 || !b2 || !cnt) {
        rc = ct_err_set(err, "out of memory for %zu communications", a->n);
        goto out;
    }
    for (size_t i = 0; i < a->n; i++) {
        int32_t s = node_of[a->s[i]], d = node_of[a->d[i]];
        if (s == d)
            intra[s] += a->b[i];
        else
            s1[m] = s, d1[m] = d, b1[m++] = a->b[i];
    }
    for (int pass = 0; pass < 2; pass++) { /* LSD: by destination, then by source */
        const int32_t *key = pass == 0 ? d1 : s1;
        memset(cnt, 0, ((size_t)nnodes + 1) * sizeof *cnt);
        for (size_t i = 0; i < m; i++)
            cnt[key[i] + 1]++;
        for (int32_t k = 0; k < nnodes; k++)
            cnt[k + 1] += cnt[k];
        for (size_t i = 0; i < m; i++) {
            size_t j = cnt[key[i]]++;
            s2[j] = s1[i], d2[j] = d1[i], b2[j] = b1[i];
        }
        memcpy(s1, s2, m * sizeof *s1);
        memcpy(d1, d2, m * sizeof *d1);
        memcpy(b1, b2, m * sizeof *b1);
    }
    for (size_t i = 0; i < m && rc == 0;) {
        size_t j = i + 1;
        int mixed = 0;
        while (j < m && s1[j] == s1[i] && d1[j] == d1[i])
            mixed |= b1[j] != b1[i], j++;
        if (mixed)
            qsort(b1 + i, j - i, sizeof *b1, cmp_double);
        for (size_t q = i; q < j && rc == 0;) {
            size_t r = q;
            while (r < j && b1[r] == b1[q])
                r++;
            rc = ct_graph_add(g, s1[i], d1[i], (int64_t)(r - q), b1[q], err);
            q = r;
        }
        i = j;
    }
    *itime = intra_node_time(intra, nnodes, f);
out:
    free(intra);
    free(s1);
    free(d1);
    free(s2);
    free(d2);
    free(b1);
    free(b2);
    free(cnt);
    if (rc < 0)
        ct_graph_free(g);
    return rc;
}

/* Predicted times of k layouts of a point-to-point pattern, or of a trace
 * (replayed by the simulator, as the scorer does). */
static int eval_layouts(const ct_fabric *f, const ct_pattern *p, const ct_trace *tr,
                        const ct_layout *const *ls, int k, double *pred, int *method, ct_err *err)
{
    int rc = 0;
    if (p->kind == CT_PAT_TRACE) {
        ct_sim_params sp;
        ct_sim_params_from_fabric(f, &sp);
        sp.keep_comms = 0;
        for (int i = 0; i < k && rc == 0; i++) {
            ct_sim_result r;
            if ((rc = ct_simulate(tr, ls[i], &sp, &r, err)) == 0) {
                pred[i] = r.makespan;
                ct_sim_result_free(&r);
            }
        }
        return rc;
    }
    /* a phased halo: its phases in sequence, each timed on its own graph */
    int32_t nn = ls[0]->nnodes;
    int nph = ct_pattern_nphases(p);
    ct_graph *g = calloc((size_t)k, sizeof *g);
    double *intra = malloc((size_t)nn * sizeof *intra);
    double *itime = malloc((size_t)k * sizeof *itime);
    double *phase_s = malloc((size_t)k * sizeof *phase_s);
    int built = 0;
    if (!g || !intra || !itime || !phase_s) {
        rc = ct_err_set(err, "out of memory for %d nodes", (int)nn);
        goto out;
    }
    for (int i = 0; i < k; i++)
        pred[i] = 0;
    for (int ph = 0; ph < nph && rc == 0; ph++) {
        for (int i = 0; i < k && rc == 0; i++)
            if ((rc = ct_pattern_graph_phase(p, nph > 1 ? ph : -1, ls[i], &g[i], intra, err)) ==
                0) {
                built++;
                itime[i] = intra_node_time(intra, nn, f);
            }
        /* the phases of a phased halo after its first follow without a pause */
        double pause = !p->has_pause ? -1 : ph == 0 ? p->pause : 0;
        if (rc == 0)
            rc = time_graphs(f, g, itime, k, pause, phase_s, method, err);
        for (int i = 0; i < k && rc == 0; i++)
            pred[i] += phase_s[i];
        for (int i = 0; i < built; i++)
            ct_graph_free(&g[i]);
        built = 0;
    }
out:
    for (int i = 0; i < built; i++)
        ct_graph_free(&g[i]);
    free(g);
    free(intra);
    free(itime);
    free(phase_s);
    return rc;
}

int ct_place_predict(const ct_fabric *fabric, const ct_pattern *p, const ct_layout *l,
                     double *predicted_s, ct_err *err)
{
    if (!fabric || !p || !l || !predicted_s)
        return ct_err_set(err, "ct_place_predict: NULL argument");
    if (p->kind == CT_PAT_ALLTOALL)
        return ct_err_set(err, "ct_place_predict: alltoall is timed by ct_score");
    ct_trace tr;
    int have = 0, method = -1;
    if (p->kind == CT_PAT_TRACE) {
        ct_coll_params cp; /* collectives expanded as the scorer does */
        ct_coll_params_from_fabric(fabric, &cp);
        if (ct_trace_load_expanded(p->trace, &cp, &tr, NULL, err) < 0)
            return -1;
        have = 1;
        if (tr.ntasks != l->ntasks) {
            ct_trace_free(&tr);
            return ct_err_set(err, "%s: trace has %d tasks but the job runs %d (they must match)",
                              p->trace, (int)tr.ntasks, (int)l->ntasks);
        }
    }
    const ct_layout *ls[1] = {l};
    int rc = eval_layouts(fabric, p, have ? &tr : NULL, ls, 1, predicted_s, &method, err);
    if (have)
        ct_trace_free(&tr);
    return rc;
}

/* ------------------------------------------------------------------ */

int ct_place_beats(int explicit_layout, double predicted_s, double scorer_best_s)
{
    return explicit_layout && predicted_s >= 0 && predicted_s < scorer_best_s;
}

void ct_place_result_free(ct_place_result *r)
{
    if (r)
        ct_layout_free(&r->layout);
}

static void note_add(ct_place_result *out, const char *s)
{
    size_t len = strlen(out->note);
    snprintf(out->note + len, sizeof out->note - len, "%s%s", len ? "; " : "", s);
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t remote_of(const tgraph *g, const int32_t *node_of)
{
    int64_t r = 0;
    for (int32_t u = 0; u < g->n; u++)
        for (int64_t k = g->off[u]; k < g->off[u + 1]; k++)
            r += g->out[k] > 0 && node_of[g->peer[k]] != node_of[u];
    return r;
}

/* Block (cyclic = 0) or cyclic (cyclic = 1) over the switch-ordered nodes:
 * nodes visited in the tree's depth-first order (ct_tree_map_switch_order);
 * block gives node k want[k] consecutive ranks, cyclic deals ranks to the
 * nodes in that order round-robin, skipping a node once it holds want[k]
 * (each node keeps block's count, as every start of the search does).
 * 1 = written to node_of, 0 = the order is the allocation's own (the start
 * would be Slurm's block or cyclic over the same counts), -1 = error. */
static int switch_start(const ct_tree_map *tree, int32_t nnodes, int32_t n, const int32_t *want,
                        int cyclic, int32_t *node_of, ct_err *err)
{
    int32_t *perm = malloc((size_t)nnodes * sizeof *perm);
    int32_t *have = calloc((size_t)nnodes, sizeof *have);
    if (!perm || !have) {
        free(perm);
        free(have);
        return ct_err_set(err, "out of memory for %d nodes", (int)nnodes);
    }
    if (ct_tree_map_switch_order(tree, perm, err) < 0) {
        free(perm);
        free(have);
        return -1;
    }
    int same = 1;
    for (int32_t k = 0; k < nnodes; k++)
        same &= perm[k] == k;
    int32_t t = 0;
    if (!same && !cyclic)
        for (int32_t k = 0; k < nnodes; k++)
            for (int32_t c = 0; c < want[perm[k]] && t < n; c++)
                node_of[t++] = perm[k];
    while (!same && cyclic && t < n) {
        int32_t placed = 0;
        for (int32_t k = 0; k < nnodes && t < n; k++)
            if (have[perm[k]] < want[perm[k]]) {
                node_of[t++] = perm[k];
                have[perm[k]]++;
                placed++;
            }
        if (!placed) /* the counts hold fewer than n tasks: not a start */
            break;
    }
    free(perm);
    free(have);
    if (!same && t < n)
        return ct_err_set(err, "switch-ordered start: %d tasks but the nodes hold %d",
                          (int)n, (int)t);
    return same ? 0 : 1;
}

#define NCAND 7 /* block, cyclic, switch, switch-cyclic, tiles, scotch, refined */

int ct_place_search(const ct_fabric *fabric, const ct_place_request *req, ct_place_result *out,
                    ct_err *err)
{
    if (!out)
        return ct_err_set(err, "ct_place_search: NULL result");
    memset(out, 0, sizeof *out);
    if (!fabric)
        return ct_err_set(err, "no fabric to place on");
    if (!req || !req->alloc || req->alloc->nnodes < 1 || !req->alloc->cpus)
        return ct_err_set(err, "no allocation to place on (empty node list)");
    const ct_pattern *p = &req->pattern;
    if (!isfinite(p->bytes) || p->bytes < 0)
        return ct_err_set(err, "message size %g bytes (accepted: finite, >= 0)", p->bytes);
    if (!isfinite(fabric->alpha) || fabric->alpha < 0 || !isfinite(fabric->beta) ||
        fabric->beta < 0)
        return ct_err_set(err, "fabric '%s': alpha %g s, beta %g s/byte (accepted: finite, >= 0)",
                          fabric->name, fabric->alpha, fabric->beta);
    if (req->tree && req->tree->nnodes != req->alloc->nnodes)
        return ct_err_set(err,
                          "switch tree over %d nodes for an allocation of %d nodes (accepted: "
                          "the tree of the allocation's nodes)",
                          (int)req->tree->nnodes, (int)req->alloc->nnodes);
    /* the tree enters through the model interface: the fabric's penalty
     * model with .tree set is the link model (penalty_links.c), which every
     * evaluation below (time_graphs, the simulator for traces) calls */
    ct_fabric tf = *fabric; /* shallow: not freed */
    tf.penalty.tree = req->tree;
    fabric = &tf;
    double t0 = mono_now();
    int32_t cpt = req->cpus_per_task < 1 ? 1 : req->cpus_per_task;
    int32_t passes = req->max_passes > 0 ? req->max_passes : 8;

    ct_trace tr;
    const ct_trace *trp = NULL;
    int have_trace = 0; /* tr loaded here (freed here) */
    int32_t n = req->ntasks;
    uint64_t cap = req->max_work ? req->max_work : UINT64_MAX, used = 0;
    const uint64_t w_screen = req->tree ? W_SCREEN_TREE : W_SCREEN;
    if (p->kind == CT_PAT_TRACE) {
        if (req->trace) {
            trp = req->trace;
        } else {
            /* collectives expanded by the algorithms the fabric's models
             * select, as the scorer does (collective.h); the caller's bounds */
            ct_coll_params cp;
            ct_coll_params_from_fabric(fabric, &cp);
            if (ct_trace_load_expanded_bounded(p->trace, &p->trace_limits, &cp, &tr, NULL, err) <
                0)
                return -1;
            have_trace = 1;
            trp = &tr;
        }
        if (n <= 0)
            n = trp->ntasks;
        else if (n != trp->ntasks) {
            int32_t tn = trp->ntasks;
            if (have_trace)
                ct_trace_free(&tr);
            return ct_err_set(err, "%s: trace has %d tasks but the job runs %d (they must match)",
                              p->trace, (int)tn, (int)n);
        }
    }
    if (n <= 0) {
        int64_t slots = ct_alloc_slots(req->alloc, cpt);
        n = slots > INT32_MAX ? INT32_MAX : (int32_t)slots;
    }
    out->ntasks = n;

    int rc = 0;
    ct_layout lb = {0}, lc = {0};
    int32_t nnodes = req->alloc->nnodes;
    int32_t *want = NULL, *start[4] = {NULL, NULL, NULL, NULL};
    arcs a = {0};
    tgraph g = {0};
    pstate ps = {0};
    int have_ps = 0;
    ct_graph ng[NCAND];
    double itime[NCAND], screen[NCAND];
    ct_layout vl[3];
    int nvl = 0;
    memset(ng, 0, sizeof ng);
    memset(vl, 0, sizeof vl);

    if (ct_layout_build(req->alloc, n, cpt, CT_DIST_BLOCK, 0, 0, &lb, err) < 0 ||
        ct_layout_build(req->alloc, n, cpt, CT_DIST_CYCLIC, 0, 0, &lc, err) < 0) {
        rc = -1;
        goto out;
    }
    if (p->kind == CT_PAT_ALLTOALL) {
        /* 000/002 eq. 5 depends on the per-node counts only */
        note_add(out, "alltoall: every placement with these per-node counts is predicted the "
                      "same (000/002 eq. 5); block kept");
        snprintf(out->chosen, sizeof out->chosen, "block");
        rc = ct_layout_explicit(lb.nnodes, lb.ntasks, lb.node_of, &out->layout, err);
        out->layout.dist = CT_DIST_BLOCK;
        out->predicted_s = out->block_s = out->cyclic_s = -1;
        goto out;
    }
    want = calloc((size_t)nnodes, sizeof *want);
    start[0] = malloc((size_t)n * sizeof *start[0]);
    start[1] = malloc((size_t)n * sizeof *start[1]);
    start[2] = malloc((size_t)n * sizeof *start[2]);
    start[3] = malloc((size_t)n * sizeof *start[3]);
    if (!want || !start[0] || !start[1] || !start[2] || !start[3]) {
        rc = ct_err_set(err, "out of memory for %d tasks", (int)n);
        goto out;
    }
    ct_layout_counts(&lb, want);
    if ((rc = pattern_arcs(p, n, trp, &a, err)) < 0 || (rc = tgraph_build(&a, n, &g, err)) < 0)
        goto out;
    /* what is always done: the task graph, block and cyclic screened */
    used += W_ARC * (uint64_t)a.n + 2 * w_screen * (uint64_t)a.n;
    int levels = 0;
    while ((1 << levels) < nnodes && levels < 31)
        levels++;

    /* 1. starts */
    const int32_t *starts[NCAND] = {lb.node_of, lc.node_of, NULL, NULL, NULL, NULL, NULL};
    int ns = 2;
    /* on a switch tree: block and cyclic over the switch-ordered nodes (each
     * node keeps its count), so that ranks that communicate stay under one
     * leaf when Slurm's node order interleaves the leaves (issue 14; our own
     * starts). Only when the order differs from the allocation's. */
    for (int cyc = 0; req->tree && cyc < 2; cyc++) {
        uint64_t est = w_screen * (uint64_t)a.n + (uint64_t)n + (uint64_t)nnodes;
        if (used + est > cap) {
            note_add(out, cyc ? "switch-cyclic start skipped (work cap)"
                              : "switch-order start skipped (work cap)");
            continue;
        }
        int sw = switch_start(req->tree, nnodes, n, want, cyc, start[2 + cyc], err);
        if (sw < 0) {
            rc = -1;
            goto out;
        }
        used += est;
        if (sw == 1) {
            starts[ns] = start[2 + cyc];
            snprintf(out->cand[ns++].name, sizeof out->cand[0].name, "%s",
                     cyc ? "switch-cyclic" : "switch");
        }
    }
    if (ct_pattern_halo_dims(p->kind)) {
        uint64_t est = W_TILES * (uint64_t)n * (uint64_t)(levels + 1) + w_screen * (uint64_t)a.n;
        if (used + est <= cap) {
            uint64_t w = 0; /* the tiling's own count, not used for the cap */
            if ((rc = start_tiles(p, n, nnodes, want, start[0], &w, err)) < 0)
                goto out;
            used += est;
            starts[ns] = start[0];
            snprintf(out->cand[ns++].name, sizeof out->cand[0].name, "tiles");
        } else {
            note_add(out, "tiling skipped (work cap)");
        }
    }
    /* On a large halo the tiling is the better partition (1,024 x 64 halo3d:
     * 88,064 remote communications against Scotch's 134,934) and Scotch
     * would take most of the time budget: it is skipped there. */
    int tiled = starts[ns - 1] == start[0];
    if (a.n > 0 && !(tiled && n > VERIFY_ALL_MAX_TASKS)) {
        uint64_t nv = (uint64_t)(n < CT_PLACE_SCOTCH_MAX_VERTICES ? n : CT_PLACE_SCOTCH_MAX_VERTICES);
        uint64_t est = W_SCOTCH * (nv + 2 * (uint64_t)a.n * nv / (uint64_t)n) +
                       w_screen * (uint64_t)a.n + 4 * (uint64_t)g.nent;
        if (used + est <= cap) {
            if ((rc = start_scotch(&g, &a, nnodes, want, req->seed, start[1], err)) < 0)
                goto out;
            used += est;
            starts[ns] = start[1];
            snprintf(out->cand[ns++].name, sizeof out->cand[0].name, "scotch");
        } else {
            note_add(out, "Scotch skipped (work cap)");
        }
    }
    snprintf(out->cand[0].name, sizeof out->cand[0].name, "block");
    snprintf(out->cand[1].name, sizeof out->cand[1].name, "cyclic");
    /* every start screened with the model on its node-level graph (for a
     * trace: all its communications in flight at once) */
    for (int i = 0; i < ns; i++) {
        if ((rc = node_graph(&a, starts[i], nnodes, &ng[i], &itime[i], fabric, err)) < 0)
            goto out;
    }
    int method = -1;
    /* the links' idle time before the step (a trace's is not known) */
    const double spause = trp || !p->has_pause ? -1 : p->pause;
    if ((rc = time_graphs(fabric, ng, itime, ns, spause, screen, &method, err)) < 0)
        goto out;
    int best = 0;
    for (int i = 0; i < ns; i++) {
        pstate s;
        if ((rc = pstate_init(&s, &g, nnodes, starts[i], err)) < 0)
            goto out;
        out->cand[i].proxy_bytes = s.maxload;
        out->cand[i].remote_comms = remote_of(&g, starts[i]);
        out->cand[i].predicted_s = screen[i];
        pstate_free(&s);
        if (screen[i] < screen[best])
            best = i;
    }
    out->ncand = ns;

    /* 2. refinement of the best start by swaps scored with the proxy */
    if ((rc = pstate_init(&ps, &g, nnodes, starts[best], err)) < 0)
        goto out;
    have_ps = 1;
    /* the refined layout is screened like a start (w_screen per arc) and a
     * trace replays up to 3 layouts: both are set aside first */
    uint64_t tail = w_screen * (uint64_t)a.n;
    /* a phased halo is screened with all its phases in flight and then
     * timed phase by phase, as the scorer does (block, cyclic, the best);
     * verify1: the work of verifying one layout (step 3) */
    const int phased = !trp && ct_pattern_nphases(p) > 1;
    const uint64_t verify1 = trp       ? W_REPLAY * (uint64_t)trp->nevents
                             : phased ? w_screen * (uint64_t)a.n
                                      : 0;
    uint64_t replay3 = 3 * verify1;
    if (cap == UINT64_MAX || used + tail + replay3 <= cap)
        tail += replay3; /* else the replays will not fit anyway */
    uint64_t rbudget = REFINE_BUDGET;
    int capped_refine = 0;
    if (cap != UINT64_MAX) {
        uint64_t left = used + tail < cap ? cap - used - tail : 0;
        if (left < rbudget)
            rbudget = left, capped_refine = 1;
    }
    uint64_t rw = 0;
    if (!rbudget)
        note_add(out, "no refinement (work cap)");
    else if ((rc = refine(&ps, req->seed, passes, rbudget, &out->swaps, &rw, err)) < 0)
        goto out;
    else if (capped_refine && rw >= rbudget)
        note_add(out, "refinement cut short (work cap)");
    used += rw;
    pstate_rescan(&ps);
    int ri = ns;
    if (out->swaps > 0) {
        ct_place_cand *c = &out->cand[ri];
        snprintf(c->name, sizeof c->name, "refined");
        c->proxy_bytes = ps.maxload;
        c->remote_comms = remote_of(&g, ps.node_of);
        starts[ri] = ps.node_of;
        if ((rc = node_graph(&a, ps.node_of, nnodes, &ng[ri], &itime[ri], fabric, err)) < 0)
            goto out;
        used += w_screen * (uint64_t)a.n;
        int m1 = method;
        rc = time_graphs(fabric, &ng[ri], &itime[ri], 1, spause, &screen[ri], &m1, err);
        if (rc == 1) { /* the refined graph is past the progressive bound: all static */
            method = 0;
            rc = time_graphs(fabric, ng, itime, ri + 1, spause, screen, &method, err);
            for (int i = 0; i < ri; i++)
                out->cand[i].predicted_s = screen[i];
        }
        if (rc < 0)
            goto out;
        c->predicted_s = screen[ri];
        out->ncand = ri + 1;
        best = 0;
        for (int i = 0; i <= ri; i++)
            if (screen[i] < screen[best])
                best = i;
    }
    out->progressive = method;
    double t1 = mono_now();
    out->search_s = t1 - t0;

    /* 3. verification: for a named single-phase pattern the screening is
     * the scorer's evaluation; a trace is replayed and a phased halo timed
     * phase by phase (block, cyclic, the best screened) */
    double vb = screen[0], vc = screen[1], vbest = screen[best];
    uint64_t replay = (uint64_t)(best >= 2 ? 3 : 2) * verify1;
    if (trp && used + replay > cap)
        note_add(out, "trace: not replayed (work cap): block, cyclic and the placement compared "
                      "on the screening, all communications in flight");
    if (phased && used + replay > cap)
        note_add(out, "phased: not timed phase by phase (work cap): block, cyclic and the "
                      "placement compared with every phase in flight");
    if ((trp || phased) && used + replay <= cap) {
        used += replay;
        out->replayed = trp != NULL;
        out->phased = phased;
        const ct_layout *ls[3] = {&lb, &lc, NULL};
        int k = 2;
        if (best >= 2) {
            if ((rc = ct_layout_explicit(nnodes, n, starts[best], &vl[nvl], err)) < 0)
                goto out;
            ls[k++] = &vl[nvl++];
        }
        double pr[3];
        int m2 = -1;
        if ((rc = eval_layouts(fabric, p, trp, ls, k, pr, &m2, err)) < 0)
            goto out;
        vb = pr[0], vc = pr[1], vbest = k == 3 ? pr[2] : pr[best];
        for (int i = 0; i < out->ncand; i++)
            out->cand[i].predicted_s = -1; /* screened only */
        out->cand[0].predicted_s = vb;
        out->cand[1].predicted_s = vc;
        out->cand[best].predicted_s = vbest;
    }
    out->verify_s = mono_now() - t1;
    /* strictly better only: ties keep block, then cyclic */
    int win = 0;
    double wt = vb;
    if (vc < wt)
        win = 1, wt = vc;
    if (best >= 2 && vbest < wt)
        win = best, wt = vbest;
    out->block_s = vb;
    out->cyclic_s = vc;
    out->predicted_s = wt;
    double ref = vb < vc ? vb : vc;
    out->gain = ref > 0 ? (ref - wt) / ref : 0;
    snprintf(out->chosen, sizeof out->chosen, "%s", out->cand[win].name);
    if ((rc = ct_layout_explicit(nnodes, n, starts[win], &out->layout, err)) < 0)
        goto out;
    out->layout.dist = win == 0 ? CT_DIST_BLOCK : win == 1 ? CT_DIST_CYCLIC : CT_DIST_EXPLICIT;
    if (!method)
        note_add(out, "timed with first-instant penalties (graph past the progressive bound)");
    if (out->replayed)
        note_add(out, "trace: starts screened with all communications in flight, then replayed");
    if (out->phased)
        note_add(out, "phased: starts screened with every phase in flight, then timed phase by "
                      "phase");
    out->work = used;
out:
    if (have_ps)
        pstate_free(&ps);
    for (int i = 0; i < NCAND; i++)
        ct_graph_free(&ng[i]);
    for (int i = 0; i < nvl; i++)
        ct_layout_free(&vl[i]);
    tgraph_free(&g);
    arcs_free(&a);
    free(want);
    free(start[0]);
    free(start[1]);
    free(start[2]);
    free(start[3]);
    ct_layout_free(&lb);
    ct_layout_free(&lc);
    if (have_trace)
        ct_trace_free(&tr);
    if (rc < 0)
        ct_layout_free(&out->layout);
    return rc < 0 ? -1 : 0;
}
