/* Stop & Go counting, CLOSED path (stopgo_count.h): an all-to-all component
 * counted in closed form from derangement numbers; our own derivation,
 * checked against ENUM in test_penalty_stopgo. */
#include "stopgo_count.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int sg_closed(const sg_graph *sg, uint32_t ci, uint32_t *lmap)
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

/* Fast path for the commonest large case, a job's all-to-all with one
 * multiplicity m: arcs grouped by source, no repeated pair, n >= 3 senders
 * each reaching the n-1 others. One pass over the arcs; the formula is
 * sg_closed's with c_x = m for every node. Returns 1 when it applied. */
int sg_fast_alltoall(const ct_graph *g, const unsigned char *active, double *penalty)
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
