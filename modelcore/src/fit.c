/* Fitting the point-to-point and Alltoall models to measurements (papers
 * 000/002 §V: alpha and beta from a ping-pong, then gamma and delta by least
 * squares on >= 4 Alltoall measurements, M chosen by the best fit).
 *
 * 000 §6 and 002 §V say "Generalized Least Squares". Timings spread over orders of
 * magnitude and their noise grows with the time, so the residuals are
 * weighted by 1/T^2: the fit minimises the sum of squared relative errors,
 * which is the GLS estimate for noise proportional to the time. The GigE
 * penalty fits (ct_fit_gige_*) live in fit_gige.c. */
#include "contention/fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/alltoall.h"

static void diag_warn(ct_fit_diag *d, const char *msg)
{
    if (!d)
        return;
    size_t len = strlen(d->warning);
    if (len)
        snprintf(d->warning + len, sizeof d->warning - len, "; %s", msg);
    else
        snprintf(d->warning, sizeof d->warning, "%s", msg);
}

/* R^2, RMSE and relative errors of predictions against measurements. */
static void diag_fill(ct_fit_diag *d, const double *pred, const double *meas, size_t n)
{
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += meas[i];
    mean /= (double)n;
    double ssr = 0, sst = 0, maxrel = 0, sumrel = 0;
    for (size_t i = 0; i < n; i++) {
        double e = pred[i] - meas[i];
        double rel = fabs(e) / meas[i];
        ssr += e * e;
        sst += (meas[i] - mean) * (meas[i] - mean);
        sumrel += rel;
        if (rel > maxrel)
            maxrel = rel;
    }
    d->npoints = n;
    d->r2 = sst > 0 ? 1.0 - ssr / sst : (ssr == 0 ? 1.0 : 0.0);
    d->rmse = sqrt(ssr / (double)n);
    d->max_rel_err = maxrel;
    d->mean_abs_rel_err = sumrel / (double)n;
}

static int bad_value(double v, int allow_zero)
{
    return !isfinite(v) || v < 0 || (!allow_zero && v == 0);
}

/* Sample i's size m (0 allowed when zero_ok) and time t; `who` opens the
 * message ("Hockney fit", "signature fit"). */
static int bad_sample(ct_err *err, const char *who, size_t i, double m, int zero_ok, double t)
{
    if (bad_value(m, zero_ok))
        return ct_err_set(err, "%s: sample %zu: m = %g (accepted: a finite size %s 0 in bytes)",
                          who, i, m, zero_ok ? ">=" : ">");
    if (bad_value(t, 0))
        return ct_err_set(err, "%s: sample %zu: t = %g (accepted: a finite time > 0 in seconds)",
                          who, i, t);
    return 0;
}

/* diag of alpha + m*beta (Hockney, papers 000/002 §III) against the samples */
static int hockney_diag(ct_fit_diag *diag, const ct_p2p_sample *s, size_t n, double a, double b,
                        const char *who, ct_err *err)
{
    double *pred = calloc(n, sizeof *pred), *meas = calloc(n, sizeof *meas);
    if (!pred || !meas) {
        free(pred);
        free(meas);
        return ct_err_set(err, "%s: out of memory for %zu samples", who, n);
    }
    for (size_t i = 0; i < n; i++) {
        pred[i] = a + b * s[i].m;
        meas[i] = s[i].t;
    }
    diag_fill(diag, pred, meas, n);
    free(pred);
    free(meas);
    return 0;
}

int ct_hockney_samples_check(const ct_p2p_sample *s, size_t n, ct_err *err)
{
    if (!s || n < 2)
        return ct_err_set(err,
                          "Hockney fit: %zu ping-pong samples (accepted: at least 2, "
                          "4 or more preferred)",
                          s ? n : (size_t)0);
    int distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if (bad_sample(err, "Hockney fit", i, s[i].m, 1, s[i].t) < 0)
            return -1;
        if (s[i].m != s[0].m)
            distinct = 1;
    }
    if (!distinct)
        return ct_err_set(err,
                          "Hockney fit: all %zu samples have m = %g bytes (accepted: at "
                          "least two distinct sizes)",
                          n, s[0].m);
    return 0;
}

int ct_fit_hockney(const ct_p2p_sample *s, size_t n, double *alpha, double *beta, ct_fit_diag *diag,
                   ct_err *err)
{
    if (diag)
        memset(diag, 0, sizeof *diag);
    if (s && n >= 2 && (!alpha || !beta))
        return ct_err_set(err, "Hockney fit: missing result pointer");
    if (ct_hockney_samples_check(s, n, err) < 0)
        return -1;

    /* weighted least squares of t = alpha + beta*m, weights 1/t^2 */
    double sw = 0, sm = 0, smm = 0, st = 0, smt = 0;
    for (size_t i = 0; i < n; i++) {
        double w = 1.0 / (s[i].t * s[i].t);
        sw += w;
        sm += w * s[i].m;
        smm += w * s[i].m * s[i].m;
        st += w * s[i].t;
        smt += w * s[i].m * s[i].t;
    }
    double det = sw * smm - sm * sm;
    double a = (smm * st - sm * smt) / det;
    double b = (sw * smt - sm * st) / det; /* Hockney: t = alpha + m*beta */
    int clamped = 0;
    if (a < 0) {
        a = 0;
        b = smt / smm; /* refit through the origin */
        clamped = 1;
    }
    if (!(b > 0) || !isfinite(b))
        return ct_err_set(err,
                          "Hockney fit: least squares gives beta = %g s/byte (accepted: "
                          "> 0; the times do not grow with the message size)",
                          b);
    *alpha = a;
    *beta = b;
    if (diag) {
        if (hockney_diag(diag, s, n, a, b, "Hockney fit", err) < 0)
            return -1;
        if (clamped)
            diag_warn(diag, "least squares gave a negative start-up time: alpha clamped to 0 "
                            "and beta refitted through the origin");
        if (n < 4)
            diag_warn(diag, "fewer than 4 samples: alpha and beta are poorly constrained");
    }
    return 0;
}

int ct_fit_hockney_alpha(const ct_p2p_sample *s, size_t n, double beta, double *alpha,
                         ct_fit_diag *diag, ct_err *err)
{
    if (diag)
        memset(diag, 0, sizeof *diag);
    if (!s || n < 1)
        return ct_err_set(err, "Hockney alpha fit: no ping-pong samples (accepted: at least 1)");
    if (!alpha)
        return ct_err_set(err, "Hockney alpha fit: missing result pointer");
    if (!(beta > 0) || !isfinite(beta))
        return ct_err_set(err, "Hockney alpha fit: beta = %g s/byte (accepted: > 0)", beta);
    /* minimise sum w (t - m*beta - alpha)^2 with w = 1/t^2 (relative residuals) */
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (bad_sample(err, "Hockney alpha fit", i, s[i].m, 1, s[i].t) < 0)
            return -1;
        double w = 1.0 / (s[i].t * s[i].t);
        num += w * (s[i].t - s[i].m * beta);
        den += w;
    }
    double a = fmax(0.0, num / den);
    *alpha = a;
    return diag ? hockney_diag(diag, s, n, a, beta, "Hockney alpha fit", err) : 0;
}

/* Per-sample quantities of the linear problem z = gamma*X + delta*Y. */
typedef struct lin_row {
    double r; /* t (n - t): remote messages through the busiest NIC */
    double z; /* T - (n-1) alpha - intra */
    double x; /* r m beta */
    double w; /* 1 / T^2 */
    double m;
} lin_row;

typedef struct lin_fit {
    double gamma, delta, sse;
} lin_fit;

static double sse_of(const lin_row *row, size_t n, double M, double g, double d)
{
    double sse = 0;
    for (size_t i = 0; i < n; i++) {
        double y = row[i].m >= M ? row[i].r : 0.0;
        double e = row[i].z - g * row[i].x - d * y;
        sse += row[i].w * e * e;
    }
    return sse;
}

/* Weighted least squares of z on (X, Y(M)) with gamma, delta >= 0. With two
 * unknowns the constrained optimum is the unconstrained one when feasible,
 * otherwise the better of the two one-variable fits on the boundary. */
static lin_fit fit_for_M(const lin_row *row, size_t n, double M)
{
    double sxx = 0, sxy = 0, syy = 0, sxz = 0, syz = 0;
    for (size_t i = 0; i < n; i++) {
        double y = row[i].m >= M ? row[i].r : 0.0;
        double w = row[i].w;
        sxx += w * row[i].x * row[i].x;
        sxy += w * row[i].x * y;
        syy += w * y * y;
        sxz += w * row[i].x * row[i].z;
        syz += w * y * row[i].z;
    }
    lin_fit best = {fmax(0.0, sxz / sxx), 0.0, 0};
    best.sse = sse_of(row, n, M, best.gamma, 0.0);
    if (syy == 0)
        return best; /* no sample at m >= M: delta is not identifiable */
    double det = sxx * syy - sxy * sxy;
    if (det > 1e-12 * sxx * syy) {
        double g = (syy * sxz - sxy * syz) / det; /* normal equations, 000 §6 regression */
        double d = (sxx * syz - sxy * sxz) / det;
        if (g >= 0 && d >= 0) {
            lin_fit f = {g, d, sse_of(row, n, M, g, d)};
            return f;
        }
    }
    lin_fit only_d = {0.0, fmax(0.0, syz / syy), 0};
    only_d.sse = sse_of(row, n, M, 0.0, only_d.delta);
    return only_d.sse < best.sse ? only_d : best;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 000 §6.3 / 002 §V-C: if the reference runs do not saturate the network, the error
 * trends with n. Regress the relative error on n. */
static void trend_check(const ct_a2a_sample *s, size_t n, const double *rel, ct_fit_diag *d)
{
    double nmin = INFINITY, nmax = -INFINITY, mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        double p = (double)s[i].nodes * (double)s[i].tasks_per_node;
        nmin = fmin(nmin, p);
        nmax = fmax(nmax, p);
        mx += p;
        my += rel[i];
    }
    if (nmin == nmax) {
        diag_warn(d, "note: one process count sampled, so saturation of the reference runs "
                     "cannot be checked (000 6.3, 002 V-C); sample several n");
        return;
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        double p = (double)s[i].nodes * (double)s[i].tasks_per_node;
        sxx += (p - mx) * (p - mx);
        sxy += (p - mx) * (rel[i] - my);
    }
    double b = sxy / sxx, a = my - b * mx, ss = 0;
    for (size_t i = 0; i < n; i++) {
        double p = (double)s[i].nodes * (double)s[i].tasks_per_node;
        double e = rel[i] - a - b * p;
        ss += e * e;
    }
    double se = n > 2 ? sqrt(ss / (double)(n - 2) / sxx) : 0;
    double tstat = se > 0 ? fabs(b) / se : (b != 0 ? INFINITY : 0);
    double moved = fabs(b) * (nmax - nmin);
    d->rel_err_slope = b;
    if (moved >= CT_FIT_TREND_MIN && tstat >= CT_FIT_TREND_T) {
        char msg[256];
        snprintf(
            msg, sizeof msg,
            "relative error moves by %.1f%% from n = %.0f to n = %.0f (slope %.3g per "
            "process): the reference runs may not saturate the network (000 6.3, 002 V-C); fit on "
            "runs with more processes",
            100 * moved, nmin, nmax, b);
        d->unsaturated = 1;
        diag_warn(d, msg);
    }
}

void ct_fit_residuals(const ct_a2a_sample *s, size_t n, double alpha, double beta, double intra_bw,
                      const ct_a2a_sig *sig, double *rel)
{
    for (size_t i = 0; i < n; i++) {
        double pred =
            ct_a2a_uniform(s[i].nodes, s[i].tasks_per_node, alpha, beta, s[i].m, sig, intra_bw);
        rel[i] = (pred - s[i].t) / s[i].t;
    }
}

static int check_a2a_input(const ct_a2a_sample *s, size_t n, double alpha, double beta,
                           double intra_bw, const double *M_cand, size_t nM, ct_err *err)
{
    if (!s || n < 4)
        return ct_err_set(err,
                          "signature fit: %zu Alltoall samples (accepted: at least 4, "
                          "000 V)",
                          s ? n : (size_t)0);
    /* alpha = 0 is what ct_fit_hockney returns when least squares gives a
     * negative start-up time (clamped), and what a signature file accepts */
    if (!isfinite(alpha) || alpha < 0)
        return ct_err_set(err,
                          "signature fit: alpha = %g (accepted: a finite start-up time "
                          ">= 0 in seconds)",
                          alpha);
    if (!isfinite(beta) || beta <= 0)
        return ct_err_set(err,
                          "signature fit: beta = %g (accepted: a finite s/byte > 0, "
                          "1/bandwidth)",
                          beta);
    if (isnan(intra_bw))
        return ct_err_set(err, "signature fit: intra_bw = nan (accepted: bytes/s > 0, or <= 0 "
                               "to ignore intra-node time)");
    int distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].nodes < 1)
            return ct_err_set(err, "signature fit: sample %zu: nodes = %d (accepted: >= 1)", i,
                              (int)s[i].nodes);
        if (s[i].tasks_per_node < 1)
            return ct_err_set(err,
                              "signature fit: sample %zu: tasks_per_node = %d (accepted: "
                              ">= 1)",
                              i, (int)s[i].tasks_per_node);
        if ((int64_t)s[i].nodes * s[i].tasks_per_node < 2)
            return ct_err_set(err,
                              "signature fit: sample %zu: 1 process (accepted: an "
                              "Alltoall of >= 2 processes)",
                              i);
        if ((int64_t)s[i].nodes * s[i].tasks_per_node > INT32_MAX)
            return ct_err_set(err,
                              "signature fit: sample %zu: %d x %d processes (accepted: "
                              "at most %d)",
                              i, (int)s[i].nodes, (int)s[i].tasks_per_node, INT32_MAX);
        if (bad_sample(err, "signature fit", i, s[i].m, 0, s[i].t) < 0)
            return -1;
        if (s[i].m != s[0].m)
            distinct = 1;
    }
    if (!distinct)
        return ct_err_set(err,
                          "signature fit: all %zu samples have m = %g bytes (accepted: at "
                          "least two distinct sizes, so gamma and delta can be told apart)",
                          n, s[0].m);
    if (M_cand)
        for (size_t k = 0; k < nM; k++)
            if (bad_value(M_cand[k], 1))
                return ct_err_set(err,
                                  "signature fit: M candidate %zu = %g (accepted: a "
                                  "finite size >= 0 in bytes)",
                                  k, M_cand[k]);
    return 0;
}

int ct_fit_signature(const ct_a2a_sample *s, size_t n, double alpha, double beta, double intra_bw,
                     const double *M_candidates, size_t nM, ct_a2a_sig *out, ct_fit_diag *diag,
                     ct_err *err)
{
    if (diag)
        memset(diag, 0, sizeof *diag);
    if (!out)
        return ct_err_set(err, "signature fit: missing result pointer");
    if (check_a2a_input(s, n, alpha, beta, intra_bw, M_candidates, nM, err) < 0)
        return -1;

    int rc = -1;
    lin_row *row = malloc(n * sizeof *row);
    size_t ncand = (M_candidates && nM) ? nM : n + 1;
    double *cand = malloc(ncand * sizeof *cand);
    double *rel = calloc(n, sizeof *rel);
    double *pred = calloc(n, sizeof *pred);
    double *meas = calloc(n, sizeof *meas);
    if (!row || !cand || !rel || !pred || !meas) {
        ct_err_set(err, "signature fit: out of memory for %zu samples", n);
        goto out;
    }
    ct_a2a_sig zero = {.gamma = 0, .delta = 0, .M = 0};
    for (size_t i = 0; i < n; i++) {
        /* base = (n-1) alpha + intra: the model with gamma = delta = 0 */
        double base =
            ct_a2a_uniform(s[i].nodes, s[i].tasks_per_node, alpha, beta, s[i].m, &zero, intra_bw);
        row[i].r = ct_a2a_uniform_flows(s[i].nodes, s[i].tasks_per_node);
        row[i].z = s[i].t - base;
        row[i].x = row[i].r * s[i].m * beta;
        row[i].w = 1.0 / (s[i].t * s[i].t);
        row[i].m = s[i].m;
    }
    if (M_candidates && nM) {
        memcpy(cand, M_candidates, nM * sizeof *cand);
    } else {
        cand[0] = 0;
        for (size_t i = 0; i < n; i++)
            cand[i + 1] = s[i].m;
    }
    qsort(cand, ncand, sizeof *cand, cmp_double);

    lin_fit best = {0, 0, INFINITY};
    double bestM = 0;
    for (size_t k = 0; k < ncand; k++) {
        if (k > 0 && cand[k] == cand[k - 1])
            continue;
        lin_fit f = fit_for_M(row, n, cand[k]);
        /* strictly better beyond rounding, so ties keep the smaller M */
        if (f.sse < best.sse - 1e-9 * best.sse || (isinf(best.sse) && isfinite(f.sse))) {
            best = f;
            bestM = cand[k];
        }
    }
    if (!(best.gamma > 0)) {
        ct_err_set(err, "signature fit: least squares needs gamma <= 0 (accepted: gamma > 0); "
                        "the measured times do not grow with m*beta beyond the alpha term: check "
                        "that alpha, beta and the times are in seconds");
        goto out;
    }
    memset(out, 0, sizeof *out); /* constant gamma: no incast terms (000 eq. 5) */
    out->gamma = best.gamma;
    out->delta = best.delta;
    out->M = best.delta > 0 ? bestM : 0.0; /* M means nothing without delta */
    if (diag) {
        for (size_t i = 0; i < n; i++) {
            meas[i] = s[i].t;
            pred[i] =
                ct_a2a_uniform(s[i].nodes, s[i].tasks_per_node, alpha, beta, s[i].m, out, intra_bw);
            rel[i] = (pred[i] - meas[i]) / meas[i];
        }
        diag_fill(diag, pred, meas, n);
        trend_check(s, n, rel, diag);
    }
    rc = 0;
out:
    free(row);
    free(cand);
    free(rel);
    free(pred);
    free(meas);
    return rc;
}
