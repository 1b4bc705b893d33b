/* Trace-replay simulator of paper 001 §VI-A, with the evaluation of §VI-B.
 *
 * Time advances from event to event. Events are transfer completions (an
 * indexed heap keyed by predicted end) and compute ends (a plain heap). All
 * events of one instant are handled as a batch: finished transfers leave the
 * network, the tasks they release run until they block again (posting new
 * sends and receives, whose matched pairs enter the network), and only then
 * are penalties re-evaluated, once, for the transfers the batch affected.
 *
 * A transfer keeps `r`, its remaining time-alone, as of `tu`; it progresses
 * at rate 1/p (T = p * T_alone, 001 §IV-B), so only a change of its own
 * penalty requires touching it: r -= (now - tu) / p_old, then its end is
 * now + r * p_new. Memory is linear in transfers in flight plus posted,
 * unmatched operations (slots and queue entries are recycled).
 *
 * GigE penalties (001 §V-A) depend on a transfer's source degree Δo, its
 * destination degree Δi and the C_o^m / C_i^m structure at those two nodes, so
 * the network keeps, per node, Δo, Δi, the max of Δi over its outgoing
 * transfers with its count (card C_o^m) and the max of Δo over its incoming
 * transfers with its count (card C_i^m), and after a change re-evaluates only
 * the transfers whose inputs moved: this state lives in penalty_gige.c
 * (gige_incremental.h), shared with the progressive evaluator. The other models are
 * re-applied, through penalty.h, to the connected components that changed.
 */
#include "contention/simulate.h"

#include "contention/hockney.h"

#include "gige_incremental.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ network */

typedef struct slot {
    double r; /* remaining time-alone (s) as of tu */
    double tu;
    double p;      /* current penalty */
    double finish; /* predicted end */
    double alone, start, send_post, recv_post, bytes, p_start;
    int32_t comm; /* trace communication, or -1 (ct_gige_inc) */
    int32_t src_task, dst_task;
    int32_t src, dst; /* nodes */
    int32_t next_free;
    int32_t heap; /* position in the completion heap, -1 when out */
    uint8_t conflict;
    uint8_t send_blocking, recv_blocking, remote;
} slot;

typedef struct net {
    int32_t nnodes;
    ct_penalty_model model;
    const ct_model_ops *ops;
    int incremental; /* through the model's incremental hooks (model.h) */
    /* transfers on the network as links of per-node lists, with Δo, Δi and,
     * when incremental, the GigE state (gige_incremental.h); link k is slot k */
    ct_gige_net g;
    int32_t *local; /* node -> its index inside the component being evaluated */
    /* slot pool */
    slot *s;
    size_t cap, used, peak;
    int32_t free_head;
    /* component evaluation buffers */
    ct_comm *gbuf;
    double *pbuf;
    size_t gcap;
    /* engine hooks: NULL for ct_gige_inc */
    struct engine *eng;
    uint64_t evals;
    ct_mem_acct acct;
} net;

static inline int grow_arr(void **p, size_t *cap, size_t need, size_t elem, net *n)
{
    if (need <= *cap) /* the common case stays inline */
        return 0;
    return ct_gnet_grow(p, cap, need, elem, n ? &n->acct : NULL);
}

static void net_free(net *n)
{
    ct_gnet_free(&n->g);
    free(n->local);
    free(n->s);
    free(n->gbuf);
    free(n->pbuf);
    memset(n, 0, sizeof *n);
}

static int net_init(net *n, int32_t nnodes, const ct_penalty_model *m, int reference)
{
    memset(n, 0, sizeof *n);
    n->nnodes = nnodes;
    n->model = *m;
    n->ops = ct_model_ops_of(m->kind);
    n->incremental = n->ops->inc_commit && !reference;
    n->local = calloc((size_t)nnodes, sizeof(int32_t));
    if (!n->local || ct_gnet_init(&n->g, nnodes, &n->acct) ||
        (n->incremental && n->ops->inc_init && n->ops->inc_init(&n->g, m))) {
        net_free(n);
        return -1;
    }
    n->free_head = -1;
    return 0;
}

static int32_t slot_alloc(net *n)
{
    int32_t k;
    if (n->free_head >= 0) {
        k = n->free_head;
        n->free_head = n->s[k].next_free;
    } else {
        if (n->used >= (size_t)INT32_MAX - 1)
            return -1;
        size_t cap = n->cap;
        if (grow_arr((void **)&n->s, &cap, n->used + 1, sizeof(slot), n) ||
            ct_gnet_reserve(&n->g, cap))
            return -1;
        n->cap = cap;
        k = (int32_t)n->used;
        n->used++;
    }
    slot *x = &n->s[k];
    memset(x, 0, sizeof *x);
    x->heap = -1;
    x->p = x->p_start = 1.0;
    x->comm = -1;
    return k;
}

static void slot_release(net *n, int32_t k)
{
    n->s[k].next_free = n->free_head;
    n->free_head = k;
}

/* Conflict kinds (001 §IV-A). Invariants kept at each link: when Δo(v) >= 2
 * every transfer out of v carries OUT; when Δi(v) >= 2 every transfer into v
 * carries IN; when v both sends and receives, all of them carry INOUT. So a
 * list is scanned only when a node crosses one of those thresholds. */
static void flag_on_link(net *n, int32_t k)
{
    slot *S = n->s;
    const ct_gige_net *G = &n->g;
    const ct_glink *L = G->l;
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

static int net_link(net *n, int32_t k)
{
    if (ct_gnet_link(&n->g, k, n->s[k].src, n->s[k].dst, 1))
        return -1;
    flag_on_link(n, k);
    return 0;
}

static int net_unlink(net *n, int32_t k)
{
    return ct_gnet_unlink(&n->g, k);
}

static void heap_fix(struct engine *e, int32_t k);

/* Set a transfer's penalty at time now (see the top of this file). */
static void apply_penalty(net *n, int32_t k, double p, double now)
{
    slot *x = &n->s[k];
    n->evals++;
    if (!n->eng) {
        x->p = p;
        return;
    }
    if (p != x->p) {
        double r = x->r - (now - x->tu) / x->p;
        x->r = r > 0 ? r : 0;
        x->tu = now;
        x->p = p;
        x->finish = now + x->r * p;
        heap_fix(n->eng, k);
    }
    if (x->start == now)
        x->p_start = p;
}

/* A model with incremental hooks (GigE 001 §V-A, none) lists the transfers
 * whose inputs moved, with their new penalties. */
static int inc_commit(net *n, double now)
{
    if (n->ops->inc_commit(&n->g))
        return -1;
    for (size_t i = 0; i < n->g.ntouched; i++)
        apply_penalty(n, n->g.touched[i], n->g.tpen[i], now);
    return 0;
}

/* Re-apply the model to each connected component (transfers linked through
 * shared nodes) that contains a changed node: a component's penalties do not
 * depend on traffic outside it. */
static int component_commit(net *n, double now, ct_err *err)
{
    ct_gige_net *G = &n->g;
    for (size_t i = 0; i < G->no; i++) {
        int32_t root = G->nodes_o[i];
        if (G->nd[root].st_bfs == G->epoch)
            continue;
        G->nd[root].st_bfs = G->epoch;
        G->nwork = G->ntouched = 0;
        if (grow_arr((void **)&G->work, &G->work_cap, 1, sizeof(int32_t), n))
            return ct_err_set(err, "out of memory");
        G->work[G->nwork++] = root;
        for (size_t q = 0; q < G->nwork; q++) {
            int32_t v = G->work[q];
            for (int dir = 0; dir < 2; dir++) {
                for (int32_t x = dir ? G->nd[v].head_in : G->nd[v].head_out; x >= 0;
                     x = dir ? G->l[x].next_in : G->l[x].next_out) {
                    int32_t w = dir ? G->l[x].src : G->l[x].dst;
                    if (ct_gnet_mark(G, x))
                        return ct_err_set(err, "out of memory");
                    if (G->nd[w].st_bfs != G->epoch) {
                        G->nd[w].st_bfs = G->epoch;
                        if (grow_arr((void **)&G->work, &G->work_cap, G->nwork + 1, sizeof(int32_t),
                                     n))
                            return ct_err_set(err, "out of memory");
                        G->work[G->nwork++] = w;
                    }
                }
            }
        }
        if (!G->ntouched)
            continue;
        size_t gc = n->gcap;
        if (grow_arr((void **)&n->gbuf, &gc, G->ntouched, sizeof(ct_comm), n))
            return ct_err_set(err, "out of memory");
        gc = n->gcap;
        if (grow_arr((void **)&n->pbuf, &gc, G->ntouched, sizeof(double), n))
            return ct_err_set(err, "out of memory");
        n->gcap = gc;
        /* renumber the component's nodes 0..nwork-1 so the model's cost
         * follows the component, not the cluster */
        for (size_t q = 0; q < G->nwork; q++)
            n->local[G->work[q]] = (int32_t)q;
        for (size_t j = 0; j < G->ntouched; j++) {
            const slot *x = &n->s[G->touched[j]];
            n->gbuf[j] = (ct_comm){
                .src = n->local[x->src], .dst = n->local[x->dst], .mult = 1, .bytes = x->bytes};
        }
        ct_graph g = {
            .nnodes = (int32_t)G->nwork, .ncomm = G->ntouched, .cap = G->ntouched, .comm = n->gbuf};
        if (n->ops->penalties(&n->model, &g, NULL, n->pbuf, err))
            return -1;
        for (size_t j = 0; j < G->ntouched; j++)
            apply_penalty(n, G->touched[j], n->pbuf[j], now);
    }
    return 0;
}

static int net_commit(net *n, double now, ct_err *err)
{
    if (!ct_gnet_dirty(&n->g))
        return 0;
    if (n->incremental)
        return inc_commit(n, now) ? ct_err_set(err, "out of memory re-evaluating penalties") : 0;
    if (ct_gnet_commit_nodes(&n->g))
        return ct_err_set(err, "out of memory re-evaluating penalties");
    return component_commit(n, now, err);
}

/* ======================================================= ct_gige_inc API */

struct ct_gige_inc {
    net n;
};

ct_gige_inc *ct_gige_inc_new(int32_t nnodes, double beta, double gamma_i, double gamma_o,
                             unsigned flags)
{
    if (nnodes < 1)
        return NULL;
    ct_gige_inc *g = calloc(1, sizeof *g);
    ct_penalty_model m = CT_GIGE_MODEL(beta, gamma_i, gamma_o);
    m.integer[CT_GIGE_FLAGS] = flags;
    if (!g || net_init(&g->n, nnodes, &m, 0)) {
        free(g);
        return NULL;
    }
    return g;
}

void ct_gige_inc_free(ct_gige_inc *g)
{
    if (!g)
        return;
    net_free(&g->n);
    free(g);
}

int64_t ct_gige_inc_add(ct_gige_inc *g, int32_t src, int32_t dst)
{
    net *n = &g->n;
    if (src < 0 || dst < 0 || src >= n->nnodes || dst >= n->nnodes || src == dst)
        return -1;
    int32_t k = slot_alloc(n);
    if (k < 0)
        return -1;
    n->s[k].src = src;
    n->s[k].dst = dst;
    n->s[k].remote = 1;
    if (net_link(n, k) || net_commit(n, 0.0, NULL))
        return -1;
    return k;
}

void ct_gige_inc_remove(ct_gige_inc *g, int64_t h)
{
    net *n = &g->n;
    if (h < 0 || (size_t)h >= n->used || !n->s[h].remote)
        return;
    net_unlink(n, (int32_t)h);
    n->s[h].remote = 0;
    slot_release(n, (int32_t)h);
    net_commit(n, 0.0, NULL);
}

double ct_gige_inc_penalty(const ct_gige_inc *g, int64_t h)
{
    if (h < 0 || (size_t)h >= g->n.used)
        return NAN;
    return g->n.s[h].p;
}

/* ================================================================ engine */

enum { T_RUN = 0, T_COMPUTE, T_SEND, T_RECV, T_WAIT, T_ENDWAIT, T_DONE };

typedef struct task {
    size_t pc, end;
    double since; /* blocked since */
    double compute, comm, total;
    double bytes_out, bytes_in;
    int64_t sends, recvs;
    int32_t outstanding;
    int32_t unexp_head, unexp_tail;   /* sends to this task awaiting a receive */
    int32_t posted_head, posted_tail; /* receives of this task awaiting a send */
    uint8_t state, ready;
} task;

typedef struct pend {
    double post;
    double bytes; /* send: size; receive: buffer (< 0: any) */
    int32_t peer; /* send: source task; receive: source or CT_ANY_SOURCE */
    int32_t comm; /* send: communication; receive: -1 */
    int32_t line;
    int32_t next, prev;
    uint8_t blocking;
} pend;

typedef struct cpt {
    double t;
    int32_t task;
} cpt;

typedef struct engine {
    const ct_trace *tr;
    const ct_layout *l;
    const ct_sim_params *p;
    ct_sim_result *res;
    net n;
    task *t;
    /* completion heap of slots */
    int32_t *heap;
    size_t nheap, heap_cap;
    /* compute heap */
    cpt *ch;
    size_t nch, ch_cap;
    /* pending queue pool */
    pend *pd;
    size_t pd_cap, pd_used, pd_live;
    int32_t pd_free;
    int32_t *ready;
    size_t nready;
    double now;
    size_t inflight;
    double sum_p_eff, sum_p_start;
} engine;

static int slot_before(const slot *a, const slot *b)
{
    if (a->finish != b->finish)
        return a->finish < b->finish;
    return a->comm < b->comm;
}

static void heap_set(engine *e, size_t i, int32_t k)
{
    e->heap[i] = k;
    e->n.s[k].heap = (int32_t)i;
}

static void heap_up(engine *e, size_t i)
{
    int32_t k = e->heap[i];
    const slot *S = e->n.s;
    while (i > 0) {
        size_t par = (i - 1) / 2;
        if (!slot_before(&S[k], &S[e->heap[par]]))
            break;
        heap_set(e, i, e->heap[par]);
        i = par;
    }
    heap_set(e, i, k);
}

static void heap_down(engine *e, size_t i)
{
    int32_t k = e->heap[i];
    const slot *S = e->n.s;
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        int32_t bk = k;
        if (l < e->nheap && slot_before(&S[e->heap[l]], &S[bk])) {
            best = l;
            bk = e->heap[l];
        }
        if (l + 1 < e->nheap && slot_before(&S[e->heap[l + 1]], &S[bk])) {
            best = l + 1;
            bk = e->heap[l + 1];
        }
        if (best == i)
            break;
        heap_set(e, i, bk);
        i = best;
    }
    heap_set(e, i, k);
}

static void heap_fix(engine *e, int32_t k)
{
    size_t i = (size_t)e->n.s[k].heap;
    heap_up(e, i);
    heap_down(e, (size_t)e->n.s[k].heap);
}

static int heap_push(engine *e, int32_t k)
{
    if (grow_arr((void **)&e->heap, &e->heap_cap, e->nheap + 1, sizeof(int32_t), &e->n))
        return -1;
    e->heap[e->nheap] = k;
    e->n.s[k].heap = (int32_t)e->nheap;
    e->nheap++;
    heap_up(e, e->nheap - 1);
    return 0;
}

static int32_t heap_pop(engine *e)
{
    int32_t k = e->heap[0];
    e->nheap--;
    if (e->nheap) {
        heap_set(e, 0, e->heap[e->nheap]);
        heap_down(e, 0);
    }
    e->n.s[k].heap = -1;
    return k;
}

static int cpt_before(const cpt *a, const cpt *b)
{
    return a->t < b->t || (a->t == b->t && a->task < b->task);
}

static int ch_push(engine *e, double t, int32_t task)
{
    if (grow_arr((void **)&e->ch, &e->ch_cap, e->nch + 1, sizeof(cpt), &e->n))
        return -1;
    size_t i = e->nch++;
    cpt v = {t, task};
    while (i > 0 && cpt_before(&v, &e->ch[(i - 1) / 2])) {
        e->ch[i] = e->ch[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e->ch[i] = v;
    return 0;
}

static cpt ch_pop(engine *e)
{
    cpt top = e->ch[0];
    cpt v = e->ch[--e->nch];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, b = i;
        const cpt *bv = &v;
        if (l < e->nch && cpt_before(&e->ch[l], bv)) {
            b = l;
            bv = &e->ch[l];
        }
        if (l + 1 < e->nch && cpt_before(&e->ch[l + 1], bv))
            b = l + 1;
        if (b == i)
            break;
        e->ch[i] = e->ch[b];
        i = b;
    }
    if (e->nch)
        e->ch[i] = v;
    return top;
}

/* --- pending (posted, unmatched) operations: per-task doubly linked FIFOs */

static int32_t pend_new(engine *e)
{
    int32_t k;
    if (e->pd_free >= 0) {
        k = e->pd_free;
        e->pd_free = e->pd[k].next;
    } else {
        if (e->pd_used >= (size_t)INT32_MAX - 1 ||
            grow_arr((void **)&e->pd, &e->pd_cap, e->pd_used + 1, sizeof(pend), &e->n))
            return -1;
        k = (int32_t)e->pd_used++;
    }
    e->pd_live++;
    if (e->pd_live > e->res->peak_pending)
        e->res->peak_pending = e->pd_live;
    return k;
}

static void pend_append(engine *e, int32_t *head, int32_t *tail, int32_t k)
{
    e->pd[k].next = -1;
    e->pd[k].prev = *tail;
    if (*tail >= 0)
        e->pd[*tail].next = k;
    else
        *head = k;
    *tail = k;
}

static void pend_remove(engine *e, int32_t *head, int32_t *tail, int32_t k)
{
    pend *x = &e->pd[k];
    if (x->prev >= 0)
        e->pd[x->prev].next = x->next;
    else
        *head = x->next;
    if (x->next >= 0)
        e->pd[x->next].prev = x->prev;
    else
        *tail = x->prev;
    x->next = e->pd_free;
    e->pd_free = k;
    e->pd_live--;
}

/* --- transfers */

static int start_transfer(engine *e, int32_t src, int32_t dst, int32_t comm, double bytes,
                          double send_post, double recv_post, int sblk, int rblk, ct_err *err)
{
    net *n = &e->n;
    int32_t k = slot_alloc(n);
    if (k < 0)
        return ct_err_set(err, "out of memory (transfer slots)");
    slot *x = &n->s[k];
    x->comm = comm;
    x->src_task = src;
    x->dst_task = dst;
    x->src = e->l->node_of[src];
    x->dst = e->l->node_of[dst];
    x->bytes = bytes;
    x->send_post = send_post;
    x->recv_post = recv_post;
    x->start = e->now;
    x->tu = e->now;
    x->send_blocking = (uint8_t)sblk;
    x->recv_blocking = (uint8_t)rblk;
    if (x->src != x->dst) {
        x->remote = 1;
        double a = e->p->alpha, b = e->p->beta;
        if (e->p->p2p.nseg > 0)
            ct_p2p_at(&e->p->p2p, bytes, &a, &b); /* the size range's alpha, beta */
        x->alone = ct_hockney(a, b, bytes); /* 000 §3 Hockney: alpha + m*beta */
    } else {
        /* shared memory, off the network: no contention modelled */
        x->alone = e->p->intra_bw > 0 ? bytes / e->p->intra_bw : 0.0;
    }
    x->r = x->alone;
    x->finish = e->now + x->alone;
    if (heap_push(e, k) || (x->remote && net_link(n, k)))
        return ct_err_set(err, "out of memory (transfer heap)");
    e->inflight++;
    if (e->inflight > e->res->peak_inflight)
        e->res->peak_inflight = e->inflight;
    return 0;
}

static int make_ready(engine *e, int32_t t)
{
    if (e->t[t].ready)
        return 0;
    e->t[t].ready = 1;
    e->ready[e->nready++] = t;
    return 0;
}

static void unblock(engine *e, int32_t t)
{
    task *T = &e->t[t];
    T->comm += e->now - T->since;
    if (T->state == T_ENDWAIT) {
        T->state = T_DONE;
        T->total = e->now;
    } else {
        T->pc++;
        T->state = T_RUN;
    }
    make_ready(e, t);
}

static void side_done(engine *e, int32_t t, int blocking)
{
    task *T = &e->t[t];
    if (blocking) {
        unblock(e, t);
        return;
    }
    T->outstanding--;
    if (T->outstanding == 0 && (T->state == T_WAIT || T->state == T_ENDWAIT))
        unblock(e, t);
}

static int complete_transfer(engine *e, int32_t k, ct_err *err)
{
    net *n = &e->n;
    slot *x = &n->s[k];
    if (x->remote && net_unlink(n, k))
        return ct_err_set(err, "out of memory");
    x = &n->s[k];
    ct_sim_result *R = e->res;
    double p_eff = x->alone > 0 ? (e->now - x->start) / x->alone : 1.0;
    if (x->remote) {
        R->nremote++;
        e->sum_p_eff += p_eff;
        e->sum_p_start += x->p_start;
        if (!x->conflict)
            R->n_conflict[0]++;
        for (int b = 0; b < 3; b++)
            if (x->conflict & (1u << b))
                R->n_conflict[b + 1]++;
    } else {
        R->nintra++;
    }
    R->bytes_delivered += x->bytes;
    if (R->comm) {
        ct_sim_comm *c = &R->comm[x->comm];
        c->src = x->src_task;
        c->dst = x->dst_task;
        c->src_node = x->src;
        c->dst_node = x->dst;
        c->bytes = x->bytes;
        c->send_post = x->send_post;
        c->recv_post = x->recv_post;
        c->start = x->start;
        c->end = e->now;
        c->alone = x->alone;
        c->p_start = x->p_start;
        c->p_eff = p_eff;
        c->conflict = x->conflict;
    }
    task *S = &e->t[x->src_task], *D = &e->t[x->dst_task];
    S->sends++;
    S->bytes_out += x->bytes;
    D->recvs++;
    D->bytes_in += x->bytes;
    int32_t st = x->src_task, dt = x->dst_task;
    int sb = x->send_blocking, rb = x->recv_blocking;
    x->remote = 0;
    slot_release(n, k);
    e->inflight--;
    side_done(e, st, sb);
    side_done(e, dt, rb);
    return 0;
}

static int trunc_error(engine *e, int32_t src, const ct_event *sev, double bytes, double rbytes,
                       int32_t rline, int32_t dst, ct_err *err)
{
    return ct_err_set(err,
                      "%s:%d: send of %.0f bytes from task %d matches the receive of task "
                      "%d on line %d whose buffer holds %.0f bytes (MPI_ERR_TRUNCATE; "
                      "the receive size must be >= the send size, or omitted)",
                      e->tr->name, (int)sev->line, bytes, (int)src, (int)dst, (int)rline, rbytes);
}

static int post_send(engine *e, int32_t t, const ct_event *ev, int blocking, ct_err *err)
{
    int32_t dst = ev->peer;
    task *D = &e->t[dst];
    for (int32_t q = D->posted_head; q >= 0; q = e->pd[q].next) {
        pend *r = &e->pd[q];
        if (r->peer != t && r->peer != CT_ANY_SOURCE)
            continue;
        if (r->bytes >= 0 && ev->value > r->bytes)
            return trunc_error(e, t, ev, ev->value, r->bytes, r->line, dst, err);
        double rpost = r->post;
        int rblk = r->blocking;
        pend_remove(e, &D->posted_head, &D->posted_tail, q);
        return start_transfer(e, t, dst, ev->comm, ev->value, e->now, rpost, blocking, rblk, err);
    }
    int32_t k = pend_new(e);
    if (k < 0)
        return ct_err_set(err, "out of memory (pending sends)");
    pend *s = &e->pd[k];
    s->post = e->now;
    s->bytes = ev->value;
    s->peer = t;
    s->comm = ev->comm;
    s->line = ev->line;
    s->blocking = (uint8_t)blocking;
    pend_append(e, &D->unexp_head, &D->unexp_tail, k);
    return 0;
}

static int post_recv(engine *e, int32_t t, const ct_event *ev, int blocking, ct_err *err)
{
    task *T = &e->t[t];
    for (int32_t q = T->unexp_head; q >= 0; q = e->pd[q].next) {
        pend *s = &e->pd[q];
        if (ev->peer != CT_ANY_SOURCE && s->peer != ev->peer)
            continue;
        if (ev->value >= 0 && s->bytes > ev->value)
            return trunc_error(e, s->peer, ct_trace_comm_event(e->tr, (size_t)s->comm), s->bytes,
                               ev->value, ev->line, t, err);
        int32_t src = s->peer, comm = s->comm;
        double bytes = s->bytes, spost = s->post;
        int sblk = s->blocking;
        pend_remove(e, &T->unexp_head, &T->unexp_tail, q);
        return start_transfer(e, src, t, comm, bytes, spost, e->now, sblk, blocking, err);
    }
    int32_t k = pend_new(e);
    if (k < 0)
        return ct_err_set(err, "out of memory (pending receives)");
    pend *r = &e->pd[k];
    r->post = e->now;
    r->bytes = ev->value;
    r->peer = ev->peer;
    r->comm = -1;
    r->line = ev->line;
    r->blocking = (uint8_t)blocking;
    pend_append(e, &T->posted_head, &T->posted_tail, k);
    return 0;
}

/* Run task t from its program counter until it blocks or ends. */
static int run_task(engine *e, int32_t t, ct_err *err)
{
    task *T = &e->t[t];
    const ct_event *ev = e->tr->ev;
    while (T->state == T_RUN && T->pc < T->end) {
        const ct_event *x = &ev[T->pc];
        e->res->events++;
        switch (x->kind) {
        case CT_EV_COMPUTE:
            if (x->value > 0) {
                T->compute += x->value;
                T->state = T_COMPUTE;
                if (ch_push(e, e->now + x->value, t))
                    return ct_err_set(err, "out of memory (compute heap)");
                return 0;
            }
            T->pc++;
            break;
        case CT_EV_SEND:
        case CT_EV_RECV:
            T->state = x->kind == CT_EV_SEND ? T_SEND : T_RECV;
            T->since = e->now;
            return x->kind == CT_EV_SEND ? post_send(e, t, x, 1, err) : post_recv(e, t, x, 1, err);
        case CT_EV_ISEND:
        case CT_EV_IRECV:
            T->outstanding++;
            T->pc++;
            if ((x->kind == CT_EV_ISEND ? post_send(e, t, x, 0, err) : post_recv(e, t, x, 0, err)))
                return -1;
            break;
        case CT_EV_WAITALL:
            if (T->outstanding > 0) {
                T->state = T_WAIT;
                T->since = e->now;
                return 0;
            }
            T->pc++;
            break;
        default:
            return ct_err_set(err, "%s:%d: corrupt event kind %d", e->tr->name, (int)x->line,
                              (int)x->kind);
        }
    }
    if (T->state == T_RUN) { /* end of program: MPI_Finalize completes what is outstanding */
        if (T->outstanding > 0) {
            T->state = T_ENDWAIT;
            T->since = e->now;
        } else {
            T->state = T_DONE;
        }
    }
    if (T->state == T_DONE)
        T->total = e->now;
    return 0;
}

static int deadlock_error(engine *e, ct_err *err)
{
    char buf[CT_ERR_MAX];
    size_t len = 0;
    int shown = 0, blocked = 0;
    for (int32_t t = 0; t < e->tr->ntasks; t++) {
        task *T = &e->t[t];
        if (T->state == T_DONE)
            continue;
        blocked++;
        if (shown >= 3)
            continue;
        shown++;
        const ct_event *x = T->pc < T->end ? &e->tr->ev[T->pc] : NULL;
        char what[160];
        if (T->state == T_SEND)
            snprintf(what, sizeof what, "task %d in send to %d (line %d)", (int)t, (int)x->peer,
                     (int)x->line);
        else if (T->state == T_RECV && x->peer == CT_ANY_SOURCE)
            snprintf(what, sizeof what, "task %d in recv from any (line %d)", (int)t, (int)x->line);
        else if (T->state == T_RECV)
            snprintf(what, sizeof what, "task %d in recv from %d (line %d)", (int)t, (int)x->peer,
                     (int)x->line);
        else if (T->state == T_WAIT)
            snprintf(what, sizeof what, "task %d in waitall with %d unmatched requests (line %d)",
                     (int)t, (int)T->outstanding, (int)x->line);
        else
            snprintf(what, sizeof what, "task %d at its end with %d unmatched isend/irecv", (int)t,
                     (int)T->outstanding);
        int w = snprintf(buf + len, sizeof buf - len, "%s%s", shown > 1 ? "; " : "", what);
        if (w > 0 && (size_t)w < sizeof buf - len)
            len += (size_t)w;
    }
    return ct_err_set(err,
                      "%s: deadlock at t=%.9g s: %d task%s blocked forever: %s%s (every "
                      "send needs a matching receive posted by its destination)",
                      e->tr->name, e->now, blocked, blocked == 1 ? "" : "s", buf,
                      blocked > shown ? "; ..." : "");
}

void ct_sim_params_from_fabric(const ct_fabric *f, ct_sim_params *p)
{
    memset(p, 0, sizeof *p);
    p->model = f->penalty;
    p->alpha = f->alpha;
    p->beta = f->beta;
    p->p2p = f->p2p_segments;
    p->intra_bw = f->intra_bw;
}

void ct_sim_result_free(ct_sim_result *r)
{
    if (!r)
        return;
    free(r->task);
    free(r->comm);
    memset(r, 0, sizeof *r);
}

static void engine_free(engine *e)
{
    net_free(&e->n);
    free(e->t);
    free(e->heap);
    free(e->ch);
    free(e->pd);
    free(e->ready);
}

static int check_inputs(const ct_trace *tr, const ct_layout *l, const ct_sim_params *p, ct_err *err)
{
    if (!tr->finished)
        return ct_err_set(err, "%s: trace not finished (call ct_trace_finish)", tr->name);
    if (!l || l->ntasks != tr->ntasks)
        return ct_err_set(err, "%s: placement has %d tasks, the trace %d (they must agree)",
                          tr->name, l ? (int)l->ntasks : 0, (int)tr->ntasks);
    if (l->nnodes < 1)
        return ct_err_set(err, "placement over %d nodes (need at least 1)", (int)l->nnodes);
    for (int32_t t = 0; t < l->ntasks; t++)
        if (l->node_of[t] < 0 || l->node_of[t] >= l->nnodes)
            return ct_err_set(err, "task %d placed on node %d (accepted: 0 to %d)", (int)t,
                              (int)l->node_of[t], (int)l->nnodes - 1);
    if (!isfinite(p->alpha) || p->alpha < 0 || !isfinite(p->beta) || p->beta < 0)
        return ct_err_set(err, "Hockney alpha=%g beta=%g (accepted: finite, >= 0)", p->alpha,
                          p->beta);
    if (isnan(p->intra_bw))
        return ct_err_set(err, "intra-node bandwidth is NaN (accepted: bytes/s, <= 0 = free)");
    return ct_model_check(&p->model, err); /* once, before the first event */
}

int ct_simulate(const ct_trace *tr, const ct_layout *l, const ct_sim_params *p, ct_sim_result *out,
                ct_err *err)
{
    memset(out, 0, sizeof *out);
    if (check_inputs(tr, l, p, err))
        return -1;
    engine e;
    memset(&e, 0, sizeof e);
    e.tr = tr;
    e.l = l;
    e.p = p;
    e.res = out;
    e.pd_free = -1;
    size_t nt = (size_t)tr->ntasks;
    out->ntasks = tr->ntasks;
    out->ncomm = tr->ncomm;
    out->bytes_total = tr->total_bytes;
    out->task = calloc(nt ? nt : 1, sizeof *out->task);
    if (p->keep_comms)
        out->comm = calloc(tr->ncomm ? tr->ncomm : 1, sizeof *out->comm);
    e.t = calloc(nt ? nt : 1, sizeof *e.t);
    e.ready = malloc((nt ? nt : 1) * sizeof *e.ready);
    if (!out->task || (p->keep_comms && !out->comm) || !e.t || !e.ready ||
        net_init(&e.n, l->nnodes, &p->model, p->reference)) {
        engine_free(&e);
        ct_sim_result_free(out);
        return ct_err_set(err, "out of memory (%d tasks, %d nodes)", (int)tr->ntasks,
                          (int)l->nnodes);
    }
    e.n.eng = &e;
    for (size_t t = 0; t < nt; t++) {
        e.t[t].pc = tr->task_first[t];
        e.t[t].end = tr->task_first[t + 1];
        e.t[t].unexp_head = e.t[t].unexp_tail = -1;
        e.t[t].posted_head = e.t[t].posted_tail = -1;
        e.ready[e.nready++] = (int32_t)t;
        e.t[t].ready = 1;
    }
    int rc = 0;
    for (;;) {
        for (size_t i = 0; i < e.nready && rc == 0; i++) {
            int32_t t = e.ready[i];
            e.t[t].ready = 0;
            rc = run_task(&e, t, err);
        }
        e.nready = 0;
        if (rc || (rc = net_commit(&e.n, e.now, err)))
            break;
        double t1 = e.nheap ? e.n.s[e.heap[0]].finish : INFINITY;
        double t2 = e.nch ? e.ch[0].t : INFINITY;
        if (t1 == INFINITY && t2 == INFINITY)
            break;
        e.now = t1 < t2 ? t1 : t2;
        while (rc == 0 && e.nheap && e.n.s[e.heap[0]].finish <= e.now)
            rc = complete_transfer(&e, heap_pop(&e), err);
        while (rc == 0 && e.nch && e.ch[0].t <= e.now) {
            cpt c = ch_pop(&e);
            e.t[c.task].pc++;
            e.t[c.task].state = T_RUN;
            make_ready(&e, c.task);
        }
        if (rc)
            break;
    }
    if (rc == 0) {
        for (size_t t = 0; t < nt; t++) {
            if (e.t[t].state != T_DONE) {
                rc = deadlock_error(&e, err);
                break;
            }
        }
    }
    if (rc == 0) {
        for (size_t t = 0; t < nt; t++) {
            task *T = &e.t[t];
            ct_sim_task *o = &out->task[t];
            o->total = T->total;
            o->compute = T->compute;
            o->comm = T->comm;
            o->sends = T->sends;
            o->recvs = T->recvs;
            o->bytes_out = T->bytes_out;
            o->bytes_in = T->bytes_in;
            if (T->total > out->makespan)
                out->makespan = T->total;
        }
        out->mean_p_eff = out->nremote ? e.sum_p_eff / (double)out->nremote : 1.0;
        out->mean_p_start = out->nremote ? e.sum_p_start / (double)out->nremote : 1.0;
        out->penalty_evals = e.n.evals;
        out->engine_bytes = e.n.acct.peak;
    }
    engine_free(&e);
    if (rc)
        ct_sim_result_free(out);
    return rc;
}

double ct_sim_comm_time(const ct_sim_comm *c)
{
    return c->end - c->send_post;
}

void ct_sim_eval_free(ct_sim_eval *ev)
{
    if (!ev)
        return;
    free(ev->e_rel);
    free(ev->s_p);
    free(ev->s_m);
    free(ev->e_abs_task);
    memset(ev, 0, sizeof *ev);
}

int ct_sim_evaluate(const ct_sim_result *r, const double *measured, ct_sim_eval *ev, ct_err *err)
{
    memset(ev, 0, sizeof *ev);
    if (!r->comm)
        return ct_err_set(err, "evaluation needs per-communication results (simulate with "
                               "keep_comms = 1)");
    size_t nc = r->ncomm ? r->ncomm : 1, nt = r->ntasks ? (size_t)r->ntasks : 1;
    ev->ntasks = r->ntasks;
    ev->e_rel = malloc(nc * sizeof *ev->e_rel);
    ev->s_p = calloc(nt, sizeof *ev->s_p);
    ev->s_m = calloc(nt, sizeof *ev->s_m);
    ev->e_abs_task = malloc(nt * sizeof *ev->e_abs_task);
    if (!ev->e_rel || !ev->s_p || !ev->s_m || !ev->e_abs_task) {
        ct_sim_eval_free(ev);
        return ct_err_set(err, "out of memory");
    }
    double sum = 0;
    for (size_t c = 0; c < r->ncomm; c++) {
        double tm = measured[c];
        ev->e_rel[c] = NAN;
        if (isnan(tm))
            continue;
        if (!(tm > 0)) {
            ct_sim_eval_free(ev);
            return ct_err_set(err, "measured time %g of communication %zu (accepted: > 0)", tm, c);
        }
        double tp = ct_sim_comm_time(&r->comm[c]);
        ev->e_rel[c] = (tp - tm) / tm * 100.0; /* 001 §VI-B E_rel */
        sum += fabs(ev->e_rel[c]);
        ev->n++;
        ev->s_p[r->comm[c].src] += tp; /* 001 §VI-B S_p */
        ev->s_m[r->comm[c].src] += tm; /* 001 §VI-B S_m */
    }
    ev->e_abs_graph = ev->n ? sum / (double)ev->n : NAN; /* 001 §VI-B E_abs(G) */
    double tsum = 0;
    size_t tn = 0;
    for (int32_t t = 0; t < r->ntasks; t++) {
        ev->e_abs_task[t] = NAN;
        if (ev->s_m[t] > 0) {
            ev->e_abs_task[t] =
                fabs((ev->s_p[t] - ev->s_m[t]) / ev->s_m[t] * 100.0); /* 001 §VI-B E_abs(t_i) */
            tsum += ev->e_abs_task[t];
            tn++;
        }
    }
    ev->e_abs_task_mean = tn ? tsum / (double)tn : NAN;
    return 0;
}
