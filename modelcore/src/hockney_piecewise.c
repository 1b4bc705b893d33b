/* Piecewise Hockney model (this project's extension of 000/002 §III, after
 * SimGrid's piecewise network factors): one (alpha, beta) per size range, the
 * ranges chosen by the fit (dynamic programme over contiguous runs of
 * distinct sizes, number of segments by BIC). See contention/p2p.h. */
#include "contention/p2p.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/hockney.h"

void ct_p2p_at(const ct_p2p_curve *c, double m, double *alpha, double *beta)
{
    double a = 0, b = 0;
    if (c && c->nseg > 0) {
        size_t k = 0;
        size_t ns = c->nseg < CT_P2P_MAX_SEG ? c->nseg : CT_P2P_MAX_SEG;
        while (k + 1 < ns && m >= c->seg[k + 1].from)
            k++;
        a = c->seg[k].alpha;
        b = c->seg[k].beta;
    }
    if (alpha)
        *alpha = a;
    if (beta)
        *beta = b;
}

double ct_p2p_time(const ct_p2p_curve *c, double m)
{
    double a, b;
    ct_p2p_at(c, m, &a, &b);
    return ct_hockney(a, b, m); /* 000 §III: alpha + m*beta, per segment */
}

void ct_p2p_single(ct_p2p_curve *c, double alpha, double beta)
{
    memset(c, 0, sizeof *c);
    c->nseg = 1;
    c->seg[0].alpha = alpha;
    c->seg[0].beta = beta;
}

int ct_p2p_check(const ct_p2p_curve *c, const char *what, ct_err *err)
{
    if (!c || c->nseg < 1 || c->nseg > CT_P2P_MAX_SEG)
        return ct_err_set(err, "%s: %zu segments (accepted: 1 to %d)", what, c ? c->nseg : 0,
                          CT_P2P_MAX_SEG);
    for (size_t k = 0; k < c->nseg; k++) {
        const ct_p2p_seg *s = &c->seg[k];
        if (k == 0 && s->from != 0)
            return ct_err_set(err, "%s: segment 1 starts at %g bytes (accepted: 0)", what, s->from);
        if (k > 0 && !(isfinite(s->from) && s->from > c->seg[k - 1].from))
            return ct_err_set(err,
                              "%s: segment %zu starts at %g bytes (accepted: a finite size "
                              "above segment %zu's start, %g)",
                              what, k + 1, s->from, k, c->seg[k - 1].from);
        if (!isfinite(s->beta) || s->beta <= 0)
            return ct_err_set(err, "%s: segment %zu: beta = %g s/byte (accepted: finite, > 0)",
                              what, k + 1, s->beta);
        if (!isfinite(s->alpha) || (k == 0 && s->alpha < 0))
            return ct_err_set(err, "%s: segment %zu: alpha = %g s (accepted: finite%s)", what,
                              k + 1, s->alpha, k == 0 ? ", >= 0" : "");
        if (k > 0 && !(s->alpha + s->from * s->beta > 0))
            return ct_err_set(err,
                              "%s: segment %zu: alpha + from*beta = %g s at %g bytes "
                              "(accepted: a positive time where the segment starts)",
                              what, k + 1, s->alpha + s->from * s->beta, s->from);
    }
    return 0;
}

void ct_p2p_sustained(const ct_p2p_curve *c, ct_p2p_curve *out, double *burst)
{
    double b = 0;
    ct_p2p_curve r = *c;
    if (c->nseg >= 2 && c->nseg <= CT_P2P_MAX_SEG) {
        const ct_p2p_seg *top = &c->seg[c->nseg - 1];
        if (top->alpha < 0 && top->beta > 0) {
            b = -top->alpha / top->beta; /* bytes the bucket passes free */
            ct_p2p_single(&r, c->seg[0].alpha, top->beta);
        }
    }
    *out = r;
    if (burst)
        *burst = b;
}

/* session 49's reverse-refill curve, p2p.h */
int ct_p2p_refill_read(const ct_p2p_sample *s, size_t n, double alpha, double *beta,
                       double *bucket)
{
    /* the three largest distinct sizes of m >= CT_P2P_REFILL_FROM (big[0]
     * the largest) and the sample of the largest */
    double big[3] = {0, 0, 0};
    const ct_p2p_sample *topmost = NULL;
    size_t used = 0;
    for (size_t i = 0; s && i < n; i++) {
        double m = s[i].m;
        if (!(m >= CT_P2P_REFILL_FROM) || !isfinite(m) || !(s[i].t > alpha) || !isfinite(s[i].t))
            continue;
        if (++used > CT_P2P_REFILL_MAX_SAMPLES)
            return 0;
        if (!topmost || m > topmost->m)
            topmost = &s[i];
        if (m == big[0] || m == big[1] || m == big[2])
            continue;
        if (m > big[0]) {
            big[2] = big[1];
            big[1] = big[0];
            big[0] = m;
        } else if (m > big[1]) {
            big[2] = big[1];
            big[1] = m;
        } else if (m > big[2])
            big[2] = m;
    }
    if (!(big[2] > 0))
        return 0;
    double top = big[0], third = big[2];
    double best_sse = INFINITY, best_b = 0, best_beta = 0;
    /* B from 0 (the sustained line through alpha) to below top / 2: from
     * there on every size is within 2B and the curve is m / (2r), a line at
     * twice the rate that B = 0 describes as well. At most
     * CT_P2P_REFILL_STEPS values of B, however large the sizes. */
    double step = fmax(CT_P2P_REFILL_GRID, top / 2 / CT_P2P_REFILL_STEPS);
    for (double B = 0; B < top / 2; B += step) {
        double sgg = 0, sgy = 0, syy = 0;
        for (size_t i = 0; i < n; i++) {
            if (!(s[i].m >= CT_P2P_REFILL_FROM) || !(s[i].t > alpha) || !isfinite(s[i].t) ||
                !isfinite(s[i].m))
                continue;
            double g = fmax(s[i].m / 2, s[i].m - B), y = s[i].t - alpha;
            double w = 1 / (s[i].t * s[i].t); /* relative errors, as ct_fit_hockney */
            sgg += w * g * g;
            sgy += w * g * y;
            syy += w * y * y;
        }
        if (!(sgg > 0))
            continue;
        double b = sgy / sgg;
        double sse = syy - b * sgy; /* sum w (y - b g)^2 at the least-squares b */
        if (b > 0 && sse < best_sse * (1 - 1e-12)) {
            best_sse = sse;
            best_b = B;
            best_beta = b;
        }
    }
    if (!(best_beta > 0) || !(best_b > third / 2))
        return 0;
    /* the bend must show in the top size beyond its noise: m / (2r) and
     * (m - B) / r differ there by (top/2 - B) / (top - B) of its time, which
     * must exceed twice its repetitions' spread (at least CT_P2P_REFILL_NOISE):
     * a B just below top / 2 only restates the line at twice the rate */
    double sig = fmax(ct_p2p_sample_spread(topmost), CT_P2P_REFILL_NOISE);
    if (!((top / 2 - best_b) / (top - best_b) > 2 * sig))
        return 0;
    *beta = best_beta;
    *bucket = best_b;
    return 1;
}

int ct_p2p_sustained_read(const ct_p2p_curve *c, const ct_p2p_sample *s, size_t n, int refill,
                          ct_p2p_curve *out, double *burst)
{
    double rb, rB;
    ct_p2p_sustained(c, out, burst);
    if (!refill || c->nseg < 1 || ct_p2p_refill_read(s, n, c->seg[0].alpha, &rb, &rB) != 1)
        return 0;
    ct_p2p_single(out, c->seg[0].alpha, rb);
    if (burst)
        *burst = rB;
    return 1;
}

void ct_p2p_fit_opts_default(ct_p2p_fit_opts *o)
{
    o->max_seg = 4;
    o->seg_penalty = 1.0;
    o->noise_floor = 0.005;
    o->spread_floor = 0.02;
}

double ct_p2p_sample_spread(const ct_p2p_sample *s)
{
    if (!s || !(s->t_min > 0) || !(s->t_min < s->t) || !(s->t > 0))
        return 0;
    return (s->t - s->t_min) / s->t;
}

size_t ct_p2p_worst_miss(const ct_p2p_curve *c, const ct_p2p_sample *s, size_t n,
                         double max_spread, double min_m, double *worst, double *at_m)
{
    size_t judged = 0;
    *worst = 0;
    if (at_m)
        *at_m = 0;
    for (size_t i = 0; c && s && i < n; i++) {
        if (!(s[i].m > 0) || !(s[i].m > min_m) || !(s[i].t > 0) ||
            (max_spread > 0 && ct_p2p_sample_spread(&s[i]) > max_spread))
            continue;
        double e = fabs(ct_p2p_time(c, s[i].m) - s[i].t) / s[i].t;
        judged++;
        if (e > *worst) {
            *worst = e;
            if (at_m)
                *at_m = s[i].m;
        }
    }
    return judged;
}

/* ---- fitting ------------------------------------------------------------ */

/* Weighted sums (w = 1/t^2) of a run of samples: additive, so any range's
 * least-squares line comes from two prefix sums. */
typedef struct sums {
    double w, m, mm, t, mt, tt;
} sums;

static sums sums_sub(const sums *hi, const sums *lo)
{
    sums r = {hi->w - lo->w,   hi->m - lo->m,   hi->mm - lo->mm,
              hi->t - lo->t,   hi->mt - lo->mt, hi->tt - lo->tt};
    return r;
}

typedef struct line {
    double a, b, sse;
    int ok, clamped;
} line;

/* Least squares of t = a + b m on relative errors (same normal equations as
 * ct_fit_hockney); clamp: a < 0 -> a = 0, line through the origin. flat:
 * when the slope comes out <= 0 (small messages whose times the network's
 * latency sets, a few % apart in either direction: 13.0, 11.0 and 12.1 us
 * at 0, 1 and 4 KiB on a 100 Mbit/s network of session 21), the slope is
 * held at CT_P2P_FLAT_BETA (p2p.h) and a is the weighted mean; without it such a range
 * could not be a segment, and the first one had to reach up to sizes the
 * bandwidth sets (there: 0-32 KiB in one line, 88 % off at 32 KiB, and a
 * sustained rate of 15.0 MB/s read on a 12.5 MB/s link). */
static line line_fit(const sums *s, int clamp, int flat)
{
    line L = {0, 0, INFINITY, 0, 0};
    double det = s->w * s->mm - s->m * s->m;
    if (!(det > 0))
        return L;
    double a = (s->mm * s->t - s->m * s->mt) / det;
    double b = (s->w * s->mt - s->m * s->t) / det; /* Hockney: t = alpha + m*beta */
    if (clamp && a < 0) {
        a = 0;
        b = s->mt / s->mm;
        L.clamped = 1;
    }
    if (flat && !(b > 0) && isfinite(b)) {
        b = CT_P2P_FLAT_BETA;
        a = (s->t - b * s->m) / s->w; /* weighted mean of t - b m */
    }
    if (!(b > 0) || !isfinite(a) || !isfinite(b))
        return L;
    double sse = s->tt - 2 * a * s->t - 2 * b * s->mt + a * a * s->w + 2 * a * b * s->m +
                 b * b * s->mm;
    L.a = a;
    L.b = b;
    L.sse = sse > 0 ? sse : 0;
    L.ok = 1;
    return L;
}

static int cmp_sample(const void *x, const void *y)
{
    const ct_p2p_sample *a = x, *b = y;
    return (a->m > b->m) - (a->m < b->m);
}

/* The most distinct sizes the segment search considers (O(D^2) ranges). */
#define PW_MAX_DISTINCT 512

static void seg_diag(const ct_p2p_sample *s, const double *sig, size_t lo, size_t hi,
                     const ct_p2p_curve *c, int weighted, ct_p2p_seg_diag *d)
{
    double mean = 0, ssr = 0, sst = 0, maxrel = 0, maxsp = 0, maxu = 0;
    for (size_t i = lo; i < hi; i++)
        mean += s[i].t;
    mean /= (double)(hi - lo);
    for (size_t i = lo; i < hi; i++) {
        double e = ct_p2p_time(c, s[i].m) - s[i].t;
        ssr += e * e;
        sst += (s[i].t - mean) * (s[i].t - mean);
        maxrel = fmax(maxrel, fabs(e) / s[i].t);
        maxsp = fmax(maxsp, ct_p2p_sample_spread(&s[i]));
        if (weighted)
            maxu = fmax(maxu, fabs(e) / s[i].t / sig[i]);
    }
    d->max_spread = maxsp;
    d->max_err_spread = maxu;
    d->npoints = hi - lo;
    d->m_lo = s[lo].m;
    d->m_hi = s[hi - 1].m;
    d->r2 = sst > 0 ? 1.0 - ssr / sst : (ssr == 0 ? 1.0 : 0.0);
    d->max_rel_err = maxrel;
}

int ct_fit_hockney_piecewise(const ct_p2p_sample *s_in, size_t n, const ct_p2p_fit_opts *opts,
                             ct_p2p_curve *out, ct_fit_diag *diag, ct_p2p_seg_diag *segdiag,
                             ct_err *err)
{
    ct_p2p_fit_opts o;
    if (opts)
        o = *opts;
    else
        ct_p2p_fit_opts_default(&o);
    if (!out)
        return ct_err_set(err, "piecewise Hockney fit: missing result pointer");
    if (o.max_seg < 1 || o.max_seg > CT_P2P_MAX_SEG)
        return ct_err_set(err, "piecewise Hockney fit: max_seg = %zu (accepted: 1 to %d)",
                          o.max_seg, CT_P2P_MAX_SEG);
    if (!isfinite(o.seg_penalty) || o.seg_penalty < 0 || !isfinite(o.noise_floor) ||
        o.noise_floor <= 0 || !isfinite(o.spread_floor) || o.spread_floor < 0)
        return ct_err_set(err,
                          "piecewise Hockney fit: seg_penalty = %g, noise_floor = %g, "
                          "spread_floor = %g (accepted: >= 0, > 0 and >= 0, finite)",
                          o.seg_penalty, o.noise_floor, o.spread_floor);
    /* one segment: exactly today's fit. Where its line has no positive slope
     * (small messages the bucket passes free, each sample's 1/t^2 weighing as
     * much as 10^2 to 10^7 of the large ones', seen on a 105 Mbit/s network
     * with a 216 KiB bucket: means of 27 us to 0.42 ms up to 16 KiB, then
     * 1.2 ms at 32 KiB and the line rate beyond) only several segments
     * describe the samples, and the fit goes on without that candidate (our
     * extension, session 37) */
    if (diag)
        memset(diag, 0, sizeof *diag);
    if (ct_hockney_samples_check(s_in, n, err) < 0)
        return -1;
    double a1 = 0, b1 = 0;
    ct_err line_err;
    memset(&line_err, 0, sizeof line_err);
    int have_line = ct_fit_hockney(s_in, n, &a1, &b1, diag, &line_err) == 0;
    if (have_line)
        ct_p2p_single(out, a1, b1);
    /* the repetitions' spread, when known, weights each sample (fit_alltoall.h) */
    int weighted = 0;
    for (size_t i = 0; i < n; i++) {
        double tm = s_in[i].t_min;
        if (!isfinite(tm) || tm < 0 || tm > s_in[i].t)
            return ct_err_set(err,
                              "piecewise Hockney fit: sample %zu (m = %g bytes): t_min = %g s "
                              "(accepted: 0 = unknown, or the best repetition, > 0 and <= "
                              "t = %g s)",
                              i, s_in[i].m, tm, s_in[i].t);
        if (tm > 0 && o.spread_floor > 0)
            weighted = 1;
    }

    int rc = -1;
    ct_p2p_sample *s = malloc(n * sizeof *s);
    size_t *st = malloc((n + 1) * sizeof *st); /* start index of each distinct size */
    sums *pre = malloc((n + 1) * sizeof *pre);
    double *sig = malloc(n * sizeof *sig);
    double *dp = NULL;
    size_t *from = NULL;
    if (!s || !st || !pre || !sig) {
        ct_err_set(err, "piecewise Hockney fit: out of memory for %zu samples", n);
        goto out;
    }
    memcpy(s, s_in, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_sample);
    /* sigma_i: the sample's relative noise (1 = the papers' weights) */
    double floor_sse = 0;
    for (size_t i = 0; i < n; i++) {
        sig[i] = weighted ? fmax(ct_p2p_sample_spread(&s[i]), o.spread_floor) : 1.0;
        floor_sse += (o.noise_floor / sig[i]) * (o.noise_floor / sig[i]);
    }
    size_t D = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || s[i].m != s[i - 1].m)
            st[D++] = i;
    st[D] = n;
    memset(&pre[0], 0, sizeof pre[0]);
    for (size_t i = 0; i < n; i++) {
        /* relative errors (1/t^2) in units of the sample's noise (1/sigma^2) */
        double w = 1.0 / (s[i].t * s[i].t * sig[i] * sig[i]), m = s[i].m, t = s[i].t;
        pre[i + 1] = pre[i];
        pre[i + 1].w += w;
        pre[i + 1].m += w * m;
        pre[i + 1].mm += w * m * m;
        pre[i + 1].t += w * t;
        pre[i + 1].mt += w * m * t;
        pre[i + 1].tt += w * t * t;
    }
    size_t kmax = o.max_seg;
    if (kmax > D / 3)
        kmax = D / 3;
    if (D > PW_MAX_DISTINCT)
        kmax = 1;

    double N = (double)n;
    sums all = sums_sub(&pre[n], &pre[0]);
    line one = line_fit(&all, 1, 0);
    int one_clamped = 0;
    if (weighted && one.ok) {
        /* one segment, spread-weighted */
        ct_p2p_single(out, one.a, one.b);
        one_clamped = one.clamped;
    } else if (weighted && have_line) {
        /* the weighted line has no positive slope: keep the papers' line, its
         * weighted residual for the criterion */
        one.sse = 0;
        for (size_t i = 0; i < n; i++) {
            double e = (a1 + b1 * s[i].m - s[i].t) / (s[i].t * sig[i]);
            one.sse += e * e;
        }
    } else if (!have_line) {
        one.sse = INFINITY; /* no line of one segment: several or none */
    }
    double best_bic = N * log(fmax(one.sse, floor_sse) / N) + o.seg_penalty * 2.0 * log(N);
    if (kmax >= 2) {
        /* dp[k][j]: least SSE of k segments covering distinct sizes [0, j) */
        size_t W = D + 1;
        dp = malloc((kmax + 1) * W * sizeof *dp);
        from = malloc((kmax + 1) * W * sizeof *from);
        if (!dp || !from) {
            ct_err_set(err, "piecewise Hockney fit: out of memory for %zu sizes", D);
            goto out;
        }
        for (size_t i = 0; i < (kmax + 1) * W; i++)
            dp[i] = INFINITY, from[i] = 0;
        dp[0] = 0;
        for (size_t k = 1; k <= kmax; k++)
            for (size_t j = 3 * k; j <= D; j++)
                for (size_t i = 3 * (k - 1); i + 3 <= j; i++) {
                    if (!isfinite(dp[(k - 1) * W + i]))
                        continue;
                    sums r = sums_sub(&pre[st[j]], &pre[st[i]]);
                    line L = line_fit(&r, i == 0, 1);
                    if (!L.ok)
                        continue;
                    double v = dp[(k - 1) * W + i] + L.sse;
                    if (v < dp[k * W + j]) {
                        dp[k * W + j] = v;
                        from[k * W + j] = i;
                    }
                }
        for (size_t k = 2; k <= kmax; k++) {
            double sse = dp[k * W + D];
            if (!isfinite(sse))
                continue;
            double bic = N * log(fmax(sse, floor_sse) / N) +
                         o.seg_penalty * (3.0 * (double)k - 1.0) * log(N);
            if (!(bic < best_bic))
                continue;
            /* rebuild the segments, then their boundaries */
            size_t cut[CT_P2P_MAX_SEG + 1];
            cut[k] = D;
            for (size_t q = k; q >= 1; q--)
                cut[q - 1] = from[q * W + cut[q]];
            ct_p2p_curve c;
            memset(&c, 0, sizeof c);
            c.nseg = k;
            for (size_t q = 0; q < k; q++) {
                sums r = sums_sub(&pre[st[cut[q + 1]]], &pre[st[cut[q]]]);
                line L = line_fit(&r, q == 0, 1);
                c.seg[q].alpha = L.a;
                c.seg[q].beta = L.b;
                c.seg[q].from = s[st[cut[q]]].m;
            }
            c.seg[0].from = 0;
            for (size_t q = 1; q < k; q++) {
                /* where the two lines cross, kept between the lower segment's
                 * largest measured size (exclusive) and the upper's smallest,
                 * so every measured size stays with the line fitted to it */
                double lo = s[st[cut[q]] - 1].m, hi = c.seg[q].from;
                double db = c.seg[q - 1].beta - c.seg[q].beta;
                double x = db != 0 ? (c.seg[q].alpha - c.seg[q - 1].alpha) / db : NAN;
                if (isnan(x))
                    x = hi;
                c.seg[q].from = fmin(hi, fmax(x, nextafter(lo, INFINITY)));
            }
            if (ct_p2p_check(&c, "piecewise fit", NULL) < 0)
                continue;
            /* the largest sizes' segment is the curve's bandwidth: held flat
             * (times not growing there), it has none */
            if (!(c.seg[k - 1].beta > CT_P2P_FLAT_BETA))
                continue;
            best_bic = bic;
            *out = c;
        }
    }
    if (!(best_bic < INFINITY)) {
        /* not even several segments: the papers' line's reason */
        ct_err_set(err, "%s", line_err.msg);
        goto out;
    }
    if (diag && (out->nseg > 1 || weighted)) {
        double mean = 0, ssr = 0, sst = 0, maxrel = 0, sumrel = 0;
        for (size_t i = 0; i < n; i++)
            mean += s[i].t;
        mean /= N;
        for (size_t i = 0; i < n; i++) {
            double e = ct_p2p_time(out, s[i].m) - s[i].t;
            ssr += e * e;
            sst += (s[i].t - mean) * (s[i].t - mean);
            maxrel = fmax(maxrel, fabs(e) / s[i].t);
            sumrel += fabs(e) / s[i].t;
        }
        diag->npoints = n;
        diag->r2 = sst > 0 ? 1.0 - ssr / sst : (ssr == 0 ? 1.0 : 0.0);
        diag->rmse = sqrt(ssr / N);
        diag->max_rel_err = maxrel;
        diag->mean_abs_rel_err = sumrel / N;
        /* the papers' line's warnings (clamped alpha) do not apply to this curve */
        diag->warning[0] = '\0';
        if (out->nseg == 1 && one_clamped)
            snprintf(diag->warning, sizeof diag->warning,
                     "least squares gave a negative start-up time: alpha clamped to 0 and "
                     "beta refitted through the origin");
        if (n < 4)
            snprintf(diag->warning + strlen(diag->warning),
                     sizeof diag->warning - strlen(diag->warning), "%s%s",
                     diag->warning[0] ? "; " : "",
                     "fewer than 4 samples: alpha and beta are poorly constrained");
    }
    if (segdiag) {
        memset(segdiag, 0, CT_P2P_MAX_SEG * sizeof *segdiag);
        for (size_t q = 0; q < out->nseg; q++) {
            double lo = out->seg[q].from;
            double hi = q + 1 < out->nseg ? out->seg[q + 1].from : INFINITY;
            size_t i0 = 0, i1;
            while (i0 < n && s[i0].m < lo)
                i0++;
            for (i1 = i0; i1 < n && s[i1].m < hi; i1++)
                ;
            if (i1 > i0)
                seg_diag(s, sig, i0, i1, out, weighted, &segdiag[q]);
        }
    }
    rc = 0;
out:
    free(s);
    free(st);
    free(pre);
    free(sig);
    free(dp);
    free(from);
    return rc;
}
