/* Incremental network state for event-driven engines (internal to libcontention).
 *
 * One structure shared by the trace-replay simulator (simulate.c) and the
 * progressive evaluator (progressive.c): the communications in flight as
 * links of per-node doubly linked lists, per-node degrees Δo / Δi (paper 001
 * §V-A, counted in communications: a link of mult m counts m), and, for the
 * GigE model, per node the max of Δi over its outgoing links with the weight
 * reaching it (mo, co = card C_o^m) and the max of Δo over its incoming links
 * with its weight (mi, ci = card C_i^m).
 *
 * Links are addressed by handles the caller chooses (0..cap-1, the caller's
 * own slot numbers); gnet_reserve makes room. Link and unlink only record
 * the change; gnet_commit_gige then brings mo/co/mi/ci up to date in
 * O(links at the nodes whose degrees changed) -- a max group is rescanned only
 * when it empties -- and lists in touched[] (with new penalties in tpen[])
 * every link whose GigE penalty inputs moved. Implemented in penalty_gige.c.
 */
#ifndef CONTENTION_GIGE_INCREMENTAL_H
#define CONTENTION_GIGE_INCREMENTAL_H

#include <stddef.h>
#include <stdint.h>

#include "contention/penalty.h"

typedef struct glink {
    int32_t src, dst; /* nodes */
    int32_t next_out, prev_out, next_in, prev_in;
    int64_t mult;
    uint32_t stamp;    /* == epoch: already listed in touched[] */
    uint8_t linked;    /* in the lists */
    uint8_t committed; /* its weight is in mo/co/mi/ci */
} glink;

typedef struct mem_acct {
    size_t now, peak; /* bytes of growable work arrays */
} mem_acct;

/* Per node, hot fields first (one cache line: the array is 64-byte aligned,
 * each node 128 bytes), the commit's bookkeeping after. */
typedef struct gnode {
    _Alignas(64) int64_t out;
    int64_t in;             /* live Δo, Δi */
    int64_t mo, co, mi, ci; /* GigE: max Δi over outgoing (count), max Δo over incoming (count) */
    int32_t head_out, head_in;
    uint32_t st_out, st_in;     /* node seen in this commit (out / in side) */
    int64_t outc, inc;          /* Δo, Δi as of the last commit */
    int64_t mo0, co0, mi0, ci0; /* values before the commit in progress */
    uint32_t st_bfs;            /* free for callers (component searches) */
    uint8_t rescan_o, rescan_i; /* max group emptied: rescan at the end */
} gnode;

typedef struct gnet {
    int32_t nnodes;
    int gige; /* keep mo/co/mi/ci (GigE); otherwise lists and degrees only */
    double share, skew_in, skew_out; /* GigE parameters (penalty.h CT_GIGE_*) */
    unsigned flags;
    gnode *nd;
    uint32_t epoch;
    glink *l;
    size_t lcap;
    /* changes since the last commit */
    int32_t *added; /* handles linked */
    size_t nadded, added_cap;
    int64_t *removed; /* (src, dst, mult) triples of committed links unlinked */
    size_t nremoved, removed_cap;
    int32_t *nodes_o, *nodes_i; /* nodes whose out / in side changed */
    size_t no, ni, no_cap, ni_cap;
    /* output of a commit, and a work list callers may use */
    int32_t *touched;
    double *tpen;
    size_t ntouched, touched_cap, tpen_cap;
    int32_t *work;
    size_t nwork, work_cap;
    mem_acct *acct; /* NULL: not accounted */
} gnet;

/* Grow *p (elements of elem bytes, *cap of them) to hold need; counted in acct. */
int gnet_grow(void **p, size_t *cap, size_t need, size_t elem, mem_acct *acct);

/* Lists and degrees only; a model's inc_init hook (model.h) adds its state. */
int gnet_init(gnet *g, int32_t nnodes, mem_acct *acct);
void gnet_free(gnet *g);
/* Room for handles 0..n-1. */
int gnet_reserve(gnet *g, size_t n);
/* Link k = src -> dst of mult communications / unlink it (inline: the
 * simulator calls them per transfer). */
static inline int gnet_link(gnet *g, int32_t k, int32_t src, int32_t dst, int64_t mult)
{
    if (g->nadded == g->added_cap &&
        gnet_grow((void **)&g->added, &g->added_cap, g->nadded + 1, sizeof(int32_t), g->acct))
        return -1;
    glink *x = &g->l[k];
    x->src = src;
    x->dst = dst;
    x->mult = mult;
    x->linked = 1;
    x->committed = 0;
    x->prev_out = -1;
    x->next_out = g->nd[src].head_out;
    if (g->nd[src].head_out >= 0)
        g->l[g->nd[src].head_out].prev_out = k;
    g->nd[src].head_out = k;
    x->prev_in = -1;
    x->next_in = g->nd[dst].head_in;
    if (g->nd[dst].head_in >= 0)
        g->l[g->nd[dst].head_in].prev_in = k;
    g->nd[dst].head_in = k;
    g->nd[src].out += mult;
    g->nd[dst].in += mult;
    g->added[g->nadded++] = k;
    return 0;
}

static inline int gnet_unlink(gnet *g, int32_t k)
{
    glink *x = &g->l[k];
    if (x->committed) {
        if (g->nremoved + 3 > g->removed_cap &&
            gnet_grow((void **)&g->removed, &g->removed_cap, g->nremoved + 3, sizeof(int64_t),
                         g->acct))
            return -1;
        g->removed[g->nremoved++] = x->src;
        g->removed[g->nremoved++] = x->dst;
        g->removed[g->nremoved++] = x->mult;
    }
    if (x->prev_out >= 0)
        g->l[x->prev_out].next_out = x->next_out;
    else
        g->nd[x->src].head_out = x->next_out;
    if (x->next_out >= 0)
        g->l[x->next_out].prev_out = x->prev_out;
    if (x->prev_in >= 0)
        g->l[x->prev_in].next_in = x->next_in;
    else
        g->nd[x->dst].head_in = x->next_in;
    if (x->next_in >= 0)
        g->l[x->next_in].prev_in = x->prev_in;
    g->nd[x->src].out -= x->mult;
    g->nd[x->dst].in -= x->mult;
    x->linked = x->committed = 0;
    return 0;
}

/* Anything linked or unlinked since the last commit? */
static inline int gnet_dirty(const gnet *g)
{
    return g->nadded || g->nremoved;
}
/* Start a new stamp epoch (stamps of links and st_* arrays). */
void gnet_next_epoch(gnet *g);
int gnet_mark_grow(gnet *g);
/* Append link k to touched[] unless already there in this epoch. */
static inline int gnet_mark(gnet *g, int32_t k)
{
    if (g->l[k].stamp == g->epoch)
        return 0;
    g->l[k].stamp = g->epoch;
    if (g->ntouched == g->touched_cap && gnet_mark_grow(g))
        return -1;
    g->touched[g->ntouched++] = k;
    return 0;
}
/* Nodes whose degrees changed since the last commit, each once (out side then
 * in side may repeat a node); forgets the changes. Used by non-GigE callers. */
int gnet_commit_nodes(gnet *g);
/* Bring the GigE state up to date and list the links whose penalty inputs
 * moved in touched[0..ntouched-1], their new penalties in tpen[]. */
int gnet_commit_gige(gnet *g);

#endif
