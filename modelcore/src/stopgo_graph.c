/* Stop & Go (penalty_stopgo.c): the active arcs merged into weighted node
 * pairs, their connected components, and one component in local numbering
 * for the counting methods (stopgo_count.h). */
#include "stopgo_count.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Merged, weighted bipartite graph over the active arcs, split in components */


void sg_free(sg_graph *sg)
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

int sg_build(const ct_graph *g, const unsigned char *active, sg_graph *sg, ct_err *err)
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


void sg_comp_free(sg_comp *c)
{
    free(c->es), free(c->er), free(c->w), free(c->sst), free(c->sadj), free(c->rst), free(c->radj);
    free(c->pi);
    memset(c, 0, sizeof *c);
}

/* lmap: nnodes entries, all SG_NONE on entry and on return. */
int sg_comp_build(const sg_graph *sg, uint32_t ci, uint32_t *lmap_s, uint32_t *lmap_r,
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
