/* Calibration: fit on one configuration, validate on the held-back samples
 * (papers 000/002 §V fit the signature on one process count with one task
 * per node and predict the others), and the GigE penalty parameters from
 * the conflict schemes (paper 001 §IV-B measurement, §V-A estimation). */
#include "contention/calibrate.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contention/commgraph.h"
#include "contention/progressive.h"
#include "grow.h"
#include "phase_time.h"

void ct_calib_opts_default(ct_calib_opts *o)
{
    memset(o, 0, sizeof *o);
    o->fit_tasks_per_node = 1;
    o->fit_nodes = 0;
    o->saturated_m = 128.0 * 1024.0;
    o->intra_bw = 0;
    o->p2p_max_seg = 1;
    o->max_fit_err = 0.15;
}

static int32_t tpn_of(const ct_a2a_sample *s)
{
    return s->tasks_per_node > 0 ? s->tasks_per_node : 1;
}

int ct_calib_in_fit(const ct_a2a_sample *s, int32_t fit_tasks_per_node, int32_t fit_nodes)
{
    return tpn_of(s) == fit_tasks_per_node && s->nodes == fit_nodes;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v (n > 0 values) ascending and returns their median. */
static double sorted_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

ct_calib_summary ct_calib_summarise(const ct_calib_point *p, size_t n, int held, double min_m)
{
    ct_calib_summary s = {0};
    double *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return s;
    for (size_t i = 0; i < n; i++)
        if (p[i].held == held && p[i].m >= min_m && p[i].spread > 0) {
            e[s.nspread++] = p[i].spread;
            s.beyond_spread += fabs(p[i].rel_err) > p[i].spread;
        }
    if (s.nspread)
        s.median_spread = sorted_median(e, s.nspread);
    for (size_t i = 0; i < n; i++)
        if (p[i].held == held && p[i].m >= min_m)
            e[s.n++] = fabs(p[i].rel_err);
    if (s.n) {
        s.median_abs = sorted_median(e, s.n);
        double sum = 0;
        for (size_t i = 0; i < s.n; i++)
            sum += e[i];
        s.mean_abs = sum / (double)s.n;
        s.max_abs = e[s.n - 1];
    }
    free(e);
    return s;
}

void ct_calib_result_free(ct_calib_result *r)
{
    if (!r)
        return;
    free(r->points);
    r->points = NULL;
    r->npoints = 0;
}

int ct_calib_result_in_fit(const ct_calib_result *r, const ct_a2a_sample *s)
{
    if (!r->incast)
        return ct_calib_in_fit(s, r->fit_tasks_per_node, r->fit_nodes);
    for (size_t k = 0; k < r->nfit_cfg; k++)
        if (s->nodes == r->fit_cfg[k][0] && tpn_of(s) == r->fit_cfg[k][1])
            return 1;
    return 0;
}

int ct_calib_incast_step(const ct_a2a_sample *a, size_t n, int32_t *nodes, int32_t *tpn)
{
    int32_t lo = 0, hi = 0, thi = 0, mn = 0, mt = 0;
    /* samples that say they are the step (ct_a2a_sample.incast_step, since
     * session 59), on 3 nodes or more; where none does, the rule for files
     * that do not say: lo < nodes < hi at more tasks per node than hi's */
    int marked = 0;
    for (size_t i = 0; i < n; i++)
        marked |= a[i].m > 0 && a[i].incast_step && a[i].nodes >= 3;
    for (size_t i = 0; i < n && !marked; i++)
        if (a[i].m > 0) {
            lo = (!lo || a[i].nodes < lo) ? a[i].nodes : lo;
            hi = a[i].nodes > hi ? a[i].nodes : hi;
        }
    for (size_t i = 0; i < n && !marked; i++)
        if (a[i].m > 0 && a[i].nodes == hi && tpn_of(&a[i]) > thi)
            thi = tpn_of(&a[i]);
    /* among those, the one with the most remote flows a port */
    for (size_t i = 0; i < n; i++) {
        int32_t t = tpn_of(&a[i]);
        int step = marked ? a[i].incast_step && a[i].nodes >= 3
                          : a[i].nodes > lo && a[i].nodes < hi && t > thi;
        if (!(a[i].m > 0) || !step)
            continue;
        if (!mn || ct_a2a_uniform_flows(a[i].nodes, t) > ct_a2a_uniform_flows(mn, mt))
            mn = a[i].nodes, mt = t;
    }
    *nodes = mn;
    *tpn = mt;
    return mn != 0;
}

int ct_calib_loss_bounds(const ct_a2a_sample *fit, size_t n, double *f0, double *f1)
{
    int32_t sn, st;
    *f0 = *f1 = 0;
    if (!ct_calib_incast_step(fit, n, &sn, &st))
        return 0;
    double lo = 1.0, hi = ct_a2a_uniform_flows(sn, st);
    for (size_t i = 0; i < n; i++)
        if (fit[i].m > 0 && fit[i].nodes >= 3 && !(fit[i].nodes == sn && tpn_of(&fit[i]) == st))
            lo = fmax(lo, ct_a2a_uniform_flows(fit[i].nodes, tpn_of(&fit[i])));
    if (!(hi > lo))
        return 0;
    *f0 = lo;
    *f1 = hi;
    return 1;
}

/* incast mode: 1 task per node on the smallest and largest node counts, the
 * largest node count at the smallest measured tasks per node >= 2, and the
 * smallest node count at its largest tasks per node when that puts more
 * remote flows through a port than the configuration before (session 19:
 * flows per port at incast degree 1, where the flows term is seen apart from
 * the incast degree; calibrate's many-flow step, or its largest tasks per
 * node at 2 nodes). */
static void choose_fit_cfgs(const ct_a2a_sample *a, size_t n, ct_calib_result *r)
{
    int32_t lo1 = 0, hi1 = 0, t2 = 0, hi2 = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(a[i].m > 0))
            continue;
        int32_t t = tpn_of(&a[i]);
        if (t == 1) {
            lo1 = (!lo1 || a[i].nodes < lo1) ? a[i].nodes : lo1;
            hi1 = a[i].nodes > hi1 ? a[i].nodes : hi1;
        } else if (!t2 || t < t2) {
            t2 = t;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (a[i].m > 0 && tpn_of(&a[i]) == t2 && t2 > 1)
            hi2 = a[i].nodes > hi2 ? a[i].nodes : hi2;
    r->nfit_cfg = 0;
    if (lo1) {
        r->fit_cfg[r->nfit_cfg][0] = lo1;
        r->fit_cfg[r->nfit_cfg++][1] = 1;
    }
    if (hi1 && hi1 != lo1) {
        r->fit_cfg[r->nfit_cfg][0] = hi1;
        r->fit_cfg[r->nfit_cfg++][1] = 1;
    }
    if (hi2) {
        r->fit_cfg[r->nfit_cfg][0] = hi2;
        r->fit_cfg[r->nfit_cfg++][1] = t2;
    }
    int32_t tf = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i].m > 0 && a[i].nodes == lo1 && tpn_of(&a[i]) > tf)
            tf = tpn_of(&a[i]);
    if (lo1 && tf > 1 && tf != t2 &&
        ct_a2a_uniform_flows(lo1, tf) > (hi2 ? ct_a2a_uniform_flows(hi2, t2) : 1.0)) {
        r->fit_cfg[r->nfit_cfg][0] = lo1;
        r->fit_cfg[r->nfit_cfg++][1] = tf;
    }
    /* the incast many-flow step (session 24; ct_calib_incast_step) */
    int32_t mn = 0, mt = 0;
    if (ct_calib_incast_step(a, n, &mn, &mt) && r->nfit_cfg < 8) {
        r->fit_cfg[r->nfit_cfg][0] = mn;
        r->fit_cfg[r->nfit_cfg++][1] = mt;
    }
}

/* The node count fitted on: o->fit_nodes when given, else the largest one
 * measured with fit_tasks_per_node tasks per node. */
static int32_t resolve_fit_nodes(const ct_a2a_sample *a, size_t n, const ct_calib_opts *o)
{
    if (o->fit_nodes > 0)
        return o->fit_nodes;
    int32_t hi = 0;
    for (size_t i = 0; i < n; i++)
        if (tpn_of(&a[i]) == o->fit_tasks_per_node && a[i].m > 0)
            hi = a[i].nodes > hi ? a[i].nodes : hi;
    return hi;
}

static int cmp_beyond(const void *a, const void *b)
{
    const ct_calib_beyond *x = a, *y = b;
    return (x->flows < y->flows) - (x->flows > y->flows); /* largest f first */
}

/* The held-back configurations with more flows a NIC than any fitted on
 * (ct_calib_beyond), each with the signed median error of its saturated
 * points. */
static void beyond_fitted_flows(ct_calib_result *r, double min_m)
{
    r->fit_flows_max = 0;
    r->nbeyond = 0;
    for (size_t k = 0; k < r->nfit_cfg; k++)
        r->fit_flows_max =
            fmax(r->fit_flows_max, ct_a2a_uniform_flows(r->fit_cfg[k][0], r->fit_cfg[k][1]));
    double *e = r->fit_flows_max > 0 ? malloc((r->npoints ? r->npoints : 1) * sizeof *e) : NULL;
    if (!e)
        return; /* no fit configuration, or no memory: nothing to list */
    for (size_t i = 0; i < r->npoints; i++) {
        const ct_calib_point *p = &r->points[i];
        double f = ct_a2a_uniform_flows(p->nodes, p->tasks_per_node);
        if (!p->held || !(f > r->fit_flows_max))
            continue;
        int seen = 0;
        for (size_t b = 0; b < r->nbeyond && !seen; b++)
            seen = r->beyond[b].nodes == p->nodes && r->beyond[b].tasks_per_node == p->tasks_per_node;
        if (seen || r->nbeyond == CT_CALIB_BEYOND_MAX)
            continue;
        ct_calib_beyond *b = &r->beyond[r->nbeyond];
        memset(b, 0, sizeof *b);
        b->nodes = p->nodes;
        b->tasks_per_node = p->tasks_per_node;
        b->flows = f;
        for (size_t j = 0; j < r->npoints; j++) {
            const ct_calib_point *q = &r->points[j];
            if (q->held && q->nodes == p->nodes && q->tasks_per_node == p->tasks_per_node &&
                q->m >= min_m)
                e[b->n++] = q->rel_err;
        }
        if (b->n == 0)
            continue; /* no saturated point: nothing to say */
        b->median_err = sorted_median(e, b->n);
        r->nbeyond++;
    }
    free(e);
    qsort(r->beyond, r->nbeyond, sizeof *r->beyond, cmp_beyond);
}

/* two nodes exchanging: the 2 x 1 Alltoall, δ's and the long exchange's source */
static int is_exchange(const ct_a2a_sample *s)
{
    return s->nodes == 2 && s->tasks_per_node == 1;
}

double ct_a2a_long_from(const ct_a2a_sample *a2a, size_t n)
{
    double knot = 0;
    for (size_t i = 0; i < n; i++)
        if (!is_exchange(&a2a[i]) && a2a[i].t > 0 && a2a[i].m > knot)
            knot = a2a[i].m;
    return knot;
}

size_t ct_a2a_with_posted_exchange(const ct_a2a_sample *a2a, size_t n,
                                   const ct_a2a_sample *posted, size_t nposted, double xmax,
                                   ct_a2a_sample *out, size_t *nused)
{
    size_t take = 0, k = 0;
    for (size_t i = 0; posted && i < nposted; i++)
        take += is_exchange(&posted[i]) && posted[i].m <= xmax;
    for (size_t i = 0; a2a && i < n; i++)
        if (!take || !is_exchange(&a2a[i]))
            out[k++] = a2a[i];
    for (size_t i = 0; take && i < nposted; i++)
        if (is_exchange(&posted[i]) && posted[i].m <= xmax)
            out[k++] = posted[i];
    if (nused)
        *nused = take;
    return k;
}

int ct_a2a_on_call_floor(const ct_a2a_sample *a2a, size_t n, double min_m, double ratio,
                         ct_a2a_call_floor *out)
{
    ct_a2a_call_floor f = {0};
    for (size_t i = 0; a2a && i < n; i++) {
        const ct_a2a_sample *s = &a2a[i];
        if (!is_exchange(s) || !(s->m > 0) || !(s->t > 0))
            continue;
        if (s->m < min_m && (f.m0 == 0 || s->m < f.m0)) {
            f.m0 = s->m;
            f.t0 = s->t;
        } else if (s->m >= min_m && (f.m == 0 || s->m < f.m)) {
            f.m = s->m;
            f.t = s->t;
        }
    }
    if (!(ratio > 0) || !(f.m0 > 0) || !(f.m > 0) || !(f.t <= ratio * f.t0))
        return 0;
    if (out)
        *out = f;
    return 1;
}

static int calibrate_alltoall(const ct_p2p_sample *p2p, size_t np2p, const ct_a2a_sample *a2a,
                              size_t na2a, const ct_calib_opts *opts, ct_calib_result *r,
                              ct_err *err);

/* The pause of sample s's configuration: the median over its sizes from
 * min_m up (the saturated range, where calibrate's p_cal is read too) of
 * their recorded pauses (each itself a median over the repetitions), 0 when
 * none was recorded. The pause comes from the benchmark's loop (its barrier and
 * reductions among the configuration's ranks), not from the size: one size's
 * median moves by up to 2 x between neighbouring sizes (2 x 1 at 210 Mbit/s:
 * 1.4 to 2.9 ms), and r times that is a large share of a short call.
 * buf: room for n doubles. */
static double config_pause(const ct_a2a_sample *a2a, size_t n, const ct_a2a_sample *s,
                           double min_m, double *buf)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (a2a[i].nodes == s->nodes && tpn_of(&a2a[i]) == tpn_of(s) && a2a[i].pause > 0 &&
            a2a[i].m >= min_m)
            buf[k++] = a2a[i].pause;
    return k ? sorted_median(buf, k) : 0;
}

/* The refill a call of s's configuration got beyond calibrate's 2 x 1 calls'
 * (opts.refill, phase_time.h ct_refill_dt) after its pause p: a node's
 * remote bytes S = t (n - 1) t m, 0 without a recorded pause or a bucket. */
static double a2a_refill_dt(const ct_calib_result *r, double beta, const ct_a2a_sample *s,
                            double p)
{
    if (!(r->refill_bucket > 0) || !(p > 0))
        return 0;
    double t = tpn_of(s);
    double S = t * (double)(s->nodes - 1) * t * s->m;
    return ct_refill_dt(r->refill_bucket, beta, r->refill_pause, S, p);
}

/* The signature is fitted on the sizes its configurations share: the 2 x 1
 * points beyond m_L (session 28) are the long exchange's (ct_fit_duplex). */
double ct_calib_a2a_refill(const ct_calib_result *r, const ct_a2a_sample *s,
                           const ct_a2a_sample *all, size_t n, double min_m)
{
    if (!(r->refill_bucket > 0) || n == 0)
        return 0;
    double *buf = malloc(n * sizeof *buf);
    if (!buf)
        return 0;
    double p = config_pause(all, n, s, min_m, buf);
    free(buf);
    double ra, rbeta;
    ct_p2p_at(&r->p2p, r->refill_bucket, &ra, &rbeta); /* as calibrate_alltoall reads it */
    return a2a_refill_dt(r, rbeta, s, p);
}

int ct_calibrate_alltoall(const ct_p2p_sample *p2p, size_t np2p, const ct_a2a_sample *a2a,
                          size_t na2a, const ct_calib_opts *opts, ct_calib_result *r, ct_err *err)
{
    double knot = a2a ? ct_a2a_long_from(a2a, na2a) : 0;
    if (!(knot > 0))
        return calibrate_alltoall(p2p, np2p, a2a, na2a, opts, r, err);
    ct_a2a_sample *kept = malloc(na2a * sizeof *kept);
    if (!kept)
        return ct_err_set(err, "calibrate: out of memory for %zu samples", na2a);
    size_t k = 0;
    for (size_t i = 0; i < na2a; i++)
        if (!(is_exchange(&a2a[i]) && a2a[i].m > knot))
            kept[k++] = a2a[i];
    int rc = calibrate_alltoall(p2p, np2p, kept, k, opts, r, err);
    free(kept);
    return rc;
}

static int calibrate_alltoall(const ct_p2p_sample *p2p, size_t np2p, const ct_a2a_sample *a2a,
                              size_t na2a, const ct_calib_opts *opts, ct_calib_result *r,
                              ct_err *err)
{
    if (!r)
        return ct_err_set(err, "calibrate: missing result pointer");
    memset(r, 0, sizeof *r);
    ct_calib_opts o;
    if (opts)
        o = *opts;
    else
        ct_calib_opts_default(&o);
    if (o.fit_tasks_per_node < 1)
        return ct_err_set(err, "calibrate: fit_tasks_per_node = %d (accepted: >= 1)",
                          (int)o.fit_tasks_per_node);
    if (!a2a || na2a == 0)
        return ct_err_set(err, "calibrate: no Alltoall samples (accepted: >= 4 at the fit "
                               "configuration plus held-back ones)");
    ct_p2p_fit_opts po;
    ct_p2p_fit_opts_default(&po);
    po.max_seg = o.p2p_max_seg > 1 ? o.p2p_max_seg : 1;
    /* one segment = the papers' procedure (ct_fit_hockney, weights 1/t^2); the
     * piecewise fit also weighs each size by its repetitions' spread */
    if (po.max_seg == 1)
        po.spread_floor = 0;
    if (po.max_seg > CT_P2P_MAX_SEG)
        return ct_err_set(err, "calibrate: p2p_max_seg = %zu (accepted: 1 to %d)", po.max_seg,
                          CT_P2P_MAX_SEG);
    if (ct_fit_hockney_piecewise(p2p, np2p, &po, &r->p2p, &r->p2p_diag, r->p2p_seg, err) < 0)
        return ct_err_prefix(err, "calibrate: ping-pong: ");
    r->p2p_pingpong = r->p2p;
    if (o.sustained)
        r->p2p_refill = ct_p2p_sustained_read(&r->p2p_pingpong, p2p, np2p, o.pingpong_refill,
                                              &r->p2p, &r->burst);
    /* one segment: exactly ct_fit_hockney's alpha, beta; several: the first */
    r->alpha = r->p2p.seg[0].alpha;
    r->beta = r->p2p.seg[0].beta;
    r->incast = o.incast != 0;
    if (r->incast)
        choose_fit_cfgs(a2a, na2a, r);

    /* the bucket's refill (opts.refill, session 30): each sample's time as
     * if its call had paused as long as calibrate's 2 x 1 calls */
    double rbeta = 0;
    if (o.refill && o.sustained && r->burst > 0) {
        ct_duplex_fit dx;
        ct_err e2;
        double ra;
        if (ct_fit_duplex(&r->p2p, a2a, na2a, o.saturated_m, &dx, &e2) == 0 && dx.pause > 0) {
            r->refill_bucket = r->burst;
            r->refill_pause = dx.pause;
            ct_p2p_at(&r->p2p, r->burst, &ra, &rbeta); /* the sustained rate at the bucket */
        }
    }
    int32_t fn = resolve_fit_nodes(a2a, na2a, &o);
    ct_a2a_sample *fit = malloc(na2a * sizeof *fit);
    ct_calib_point *pts = calloc(na2a, sizeof *pts);
    /* each sample's configuration's pause, only where a refill is taken out */
    double *cfgp = r->refill_bucket > 0 ? malloc(2 * na2a * sizeof *cfgp) : NULL;
    if (!fit || !pts || (r->refill_bucket > 0 && !cfgp)) {
        free(fit);
        free(pts);
        free(cfgp);
        return ct_err_set(err, "calibrate: out of memory for %zu samples", na2a);
    }
    for (size_t i = 0; cfgp && i < na2a; i++)
        cfgp[i] = config_pause(a2a, na2a, &a2a[i], o.saturated_m, cfgp + na2a);
    r->fit_tasks_per_node = o.fit_tasks_per_node;
    r->fit_nodes = fn;
    size_t nfit = 0;
    for (size_t i = 0; i < na2a; i++)
        if (a2a[i].m > 0 && ct_calib_result_in_fit(r, &a2a[i])) {
            ct_a2a_sample *s = &fit[nfit++];
            *s = a2a[i];
            double dt = a2a_refill_dt(r, rbeta, s, cfgp ? cfgp[i] : 0);
            if (dt != 0) { /* measured t = t(p_cal) - dt: the fit takes t(p_cal) */
                s->t += dt;
                if (s->t_min > 0)
                    s->t_min += dt;
                r->nrefill++;
            }
        }
    if (nfit < 4 && r->incast) {
        free(fit);
        free(pts);
        free(cfgp);
        return ct_err_set(err,
                          "calibrate: %zu Alltoall samples with m > 0 in the fit configurations "
                          "(accepted: >= 4, at two sizes or more)",
                          nfit);
    }
    if (nfit < 4) {
        free(fit);
        free(pts);
        free(cfgp);
        return ct_err_set(err,
                          "calibrate: %zu Alltoall samples with m > 0 at the fit configuration "
                          "(%d nodes x %d task(s)) (accepted: >= 4, at two sizes or more, to fit "
                          "gamma and delta, 000 §V)",
                          nfit, (int)fn, (int)o.fit_tasks_per_node);
    }
    int frc;
    if (r->incast) {
        ct_a2a_fit_opts ao;
        ct_a2a_fit_opts_default(&ao);
        ao.incast = 1;
        ao.max_fit_err = o.max_fit_err;
        ao.force = o.force;
        ao.call_step = o.call_step;
        /* the per-call step (alltoall.h, our extension) is read where the
         * network time is well above it: the saturated range */
        ao.min_m = o.call_step ? o.saturated_m : 0;
        /* the incast many-flow step's term, when it was measured */
        ct_calib_loss_bounds(fit, nfit, &r->loss_min_f, &r->loss_max_f);
        ao.loss_min_f = r->loss_min_f;
        ao.loss_max_f = r->loss_max_f;
        frc = ct_fit_signature_robust(fit, nfit, &r->p2p, o.intra_bw, &ao, &r->sig, &r->a2a_rep,
                                      err);
        r->sig_duplex = r->sig;
        if (o.call_incast && o.call_step) {
            /* the incast intercept (alltoall.h, session 69) in the Alltoall's
             * signature, where the fit with it is not refused; the patterns'
             * terms from the fit without it, kept however far that one
             * misses its points (only its gamma ratios are read) */
            ct_a2a_fit_opts ai = ao;
            ct_a2a_sig with;
            ct_a2a_fit_report wrep;
            ct_err werr;
            ai.call_incast = 1;
            if (ct_fit_signature_robust(fit, nfit, &r->p2p, o.intra_bw, &ai, &with, &wrep,
                                        &werr) == 0) {
                if (frc < 0) { /* refused without it: its terms from the kept fit */
                    ct_a2a_fit_opts af = ao;
                    af.force = 1;
                    if (ct_fit_signature_robust(fit, nfit, &r->p2p, o.intra_bw, &af,
                                                &r->sig_duplex, NULL, &werr) < 0)
                        r->sig_duplex = with;
                    frc = 0;
                }
                r->sig = with;
                r->a2a_rep = wrep;
            } else {
                snprintf(r->call_incast_refused, sizeof r->call_incast_refused, "%s",
                         werr.msg);
            }
        }
        r->a2a_diag = r->a2a_rep.diag;
        r->fit_min_m = r->a2a_rep.fit_min_m;
    } else {
        frc = ct_fit_signature(fit, nfit, r->alpha, r->beta, o.intra_bw, NULL, 0, &r->sig,
                               &r->a2a_diag, err);
        r->sig_duplex = r->sig;
    }
    if (frc < 0) {
        free(fit);
        free(pts);
        free(cfgp);
        return ct_err_prefix(err, "calibrate: Alltoall signature: ");
    }
    free(fit);

    size_t np = 0;
    for (size_t i = 0; i < na2a; i++) {
        const ct_a2a_sample *s = &a2a[i];
        if (!(s->m > 0))
            continue;
        ct_calib_point *p = &pts[np++];
        int32_t t = tpn_of(s);
        p->nodes = s->nodes;
        p->tasks_per_node = t;
        p->m = s->m;
        p->measured = s->t;
        p->spread = ct_a2a_sample_spread(s);
        double al, be;
        ct_p2p_at(&r->p2p, s->m, &al, &be); /* the size range's alpha, beta */
        p->predicted = ct_a2a_uniform(s->nodes, t, al, be, s->m, &r->sig, o.intra_bw);
        ct_a2a_sig none = {.gamma = 1.0, .delta = 0.0, .M = 0.0};
        p->bound = ct_a2a_uniform(s->nodes, t, al, be, s->m, &none, o.intra_bw);
        /* at its configuration's pause (opts.refill) */
        double dt = a2a_refill_dt(r, rbeta, s, cfgp ? cfgp[i] : 0);
        if (dt != 0) {
            p->predicted = fmax(p->predicted - dt, al);
            p->bound = fmax(p->bound - dt, al);
        }
        p->rel_err = (p->predicted - p->measured) / p->measured; /* 000 §VI: error rate */
        p->held = !ct_calib_result_in_fit(r, s);
        if (p->held)
            r->nheld++;
        else if (s->m >= r->fit_min_m)
            r->nfit++; /* below fit_min_m: a fit configuration's size not fitted on */
    }
    free(cfgp);
    r->points = pts;
    r->npoints = np;
    r->held_all = ct_calib_summarise(pts, np, 1, 0.0);
    r->held_saturated = ct_calib_summarise(pts, np, 1, o.saturated_m);
    if (r->incast)
        beyond_fitted_flows(r, o.saturated_m);
    return 0;
}

/* ---- intra-node bandwidth from one-node pattern rows -------------------------- */

/* ---- the intra-node readings (ct_intra_read): the halves rows of a pattern
 * output, on one node (all == 0) or on several with the tasks dealt cyclically
 * (all == 1); the rate at the largest size and, since session 57, the line */
#define INTRA_ROWS_MAX 64 /* (tasks, size) points kept for the line; more: the rate only */

/* One size of one task count: its rows' mean time (the line's points). */
typedef struct intra_pt {
    int tasks;
    double m, tsum;
    int n;
} intra_pt;

static void intra_line(const intra_pt *pt, size_t npt, ct_intra_reading *r)
{
    int best = 0;
    for (size_t i = 0; i < npt; i++) { /* the most tasks with two sizes or more */
        int sizes = 0;
        for (size_t j = 0; j < npt; j++)
            sizes += pt[j].tasks == pt[i].tasks;
        if (sizes >= 2 && pt[i].tasks > best)
            best = pt[i].tasks;
    }
    if (!best)
        return;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (size_t i = 0; i < npt; i++) {
        if (pt[i].tasks != best)
            continue;
        double x = (double)best * pt[i].m, y = pt[i].tsum / pt[i].n;
        sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
    }
    double den = k * sxx - sx * sx;
    if (!(den > 0))
        return;
    double slope = (k * sxy - sx * sy) / den, icpt = (sy - slope * sx) / k;
    if (!(slope > 0) || !(icpt > 0) || !isfinite(icpt) || !isfinite(1 / slope))
        return;
    r->alpha = icpt;
    r->line_bw = 1 / slope;
    r->line_tasks = best;
    r->line_sizes = k;
}

int ct_intra_read(const char *name, const char *buf, size_t len, int all, ct_intra_reading *r,
                  ct_err *err)
{
    if (!name)
        name = "(patterns)";
    if (!buf || !r)
        return ct_err_set(err, "%s: missing buffer or result pointer", name);
    memset(r, 0, sizeof *r);
    intra_pt pt[INTRA_ROWS_MAX];
    size_t npt = 0;
    double best_m = 0;
    size_t pos = 0, lineno = 0;
    while (pos < len) {
        size_t e = pos;
        while (e < len && buf[e] != '\n')
            e++;
        lineno++;
        char line[1024];
        size_t l = e - pos < sizeof line - 1 ? e - pos : sizeof line - 1;
        memcpy(line, buf + pos, l);
        line[l] = '\0';
        pos = e + 1;
        /* the row may carry a prefix (accuracy-report tags): start at "pattern," */
        const char *row = strstr(line, "pattern,");
        if (!row)
            continue;
        int tasks, nodes, tpn;
        double m, tavg, tmin;
        char detail[64];
        if (sscanf(row, "pattern,%d,%lf,%lf,%lf,%d,%d,%63s", &tasks, &m, &tavg, &tmin, &nodes,
                   &tpn, detail) != 7)
            return ct_err_set(err,
                              "%s:%zu: pattern row '%.60s' (accepted: pattern,tasks,size_bytes,"
                              "t_avg_s,t_min_s,nodes,tasks_per_node,detail)",
                              name, lineno, row);
        if (tasks < 2 || strncmp(detail, "halves", 6) != 0)
            continue;
        if (all ? nodes < 2 || tpn % 2 != 0 || !strstr(detail, ":cyclic") : nodes != 1)
            continue;
        if (!(tavg > 0) || !(m > 0) || !isfinite((double)tasks * m / tavg))
            return ct_err_set(err,
                              "%s:%zu: t_avg_s %g, size %g (accepted: both > 0, tasks x size / "
                              "t_avg_s finite)",
                              name, lineno, tavg, m);
        if (m >= best_m) {
            best_m = m;
            r->bw = (double)tasks * m / tavg; /* every task sends m through its node's memory */
            r->bytes = (double)tasks * m;
            r->nodes = nodes;
        }
        size_t j = 0;
        while (j < npt && !(pt[j].tasks == tasks && pt[j].m == m))
            j++;
        if (j == npt && npt < INTRA_ROWS_MAX)
            pt[npt++] = (intra_pt){.tasks = tasks, .m = m};
        if (j < npt)
            pt[j].tsum += tavg, pt[j].n++;
    }
    if (!(r->bw > 0))
        return 1;
    intra_line(pt, npt, r);
    return 0;
}

double ct_intra_shared(double one_bw, double all_bw, int nodes)
{
    if (!(one_bw > 0) || !(all_bw > 0) || !isfinite(all_bw) || nodes < 2)
        return 0;
    return all_bw < CT_INTRA_SHARED_BELOW * nodes * one_bw ? all_bw : 0;
}

/* ---- conflict rows --------------------------------------------------------- */

#define LINE_MAX_LEN 4096 /* a '# times:' line of CT_CONFLICT_REPS_MAX values fits */
#define MAX_COLS 32

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int parse_num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return (end == s || *trim(end) || errno || !isfinite(*v)) ? -1 : 0;
}

/* NAME:LABEL:SRC>DST */
static int parse_detail(const char *d, ct_conflict_sample *c)
{
    const char *c1 = strchr(d, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || c1 == d || c2 == c1 + 1)
        return -1;
    size_t ln = (size_t)(c1 - d), ll = (size_t)(c2 - c1 - 1);
    if (ln >= sizeof c->scheme || ll >= sizeof c->label)
        return -1;
    memcpy(c->scheme, d, ln);
    c->scheme[ln] = '\0';
    memcpy(c->label, c1 + 1, ll);
    c->label[ll] = '\0';
    int a, b, used = 0;
    if (sscanf(c2 + 1, "%d>%d%n", &a, &b, &used) != 2 || c2[1 + used] || a < 0 || b < 0)
        return -1;
    c->src = a;
    c->dst = b;
    return 0;
}

/* "# times: T1 T2 ..." (after '#' and blanks; t is split in place): 1 with
 * the times in rep[], 0 when the comment is something else, -1 (with *bad
 * the offending value) for a value that is not a time (parse_num, > 0) or
 * more than CT_CONFLICT_REPS_MAX of them */
static int parse_times(char *t, double *rep, int32_t *nrep, const char **bad)
{
    t++;
    while (*t == ' ' || *t == '\t')
        t++;
    if (strncmp(t, "times:", 6) != 0)
        return 0;
    *nrep = 0;
    char *save = NULL;
    for (char *tok = strtok_r(t + 6, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        double v;
        *bad = tok;
        if (*nrep == CT_CONFLICT_REPS_MAX || parse_num(tok, &v) < 0 || !(v > 0))
            return -1;
        rep[(*nrep)++] = v;
    }
    return 1;
}

int ct_conflict_parse(const char *name, const char *buf, size_t len, ct_conflict_sample **out,
                      size_t *n, ct_err *err)
{
    if (!name)
        name = "(conflicts)";
    if (!buf || !out || !n)
        return ct_err_set(err, "%s: missing buffer or result pointer", name);
    size_t cap = *n, start = *n;
    int col_b = -1, col_m = -1, col_t = -1, col_d = -1, ncols = 0;
    size_t pos = 0, lineno = 0;
    double reps[CT_CONFLICT_REPS_MAX]; /* the pending '# times:' */
    int32_t nreps = 0;
    while (pos < len) {
        size_t e = pos;
        while (e < len && buf[e] != '\n')
            e++;
        lineno++;
        if (e - pos >= LINE_MAX_LEN) {
            *n = start;
            return ct_err_set(err, "%s:%zu: line longer than %d bytes (accepted: ct-mpibench CSV)",
                              name, lineno, LINE_MAX_LEN - 1);
        }
        char line[LINE_MAX_LEN];
        memcpy(line, buf + pos, e - pos);
        line[e - pos] = '\0';
        pos = e + 1;
        char *t = trim(line);
        if (*t == '#') {
            const char *bad = NULL;
            int32_t nr = 0;
            int k = parse_times(t, reps, &nr, &bad);
            if (k < 0) {
                *n = start;
                return ct_err_set(err, "%s:%zu: repetition time '%.30s' (accepted: '# times:' "
                                       "then at most %d times in seconds, each > 0)",
                                  name, lineno, bad, CT_CONFLICT_REPS_MAX);
            }
            if (k > 0)
                nreps = nr;
            continue;
        }
        if (!*t)
            continue;
        int32_t row_reps = nreps;
        nreps = 0; /* a '# times:' belongs to the line right after it */
        char *tok[MAX_COLS];
        int nt = 0;
        for (char *p = t;;) {
            if (nt == MAX_COLS) {
                *n = start;
                return ct_err_set(err, "%s:%zu: more than %d columns (accepted: ct-mpibench CSV)",
                                  name, lineno, MAX_COLS);
            }
            char *c = strchr(p, ',');
            if (c)
                *c = '\0';
            tok[nt++] = trim(p);
            if (!c)
                break;
            p = c + 1;
        }
        if (!ncols) {
            for (int i = 0; i < nt; i++) {
                if (strcasecmp(tok[i], "benchmark") == 0)
                    col_b = i;
                else if (strcasecmp(tok[i], "size_bytes") == 0)
                    col_m = i;
                else if (strcasecmp(tok[i], "t_avg_s") == 0)
                    col_t = i;
                else if (strcasecmp(tok[i], "detail") == 0)
                    col_d = i;
            }
            if (col_b < 0 || col_m < 0 || col_t < 0) {
                *n = start;
                return ct_err_set(err, "%s:%zu: header '%.60s' lacks benchmark, size_bytes or "
                                       "t_avg_s (accepted: ct-mpibench CSV)", name, lineno, t);
            }
            ncols = nt;
            continue;
        }
        if (nt != ncols) {
            *n = start;
            return ct_err_set(err, "%s:%zu: %d fields where the header has %d (accepted: one "
                                   "value per column)", name, lineno, nt, ncols);
        }
        if (strcasecmp(tok[col_b], "conflict") != 0)
            continue;
        if (col_d < 0) {
            *n = start;
            return ct_err_set(err, "%s:%zu: conflict row but no detail column (accepted: "
                                   "ct-mpibench conflict output)", name, lineno);
        }
        ct_conflict_sample c;
        memset(&c, 0, sizeof c);
        if (parse_detail(tok[col_d], &c) < 0) {
            *n = start;
            return ct_err_set(err, "%s:%zu: detail '%.60s' (accepted: NAME:LABEL:SRC>DST, e.g. "
                                   "fig4:a:0>1)", name, lineno, tok[col_d]);
        }
        if (parse_num(tok[col_m], &c.m) < 0 || c.m < 0) {
            *n = start;
            return ct_err_set(err, "%s:%zu: size_bytes '%.40s' (accepted: bytes >= 0)", name,
                              lineno, tok[col_m]);
        }
        if (parse_num(tok[col_t], &c.t) < 0 || !(c.t > 0)) {
            *n = start;
            return ct_err_set(err, "%s:%zu: t_avg_s '%.40s' (accepted: seconds > 0)", name,
                              lineno, tok[col_t]);
        }
        c.nrep = row_reps;
        memcpy(c.rep, reps, sizeof(double) * (size_t)row_reps);
        if (grow_array((void **)out, &cap, *n + 1, sizeof **out, 32) < 0) {
            *n = start;
            return ct_err_set(err, "%s: out of memory", name);
        }
        (*out)[(*n)++] = c;
    }
    if (!ncols) {
        *n = start;
        return ct_err_set(err, "%s: no header line (accepted: ct-mpibench CSV with a "
                               "'benchmark,...,detail' header)", name);
    }
    return 0;
}

/* ---- GigE parameters (001 §V-A) -------------------------------------------- */

static const ct_conflict_sample *find(const ct_conflict_sample *c, size_t n, const char *scheme,
                                      const char *label)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].scheme, scheme) == 0 && (!label || strcmp(c[i].label, label) == 0))
            return &c[i];
    return NULL;
}

/* "out3" -> 3 for prefix "out"; 0 when the name is not of that form */
static int k_of(const char *scheme, const char *prefix)
{
    size_t l = strlen(prefix);
    if (strncmp(scheme, prefix, l) != 0 || !isdigit((unsigned char)scheme[l]))
        return 0;
    char *end;
    long k = strtol(scheme + l, &end, 10);
    return (*end || k < 1 || k > CT_MAX_SCHEME_COMMS) ? 0 : (int)k;
}

/* Predicted penalties of every communication of one scheme under the
 * progressive GigE model, appended to g->checks with the measured ones. */
static int check_scheme(const ct_conflict_sample *c, size_t n, const char *scheme,
                        const char *const *skip, ct_calib_gige *g, ct_err *err)
{
    size_t idx[CT_MAX_SCHEME_COMMS];
    size_t k = 0;
    int32_t maxnode = 0;
    for (size_t i = 0; i < n && k < CT_MAX_SCHEME_COMMS; i++)
        if (strcmp(c[i].scheme, scheme) == 0) {
            idx[k++] = i;
            maxnode = c[i].src > maxnode ? c[i].src : maxnode;
            maxnode = c[i].dst > maxnode ? c[i].dst : maxnode;
        }
    if (k == 0)
        return 0;
    ct_graph gr;
    if (ct_graph_init(&gr, maxnode + 1, err) < 0)
        return -1;
    for (size_t j = 0; j < k; j++)
        if (ct_graph_add(&gr, c[idx[j]].src, c[idx[j]].dst, 1, g->m, err) < 0) {
            ct_graph_free(&gr);
            return -1;
        }
    ct_penalty_model pm = CT_GIGE_MODEL(g->share, g->skew_in, g->skew_out);
    double alone[CT_MAX_SCHEME_COMMS], finish[CT_MAX_SCHEME_COMMS];
    for (size_t j = 0; j < k; j++)
        alone[j] = g->t_ref;
    int rc = ct_progressive_times(&pm, &gr, alone, finish, err);
    ct_graph_free(&gr);
    if (rc < 0)
        return -1;
    for (size_t j = 0; j < k; j++) {
        const ct_conflict_sample *s = &c[idx[j]];
        int skipped = 0;
        for (const char *const *sk = skip; sk && *sk; sk++)
            skipped |= strcmp(*sk, s->label) == 0;
        if (skipped || g->nchecks == sizeof g->checks / sizeof g->checks[0])
            continue;
        ct_calib_scheme_check *ck = &g->checks[g->nchecks++];
        snprintf(ck->scheme, sizeof ck->scheme, "%s", s->scheme);
        snprintf(ck->label, sizeof ck->label, "%s", s->label);
        ck->measured_penalty = s->t / g->t_ref;    /* 001 §IV-B: P_i = T_i / T_ref */
        ck->predicted_penalty = finish[j] / g->t_ref;
    }
    return 0;
}

double ct_nic_overlap_rate(const ct_a2a_sample *s, size_t n)
{
    double best = 0;
    for (size_t i = 0; s && i < n; i++)
        if (s[i].nodes >= 3 && s[i].tasks_per_node == 1 && s[i].m > 0 && s[i].t > 0 &&
            isfinite(s[i].t)) {
            double r = (s[i].nodes - 1) * s[i].m / s[i].t;
            best = r > best ? r : best;
        }
    return best;
}

int ct_calibrate_gige(const ct_conflict_sample *c, size_t n, ct_calib_gige *g, ct_err *err)
{
    return ct_calibrate_gige_ex(c, n, NULL, g, err);
}

int ct_calibrate_gige_ex(const ct_conflict_sample *c, size_t n, const ct_calib_gige_opts *o,
                         ct_calib_gige *g, ct_err *err)
{
    if (!g)
        return ct_err_set(err, "conflict calibration: missing result pointer");
    memset(g, 0, sizeof *g);
    if (!c || n == 0)
        return ct_err_set(err, "conflict calibration: no conflict measurements (accepted: "
                               "schemes 'ref' and out2, out3, ...)");
    const ct_conflict_sample *ref = find(c, n, "ref", NULL);
    if (!ref)
        return ct_err_set(err, "conflict calibration: scheme 'ref' (0>1 alone, T_ref) not "
                               "measured (accepted: ref, outK, inK, fig4, intra)");
    g->m = ref->m;
    g->t_ref = ref->t;
    for (size_t i = 0; i < n; i++)
        if (c[i].m != g->m && strcmp(c[i].scheme, "intra") != 0)
            return ct_err_set(err, "conflict calibration: scheme %s uses %.0f bytes but ref "
                                   "uses %.0f (accepted: one message size for every scheme)",
                              c[i].scheme, c[i].m, g->m);

    /* pure outgoing conflicts: penalty(k) = mean of T_i / T_ref over the k */
    for (size_t i = 0; i < n; i++) {
        int k = k_of(c[i].scheme, "out");
        if (k < 2)
            continue;
        size_t j;
        for (j = 0; j < g->nout; j++)
            if (g->k[j] == k)
                break;
        if (j < g->nout || g->nout == CT_MAX_SCHEME_COMMS)
            continue;
        double sum = 0;
        int cnt = 0;
        for (size_t q = 0; q < n; q++)
            if (strcmp(c[q].scheme, c[i].scheme) == 0) {
                sum += c[q].t / g->t_ref; /* 001 §IV-B: P_i = T_i / T_ref */
                cnt++;
            }
        g->k[g->nout] = k;
        g->penalty[g->nout] = g->penalty_measured[g->nout] = sum / cnt;
        g->nout++;
    }
    if (g->nout == 0)
        return ct_err_set(err, "conflict calibration: no pure outgoing conflict with k >= 2 "
                               "(accepted: schemes out2, out3, ...)");
    /* overlap floor (our extension, calibrate.h): k messages out of one NIC
     * of capacity R take >= k m / R from a common start */
    if (o && o->nic_rate > 0 && isfinite(o->nic_rate)) {
        double one = g->m / g->t_ref;
        g->overlap_rate = o->nic_rate;
        g->nic_rate = o->nic_rate > one ? o->nic_rate : one;
        g->floor_unit = one / g->nic_rate;
        for (size_t j = 0; j < g->nout; j++)
            if (g->penalty[j] < g->k[j] * g->floor_unit) {
                g->penalty[j] = g->k[j] * g->floor_unit;
                g->nfloored++;
            }
    }
    if (ct_fit_gige_beta(g->k, g->penalty, g->nout, &g->share, err) < 0)
        return ct_err_prefix(err, "conflict calibration: ");

    const char *gs = "fig4";
    int gk = 3;
    const ct_conflict_sample *a = find(c, n, "fig4", "a"), *f = find(c, n, "fig4", "f");
    if (!(a && f)) { /* 4 nodes: the same conflict with k = 2 */
        gs = "mix4";
        gk = 2;
        a = find(c, n, "mix4", "a");
        f = find(c, n, "mix4", "c");
    }
    if (a && f) {
        ct_err e2 = {{0}};
        snprintf(g->gamma_scheme, sizeof g->gamma_scheme, "%s", gs);
        g->t_a_ratio = a->t / g->t_ref;
        g->t_f_ratio = f->t / g->t_ref;
        g->gamma_top_ratio = gk * g->share;
        if (ct_fit_gige_gammas_k(g->share, g->t_ref, a->t, f->t, gk, &g->skew_in, &g->skew_out,
                                 &e2) == 0) {
            g->has_gammas = 1;
        } else if (a->t > gk * g->share * g->t_ref || f->t > gk * g->share * g->t_ref) {
            g->gamma_out_of_range = 1;
            snprintf(g->note, sizeof g->note,
                     "OUT OF THE MODEL'S RANGE: scheme %s measured t_a/t_ref = %.3f, t_f/t_ref = "
                     "%.3f, above %d*beta = %.3f, the most 001 V-A's p_o/p_i can express "
                     "(gamma would be negative): gamma_i = gamma_o = 0 and the GigE model "
                     "UNDERESTIMATES in-out conflicts on this network",
                     gs, g->t_a_ratio, g->t_f_ratio, gk, gk * g->share);
        } else {
            snprintf(g->note, sizeof g->note, "%s", e2.msg);
        }
    } else {
        snprintf(g->note, sizeof g->note,
                 "schemes fig4 (7 nodes) and mix4 (4 nodes) not measured: gamma_i = gamma_o = 0");
    }

    const ct_conflict_sample *in = find(c, n, "intra", NULL);
    if (in && in->t > 0)
        g->intra_bw = in->m / in->t;

    /* validation on what the estimation did not use */
    static const char *const fig4_used[] = {"a", "f", NULL};
    char seen[64][CT_SCHEME_NAME_MAX];
    size_t nseen = 0;
    for (size_t i = 0; i < n && nseen < 64; i++) {
        if (k_of(c[i].scheme, "in") < 2)
            continue;
        size_t j;
        for (j = 0; j < nseen; j++)
            if (strcmp(seen[j], c[i].scheme) == 0)
                break;
        if (j < nseen)
            continue;
        snprintf(seen[nseen++], CT_SCHEME_NAME_MAX, "%s", c[i].scheme);
        if (check_scheme(c, n, c[i].scheme, NULL, g, err) < 0)
            return -1;
    }
    static const char *const mix4_used[] = {"a", "c", NULL};
    if (g->has_gammas && check_scheme(c, n, g->gamma_scheme,
                                      strcmp(g->gamma_scheme, "mix4") ? fig4_used : mix4_used, g,
                                      err) < 0)
        return -1;
    ct_calib_point pts[sizeof g->checks / sizeof g->checks[0]];
    for (size_t i = 0; i < g->nchecks; i++) {
        memset(&pts[i], 0, sizeof pts[i]);
        pts[i].held = 1;
        pts[i].rel_err = (g->checks[i].predicted_penalty - g->checks[i].measured_penalty) /
                         g->checks[i].measured_penalty;
    }
    g->check_err = ct_calib_summarise(pts, g->nchecks, 1, 0.0);
    return 0;
}

/* ---- duplex coupling (our extension; penalty_duplex.c) */

double ct_duplex_incast(const ct_a2a_sig *sig)
{
    if (!sig || !(sig->gamma > 0) || !(sig->gamma_incast > 0) || !isfinite(sig->gamma_incast))
        return 0.0;
    return sig->gamma_incast / sig->gamma; /* gamma(k)/gamma(1) - 1 per extra peer node */
}

double ct_duplex_incast_max_k(const ct_a2a_sig *sig)
{
    if (!(ct_duplex_incast(sig) > 0) || !(sig->k_max > 0) || !isfinite(sig->k_max))
        return 0.0;
    return sig->k_max; /* alltoall.h: the term holds beyond the degrees it was fitted on */
}

double ct_duplex_flows(const ct_a2a_sig *sig)
{
    if (!sig || !(sig->gamma > 0) || !(sig->gamma_flows > 0) || !isfinite(sig->gamma_flows))
        return 0.0;
    return sig->gamma_flows / sig->gamma; /* gamma(k, f)/gamma(k, 1) - 1 per extra flow */
}

double ct_duplex_flows_max_f(const ct_a2a_sig *sig)
{
    if (!(ct_duplex_flows(sig) > 0) || !(sig->f_max > 0) || !isfinite(sig->f_max))
        return 0.0;
    return sig->f_max; /* alltoall.h: the term holds beyond the flows it was fitted on */
}

double ct_duplex_flows_exp(const ct_a2a_sig *sig)
{
    if (!(ct_duplex_flows(sig) > 0) || !(sig->flows_exp > 0 && sig->flows_exp <= 1))
        return 0.0;
    return sig->flows_exp; /* alltoall.h: the patterns price flows as the Alltoall does */
}

void ct_duplex_set_terms(ct_penalty_model *m, const ct_a2a_sig *sig)
{
    m->real[CT_DUPLEX_INCAST] = ct_duplex_incast(sig);
    m->real[CT_DUPLEX_INCAST_MAX_K] = ct_duplex_incast_max_k(sig);
    m->real[CT_DUPLEX_FLOWS] = ct_duplex_flows(sig);
    m->real[CT_DUPLEX_FLOWS_MAX_F] = ct_duplex_flows_max_f(sig);
    m->real[CT_DUPLEX_FLOWS_EXP] = ct_duplex_flows_exp(sig);
}

void ct_duplex_set_long(ct_penalty_model *m, const ct_duplex_fit *dx)
{
    int on = dx->nlong > 0 && dx->long_from > 0 && dx->long_delta != 0;
    m->real[CT_DUPLEX_LONG] = on ? dx->long_delta : 0;
    m->real[CT_DUPLEX_LONG_FROM] = on ? dx->long_from : 0;
}

void ct_duplex_set_bucket(ct_fabric *f, const ct_duplex_fit *dx, double burst)
{
    int on = dx->pause > 0 && burst > 0;
    f->bucket = on ? burst : 0;
    f->bucket_pause = on ? dx->pause : 0;
}

int ct_fit_refill(const ct_p2p_curve *curve, const ct_a2a_sample *normal, size_t n,
                  const ct_a2a_sample *idle, size_t ni, double burst, ct_refill_fit *out,
                  ct_err *err)
{
    memset(out, 0, sizeof *out);
    double a, b;
    ct_p2p_at(curve, burst, &a, &b); /* the sustained rate at the bucket */
    double r = b > 0 ? 1 / b : 0;
    if (!(r > 0) || !(burst > 0))
        return ct_err_set(err, "bucket refill: no token bucket read off the ping-pong (burst "
                               "%g B, rate %g B/s)",
                          burst, r);
    double *est = malloc(3 * (ni ? ni : 1) * sizeof *est);
    if (!est)
        return ct_err_set(err, "out of memory for %zu samples", ni);
    double *ip = est + ni, *w = est + 2 * ni;
    size_t k = 0;
    double mtop = 0; /* the largest size measured both ways */
    for (int pass = 0; pass < 2 && k == 0; pass++) {
        for (size_t i = 0; i < ni; i++) {
            const ct_a2a_sample *s = &idle[i];
            if (!is_exchange(s) || !(s->t > 0) || !(s->pause > 0))
                continue;
            const ct_a2a_sample *q = NULL;
            for (size_t j = 0; j < n && !q; j++)
                if (is_exchange(&normal[j]) && normal[j].m == s->m && normal[j].t > 0 &&
                    normal[j].pause > 0)
                    q = &normal[j];
            if (!q)
                continue;
            if (pass == 0) {
                mtop = fmax(mtop, s->m);
                if (!(s->m >= burst))
                    continue;
            } else if (s->m != mtop) {
                continue;
            }
            /* the estimate's noise: each mean's distance from its fastest
             * repetition (ct_a2a_sample_spread's), in bytes at r; at least
             * 0.1 % of the idle call's time */
            double sd = r * (fmax(q->t - q->t_min, 0) + fmax(s->t - s->t_min, 0));
            sd = fmax(sd, 1e-3 * r * s->t);
            ip[k] = s->pause;
            w[k] = 1 / (sd * sd);
            est[k++] = r * (q->t - s->t + q->pause); /* B = r (t_n - t_i + p_n) */
        }
        if (mtop == 0)
            break;
    }
    if (k == 0) {
        free(est);
        return ct_err_set(err, "bucket refill: no 2 x 1 size measured both after an idle and "
                               "with its pause recorded (calibrate measures it: the refill step)");
    }
    double sw = 0, swx = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < k; i++) {
        sw += w[i];
        swx += w[i] * est[i];
        lo = fmin(lo, est[i]);
        hi = fmax(hi, est[i]);
    }
    out->nused = k;
    out->raw = swx / sw;
    out->lo = lo;
    out->hi = hi;
    out->idle = sorted_median(ip, k);
    out->bucket = out->raw < 0 ? 0 : out->raw > burst ? burst : out->raw;
    out->lack = (burst - out->bucket) / r;
    free(est);
    return 0;
}

int ct_fit_duplex(const ct_p2p_curve *curve, const ct_a2a_sample *a2a, size_t n, double min_m,
                  ct_duplex_fit *out, ct_err *err)
{
    memset(out, 0, sizeof *out);
    /* the samples used: their ratio t / T_alone - 1, size and time */
    double *r = malloc(4 * (n ? n : 1) * sizeof *r);
    if (!r)
        return ct_err_set(err, "out of memory for %zu Alltoall samples", n);
    double *ms = r + n, *ts = r + 2 * n, *ps = r + 3 * n;
    int paused = 1; /* every sample of the line has its pause */
    size_t k = 0;
    double mlo = INFINITY, mhi = 0, mbar = 0, tbar = 0;
    /* m_L: the largest size of every other configuration; 2 x 1 points
     * beyond it are the long exchange's (session 28), not the line's */
    double knot = ct_a2a_long_from(a2a, n);
    int have_line = 0;
    for (size_t i = 0; knot > 0 && i < n; i++)
        have_line |= is_exchange(&a2a[i]) && a2a[i].m >= min_m && a2a[i].m <= knot && a2a[i].t > 0;
    if (!have_line)
        knot = 0; /* nothing at or below it: every point in the line, as before */
    for (size_t i = 0; i < n; i++) {
        const ct_a2a_sample *s = &a2a[i];
        if (!is_exchange(s) || !(s->m >= min_m) || !(s->t > 0))
            continue;
        if (knot > 0 && s->m > knot)
            continue;
        double alone = ct_p2p_time(curve, s->m); /* Hockney α + mβ of the size's segment */
        if (!(alone > 0))
            continue;
        r[k] = s->t / alone - 1.0; /* two nodes exchanging: (1 + δ)·T_alone */
        ms[k] = s->m;
        ps[k] = s->pause;
        paused &= s->pause > 0;
        ts[k++] = s->t;
        mbar += s->m;
        tbar += s->t;
        mlo = fmin(mlo, s->m);
        mhi = fmax(mhi, s->m);
    }
    if (k == 0) {
        free(r);
        return ct_err_set(err, "duplex coupling: no Alltoall sample on 2 nodes x 1 task with m >= "
                               "%.0f B (calibrate measures it: Alltoall at 2 x 1)",
                          min_m);
    }
    out->nused = k;
    mbar /= (double)k;
    tbar /= (double)k;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < k; i++) {
        sxx += (ms[i] - mbar) * (ms[i] - mbar);
        sxy += (ms[i] - mbar) * (ts[i] - tbar);
    }
    /* the curve's own slope over the same sizes (its top segments; a
     * sustained curve is one line there) */
    double ca_hi = ct_p2p_time(curve, mhi);
    double sa = mhi > mlo ? (ca_hi - ct_p2p_time(curve, mlo)) / (mhi - mlo) : 0;
    out->sloped = mhi > mlo && sxx > 0 && sa > 0;
    double med = sorted_median(r, k);
    out->lo = r[0];
    out->hi = r[k - 1];
    if (out->sloped)
        out->raw = (sxy / sxx) / sa - 1.0; /* t = c + (1 + δ)·T_alone: δ from the slope */
    else
        out->raw = med;
    out->delta = out->raw < 0 ? 0 : out->raw > 1 ? 1 : out->raw;
    double bt;
    ct_p2p_at(curve, mhi, &out->alpha, &bt);
    if (out->sloped) { /* c: the line with the written δ through the samples' centroid */
        out->exchange_penalized = tbar - (1.0 + out->delta) * (ca_hi - sa * (mhi - mbar));
        /* the same line with the latency once, outside the penalty (session 56):
         * c + α + (1 + δ)(T - α) = c_p + (1 + δ) T */
        out->exchange = out->exchange_penalized + out->delta * out->alpha;
    }
    if (paused)
        out->pause = sorted_median(ps, k);
    free(r);
    /* the long exchange: λ from what the line leaves beyond m_L */
    double tk = knot > 0 ? ct_p2p_time(curve, knot) : 0, sxl = 0, sll = 0, m1 = 0;
    int sizes = 0; /* distinct sizes beyond m_L: one would set λ from one noisy mean */
    out->long_hi = -INFINITY;
    for (size_t i = 0; tk > 0 && i < n; i++) {
        const ct_a2a_sample *s = &a2a[i];
        if (!is_exchange(s) || !(s->m > knot) || !(s->t > 0))
            continue;
        double alone = ct_p2p_time(curve, s->m);
        if (!(alone > tk))
            continue;
        double line = out->exchange_penalized + (1.0 + out->delta) * alone;
        sxl += (s->t - line) * (alone - tk);
        sll += (alone - tk) * (alone - tk);
        out->long_hi = fmax(out->long_hi, s->t / alone - 1.0);
        out->nlong++;
        if (sizes == 0 || (sizes == 1 && s->m != m1))
            sizes++;
        if (sizes == 1)
            m1 = s->m;
    }
    if (sizes >= 2 && sll > 0) {
        double l = sxl / sll;
        out->long_delta = l < -1 ? -1 : l > 1 ? 1 : l;
        out->long_from = knot;
    } else {
        out->nlong = 0;
        out->long_hi = 0;
    }
    return 0;
}
