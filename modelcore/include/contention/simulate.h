/* Trace-replay simulator (paper 001 §VI-A) and its evaluation (001 §VI-B).
 *
 * Event-driven: tasks run their trace events (trace.h) in program order;
 * a matched send/receive pair starts a transfer whose time alone is Hockney's
 * alpha + bytes*beta (intra-node: bytes / intra_bw, off the network). Whenever
 * the set of in-flight network transfers changes, the penalty model
 * (penalty.h) is re-applied to the transfers it affects and each transfer
 * progresses at rate 1/p of its alone time (T = p * T_alone, 001 §IV-B).
 * Details and the semantics chosen: doc/simulator.md.
 */
#ifndef CONTENTION_SIMULATE_H
#define CONTENTION_SIMULATE_H

#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"
#include "contention/layout.h"
#include "contention/penalty.h"
#include "contention/signatures.h"
#include "contention/trace.h"

/* Conflict kinds of paper 001 §IV-A seen by a communication during its life. */
#define CT_CONFLICT_OUT 1u   /* other outgoing communications at its source node */
#define CT_CONFLICT_IN 2u    /* other incoming communications at its destination node */
#define CT_CONFLICT_INOUT 4u /* incoming traffic at its source / outgoing at its destination */

typedef struct ct_sim_params {
    ct_penalty_model model; /* kind and parameters (penalty.h) */
    double alpha;           /* s, Hockney start-up of a network communication */
    double beta;            /* s/byte, Hockney inverse bandwidth */
    ct_p2p_curve p2p;       /* piecewise Hockney (p2p.h); nseg = 0: alpha, beta above */
    double intra_bw;        /* bytes/s between tasks of one node; <= 0: instantaneous */
    int keep_comms;         /* 1: fill ct_sim_result.comm (needed by ct_sim_evaluate) */
    /* The scorer's phase terms (our extension, doc/simulator.md "Steps"; 0 =
     * none, as before session 33): the transfers that start at one instant
     * are one step, which takes exchange (s, signatures.h ct_fabric.exchange)
     * more, outside the penalty, and the bucket's refill after the step's
     * links were idle (bucket bytes, refilled in bucket_pause s before
     * calibrate's calls: ct_fabric.bucket, .bucket_pause) less. */
    double exchange;
    double bucket, bucket_pause;
    /* 1: every model's penalty stretches a transfer's whole time alone,
     * latency included (001 §IV-B's T = p T_alone, as before session 56);
     * 0: the models whose ct_model_info.latency_once is set (fairshare,
     * duplex, tcpshare) stretch its bytes' time only and add its alpha once,
     * outside the penalty, as the scorer does (phase_time.c). From
     * ct_fabric.latency_in_penalty. */
    int latency_in_penalty;
} ct_sim_params;

typedef struct ct_sim_comm {
    int32_t src, dst; /* tasks */
    int32_t src_node, dst_node;
    double bytes;
    double send_post;  /* s, when the sender called send/isend */
    double recv_post;  /* s, when the matching recv/irecv was posted */
    double start, end; /* s, the transfer: start = max(send_post, recv_post) */
    double alone;      /* s, the transfer's time with no other traffic */
    double p_start;    /* penalty over its first instant of progress */
    double p_eff;      /* (end - start) / alone: its effective penalty (001 §IV-B) */
    unsigned conflict; /* CT_CONFLICT_* bits seen while in flight */
} ct_sim_comm;

typedef struct ct_sim_task {
    double total;   /* s, when its last event ended */
    double compute; /* s spent in compute events */
    double comm;    /* s blocked in send, recv or waitall (total = compute + comm) */
    int64_t sends, recvs;
    double bytes_out, bytes_in;
} ct_sim_task;

typedef struct ct_sim_result {
    int32_t ntasks;
    ct_sim_task *task;
    size_t ncomm;
    ct_sim_comm *comm;      /* NULL unless keep_comms */
    double makespan;        /* s */
    size_t nremote, nintra; /* communications over the network / inside a node */
    double mean_p_eff;      /* over network communications */
    double mean_p_start;
    size_t n_conflict[4]; /* network communications with: none, out, in, in-out (bits) */
    double bytes_total, bytes_delivered;
    uint64_t events;        /* trace events executed */
    uint64_t penalty_evals; /* per-communication penalty evaluations */
    size_t peak_inflight;   /* transfers in flight at once */
    size_t peak_pending;    /* posted, not yet matched sends and receives */
    size_t buffered_sends;  /* blocking sends buffered where the replay would have
                               deadlocked (MPI's buffering; simulate.c) */
    size_t engine_bytes;    /* peak bytes of the engine's dynamic structures */
} ct_sim_result;

/* Take alpha, beta, intra_bw and the penalty model from a fabric. */
void ct_sim_params_from_fabric(const ct_fabric *f, ct_sim_params *p);

/* Replay tr with task t on node l->node_of[t] (l->ntasks must equal
 * tr->ntasks). Fails on deadlock (naming the blocked tasks and their lines)
 * and on a send larger than its receive's buffer. *out is valid on success. */
int ct_simulate(const ct_trace *tr, const ct_layout *l, const ct_sim_params *p, ct_sim_result *out,
                ct_err *err);
void ct_sim_result_free(ct_sim_result *r);

/* Predicted time of communication c as the paper measured it, at the source
 * from the call to its return (001 §IV-B): end - send_post. */
double ct_sim_comm_time(const ct_sim_comm *c);

/* Errors of 001 §VI-B against measured[c] (NaN = not measured). */
typedef struct ct_sim_eval {
    size_t n;           /* communications with a measured time */
    double *e_rel;      /* per communication, % ; NaN when not measured */
    double e_abs_graph; /* mean |E_rel| over measured communications, % */
    int32_t ntasks;
    double *s_p, *s_m;      /* per task: summed predicted / measured times of its sends */
    double *e_abs_task;     /* per task, %; NaN when it sends nothing measured */
    double e_abs_task_mean; /* mean over tasks that have one */
} ct_sim_eval;

/* E_rel(c) = (T_p - T_m)/T_m * 100, E_abs(G) = mean |E_rel|, E_abs(t) =
 * |(S_p - S_m)/S_m| * 100 over the communications task t sends (001 §VI-B).
 * Needs a result simulated with keep_comms. */
int ct_sim_evaluate(const ct_sim_result *r, const double *measured, ct_sim_eval *ev, ct_err *err);
void ct_sim_eval_free(ct_sim_eval *ev);

#endif
