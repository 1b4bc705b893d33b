/* The event engine of engine.h: transfers in flight, their completion heap,
 * and the re-application of the penalty model after each instant's changes.
 * Used by the trace-replay simulator (001 §VI-A) and by the progressive
 * evaluation, which is a replay whose transfers are all posted at t = 0. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#include "contention/simulate.h" /* CT_CONFLICT_* */

#include "grow.h"

static inline int grow_arr(void **p, size_t *cap, size_t need, size_t elem, eng *e)
{
    if (need <= *cap) /* the common case stays inline */
        return 0;
    return gnet_grow(p, cap, need, elem, &e->acct);
}

/* The transfers, on cache-line boundaries (xfer's hot line). */
static int grow_xfers(eng *e, size_t need, size_t *cap)
{
    size_t old = *cap;
    if (grow_array_aligned((void **)&e->s, cap, need, sizeof(xfer), 64, _Alignof(xfer)))
        return -1;
    e->acct.now += (*cap - old) * sizeof(xfer);
    if (e->acct.now > e->acct.peak)
        e->acct.peak = e->acct.now;
    return 0;
}

void eng_free(eng *e)
{
    gnet_free(&e->g);
    free(e->local);
    free(e->s);
    free(e->hbuf);
    free(e->hpos);
    free(e->gbuf);
    free(e->pbuf);
    free(e->gmap);
    free(e->active);
    free(e->slot_of);
    free(e->gpen);
    memset(e, 0, sizeof *e);
}

int eng_init(eng *e, int32_t nnodes, const ct_penalty_model *m, int reference)
{
    memset(e, 0, sizeof *e);
    e->nnodes = nnodes;
    e->model = *m;
    e->ops = model_ops_of(m->kind);
    e->whole = m->tree != NULL;
    e->incremental = e->ops && e->ops->inc_commit && !reference && !e->whole;
    e->free_head = -1;
    e->bad = -1;
    e->local = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof(int32_t));
    if (!e->ops || nnodes < 1 || !e->local || gnet_init(&e->g, nnodes, &e->acct) ||
        (e->incremental && e->ops->inc_init && e->ops->inc_init(&e->g, m))) {
        eng_free(e);
        return -1;
    }
    return 0;
}

int eng_graph(eng *e, const ct_graph *g)
{
    size_t n = g->ncomm ? g->ncomm : 1;
    e->graph = g;
    e->whole = 1;
    e->incremental = e->incremental && !e->model.tree;
    e->active = calloc(n, 1);
    e->slot_of = malloc(n * sizeof *e->slot_of);
    e->gpen = malloc(n * sizeof *e->gpen);
    return e->active && e->slot_of && e->gpen ? 0 : -1;
}

/* ---- completion heap, keyed by (finish, tag): 4-ary, keys in the entries */

#define HEAP_ARITY 4
/* Entries are 16 bytes: with the root at hbuf[3] of a 64-byte aligned
 * buffer, the children 4i+1 .. 4i+4 of every entry fill one cache line. */
#define HEAP_SKEW 3

static inline int before(const eng *e, const eng_hent *a, const eng_hent *b)
{
    if (a->finish != b->finish)
        return a->finish < b->finish;
    return e->s[a->k].tag < e->s[b->k].tag; /* tags are unique: a total order */
}

static inline void heap_set(eng *e, size_t i, eng_hent h)
{
    e->heap[i] = h;
    e->hpos[h.k] = (int32_t)i;
}

/* Sift entry i up; 1 when it moved. */
static int heap_up(eng *e, size_t i)
{
    eng_hent h = e->heap[i];
    size_t i0 = i;
    while (i > 0) {
        size_t par = (i - 1) / HEAP_ARITY;
        if (!before(e, &h, &e->heap[par]))
            break;
        heap_set(e, i, e->heap[par]);
        i = par;
    }
    if (i != i0)
        heap_set(e, i, h);
    return i != i0;
}

static void heap_down(eng *e, size_t i)
{
    eng_hent h = e->heap[i];
    const size_t n = e->nheap;
    size_t i0 = i;
    for (;;) {
        size_t c = HEAP_ARITY * i + 1;
        if (c >= n)
            break;
        size_t end = c + HEAP_ARITY < n ? c + HEAP_ARITY : n, best = c;
        for (size_t j = c + 1; j < end; j++)
            if (before(e, &e->heap[j], &e->heap[best]))
                best = j;
        if (!before(e, &e->heap[best], &h))
            break;
        heap_set(e, i, e->heap[best]);
        i = best;
    }
    if (i != i0)
        heap_set(e, i, h);
}

/* Transfer k's end changed: its entry takes the new key and moves. */
static inline void heap_fix(eng *e, int32_t k)
{
    size_t i = (size_t)e->hpos[k];
    e->heap[i].finish = e->s[k].finish;
    if (e->heap_unordered)
        return;
    if (!heap_up(e, i))
        heap_down(e, i);
}

static int32_t heap_pop(eng *e)
{
    int32_t k = e->heap[0].k;
    e->nheap--;
    if (e->nheap) {
        heap_set(e, 0, e->heap[e->nheap]);
        heap_down(e, 0);
    }
    e->hpos[k] = -1;
    return k;
}

/* ---- transfers */

/* Conflict kinds (001 §IV-A). Invariants kept at each link: when Δo(v) >= 2
 * every transfer out of v carries OUT; when Δi(v) >= 2 every transfer into v
 * carries IN; when v both sends and receives, all of them carry INOUT. So a
 * list is scanned only when a node crosses one of those thresholds. */
static void flag_on_link(eng *e, int32_t k)
{
    xfer *S = e->s;
    const gnet *G = &e->g;
    const glink *L = G->l;
    int32_t a = S[k].src, b = S[k].dst;
    if (G->nd[a].out >= 2) {
        if (G->nd[a].out == 2)
            for (int32_t x = G->nd[a].head_out; x >= 0; x = L[x].next_out)
                S[x].conflict |= CT_CONFLICT_OUT;
        S[k].conflict |= CT_CONFLICT_OUT;
    }
    if (G->nd[b].in >= 2) {
        if (G->nd[b].in == 2)
            for (int32_t x = G->nd[b].head_in; x >= 0; x = L[x].next_in)
                S[x].conflict |= CT_CONFLICT_IN;
        S[k].conflict |= CT_CONFLICT_IN;
    }
    if (G->nd[a].in > 0) {
        S[k].conflict |= CT_CONFLICT_INOUT;
        if (G->nd[a].out == 1) /* a starts sending: its incoming transfers meet outgoing traffic */
            for (int32_t x = G->nd[a].head_in; x >= 0; x = L[x].next_in)
                S[x].conflict |= CT_CONFLICT_INOUT;
    }
    if (G->nd[b].out > 0) {
        S[k].conflict |= CT_CONFLICT_INOUT;
        if (G->nd[b].in == 1)
            for (int32_t x = G->nd[b].head_out; x >= 0; x = L[x].next_out)
                S[x].conflict |= CT_CONFLICT_INOUT;
    }
}

int32_t eng_start(eng *e, int32_t src, int32_t dst, int64_t mult, double alone, int64_t tag)
{
    int32_t k;
    if (e->free_head >= 0) {
        k = e->free_head;
        e->free_head = e->s[k].next_free;
    } else {
        if (e->used >= (size_t)INT32_MAX - 1)
            return -1;
        size_t cap = e->cap, pcap = e->cap;
        if (grow_xfers(e, e->used + 1, &cap) ||
            grow_arr((void **)&e->hpos, &pcap, cap, sizeof(int32_t), e) ||
            gnet_reserve(&e->g, cap))
            return -1;
        e->cap = cap;
        k = (int32_t)e->used++;
    }
    xfer *x = &e->s[k];
    memset(x, 0, sizeof *x);
    x->p = x->p_start = 1.0;
    x->tag = tag;
    x->src = src;
    x->dst = dst;
    x->start = x->tu = e->now;
    x->alone = x->r = alone;
    x->finish = e->now + alone;
    if (e->nheap + HEAP_SKEW + 1 > e->heap_cap) {
        size_t old = e->heap_cap;
        if (grow_array_aligned((void **)&e->hbuf, &e->heap_cap, e->nheap + HEAP_SKEW + 1,
                               sizeof(eng_hent), 64, 64))
            return -1;
        e->heap = e->hbuf + HEAP_SKEW;
        e->acct.now += (e->heap_cap - old) * sizeof(eng_hent);
        if (e->acct.now > e->acct.peak)
            e->acct.peak = e->acct.now;
    }
    heap_set(e, e->nheap++, (eng_hent){.finish = x->finish, .k = k});
    if (!e->heap_unordered)
        heap_up(e, e->nheap - 1);
    if (e->graph) {
        e->active[tag] = 1;
        e->slot_of[tag] = k;
        e->nactive++;
    }
    if (src != dst) {
        x->remote = 1;
        if (gnet_link(&e->g, k, src, dst, mult))
            return -1;
        if (e->track_conflicts)
            flag_on_link(e, k);
    }
    return k;
}

/* The end of a transfer with a fixed time (eng_offset), finish holding
 * now + r p */
static inline double fixed_end(const eng *e, const xfer *x)
{
    double f = x->finish + x->fix, lo = x->start + x->lat;
    if (f < lo)
        f = lo;
    return f > e->now ? f : e->now;
}

/* x's remaining time alone brought to now under its penalty so far, then
 * its end under penalty p (engine.h: r -= (now - tu) / p_old, end = now +
 * r p), and its fixed time (eng_offset) */
static inline void re_end(eng *e, xfer *x, double p)
{
    double r = x->r - (e->now - x->tu) / x->p;
    x->r = r > 0 ? r : 0;
    x->tu = e->now;
    x->p = p;
    x->finish = e->now + x->r * p;
    if (x->fix != 0)
        x->finish = fixed_end(e, x);
}

void eng_offset(eng *e, int32_t k, double fix, double lat)
{
    xfer *x = &e->s[k];
    x->fix = fix;
    x->lat = lat;
    re_end(e, x, x->p);
    heap_fix(e, k);
}

/* Set a transfer's penalty now (see engine.h). */
static inline void apply_penalty(eng *e, int32_t k, double p)
{
    xfer *x = &e->s[k];
    e->evals++;
    if (!(p > 0 && p < INFINITY)) { /* reported by the commit */
        if (e->bad < 0)
            e->bad = k, e->bad_p = p;
        return;
    }
    if (p != x->p) {
        re_end(e, x, p);
        heap_fix(e, k);
    }
    if (x->start == e->now)
        x->p_start = p;
}

/* Re-apply the model to the transfers listed in G->touched[] as one graph
 * over the nodes listed in G->work[] (renumbered 0.. so that the model's cost
 * follows the component, not the cluster). */
static int apply_to_touched(eng *e, ct_err *err)
{
    gnet *G = &e->g;
    size_t gc = e->gcap;
    if (grow_arr((void **)&e->gbuf, &gc, G->ntouched, sizeof(ct_comm), e))
        return ct_err_set(err, "out of memory");
    gc = e->gcap;
    if (grow_arr((void **)&e->pbuf, &gc, G->ntouched, sizeof(double), e))
        return ct_err_set(err, "out of memory");
    e->gcap = gc;
    for (size_t q = 0; q < G->nwork; q++)
        e->local[G->work[q]] = (int32_t)q;
    for (size_t j = 0; j < G->ntouched; j++) {
        int32_t k = G->touched[j];
        e->gbuf[j] = (ct_comm){.src = e->local[e->s[k].src],
                               .dst = e->local[e->s[k].dst],
                               .mult = G->l[k].mult,
                               .bytes = e->s[k].bytes};
    }
    ct_graph g = {
        .nnodes = (int32_t)G->nwork, .ncomm = G->ntouched, .cap = G->ntouched, .comm = e->gbuf};
    const ct_penalty_model *m = &e->model;
    ct_penalty_model ml;
    if (e->long_t_from > 0) { /* δ at the component's largest transfer (engine.h) */
        double mbig = -1, tbig = 0;
        for (size_t j = 0; j < G->ntouched; j++) {
            const xfer *x = &e->s[G->touched[j]];
            if (x->bytes > mbig) {
                mbig = x->bytes;
                tbig = x->alone;
            }
        }
        ml = e->model;
        ml.real[CT_DUPLEX_COUPLING] = ct_duplex_long_delta(&e->model, tbig, e->long_t_from);
        m = &ml;
    }
    int rc = e->whole ? ct_penalties(m, &g, e->pbuf, err)
                      : e->ops->penalties(m, &g, NULL, e->pbuf, err);
    if (rc)
        return -1;
    for (size_t j = 0; j < G->ntouched; j++)
        apply_penalty(e, G->touched[j], e->pbuf[j]);
    return 0;
}

static int push_work(eng *e, int32_t v, ct_err *err)
{
    gnet *G = &e->g;
    if (grow_arr((void **)&G->work, &G->work_cap, G->nwork + 1, sizeof(int32_t), e))
        return ct_err_set(err, "out of memory");
    G->work[G->nwork++] = v;
    return 0;
}

/* Each connected component (transfers linked through shared nodes) that
 * holds a changed node: a component's penalties do not depend on traffic
 * outside it. */
static int component_commit(eng *e, ct_err *err)
{
    gnet *G = &e->g;
    for (size_t i = 0; i < G->no; i++) {
        int32_t root = G->nodes_o[i];
        if (G->nd[root].st_bfs == G->epoch)
            continue;
        G->nd[root].st_bfs = G->epoch;
        G->nwork = G->ntouched = 0;
        if (push_work(e, root, err))
            return -1;
        for (size_t q = 0; q < G->nwork; q++) {
            int32_t v = G->work[q];
            for (int dir = 0; dir < 2; dir++) {
                for (int32_t x = dir ? G->nd[v].head_in : G->nd[v].head_out; x >= 0;
                     x = dir ? G->l[x].next_in : G->l[x].next_out) {
                    int32_t w = dir ? G->l[x].src : G->l[x].dst;
                    if (gnet_mark(G, x))
                        return ct_err_set(err, "out of memory");
                    if (G->nd[w].st_bfs != G->epoch) {
                        G->nd[w].st_bfs = G->epoch;
                        if (push_work(e, w, err))
                            return -1;
                    }
                }
            }
        }
        if (G->ntouched && apply_to_touched(e, err))
            return -1;
    }
    return 0;
}

/* Everything in flight as one graph over every node (switch trees), or the
 * caller's graph with its active arcs (eng_graph). */
static int whole_commit(eng *e, ct_err *err)
{
    gnet *G = &e->g;
    if (e->graph) {
        if (!e->nactive)
            return 0;
        if (ct_penalties_active(&e->model, e->graph, e->active, e->gpen, err) < 0)
            return -1;
        for (size_t i = 0; i < e->graph->ncomm; i++)
            if (e->active[i])
                apply_penalty(e, e->slot_of[i], e->gpen[i]);
        return 0;
    }
    G->nwork = G->ntouched = 0;
    for (int32_t v = 0; v < G->nnodes; v++) {
        if (push_work(e, v, err))
            return -1;
        for (int32_t x = G->nd[v].head_out; x >= 0; x = G->l[x].next_out)
            if (gnet_mark(G, x))
                return ct_err_set(err, "out of memory");
    }
    return G->ntouched ? apply_to_touched(e, err) : 0;
}

int eng_commit(eng *e, ct_err *err)
{
    int rc = 0;
    if (gnet_dirty(&e->g)) {
        if (e->incremental) {
            if (e->ops->inc_commit(&e->g))
                return ct_err_set(err, "out of memory re-evaluating penalties");
            for (size_t i = 0; i < e->g.ntouched; i++)
                apply_penalty(e, e->g.touched[i], e->g.tpen[i]);
        } else {
            if (gnet_commit_nodes(&e->g))
                return ct_err_set(err, "out of memory re-evaluating penalties");
            rc = e->whole ? whole_commit(e, err) : component_commit(e, err);
        }
    }
    if (rc == 0 && e->bad >= 0) {
        const xfer *x = &e->s[e->bad];
        return ct_err_set(err,
                          "%s model gave communication %lld (node %d -> %d) penalty %g "
                          "(accepted: finite, > 0)",
                          ct_model_name(e->model.kind), (long long)x->tag, (int)x->src,
                          (int)x->dst, e->bad_p);
    }
    if (rc == 0 && e->heap_unordered) { /* a bulk start: order the heap once */
        e->heap_unordered = 0;
        if (e->nheap > 1)
            for (size_t j = (e->nheap - 2) / HEAP_ARITY + 1; j-- > 0;)
                heap_down(e, j);
    }
    return rc;
}

int32_t eng_pop_due(eng *e)
{
    if (!e->nheap || !(e->heap[0].finish <= e->due))
        return -1;
    int32_t k = heap_pop(e);
    if (e->graph) {
        e->active[e->s[k].tag] = 0;
        e->nactive--;
    }
    if (e->s[k].remote && gnet_unlink(&e->g, k))
        return -2;
    return k;
}
