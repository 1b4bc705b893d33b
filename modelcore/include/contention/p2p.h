/* Piecewise point-to-point model: Hockney (papers 000/002 §III, T = alpha +
 * m*beta) with its own (alpha_k, beta_k) per message-size range.
 *
 * This project's extension, after SimGrid's piecewise-linear network factors:
 * a measured ping-pong curve bends (eager/rendezvous switch, token-bucket
 * burst, TCP windows) and one straight line fitted from 1 B to 4 MB misses
 * both ends. With one segment it is exactly the Hockney model.
 *
 * Every model that needs alpha and beta for a message of m bytes asks
 * ct_p2p_at() (or ct_fabric_p2p_at() in signatures.h) for them, so a fabric
 * without segments behaves exactly as before.
 */
#ifndef CONTENTION_P2P_H
#define CONTENTION_P2P_H

#include <stddef.h>

#include "contention/error.h"
#include "contention/fit.h"

#define CT_P2P_MAX_SEG 8

/* The slope (s/byte) the piecewise fit holds a segment at when its times do
 * not grow with the size (small messages the latency sets): 1 TB/s, faster
 * than any copy, so the segment is its alpha and stays a Hockney line with
 * beta > 0 (session 21; hockney_piecewise.c). */
#define CT_P2P_FLAT_BETA 1e-12

/* Segment k applies to sizes m >= from (bytes) up to the next segment's from.
 * seg[0].from is 0. alpha of a segment k >= 1 may be negative (a burst
 * allowance: the line only has to be positive over its own range). */
typedef struct ct_p2p_seg {
    double from;  /* bytes */
    double alpha; /* s */
    double beta;  /* s/byte */
} ct_p2p_seg;

/* nseg = 0: no curve (callers then use their single alpha, beta). */
typedef struct ct_p2p_curve {
    size_t nseg;
    ct_p2p_seg seg[CT_P2P_MAX_SEG];
} ct_p2p_curve;

/* The curve's alpha (s) and beta (s/byte) for a message of m bytes: those of
 * the last segment whose `from` <= m. With nseg = 0, alpha = beta = 0. */
void ct_p2p_at(const ct_p2p_curve *c, double m, double *alpha, double *beta);
/* Hockney time of m bytes on the curve: alpha_k + m*beta_k (000 §III). */
double ct_p2p_time(const ct_p2p_curve *c, double m);
/* A one-segment curve holding (alpha, beta). */
void ct_p2p_single(ct_p2p_curve *c, double alpha, double beta);
/* Check a curve: 1 <= nseg <= CT_P2P_MAX_SEG, seg[0].from = 0, `from`
 * strictly ascending and finite, alpha finite (>= 0 for segment 0), beta > 0
 * and finite, alpha + from*beta > 0 for every later segment. `what` opens
 * the message. */
int ct_p2p_check(const ct_p2p_curve *c, const char *what, ct_err *err);

/* The sustained-rate curve of a fitted ping-pong curve (our extension).
 * A token bucket lets a message that follows an idle link pass its first B
 * bytes at memory speed; a ping-pong (one message per idle period) measures
 * that, and its fitted top segment then has a negative intercept: for large m
 * t = -B*beta_top + m*beta_top (+ latency), B = the burst. Traffic that keeps
 * the link busy (an Alltoall's or a pattern's repeated messages) finds the
 * bucket empty and runs at the line rate. When the top segment's alpha is
 * negative, *out is one segment (seg[0].alpha, top beta) - the latency of the
 * smallest sizes and the line rate for every size - and *burst (may be NULL)
 * = -alpha_top / beta_top bytes; otherwise *out = *c and *burst = 0.
 * Limit: any negative top intercept is read as a burst. A curve whose large
 * messages are slower per byte than the smaller ones for another reason (a
 * TCP window limit reached only by large messages) has one too, and would be
 * priced at the top rate for every size; calibrate prints the burst it read
 * ("token bucket: ...") so that a site can see it. */
void ct_p2p_sustained(const ct_p2p_curve *c, ct_p2p_curve *out, double *burst);

/* A back-to-back ping-pong's own refill (our extension, session 49's
 * mechanism, doc/accuracy-notes.md "Session 49"; under trial, session 50).
 * On a link shaped by a token bucket of B bytes at r bytes/s each direction
 * sits idle while the other sends and its bucket refills meanwhile, so a
 * message of m bytes takes
 *   t(m) = alpha + max(m / (2 r), (m - B) / r)
 * one way: m / (2 r) while m <= 2B, (m - B) / r beyond (the sustained line
 * of ct_p2p_sustained). A ping-pong reads the line rate and the bucket off
 * its top segment only where its largest sizes are above 2B; calibrate's
 * stop at 2 MiB, so a bucket above 256 KiB reads as up to twice the line
 * rate and too small a burst. This fits the curve above to the samples of
 * m >= CT_P2P_REFILL_FROM with alpha given (the latency, the fitted curve's
 * seg[0].alpha): B on a CT_P2P_REFILL_GRID grid (or one of at most
 * CT_P2P_REFILL_STEPS values) from 0 to below half the
 * largest size (from there every size is within 2B, a line at twice the
 * rate that B = 0 gives as well: no sizes tell such a bucket), beta = 1/r
 * by least squares on relative errors (weights 1/t^2) for each B, the B of
 * the least sum of squares. Returns 1 with *beta and *bucket where B is
 * above half the third-largest distinct size (one of the three largest
 * sizes lies within 2B: the piecewise top segment misreads) and the bend
 * shows in the largest size beyond its noise ((top/2 - B) / (top - B), the
 * share of its time by which the two branches differ there, above twice
 * max(its spread, CT_P2P_REFILL_NOISE)); 0 otherwise, where fewer than
 * three distinct sizes of m >= CT_P2P_REFILL_FROM have t > alpha, or where
 * more than CT_P2P_REFILL_MAX_SAMPLES samples do (*beta, *bucket
 * untouched). */
#define CT_P2P_REFILL_FROM (256.0 * 1024.0)
#define CT_P2P_REFILL_GRID 4096.0
#define CT_P2P_REFILL_NOISE 0.02
/* the grid's most values of B (a coarser grid than CT_P2P_REFILL_GRID only
 * for a largest size above 512 MiB) and the most samples of m >=
 * CT_P2P_REFILL_FROM read (more: nothing is read), so that the fit's work
 * stays bounded whatever a file holds */
#define CT_P2P_REFILL_STEPS 65536.0
#define CT_P2P_REFILL_MAX_SAMPLES 4096
int ct_p2p_refill_read(const ct_p2p_sample *s, size_t n, double alpha, double *beta,
                       double *bucket);
/* The sustained curve calibrate and ct-accuracy-eval price with, one rule for
 * both: ct_p2p_sustained of the fitted curve c, and with refill
 * (ct_calib_opts.pingpong_refill) where ct_p2p_refill_read takes the samples
 * s (n) read with c's seg[0].alpha, one segment of that latency and the line
 * rate read, *burst (may be NULL) its bucket. Returns 1 where the refill
 * reading was taken, else 0. */
int ct_p2p_sustained_read(const ct_p2p_curve *c, const ct_p2p_sample *s, size_t n, int refill,
                          ct_p2p_curve *out, double *burst);

/* Per-segment diagnostics of a piecewise fit. */
typedef struct ct_p2p_seg_diag {
    size_t npoints;     /* samples in the segment */
    double m_lo, m_hi;  /* smallest and largest measured size in it, bytes */
    double r2;          /* coefficient of determination within the segment */
    double max_rel_err; /* max |pred - meas| / meas within the segment */
    double max_spread;  /* largest relative spread (t - t_min) / t of a sample in it
                           (0: no sample knows its spread) */
    double max_err_spread; /* max |pred - meas| / meas in units of each sample's own
                              spread (max(spread, spread_floor)); 0 unweighted. About 1
                              or less: the segment fits within its measurement noise */
} ct_p2p_seg_diag;

typedef struct ct_p2p_fit_opts {
    size_t max_seg;      /* at most this many segments (1 .. CT_P2P_MAX_SEG); default 4 */
    double seg_penalty;  /* BIC penalty multiplier per parameter; default 1 (plain BIC) */
    double noise_floor;  /* relative noise floor of the residuals (default 0.005): a curve
                            fitted better than this gains nothing from more segments */
    double spread_floor; /* > 0 (default 0.02): weight each sample by its repetitions'
                            spread, as fit_alltoall.h does (relative standard deviation
                            taken as max(spread, spread_floor)); 0: the papers' relative
                            weights 1/t^2 only */
} ct_p2p_fit_opts;

void ct_p2p_fit_opts_default(ct_p2p_fit_opts *o);

/* Relative spread of one ping-pong sample: (t - t_min) / t, 0 when t_min is
 * unknown (0) or not below t. */
double ct_p2p_sample_spread(const ct_p2p_sample *s);

/* How far curve c misses the ping-pong samples it was fitted on: the
 * largest |ct_p2p_time(c, m) - t| / t over the samples with m > min_m (and
 * m > 0) whose own spread (ct_p2p_sample_spread) is at most max_spread
 * (every sample when max_spread <= 0), the trust rule of the Alltoall fits'
 * training error (fit_alltoall.h); *at_m (may be NULL) is that sample's
 * size. Returns the number of samples judged (0: *worst = 0). A single
 * Hockney line through a curve that bends (token bucket, eager/rendezvous
 * switch, TCP windows) misses its own large sizes by far more than their
 * spread: calibrate and fit print a WARNING then (our check, issue 12).
 * Where a token bucket was read (ct_p2p_sustained), they pass min_m =
 * 2 x its burst: the hinge at the bucket size is what the sustained line
 * replaces for every prediction, not a miss of it. */
size_t ct_p2p_worst_miss(const ct_p2p_curve *c, const ct_p2p_sample *s, size_t n,
                         double max_spread, double min_m, double *worst, double *at_m);

/* Fit the piecewise model to ping-pong samples. Sizes are grouped by
 * distinct m; one segment needs >= 2 distinct sizes, and each of several
 * segments a contiguous run of >= 3 (so its line is tested by a size it was
 * not forced through). Each segment is a least-squares line on relative errors
 * (weights 1/t^2, like ct_fit_hockney), each divided by the sample's own
 * relative noise sigma_i = max(spread_i, spread_floor) when spreads are known
 * (weights 1/(t sigma_i)^2, inverse variance: a size whose repetitions
 * disagree by 90 % - host noise at small sizes on a loaded host - weighs
 * (0.02/0.9)^2 = 1/2000 of a clean one and no longer chooses the segments);
 * the first segment's alpha is clamped at 0 as ct_fit_hockney does, later
 * ones may be negative. The number of segments K minimises the Bayesian
 * information criterion
 *   N ln(SSE_K / N) + seg_penalty * (3K - 1) ln N
 * (3 parameters per segment: alpha, beta and its boundary) with SSE floored
 * at sum_i (noise_floor / sigma_i)^2 (N * noise_floor^2 unweighted), so
 * noise-free straight data stays one segment. Without any known spread (every
 * t_min = 0) or with spread_floor = 0 the weights are the papers' and K = 1
 * is exactly ct_fit_hockney. t_min must be 0 or in (0, t].
 * Segment boundaries: where the neighbouring lines cross (continuous there),
 * clamped to lie above the lower segment's largest measured size and at most
 * the upper segment's smallest, so every measured size keeps the line fitted
 * to it (a step where the lines cross outside that gap). K = 1 is exactly ct_fit_hockney.
 * Where ct_fit_hockney's line has no positive slope (sizes a token bucket
 * passes free, timed by a loaded host, weighing most: session 37) there is no
 * one-segment candidate but the spread-weighted line, and the fit takes the
 * best of several; it fails, with ct_fit_hockney's reason, only when no curve
 * has a rising top segment (the largest sizes' line held flat has no
 * bandwidth, and is never chosen).
 * diag (may be NULL) gets the overall R^2, RMSE and relative errors;
 * segdiag (may be NULL, CT_P2P_MAX_SEG entries) one entry per segment. */
int ct_fit_hockney_piecewise(const ct_p2p_sample *s, size_t n, const ct_p2p_fit_opts *o,
                             ct_p2p_curve *out, ct_fit_diag *diag, ct_p2p_seg_diag *segdiag,
                             ct_err *err);

#endif
