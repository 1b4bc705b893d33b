/* Myrinet Stop & Go penalty model, paper 001 §V-B (Vienne et al., Cluster 2008).
 *
 * A communication is "send" or "wait"; a sending communication puts every
 * communication with the same source node or the same destination node in
 * "wait". The sets of states are the maximal sets of pairwise non-conflicting
 * communications, i.e. the maximal matchings of the bipartite multigraph
 * (senders on one side, receivers on the other; a node can be both). The
 * emission coefficient e(c) of a communication is the number of sets that
 * contain it; every communication takes the minimum of e over its source
 * node's outgoing communications; penalty = (number of sets) / minimum.
 *
 * How it is computed (doc/models-penalty.md has the details and figures):
 *  - Multiplicities are never expanded: the mult copies of an arc are
 *    interchangeable and pairwise in conflict, so the copies of one node pair
 *    act as one edge of weight w = total mult. A maximal matching of the
 *    weighted graph stands for prod(w) maximal sets of communications, and a
 *    given copy lies in a fraction 1/w of the sets using its edge.
 *  - The conflict graph splits into connected components; the number of sets
 *    is the product over components, and a node's outgoing communications all
 *    lie in one component, so penalty(c) = 1 / min over c's source node of
 *    Pr[copy in a uniformly drawn maximal set] within c's component.
 *  - Per component, one of four paths:
 *      CLOSED  an all-to-all over n >= 3 nodes whose multiplicities factor as
 *              a_u * b_v (uniform ones included): counted in closed form from
 *              derangement numbers (see sg_closed);
 *      DP      exact dynamic programme over senders in BFS order whose state
 *              is the status of the receivers still open (free / must be
 *              covered / taken): exponential only in that frontier width;
 *      ENUM    exact enumeration of the maximal sets (Bron-Kerbosch with
 *              pivoting on the conflict graph's complement);
 *      MCMC    a heat-bath Markov chain on maximal matchings whose block is a
 *              sender and a random sender two hops away, Rao-Blackwellised.
 *    EXACT uses ENUM only; SCALABLE uses CLOSED, then DP, then MCMC; AUTO
 *    also tries a bounded ENUM before falling back to MCMC.
 */
#include "contention/penalty.h"

#include "model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SG_DEFAULT_SEED 0x5eed5eedUL
#define SG_AUTO_ENUM_STEPS ((size_t)1000000)
#define SG_NONE UINT32_MAX

/* ------------------------------------------------------------------------ */
/* Merged, weighted bipartite graph over the active arcs, split in components */

typedef struct sg_graph {
    uint32_t narc;        /* distinct (src, dst) pairs */
    int32_t *asrc, *adst; /* per distinct arc, sorted by src */
    double *w;            /* total multiplicity of the pair */
    uint32_t *arc_of;     /* original arc -> distinct arc (SG_NONE: inactive) */
    uint32_t *sstart;     /* nnodes + 1: distinct arcs of source v */
    uint32_t ncomp;
    uint32_t *cstart;     /* ncomp + 1 into carcs */
    uint32_t *carcs;      /* distinct arcs grouped by component, sorted by src */
    double *pi;           /* Pr[the pair carries a sending copy] */
} sg_graph;

static void sg_free(sg_graph *sg)
{
    free(sg->asrc), free(sg->adst), free(sg->w), free(sg->arc_of), free(sg->sstart);
    free(sg->cstart), free(sg->carcs), free(sg->pi);
    memset(sg, 0, sizeof *sg);
}

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

static int sg_build(const ct_graph *g, const unsigned char *active, sg_graph *sg, ct_err *err)
{
    memset(sg, 0, sizeof *sg);
    const size_t n = g->ncomm, nn = (size_t)g->nnodes;
    if (n >= SG_NONE)
        return ct_err_set(err, "Stop & Go: %zu arcs (accepted: < %u)", n, SG_NONE);
    uint32_t *bysrc = malloc((n ? n : 1) * sizeof *bysrc);
    uint32_t *stamp = malloc(nn * sizeof *stamp);
    uint32_t *slot = malloc(nn * sizeof *slot);
    uint32_t *parent = NULL, *croot = NULL;
    sg->arc_of = malloc((n ? n : 1) * sizeof *sg->arc_of);
    sg->sstart = calloc(nn + 1, sizeof *sg->sstart);
    if (!bysrc || !stamp || !slot || !sg->arc_of || !sg->sstart)
        goto oom;
    /* Counting sort of the active arcs by source. */
    uint32_t *cnt = sg->sstart; /* reused: counts, then starts */
    for (size_t i = 0; i < n; i++)
        if (!active || active[i])
            cnt[g->comm[i].src + 1]++;
    for (size_t v = 0; v < nn; v++)
        cnt[v + 1] += cnt[v];
    size_t nact = cnt[nn];
    {
        uint32_t *fill = malloc(nn * sizeof *fill);
        if (!fill)
            goto oom;
        memcpy(fill, cnt, nn * sizeof *fill);
        for (size_t i = 0; i < n; i++) {
            sg->arc_of[i] = SG_NONE;
            if (!active || active[i])
                bysrc[fill[g->comm[i].src]++] = (uint32_t)i;
        }
        free(fill);
    }
    sg->asrc = malloc((nact ? nact : 1) * sizeof *sg->asrc);
    sg->adst = malloc((nact ? nact : 1) * sizeof *sg->adst);
    sg->w = malloc((nact ? nact : 1) * sizeof *sg->w);
    if (!sg->asrc || !sg->adst || !sg->w)
        goto oom;
    /* Merge arcs of one source with the same destination (a stamp per node). */
    for (size_t v = 0; v < nn; v++)
        stamp[v] = SG_NONE;
    uint32_t na = 0;
    for (size_t v = 0; v < nn; v++) {
        uint32_t b = cnt[v], e = cnt[v + 1];
        cnt[v] = na; /* becomes the start of v's distinct arcs */
        for (uint32_t k = b; k < e; k++) {
            const ct_comm *c = &g->comm[bysrc[k]];
            if (stamp[c->dst] != (uint32_t)v) {
                stamp[c->dst] = (uint32_t)v;
                slot[c->dst] = na;
                sg->asrc[na] = c->src;
                sg->adst[na] = c->dst;
                sg->w[na] = 0.0;
                na++;
            }
            sg->w[slot[c->dst]] += (double)c->mult;
            sg->arc_of[bysrc[k]] = slot[c->dst];
        }
    }
    cnt[nn] = na;
    sg->narc = na;
    free(bysrc), bysrc = NULL;
    free(stamp), stamp = NULL;
    free(slot), slot = NULL;

    /* Components: union-find over senders v and receivers nn + v. */
    parent = malloc(2 * nn * sizeof *parent);
    croot = malloc(2 * nn * sizeof *croot);
    sg->pi = calloc(na ? na : 1, sizeof *sg->pi);
    sg->carcs = malloc((na ? na : 1) * sizeof *sg->carcs);
    if (!parent || !croot || !sg->pi || !sg->carcs)
        goto oom;
    for (uint32_t x = 0; x < 2 * nn; x++)
        parent[x] = x, croot[x] = SG_NONE;
    for (uint32_t a = 0; a < na; a++) {
        uint32_t x = uf_find(parent, (uint32_t)sg->asrc[a]);
        uint32_t y = uf_find(parent, (uint32_t)(nn + (size_t)sg->adst[a]));
        if (x != y)
            parent[x] = y;
    }
    /* Component number per sending node (one find per node, not per arc). */
    uint32_t nc = 0;
    for (size_t v = 0; v < nn; v++) {
        if (sg->sstart[v] == sg->sstart[v + 1])
            continue;
        uint32_t r = uf_find(parent, (uint32_t)v);
        if (croot[r] == SG_NONE)
            croot[r] = nc++;
        parent[v] = r;          /* compressed, so the loops below read it directly */
    }
    sg->ncomp = nc;
    sg->cstart = calloc((size_t)nc + 1, sizeof *sg->cstart);
    if (!sg->cstart)
        goto oom;
    for (size_t v = 0; v < nn; v++)
        if (sg->sstart[v] != sg->sstart[v + 1])
            sg->cstart[croot[parent[v]] + 1] += sg->sstart[v + 1] - sg->sstart[v];
    for (uint32_t c = 0; c < nc; c++)
        sg->cstart[c + 1] += sg->cstart[c];
    {
        uint32_t *fill = malloc(((size_t)nc ? nc : 1) * sizeof *fill);
        if (!fill)
            goto oom;
        memcpy(fill, sg->cstart, (size_t)nc * sizeof *fill);
        for (size_t v = 0; v < nn; v++) /* arcs stay sorted by src */
            for (uint32_t a = sg->sstart[v]; a < sg->sstart[v + 1]; a++)
                sg->carcs[fill[croot[parent[v]]]++] = a;
        free(fill);
    }
    free(parent), free(croot);
    return 0;
oom:
    free(bysrc), free(stamp), free(slot), free(parent), free(croot);
    sg_free(sg);
    return ct_err_set(err, "Stop & Go: out of memory for a graph of %zu arcs", n);
}

/* ------------------------------------------------------------------------ */
/* One component with local numbering                                        */

typedef struct sg_comp {
    uint32_t m;           /* edges (distinct pairs) */
    uint32_t ns, nr;      /* senders, receivers */
    uint32_t *es, *er;    /* per edge: local sender, local receiver */
    double *w;
    uint32_t *sst, *sadj; /* sender -> edges (CSR) */
    uint32_t *rst, *radj; /* receiver -> edges (CSR) */
    double *pi;           /* result per edge */
} sg_comp;

static void comp_free(sg_comp *c)
{
    free(c->es), free(c->er), free(c->w), free(c->sst), free(c->sadj), free(c->rst), free(c->radj);
    free(c->pi);
    memset(c, 0, sizeof *c);
}

/* lmap: nnodes entries, all SG_NONE on entry and on return. */
static int comp_build(const sg_graph *sg, uint32_t ci, uint32_t *lmap_s, uint32_t *lmap_r,
                      sg_comp *c)
{
    memset(c, 0, sizeof *c);
    const uint32_t *A = sg->carcs + sg->cstart[ci];
    uint32_t m = sg->cstart[ci + 1] - sg->cstart[ci];
    c->m = m;
    c->es = malloc(m * sizeof *c->es);
    c->er = malloc(m * sizeof *c->er);
    c->w = malloc(m * sizeof *c->w);
    c->pi = calloc(m, sizeof *c->pi);
    c->sadj = malloc(m * sizeof *c->sadj);
    c->radj = malloc(m * sizeof *c->radj);
    if (!c->es || !c->er || !c->w || !c->pi || !c->sadj || !c->radj)
        return -1;
    for (uint32_t k = 0; k < m; k++) {
        int32_t s = sg->asrc[A[k]], r = sg->adst[A[k]];
        if (lmap_s[s] == SG_NONE)
            lmap_s[s] = c->ns++;
        if (lmap_r[r] == SG_NONE)
            lmap_r[r] = c->nr++;
        c->es[k] = lmap_s[s];
        c->er[k] = lmap_r[r];
        c->w[k] = sg->w[A[k]];
    }
    for (uint32_t k = 0; k < m; k++) {
        lmap_s[sg->asrc[A[k]]] = SG_NONE;
        lmap_r[sg->adst[A[k]]] = SG_NONE;
    }
    c->sst = calloc((size_t)c->ns + 1, sizeof *c->sst);
    c->rst = calloc((size_t)c->nr + 1, sizeof *c->rst);
    if (!c->sst || !c->rst)
        return -1;
    for (uint32_t k = 0; k < m; k++)
        c->sst[c->es[k] + 1]++, c->rst[c->er[k] + 1]++;
    for (uint32_t v = 0; v < c->ns; v++)
        c->sst[v + 1] += c->sst[v];
    for (uint32_t v = 0; v < c->nr; v++)
        c->rst[v + 1] += c->rst[v];
    uint32_t *fs = malloc(((size_t)c->ns + 1) * sizeof *fs);
    uint32_t *fr = malloc(((size_t)c->nr + 1) * sizeof *fr);
    if (!fs || !fr) {
        free(fs), free(fr);
        return -1;
    }
    memcpy(fs, c->sst, c->ns * sizeof *fs);
    memcpy(fr, c->rst, c->nr * sizeof *fr);
    for (uint32_t k = 0; k < m; k++) {
        c->sadj[fs[c->es[k]]++] = k;
        c->radj[fr[c->er[k]]++] = k;
    }
    free(fs), free(fr);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* CLOSED: all-to-all over n >= 3 nodes with w(u,v) = a_u * b_v.            */
/* Maximal matchings of K_n,n minus the diagonal are the perfect ones (the
 * D_n derangements) and, for each node x, the D_{n-1} derangements of the
 * other nodes leaving sender x and receiver x idle (a smaller matching leaves
 * an idle sender facing an idle receiver other than itself). Every perfect
 * matching weighs P = prod a * prod b and one idle at x weighs P / (a_x b_x);
 * a pair (u, v) lies in D_n/(n-1) perfect ones and D_{n-1}/(n-2) of those idle
 * at x not in {u, v}. With r = D_{n-1}/D_n and S = sum_x 1/(a_x b_x):
 *   Pr[(u,v)] = (1/(n-1) + r/(n-2) (S - 1/c_u - 1/c_v)) / (1 + r S).       */

static int sg_closed(const sg_graph *sg, uint32_t ci, uint32_t *lmap)
{
    const uint32_t *A = sg->carcs + sg->cstart[ci];
    const uint32_t m = sg->cstart[ci + 1] - sg->cstart[ci];
    int ok = 0;
    uint32_t nset = 0; /* lmap entries to reset */
    /* Senders, in order of appearance (arcs are sorted by src). */
    uint32_t n = 0;
    for (uint32_t k = 0; k < m; k++)
        if (k == 0 || sg->asrc[A[k]] != sg->asrc[A[k - 1]])
            n++;
    if (n < 3 || (uint64_t)m != (uint64_t)n * (n - 1))
        return 0;
    int32_t *node = malloc(n * sizeof *node);
    uint32_t *first = malloc(((size_t)n + 1) * sizeof *first);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *ic = malloc(n * sizeof *ic);
    if (!node || !first || !a || !b || !ic)
        goto out;
    n = 0;
    for (uint32_t k = 0; k < m; k++)
        if (k == 0 || sg->asrc[A[k]] != sg->asrc[A[k - 1]]) {
            node[n] = sg->asrc[A[k]];
            first[n] = k;
            lmap[node[n]] = n;
            n++;
            nset = n;
        }
    first[n] = m;
    /* Every receiver must be one of the senders, each sender with n-1 arcs:
     * with distinct pairs and no self-loops that is the complete digraph. */
    for (uint32_t u = 0; u < n; u++) {
        if (first[u + 1] - first[u] != n - 1)
            goto out;
        for (uint32_t k = first[u]; k < first[u + 1]; k++)
            if (lmap[sg->adst[A[k]]] == SG_NONE)
                goto out;
    }
    /* Factor w(u,v) = a_u b_v: a_0 = 1, b_v = w(0,v), a_x = w(x,v)/w(0,v). */
    double *w0 = ic; /* w(0, v) by local v, then reused */
    for (uint32_t v = 0; v < n; v++)
        w0[v] = 0;
    for (uint32_t k = first[0]; k < first[1]; k++)
        w0[lmap[sg->adst[A[k]]]] = sg->w[A[k]];
    a[0] = 1.0;
    for (uint32_t x = 1; x < n; x++) {
        uint32_t v = (x == 1) ? 2 : 1; /* v not in {0, x} */
        a[x] = 0;
        for (uint32_t k = first[x]; k < first[x + 1]; k++)
            if (lmap[sg->adst[A[k]]] == v)
                a[x] = sg->w[A[k]] / w0[v];
    }
    for (uint32_t v = 1; v < n; v++)
        b[v] = w0[v];
    b[0] = 0;
    for (uint32_t k = first[1]; k < first[2]; k++)
        if (lmap[sg->adst[A[k]]] == 0)
            b[0] = sg->w[A[k]] / a[1];
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t k = first[u]; k < first[u + 1]; k++) {
            double want = a[u] * b[lmap[sg->adst[A[k]]]];
            if (fabs(want - sg->w[A[k]]) > 1e-9 * sg->w[A[k]])
                goto out;
        }
    double S = 0;
    for (uint32_t x = 0; x < n; x++) {
        ic[x] = 1.0 / (a[x] * b[x]);
        S += ic[x];
    }
    /* r_n = D_{n-1}/D_n from D_n = (n-1)(D_{n-1} + D_{n-2}): 1/r_n = (n-1)(1 + r_{n-1}). */
    double r = 0.0; /* r_2 = D_1/D_2 = 0 */
    for (uint32_t k = 3; k <= n; k++)
        r = 1.0 / ((double)(k - 1) * (1.0 + r));
    const double den = 1.0 + r * S;
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t k = first[u]; k < first[u + 1]; k++) {
            uint32_t v = lmap[sg->adst[A[k]]];
            sg->pi[A[k]] =
                (1.0 / (double)(n - 1) + r / (double)(n - 2) * (S - ic[u] - ic[v])) / den;
        }
    ok = 1;
out:
    for (uint32_t u = 0; u < nset; u++)
        lmap[node[u]] = SG_NONE;
    free(node), free(first), free(a), free(b), free(ic);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* ENUM: Bron-Kerbosch with pivoting on the complement of the conflict graph */

typedef struct enum_ctx {
    const sg_comp *c;
    size_t W;             /* 64-bit words per edge set */
    uint64_t *conf;       /* m * W: edges sharing a sender or receiver, itself included */
    uint64_t *stack;      /* (depth + 2) * 2 * W */
    uint32_t *chosen;
    double total;
    double *acc;          /* per edge: weight of the sets containing it */
    size_t steps, max_steps;
    int aborted;
} enum_ctx;

static void enum_rec(enum_ctx *x, uint32_t depth, double wprod)
{
    if (x->aborted)
        return;
    if (++x->steps > x->max_steps) {
        x->aborted = 1;
        return;
    }
    const size_t W = x->W;
    uint64_t *P = x->stack + (size_t)depth * 2 * W, *X = P + W;
    uint64_t *nP = P + 2 * W, *nX = nP + W;
    int pempty = 1, xempty = 1;
    for (size_t i = 0; i < W; i++) {
        if (P[i])
            pempty = 0;
        if (X[i])
            xempty = 0;
    }
    if (pempty) {
        if (xempty) { /* a maximal set */
            x->total += wprod;
            for (uint32_t d = 0; d < depth; d++)
                x->acc[x->chosen[d]] += wprod;
        }
        return;
    }
    /* Pivot: the edge of P u X leaving the fewest branches P ∩ conf(u). */
    size_t best = SIZE_MAX, piv = 0;
    for (size_t i = 0; i < W && best > 0; i++) {
        uint64_t bits = P[i] | X[i];
        while (bits && best > 0) {
            size_t u = i * 64 + (size_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            const uint64_t *cu = x->conf + u * W;
            size_t k = 0;
            for (size_t j = 0; j < W; j++)
                k += (size_t)__builtin_popcountll(P[j] & cu[j]);
            if (k < best)
                best = k, piv = u;
        }
    }
    if (best == 0) /* an excluded edge fits beside all of P: no maximal set below */
        return;
    const uint64_t *cp = x->conf + piv * W;
    for (size_t i = 0; i < W; i++) {
        uint64_t cand = P[i] & cp[i];
        while (cand) {
            size_t v = i * 64 + (size_t)__builtin_ctzll(cand);
            cand &= cand - 1;
            const uint64_t *cv = x->conf + v * W;
            for (size_t j = 0; j < W; j++) {
                nP[j] = P[j] & ~cv[j];
                nX[j] = X[j] & ~cv[j];
            }
            x->chosen[depth] = (uint32_t)v;
            enum_rec(x, depth + 1, wprod * x->c->w[v]);
            if (x->aborted)
                return;
            P[i] &= ~(1ULL << (v % 64));
            X[i] |= 1ULL << (v % 64);
        }
    }
}

/* 0: done (c->pi filled, *nsets = weighted count); 1: over budget; -1: OOM */
static int sg_enum(sg_comp *c, size_t max_steps, size_t *steps, double *nsets)
{
    if (c->m > CT_STOPGO_ENUM_MAX_ARCS)
        return 1;
    enum_ctx x = {.c = c, .max_steps = max_steps};
    x.W = (c->m + 63) / 64;
    uint32_t depth = c->ns < c->nr ? c->ns : c->nr;
    x.conf = calloc((size_t)c->m * x.W, sizeof *x.conf);
    x.stack = calloc(((size_t)depth + 2) * 2 * x.W, sizeof *x.stack);
    x.chosen = malloc(((size_t)depth + 1) * sizeof *x.chosen);
    x.acc = calloc(c->m, sizeof *x.acc);
    int rc = -1;
    if (!x.conf || !x.stack || !x.chosen || !x.acc)
        goto out;
    for (uint32_t e = 0; e < c->m; e++) {
        uint64_t *ce = x.conf + (size_t)e * x.W;
        for (uint32_t k = c->sst[c->es[e]]; k < c->sst[c->es[e] + 1]; k++)
            ce[c->sadj[k] / 64] |= 1ULL << (c->sadj[k] % 64);
        for (uint32_t k = c->rst[c->er[e]]; k < c->rst[c->er[e] + 1]; k++)
            ce[c->radj[k] / 64] |= 1ULL << (c->radj[k] % 64);
        x.stack[e / 64] |= 1ULL << (e % 64); /* P = every edge, X = none */
    }
    enum_rec(&x, 0, 1.0);
    *steps += x.steps;
    if (x.aborted) {
        rc = 1;
        goto out;
    }
    for (uint32_t e = 0; e < c->m; e++)
        c->pi[e] = x.acc[e] / x.total;
    if (nsets)
        *nsets = x.total;
    rc = 0;
out:
    free(x.conf), free(x.stack), free(x.chosen), free(x.acc);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* DP: senders in BFS order; state = 2 bits per open receiver:               */
/*   0 free, 1 free but some earlier sender stayed idle beside it (must be   */
/*   taken later, or that sender's idleness breaks maximality), 2 taken.     */
/* Forward tables F_k (weights after k senders) and backward weights B_k give */
/* Pr[edge] = sum F_{k-1} w B_k(after taking it) / sum over every option.    */

typedef struct dp_table {
    size_t n, cap;        /* entries */
    uint64_t *key;
    double *f, *b;
    uint32_t *hash;       /* open addressing, hcap slots, SG_NONE = empty */
    size_t hcap;
} dp_table;

static void dpt_free(dp_table *t)
{
    free(t->key), free(t->f), free(t->b), free(t->hash);
    memset(t, 0, sizeof *t);
}

static size_t dp_hash(uint64_t k, size_t hcap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k & (hcap - 1);
}

static uint32_t dpt_find(const dp_table *t, uint64_t key)
{
    if (!t->hcap)
        return SG_NONE;
    for (size_t h = dp_hash(key, t->hcap);; h = (h + 1) & (t->hcap - 1)) {
        uint32_t i = t->hash[h];
        if (i == SG_NONE || t->key[i] == key)
            return i;
    }
}

static int dpt_grow(dp_table *t)
{
    size_t ncap = t->cap ? 2 * t->cap : 64;
    uint64_t *k = realloc(t->key, ncap * sizeof *k);
    if (!k)
        return -1;
    t->key = k;
    double *f = realloc(t->f, ncap * sizeof *f);
    if (!f)
        return -1;
    t->f = f;
    t->cap = ncap;
    size_t hcap = 2 * ncap;
    uint32_t *h = malloc(hcap * sizeof *h);
    if (!h)
        return -1;
    for (size_t i = 0; i < hcap; i++)
        h[i] = SG_NONE;
    for (size_t i = 0; i < t->n; i++) {
        size_t p = dp_hash(t->key[i], hcap);
        while (h[p] != SG_NONE)
            p = (p + 1) & (hcap - 1);
        h[p] = (uint32_t)i;
    }
    free(t->hash);
    t->hash = h;
    t->hcap = hcap;
    return 0;
}

static int dpt_add(dp_table *t, uint64_t key, double v)
{
    uint32_t i = dpt_find(t, key);
    if (i != SG_NONE) {
        t->f[i] += v;
        return 0;
    }
    if (t->n == t->cap && dpt_grow(t) < 0)
        return -1;
    size_t p = dp_hash(key, t->hcap);
    while (t->hash[p] != SG_NONE)
        p = (p + 1) & (t->hcap - 1);
    t->hash[p] = (uint32_t)t->n;
    t->key[t->n] = key;
    t->f[t->n] = v;
    t->n++;
    return 0;
}

typedef struct dp_plan {
    uint32_t *order;      /* senders in processing order */
    uint32_t *slot;       /* receiver -> bit pair index */
    uint32_t *last;       /* receiver -> position of its last sender */
} dp_plan;

/* Transition of state st by sender s: option opt = SG_NONE (idle) or an edge.
 * Returns 0 and *out, or 1 when the option is impossible or breaks maximality. */
static int dp_step(const sg_comp *c, const dp_plan *pl, uint32_t k, uint32_t s, uint64_t st,
                   uint32_t opt, uint64_t *out)
{
    if (opt == SG_NONE) {
        for (uint32_t j = c->sst[s]; j < c->sst[s + 1]; j++) {
            uint32_t sl = pl->slot[c->er[c->sadj[j]]];
            if (((st >> (2 * sl)) & 3u) == 0)
                st |= 1ULL << (2 * sl);
        }
    } else {
        uint32_t sl = pl->slot[c->er[opt]];
        if (((st >> (2 * sl)) & 3u) == 2)
            return 1;
        st = (st & ~(3ULL << (2 * sl))) | (2ULL << (2 * sl));
    }
    for (uint32_t j = c->sst[s]; j < c->sst[s + 1]; j++) {
        uint32_t r = c->er[c->sadj[j]];
        if (pl->last[r] != k)
            continue;
        uint32_t sl = pl->slot[r];
        if (((st >> (2 * sl)) & 3u) == 1) /* an idle sender's receiver stays idle */
            return 1;
        st &= ~(3ULL << (2 * sl));
    }
    *out = st;
    return 0;
}

/* 0: done; 1: frontier or states over budget; -1: OOM */
static int sg_dp(sg_comp *c, size_t max_states, size_t *peak)
{
    const uint32_t ns = c->ns, nr = c->nr;
    dp_plan pl = {0};
    dp_table *T = NULL;
    uint32_t *pos = NULL, *seen_r = NULL, *slot_used = NULL;
    int rc = -1;
    pl.order = malloc(ns * sizeof *pl.order);
    pl.slot = malloc(nr * sizeof *pl.slot);
    pl.last = malloc(nr * sizeof *pl.last);
    pos = malloc(ns * sizeof *pos);
    seen_r = calloc(nr, sizeof *seen_r);
    T = calloc((size_t)ns + 1, sizeof *T);
    if (!pl.order || !pl.slot || !pl.last || !pos || !seen_r || !T)
        goto out;
    /* BFS from a sender of minimum degree keeps the open receivers few on
     * paths, rings and grids. */
    for (uint32_t s = 0; s < ns; s++)
        pos[s] = SG_NONE;
    uint32_t start = 0;
    for (uint32_t s = 1; s < ns; s++)
        if (c->sst[s + 1] - c->sst[s] < c->sst[start + 1] - c->sst[start])
            start = s;
    uint32_t head = 0, tail = 0;
    pl.order[tail++] = start;
    pos[start] = 0;
    while (head < tail) {
        uint32_t s = pl.order[head++];
        for (uint32_t j = c->sst[s]; j < c->sst[s + 1]; j++) {
            uint32_t r = c->er[c->sadj[j]];
            if (seen_r[r])
                continue;
            seen_r[r] = 1;
            for (uint32_t q = c->rst[r]; q < c->rst[r + 1]; q++) {
                uint32_t s2 = c->es[c->radj[q]];
                if (pos[s2] == SG_NONE) {
                    pos[s2] = tail;
                    pl.order[tail++] = s2;
                }
            }
        }
    }
    /* Receivers open from their first sender to their last; give each a slot. */
    uint32_t *firstp = seen_r; /* reuse */
    for (uint32_t r = 0; r < nr; r++) {
        firstp[r] = SG_NONE;
        pl.last[r] = 0;
        for (uint32_t q = c->rst[r]; q < c->rst[r + 1]; q++) {
            uint32_t p = pos[c->es[c->radj[q]]];
            if (p < firstp[r])
                firstp[r] = p;
            if (p > pl.last[r])
                pl.last[r] = p;
        }
    }
    slot_used = calloc(CT_STOPGO_DP_MAX_FRONTIER, sizeof *slot_used);
    if (!slot_used)
        goto out;
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t s = pl.order[k];
        for (uint32_t j = c->sst[s]; j < c->sst[s + 1]; j++) {
            uint32_t r = c->er[c->sadj[j]];
            if (firstp[r] != k)
                continue;
            uint32_t sl = 0;
            while (sl < CT_STOPGO_DP_MAX_FRONTIER && slot_used[sl])
                sl++;
            if (sl == CT_STOPGO_DP_MAX_FRONTIER) {
                rc = 1;
                goto out;
            }
            slot_used[sl] = 1;
            pl.slot[r] = sl;
        }
        for (uint32_t j = c->sst[s]; j < c->sst[s + 1]; j++) {
            uint32_t r = c->er[c->sadj[j]];
            if (pl.last[r] == k)
                slot_used[pl.slot[r]] = 0;
        }
    }
    /* Forward. */
    size_t stored = 1;
    if (dpt_add(&T[0], 0, 1.0) < 0)
        goto out;
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t s = pl.order[k];
        dp_table *F = &T[k], *G = &T[k + 1];
        for (size_t i = 0; i < F->n; i++) {
            uint64_t st2;
            if (dp_step(c, &pl, k, s, F->key[i], SG_NONE, &st2) == 0 &&
                dpt_add(G, st2, F->f[i]) < 0)
                goto out;
            for (uint32_t j = c->sst[s]; j < c->sst[s + 1]; j++) {
                uint32_t e = c->sadj[j];
                if (dp_step(c, &pl, k, s, F->key[i], e, &st2) == 0 &&
                    dpt_add(G, st2, F->f[i] * c->w[e]) < 0)
                    goto out;
            }
        }
        double mx = 0;
        for (size_t i = 0; i < G->n; i++)
            if (G->f[i] > mx)
                mx = G->f[i];
        for (size_t i = 0; i < G->n; i++)
            G->f[i] /= mx;
        stored += G->n;
        if (G->n > *peak)
            *peak = G->n;
        if (stored > max_states) {
            rc = 1;
            goto out;
        }
    }
    /* Backward, with the edge marginals of each step. */
    for (uint32_t k = 0; k <= ns; k++) {
        T[k].b = calloc(T[k].n ? T[k].n : 1, sizeof *T[k].b);
        if (!T[k].b)
            goto out;
    }
    if (T[ns].n != 1 || T[ns].key[0] != 0) /* cannot happen: a maximal set always exists */
        goto out;
    T[ns].b[0] = 1.0;
    for (uint32_t k = ns; k-- > 0;) {
        uint32_t s = pl.order[k];
        dp_table *F = &T[k], *G = &T[k + 1];
        double den = 0, mx = 0;
        for (size_t i = 0; i < F->n; i++) {
            uint64_t st2;
            double bsum = 0;
            if (dp_step(c, &pl, k, s, F->key[i], SG_NONE, &st2) == 0) {
                uint32_t q = dpt_find(G, st2);
                if (q != SG_NONE)
                    bsum += G->b[q];
            }
            for (uint32_t j = c->sst[s]; j < c->sst[s + 1]; j++) {
                uint32_t e = c->sadj[j];
                if (dp_step(c, &pl, k, s, F->key[i], e, &st2) != 0)
                    continue;
                uint32_t q = dpt_find(G, st2);
                if (q == SG_NONE)
                    continue;
                double v = c->w[e] * G->b[q];
                bsum += v;
                c->pi[e] += F->f[i] * v;
            }
            F->b[i] = bsum;
            den += F->f[i] * bsum;
            if (bsum > mx)
                mx = bsum;
        }
        for (uint32_t j = c->sst[s]; j < c->sst[s + 1]; j++)
            c->pi[c->sadj[j]] /= den;
        for (size_t i = 0; i < F->n && mx > 0; i++)
            F->b[i] /= mx;
    }
    rc = 0;
out:
    if (T)
        for (uint32_t k = 0; k <= ns; k++)
            dpt_free(&T[k]);
    free(T), free(pl.order), free(pl.slot), free(pl.last), free(pos), free(seen_r);
    free(slot_used);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* MCMC: heat-bath updates of the edges of a block {s1, s2}, s2 a random     */
/* sender sharing a receiver with s1 (state-independent choice, so each      */
/* update leaves the weighted uniform law on maximal matchings invariant).   */
/* Senders are swept in order; the conditional probabilities of the block's  */
/* options are accumulated (Rao-Blackwellisation) after a 10 % burn-in.      */

static uint64_t rng_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unif(uint64_t *x)
{
    return (double)(rng_next(x) >> 11) * 0x1.0p-53;
}

static uint32_t rng_below(uint64_t *x, uint32_t n)
{
    return (uint32_t)(rng_unif(x) * n);
}

static int sg_mcmc(sg_comp *c, uint64_t seed, size_t updates, size_t *done)
{
    const uint32_t ns = c->ns, nr = c->nr, m = c->m;
    uint32_t *mS = malloc(ns * sizeof *mS), *mR = malloc(nr * sizeof *mR);
    double *acc = calloc(m, sizeof *acc), *cnt = calloc(ns, sizeof *cnt);
    uint32_t maxdeg = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (c->sst[s + 1] - c->sst[s] > maxdeg)
            maxdeg = c->sst[s + 1] - c->sst[s];
    uint32_t *F1 = malloc(((size_t)maxdeg + 1) * sizeof *F1);
    uint32_t *F2 = malloc(((size_t)maxdeg + 1) * sizeof *F2);
    size_t cw_cap = 64;
    double *cw = malloc(cw_cap * sizeof *cw); /* option weights, grown on demand */
    int rc = -1;
    if (!mS || !mR || !acc || !cnt || !F1 || !F2 || !cw)
        goto out;
    for (uint32_t s = 0; s < ns; s++)
        mS[s] = SG_NONE;
    for (uint32_t r = 0; r < nr; r++)
        mR[r] = SG_NONE;
    for (uint32_t e = 0; e < m; e++) /* greedy start: maximal */
        if (mS[c->es[e]] == SG_NONE && mR[c->er[e]] == SG_NONE)
            mS[c->es[e]] = e, mR[c->er[e]] = e;
    uint64_t rs = seed;
    size_t sweeps = (updates + ns - 1) / ns;
    if (sweeps < 10)
        sweeps = 10;
    size_t burn = sweeps / 10;
    for (size_t sw = 0; sw < sweeps; sw++) {
        for (uint32_t s1 = 0; s1 < ns; s1++) {
            /* Partner: random receiver of s1, then random sender of it. */
            uint32_t e1 = c->sadj[c->sst[s1] + rng_below(&rs, c->sst[s1 + 1] - c->sst[s1])];
            uint32_t r1 = c->er[e1];
            uint32_t s2 = c->es[c->radj[c->rst[r1] + rng_below(&rs, c->rst[r1 + 1] - c->rst[r1])]];
            if (s2 == s1)
                s2 = SG_NONE;
            uint32_t bs[2] = {s1, s2}, freed[2] = {SG_NONE, SG_NONE};
            for (int i = 0; i < 2; i++)
                if (bs[i] != SG_NONE && mS[bs[i]] != SG_NONE) {
                    freed[i] = c->er[mS[bs[i]]];
                    mR[freed[i]] = SG_NONE;
                    mS[bs[i]] = SG_NONE;
                }
            /* Options: edges to free receivers (SG_NONE at index 0 = idle). */
            uint32_t n1 = 0, n2 = 0;
            F1[n1++] = SG_NONE;
            for (uint32_t j = c->sst[s1]; j < c->sst[s1 + 1]; j++)
                if (mR[c->er[c->sadj[j]]] == SG_NONE)
                    F1[n1++] = c->sadj[j];
            F2[n2++] = SG_NONE;
            if (s2 != SG_NONE)
                for (uint32_t j = c->sst[s2]; j < c->sst[s2 + 1]; j++)
                    if (mR[c->er[c->sadj[j]]] == SG_NONE)
                        F2[n2++] = c->sadj[j];
            /* A freed receiver left free needs every sender beside it busy:
             * other senders (checked once), and s1/s2 when adjacent. */
            int fr_ok[2] = {1, 1}, fr_s1[2] = {0, 0}, fr_s2[2] = {0, 0};
            for (int i = 0; i < 2; i++) {
                if (freed[i] == SG_NONE)
                    continue;
                for (uint32_t q = c->rst[freed[i]]; q < c->rst[freed[i] + 1]; q++) {
                    uint32_t sx = c->es[c->radj[q]];
                    if (sx == s1)
                        fr_s1[i] = 1;
                    else if (sx == s2)
                        fr_s2[i] = 1;
                    else if (mS[sx] == SG_NONE)
                        fr_ok[i] = 0;
                }
            }
            if ((size_t)n1 * n2 > cw_cap) {
                while ((size_t)n1 * n2 > cw_cap)
                    cw_cap *= 2;
                double *ncw = realloc(cw, cw_cap * sizeof *cw);
                if (!ncw)
                    goto out;
                cw = ncw;
            }
            double Z = 0;
            for (uint32_t i = 0; i < n1; i++)
                for (uint32_t j = 0; j < n2; j++) {
                    double wt = 0;
                    uint32_t ra = F1[i] == SG_NONE ? SG_NONE : c->er[F1[i]];
                    uint32_t rb = F2[j] == SG_NONE ? SG_NONE : c->er[F2[j]];
                    if (ra != SG_NONE && ra == rb)
                        goto put;
                    /* an idle s1 must see all its free receivers taken by s2 */
                    if (ra == SG_NONE && !(n1 == 1 || (n1 == 2 && c->er[F1[1]] == rb)))
                        goto put;
                    if (s2 != SG_NONE && rb == SG_NONE &&
                        !(n2 == 1 || (n2 == 2 && c->er[F2[1]] == ra)))
                        goto put;
                    for (int f = 0; f < 2; f++) {
                        if (freed[f] == SG_NONE || freed[f] == ra || freed[f] == rb)
                            continue;
                        if (!fr_ok[f] || (fr_s1[f] && ra == SG_NONE) ||
                            (fr_s2[f] && rb == SG_NONE))
                            goto put;
                    }
                    wt = (ra == SG_NONE ? 1.0 : c->w[F1[i]]) * (rb == SG_NONE ? 1.0 : c->w[F2[j]]);
                put:
                    cw[(size_t)i * n2 + j] = wt;
                    Z += wt;
                }
            /* Z > 0: the current configuration is always among the options. */
            double u = rng_unif(&rs) * Z;
            uint32_t tot = n1 * n2, pick = tot - 1;
            for (uint32_t k = 0; k < tot; k++) {
                if (cw[k] > 0 && u < cw[k]) {
                    pick = k;
                    break;
                }
                u -= cw[k];
            }
            while (cw[pick] == 0) /* rounding ran past the end: last possible option */
                pick--;
            if (sw >= burn) {
                for (uint32_t i = 0; i < n1; i++)
                    for (uint32_t j = 0; j < n2; j++) {
                        double p = cw[(size_t)i * n2 + j] / Z;
                        if (F1[i] != SG_NONE)
                            acc[F1[i]] += p;
                        if (F2[j] != SG_NONE)
                            acc[F2[j]] += p;
                    }
                cnt[s1] += 1;
                if (s2 != SG_NONE)
                    cnt[s2] += 1;
            }
            uint32_t ea = F1[pick / n2], eb = F2[pick % n2];
            if (ea != SG_NONE)
                mS[s1] = ea, mR[c->er[ea]] = ea;
            if (eb != SG_NONE)
                mS[s2] = eb, mR[c->er[eb]] = eb;
        }
    }
    *done += sweeps * ns;
    for (uint32_t e = 0; e < m; e++) {
        double n = cnt[c->es[e]];
        double p = acc[e] / n;
        /* An edge never seen free gets half a sample rather than zero, so its
         * penalty stays finite (and large). */
        c->pi[e] = p > 0.5 / n ? p : 0.5 / n;
    }
    rc = 0;
out:
    free(mS), free(mR), free(acc), free(cnt), free(F1), free(F2), free(cw);
    return rc;
}

/* ------------------------------------------------------------------------ */

/* Fast path for the commonest large case, a job's all-to-all with one
 * multiplicity m: arcs grouped by source, no repeated pair, n >= 3 senders
 * each reaching the n-1 others. One pass over the arcs; the formula is
 * sg_closed's with c_x = m for every node. Returns 1 when it applied. */
static int sg_fast_alltoall(const ct_graph *g, const unsigned char *active, double *penalty)
{
    const size_t n = g->ncomm, nn = (size_t)g->nnodes;
    if (n < 6)
        return 0;
    uint32_t *stamp = malloc(nn * sizeof *stamp);
    uint32_t *indeg = calloc(nn, sizeof *indeg), *outdeg = calloc(nn, sizeof *outdeg);
    int ok = stamp && indeg && outdeg;
    int64_t m = -1;
    int32_t prev = -1;
    for (size_t v = 0; ok && v < nn; v++)
        stamp[v] = SG_NONE;
    for (size_t i = 0; ok && i < n; i++) {
        if (active && !active[i])
            continue;
        const ct_comm *c = &g->comm[i];
        if (m < 0)
            m = c->mult;
        if (c->mult != m || c->src < prev || stamp[c->dst] == (uint32_t)c->src) {
            /* other multiplicities, sources not in order, or a repeated pair */
            ok = 0;
            break;
        }
        prev = c->src;
        stamp[c->dst] = (uint32_t)c->src;
        outdeg[c->src]++;
        indeg[c->dst]++;
    }
    size_t ns = 0;
    for (size_t v = 0; ok && v < nn; v++)
        ns += outdeg[v] > 0;
    for (size_t v = 0; ok && v < nn; v++)
        if ((outdeg[v] || indeg[v]) && (outdeg[v] != ns - 1 || indeg[v] != ns - 1))
            ok = 0;
    if (ok && ns >= 3) {
        double r = 0.0, k = (double)ns, w = (double)m, S = k / w;
        for (size_t j = 3; j <= ns; j++)
            r = 1.0 / ((double)(j - 1) * (1.0 + r));
        double pi = (1.0 / (k - 1) + r / (k - 2) * (S - 2.0 / w)) / (1.0 + r * S);
        for (size_t i = 0; i < n; i++)
            penalty[i] = (active && !active[i]) ? 0.0 : w / pi; /* 001 §V-B: #sets / minimum */
    } else {
        ok = 0;
    }
    free(stamp), free(indeg), free(outdeg);
    return ok;
}

static const char *path_name(ct_stopgo_path p)
{
    switch (p) {
    case CT_SG_CLOSED: return "closed form";
    case CT_SG_DP: return "frontier DP";
    case CT_SG_ENUM: return "enumeration";
    case CT_SG_MCMC: return "MCMC";
    default: return "any";
    }
}

static size_t mcmc_default_updates(const sg_comp *c)
{
    /* The error falls as 1/sqrt(sweeps) and barely depends on the component's
     * size: 1e5 sweeps give about 2 % on the benches' graphs. At least 1e6
     * block updates, at most 2e7 (~2 s); big components get fewer sweeps and
     * a larger error (doc/models-penalty.md has the measurements). */
    size_t u = (size_t)c->ns * 100000;
    if (u < 1000000)
        u = 1000000;
    if (u > 20000000)
        u = 20000000;
    return u;
}

int ct_stopgo_penalties_ex(const ct_stopgo_opts *o, const ct_graph *g, const unsigned char *active,
                           double *penalty, ct_stopgo_stats *st, ct_err *err)
{
    ct_stopgo_opts def = {0};
    if (!o)
        o = &def;
    if (o->method != CT_STOPGO_AUTO && o->method != CT_STOPGO_EXACT &&
        o->method != CT_STOPGO_SCALABLE)
        return ct_err_set(err, "Stop & Go method %d (accepted: auto, exact, scalable)",
                          (int)o->method);
    if ((int)o->force < CT_SG_ANY || o->force > CT_SG_MCMC)
        return ct_err_set(err, "Stop & Go path %d (accepted: any, closed, dp, enum, mcmc)",
                          (int)o->force);
    if (g->nnodes < 1)
        return ct_err_set(err, "graph with %d nodes (accepted: >= 1)", (int)g->nnodes);
    ct_stopgo_stats stats = {0};
    if (o->method != CT_STOPGO_EXACT && (o->force == CT_SG_ANY || o->force == CT_SG_CLOSED) &&
        sg_fast_alltoall(g, active, penalty)) {
        stats.components = stats.closed = 1;
        if (st)
            *st = stats;
        return 0;
    }
    size_t enum_max = o->enum_max_steps ? o->enum_max_steps : CT_STOPGO_ENUM_MAX_STEPS;
    size_t dp_max = o->dp_max_states ? o->dp_max_states : CT_STOPGO_DP_MAX_STATES;
    uint64_t seed = o->seed ? o->seed : SG_DEFAULT_SEED;

    sg_graph sg;
    if (sg_build(g, active, &sg, err) < 0)
        return -1;
    const size_t nn = (size_t)g->nnodes;
    uint32_t *lmap_s = malloc(nn * sizeof *lmap_s), *lmap_r = malloc(nn * sizeof *lmap_r);
    double *minpi = malloc(nn * sizeof *minpi);
    int rc = -1;
    if (!lmap_s || !lmap_r || !minpi) {
        ct_err_set(err, "Stop & Go: out of memory for %zu nodes", nn);
        goto out;
    }
    for (size_t v = 0; v < nn; v++)
        lmap_s[v] = lmap_r[v] = SG_NONE;
    stats.components = sg.ncomp;
    for (uint32_t ci = 0; ci < sg.ncomp; ci++) {
        const uint32_t *A = sg.carcs + sg.cstart[ci];
        const uint32_t m = sg.cstart[ci + 1] - sg.cstart[ci];
        ct_stopgo_path want = o->force;
        if (want == CT_SG_ANY && o->method == CT_STOPGO_EXACT)
            want = CT_SG_ENUM;
        if (m == 1) { /* a lone pair: always sending */
            sg.pi[A[0]] = 1.0;
            stats.closed++;
            continue;
        }
        if (want == CT_SG_ANY || want == CT_SG_CLOSED) {
            if (sg_closed(&sg, ci, lmap_s)) {
                stats.closed++;
                continue;
            }
            if (want == CT_SG_CLOSED) {
                ct_err_set(err, "Stop & Go: component of %u node pairs (sender node %d) is not an "
                                "all-to-all with factorable multiplicities (closed form accepted "
                                "only for those)",
                           m, (int)sg.asrc[A[0]]);
                goto out;
            }
        }
        sg_comp c;
        if (comp_build(&sg, ci, lmap_s, lmap_r, &c) < 0) {
            comp_free(&c);
            ct_err_set(err, "Stop & Go: out of memory for a component of %u node pairs", m);
            goto out;
        }
        int r = 1;
        ct_stopgo_path used = CT_SG_ANY;
        if (want == CT_SG_ANY || want == CT_SG_DP) {
            r = sg_dp(&c, dp_max, &stats.max_dp_states);
            used = CT_SG_DP;
        }
        if (r == 1 && (want == CT_SG_ENUM || (want == CT_SG_ANY && o->method == CT_STOPGO_AUTO))) {
            size_t budget = want == CT_SG_ENUM ? enum_max
                            : (enum_max < SG_AUTO_ENUM_STEPS ? enum_max : SG_AUTO_ENUM_STEPS);
            memset(c.pi, 0, c.m * sizeof *c.pi);
            r = sg_enum(&c, budget, &stats.enum_steps, NULL);
            used = CT_SG_ENUM;
        }
        if (r == 1 && (want == CT_SG_ANY || want == CT_SG_MCMC)) {
            size_t u = o->mcmc_updates ? o->mcmc_updates : mcmc_default_updates(&c);
            memset(c.pi, 0, c.m * sizeof *c.pi);
            r = sg_mcmc(&c, seed ^ ((uint64_t)ci * 0x9e3779b97f4a7c15ULL), u, &stats.mcmc_updates);
            used = CT_SG_MCMC;
        }
        if (r != 0) {
            if (r < 0)
                ct_err_set(err, "Stop & Go: out of memory in the %s of a component of %u node "
                                "pairs",
                           path_name(used), m);
            else if (used == CT_SG_ENUM)
                ct_err_set(err, "Stop & Go exact enumeration: the component of sender node %d "
                                "(%u senders, %u receivers, %u node pairs) needs more than %zu "
                                "search steps or %d node pairs (accepted: components within "
                                "CT_STOPGO_ENUM_MAX_STEPS, e.g. an all-to-all of up to 10 nodes; "
                                "use the scalable method beyond)",
                           (int)sg.asrc[A[0]], c.ns, c.nr, m, want == CT_SG_ENUM ? enum_max : 0,
                           CT_STOPGO_ENUM_MAX_ARCS);
            else
                ct_err_set(err, "Stop & Go frontier DP: the component of sender node %d (%u "
                                "node pairs) needs more than %d open receivers or %zu states "
                                "(accepted: narrow components; use the scalable method)",
                           (int)sg.asrc[A[0]], m, CT_STOPGO_DP_MAX_FRONTIER, dp_max);
            comp_free(&c);
            goto out;
        }
        if (used == CT_SG_DP)
            stats.dp++;
        else if (used == CT_SG_ENUM)
            stats.enumerated++;
        else
            stats.mcmc++;
        for (uint32_t k = 0; k < m; k++)
            sg.pi[A[k]] = c.pi[k];
        comp_free(&c);
    }
    /* 001 §V-B: each communication takes the minimum emission coefficient over
     * its source node's outgoing communications; penalty = #sets / minimum,
     * i.e. 1 / min Pr[copy sending], a copy of pair a sending w.p. pi[a] / w[a]. */
    for (size_t v = 0; v < nn; v++)
        minpi[v] = INFINITY;
    for (uint32_t a = 0; a < sg.narc; a++) {
        double p = sg.pi[a] / sg.w[a];
        if (p < minpi[sg.asrc[a]])
            minpi[sg.asrc[a]] = p;
    }
    for (size_t i = 0; i < g->ncomm; i++)
        penalty[i] = sg.arc_of[i] == SG_NONE ? 0.0 : 1.0 / minpi[g->comm[i].src];
    rc = 0;
out:
    if (st)
        *st = stats;
    free(lmap_s), free(lmap_r), free(minpi);
    sg_free(&sg);
    return rc;
}

int ct_stopgo_penalties(ct_stopgo_method method, unsigned long seed, const ct_graph *g,
                        double *penalty, ct_err *err)
{
    ct_stopgo_opts o = {.method = method, .seed = seed};
    return ct_stopgo_penalties_ex(&o, g, NULL, penalty, NULL, err);
}

/* ---- the model's entry in the registry (model.h) */

static int stopgo_penalties(const ct_penalty_model *m, const ct_graph *g,
                            const unsigned char *active, double *penalty, ct_err *err)
{
    ct_stopgo_opts o = {.method = (ct_stopgo_method)m->integer[CT_STOPGO_METHOD],
                        .seed = (unsigned long)m->integer[CT_STOPGO_SEED]};
    return ct_stopgo_penalties_ex(&o, g, active, penalty, NULL, err);
}

static const char *const stopgo_methods[] = {"auto", "exact", "scalable", NULL};
static const ct_model_key stopgo_keys[] = {
    {.key = "method",
     .unit = "",
     .meaning = "how the maximal sets are counted (auto, exact, scalable)",
     .type = CT_PARAM_CHOICE, .slot = CT_STOPGO_METHOD, .choices = stopgo_methods},
    {.key = "seed",
     .unit = "1",
     .meaning = "seed of the scalable method's Markov chain; 0 = default",
     .type = CT_PARAM_INT, .slot = CT_STOPGO_SEED, .lo = 0, .hi = (double)INT64_MAX},
};

const ct_model_ops ct_model_stopgo = {
    .info = {.name = "stopgo",
             .label = "Stop & Go",
             .cite = "001 §V-B",
             .summary = "Myrinet Stop & Go: penalty = #maximal sets / min emission at the source",
             .keys = stopgo_keys,
             .nkeys = sizeof stopgo_keys / sizeof stopgo_keys[0],
             .penalty_ge1 = 1},
    .penalties = stopgo_penalties,
};

int ct_stopgo_exact_counts(const ct_graph *g, double *nsets, double *emission, ct_err *err)
{
    if (g->nnodes < 1)
        return ct_err_set(err, "graph with %d nodes (accepted: >= 1)", (int)g->nnodes);
    sg_graph sg;
    if (sg_build(g, NULL, &sg, err) < 0)
        return -1;
    const size_t nn = (size_t)g->nnodes;
    uint32_t *lmap_s = malloc(nn * sizeof *lmap_s), *lmap_r = malloc(nn * sizeof *lmap_r);
    double *ncomp = malloc(((size_t)sg.ncomp + 1) * sizeof *ncomp);
    uint32_t *comp_of = malloc(((size_t)sg.narc + 1) * sizeof *comp_of);
    int rc = -1;
    if (!lmap_s || !lmap_r || !ncomp || !comp_of) {
        ct_err_set(err, "Stop & Go: out of memory for %zu nodes", nn);
        goto out;
    }
    for (size_t v = 0; v < nn; v++)
        lmap_s[v] = lmap_r[v] = SG_NONE;
    double total = 1.0;
    size_t steps = 0;
    for (uint32_t ci = 0; ci < sg.ncomp; ci++) {
        const uint32_t *A = sg.carcs + sg.cstart[ci];
        const uint32_t m = sg.cstart[ci + 1] - sg.cstart[ci];
        sg_comp c;
        if (comp_build(&sg, ci, lmap_s, lmap_r, &c) < 0) {
            comp_free(&c);
            ct_err_set(err, "Stop & Go: out of memory for a component of %u node pairs", m);
            goto out;
        }
        int r = sg_enum(&c, CT_STOPGO_ENUM_MAX_STEPS, &steps, &ncomp[ci]);
        if (r != 0) {
            if (r < 0)
                ct_err_set(err, "Stop & Go: out of memory enumerating %u node pairs", m);
            else
                ct_err_set(err, "Stop & Go exact enumeration: the component of sender node %d "
                                "(%u node pairs) needs more than %zu search steps or %d node "
                                "pairs (accepted: components within CT_STOPGO_ENUM_MAX_STEPS)",
                           (int)sg.asrc[A[0]], m, (size_t)CT_STOPGO_ENUM_MAX_STEPS,
                           CT_STOPGO_ENUM_MAX_ARCS);
            comp_free(&c);
            goto out;
        }
        for (uint32_t k = 0; k < m; k++) {
            sg.pi[A[k]] = c.pi[k];
            comp_of[A[k]] = ci;
        }
        total *= ncomp[ci];
        comp_free(&c);
    }
    /* A copy of pair a lies in pi[a]/w[a] of its component's sets, and the
     * other components multiply the count. */
    for (size_t i = 0; i < g->ncomm; i++) {
        uint32_t a = sg.arc_of[i];
        emission[i] = sg.pi[a] / sg.w[a] * total;
    }
    *nsets = total;
    rc = 0;
out:
    free(lmap_s), free(lmap_r), free(ncomp), free(comp_of);
    sg_free(&sg);
    return rc;
}
