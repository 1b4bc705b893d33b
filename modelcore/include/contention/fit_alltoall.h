/* Robust Alltoall signature fit (papers 000/002 §V least squares, made robust
 * by this project): weights from the repeated runs' spread, the threshold M
 * chosen by a held-out criterion, the incast-aware gamma(k, f) of alltoall.h
 * when the samples span several configurations, the piecewise point-to-point
 * curve of p2p.h, and a refusal when the fit misses its own training points.
 */
#ifndef CONTENTION_FIT_ALLTOALL_H
#define CONTENTION_FIT_ALLTOALL_H

#include <stddef.h>

#include "contention/alltoall.h"
#include "contention/error.h"
#include "contention/fit.h"
#include "contention/p2p.h"

typedef struct ct_a2a_fit_opts {
    /* 1: also fit gamma_incast and gamma_flows (alltoall.h). A coefficient the
     * samples cannot identify (one incast degree, or flows = incast degree at
     * one task per node) stays 0. 0: constant gamma, 000 eq. 5. */
    int incast;
    /* Relative standard deviation assumed for a sample whose spread is unknown
     * or smaller (t_min = 0 or t_min ~ t): default 0.02. */
    double spread_floor;
    /* The fit is refused (ct_fit_signature_robust returns -1) when a training
     * point whose own spread is below the threshold misses it: max |relative
     * error| > max_fit_err. Default 0.15; <= 0 never refuses. */
    double max_fit_err;
    /* 1: keep a fit over the threshold, flagged in the report (fit --force). */
    int force;
    /* 1: fit the per-call step of alltoall.h (this project's extension),
     * either sign, in delta's place (delta = M = 0: on saturated sizes both
     * are intercepts, and delta's is per message); dropped (report's
     * call_dropped: delta fitted as without it) when with it the best fit
     * needs gamma <= 0. 0: no step (the papers' eq. 5). */
    int call_step;
    /* The fit range (bytes; 0 = every size): only samples with m >= min_m are
     * fitted, when they hold 4 samples at 3 sizes or more; else every size,
     * without the per-call step (noted). The smaller ones are predicted, not
     * fitted, and count in the held-out criterion that chooses M. */
    double min_m;
    /* The flows term's exponent a (alltoall.h, flows_exp): gamma_flows is
     * fitted on g_a(f) = (f^a - 1)/a and the signature carries a. Default
     * 0.5 (session 21: the best of a = 1, 0.75, 0.5, ln f and a saturating
     * form refitted on the 66 kept networks of doc/accuracy-runs, and on
     * the 52 older ones alone; doc/models-alltoall.md); 0 or 1: the line
     * f - 1, as fitted before. */
    double flows_exponent;
    /* The incast-loss term (alltoall.h gamma_loss; session 24): with incast
     * and loss_max_f > loss_min_f, gamma_loss is fitted on the column
     * X * ct_a2a_loss_share(k, f) and the signature carries both bounds.
     * calibrate sets them from its incast many-flow step (ct_calib_result);
     * 0, 0: no such term. */
    double loss_min_f, loss_max_f;
    /* 1: with incast and call_step, also fit the incast intercept call_incast
     * of alltoall.h (session 69) on the column max(0, k - 2), where a fitted
     * configuration's ports are fed by 3 nodes or more. 0: none. */
    int call_incast;
    /* M candidates (NULL or nM = 0: 0 and every measured size). */
    const double *M_candidates;
    size_t nM;
} ct_a2a_fit_opts;

/* incast 0, spread_floor 0.02, max_fit_err 0.15, force 0, call_step 0,
 * min_m 0, flows_exponent 0.5, every size a candidate. */
void ct_a2a_fit_opts_default(ct_a2a_fit_opts *o);

typedef struct ct_a2a_fit_report {
    ct_fit_diag diag;       /* R^2, RMSE, relative errors on the training points */
    double cv_rms;          /* held-out criterion of the chosen M: weighted RMS of the
                               leave-one-out relative errors, in units of each point's
                               spread (about 1 for a model that fits within the noise) */
    double cv_rms_M0;       /* the same criterion with M = 0 (to compare) */
    double max_err_trusted; /* max |relative error| over points with spread <= max_fit_err */
    size_t ntrusted;        /* how many such points */
    double max_spread;      /* largest relative spread of a training point */
    /* The model's own scatter (session 19, our addition): the relative error
     * sigma_m, beyond the repetitions' spread, that the fit's residuals show
     * (reduced chi^2 of 1); the fit is redone with each point's variance
     * s_i^2 + sigma_m^2, so that a few very repeatable points (the 2-node
     * Alltoall, spread under 2 %) do not decide a model that misses the
     * others by more than their spread. 0: the fit is within the spreads. */
    double model_scatter;
    int over_threshold;     /* 1: max_err_trusted > max_fit_err (kept only with force) */
    int incast_identified;  /* bit 0: gamma_incast, bit 1: gamma_flows, bit 2: gamma_loss,
                               bit 3: call_incast could be fitted */
    int call_dropped;       /* 1: call_step asked for, dropped (see call_step) */
    double fit_min_m;       /* the fit range used: min_m, or 0 (every size) */
    /* Jackknife standard errors of the coefficients (our addition, session
     * 17): the fit repeated with each fitted sample left out in turn (M and
     * the terms kept as chosen), se = sqrt((n-1)/n sum (theta_i - mean)^2)
     * (Efron & Stein 1981); jk_n = the refits used, 0 when fewer than 3.
     * How far one sample moves a term: a gamma_incast whose se is a large
     * part of it is read off noise (measure more repetitions). */
    size_t jk_n;
    double jk_gamma, jk_gamma_incast, jk_gamma_flows, jk_delta, jk_call, jk_gamma_loss;
    double jk_call_incast;
    char note[CT_ERR_MAX];  /* what was not identifiable, or the threshold warning */
} ct_a2a_fit_report;

/* Relative spread of one sample: (t - t_min) / t, 0 when t_min is unknown
 * (0) or not below t. */
double ct_a2a_sample_spread(const ct_a2a_sample *s);

/* Fit (gamma, delta, M[, gamma_incast, gamma_flows]) on samples s with the
 * point-to-point curve p2p (alpha, beta of each sample's size, p2p.h; a
 * one-segment curve is the Hockney model) and intra_bw as in alltoall.h.
 * With M fixed the model is linear in its coefficients:
 *   T - (n-1) alpha(m) - intra = gamma*X + gamma_incast*X(k-1)
 *                               + gamma_flows*X(f-1) + delta*Y + call*[nodes > 1],
 *   X = r m beta(m), Y = r [m >= M], r = f = t(n - t), k = nodes - 1,
 * (call only with o->call_step; the fit is linear, so give it sizes whose
 * network time stays above a negative step: ct_a2a_layout floors it at 0),
 * solved by non-negative weighted least squares on relative errors, each
 * weighted by 1 / max(spread, spread_floor)^2 (inverse variance: a noisy
 * small-message point weighs little), then once more with each variance
 * raised by the model's own scatter (ct_a2a_fit_report.model_scatter) when
 * the residuals exceed the spreads. M is the candidate with the smallest
 * leave-one-out error (ties to the smaller M); a fit with delta = 0 reports
 * M = 0. Needs >= 4 samples with >= 2 distinct sizes; input errors as
 * ct_fit_signature. rep may be NULL. */
int ct_fit_signature_robust(const ct_a2a_sample *s, size_t n, const ct_p2p_curve *p2p,
                            double intra_bw, const ct_a2a_fit_opts *o, ct_a2a_sig *out,
                            ct_a2a_fit_report *rep, ct_err *err);

/* The layout-aware prediction of one sample with the curve's alpha, beta at
 * its size (ct_a2a_uniform). */
double ct_a2a_predict_sample(const ct_a2a_sample *s, const ct_p2p_curve *p2p, double intra_bw,
                             const ct_a2a_sig *sig);

#endif
