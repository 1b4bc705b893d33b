/* The mapping scorer: job geometry + pattern + fabric signature ->
 * predicted communication time per candidate mapping. This is the one code
 * path behind the plugin's decision and `contention-admin score`.
 *
 * For each candidate the layout is built as Slurm would (layout.h) and
 * the pattern's traffic is timed on the fabric:
 *  - alltoall: the layout-aware Alltoall signature (alltoall.h,
 *    ct_a2a_layout: papers 000/002 eq. 5 with the busiest NIC); the
 *    uncontended time is ct_a2a_layout_lower_bound. A fabric without an
 *    Alltoall signature is scored with gamma = 1, delta = 0 (and a note);
 *  - ring, halves, halo2d, halo3d: the node-level graph (pattern.h) is
 *    evaluated progressively (progressive.h) under the fabric's penalty
 *    model (paper 001), each communication alone taking Hockney
 *    alpha + bytes * beta; the network time is the last completion, the
 *    uncontended time the longest alone time. A fabric whose penalty model
 *    is "none" is scored as such (and a note says so). Progressive
 *    evaluation re-prices only the arcs a completion touches. GigE/none stay
 *    progressive while the estimated work (sum over arcs of the arcs at their
 *    source plus at their destination) is <= 10^6; Stop & Go and fair share
 *    while every candidate has <= CT_SCORE_PROGRESSIVE_MAX_ARCS node pairs.
 *    Past either bound (e.g. a random layout of a large job) every candidate
 *    is timed with the penalties of the first instant instead (001's static
 *    penalties, pessimistic), and a note says so;
 *  - trace:FILE: the trace is replayed with the simulator (simulate.h) and
 *    the makespan is the time; uncontended = the same replay with no
 *    penalty model. A trace of more than replay_max_events events (after
 *    its collectives are expanded) is not replayed but aggregated (our
 *    extension, bounded work for the launch path): each task's events are
 *    cut into phases at its blocking points (send, recv, waitall), phase k
 *    of the job = phase k of every task; each phase's communications become
 *    one node-level graph (one arc per node pair and size), timed as a
 *    point-to-point pattern (comm_k). The phases are chained by per-task
 *    clocks (our extension; it replaced "sum over phases of comm_k + the
 *    phase's longest compute", which summed compute that does not line up
 *    phase by phase): task t's exchange in phase k can start at
 *    start_t = clock_t + c_{t,k}, its own compute in the phase; each message
 *    (s, d) of the phase ties its two ends, so a task with messages in
 *    phase k ends it at max(start_t, start of each partner) + comm_k, a task
 *    without messages at start_t; the time is the latest clock at the end
 *    (uncontended: the same with the phase's uncontended comm_k). With
 *    every phase tying all tasks and aligned compute it is the sum of the
 *    phases (bulk-synchronous, as the phased halos). A collective call is
 *    one phase of each of its members (collective.h coll_phase; also our
 *    extension): cut at the blocking points of its expansion, a broadcast
 *    tree's root would get more phases than its leaves and phase k would
 *    stop being one moment of the job. Limits: the rounds of a collective
 *    are timed together (their sequential start-ups are not counted); a
 *    phase's messages are timed as if all in flight at once; tasks whose
 *    point-to-point programs differ can still drift apart. A note says so. The
 *    phases come from the trace as read, its collectives expanded on the
 *    fly (collective.h ct_trace_phases_build), and each candidate's node
 *    pairs are accumulated in one pass over the messages: a decision on a
 *    1,024 x 64 recording never builds its 4 M expanded events.
 * Intra-node traffic goes through memory at the fabric's intra_bw: node k's
 * intra-node bytes take intra_bytes[k] / intra_bw, the same in the
 * predicted and the uncontended time (it is not network contention), and
 * the pattern's time is the larger of the network and intra-node times.
 */
#ifndef CONTENTION_SCORE_H
#define CONTENTION_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/signatures.h"

#define CT_MAX_CANDIDATES 8
#define CT_SCORE_PROGRESSIVE_MAX_ARCS 1024
/* Default bound on the events of a trace the scorer replays (see above). */
#define CT_SCORE_REPLAY_MAX_EVENTS ((int64_t)200000)

typedef struct ct_candidate_score {
    ct_dist dist;
    int32_t plane;
    char name[32];          /* "block", "cyclic", "plane=4", "random" */
    double predicted_s;     /* predicted communication time */
    double uncontended_s;   /* same traffic with no contention */
    double slowdown;        /* predicted / uncontended (1 when both are 0) */
    int64_t remote_comms;   /* communications crossing the network */
    double intra_s;         /* the intra-node part (max over nodes) */
    /* the link with the most communications in flight per unit of capacity
     * at the start (penalty.h ct_links_busiest): "node 2 NIC out",
     * "leaf1 uplink"; "" when no communication crosses the network */
    char busiest_link[80];
    double busiest_ratio;   /* its communications / capacity (NIC units) */
} ct_candidate_score;

typedef struct ct_score_request {
    const ct_alloc *alloc;
    int32_t ntasks;         /* <= 0: one task per task slot (layout.h), or the trace's tasks */
    int32_t cpus_per_task;  /* >= 1 (0 is taken as 1) */
    ct_pattern pattern;
    int include_plane;      /* also score plane=k (k = plane_size) */
    int32_t plane_size;
    int include_random;     /* also score a seeded random layout */
    uint64_t seed;
    /* the switch tree over the allocation's nodes (topology.h: allocation
     * node i under tree->leaf[i]), NULL for one switch. Point-to-point
     * patterns are priced by the link model (penalty_links.c), Alltoall
     * gains the uplink term of ct_lg_tree_alltoall (002 eq. 7's terms per uplink,
     * overlapped). */
    const struct ct_tree_map *tree;
    /* trace patterns: replay at most this many (expanded) events, aggregate
     * past it; 0 = CT_SCORE_REPLAY_MAX_EVENTS, < 0 = always replay */
    int64_t replay_max_events;
    /* the Slurm release whose step rules apply (CT_SLURM_VERSION, layout.h;
     * 0: 22.05's). From 24.05.5 a step on fewer nodes than the allocation
     * starts where the job's previous step left off, which a request does
     * not know: scoring one fails with "not modelled". */
    uint32_t slurm_version;
    /* CT_PAT_TRACE: the trace already read (ct_trace_load_bounded; its
     * collectives, if any, are expanded here within
     * pattern.trace_limits.max_events, as when read here), or NULL to read
     * pattern.trace here (with pattern.trace_limits); so that a caller
     * running the placement search too reads it once. Not modified; owned
     * by the caller. */
    const struct ct_trace *trace;
    /* One more layout to price with the same evaluation as the candidates,
     * e.g. a SLURM_HOSTFILE a user launches with -m arbitrary (contention-
     * admin score --layout), or NULL. Its tasks and nodes must be the
     * request's (ntasks, alloc->nnodes) and no node may hold more tasks than
     * its task slots (max(1, cpus / cpus_per_task)). It is not a candidate:
     * it is reported in ct_score_result.given, never ranked, never the
     * winner. Not modified; owned by the caller. */
    const ct_layout *given;
    const char *given_name; /* its name in messages and given.name; NULL: "given" */
} ct_score_request;

typedef struct ct_score_result {
    size_t n;                               /* candidates, sorted by predicted_s */
    ct_candidate_score c[CT_MAX_CANDIDATES];
    size_t winner;                          /* index into c (0 after sorting) */
    /* (second - winner) / winner, 0 with one candidate or a tie at 0;
     * INFINITY when only the winner needs no time at all (check isinf
     * before printing JSON) */
    double margin;
    int32_t ntasks;                         /* tasks scored */
    char fabric[CT_NAME_MAX];
    char model[32];                         /* "alltoall-signature", "gige", ... */
    char note[256];                         /* what was assumed for a missing part, or "" */
    int aggregated; /* a trace past replay_max_events, aggregated per phase (above) */
    int have_given;             /* req->given was priced: */
    ct_candidate_score given;   /* dist CT_DIST_EXPLICIT, name req->given_name */
} ct_score_result;

/* What an automatic choice launches of the scored candidates: the winner,
 * unless block, Slurm's default, is predicted within min_switch of it
 * ((block - winner) / block < min_switch, e.g. 0.05); then block, so that a
 * predicted difference smaller than the model can tell apart does not move a
 * job (our policy, not the papers': the plugin's min_switch=, contention-admin
 * score's auto line). Returns an index into r->c (r->winner without a block
 * candidate); *gain (may be NULL) = the winner's predicted gain over block
 * (0 when block wins or is missing). */
size_t ct_score_auto_pick(const ct_score_result *r, double min_switch, double *gain);

/* Score block and cyclic (and plane/random when asked) for req on fabric.
 * Ties keep the order block, cyclic, plane, random (Slurm's default first). */
int ct_score(const ct_fabric *fabric, const ct_score_request *req, ct_score_result *out,
             ct_err *err);

#endif
