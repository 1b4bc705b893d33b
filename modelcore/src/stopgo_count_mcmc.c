/* Stop & Go counting, MCMC path (stopgo_count.h): a heat-bath Markov chain
 * on maximal matchings, Rao-Blackwellised. */
#include "stopgo_count.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int sg_mcmc(sg_comp *c, uint64_t seed, size_t updates, size_t *done)
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
