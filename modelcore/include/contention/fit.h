/* Fitting model parameters from measurements (papers 000 §6 / 002 §V: least
 * squares on >= 4 points; paper 001 §V-A for the GigE parameters). */
#ifndef CONTENTION_FIT_H
#define CONTENTION_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "contention/alltoall.h"
#include "contention/error.h"

/* One ping-pong measurement: one-way time t (s) for a message of m bytes
 * (the mean of its repetitions) and the best repetition t_min (s; 0 =
 * unknown), whose distance to t weights the piecewise fit (p2p.h) as it
 * weights the Alltoall fit (fit_alltoall.h). ct_fit_hockney ignores t_min. */
typedef struct ct_p2p_sample {
    double m;
    double t;
    double t_min;
} ct_p2p_sample;

/* One Alltoall measurement: `nodes` nodes with `tasks_per_node` tasks each
 * (n = nodes * tasks_per_node), m bytes per destination, average time t (s),
 * and the best of the repetitions t_min (s; 0 = unknown), whose distance to
 * t gives the robust fit its weights (fit_alltoall.h). */
typedef struct ct_a2a_sample {
    int32_t nodes;
    int32_t tasks_per_node;
    double m;
    double t;
    double t_min;
    /* the median idle time of the nodes before each call, s (ct-mpibench's
     * '# pause m=M: median P s' line before the row; a token bucket refills
     * then: signatures.h ct_fabric.bucket_pause); 0: not recorded */
    double pause;
    /* 1: a row of calibrate's incast many-flow step (ct-mpibench's
     * '# step: incast' line in its file; calibrate.h ct_calib_incast_step),
     * which may lie on the largest node count (3 nodes, session 59);
     * 0: a configuration, or a file that does not say */
    int32_t incast_step;
} ct_a2a_sample;

typedef struct ct_fit_diag {
    size_t npoints;
    double r2;          /* coefficient of determination */
    double rmse;        /* s */
    double max_rel_err; /* max |pred - meas| / meas */
    double mean_abs_rel_err;
    /* Warning raised when the reference data look unsaturated (000 §6.3, 002 §V-C,
     * the Myrinet caveat): relative error trends with n. */
    int unsaturated;
    double rel_err_slope; /* slope of relative error vs n (per process) */
    char warning[256];    /* empty when no warning */
} ct_fit_diag;

/* Fit Hockney alpha (s) and beta (s/byte) by least squares on >= 2 samples
 * (ideally >= 4) with at least two distinct sizes. Residuals are weighted
 * relative to the measured time (noise grows with the time). Refuses sizes
 * < 0 (m = 0, the latency probe, is welcome), times <= 0 and non-finite
 * values; a negative intercept is clamped to alpha = 0 with a warning in
 * diag; beta <= 0 (times not growing with m) is an error. diag may be NULL. */
int ct_fit_hockney(const ct_p2p_sample *s, size_t n, double *alpha, double *beta, ct_fit_diag *diag,
                   ct_err *err);

/* The samples ct_fit_hockney accepts, without fitting: >= 2, finite sizes >= 0
 * and times > 0, at least two distinct sizes. 0, or -1 with err naming the
 * first bad sample. */
int ct_hockney_samples_check(const ct_p2p_sample *s, size_t n, ct_err *err);

/* Hockney alpha (s) with beta (s/byte) already known, e.g. beta = 1 / the
 * peak streaming bandwidth of osu_bw: the least-squares intercept of
 * t - m*beta with the relative weights of ct_fit_hockney (1/t^2), clamped at
 * 0. Needs >= 1 sample; refuses beta <= 0 and the samples ct_fit_hockney
 * refuses. diag (may be NULL) describes alpha + m*beta against the samples. */
int ct_fit_hockney_alpha(const ct_p2p_sample *s, size_t n, double beta, double *alpha,
                         ct_fit_diag *diag, ct_err *err);

/* Fit gamma and delta by least squares (000 §6, 002 §V), choosing M among the
 * candidate thresholds (NULL or nM = 0: every distinct measured m, plus 0)
 * as the one with the smallest residual. Uses the layout-aware model of
 * alltoall.h with intra_bw (<= 0: intra-node time ignored). With alpha, beta
 * and M fixed the model is linear: T - (n-1)*alpha - intra = gamma*X + delta*Y,
 * X = r*m*beta, Y = r*[m >= M], r = t*(n - t); it is solved by least squares
 * on relative residuals with gamma >= 0 and delta >= 0. A candidate M above
 * every sample leaves delta unidentifiable: delta = 0. Ties (within 1e-9
 * relative) go to the smaller M; a fit with delta = 0 reports M = 0.
 * Needs >= 4 samples with >= 2 distinct sizes; refuses non-positive or
 * non-finite sizes/times, fewer than 2 processes, non-positive alpha/beta,
 * and data whose best fit needs gamma <= 0. diag may be NULL; diag->warning
 * reports the unsaturated-reference check (>= 2 distinct n needed). */
int ct_fit_signature(const ct_a2a_sample *s, size_t n, double alpha, double beta, double intra_bw,
                     const double *M_candidates, size_t nM, ct_a2a_sig *out, ct_fit_diag *diag,
                     ct_err *err);

/* Relative residual of each sample under (alpha, beta, sig): (pred-meas)/meas,
 * pred from the layout-aware model (ct_a2a_uniform). */
void ct_fit_residuals(const ct_a2a_sample *s, size_t n, double alpha, double beta, double intra_bw,
                      const ct_a2a_sig *sig, double *rel);

/* Thresholds of the unsaturated-reference warning: the relative error must
 * move by at least CT_FIT_TREND_MIN across the sampled process counts, with
 * a slope at least CT_FIT_TREND_T standard errors from 0. */
#define CT_FIT_TREND_MIN 0.05
#define CT_FIT_TREND_T 3.0

/* GigE penalty parameters from measured conflict schemes (001 §V-A), named
 * as in ct_penalty_model (penalty.h: share = 001's β, dimensionless, not
 * Hockney's beta; skew_in/skew_out = γ_i/γ_o):
 * share = mean over k of penalty(k outgoing) / k from pure outgoing conflicts;
 * skew_out = 1 - t_a / (3*share*t_ref), skew_in = 1 - t_f / (3*share*t_ref)
 * from the Fig. 4 scheme's communications a and f. */
int ct_fit_gige_beta(const int *k, const double *penalty, size_t n, double *share, ct_err *err);
int ct_fit_gige_gammas(double share, double t_ref, double t_a, double t_f, double *skew_in,
                       double *skew_out, ct_err *err);
/* The same with k communications sharing the busy end instead of Fig. 4's 3:
 * skew_out = 1 - t_a / (k*share*t_ref), skew_in = 1 - t_f / (k*share*t_ref)
 * (001 §V-A, the "otherwise" branches of p_o and p_i with card = 1); k = 2 is
 * the 4-node scheme mix4 of calibrate.h. */
int ct_fit_gige_gammas_k(double share, double t_ref, double t_a, double t_f, int k,
                         double *skew_in, double *skew_out, ct_err *err);

#endif
