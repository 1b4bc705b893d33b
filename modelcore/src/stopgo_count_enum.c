/* Stop & Go counting, ENUM path (stopgo_count.h): the maximal sets of
 * states enumerated exactly (Bron-Kerbosch with pivoting). */
#include "stopgo_count.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
int sg_enum(sg_comp *c, size_t max_steps, size_t *steps, double *nsets)
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
