/* contention-admin calibrate, what it prints and writes (calibrate.h): the
 * report of the fit, the measured-vs-predicted plot, the fabric entry and
 * the output files, each through a temporary file renamed into place. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "contention/fit.h"
#include "contention/svgplot.h"

static int plot(const char *path, admin_atomic *w, const char *fabric,
                const ct_calib_result *r)
{
    /* one measured and one predicted series per (nodes, tasks per node) */
    size_t np = r->npoints;
    double *x = malloc((np ? np : 1) * sizeof *x), *ym = malloc((np ? np : 1) * sizeof *ym),
           *yp = malloc((np ? np : 1) * sizeof *yp);
    ct_svg_series *ser = calloc(2 * (np ? np : 1), sizeof *ser);
    char(*labels)[2][96] = calloc(np ? np : 1, sizeof *labels);
    int rc = ADMIN_INVALID;
    if (!x || !ym || !yp || !ser || !labels) {
        admin_fail(CMD, "out of memory while plotting");
        goto out;
    }
    size_t k = 0, ns = 0, ng = 0;
    unsigned char *done = calloc(np ? np : 1, 1);
    if (!done) {
        admin_fail(CMD, "out of memory while plotting");
        goto out;
    }
    for (size_t i = 0; i < np; i++) {
        if (done[i])
            continue;
        size_t first = k;
        const ct_calib_point *p0 = &r->points[i];
        for (size_t j = i; j < np; j++) {
            const ct_calib_point *p = &r->points[j];
            if (done[j] || p->nodes != p0->nodes || p->tasks_per_node != p0->tasks_per_node)
                continue;
            done[j] = 1;
            /* sizes ascend within a group: insertion keeps the line drawable */
            size_t q = k++;
            while (q > first && x[q - 1] > p->m) {
                x[q] = x[q - 1];
                ym[q] = ym[q - 1];
                yp[q] = yp[q - 1];
                q--;
            }
            x[q] = p->m;
            ym[q] = p->measured;
            yp[q] = p->predicted;
        }
        snprintf(labels[ng][0], sizeof labels[ng][0], "%dx%d measured%s", (int)p0->nodes,
                 (int)p0->tasks_per_node, p0->held ? "" : " (fit)");
        snprintf(labels[ng][1], sizeof labels[ng][1], "%dx%d predicted", (int)p0->nodes,
                 (int)p0->tasks_per_node);
        ser[ns++] = (ct_svg_series){labels[ng][0], x + first, ym + first, k - first,
                                    CT_SVG_MARKERS, (int)ng, 0};
        ser[ns++] = (ct_svg_series){labels[ng][1], x + first, yp + first, k - first, CT_SVG_LINE,
                                    (int)ng, p0->held};
        ng++;
    }
    free(done);
    char title[160];
    snprintf(title, sizeof title, "%s: Alltoall measured vs predicted (fit on %dx%d)", fabric,
             (int)r->fit_nodes, (int)r->fit_tasks_per_node);
    ct_svg_plot pl = {title, "message size per destination (bytes)", "time (s)", 0, 0, 1, 1};
    if (admin_atomic_open(w, path, 0644) < 0) {
        admin_fail(CMD, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        goto out;
    }
    ct_err err;
    if (ct_svg_write(w->f, &pl, ser, ns, &err) < 0) {
        admin_atomic_abort(w);
        admin_fail(CMD, "%s: %s", path, err.msg);
        goto out;
    }
    if (admin_atomic_commit(w, &calib_stop) < 0 && !w->renamed) {
        admin_fail(CMD, "%s: write error", path);
        goto out;
    }
    rc = ADMIN_OK;
out:
    free(x);
    free(ym);
    free(yp);
    free(ser);
    free(labels);
    return rc;
}

void calib_print_report(FILE *o, const ct_calib_result *r, const ct_calib_gige *g, int have_gige,
                        const char *gige_err)
{
    char t1[32], t2[32], t3[32], sp[96], bw[80];
    fprintf(o, "point-to-point (Hockney): alpha = %s, bandwidth = %.4g MB/s (%zu ping-pong "
               "sizes, R^2 %.4f)\n",
            admin_fmt_time(r->alpha, t1, sizeof t1), 1.0 / r->beta / 1e6, r->p2p_diag.npoints,
            r->p2p_diag.r2);
    if (r->p2p_diag.warning[0])
        fprintf(o, "  warning: %s\n", r->p2p_diag.warning);
    const ct_p2p_curve *pp = r->p2p_pingpong.nseg ? &r->p2p_pingpong : &r->p2p;
    for (size_t q = 0; pp->nseg > 1 && q < pp->nseg; q++)
        fprintf(o, "  segment %zu from %s: alpha = %s, bandwidth = %s (%zu samples, R^2 "
                   "%.4f, max error %.1f%%%s)\n",
                q + 1, admin_fmt_bytes(pp->seg[q].from, t2, sizeof t2),
                admin_fmt_time(pp->seg[q].alpha, t1, sizeof t1),
                admin_seg_bw(pp->seg[q].beta, bw, sizeof bw),
                r->p2p_seg[q].npoints, r->p2p_seg[q].r2, 100 * r->p2p_seg[q].max_rel_err,
                admin_seg_spread(&r->p2p_seg[q], sp, sizeof sp));
    if (r->p2p_refill) /* the line below the report's "ping-pong read with its own refill" */
        fprintf(o, "  token bucket: the ping-pong's largest sizes bend as a bucket of about %s "
                   "that refills each direction while the other sends: predictions use "
                   "alpha = %s, %.4g MB/s for every size\n",
                admin_fmt_bytes(r->burst, t2, sizeof t2),
                admin_fmt_time(r->p2p.seg[0].alpha, t3, sizeof t3), 1.0 / r->p2p.seg[0].beta / 1e6);
    else if (r->burst > 0)
        fprintf(o, "  token bucket: the ping-pong passes about %s at memory speed after an idle "
                   "link (top segment alpha = %s); back-to-back traffic runs at the line rate: "
                   "predictions use alpha = %s, %.4g MB/s for every size\n",
                admin_fmt_bytes(r->burst, t2, sizeof t2),
                admin_fmt_time(pp->seg[pp->nseg - 1].alpha, t1, sizeof t1),
                admin_fmt_time(r->p2p.seg[0].alpha, t3, sizeof t3), 1.0 / r->p2p.seg[0].beta / 1e6);
    if (r->incast) {
        fprintf(o, "Alltoall signature, gamma(k,f) (our extension of 000 eq. 5) fitted robustly on");
        for (size_t k = 0; k < r->nfit_cfg; k++)
            fprintf(o, " %dx%d", (int)r->fit_cfg[k][0], (int)r->fit_cfg[k][1]);
        if (r->fit_min_m > 0)
            fprintf(o, " at m >= %s", admin_fmt_bytes(r->fit_min_m, t3, sizeof t3));
        char gf[48];
        fprintf(o, ", %zu samples: gamma = %.4g + %.4g (k-1) + %.4g %s, delta = %s, M = %s",
                r->nfit, r->sig.gamma, r->sig.gamma_incast, r->sig.gamma_flows,
                admin_flows_g(r->sig.flows_exp, gf, sizeof gf),
                admin_fmt_time(r->sig.delta, t1, sizeof t1),
                admin_fmt_bytes(r->sig.M, t2, sizeof t2));
        if (r->sig.k_max > 0 || r->sig.f_max > 0) /* alltoall.h: no line past its data */
            fprintf(o, " (held beyond the fitted %s)",
                    admin_fit_range(&r->sig, t3, sizeof t3));
        if (r->sig.gamma_loss > 0) /* alltoall.h: the incast-loss term, session 24 */
            fprintf(o, ", incast loss + %.4g 2(k-1)/k at %.0f flows a port or more from k >= 2 "
                       "nodes (0 at %.0f)",
                    r->sig.gamma_loss, r->sig.loss_max_f, r->sig.loss_min_f);
        if (r->sig.call != 0) /* alltoall.h: the per-call step, our extension */
            fprintf(o, ", call step call_us = %.1f (%s)", r->sig.call * 1e6,
                    admin_call_what(r->sig.call));
        if (r->sig.call_incast > 0) /* alltoall.h: the incast intercept, session 69 */
            fprintf(o, ", incast intercept call_incast_us = %.1f a call x (k-2) at a port k >= 3 "
                       "nodes feed (k held at %.0f)",
                    r->sig.call_incast * 1e6, r->sig.k_max);
        fprintf(o, " (fit max error %.1f%%, on points within their spread %.1f%%)\n",
                100 * r->a2a_diag.max_rel_err, 100 * r->a2a_rep.max_err_trusted);
        char jk[256];
        if (r->a2a_rep.model_scatter > 0)
            fprintf(o, "  %s\n", admin_scatter_line(&r->a2a_rep, jk, sizeof jk));
        if (admin_jackknife(&r->a2a_rep, &r->sig, jk, sizeof jk)[0])
            fprintf(o, "  jackknife (each of the %zu fitted samples left out in turn): %s\n",
                    r->a2a_rep.jk_n, jk);
        if (r->a2a_rep.note[0])
            fprintf(o, "  note: %s\n", r->a2a_rep.note);
    } else {
        fprintf(o, "Alltoall signature (000 eq. 5) fitted on %d nodes x %d task%s, %zu samples: "
               "gamma = %.4g, delta = %s, M = %s (fit max error %.1f%%)\n",
            (int)r->fit_nodes, (int)r->fit_tasks_per_node, r->fit_tasks_per_node > 1 ? "s" : "",
            r->nfit, r->sig.gamma, admin_fmt_time(r->sig.delta, t1, sizeof t1),
            admin_fmt_bytes(r->sig.M, t2, sizeof t2), 100 * r->a2a_diag.max_rel_err);
    }
    if (r->a2a_diag.warning[0])
        fprintf(o, "  warning: %s\n", r->a2a_diag.warning);
    if (r->nrefill) /* session 30's term, taken in session 43 (doc/models-alltoall.md) */
        fprintf(o, "  the bucket's refill: %zu fit samples taken to the 2x1 calls' pause (%s, "
                   "bucket %s) before the fit; each point below priced at its configuration's "
                   "pause\n",
                r->nrefill, admin_fmt_time(r->refill_pause, t1, sizeof t1),
                admin_fmt_bytes(r->refill_bucket, t2, sizeof t2));
    fprintf(o, "validation on %zu held-back samples (not used by the fit):\n", r->nheld);
    fprintf(o, "  %5s %4s %9s %11s %11s %11s %8s %7s\n", "nodes", "tpn", "m", "measured",
            "predicted", "bound", "error", "spread");
    for (size_t i = 0; i < r->npoints; i++) {
        const ct_calib_point *p = &r->points[i];
        if (!p->held)
            continue;
        fprintf(o, "  %5d %4d %9s %11s %11s", (int)p->nodes, (int)p->tasks_per_node,
                admin_fmt_bytes(p->m, t1, sizeof t1), admin_fmt_time(p->measured, t2, sizeof t2),
                admin_fmt_time(p->predicted, t3, sizeof t3));
        fprintf(o, " %11s %+7.1f%%", admin_fmt_time(p->bound, t1, sizeof t1), 100 * p->rel_err);
        if (p->spread > 0) /* the repetitions' (calibrate.h), session 60 */
            fprintf(o, " %6.1f%%\n", 100 * p->spread);
        else
            fprintf(o, " %7s\n", "-");
    }
    fprintf(o, "held-back error: median %.1f%%, mean %.1f%%, max %.1f%% over %zu samples; "
               "saturated (m >= 128 KiB): median %.1f%% over %zu\n",
            100 * r->held_all.median_abs, 100 * r->held_all.mean_abs, 100 * r->held_all.max_abs,
            r->held_all.n, 100 * r->held_saturated.median_abs, r->held_saturated.n);
    if (r->held_saturated.nspread) /* calibrate.h: errors beside the repetitions' spread */
        fprintf(o, "  of those at m >= 128 KiB, %zu of %zu missed by more than their own "
                   "repetitions' spread (median spread %.1f%%), which more repetitions would "
                   "not close; the others by no more than their repetitions differ\n",
                r->held_saturated.beyond_spread, r->held_saturated.nspread,
                100 * r->held_saturated.median_spread);
    if (r->nbeyond) { /* calibrate.h: held back with more flows a NIC than fitted on */
        fprintf(o, "beyond the fitted flows (held back with more remote flows a NIC than the "
                   "fit's at most f = %.6g; median error at m >= 128 KiB):",
                r->fit_flows_max);
        for (size_t i = 0; i < r->nbeyond; i++)
            fprintf(o, "%s %d x %d (f = %.6g) %+.1f%% of %zu", i ? ";" : "",
                    (int)r->beyond[i].nodes, (int)r->beyond[i].tasks_per_node,
                    r->beyond[i].flows, 100 * r->beyond[i].median_err, r->beyond[i].n);
        fputc('\n', o);
    }
    if (have_gige) {
        fprintf(o, "GigE penalty model (001 §V-A) at %s: T_ref = %s, beta = %.4g", 
                admin_fmt_bytes(g->m, t1, sizeof t1), admin_fmt_time(g->t_ref, t2, sizeof t2),
                g->share);
        for (size_t i = 0; i < g->nout; i++) {
            fprintf(o, "%s penalty(%d out) = %.3g", i ? "," : " from", g->k[i], g->penalty[i]);
            if (g->penalty[i] != g->penalty_measured[i])
                fprintf(o, " (measured %.4g)", g->penalty_measured[i]);
        }
        fputc('\n', o);
        if (g->nfloored)
            fprintf(o, "  overlap floor: one NIC passes at most %.4g MB/s (one message alone "
                       "%.4g MB/s, overlapped in the Alltoall on >= 3 nodes x 1 task at best "
                       "%.4g MB/s), so k messages started together pay at least %.3g x k x T_ref; the out-k "
                       "schemes' staggered starts measured less (raised to it)\n",
                    g->nic_rate / 1e6, g->m / g->t_ref / 1e6,
                    g->overlap_rate / 1e6,
                    g->floor_unit);
        if (g->has_gammas)
            fprintf(o, "  gamma_o = %.4g, gamma_i = %.4g (from %s)\n", g->skew_out, g->skew_in,
                    strcmp(g->gamma_scheme, "mix4") ? "Fig. 4's a and f" : "mix4's a and c");
        else
            fprintf(o, "  gammas not fitted: %s\n", g->note);
        if (g->intra_bw > 0)
            fprintf(o, "  intra-node bandwidth %.4g MB/s\n", g->intra_bw / 1e6);
        for (size_t i = 0; i < g->nchecks; i++)
            fprintf(o, "  check %s:%s penalty measured %.3f, predicted %.3f\n",
                    g->checks[i].scheme, g->checks[i].label, g->checks[i].measured_penalty,
                    g->checks[i].predicted_penalty);
        if (g->nchecks)
            fprintf(o, "  penalty error on %zu held-back communications: median %.1f%%, max "
                       "%.1f%%\n", g->check_err.n, 100 * g->check_err.median_abs,
                    100 * g->check_err.max_abs);
    } else if (gige_err && *gige_err) {
        fprintf(o, "GigE penalty model not fitted: %s\n", gige_err);
    }
}

int calib_writes_tcpshare(const calib_args *a, const calib_run *r)
{
    return a->pattern_model == CALIB_PM_TCPSHARE ||
           (a->pattern_model == CALIB_PM_DEFAULT && a->incast && r->d.nupl > 0);
}

int calib_writes_duplex(const calib_args *a, const calib_run *r, const calib_fit *f)
{
    return f->have_duplex && (a->pattern_model == CALIB_PM_DUPLEX ||
                              (a->pattern_model == CALIB_PM_DEFAULT && !calib_writes_tcpshare(a, r)));
}

double calib_bucket(const calib_fit *f)
{
    return f->have_refill ? f->rf.bucket : f->res.burst;
}

double calib_exchange_ratio(const calib_fit *f)
{
    if (!f->have_duplex)
        return 0;
    return 1 + f->dx.delta + f->dx.long_delta; /* 0 where none was fitted */
}

int calib_fill_fabric(const calib_args *a, const calib_run *r, const calib_fit *f,
                      ct_fabric *fab)
{
    fab->alpha = f->res.alpha;
    fab->beta = f->res.beta;
    if (f->res.p2p.nseg > 1)
        fab->p2p_segments = f->res.p2p; /* read by every model through ct_fabric_p2p_at */
    fab->intra_bw = f->co.intra_bw;
    fab->intra_shared_bw = f->intra_shared_bw;
    fab->intra_alpha = f->intra_alpha;
    fab->intra_line_bw = f->intra_line_bw;
    fab->intra_shared_alpha = f->intra_shared_alpha;
    fab->intra_shared_line_bw = f->intra_shared_line_bw;
    fab->has_alltoall = 1;
    fab->alltoall = f->res.sig;
    snprintf(fab->a2a_date, sizeof fab->a2a_date, "%s", r->today);
    fab->a2a_fitted_n = f->res.fit_nodes * f->res.fit_tasks_per_node;
    if (f->res.incast)
        for (size_t k = 0; k < f->res.nfit_cfg; k++)
            if (f->res.fit_cfg[k][0] * f->res.fit_cfg[k][1] > fab->a2a_fitted_n)
                fab->a2a_fitted_n = f->res.fit_cfg[k][0] * f->res.fit_cfg[k][1];
    fab->a2a_fit_error = f->res.a2a_diag.max_rel_err;
    const char *waited = calib_wait_word(&r->d), *cc = NULL;
    char ccs[256];
    calib_tcp(&r->d, ccs, sizeof ccs, &cc);
    snprintf(fab->description, sizeof fab->description,
             "calibrated by contention-admin calibrate on %s%s%s (%d nodes x up to %d tasks%s%s%s%s)",
             r->when, a->part ? ", partition " : "", a->part ? a->part : "", r->nodes_used,
             r->tpn_used, waited ? "; waits " : "", waited ? waited : "", cc ? "; TCP " : "",
             cc ? cc : "");
    if (cc && ct_tcp_cc_ok(cc)) /* signatures.h: our extension, session 62 */
        snprintf(fab->tcp_cc, sizeof fab->tcp_cc, "%s", cc);
    if (f->res.incast)
        snprintf(fab->source, sizeof fab->source,
                 "contention-admin calibrate %s: gamma(k,f) fitted robustly on %zu "
                 "configurations (our extension of 000 eq. 5), held-back median error %.1f%% "
                 "over %zu samples%s",
                 r->today, f->res.nfit_cfg, 100 * f->res.held_all.median_abs, f->res.held_all.n,
                 f->over ? " (FLAGGED: over the training-error threshold)" : "");
    else
        snprintf(fab->source, sizeof fab->source,
                 "contention-admin calibrate %s: signature fitted on %dx%d (000 §V), held-back "
                 "median error %.1f%% over %zu samples%s",
                 r->today, (int)f->res.fit_nodes, (int)f->res.fit_tasks_per_node,
                 100 * f->res.held_all.median_abs, f->res.held_all.n,
                 f->over ? " (FLAGGED: over the training-error threshold)" : "");
    snprintf(fab->p2p_source, sizeof fab->p2p_source,
             "contention-admin calibrate %s: Hockney least squares on %zu ping-pong sizes%s",
             r->today, r->d.bench.np2p,
             f->p2p_over ? " (FLAGGED: misses its own ping-pong beyond the threshold)" : "");
    /* --pattern-model asks for one model: refused when it was not fitted */
    const int pm = a->pattern_model;
    if (pm == CALIB_PM_GIGE && !f->have_gige)
        return admin_fail(CMD, "--pattern-model gige: the GigE model was not fitted: %s",
                          f->gige_err[0] ? f->gige_err : "no conflict schemes measured");
    if (pm == CALIB_PM_DUPLEX && !f->have_duplex)
        return admin_fail(CMD, "--pattern-model duplex: the duplex coupling was not fitted: %s",
                          f->duplex_err);
    if (pm == CALIB_PM_FAIRSHARE) {
        fab->penalty.kind = CT_MODEL_FAIRSHARE;
        snprintf(fab->penalty_source, sizeof fab->penalty_source,
                 "contention-admin calibrate %s: fair-share baseline (--pattern-model fairshare)",
                 r->today);
    } else if (calib_writes_tcpshare(a, r)) {
        fab->penalty = CT_TCPSHARE_MODEL(CALIB_TCP_BIAS); /* our extension: penalty_tcpshare.c */
        snprintf(fab->penalty_source, sizeof fab->penalty_source,
                 "contention-admin calibrate %s: TCP share (our extension%s): fair share, a "
                 "flow through h standing queues at h^-%g (Mathis 1997)",
                 r->today,
                 pm == CALIB_PM_TCPSHARE ? ", --pattern-model tcpshare"
                                         : ", the default with --incast on several leaves",
                 CALIB_TCP_BIAS);
    } else if (calib_writes_duplex(a, r, f)) {
        fab->penalty = CT_DUPLEX_MODEL(f->dx.delta); /* our extension: penalty_duplex.c */
        ct_duplex_set_terms(&fab->penalty, &f->res.sig_duplex);
        ct_duplex_set_long(&fab->penalty, &f->dx); /* session 28: the long exchange */
        fab->exchange = f->dx.exchange; /* signatures.h: a step's fixed time */
        ct_duplex_set_bucket(fab, &f->dx, calib_bucket(f)); /* sessions 29, 31 */
        snprintf(fab->penalty_source, sizeof fab->penalty_source,
                 "contention-admin calibrate %.10s: duplex fair share (our extension), delta "
                 "and p2p.exchange_us = %s of %d %s 2x1 points, duplex_incast and _flows = "
                 "gamma_incast and _flows / gamma of the Alltoall %s",
                 r->today, f->dx.sloped ? "slope and intercept" : "median t/T_alone - 1",
                 (int)f->dx.nused, f->nposted ? "posted-exchange" : "Alltoall",
                 f->res.sig.call_incast > 0 ? "fit sans call_incast" : "signature");
    } else if (f->have_gige) {
        fab->penalty = CT_GIGE_MODEL(f->g.share, f->g.skew_in, f->g.skew_out);
        snprintf(fab->penalty_source, sizeof fab->penalty_source,
                 "contention-admin calibrate %s: 001 §V-A from conflict schemes at %.0f bytes%s",
                 r->today, f->g.m,
                 f->g.has_gammas             ? (strcmp(f->g.gamma_scheme, "mix4") ? "" : ", gammas from mix4")
                 : f->g.gamma_out_of_range ? " (in-out conflicts beyond the model's range: gammas 0)"
                                         : " (no Fig. 4 / mix4 scheme: gammas 0)");
    } else {
        fab->penalty.kind = CT_MODEL_FAIRSHARE;
        snprintf(fab->penalty_source, sizeof fab->penalty_source,
                 "contention-admin calibrate %s: conflicts not measured; fair-share baseline",
                 r->today);
    }
    ct_err err;
    if (ct_fabric_validate(fab, &err) < 0)
        return admin_fail(CMD, "the fitted values are out of range: %s", err.msg);
    return ADMIN_OK;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n), n >= 1 (v is sorted in place). */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The time of the communications c[0..k) measured together (our change,
 * session 12): per repetition the slowest of them (the k messages are
 * through when the last one is), the median over the repetitions. The
 * pairs' means, used before, are biased twice: a repetition stretched by a
 * TCP retransmission timeout (200 ms minimum on Linux) moves the mean, and
 * so the capacity written for every pattern across the uplink (in runs
 * r4u, r4v of doc/multiswitch.md one pair of two averaged 0.55-0.62 s
 * against 0.25-0.28 s; without repetition times it cannot be told whether
 * a few repetitions or all of them were slow); and pairs that take turns
 * being the slow one have means below the time the k took together, which
 * over-states the aggregate. The pattern times the model is checked
 * against are medians of their repetitions too. 0 when the file gave fewer
 * than 3 repetition times (ct-mpibench before session 12) or they do not
 * line up: the caller then takes the slowest mean, as before. */
static double together_median(const ct_conflict_sample *const *c, int k)
{
    int n = k > 0 ? c[0]->nrep : 0;
    if (n < 3)
        return 0;
    for (int i = 1; i < k; i++)
        if (c[i]->nrep != n)
            return 0;
    double v[CT_CONFLICT_REPS_MAX];
    for (int r = 0; r < n; r++) {
        v[r] = 0;
        for (int i = 0; i < k; i++)
            v[r] = c[i]->rep[r] > v[r] ? c[i]->rep[r] : v[r];
    }
    return median_of(v, n);
}

/* One leaf's uplink measurements (uplink.csv, schemes u<sw>a and u<sw>k):
 * for k cross-leaf pairs measured together the delivered aggregate c_k = k m /
 * (t_k - alpha), t_k their time together (together_median: per repetition the
 * slowest pair, median over the repetitions; the slowest pair's mean where
 * the file has no repetition times); alone c_1 = m / (t_1 - alpha), t_1 the
 * same of the one pair. One
 * pair alone already held by the uplink (c_1 < 0.9 NIC): k pairs cannot get
 * more than that link's rate; a larger c_k comes from pairs that did not
 * overlap (starts staggered on a loaded host), so it is capped at c_1
 * (capped; ck_raw: the rate before the cap). 0 when switch sw was not measured. */
typedef struct uplink_rate {
    double m, c1, ck, ck_raw;
    int k, capped;
    double td;     /* u<sw>d, j pairs each way: their mean time (0: not measured) */
    double tj;     /* j pairs one way: the mean of u<sw>k's (j = k) or u<sw>a's (j = 1) */
    int j;         /* pairs each way in u<sw>d */
    double duplex; /* (td - alpha) / (tj - alpha) - 1 in [0, 1] (when measured) */
    int measured;  /* duplex measured: u<sw>d present (td > 0), j pairs saturate the uplink */
    int nrep;      /* repetitions of the medians t_1, t_k (0: means, no repetition times) */
} uplink_rate;

static int uplink_rates(const data *d, int32_t sw, double al, double nic, uplink_rate *u)
{
    memset(u, 0, sizeof *u);
    char na[CT_SCHEME_NAME_MAX], nk[CT_SCHEME_NAME_MAX], nd[CT_SCHEME_NAME_MAX];
    snprintf(na, sizeof na, "u%da", (int)sw);
    snprintf(nk, sizeof nk, "u%dk", (int)sw);
    snprintf(nd, sizeof nd, "u%dd", (int)sw);
    double t1 = 0, tk = 0, tk_sum = 0;
    const ct_conflict_sample *alone = NULL, *pairs[CALIB_UPLINK_PAIRS_MAX];
    for (size_t i = 0; i < d->nupl; i++) {
        const ct_conflict_sample *c = &d->upl[i];
        if (strcmp(c->scheme, na) == 0)
            t1 = c->t, u->m = c->m, alone = c;
        else if (strcmp(c->scheme, nk) == 0) {
            tk = c->t > tk ? c->t : tk, tk_sum += c->t;
            if (u->k < CALIB_UPLINK_PAIRS_MAX)
                pairs[u->k] = c;
            u->k++;
        } else if (strcmp(c->scheme, nd) == 0)
            u->td += c->t, u->j++;
    }
    const double t1_mean = t1; /* the duplex share's one pair alone: mean against mean */
    double t1_med = alone ? together_median(&alone, 1) : 0;
    double tk_med = u->k >= 2 && u->k <= CALIB_UPLINK_PAIRS_MAX ? together_median(pairs, u->k) : 0;
    if (t1_med > 0 && (u->k < 2 || tk_med > 0)) {
        t1 = t1_med;
        tk = u->k >= 2 ? tk_med : tk;
        u->nrep = alone->nrep;
    }
    if (u->j > 0)
        u->td /= u->j;
    if (u->j % 2) /* not pairs each way: calibrate never writes that */
        u->td = 0;
    u->j /= 2;
    if (!(t1 > 0) || !(u->m > 0))
        return 0;
    u->c1 = t1 > al ? u->m / (t1 - al) : u->m / t1;
    u->ck = u->k >= 2 ? (tk > al ? u->k * u->m / (tk - al) : u->k * u->m / tk) : u->c1;
    if (u->k < 2)
        u->k = 1;
    u->ck_raw = u->ck;
    if (u->k > 1 && u->c1 < 0.9 * nic && u->ck > u->c1)
        u->ck = u->c1, u->capped = 1;
    /* Duplex share (our extension, session 11): j pairs each way through the
     * uplink at once (u<sw>d: j = k with 2 tasks per node, else 1 on four
     * distinct NICs) against the same j pairs one way (u<sw>k, or u<sw>a
     * for j = 1), mean against mean: the communications' mean time is what
     * the other direction changes, while how far the slowest falls behind
     * is already in c_k (the slowest of u<sw>k). A penalty is a
     * communication's own slowdown (001 §IV-B), so its coupling is fitted
     * on the communications, not on their straggler. On TCP the ACKs of each
     * direction's streams queue behind the other direction's data where
     * the uplink is saturated (probe, 1 MiB: one pair each way through the
     * emulated 4:1 trunk 1.16-1.30 x one alone; at 2:1, where one pair does
     * not saturate the trunk, 1.00 x, but two each way 1.12-1.26 x two one
     * way). In the link model a communication then takes duplex of the
     * other direction when that direction is saturated (links.h), so j
     * pairs each way run at (1 + duplex) x j one way. Measurable only when
     * the j pairs saturate the uplink: j NICs' worth > 1.1 c_k. (Chosen
     * after the 37 runs of doc/multiswitch.md, against the slowest pair
     * over the model's time: session 11's note there.) */
    if (u->td > 0 && u->j >= 1) {
        u->tj = u->j == u->k && u->k > 1 ? tk_sum / u->k : t1_mean;
        if ((u->j == 1 || u->j == u->k) && u->j * nic > 1.1 * u->ck) {
            double base = u->tj - al, both = u->td > al ? u->td - al : u->td;
            u->duplex = fmin(1.0, fmax(0.0, both / base - 1.0));
            u->measured = 1;
        }
    }
    return 1;
}

/* Issue 14: the switch tree Slurm reports, with each measured leaf's uplink
 * (uplink_rates). The link model prices k communications on a link of
 * capacity C as penalty scale * k / C (in NIC units; scale = the GigE share
 * beta: gige_link in penalty_gige.c; 1 for Stop & Go, duplex and fair share,
 * whose link rules are k / C), so the capacity written is the one with which
 * the fabric's own model reproduces the k pairs: C = scale * c_k (our
 * extension: the sharing measured on the link, TCP's losses at an
 * oversubscribed uplink included, enters through its capacity). Switches
 * without a measurement (not above the allocation's leaves) get the median
 * oversubscription of the measured ones. info NULL: silent, no source. */
static int fill_uplinks(const data *d, ct_topology *t, double al, double nic, double scale,
                        int gige, int write_duplex, const char *today, FILE *info)
{
    double ratios[64];
    int nr = 0;
    char src[CT_TOPO_TEXT_MAX];
    size_t u = (size_t)snprintf(src, sizeof src,
                                "contention-admin calibrate %s: scontrol show topology; uplinks "
                                "from cross-leaf pairs of %.0f bytes:",
                                today, d->upl[0].m);
    for (int32_t s = 0; s < t->nswitches; s++) {
        uplink_rate ur;
        if (t->sw[s].parent < 0 || !uplink_rates(d, s, al, nic, &ur))
            continue;
        int saturated = ur.ck < 0.9 * ur.k * nic; /* else the NICs, not the uplink, limited */
        double cap = scale * ur.ck;
        double below = t->sw[s].up_cap; /* oversubscription 1 = everything below */
        t->sw[s].uplink_bw = cap;
        t->sw[s].oversub = 0;
        double dup = ur.measured ? round(ur.duplex * 1000) / 1000 : 0;
        t->sw[s].duplex = write_duplex ? dup : 0;
        if (nr < 64 && below > 0)
            ratios[nr++] = below / cap;
        if (!info)
            continue;
        /* sharing efficiency: what k pairs get together against one pair
         * alone, when one pair alone is already held by the uplink */
        char eff[160] = "";
        if (ur.capped)
            snprintf(eff, sizeof eff, " (measured %.4g MB/s, more than one pair alone: the pairs "
                                      "did not overlap; capped at one pair's rate)",
                     ur.ck_raw / 1e6);
        else if (ur.k > 1 && ur.c1 < 0.9 * nic)
            snprintf(eff, sizeof eff, " (%.2f x one pair alone)", ur.ck / ur.c1);
        char how[64];
        if (ur.nrep)
            snprintf(how, sizeof how, " (median of %d repetitions)", ur.nrep);
        else
            snprintf(how, sizeof how, " (mean: no repetition times)");
        fprintf(info,
                "uplink of %s: 1 pair %.4g MB/s, %d pair%s together %.4g MB/s%s%s%s -> "
                "uplink_MBps %.4g (%s%.2f x the aggregate)\n",
                t->sw[s].name, ur.c1 / 1e6, ur.k, ur.k > 1 ? "s" : "", ur.ck / 1e6, how, eff,
                saturated ? "" : "; NOT saturated: the NICs limited, the uplink is at least this",
                cap / 1e6, gige ? "model gige: share beta " : "", scale);
        if (ur.measured)
            fprintf(info,
                    "uplink of %s: %d pair%s each way, mean %.4g s, against %.4g s %s (%.2f x) "
                    "-> uplink_duplex %.3g%s%s\n",
                    t->sw[s].name, ur.j, ur.j > 1 ? "s" : "", ur.td, ur.tj,
                    ur.j > 1 ? "one way (mean)" : "alone", ur.td / ur.tj, dup,
                    ur.duplex >= 1 ? " (capped: at most 1, half duplex)" : "",
                    write_duplex ? "" : " (not written: --uplink-duplex or the TCP share writes it)");
        else if (ur.td > 0)
            fprintf(info,
                    "uplink of %s: %d pair%s each way, mean %.4g s; %s do not saturate the uplink: "
                    "uplink_duplex not measurable, none written\n",
                    t->sw[s].name, ur.j, ur.j > 1 ? "s" : "", ur.td,
                    ur.j > 1 ? "they" : "one pair's NICs");
        if (u < sizeof src)
            u += (size_t)snprintf(src + u, sizeof src - u, " %s %.3g MB/s (%d pair%s)%s",
                                  t->sw[s].name, ur.ck / 1e6, ur.k, ur.k > 1 ? "s" : "",
                                  saturated ? "" : " at least");
    }
    if (nr == 0)
        return 0;
    double med = median_of(ratios, nr);
    for (int32_t s = 0; s < t->nswitches; s++)
        if (t->sw[s].parent >= 0 && !(t->sw[s].uplink_bw > 0))
            t->sw[s].oversub = med < 1 ? 1 : med;
    if (info)
        snprintf(t->source, sizeof t->source, "%s", src);
    return nr;
}

/* dir/topology.txt (scontrol show topology) into t, capacities in units of
 * nic bytes/s. */
static int read_topology(const char *dir, double nic, ct_topology *t)
{
    char tp[PATH_MAX];
    snprintf(tp, sizeof tp, "%s/topology.txt", dir);
    char *text = NULL;
    size_t len = 0;
    if (admin_read_file(CMD, tp, 1u << 20, "scontrol show topology's output", &text, &len) !=
        ADMIN_OK)
        return ADMIN_INVALID;
    int rc = admin_topology_from_scontrol("scontrol show topology", text, nic, t);
    free(text);
    return rc;
}

int calib_fill_topology(const calib_run *r, const calib_fit *f, ct_fabric *fab, FILE *info)
{
    if (!r->d.nupl)
        return ADMIN_OK;
    ct_topology *t = calloc(1, sizeof *t);
    if (!t)
        return admin_fail(CMD, "out of memory");
    double nic = 1.0 / fab->beta;
    int rc = read_topology(r->dir, nic, t);
    if (rc != ADMIN_OK) {
        free(t);
        return rc;
    }
    const ct_penalty_model *pm = &fab->penalty;
    double scale = pm->kind == CT_MODEL_GIGE ? pm->real[CT_GIGE_SHARE] : 1.0;
    double al, be;
    ct_fabric_p2p_at(fab, r->d.upl[0].m, &al, &be);
    if (fill_uplinks(&r->d, t, al, nic, scale, pm->kind == CT_MODEL_GIGE, f->uplink_duplex,
                     r->today, info) == 0) {
        ct_topology_free(t);
        free(t);
        fprintf(info, "calibrate: no uplink measurement matches the switch tree: no tree "
                      "written\n");
        return ADMIN_OK;
    }
    ct_err err;
    int32_t at;
    if (ct_topology_resolve(t, nic, &at, &err) < 0) {
        ct_topology_free(t);
        free(t);
        return admin_fail(CMD, "switch tree from scontrol show topology: %s", err.msg);
    }
    ct_topology_free(fab->topology);
    free(fab->topology);
    fab->topology = t;
    return ADMIN_OK;
}

/* The NIC's rate for the uplink-bound check: the fastest of one message of
 * the conflict size alone (conflict scheme ref), one cross-leaf pair alone
 * (u<sw>a: it passes two NICs too) and the largest ping-pong size -- each a
 * rate the NIC passed, and a repetition slowed by the host only lowers it. */
static double nic_rate(const data *d)
{
    double r = 0;
    for (size_t i = 0; i < d->nconf; i++)
        if (strcmp(d->conf[i].scheme, "ref") == 0 && d->conf[i].t > 0)
            r = fmax(r, d->conf[i].m / d->conf[i].t);
    for (size_t i = 0; i < d->nupl; i++) {
        size_t l = strlen(d->upl[i].scheme);
        if (l > 1 && d->upl[i].scheme[0] == 'u' && d->upl[i].scheme[l - 1] == 'a' &&
            d->upl[i].t > 0)
            r = fmax(r, d->upl[i].m / d->upl[i].t);
    }
    double m = 0, t = 0;
    for (size_t i = 0; i < d->bench.np2p; i++)
        if (d->bench.p2p[i].m > m && d->bench.p2p[i].t > 0)
            m = d->bench.p2p[i].m, t = d->bench.p2p[i].t;
    return m > 0 ? fmax(r, m / t) : r;
}

size_t calib_uplink_bound(const calib_run *r, unsigned char *bound, double *excess, char *why,
                          size_t whysz)
{
    const data *d = &r->d;
    why[0] = '\0';
    if (!d->nupl || !d->bench.na2a)
        return 0;
    double nic = nic_rate(d);
    if (!(nic > 0)) {
        snprintf(why, whysz, "no ping-pong or conflict ref to set a NIC's rate");
        return 0;
    }
    ct_topology t;
    memset(&t, 0, sizeof t);
    char hp[PATH_MAX], *text = NULL, *names[CALIB_MAX_HOSTS];
    size_t len = 0, nb = 0;
    int32_t nh = 0;
    ct_tree_map map;
    memset(&map, 0, sizeof map);
    int32_t *tasks = NULL;
    if (read_topology(r->dir, nic, &t) != ADMIN_OK) {
        snprintf(why, whysz, "%s/topology.txt unreadable", r->dir);
        return 0;
    }
    snprintf(hp, sizeof hp, "%s/hosts.txt", r->dir);
    if (admin_read_file(CMD, hp, 1u << 20, "the allocation's nodes, one per line", &text, &len) !=
        ADMIN_OK) {
        snprintf(why, whysz, "%s unreadable", hp);
        goto out;
    }
    for (char *save = NULL, *tok = strtok_r(text, "\n", &save); tok && nh < CALIB_MAX_HOSTS;
         tok = strtok_r(NULL, "\n", &save))
        if (*tok)
            names[nh++] = tok;
    /* physical rates (no model share, no fitted alpha): which resource the
     * sample's bytes saturate */
    ct_err err;
    int32_t at;
    if (fill_uplinks(d, &t, 0, nic, 1.0, 0, 0, r->today, NULL) == 0) {
        snprintf(why, whysz, "no uplink measurement in %s matches the switch tree", r->dir);
        goto out;
    }
    if (ct_topology_resolve(&t, nic, &at, &err) < 0 ||
        ct_tree_map_build(&t, nic, (const char *const *)names, nh, &map, &err) < 0) {
        snprintf(why, whysz, "the switch tree of %s does not place the allocation's nodes: %s",
                 r->dir, err.msg);
        goto out;
    }
    if (!(tasks = calloc((size_t)(nh > 0 ? nh : 1), sizeof *tasks))) {
        snprintf(why, whysz, "out of memory for %d nodes", (int)nh);
        goto out;
    }
    for (size_t i = 0; i < d->bench.na2a; i++) {
        const ct_a2a_sample *s = &d->bench.a2a[i];
        bound[i] = 0;
        excess[i] = 0;
        if (s->nodes > nh)
            continue;
        /* a step of N nodes runs on the allocation's first N (Slurm's order) */
        for (int32_t v = 0; v < nh; v++)
            tasks[v] = v < s->nodes ? s->tasks_per_node : 0;
        if (ct_links_alltoall_uplink_excess(&map, tasks, &excess[i], NULL, &err) < 0)
            continue;
        bound[i] = excess[i] > CALIB_UPLINK_BOUND;
        nb += bound[i];
    }
out:
    free(tasks);
    ct_tree_map_free(&map);
    ct_topology_free(&t);
    free(text);
    return nb;
}

int calib_write(const calib_args *a, const calib_run *r, const calib_fit *f, ct_fabric *fab,
                calib_files *w, FILE *info)
{
    ct_err err;
    ct_partition_map pm;
    memset(&pm, 0, sizeof pm);
    ct_sigfile one;
    memset(&one, 0, sizeof one);
    one.version = CT_SIG_VERSION;
    one.nfabrics = 1;
    one.fabrics = fab;
    one.default_fabric = 0;
    if (a->part) {
        snprintf(pm.partition, sizeof pm.partition, "%s", a->part);
        pm.fabric = 0;
        one.nparts = 1;
        one.parts = &pm;
    }
    FILE *o = stdout;
    if (a->out) {
        if (admin_atomic_open(&w->out, a->out, 0644) < 0)
            return admin_fail(CMD, "%s: cannot create a temporary file beside it: %s", a->out,
                              strerror(errno));
        o = w->out.f;
    }
    fprintf(o, "# Calibrated by contention-admin calibrate on %s%s%s\n", r->when,
            a->part ? ", partition " : "", a->part ? a->part : "");
    fprintf(o, "# Held-back validation: median error %.1f%%, max %.1f%% over %zu samples "
               "(saturated, m >= 128 KiB: median %.1f%%)\n",
            100 * f->res.held_all.median_abs, 100 * f->res.held_all.max_abs, f->res.held_all.n,
            100 * f->res.held_saturated.median_abs);
    if (ct_sigfile_write(o, &one, &err) < 0)
        return admin_fail(CMD, "%s", err.msg); /* the caller drops the temporary file */
    if (a->out) {
        if (admin_atomic_commit(&w->out, &calib_stop) < 0 && !w->out.renamed) {
            if (calib_stop)
                return CALIB_INTERRUPTED;
            return admin_fail(CMD, "%s: write error", a->out);
        }
        fprintf(info, "wrote fabric %s to %s\n", a->name, a->out);
    } else {
        fflush(stdout);
    }
    if (a->svg) {
        if (plot(a->svg, &w->svg, a->name, &f->res) != ADMIN_OK)
            return ADMIN_INVALID;
        fprintf(info, "wrote plot to %s\n", a->svg);
    }
    if (a->points) {
        if (admin_atomic_open(&w->points, a->points, 0644) < 0)
            return admin_fail(CMD, "%s: cannot create a temporary file beside it: %s", a->points,
                              strerror(errno));
        FILE *pf = w->points.f;
        fprintf(pf, "nodes,tasks_per_node,size_bytes,measured_s,predicted_s,bound_s,rel_err,held\n");
        for (size_t i = 0; i < f->res.npoints; i++) {
            const ct_calib_point *p = &f->res.points[i];
            fprintf(pf, "%d,%d,%.0f,%.9g,%.9g,%.9g,%.6f,%d\n", (int)p->nodes,
                    (int)p->tasks_per_node, p->m, p->measured, p->predicted, p->bound, p->rel_err,
                    p->held);
        }
        if (admin_atomic_commit(&w->points, &calib_stop) < 0 && !w->points.renamed)
            return admin_fail(CMD, "%s: write error", a->points);
        fprintf(info, "wrote points to %s\n", a->points);
    }
    return ADMIN_OK;
}

void calib_files_abort(calib_files *w)
{
    admin_atomic_abort(&w->out);
    admin_atomic_abort(&w->svg);
    admin_atomic_abort(&w->points);
}
