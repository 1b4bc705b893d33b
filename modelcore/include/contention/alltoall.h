/* Alltoall contention signature (papers 000 and 002, Steffenel, Martinasso,
 * Trystram). The pLogP All-to-All bounds (paper 003 Table 3) are in plogp.h.
 *
 * The signature of a fabric is (gamma, delta, M): gamma the contention
 * ratio, delta a per-communication start-up overload applied when the
 * message size m >= M (000 eq. 4 and eq. 5).
 */
#ifndef CONTENTION_ALLTOALL_H
#define CONTENTION_ALLTOALL_H

#include <stdint.h>

#include "contention/error.h"

typedef struct ct_a2a_sig {
    double gamma; /* contention ratio, >= 0 (1 = no contention) */
    double delta; /* s, start-up overload per communication, applied when m >= M */
    double M;     /* bytes, message-size threshold for delta (0 = always) */
    /* Incast-aware contention ratio (this project's extension, not in the
     * papers): at a node whose port receives from k remote nodes through f
     * remote flows at once,
     *   gamma(k, f) = gamma + gamma_incast*(k - 1) + gamma_flows*g(f),
     * g(f) = f - 1 or its power form (flows_exp below),
     * which is 000/002 eq. 5's constant gamma when k and f are fixed (and
     * exactly it when both coefficients are 0, the published signatures). */
    double gamma_incast; /* per remote node beyond the first, >= 0 */
    double gamma_flows;  /* per remote flow beyond the first, >= 0 */
    /* Per-call step (this project's extension, not in the papers), s, either
     * sign: a constant added once to every Alltoall call that crosses the
     * network. > 0: a fixed cost per call (the MPI library's and the hosts'
     * start and finish of the exchange); < 0: a token bucket's burst, refilled
     * between calls, that lets the first bytes of each call through free. The
     * network part of a call never goes below 0 (ct_a2a_layout). 0 in the
     * published signatures: eq. 5 exactly. */
    double call;
    /* The largest incast degree k and flow count f the gamma_incast and
     * gamma_flows terms were fitted on (this project's extension, session 16):
     * beyond them each term holds its value there instead of growing on a
     * line no measurement saw (calibrate on 4 nodes, score 64: k = 63).
     * 0 = no limit (the published signatures, and fits written before). */
    double k_max, f_max;
    /* The shape of the flows term (this project's extension, session 21):
     * gamma_flows multiplies g_a(f) = (f^a - 1) / a, a in (0, 1] (Box & Cox
     * 1964's power family: a = 1 is the line f - 1, a < 1 bends it, each
     * flow beyond the first costing less than the one before). 0 = the line
     * f - 1, the form every signature written before session 21 was fitted
     * with (the published signatures have no flows term). */
    double flows_exp;
    /* The incast-loss term (this project's extension, issue 12, session 24):
     * where a port's remote flows come from two or more senders at once
     * (k >= 2) and are many, the switch port's queue overflows and TCP loses
     * whole windows, recovered by retransmission timeouts (TCP incast; the
     * 4 x 4 Alltoall on shallow queues, doc/accuracy-notes.md sessions 23-24).
     * gamma(k, f) gains
     *   gamma_loss * 2 (k - 1) / k * clamp((f - loss_min_f) / (loss_max_f - loss_min_f), 0, 1)
     * for k >= 2 (k held at k_max when set), read at calibrate's incast
     * many-flow step (3 nodes: k = 2, where 2 (k - 1) / k = 1, loss_max_f
     * flows a port) against the most flows of the other configurations
     * fitted at k >= 2 (loss_min_f): 0 at or below loss_min_f, gamma_loss at
     * loss_max_f flows from two nodes, held beyond. The factor: while its k
     * senders send at once a port takes up to k times its line rate and
     * serves one, so once its queue is full it drops (k - 1) / k of what
     * arrives; bounded (at most twice the step's), so a signature calibrated
     * on 4 nodes does not grow it without limit on 64. 0 = no such term (the
     * published signatures, and fits without that step). */
    double gamma_loss;
    double loss_min_f, loss_max_f;
    /* The incast intercept (this project's extension, issue 12, session 69),
     * s, >= 0: a time added once a call to the network time of a node whose
     * port k >= 3 remote nodes feed at once,
     *   call_incast * (k - 2), k held at k_max when set.
     * Where three or more nodes feed a port, the Alltoall's excess over the
     * contention-free time is an intercept, not a slope, and one a call, not
     * one a message (doc/accuracy-notes.md, sessions 39 and 69: on 8 nodes
     * 8 x 1 and 8 x 2, 7 and 28 flows a port, exceed it by about the same
     * time): the senders keep more window open than their share of the port
     * and the call ends when the port holding the most has drained it.
     * gamma(k, f) grows with the bytes and cannot price it. Fitted only when
     * asked (calibrate --incast-intercept): on the shapes measured to check
     * it, it did worse (doc/accuracy-runs/rules-s69b.txt). 0 = no such term
     * (the published signatures, and every signature written without it). */
    double call_incast;
} ct_a2a_sig;

/* The incast intercept's weight of the extension above: max(0, k - 2), k held
 * at k_max when set (k_max >= 3 wherever the term was fitted). */
double ct_a2a_call_incast_share(const ct_a2a_sig *s, double k);

/* The incast-loss term's weight of the extension above: 0 for k < 2 or
 * f <= loss_min_f, 2 (k - 1) / k at f >= loss_max_f (k held at k_max when
 * set), linear in f between; 0 when the signature has no such term
 * (loss_max_f <= loss_min_f). */
double ct_a2a_loss_share(const ct_a2a_sig *s, double k, double f);
/* 1 when the incast-loss term is absent or has its flow bounds in order
 * (loss_min_f < loss_max_f); the one rule of the loader, ct_fabric_validate
 * and ct_a2a_layout_checked. */
int ct_a2a_loss_bounds_ok(const ct_a2a_sig *s);

/* The flows term's g_a(f) above: 0 for f <= 1; f - 1 when a = 0 or a = 1;
 * (f^a - 1) / a otherwise. Shared by the Alltoall (gamma(k, f)) and the
 * duplex model's flows term, so both price a NIC's flows alike. */
double ct_a2a_flows_term(double f, double a);
/* Checks such an exponent: 0 (the line) or a in (0, 1]; else -1 with
 * "<name> = <a> (accepted: ...)". One rule for the fit's option, the
 * signature's flows_exp and the duplex model's duplex_flows_exponent. */
int ct_a2a_flows_exp_check(const char *name, double a, ct_err *err);

/* gamma(k, f) of the extension above, k and f held at k_max, f_max when those
 * are set, the flows term shaped by flows_exp, plus the incast-loss term;
 * exactly s->gamma when gamma_incast, gamma_flows and gamma_loss are 0. */
double ct_a2a_gamma_at(const ct_a2a_sig *s, double k, double f);

/* Contention-free lower bound (000 Proposition 1): (n-1)*alpha + (n-1)*beta*m.
 * n processes, one per node; n <= 1 gives 0. */
double ct_a2a_lower_bound(int64_t n, double alpha, double beta, double m);
/* 000 eq. 4: T = (n-1) * (alpha + m*beta*gamma). */
double ct_a2a_eq4(int64_t n, double alpha, double beta, double m, double gamma);
/* 000 eq. 5: eq. 4 plus (n-1)*delta when m >= M. The papers' formula: it
 * reads gamma, delta and M only (no incast terms, no per-call step). */
double ct_a2a_eq5(int64_t n, double alpha, double beta, double m, const ct_a2a_sig *s);

/* Layout-aware form of eq. 5 for several tasks per node (this project's
 * extension; reduces to eq. 5 when every node holds one task and the
 * signature's gamma_incast = gamma_flows = 0).
 * tasks[k] = tasks on node k (k < nnodes), n = sum tasks. The network part
 * is set by the busiest NIC: node k's NIC carries r_k = t_k * (n - t_k)
 * remote messages each way, and its t_k tasks exchange t_k*(t_k-1) messages
 * through memory at intra_bw bytes/s (term dropped when intra_bw <= 0):
 *   T = (n-1)*alpha + max_k [ max(0, r_k * (m*beta*gamma_k + [m >= M]*delta) + call
 *                                   + call_incast * max(0, K_k - 2))
 *                             + t_k*(t_k-1)*m / intra_bw ]
 * where the per-call step `call` counts only when tasks sit on two nodes or
 * more (an all-local Alltoall crosses no network), and with it the incast
 * intercept call_incast * ct_a2a_call_incast_share(s, K_k).
 * gamma_k = ct_a2a_gamma_at(s, K_k, r_k), K_k the number of other nodes
 * holding tasks (the port's incast degree) and r_k its remote flows.
 * With t_k = 1 everywhere, r_k = n-1 and T is exactly eq. 5 (constant gamma). */
double ct_a2a_layout(const int32_t *tasks, int32_t nnodes, double alpha, double beta, double m,
                     const ct_a2a_sig *s, double intra_bw);
/* The contention-free bound for the same layout (gamma = 1, delta = 0). */
double ct_a2a_layout_lower_bound(const int32_t *tasks, int32_t nnodes, double alpha, double beta,
                                 double m, double intra_bw);
/* The remote messages through the busiest NIC of `nodes` nodes holding
 * `tasks_per_node` tasks each: r = t (n t - t), the f of gamma(k, f) (this
 * project's extension; n - 1 with one task per node). */
double ct_a2a_uniform_flows(int32_t nodes, int32_t tasks_per_node);
/* ct_a2a_layout for `nodes` nodes holding `tasks_per_node` tasks each, in
 * closed form (no array); equal to ct_a2a_layout on that layout. */
double ct_a2a_uniform(int32_t nodes, int32_t tasks_per_node, double alpha, double beta, double m,
                      const ct_a2a_sig *s, double intra_bw);
/* ct_a2a_layout with its input checked: tasks[k] >= 0, at least one task,
 * finite beta, m, gamma, delta, M, gamma_incast, gamma_flows, gamma_loss, all
 * >= 0 (gamma_loss > 0 with 0 <= loss_min_f < loss_max_f), a finite call step
 * (either sign), and
 * alpha finite with alpha + m*beta >= 0 (a piecewise curve's segment may have
 * a negative alpha, p2p.h). Returns -1 with
 * a message naming the value at fault; the unchecked functions above return
 * NaN on such input instead. */
int ct_a2a_layout_checked(const int32_t *tasks, int32_t nnodes, double alpha, double beta, double m,
                          const ct_a2a_sig *s, double intra_bw, double *T, ct_err *err);

#endif
