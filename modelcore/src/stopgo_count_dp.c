/* Stop & Go counting, DP path (stopgo_count.h): exact dynamic programme over
 * the senders in BFS order, exponential only in the receiver frontier. */
#include "stopgo_count.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
int sg_dp(sg_comp *c, size_t max_states, size_t *peak)
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
    slot_used = calloc(SG_DP_MAX_FRONTIER, sizeof *slot_used);
    if (!slot_used)
        goto out;
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t s = pl.order[k];
        for (uint32_t j = c->sst[s]; j < c->sst[s + 1]; j++) {
            uint32_t r = c->er[c->sadj[j]];
            if (firstp[r] != k)
                continue;
            uint32_t sl = 0;
            while (sl < SG_DP_MAX_FRONTIER && slot_used[sl])
                sl++;
            if (sl == SG_DP_MAX_FRONTIER) {
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
