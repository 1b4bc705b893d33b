/* Node-level communication graph with multiplicities (paper 001 §IV-A, §V). */
#include "contention/commgraph.h"
#include "grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ct_graph_init(ct_graph *g, int32_t nnodes, ct_err *err)
{
    if (!g)
        return ct_err_set(err, "ct_graph_init: NULL graph");
    memset(g, 0, sizeof *g);
    if (nnodes < 1)
        return ct_err_set(err, "invalid node count %d (accepted: >= 1)", (int)nnodes);
    g->nnodes = nnodes;
    return 0;
}

void ct_graph_free(ct_graph *g)
{
    if (!g)
        return;
    free(g->comm);
    g->comm = NULL;
    g->ncomm = g->cap = 0;
}

int ct_graph_add(ct_graph *g, int32_t src, int32_t dst, int64_t mult, double bytes, ct_err *err)
{
    if (src < 0 || src >= g->nnodes || dst < 0 || dst >= g->nnodes)
        return ct_err_set(err, "arc %d->%d: node out of range (accepted: 0..%d)", (int)src,
                          (int)dst, (int)g->nnodes - 1);
    if (src == dst)
        return ct_err_set(err, "arc %d->%d: source equals destination (intra-node traffic is "
                               "not network traffic; accepted: src != dst)",
                          (int)src, (int)dst);
    if (mult < 1)
        return ct_err_set(err, "arc %d->%d: multiplicity %lld (accepted: >= 1)", (int)src,
                          (int)dst, (long long)mult);
    if (!isfinite(bytes) || bytes < 0)
        return ct_err_set(err, "arc %d->%d: size %g bytes (accepted: finite, >= 0)", (int)src,
                          (int)dst, bytes);
    if (grow_array((void **)&g->comm, &g->cap, g->ncomm + 1, sizeof *g->comm, 16) < 0)
        return ct_err_set(err, "out of memory growing a graph to %zu arcs", g->ncomm + 1);
    g->comm[g->ncomm++] = (ct_comm){.src = src, .dst = dst, .mult = mult, .bytes = bytes};
    return 0;
}

static int cmp_comm(const void *pa, const void *pb)
{
    const ct_comm *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    return 0;
}

void ct_graph_coalesce(ct_graph *g)
{
    if (g->ncomm < 2)
        return;
    qsort(g->comm, g->ncomm, sizeof *g->comm, cmp_comm);
    size_t w = 0;
    for (size_t i = 1; i < g->ncomm; i++) {
        if (cmp_comm(&g->comm[w], &g->comm[i]) == 0)
            g->comm[w].mult += g->comm[i].mult;
        else
            g->comm[++w] = g->comm[i];
    }
    g->ncomm = w + 1;
}

int64_t ct_graph_total(const ct_graph *g)
{
    int64_t t = 0;
    for (size_t i = 0; i < g->ncomm; i++)
        t += g->comm[i].mult;
    return t;
}

void ct_graph_degrees_active(const ct_graph *g, const unsigned char *active, int64_t *out,
                             int64_t *in)
{
    memset(out, 0, (size_t)g->nnodes * sizeof *out);
    memset(in, 0, (size_t)g->nnodes * sizeof *in);
    for (size_t i = 0; i < g->ncomm; i++) {
        if (active && !active[i])
            continue;
        out[g->comm[i].src] += g->comm[i].mult;
        in[g->comm[i].dst] += g->comm[i].mult;
    }
}

void ct_graph_degrees(const ct_graph *g, int64_t *out, int64_t *in)
{
    ct_graph_degrees_active(g, NULL, out, in);
}
