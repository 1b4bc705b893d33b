/* Collective events of a trace (doc/trace-format.md, "Collectives") expanded
 * into point-to-point events, by the algorithm the model selects
 * (doc/trace-format.md, "How collectives are replayed"):
 *
 *   bcast, scatter(v)   the fastest strategy of paper 003's pLogP models
 *                       (Tables 1 and 2), its schedule replayed;
 *   alltoall(v)         pairwise exchange, P - 1 rounds;
 *   allreduce           recursive doubling or ring (reduce-scatter +
 *                       allgather), the cheaper under Hockney;
 *   allgather(v)        recursive doubling (power-of-two P, small totals)
 *                       or ring;
 *   reduce              binomial tree; gather(v) linear; barrier
 *                       dissemination.
 *
 * Rounds of an algorithm are isend/irecv + waitall, so the simulator's
 * penalty model prices the messages a round has in flight together. Compute
 * events and point-to-point events stay where they are. */
#ifndef CONTENTION_COLLECTIVE_H
#define CONTENTION_COLLECTIVE_H

#include <stdint.h>

#include "contention/error.h"
#include "contention/plogp.h"
#include "contention/signatures.h"
#include "contention/trace.h"

/* Segmented pLogP strategies are searched over s = ceil(m / 2^i) with at
 * most this many segments (a bound on the expanded trace; our extension). */
#define CT_COLL_MAX_SEGMENTS 64
/* Default bound on the events of an expanded trace. */
#define CT_COLL_DEFAULT_MAX_EVENTS ((uint64_t)40000000)

typedef struct ct_coll_params {
    double alpha, beta; /* Hockney, s and s/byte */
    ct_plogp plogp;     /* paper 003's g(m) and L */
    uint64_t max_events; /* expanded events allowed; 0 = CT_COLL_DEFAULT_MAX_EVENTS */
    /* ct_trace_phases_build only: 0 = a collective's expansion is cut at its
     * blocking points like any other events (the phases of the expanded
     * trace); 1 = each collective call is ONE phase of each of its members
     * (all its rounds' messages in it; the scorer's aggregation, score.h) */
    int coll_phase;
    /* storage for a gap table derived from Hockney (see ..._from_fabric) */
    double own_m[2], own_g[2];
} ct_coll_params;

/* Parameters from a fabric: its pLogP table and L when it has one (L = alpha
 * when only the table is given); otherwise derived from Hockney so that one
 * message costs the same in both, L + g(m) = alpha + m beta, with the
 * start-up split evenly: L = alpha / 2, g(m) = alpha / 2 + m beta (our
 * reading). p points to f's gap arrays: f must outlive p. */
void ct_coll_params_from_fabric(const ct_fabric *f, ct_coll_params *p);
/* Same from Hockney alone. */
void ct_coll_params_hockney(double alpha, double beta, ct_coll_params *p);

/* Algorithms chosen (for reports and tests). */
typedef enum ct_allreduce_alg { CT_ALLREDUCE_RECDOUBLING = 0, CT_ALLREDUCE_RING } ct_allreduce_alg;
typedef enum ct_allgather_alg { CT_ALLGATHER_RECDOUBLING = 0, CT_ALLGATHER_RING } ct_allgather_alg;
ct_allreduce_alg ct_coll_allreduce_alg(const ct_coll_params *p, int32_t P, double m);
ct_allgather_alg ct_coll_allgather_alg(int32_t P, double total_bytes);
/* Broadcast / scatter strategy of 003 and segment size (bytes) for P
 * processes and m bytes (per member for scatter); segments are bounded by
 * CT_COLL_MAX_SEGMENTS. */
int ct_coll_bcast_choice(const ct_coll_params *p, int32_t P, double m, ct_plogp_choice *out,
                         ct_err *err);
int ct_coll_scatter_choice(const ct_coll_params *p, int32_t P, double m, ct_plogp_choice *out,
                           ct_err *err);

typedef struct ct_coll_stats {
    size_t instances;      /* collective calls (one per communicator and sequence number) */
    size_t events_in, events_out;
    size_t by_kind[CT_EV_KIND_COUNT];
} ct_coll_stats;

/* Check that the members of every communicator call the same collectives in
 * the same order (kind, root, and the bytes of non-v kinds), then write into
 * *out (initialised here) the trace with every collective expanded. Errors
 * name FILE:LINE of the faulty event. stats may be NULL. A trace without
 * collectives is copied. */
int ct_trace_expand(const ct_trace *in, const ct_coll_params *p, ct_trace *out,
                    ct_coll_stats *stats, ct_err *err);

/* Load a trace and expand its collectives if it has any (what every
 * consumer of trace:FILE does). */
int ct_trace_load_expanded(const char *path, const ct_coll_params *p, ct_trace *tr,
                           ct_coll_stats *stats, ct_err *err);
/* The same within lim (trace.h: regular file, bytes, events, tasks); the
 * event bound applies to the expanded trace as well. lim NULL: no bound. */
int ct_trace_load_expanded_bounded(const char *path, const ct_trace_limits *lim,
                                   const ct_coll_params *p, ct_trace *tr, ct_coll_stats *stats,
                                   ct_err *err);

/* A trace cut into phases, for the scorer's aggregation of a large trace
 * (score.h, "aggregated"; our extension): each task's events, collectives
 * expanded, are cut into phases at its blocking points (send, recv,
 * waitall; an isend belongs to the phase it is posted in); phase k of the
 * job is phase k of every task. Its messages keep the order of the
 * communications of the expanded trace (ct_trace_expand's, or the trace's
 * own when it has no collectives). With p->coll_phase each collective call
 * is instead one phase of each member: its expansion gives a tree's root
 * more blocking points than its leaves, so cut there the tasks' phase
 * indices drift apart and phase k stops being one moment of the job (our
 * extension, for the scorer's per-task clocks). */
typedef struct ct_phase_msg {
    int32_t src, dst; /* tasks */
    double bytes;
} ct_phase_msg;

typedef struct ct_trace_phase {
    ct_phase_msg *msg; /* the sends and isends posted in the phase */
    size_t n, cap;
    double compute; /* the longest compute of one task in the phase, s */
    /* each task's own compute in the phase, sparse (the scorer's per-task
     * clocks, score.h; our extension): the tasks with compute > 0 in
     * ascending order, ctask[i] computing csec[i] s (the sum of its compute
     * events in the phase, in program order); 12 bytes per (task, phase)
     * with compute, e.g. 19 MB for 65,536 tasks x 25 phases */
    int32_t *ctask;
    double *csec;
    size_t nc, ccap;
} ct_trace_phase;

typedef struct ct_trace_phases {
    ct_trace_phase *ph;
    size_t nphase;
    size_t nmsg;     /* messages, all phases */
    uint64_t events; /* events of the expanded trace */
} ct_trace_phases;

/* The phases of tr (finished, as read: collectives not yet expanded, or
 * already expanded) with its collectives expanded on the fly by the
 * algorithms ct_trace_expand uses, checked and bounded as ct_trace_expand
 * does (same errors, same event bound p->max_events), without building the
 * expanded trace: the same phases, messages and event count as
 * ct_trace_expand followed by cutting the expanded trace. stats may be
 * NULL. */
int ct_trace_phases_build(const ct_trace *tr, const ct_coll_params *p, ct_trace_phases *out,
                          ct_coll_stats *stats, ct_err *err);
void ct_trace_phases_free(ct_trace_phases *pt);

#endif
