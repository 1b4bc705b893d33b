/* Robust Alltoall signature fit (fit_alltoall.h).
 *
 * 000 §6 / 002 §V fit gamma, delta by least squares and M by the best fit.
 * On a real network the small-message points are noisy (an 8-node Alltoall
 * of 1 kB measured 3.4 ms on average and 0.56 ms at best), and the plain fit
 * lets them choose M = 0 and miss its own saturated points by 50 %. Here:
 *  - each point is weighted by the inverse variance of its relative error,
 *    estimated from the repeated runs' spread (mean - min) / mean, floored,
 *    plus the model's own scatter when its residuals exceed the spreads;
 *  - M is chosen by leave-one-out error (a held-out criterion), not by the
 *    in-sample residual, which always favours the most flexible split;
 *  - the incast-aware gamma(k, f) of alltoall.h (this project's extension)
 *    is fitted when the samples span configurations that identify it;
 *  - a fit that misses its own trustworthy points by more than a threshold
 *    is refused unless forced.
 * The point-to-point alpha, beta of each sample come from the piecewise
 * curve (p2p.h) at that sample's size. */
#include "contention/fit_alltoall.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* unknowns: gamma, gamma_incast, gamma_flows, delta, the per-call step
 * (alltoall.h) as two non-negative parts, call = c+ - c-, the incast-loss
 * term gamma_loss (alltoall.h, session 24) and the incast intercept
 * call_incast (alltoall.h, session 69) */
#define NV 8
enum { V_G = 0, V_GK = 1, V_GF = 2, V_D = 3, V_CP = 4, V_CN = 5, V_GL = 6, V_CI = 7 };

void ct_a2a_fit_opts_default(ct_a2a_fit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->spread_floor = 0.02;
    o->max_fit_err = 0.15;
    o->flows_exponent = 0.5; /* fit_alltoall.h: session 21 */
}

double ct_a2a_sample_spread(const ct_a2a_sample *s)
{
    if (!(s->t_min > 0) || !(s->t_min < s->t) || !(s->t > 0))
        return 0.0;
    return (s->t - s->t_min) / s->t;
}

double ct_a2a_predict_sample(const ct_a2a_sample *s, const ct_p2p_curve *p2p, double intra_bw,
                             const ct_a2a_sig *sig)
{
    double a, b;
    ct_p2p_at(p2p, s->m, &a, &b); /* the size range's Hockney alpha, beta */
    return ct_a2a_uniform(s->nodes, s->tasks_per_node, a, b, s->m, sig, intra_bw);
}

typedef struct row {
    double x[NV]; /* columns; x[V_D] is r, multiplied by [m >= M] when used */
    double z;     /* T - (n-1) alpha - intra */
    double w;     /* 1 / (T sigma)^2; 0 for a row below the fit range */
    double m;
    double k, f;  /* the busiest port's incast degree and remote flows */
    int fitted;   /* 0: below ct_a2a_fit_opts.min_m, predicted only */
} row;

/* Row i's columns with the threshold M applied to delta's. */
static void row_x(const row *r, double M, double *x)
{
    memcpy(x, r->x, sizeof r->x);
    if (!(r->m >= M))
        x[V_D] = 0.0;
}

/* The linear model's value for one row (coefficients p, threshold M). */
static double row_pred(const row *r, double M, const double *p)
{
    double x[NV], v = 0;
    row_x(r, M, x);
    for (int j = 0; j < NV; j++)
        v += p[j] * x[j];
    return v;
}

/* Solve the normal equations restricted to the variables in `mask`;
 * returns 0 and p (others 0) when non-singular. */
static int solve_subset(double A[NV][NV], const double *bv, unsigned mask, double *p)
{
    int idx[NV], k = 0;
    for (int j = 0; j < NV; j++)
        if (mask & (1u << j))
            idx[k++] = j;
    double M[NV][NV + 1];
    for (int a = 0; a < k; a++) {
        for (int c = 0; c < k; c++)
            M[a][c] = A[idx[a]][idx[c]];
        M[a][k] = bv[idx[a]];
    }
    for (int c = 0; c < k; c++) {
        int piv = c;
        for (int a = c + 1; a < k; a++)
            if (fabs(M[a][c]) > fabs(M[piv][c]))
                piv = a;
        double scale = sqrt(fabs(A[idx[c]][idx[c]]) + 1e-300);
        if (!(fabs(M[piv][c]) > 1e-10 * scale * scale))
            return -1;
        if (piv != c)
            for (int q = 0; q <= k; q++) {
                double t = M[c][q];
                M[c][q] = M[piv][q];
                M[piv][q] = t;
            }
        for (int a = 0; a < k; a++) {
            if (a == c)
                continue;
            double f = M[a][c] / M[c][c];
            for (int q = c; q <= k; q++)
                M[a][q] -= f * M[c][q];
        }
    }
    for (int j = 0; j < NV; j++)
        p[j] = 0;
    for (int a = 0; a < k; a++)
        p[idx[a]] = M[a][k] / M[a][a];
    return 0;
}

/* Weighted SSE of z - p.x over the rows, skipping row `skip` (or none). */
static double sse_rows(const row *r, size_t n, double M, const double *p, size_t skip)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == skip)
            continue;
        double e = r[i].z - row_pred(&r[i], M, p);
        s += r[i].w * e * e;
    }
    return s;
}

/* Non-negative least squares over the variables in `allowed` by enumerating
 * active sets: the optimum is the unconstrained optimum of some subset, so
 * the best feasible subset solution is the NNLS solution. skip: a row left
 * out (leave-one-out), or n for none. */
static int nnls(const row *r, size_t n, double M, unsigned allowed, size_t skip, double *best_p)
{
    double A[NV][NV] = {{0}}, bv[NV] = {0};
    for (size_t i = 0; i < n; i++) {
        if (i == skip)
            continue;
        double x[NV];
        row_x(&r[i], M, x);
        for (int a = 0; a < NV; a++) {
            bv[a] += r[i].w * x[a] * r[i].z;
            for (int c = 0; c < NV; c++)
                A[a][c] += r[i].w * x[a] * x[c];
        }
    }
    double best = INFINITY;
    for (unsigned mask = 1; mask < (1u << NV); mask++) {
        if ((mask & allowed) != mask)
            continue;
        if ((mask & (1u << V_CP)) && (mask & (1u << V_CN)))
            continue; /* c+ and c- together are singular */
        int empty = 0;
        for (int j = 0; j < NV; j++)
            if ((mask & (1u << j)) && A[j][j] == 0)
                empty = 1;
        if (empty)
            continue;
        double p[NV];
        if (solve_subset(A, bv, mask, p) < 0)
            continue;
        int ok = 1;
        for (int j = 0; j < NV; j++)
            ok &= p[j] >= 0 && isfinite(p[j]);
        if (!ok)
            continue;
        double s = sse_rows(r, n, M, p, skip);
        if (s < best) {
            best = s;
            memcpy(best_p, p, sizeof p);
        }
    }
    return isfinite(best) ? 0 : -1;
}

/* 1 when weighted column c is (numerically) in the span of the columns in
 * `kept`: Gram-Schmidt residual below 1e-6 of its norm. */
static int in_span(const row *r, size_t n, unsigned kept, int c)
{
    double *v = malloc(n * sizeof *v), *q = malloc((size_t)NV * n * sizeof *q);
    int res = 1;
    if (!v || !q)
        goto out;
    int nq = 0;
    for (int j = 0; j < NV; j++) {
        if (!(kept & (1u << j)))
            continue;
        double *u = q + (size_t)nq * n, norm = 0;
        for (size_t i = 0; i < n; i++)
            u[i] = sqrt(r[i].w) * r[i].x[j];
        for (int a = 0; a < nq; a++) {
            double d = 0;
            for (size_t i = 0; i < n; i++)
                d += u[i] * q[(size_t)a * n + i];
            for (size_t i = 0; i < n; i++)
                u[i] -= d * q[(size_t)a * n + i];
        }
        for (size_t i = 0; i < n; i++)
            norm += u[i] * u[i];
        norm = sqrt(norm);
        if (norm == 0)
            continue;
        for (size_t i = 0; i < n; i++)
            u[i] /= norm;
        nq++;
    }
    double n0 = 0, n1 = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = sqrt(r[i].w) * r[i].x[c];
        n0 += v[i] * v[i];
    }
    for (int a = 0; a < nq; a++) {
        double d = 0;
        for (size_t i = 0; i < n; i++)
            d += v[i] * q[(size_t)a * n + i];
        for (size_t i = 0; i < n; i++)
            v[i] -= d * q[(size_t)a * n + i];
    }
    for (size_t i = 0; i < n; i++)
        n1 += v[i] * v[i];
    res = !(n0 > 0) || n1 <= 1e-12 * n0;
out:
    free(v);
    free(q);
    return res;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Leave-one-out RMS of the relative errors in units of each point's sigma;
 * rows below the fit range count with the full fit's prediction `all`. */
static double loo_rms(const row *r, size_t n, double M, unsigned allowed, const double *T,
                      const double *sig, const double *all)
{
    double s = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        double p[NV];
        /* a row below the fit range is held out already: the full fit predicts it */
        if (r[i].fitted && nnls(r, n, M, allowed, i, p) < 0)
            return INFINITY;
        double e = (row_pred(&r[i], M, r[i].fitted ? p : all) - r[i].z) / T[i] / sig[i];
        s += e * e;
        used++;
    }
    return used ? sqrt(s / (double)used) : INFINITY;
}

/* Same input rules as ct_fit_signature (fit.c) for the shared part. */
static int check_input(const ct_a2a_sample *s, size_t n, const ct_p2p_curve *p2p,
                       double intra_bw, const ct_a2a_fit_opts *o, ct_err *err)
{
    if (!s || n < 4)
        return ct_err_set(err,
                          "signature fit: %zu Alltoall samples (accepted: at least 4, "
                          "000 V)",
                          s ? n : (size_t)0);
    if (ct_p2p_check(p2p, "signature fit: point-to-point curve", err) < 0)
        return -1;
    if (isnan(intra_bw))
        return ct_err_set(err, "signature fit: intra_bw = nan (accepted: bytes/s > 0, or <= 0 "
                               "to ignore intra-node time)");
    if (!isfinite(o->spread_floor) || o->spread_floor <= 0 || !isfinite(o->max_fit_err))
        return ct_err_set(err,
                          "signature fit: spread_floor = %g, max_fit_err = %g (accepted: a "
                          "floor > 0 and a finite threshold)",
                          o->spread_floor, o->max_fit_err);
    if (ct_a2a_flows_exp_check("signature fit: flows_exponent", o->flows_exponent, err) < 0)
        return -1;
    int distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].nodes < 1 || s[i].tasks_per_node < 1 ||
            (int64_t)s[i].nodes * s[i].tasks_per_node < 2 ||
            (int64_t)s[i].nodes * s[i].tasks_per_node > INT32_MAX)
            return ct_err_set(err,
                              "signature fit: sample %zu: %d nodes x %d tasks (accepted: an "
                              "Alltoall of 2 to %d processes)",
                              i, (int)s[i].nodes, (int)s[i].tasks_per_node, INT32_MAX);
        if (!isfinite(s[i].m) || !(s[i].m > 0))
            return ct_err_set(err,
                              "signature fit: sample %zu: m = %g (accepted: a finite size > 0 "
                              "in bytes)",
                              i, s[i].m);
        if (!isfinite(s[i].t) || !(s[i].t > 0))
            return ct_err_set(err,
                              "signature fit: sample %zu: t = %g (accepted: a finite time > 0 "
                              "in seconds)",
                              i, s[i].t);
        if (!isfinite(s[i].t_min) || s[i].t_min < 0)
            return ct_err_set(err,
                              "signature fit: sample %zu: t_min = %g (accepted: 0 for unknown, "
                              "or a finite time > 0)",
                              i, s[i].t_min);
        if (s[i].m != s[0].m)
            distinct = 1;
    }
    if (!distinct)
        return ct_err_set(err,
                          "signature fit: all %zu samples have m = %g bytes (accepted: at "
                          "least two distinct sizes, so gamma and delta can be told apart)",
                          n, s[0].m);
    if (o->M_candidates)
        for (size_t k = 0; k < o->nM; k++)
            if (!isfinite(o->M_candidates[k]) || o->M_candidates[k] < 0)
                return ct_err_set(err,
                                  "signature fit: M candidate %zu = %g (accepted: a finite "
                                  "size >= 0 in bytes)",
                                  k, o->M_candidates[k]);
    return 0;
}

/* M by the held-out criterion: the candidate whose leave-one-out error is
 * smallest, ties to the smaller M. Returns that error (INFINITY: no
 * candidate could be fitted), with M in *bestM and the coefficients in p;
 * *cv_M0 gets the criterion at M = 0. */
static double choose_M(const row *r, size_t n, const double *cand, size_t ncand,
                       unsigned allowed, const double *T, const double *sig, double *cv_M0,
                       double *bestM, double *best_p)
{
    double best_cv = INFINITY;
    *cv_M0 = INFINITY;
    *bestM = 0;
    memset(best_p, 0, NV * sizeof *best_p);
    for (size_t c = 0; c < ncand; c++) {
        if (c > 0 && cand[c] == cand[c - 1])
            continue;
        double p[NV];
        if (nnls(r, n, cand[c], allowed, n, p) < 0)
            continue;
        double cv = loo_rms(r, n, cand[c], allowed, T, sig, p);
        if (cand[c] == 0)
            *cv_M0 = cv;
        /* strictly better beyond rounding: ties keep the smaller M */
        if (cv < best_cv * (1 - 1e-9) || (isinf(best_cv) && isfinite(cv))) {
            best_cv = cv;
            *bestM = cand[c];
            memcpy(best_p, p, sizeof p);
        }
    }
    return best_cv;
}

/* Jackknife standard errors of the coefficients (ct_a2a_fit_report.jk_*):
 * the fit at threshold M over the terms in `used`, each fitted row left out
 * in turn (Efron & Stein 1981). */
static void jackknife(const row *r, size_t n, double M, unsigned used, ct_a2a_fit_report *rep)
{
    enum { JG, JK, JF, JD, JC, JL, JI, NJ };
    double *th = malloc((n ? n : 1) * NJ * sizeof *th); /* each refit's coefficients */
    size_t nj = 0;
    rep->jk_n = 0;
    if (!th)
        return;
    for (size_t i = 0; i < n; i++) {
        double p[NV];
        if (!r[i].fitted || nnls(r, n, M, used, i, p) < 0)
            continue;
        double *t = th + nj++ * NJ;
        t[JG] = p[V_G], t[JK] = p[V_GK], t[JF] = p[V_GF], t[JD] = p[V_D];
        t[JC] = p[V_CP] - p[V_CN];
        t[JL] = p[V_GL];
        t[JI] = p[V_CI];
    }
    double se[NJ] = {0};
    for (int j = 0; j < NJ && nj >= 3; j++) {
        double mean = 0, ss = 0;
        for (size_t i = 0; i < nj; i++)
            mean += th[i * NJ + j];
        mean /= (double)nj;
        for (size_t i = 0; i < nj; i++)
            ss += (th[i * NJ + j] - mean) * (th[i * NJ + j] - mean);
        se[j] = sqrt((double)(nj - 1) / (double)nj * ss);
    }
    free(th);
    if (nj < 3)
        return;
    rep->jk_n = nj;
    rep->jk_gamma = se[JG];
    rep->jk_gamma_incast = se[JK];
    rep->jk_gamma_flows = se[JF];
    rep->jk_delta = se[JD];
    rep->jk_call = se[JC];
    rep->jk_gamma_loss = se[JL];
    rep->jk_call_incast = se[JI];
}

/* The model's own scatter (relative), beyond the repetitions' spread: the
 * sigma_m with sum e_i^2 / (s_i^2 + sigma_m^2) = n_fitted - n_terms over the
 * fitted rows (reduced chi^2 of 1), 0 when the fit is within the spreads. */
static double model_scatter(const row *r, size_t n, double M, const double *p, const double *T,
                            const double *sig)
{
    int npar = 0;
    for (int j = 0; j < NV; j++)
        npar += p[j] != 0;
    double *e2 = malloc((n ? n : 1) * sizeof *e2); /* squared relative residuals */
    if (!e2)
        return 0; /* no memory: the spreads alone, as before the scatter */
    double dof = -npar, chi0 = 0;
    for (size_t i = 0; i < n; i++) {
        double e = r[i].fitted ? (row_pred(&r[i], M, p) - r[i].z) / T[i] : 0;
        e2[i] = e * e;
        dof += r[i].fitted;
        chi0 += e2[i] / (sig[i] * sig[i]);
    }
    double lo = 0, hi = 1;
    for (int it = 0; dof > 0 && chi0 > dof && it < 60; it++) {
        double mid = 0.5 * (lo + hi), chi = 0;
        for (size_t i = 0; i < n; i++)
            chi += e2[i] / (sig[i] * sig[i] + mid * mid);
        if (chi > dof)
            lo = mid;
        else
            hi = mid;
    }
    free(e2);
    return dof > 0 && chi0 > dof ? 0.5 * (lo + hi) : 0;
}

/* Each fitted row's weight from its sigma: 1 / (T sigma)^2, the inverse
 * variance of its relative error (rows below the fit range keep 0). */
static void weigh(row *r, size_t n, const double *T, const double *sg)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].fitted)
            r[i].w = 1.0 / (T[i] * T[i] * sg[i] * sg[i]);
}

static void note_add(ct_a2a_fit_report *rep, const char *msg)
{
    size_t len = strlen(rep->note);
    snprintf(rep->note + len, sizeof rep->note - len, "%s%s", len ? "; " : "", msg);
}

/* The incast step's points share one loss regime (this project's rule,
 * session 26): retransmission timeouts come for a whole run of the step or
 * not at all, so a size that ran clean in this run says little about the
 * loss its other sizes show, and its small spread would let it outweigh them
 * (100 Mbit/s, 112 KiB bucket, 45 ms, session 24: 128 KiB clean at a spread of 0.02
 * against 0.28 and 0.20 at 256 and 512 KiB, and the fit kept gamma_loss = 0,
 * where another run of the same network found 0.75). Each fitted point with
 * a share of the loss term (the step's, alltoall.h: only the step has more
 * flows than loss_min_f from two senders) is weighed by the largest spread
 * among them; the spreads of the other points are untouched. */
static void step_one_regime(row *r, size_t n, const double *T, double *sg,
                            ct_a2a_fit_report *rep)
{
    double mx = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].fitted && r[i].x[V_GL] > 0) {
            mx = fmax(mx, sg[i]);
            k++;
        }
    int raised = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].fitted && r[i].x[V_GL] > 0 && sg[i] < mx * (1 - 1e-9)) { /* not by rounding */
            sg[i] = mx;
            raised = 1;
        }
    if (!raised)
        return;
    weigh(r, n, T, sg);
    char msg[160];
    snprintf(msg, sizeof msg, "the incast step's %zu points weighed alike, by its largest spread "
             "%.2f (one loss regime)", k, mx);
    note_add(rep, msg);
}

int ct_fit_signature_robust(const ct_a2a_sample *s, size_t n, const ct_p2p_curve *p2p,
                            double intra_bw, const ct_a2a_fit_opts *opts, ct_a2a_sig *out,
                            ct_a2a_fit_report *rep_out, ct_err *err)
{
    ct_a2a_fit_opts o;
    if (opts)
        o = *opts;
    else
        ct_a2a_fit_opts_default(&o);
    ct_a2a_fit_report rep_local, *rep = rep_out ? rep_out : &rep_local;
    memset(rep, 0, sizeof *rep);
    if (!out || !p2p)
        return ct_err_set(err, "signature fit: missing result or point-to-point curve");
    if (check_input(s, n, p2p, intra_bw, &o, err) < 0)
        return -1;

    int rc = -1;
    row *r = calloc(n, sizeof *r);
    double *T = calloc(n, sizeof *T), *sig = calloc(n, sizeof *sig);
    double *sigw = calloc(n, sizeof *sigw); /* the weights' sigma with the model's scatter */
    size_t ncand = (o.M_candidates && o.nM) ? o.nM : n + 1;
    double *cand = calloc(ncand, sizeof *cand);
    double *pred = calloc(n, sizeof *pred);
    if (!r || !T || !sig || !sigw || !cand || !pred) {
        ct_err_set(err, "signature fit: out of memory for %zu samples", n);
        goto out;
    }
    ct_a2a_sig zero = {.gamma = 0, .delta = 0, .M = 0};
    /* the incast-loss term's share (alltoall.h) with the bounds asked for */
    ct_a2a_sig lossb = {.loss_min_f = o.loss_min_f, .loss_max_f = o.loss_max_f};
    int loss_asked = o.incast && isfinite(o.loss_min_f) && isfinite(o.loss_max_f) &&
                     o.loss_min_f >= 0 && o.loss_max_f > o.loss_min_f;
    for (size_t i = 0; i < n; i++) {
        double a, b;
        ct_p2p_at(p2p, s[i].m, &a, &b);
        double rr = ct_a2a_uniform_flows(s[i].nodes, s[i].tasks_per_node); /* busiest port */
        double k = (double)s[i].nodes - 1; /* the port's incast degree */
        double base = ct_a2a_uniform(s[i].nodes, s[i].tasks_per_node, a, b, s[i].m, &zero,
                                     intra_bw); /* (n-1) alpha + intra */
        double X = rr * s[i].m * b;
        r[i].x[V_G] = X;
        r[i].x[V_GK] = X * fmax(0.0, k - 1.0);  /* alltoall.h: gamma_incast (k-1) */
        r[i].x[V_GF] = X * ct_a2a_flows_term(rr, o.flows_exponent); /* alltoall.h: g_a(f), f = r */
        r[i].x[V_GL] = loss_asked ? X * ct_a2a_loss_share(&lossb, k, rr) : 0.0;
        r[i].x[V_D] = rr;
        r[i].k = k; /* both 0 on one node */
        r[i].f = rr;
        r[i].x[V_CP] = s[i].nodes > 1 ? 1.0 : 0.0; /* alltoall.h: the call step, once a call */
        r[i].x[V_CN] = -r[i].x[V_CP];
        /* alltoall.h: the incast intercept, once a call at a port that
         * k >= 3 nodes feed (k unbounded here: k_max is what the rows hold) */
        r[i].x[V_CI] = s[i].nodes > 1 ? fmax(0.0, k - 2.0) : 0.0;
        r[i].z = s[i].t - base;
        r[i].m = s[i].m;
        T[i] = s[i].t;
        double sp = ct_a2a_sample_spread(&s[i]);
        rep->max_spread = fmax(rep->max_spread, sp);
        sig[i] = fmax(sp, o.spread_floor);
        r[i].w = 1.0 / (T[i] * T[i] * sig[i] * sig[i]); /* inverse variance of the rel. error */
        r[i].fitted = 1;
    }
    /* the fit range: sizes >= min_m when they hold 4 samples and 3 sizes
     * (2 sizes fix each configuration's line exactly: nothing left to tell
     * its slope from an intercept beyond the noise) */
    size_t nin = 0, nsizes = 0;
    for (size_t i = 0; o.min_m > 0 && i < n; i++) {
        if (!(s[i].m >= o.min_m))
            continue;
        nin++;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s[j].m == s[i].m;
        nsizes += !seen;
    }
    if (o.min_m > 0 && nin >= 4 && nsizes >= 3) {
        rep->fit_min_m = o.min_m;
        for (size_t i = 0; i < n; i++)
            if (!(s[i].m >= o.min_m)) {
                r[i].fitted = 0;
                r[i].w = 0; /* predicted, not fitted: it still counts in M's criterion */
            }
    } else if (o.min_m > 0) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "fit range not used: %zu samples at %zu size(s) >= %.0f B (needs 4 at 3 "
                 "sizes); fitted on every size%s",
                 nin, nsizes, o.min_m, o.call_step ? ", without the per-call step" : "");
        note_add(rep, msg);
        o.call_step = 0; /* a constant per call is read only where the range holds */
    }
    unsigned allowed = (1u << V_G) | (1u << V_D);
    if (o.incast) {
        unsigned kept = 1u << V_G;
        if (!in_span(r, n, kept, V_GK)) {
            allowed |= 1u << V_GK;
            kept |= 1u << V_GK;
            rep->incast_identified |= 1;
        } else {
            note_add(rep, "gamma_incast not identifiable (one incast degree, or it moves with "
                          "m*beta alone): kept 0");
        }
        /* flows tell apart from the incast degree only where a port carries
         * more flows than it has peers (>= 2 tasks on a node of >= 2): with
         * one task per node f = k, and a bent g_a(f) beside the line k - 1
         * would be independent in the numbers alone */
        int more_flows = 0;
        for (size_t i = 0; i < n; i++)
            more_flows |= r[i].fitted && r[i].f > r[i].k && r[i].k >= 1;
        if (more_flows && !in_span(r, n, kept, V_GF)) {
            allowed |= 1u << V_GF;
            rep->incast_identified |= 2;
        } else {
            note_add(rep, "gamma_flows not identifiable (flows per port move with the incast "
                          "degree: measure >= 2 tasks per node): kept 0");
        }
        if (allowed & (1u << V_GF))
            kept |= 1u << V_GF;
        /* the incast-loss term: only with its bounds, where a fitted row
         * has a share of it and it is not another term in disguise */
        if (loss_asked) {
            int any = 0;
            for (size_t i = 0; i < n; i++)
                any |= r[i].fitted && r[i].x[V_GL] > 0;
            if (any && !in_span(r, n, kept, V_GL)) {
                allowed |= 1u << V_GL;
                rep->incast_identified |= 4;
                step_one_regime(r, n, T, sig, rep);
            } else {
                note_add(rep, "gamma_loss not identifiable (no fitted configuration past "
                              "loss_min_f flows a port from 2 or more senders): kept 0");
            }
        }
    }
    if (o.M_candidates && o.nM) {
        memcpy(cand, o.M_candidates, o.nM * sizeof *cand);
    } else {
        /* a threshold inside the fit range would let delta switch on between
         * two fitted sizes: with a range, M is its lower end (delta for every
         * fitted size) or 0 */
        cand[0] = 0;
        for (size_t i = 0; i < n; i++)
            cand[i + 1] = rep->fit_min_m > 0 ? rep->fit_min_m : s[i].m;
    }
    qsort(cand, ncand, sizeof *cand, cmp_double);

    double best_cv = INFINITY, bestM = 0, best_p[NV] = {0};
    unsigned used = allowed; /* the terms of the fit kept (for the jackknife) */
    if (o.call_step) {
        /* the step takes delta's place: on the saturated sizes both would be
         * intercepts, and a per-message one (delta r) is what over-extrapolates
         * to a configuration with many more messages a port */
        unsigned with_step = (allowed & ~(1u << V_D)) | (1u << V_CP) | (1u << V_CN);
        /* the incast intercept (alltoall.h): beside the step, where a fitted
         * row has a port fed by 3 nodes or more and the column is not the
         * step or a term already kept in disguise */
        if (o.incast && o.call_incast) {
            int any = 0;
            for (size_t i = 0; i < n; i++)
                any |= r[i].fitted && r[i].x[V_CI] > 0;
            unsigned kept = with_step & ~(1u << V_CN);
            if (any && !in_span(r, n, kept, V_CI)) {
                with_step |= 1u << V_CI;
                rep->incast_identified |= 8;
            } else {
                note_add(rep, "call_incast not identifiable (no fitted configuration whose "
                              "ports 3 nodes or more feed, or its intercept is the step's): "
                              "kept 0");
            }
        }
        best_cv = choose_M(r, n, cand, ncand, with_step, T, sig, &rep->cv_rms_M0, &bestM,
                           best_p);
        used = with_step;
        if (!isfinite(best_cv) || !(best_p[V_G] > 0)) {
            rep->call_dropped = 1;
            note_add(rep, "per-call step dropped: with it the best fit needs gamma <= 0 (the "
                          "times do not grow with the bytes); fitted without it");
        }
    }
    if (!o.call_step || rep->call_dropped) {
        best_cv = choose_M(r, n, cand, ncand, allowed, T, sig, &rep->cv_rms_M0, &bestM, best_p);
        used = allowed;
    }
    if (isfinite(best_cv) && best_p[V_G] > 0) {
        /* the model's own scatter beyond the spreads (fit_alltoall.h): the
         * weights become 1 / (s_i^2 + sigma_m^2), the fit is chosen again
         * with the terms kept (the intrinsic-scatter weighting of a
         * regression whose model misses by more than its noise) */
        double sm = model_scatter(r, n, bestM, best_p, T, sig);
        if (sm > 0) {
            for (size_t i = 0; i < n; i++)
                sigw[i] = sqrt(sig[i] * sig[i] + sm * sm);
            weigh(r, n, T, sigw);
            double p2[NV], M2, cv0 = rep->cv_rms_M0;
            double cv2 = choose_M(r, n, cand, ncand, used, T, sigw, &rep->cv_rms_M0, &M2, p2);
            if (isfinite(cv2) && p2[V_G] > 0) {
                rep->model_scatter = sm;
                best_cv = cv2, bestM = M2;
                memcpy(best_p, p2, sizeof p2);
            } else { /* no fit with those weights: the first one stands */
                rep->cv_rms_M0 = cv0;
                weigh(r, n, T, sig);
            }
        }
    }
    if (!isfinite(best_cv) || !(best_p[V_G] > 0)) {
        /* say why with numbers: how many samples ran faster than the
         * contention-free time the point-to-point curve gives them */
        ct_a2a_sig one = {.gamma = 1.0, .delta = 0.0, .M = 0.0};
        size_t below = 0;
        double rlo = INFINITY, rhi = 0, mlo = INFINITY, mhi = 0;
        for (size_t i = 0; i < n; i++) {
            double bound = ct_a2a_predict_sample(&s[i], p2p, intra_bw, &one);
            double q = s[i].t / bound;
            below += q < 1.0;
            rlo = fmin(rlo, q);
            rhi = fmax(rhi, q);
            mlo = fmin(mlo, s[i].m);
            mhi = fmax(mhi, s[i].m);
        }
        /* the ratio at the smallest and at the largest size (means) */
        double qs = 0, ql = 0;
        size_t ns = 0, nl = 0;
        for (size_t i = 0; i < n; i++) {
            double q = s[i].t / ct_a2a_predict_sample(&s[i], p2p, intra_bw, &one);
            if (s[i].m == mlo)
                qs += q, ns++;
            if (s[i].m == mhi)
                ql += q, nl++;
        }
        ct_err_set(err,
                   "signature fit refused: the best fit needs gamma <= 0 (accepted: gamma > 0): "
                   "the Alltoall times do not grow with the bytes as the point-to-point curve "
                   "says: measured / contention-free time (n-1)(alpha + m*beta) from %.2f to "
                   "%.2f (%zu of %zu samples below 1), %.2f at %.0f B and %.2f at %.0f B on "
                   "average: something other than the bytes sets these times (on a loaded "
                   "host, scheduling delays in the ping-pong or the Alltoall), or alpha, beta "
                   "and the times are not all in seconds",
                   rlo, rhi, below, n, qs / (double)(ns ? ns : 1), mlo, ql / (double)(nl ? nl : 1),
                   mhi);
        goto out;
    }
    memset(out, 0, sizeof *out);
    out->gamma = best_p[V_G];
    out->gamma_incast = best_p[V_GK];
    out->gamma_flows = best_p[V_GF];
    out->flows_exp = out->gamma_flows > 0 ? o.flows_exponent : 0.0; /* the shape it was fitted on */
    out->delta = best_p[V_D];
    out->M = out->delta > 0 ? bestM : 0.0; /* M means nothing without delta */
    out->call = best_p[V_CP] - best_p[V_CN]; /* alltoall.h: the per-call step, 0 unless fitted */
    out->gamma_loss = best_p[V_GL];
    out->call_incast = best_p[V_CI]; /* alltoall.h: 0 unless fitted */
    if (out->gamma_loss > 0) { /* alltoall.h: the bounds it was fitted with */
        out->loss_min_f = o.loss_min_f;
        out->loss_max_f = o.loss_max_f;
    }
    /* alltoall.h: the k, f the incast terms were fitted up to; beyond them
     * they hold (no extrapolation of a line past its data) */
    for (size_t i = 0; i < n; i++) {
        if (!r[i].fitted)
            continue;
        if (out->gamma_incast > 0 || out->call_incast > 0)
            out->k_max = fmax(out->k_max, r[i].k);
        if (out->gamma_flows > 0)
            out->f_max = fmax(out->f_max, r[i].f);
    }
    rep->cv_rms = best_cv;
    jackknife(r, n, bestM, used, rep);

    double *meas = T;
    double *rel = sigw; /* reuse after the fit */
    for (size_t i = 0; i < n; i++) {
        pred[i] = ct_a2a_predict_sample(&s[i], p2p, intra_bw, out);
        rel[i] = (pred[i] - meas[i]) / meas[i];
    }
    /* diagnostics as ct_fit_signature's */
    double mean = 0, ssr = 0, sst = 0, maxrel = 0, sumrel = 0;
    size_t nf = 0; /* the rows fitted on (the training points) */
    for (size_t i = 0; i < n; i++)
        if (r[i].fitted) {
            mean += meas[i];
            nf++;
        }
    mean /= (double)nf;
    for (size_t i = 0; i < n; i++) {
        if (!r[i].fitted)
            continue;
        double e = pred[i] - meas[i];
        ssr += e * e;
        sst += (meas[i] - mean) * (meas[i] - mean);
        maxrel = fmax(maxrel, fabs(rel[i]));
        sumrel += fabs(rel[i]);
        /* trusted: the repetitions agree within the threshold (their own
         * spread, not the model's scatter the weights may carry) */
        if (o.max_fit_err <= 0 || sig[i] <= o.max_fit_err) {
            rep->ntrusted++;
            rep->max_err_trusted = fmax(rep->max_err_trusted, fabs(rel[i]));
        }
    }
    rep->diag.npoints = nf;
    rep->diag.r2 = sst > 0 ? 1.0 - ssr / sst : (ssr == 0 ? 1.0 : 0.0);
    rep->diag.rmse = sqrt(ssr / (double)nf);
    rep->diag.max_rel_err = maxrel;
    rep->diag.mean_abs_rel_err = sumrel / (double)nf;
    if (o.max_fit_err > 0 && rep->max_err_trusted > o.max_fit_err) {
        rep->over_threshold = 1;
        char msg[200];
        snprintf(msg, sizeof msg,
                 "the fit misses its own training points by up to %.1f %% (threshold %.1f %%, "
                 "over %zu points whose spread is within it)",
                 100 * rep->max_err_trusted, 100 * o.max_fit_err, rep->ntrusted);
        note_add(rep, msg);
        snprintf(rep->diag.warning, sizeof rep->diag.warning, "%s", msg);
        if (!o.force) {
            ct_err_set(err,
                       "signature fit refused: %s; gamma = %.4g, delta = %.4g s, M = %.0f B "
                       "(accepted: a fit within the threshold; measure more repetitions, fit "
                       "other configurations, raise the threshold or force it)",
                       msg, out->gamma, out->delta, out->M);
            goto out;
        }
    }
    rc = 0;
out:
    free(r);
    free(T);
    free(sig);
    free(sigw);
    free(cand);
    free(pred);
    return rc;
}
