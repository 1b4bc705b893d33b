/* The event engine shared by the trace-replay simulator (simulate.c) and the
 * progressive evaluation (progressive.c), internal to libcontention.
 *
 * Transfers in flight between nodes, each with its time alone; each
 * progresses at rate 1/p of it (001 §IV-B: T = p * T_alone) and keeps r, its
 * remaining time alone, as of tu, so only a change of its own penalty touches
 * it: r -= (now - tu) / p_old, then its end is now + r * p_new. One indexed
 * heap, keyed by (end, tag), gives the next completion (4-ary, each entry
 * carrying its end, so that sifting reads the heap array only: with 2,048
 * transfers in flight the transfers themselves do not fit in L1).
 *
 * After the changes of one instant, eng_commit re-applies the penalty
 * model (model.h): through its incremental hooks when it has them (only the
 * transfers whose inputs moved), otherwise to each connected component that
 * holds a changed node (a component's penalties do not depend on traffic
 * outside it), or to everything in flight: over a switch tree
 * (ct_penalty_model.tree), whose links couple components, and when the
 * transfers are the arcs of a caller's graph (eng_graph: the progressive
 * evaluation, which applies the model to the graph's active arcs exactly as
 * ct_penalties_active does).
 *
 * One rule for simultaneous completions: eng_advance(t) moves time to t,
 * and every transfer whose end lies within max(dt * ENG_TIE, t *
 * ENG_SAME) past t, dt being the time since the previous instant, is due
 * at t (rounding in r and p must not split one instant into several).
 */
#ifndef CONTENTION_ENGINE_H
#define CONTENTION_ENGINE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"
#include "contention/penalty.h"

#include "gige_incremental.h"
#include "model.h"

#define ENG_TIE 1e-9
#define ENG_SAME 1e-12

typedef struct xfer {
    /* what re-applying a penalty and ordering ends read: one cache line
     * (the array is 64-byte aligned, each transfer 128 bytes) */
    _Alignas(64) double r; /* remaining time alone (s) as of tu */
    double tu;
    double p;      /* current penalty */
    double finish; /* predicted end */
    double start, p_start;
    int64_t tag;   /* the caller's id; orders completions at equal ends */
    int32_t src, dst; /* nodes */
    double alone;
    int32_t next_free;
    uint8_t remote;   /* on the network (src != dst) */
    uint8_t conflict; /* CT_CONFLICT_* bits (simulate.h), when tracked */
    /* the simulator's bookkeeping, carried with the transfer */
    uint8_t send_blocking, recv_blocking;
    int32_t src_task, dst_task;
    double send_post, recv_post, bytes;
    /* eng_offset: a fixed time added to the end, no contention (< 0: taken
     * off it, never before start + lat nor before now); 0 = none */
    double fix, lat;
} xfer;

typedef struct eng_hent {
    double finish; /* = s[k].finish */
    int32_t k;
} eng_hent;

typedef struct eng {
    int32_t nnodes;
    ct_penalty_model model;
    const model_ops *ops;
    int incremental;  /* through the model's hooks */
    int whole;        /* re-apply to everything in flight (switch trees) */
    int track_conflicts;
    /* transfers on the network as links of per-node lists (link k = slot k) */
    gnet g;
    int32_t *local; /* node -> index inside the component being evaluated */
    xfer *s;
    size_t cap, used;
    int32_t free_head;
    struct eng_hent *heap; /* completion heap: (end, slot), = hbuf + HEAP_SKEW */
    struct eng_hent *hbuf; /* 64-byte aligned: each entry's 4 children share a line */
    int32_t *hpos;            /* by slot: position in the heap, -1 when out */
    size_t nheap, heap_cap;
    int heap_unordered; /* bulk start: heapified at the next commit */
    const ct_graph *graph;  /* eng_graph: transfers are its arcs, tag = arc */
    unsigned char *active;  /* by arc: in flight */
    int32_t *slot_of;       /* by arc: its transfer */
    double *gpen;
    size_t nactive;
    ct_comm *gbuf; /* component evaluation buffers */
    double *pbuf;
    int32_t *gmap;
    size_t gcap;
    double long_t_from; /* the simulator's long-exchange term (our extension, session 33):
                         * T(m_L) of the duplex model's λ, which then takes the δ of
                         * each component's largest transfer (ct_duplex_long_delta),
                         * as the scorer's phases do; 0 = none (the progressive
                         * evaluation: its caller sets δ) */
    double now, prev; /* this instant and the previous one */
    double due;       /* ends up to this are due now */
    uint64_t evals;   /* penalties applied */
    int64_t bad;      /* a transfer given an invalid penalty, or -1 */
    double bad_p;
    mem_acct acct;
} eng;

/* reference != 0: never the incremental hooks (cross-checks). */
int eng_init(eng *e, int32_t nnodes, const ct_penalty_model *m, int reference);
void eng_free(eng *e);

/* A transfer src -> dst of mult communications (nodes; mult counts in the
 * model's degrees) whose time alone is alone, starting now. Its slot, or -1
 * (out of memory). src == dst: off the network, no penalty. */
int32_t eng_start(eng *e, int32_t src, int32_t dst, int64_t mult, double alone, int64_t tag);
/* The transfers will be the arcs of g (tag = arc index, at most one
 * transfer per arc); the model is re-applied to g's active arcs as a whole. */
int eng_graph(eng *e, const ct_graph *g);
/* Starts that follow are ordered in the heap only at the next commit (O(n)
 * for a graph started at once). */
static inline void eng_bulk(eng *e)
{
    e->heap_unordered = 1;
}

/* A fixed time added to transfer k's end, outside the penalty (the
 * simulator's exchange step and bucket refill, doc/simulator.md; our
 * extension): its end becomes now + r p + fix, at least start + lat and
 * now, from this instant on; the heap is ordered at the next commit when a
 * bulk start is pending, else here. */
void eng_offset(eng *e, int32_t k, double fix, double lat);

/* Re-apply the model after the changes of this instant (see the top). */
int eng_commit(eng *e, ct_err *err);

/* The next end, INFINITY when nothing is in flight. */
static inline double eng_next(const eng *e)
{
    return e->nheap ? e->heap[0].finish : INFINITY;
}
/* Move time to t (>= now). */
static inline void eng_advance(eng *e, double t)
{
    double dt = t - e->now, a = dt * ENG_TIE, b = t * ENG_SAME;
    e->prev = e->now;
    e->now = t;
    e->due = t + (a > b ? a : b); /* fmax(a, b): neither is NaN here (t, now finite) */
}
/* A transfer due now (see the rule at the top), off the network and out of
 * the heap but its slot still readable, or -1 when none. */
int32_t eng_pop_due(eng *e);
/* Give the slot of a popped transfer back. */
static inline void eng_release(eng *e, int32_t k)
{
    e->s[k].remote = 0;
    e->s[k].next_free = e->free_head;
    e->free_head = k;
}

#endif
