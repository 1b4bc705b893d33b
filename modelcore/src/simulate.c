/* Trace-replay simulator of paper 001 §VI-A, with the evaluation of §VI-B.
 *
 * Time advances from event to event. Events are transfer completions (an
 * indexed heap keyed by predicted end) and compute ends (a plain heap). All
 * events of one instant are handled as a batch: finished transfers leave the
 * network, the tasks they release run until they block again (posting new
 * sends and receives, whose matched pairs enter the network), and only then
 * are penalties re-evaluated, once, for the transfers the batch affected.
 *
 * The transfers in flight, their completion heap, the rule for simultaneous
 * completions and the re-application of the penalty model (incremental
 * hooks for GigE 001 §V-A and none, changed components for the others) are
 * the event engine of engine.h, which the progressive evaluation also runs.
 * This file adds the tasks: program order, matching of sends and receives,
 * compute ends (a plain heap), and the results. Memory is linear in
 * transfers in flight plus posted, unmatched operations (slots and queue
 * entries are recycled).
 */
#include "contention/simulate.h"

#include "contention/hockney.h"
#include "contention/models.h"

#include "engine.h"
#include "phase_time.h"
#include "simulate_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int grow_arr(void **p, size_t *cap, size_t need, size_t elem, eng *n)
{
    if (need <= *cap) /* the common case stays inline */
        return 0;
    return gnet_grow(p, cap, need, elem, &n->acct);
}

/* ================================================================ engine */

enum { T_RUN = 0, T_COMPUTE, T_SEND, T_RECV, T_WAIT, T_ENDWAIT, T_DONE };

/* 128 bytes on a 64-byte boundary: what running a task and matching its
 * messages read share the first cache line. */
typedef struct task {
    _Alignas(64) size_t pc;
    size_t end;
    double since; /* blocked since */
    double comm;
    int32_t outstanding;
    int32_t unexp_head, unexp_tail;   /* sends to this task awaiting a receive */
    int32_t posted_head, posted_tail; /* receives of this task awaiting a send */
    uint8_t state, ready;
    double compute; /* the first line ends here */
    double total;
    double bytes_out, bytes_in;
    int64_t sends, recvs;
} task;

typedef struct pend {
    double post;
    double bytes; /* send: size; receive: buffer (< 0: any) */
    int32_t peer; /* send: source task; receive: source or CT_ANY_SOURCE */
    int32_t comm; /* send: communication; receive: -1 */
    int32_t line;
    int32_t next, prev;
    uint8_t blocking;
    uint8_t ctx; /* matching context (trace.h CT_CTX_*): only equal ones match */
    int32_t tag, mcomm; /* MPI's matching key (trace.h); a receive's tag may be any */
} pend;

/* Does a send's key match a receive's? MPI's rule beside the source: the
 * same context and communicator, the same tag or a receive from any tag. */
static int key_match(const pend *recv_or_send, const ct_event *ev, ct_match_key k, int ev_is_recv)
{
    const pend *p = recv_or_send;
    if (p->ctx != ev->ctx || p->mcomm != k.mcomm)
        return 0;
    int32_t rtag = ev_is_recv ? k.tag : p->tag, stag = ev_is_recv ? p->tag : k.tag;
    return rtag == CT_ANY_TAG || rtag == stag;
}

typedef struct cpt {
    double t;
    int32_t task;
} cpt;

typedef struct engine {
    const ct_trace *tr;
    const ct_layout *l;
    const ct_sim_params *p;
    ct_sim_result *res;
    eng n; /* transfers, their completion heap, the model (engine.h) */
    task *t;
    /* compute heap */
    cpt *ch;
    size_t nch, ch_cap;
    /* pending queue pool */
    pend *pd;
    size_t pd_cap, pd_used, pd_live;
    int32_t pd_free;
    int32_t *ready;
    size_t nready;
    size_t inflight;
    double sum_p_eff, sum_p_start;
    /* the step terms (ct_sim_params.exchange, .bucket): on when either is */
    int steps;
    int once; /* each transfer's alpha outside the penalty (ct_model_latency_once) */
    double bucket_beta;          /* s/byte, the curve's at the bucket */
    double *out_end, *in_end;    /* per node: when its NIC direction last went idle */
    int32_t *out_busy, *in_busy; /* per node: transfers in flight in that direction */
    double *out_sum, *in_sum;    /* per node: the step's bytes (zero between steps) */
    int32_t *step;               /* slots of the network transfers started this instant */
    size_t nstep, step_cap;
    double step_pause, step_lat, step_S; /* theirs: least idle time, largest alpha,
                                          * busiest NIC direction (bytes) */
} engine;

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

/* The curve's alpha and beta at m bytes: the size range's of the piecewise
 * fit, else the one Hockney line (as ct_fabric_p2p_at for a fabric) */
static void curve_at(const ct_sim_params *p, double m, double *alpha, double *beta)
{
    *alpha = p->alpha;
    *beta = p->beta;
    if (p->p2p.nseg > 0)
        ct_p2p_at(&p->p2p, m, alpha, beta);
}

static int start_transfer(engine *e, int32_t src, int32_t dst, int32_t comm, double bytes,
                          double send_post, double recv_post, int sblk, int rblk, ct_err *err)
{
    int32_t a = e->l->node_of[src], b = e->l->node_of[dst];
    double alone, al = 0, be;
    if (a != b) {
        curve_at(e->p, bytes, &al, &be); /* the size range's alpha, beta */
        alone = ct_hockney(al, be, bytes); /* 000 §3 Hockney: alpha + m*beta */
        if (e->once) /* the bytes' time under the penalty, alpha once (phase_time.c) */
            alone = fmax(alone - al, 0);
    } else {
        /* shared memory, off the network: no contention modelled */
        alone = e->p->intra_bw > 0 ? bytes / e->p->intra_bw : 0.0;
    }
    int32_t k = eng_start(&e->n, a, b, 1, alone, comm);
    if (k < 0)
        return ct_err_set(err, "out of memory (transfers in flight)");
    if (e->once && a != b && al != 0)
        eng_offset(&e->n, k, al, 0); /* outside the penalty; step_close adds to it */
    if (e->steps && a != b) { /* into this instant's step (step_close) */
        if (grow_arr((void **)&e->step, &e->step_cap, e->nstep + 1, sizeof *e->step, &e->n))
            return ct_err_set(err, "out of memory (transfers in flight)");
        double po = e->out_busy[a] ? 0 : e->n.now - e->out_end[a];
        double pi = e->in_busy[b] ? 0 : e->n.now - e->in_end[b];
        e->step[e->nstep++] = k;
        e->step_pause = fmin(e->step_pause, fmin(po, pi));
        e->step_lat = fmax(e->step_lat, al);
        e->out_sum[a] += bytes;
        e->in_sum[b] += bytes;
        e->step_S = fmax(e->step_S, fmax(e->out_sum[a], e->in_sum[b]));
    }
    xfer *x = &e->n.s[k];
    x->src_task = src;
    x->dst_task = dst;
    x->bytes = bytes;
    x->send_post = send_post;
    x->recv_post = recv_post;
    x->send_blocking = (uint8_t)sblk;
    x->recv_blocking = (uint8_t)rblk;
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
#if defined(__GNUC__)
    /* the task runs after this instant's commit: with thousands of tasks
     * interleaved, its next trace event is rarely still in cache */
    __builtin_prefetch(&e->tr->ev[e->t[t].pc]);
#endif
    return 0;
}

static void unblock(engine *e, int32_t t)
{
    task *T = &e->t[t];
    T->comm += e->n.now - T->since;
    if (T->state == T_ENDWAIT) {
        T->state = T_DONE;
        T->total = e->n.now;
    } else {
        T->pc++;
        T->state = T_RUN;
    }
    make_ready(e, t);
}

/* A pending send's or transfer's sender: SEND_BUFFERED is a send (blocking,
 * or an isend a waitall waited for) its task no longer waits for
 * (buffer_blocked_sends) */
enum { SEND_BUFFERED = 2 };

static void side_done(engine *e, int32_t t, int blocking)
{
    task *T = &e->t[t];
    if (blocking == SEND_BUFFERED)
        return;
    if (blocking) {
        unblock(e, t);
        return;
    }
    T->outstanding--;
    if (T->outstanding == 0 && (T->state == T_WAIT || T->state == T_ENDWAIT))
        unblock(e, t);
}

/* The network transfers started this instant are one step, priced as the
 * scorer prices a phase (phase_time.c; our extension, doc/simulator.md
 * "Steps"): each ends exchange later, outside the penalty, and the bucket's
 * refill earlier, ct_refill_dt with S the step's busiest NIC direction and
 * the pause the least idle time of its links (infinite before their first
 * transfer); never before its start plus the step's largest alpha. */
static void step_close(engine *e)
{
    if (!e->nstep)
        return;
    double fix = e->p->exchange - ct_refill_dt(e->p->bucket, e->bucket_beta, e->p->bucket_pause,
                                               e->step_S, e->step_pause);
    for (size_t i = 0; i < e->nstep; i++) {
        int32_t k = e->step[i];
        const xfer *x = &e->n.s[k];
        e->out_sum[x->src] = e->in_sum[x->dst] = 0;
        e->out_busy[x->src]++;
        e->in_busy[x->dst]++;
        if (fix != 0) /* beside the transfer's own alpha when taken once */
            eng_offset(&e->n, k, x->fix + fix, e->step_lat);
    }
    e->nstep = 0;
    e->step_pause = INFINITY;
    e->step_lat = e->step_S = 0;
}

/* Transfer k, popped by the engine (eng_pop_due), ends now. */
static int complete_transfer(engine *e, int32_t k)
{
    const xfer *x = &e->n.s[k];
    ct_sim_result *R = e->res;
    if (e->steps && x->remote) { /* its links go idle with their last transfer */
        if (--e->out_busy[x->src] == 0)
            e->out_end[x->src] = e->n.now;
        if (--e->in_busy[x->dst] == 0)
            e->in_end[x->dst] = e->n.now;
    }
    double alone = x->alone; /* its time alone: with its alpha where taken once */
    if (e->once && x->remote) {
        double al, be;
        curve_at(e->p, x->bytes, &al, &be);
        alone = ct_hockney(al, be, x->bytes);
    }
    double p_eff = alone > 0 ? (e->n.now - x->start) / alone : 1.0;
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
        ct_sim_comm *c = &R->comm[x->tag];
        c->src = x->src_task;
        c->dst = x->dst_task;
        c->src_node = x->src;
        c->dst_node = x->dst;
        c->bytes = x->bytes;
        c->send_post = x->send_post;
        c->recv_post = x->recv_post;
        c->start = x->start;
        c->end = e->n.now;
        c->alone = alone;
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
    eng_release(&e->n, k);
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
    ct_match_key key = ct_trace_key(e->tr, ev);
    for (int32_t q = D->posted_head; q >= 0; q = e->pd[q].next) {
        pend *r = &e->pd[q];
        if (!key_match(r, ev, key, 0) || (r->peer != t && r->peer != CT_ANY_SOURCE))
            continue;
        if (r->bytes >= 0 && ev->value > r->bytes)
            return trunc_error(e, t, ev, ev->value, r->bytes, r->line, dst, err);
        double rpost = r->post;
        int rblk = r->blocking;
        pend_remove(e, &D->posted_head, &D->posted_tail, q);
        return start_transfer(e, t, dst, ev->comm, ev->value, e->n.now, rpost, blocking, rblk, err);
    }
    int32_t k = pend_new(e);
    if (k < 0)
        return ct_err_set(err, "out of memory (pending sends)");
    pend *s = &e->pd[k];
    s->post = e->n.now;
    s->bytes = ev->value;
    s->peer = t;
    s->comm = ev->comm;
    s->line = ev->line;
    s->blocking = (uint8_t)blocking;
    s->ctx = ev->ctx;
    s->tag = key.tag;
    s->mcomm = key.mcomm;
    pend_append(e, &D->unexp_head, &D->unexp_tail, k);
    return 0;
}

static int post_recv(engine *e, int32_t t, const ct_event *ev, int blocking, ct_err *err)
{
    task *T = &e->t[t];
    ct_match_key key = ct_trace_key(e->tr, ev);
    for (int32_t q = T->unexp_head; q >= 0; q = e->pd[q].next) {
        pend *s = &e->pd[q];
        if (!key_match(s, ev, key, 1) || (ev->peer != CT_ANY_SOURCE && s->peer != ev->peer))
            continue;
        if (ev->value >= 0 && s->bytes > ev->value)
            return trunc_error(e, s->peer, ct_trace_comm_event(e->tr, (size_t)s->comm), s->bytes,
                               ev->value, ev->line, t, err);
        int32_t src = s->peer, comm = s->comm;
        double bytes = s->bytes, spost = s->post;
        int sblk = s->blocking;
        pend_remove(e, &T->unexp_head, &T->unexp_tail, q);
        return start_transfer(e, src, t, comm, bytes, spost, e->n.now, sblk, blocking, err);
    }
    int32_t k = pend_new(e);
    if (k < 0)
        return ct_err_set(err, "out of memory (pending receives)");
    pend *r = &e->pd[k];
    r->post = e->n.now;
    r->bytes = ev->value;
    r->peer = ev->peer;
    r->comm = -1;
    r->line = ev->line;
    r->blocking = (uint8_t)blocking;
    r->ctx = ev->ctx;
    r->tag = key.tag;
    r->mcomm = key.mcomm;
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
                if (ch_push(e, e->n.now + x->value, t))
                    return ct_err_set(err, "out of memory (compute heap)");
                return 0;
            }
            T->pc++;
            break;
        case CT_EV_SEND:
        case CT_EV_RECV:
            T->state = x->kind == CT_EV_SEND ? T_SEND : T_RECV;
            T->since = e->n.now;
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
                T->since = e->n.now;
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
            T->since = e->n.now;
        } else {
            T->state = T_DONE;
        }
    }
    if (T->state == T_DONE)
        T->total = e->n.now;
    return 0;
}

/* Where every task is blocked and nothing is in flight, the sends that
 * hold their tasks up are buffered, as an MPI library buffers a
 * standard-mode send (MPI 4.1 §3.4: in standard mode it is up to MPI whether
 * an outgoing message is buffered; small ones go eagerly): a blocking send
 * returns, an isend's request completes, and the bytes move when the receive
 * is posted. A recorded program ran to its end, so a replay that would stop
 * there stops only because the trace's sends are rendez-vous
 * (trace-format.md "Semantics"): a small send received after a collective its
 * sender then enters, or ranks that each isend to the next and wait for it
 * before receiving (MUMPS; session 67; our rule). Returns how many were
 * buffered; 0 leaves the deadlock to be reported. */
static size_t buffer_blocked_sends(engine *e)
{
    size_t n = 0;
    for (int32_t d = 0; d < e->tr->ntasks; d++) {
        for (int32_t q = e->t[d].unexp_head; q >= 0; q = e->pd[q].next) {
            pend *s = &e->pd[q];
            task *T = &e->t[s->peer];
            if (s->blocking == 1 && T->state == T_SEND) { /* its one blocking send */
                s->blocking = SEND_BUFFERED;
                unblock(e, s->peer);
                n++;
            } else if (s->blocking == 0 &&
                       (T->state == T_WAIT || T->state == T_ENDWAIT)) { /* an isend waited for */
                s->blocking = SEND_BUFFERED;
                n++;
                if (--T->outstanding == 0)
                    unblock(e, s->peer);
            }
        }
    }
    e->res->buffered_sends += n;
    return n;
}

/* A send buffered by buffer_blocked_sends that no receive took: as a
 * deadlock would have been, an error naming it */
static int unreceived_error(engine *e, ct_err *err)
{
    for (int32_t t = 0; t < e->tr->ntasks; t++)
        for (int32_t q = e->t[t].unexp_head; q >= 0; q = e->pd[q].next)
            if (e->pd[q].blocking == SEND_BUFFERED)
                return ct_err_set(err,
                                  "%s:%d: the send of %.0f bytes from task %d to task %d is "
                                  "never received (buffered past a deadlock, it stayed "
                                  "unmatched when every task had ended)",
                                  e->tr->name, (int)e->pd[q].line, e->pd[q].bytes,
                                  (int)e->pd[q].peer, (int)t);
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
                      e->tr->name, e->n.now, blocked, blocked == 1 ? "" : "s", buf,
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
    p->exchange = f->exchange;
    p->bucket = f->bucket;
    p->bucket_pause = f->bucket_pause;
    p->latency_in_penalty = f->latency_in_penalty;
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
    eng_free(&e->n);
    free(e->t);
    free(e->ch);
    free(e->pd);
    free(e->ready);
    free(e->out_end);
    free(e->in_end);
    free(e->out_busy);
    free(e->in_busy);
    free(e->out_sum);
    free(e->in_sum);
    free(e->step);
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
    if (!isfinite(p->exchange) || !isfinite(p->bucket) || p->bucket < 0 ||
        !isfinite(p->bucket_pause) || p->bucket_pause < 0)
        return ct_err_set(err, "step terms exchange=%g s, bucket=%g bytes, bucket_pause=%g s "
                               "(accepted: finite, the bucket and its pause >= 0)",
                          p->exchange, p->bucket, p->bucket_pause);
    return ct_model_check(&p->model, err); /* once, before the first event */
}

static int simulate(const ct_trace *tr, const ct_layout *l, const ct_sim_params *p, int reference,
                    ct_sim_result *out, ct_err *err)
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
    e.t = aligned_alloc(_Alignof(task), (nt ? nt : 1) * sizeof *e.t);
    if (e.t)
        memset(e.t, 0, (nt ? nt : 1) * sizeof *e.t);
    e.ready = malloc((nt ? nt : 1) * sizeof *e.ready);
    if (!out->task || (p->keep_comms && !out->comm) || !e.t || !e.ready ||
        eng_init(&e.n, l->nnodes, &p->model, reference)) {
        engine_free(&e);
        ct_sim_result_free(out);
        return ct_err_set(err, "out of memory (%d tasks, %d nodes)", (int)tr->ntasks,
                          (int)l->nnodes);
    }
    e.n.track_conflicts = 1;
    e.once = !p->latency_in_penalty && ct_model_latency_once(p->model.kind);
    if (p->model.kind == CT_MODEL_DUPLEX && p->model.real[CT_DUPLEX_LONG] != 0 &&
        p->model.real[CT_DUPLEX_LONG_FROM] > 0) {
        /* the long-exchange term (penalty.h): T(m_L) on the curve, as phase_time.c */
        double mf = p->model.real[CT_DUPLEX_LONG_FROM], a, b;
        curve_at(p, mf, &a, &b);
        e.n.long_t_from = ct_hockney(a, b, mf);
        if (e.once)
            e.n.long_t_from -= a; /* the bytes' time, as the transfers' (start_transfer) */
    }
    e.steps = p->exchange != 0 || (p->bucket > 0 && p->bucket_pause > 0);
    if (e.steps) {
        size_t nn = (size_t)l->nnodes;
        double a;
        curve_at(p, p->bucket, &a, &e.bucket_beta); /* the curve's at the bucket */
        e.out_end = malloc(nn * sizeof *e.out_end);
        e.in_end = malloc(nn * sizeof *e.in_end);
        e.out_busy = calloc(nn, sizeof *e.out_busy);
        e.in_busy = calloc(nn, sizeof *e.in_busy);
        e.out_sum = calloc(nn, sizeof *e.out_sum);
        e.in_sum = calloc(nn, sizeof *e.in_sum);
        if (!e.out_end || !e.in_end || !e.out_busy || !e.in_busy || !e.out_sum || !e.in_sum) {
            engine_free(&e);
            ct_sim_result_free(out);
            return ct_err_set(err, "out of memory (%d nodes)", (int)l->nnodes);
        }
        for (size_t i = 0; i < nn; i++)
            e.out_end[i] = e.in_end[i] = -INFINITY; /* idle since ever: a full bucket */
        e.step_pause = INFINITY;
    }
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
        if (rc == 0)
            step_close(&e);
        if (rc || (rc = eng_commit(&e.n, err)))
            break;
        double t1 = eng_next(&e.n);
        double t2 = e.nch ? e.ch[0].t : INFINITY;
        if (t1 == INFINITY && t2 == INFINITY) {
            if (buffer_blocked_sends(&e))
                continue; /* their tasks are ready */
            break;
        }
        eng_advance(&e.n, t1 < t2 ? t1 : t2);
        int32_t k;
        while (rc == 0 && (k = eng_pop_due(&e.n)) >= 0)
            rc = complete_transfer(&e, k);
        if (rc == 0 && k < -1)
            rc = ct_err_set(err, "out of memory");
        while (rc == 0 && e.nch && e.ch[0].t <= e.n.now) {
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
    if (rc == 0 && out->buffered_sends)
        rc = unreceived_error(&e, err);
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

int ct_simulate(const ct_trace *tr, const ct_layout *l, const ct_sim_params *p, ct_sim_result *out,
                ct_err *err)
{
    return simulate(tr, l, p, 0, out, err);
}

int simulate_reference(const ct_trace *tr, const ct_layout *l, const ct_sim_params *p,
                          ct_sim_result *out, ct_err *err)
{
    return simulate(tr, l, p, 1, out, err);
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
