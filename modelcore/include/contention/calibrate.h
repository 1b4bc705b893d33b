/* Calibration from measurements (`contention-admin calibrate`): which
 * Alltoall samples the signature fit uses and which it holds back, the fit
 * (papers 000/002 §V: alpha, beta from a ping-pong, then gamma, delta, M on
 * ONE configuration), the errors on the held-back samples, and the GigE
 * penalty parameters from the conflict schemes of paper 001 §IV-B/§V-A.
 *
 * No Slurm and no MPI here: the inputs are benchmark outputs already parsed
 * (benchparse.h for ping-pong and Alltoall rows; ct_conflict_parse below for
 * the conflict rows of bench/mpi/ct-mpibench).
 */
#ifndef CONTENTION_CALIBRATE_H
#define CONTENTION_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "contention/alltoall.h"
#include "contention/error.h"
#include "contention/fit.h"
#include "contention/fit_alltoall.h"
#include "contention/p2p.h"
#include "contention/penalty.h"
#include "contention/signatures.h"

typedef struct ct_calib_opts {
    /* The ONE configuration the signature is fitted on, like the paper
     * (000 §VI: 24 machines, one process each): fit_nodes nodes with
     * fit_tasks_per_node tasks each, over the measured sizes. Every other
     * sample is held back for validation. fit_tasks_per_node defaults to 1;
     * fit_nodes = 0 picks the largest node count measured with
     * fit_tasks_per_node tasks per node (the most saturated reference, 000
     * §VI-C's lesson). */
    int32_t fit_tasks_per_node;
    int32_t fit_nodes;
    /* Held-back errors are also summarised over m >= saturated_m (bytes),
     * the saturated regime the paper's error claims are about. */
    double saturated_m;
    /* Intra-node bandwidth (bytes/s) for the layout-aware model; <= 0 ignores it. */
    double intra_bw;
    /* This project's robust calibration (0 = the paper's procedure above):
     * 1 fits the signature with ct_fit_signature_robust (spread weights, M by
     * leave-one-out, the training-error threshold below) on SEVERAL
     * configurations, with gamma(k, f) (alltoall.h): 1 task per node on the
     * smallest and the largest node count, and the largest node count at the
     * smallest number of tasks per node >= 2 that was measured. Every other
     * configuration is held back. fit_nodes / fit_tasks_per_node are ignored. */
    int incast;
    /* Point-to-point: at most this many Hockney segments (p2p.h); 0 or 1 = one
     * line (ct_fit_hockney, the paper's model). */
    size_t p2p_max_seg;
    /* 1: the Alltoall fit, every prediction and the fabric use the sustained
     * curve of the ping-pong fit (ct_p2p_sustained: a token bucket's burst is
     * not granted to back-to-back traffic); the fitted ping-pong curve stays in
     * p2p_pingpong. */
    int sustained;
    /* incast mode: threshold and force of ct_a2a_fit_opts (fit_alltoall.h). */
    double max_fit_err;
    int force;
    /* incast mode: 1 also fits the per-call step of alltoall.h (this project's
     * extension, ct_a2a_fit_opts.call_step), on the saturated range: the fit
     * configurations' samples with m >= saturated_m (ct_a2a_fit_opts.min_m;
     * fit_min_m says which range was used). A step is a constant per call, so
     * the sizes it is read from must be ones whose network time stays well
     * above it. */
    int call_step;
    /* 1 (our extension, session 30; rejected by the rules of sessions 30 and
     * 31, taken in session 43 on the 60 runs measured after that verdict:
     * calibrate --incast sets it, ct-accuracy-eval by default, a2a-refill=off
     * clears it; doc/models-alltoall.md): with
     * sustained and a burst, a token bucket's refill before each Alltoall
     * call (phase_time.h ct_refill_dt) is taken out of the samples before
     * the signature is fitted, so that the signature prices a call that
     * paused as long as calibrate's 2 x 1 calls (ct_fit_duplex's pause, the
     * signature's p2p.bucket_pause), as the exchange step does; every point
     * is then predicted at its configuration's pause (the median of its
     * samples' ct_a2a_sample.pause from saturated_m up). Samples without a
     * recorded pause are taken as they are. */
    int refill;
    /* 1 (our extension, session 50; what calibrate --incast and `fit` set
     * by default since session 54, doc/accuracy-runs/rules-s54.txt): with
     * sustained, where the ping-pong's own refill shows
     * (ct_p2p_refill_read: one of its three largest sizes within twice the
     * bucket), the sustained curve is the line rate that reading gives (the
     * latency kept) and burst its bucket, in place of ct_p2p_sustained's top
     * segment. ct_calib_opts_default leaves it 0: the papers' procedure. */
    int pingpong_refill;
    /* 1 (our extension, session 69; calibrate --incast-intercept; taken
     * in-sample by doc/accuracy-runs/rules-s69.txt, not by rules-s69b.txt's
     * new shapes, so not the default): in incast mode with call_step, the
     * signature also gets the incast intercept call_incast of alltoall.h
     * (ct_a2a_fit_opts.call_incast); the duplex pattern model's terms are
     * read off the same fit without it (ct_calib_result.sig_duplex), so the
     * patterns are priced as without it. */
    int call_incast;
} ct_calib_opts;

/* fit_tasks_per_node 1, fit_nodes 0, saturated_m 128 KiB, intra_bw 0; the
 * paper's procedure (incast 0, one p2p line, no call step), max_fit_err 0.15,
 * force 0. */
void ct_calib_opts_default(ct_calib_opts *o);

/* One Alltoall sample after the fit. */
typedef struct ct_calib_point {
    int32_t nodes;
    int32_t tasks_per_node;
    double m;            /* bytes per destination */
    double measured;     /* s */
    double predicted;    /* s, layout-aware eq. 5 (ct_a2a_uniform) */
    double bound;        /* s, contention-free bound of the same layout */
    double rel_err;      /* (predicted - measured) / measured */
    int held;            /* 1: held back (not used by the fit) */
    double spread;       /* the repetitions' spread (t - t_min) / t, 0 when unknown
                            (ct_a2a_sample_spread) */
} ct_calib_point;

/* Absolute relative errors over a set of points. */
typedef struct ct_calib_summary {
    size_t n;
    double median_abs;
    double mean_abs;
    double max_abs;
    /* Over the nspread of them whose repetitions' spread is known (> 0;
     * session 60): the median spread, and how many missed by more than their
     * own spread (beyond_spread). An error within a point's spread is no
     * larger than its own repetitions differ, which more repetitions narrow;
     * one beyond it is not that: the model's, or a regime the whole run
     * shared (the TCP incast timeouts one run meets and another does not). */
    size_t nspread;
    double median_spread;
    size_t beyond_spread;
} ct_calib_summary;

/* A held-back configuration with more remote flows through the busiest NIC
 * than any configuration fitted on (incast mode; our extension, session 17):
 * the signature prices it with gamma(k, f) held at the fitted f (alltoall.h),
 * so its measured error says whether more flows cost more on this network
 * than the signature can say (shallow queues: losses recovered by
 * retransmission timeouts, doc/accuracy-notes.md). */
typedef struct ct_calib_beyond {
    int32_t nodes, tasks_per_node;
    double flows;      /* f = t (n t - t): remote messages through the busiest NIC */
    size_t n;          /* its points with m >= saturated_m */
    double median_err; /* signed median of their rel_err ((predicted - measured) / measured) */
} ct_calib_beyond;

#define CT_CALIB_BEYOND_MAX 8

typedef struct ct_calib_result {
    double alpha, beta;            /* Hockney, from the ping-pong */
    ct_fit_diag p2p_diag;
    ct_a2a_sig sig;                /* fitted on the fit set only */
    /* the signature the duplex model's incast and flows terms are read off
     * (ct_duplex_set_terms): sig fitted without the incast intercept where
     * call_incast asked for it (ct_calib_opts), else sig itself */
    ct_a2a_sig sig_duplex;
    /* why the incast intercept asked for (ct_calib_opts.call_incast) is not
     * in sig: the fit with it refused, its message; "" where it was not
     * asked for or its fit was kept (the front ends warn with it); also
     * where ct_calibrate_alltoall fails, the fit without it refused too */
    char call_incast_refused[CT_ERR_MAX];
    ct_fit_diag a2a_diag;          /* diagnostics of the fit set */
    int32_t fit_tasks_per_node;    /* the configuration fitted on */
    int32_t fit_nodes;
    size_t npoints;                /* every Alltoall sample, in input order */
    ct_calib_point *points;
    size_t nfit, nheld;
    /* the point-to-point curve every prediction used (one segment = alpha, beta) */
    ct_p2p_curve p2p;
    ct_p2p_seg_diag p2p_seg[CT_P2P_MAX_SEG];
    /* the fitted ping-pong curve (p2p_seg describes it) and the token-bucket
     * burst it shows (bytes; 0 = none, or sustained not asked): with
     * opts.sustained and a burst, p2p is its sustained curve */
    ct_p2p_curve p2p_pingpong;
    double burst;
    /* 1 where opts.pingpong_refill replaced the sustained curve and the
     * burst with ct_p2p_refill_read's line rate and bucket */
    int p2p_refill;
    /* opts.refill: the bucket (bytes, = burst) and calibrate's 2 x 1 calls'
     * median pause (s) the Alltoall samples were brought to; 0, 0 when no
     * refill was taken out (no burst, or no pauses recorded) */
    double refill_bucket, refill_pause;
    size_t nrefill; /* fit samples whose time was changed (pause recorded) */
    /* incast mode: the robust fit's report and the configurations fitted on */
    int incast;
    ct_a2a_fit_report a2a_rep;
    size_t nfit_cfg;
    int32_t fit_cfg[8][2];        /* nodes, tasks per node */
    double fit_min_m;              /* bytes: the smallest size fitted on (0: every size) */
    /* incast mode: the incast-loss term's bounds (alltoall.h gamma_loss,
     * ct_calib_loss_bounds over the fitted samples); 0, 0 without the step */
    double loss_min_f, loss_max_f;
    ct_calib_summary held_all;     /* over every held-back point */
    ct_calib_summary held_saturated; /* over held-back points with m >= saturated_m */
    /* incast mode: the most remote flows a NIC among the fit configurations,
     * and the held-back configurations beyond it (largest f first) */
    double fit_flows_max;
    size_t nbeyond;
    ct_calib_beyond beyond[CT_CALIB_BEYOND_MAX];
} ct_calib_result;

/* The incast many-flow step among samples a (session 24; calibrate's
 * 3 nodes x T), where the flows into a port come from two senders or more at
 * once: among the samples marked as the step (ct_a2a_sample.incast_step, on
 * 3 nodes or more; session 59: on a 3-node cluster the step lies on the
 * largest node count) the configuration with the most remote flows a port;
 * without marked samples, a node count strictly between the smallest and the
 * largest measured, at more tasks per node than the largest node count was
 * measured with, the one with the most remote flows a port. Returns 1 with
 * its nodes and tasks per node, 0 when the samples hold none. */
int ct_calib_incast_step(const ct_a2a_sample *a, size_t n, int32_t *nodes, int32_t *tpn);
/* The incast-loss term's flow bounds (alltoall.h loss_min_f, loss_max_f)
 * over the samples a fit takes: f0 the most remote flows a port among its
 * configurations on 3 nodes or more other than the incast many-flow step,
 * at least 1, f1 the step's. Returns 1 with both when the samples hold the
 * step and f1 > f0; else 0 with both 0 (no such term). One rule for
 * calibrate's fit and `fit --incast`. */
int ct_calib_loss_bounds(const ct_a2a_sample *fit, size_t n, double *f0, double *f1);

/* 1 when sample s belongs to the fit configuration. */
int ct_calib_in_fit(const ct_a2a_sample *s, int32_t fit_tasks_per_node, int32_t fit_nodes);
/* 1 when sample s belongs to a configuration r was fitted on (either mode). */
int ct_calib_result_in_fit(const ct_calib_result *r, const ct_a2a_sample *s);
/* The refill (s) a call of sample s's configuration got beyond calibrate's
 * 2 x 1 calls' (opts.refill), its configuration's pause read over all (n
 * samples, sizes from min_m up): what calibrate takes off a point it prices
 * (ct_calib_point.predicted) where r has a refill_bucket; 0 otherwise. For
 * a configuration priced outside the fit's sample set (ct-accuracy-eval
 * fit-max-nodes=). */
double ct_calib_a2a_refill(const ct_calib_result *r, const ct_a2a_sample *s,
                           const ct_a2a_sample *all, size_t n, double min_m);

/* Fit alpha, beta on p2p, split a2a into the fit configuration and the
 * held-back rest, fit the signature on the former and predict every
 * sample. Samples with m = 0 carry no bandwidth term and are skipped.
 * Fails (-1, message) when a fit fails or the fit configuration has fewer
 * than 4 samples. r is zeroed first; free it with ct_calib_result_free. */
int ct_calibrate_alltoall(const ct_p2p_sample *p2p, size_t np2p, const ct_a2a_sample *a2a,
                          size_t na2a, const ct_calib_opts *o, ct_calib_result *r, ct_err *err);
void ct_calib_result_free(ct_calib_result *r);

/* Summary of |rel_err| over the points with held == `held` and m >= min_m,
 * with their spreads (ct_calib_summary). */
ct_calib_summary ct_calib_summarise(const ct_calib_point *p, size_t n, int held, double min_m);

/* --- conflict schemes (paper 001 §IV-B) --- */

#define CT_SCHEME_NAME_MAX 32
#define CT_CONFLICT_REPS_MAX 256 /* repetition times kept per communication */

/* One communication of a measured conflict scheme: its time at the sender
 * (bench/mpi/ct-mpibench conflict rows, detail NAME:LABEL:SRC>DST). */
typedef struct ct_conflict_sample {
    char scheme[CT_SCHEME_NAME_MAX];
    char label[8];
    int32_t src, dst;    /* node indices within the scheme; src == dst: intra-node */
    double m;            /* bytes */
    double t;            /* s, average */
    int32_t nrep;        /* repetition times in rep[] (0: the file gave none) */
    double rep[CT_CONFLICT_REPS_MAX]; /* s, each repetition's, in the order run */
} ct_conflict_sample;

/* Parse the conflict rows of a ct-mpibench CSV (header naming at least
 * benchmark, size_bytes, t_avg_s and detail; '#' lines are comments; rows of
 * other benchmarks are skipped). A '# times: T1 T2 ...' comment gives the
 * repetitions' times of the next row (each finite and > 0, at most
 * CT_CONFLICT_REPS_MAX; files without it parse as before, nrep 0). Appends
 * to *out (realloc'd), count in *n.
 * Errors: "NAME:LINE: what is wrong (what is accepted)". */
int ct_conflict_parse(const char *name, const char *buf, size_t len, ct_conflict_sample **out,
                      size_t *n, ct_err *err);

/* Scheme names ct_calibrate_gige understands: "ref" (0>1 alone, T_ref),
 * "out2", "out3", ... (0>1, 0>2, ...: pure outgoing conflicts, 001 Fig. 2),
 * "in2", "in3", ... (1>0, 2>0, ...), "fig4" (a:0>1 b:0>2 c:0>3 d:4>2 e:5>3
 * f:6>3, 001 Fig. 4), "mix4" (a:0>1 b:0>2 c:3>2: Fig. 4's in-out conflict on 4
 * nodes, this project's scheme: a is an outgoing communication of a
 * 2-sender whose other destination is busier, c an incoming one of a
 * 2-receiver whose other source is busier, so 001 §V-A gives
 * p(a) = 2 beta (1 - gamma_o), p(c) = 2 beta (1 - gamma_i)) and "intra"
 * (0>0, intra-node). */
#define CT_MAX_SCHEME_COMMS 16

typedef struct ct_calib_scheme_check {
    char scheme[CT_SCHEME_NAME_MAX];
    char label[8];
    double measured_penalty;     /* t / t_ref */
    double predicted_penalty;    /* progressive GigE model (progressive.h) */
} ct_calib_scheme_check;

typedef struct ct_calib_gige {
    double m;                    /* message size of the schemes */
    double t_ref;                /* s, 0>1 alone */
    size_t nout;                 /* pure outgoing conflicts measured */
    int k[CT_MAX_SCHEME_COMMS];
    double penalty[CT_MAX_SCHEME_COMMS]; /* mean penalty of the k communications (after the
                                          * overlap floor of ct_calibrate_gige_ex, if any) */
    double penalty_measured[CT_MAX_SCHEME_COMMS]; /* the same before the floor */
    /* overlap floor (ct_calibrate_gige_ex; 0 = not applied): the NIC capacity
     * used, bytes/s, and the floor per communication, penalty(k) >= k * unit */
    double nic_rate, floor_unit;
    double overlap_rate;         /* opts.nic_rate as given (bytes/s) */
    int nfloored;                /* out-k schemes raised to the floor */
    /* 001 §V-A's β, γ_i, γ_o (dimensionless), named as in ct_penalty_model
     * (CT_GIGE_SHARE, _SKEW_IN, _SKEW_OUT): in C "beta" is Hockney's s/byte */
    double share, skew_in, skew_out;
    int has_gammas;              /* 0 when fig4/mix4 was not measured or did not fit: gammas 0 */
    char gamma_scheme[CT_SCHEME_NAME_MAX]; /* "fig4" or "mix4": where the gammas came from */
    /* 1: a measured in-out conflict costs more than the model can express
     * (t_a or t_f above k*share*t_ref: a skew would be negative); the skews
     * are then 0 and the GigE model UNDERESTIMATES such conflicts */
    int gamma_out_of_range;
    double t_a_ratio, t_f_ratio; /* measured t_a / t_ref, t_f / t_ref */
    double gamma_top_ratio;      /* k*share: the largest ratio the model expresses */
    char note[CT_ERR_MAX];       /* why has_gammas is 0, "" otherwise */
    double intra_bw;             /* bytes/s from "intra", 0 when not measured */
    size_t nchecks;              /* held-back communications (in-k, fig4 b..e) */
    ct_calib_scheme_check checks[4 * CT_MAX_SCHEME_COMMS];
    ct_calib_summary check_err;  /* |predicted - measured| / measured penalty */
} ct_calib_gige;

/* The intra-node readings of ct-mpibench pattern rows (halves only; other
 * patterns are skipped):
 *  - all = 0: rows run on ONE node (nodes = 1): bw = tasks*m / t at the
 *    largest size, how the MPI library really moves one node's concurrent
 *    intra-node messages (the model's intra time is intra bytes / this);
 *  - all = 1 (our extension, session 55): the same halves on every node at
 *    once, rows with nodes >= 2, an even task count per node and detail
 *    halves:cyclic (each pair within a node): bw is the rate at which all the
 *    nodes together copy, nodes the row's node count.
 * And the path as a Hockney line (our extension, session 57; 000 §3's
 * alpha + m beta applied to the MPI library's intra-node transfers): where
 * the text holds one task count at two sizes or more, the line
 * t = alpha + X / line_bw through them (X = tasks x m, all tasks' bytes;
 * least squares over the sizes, each size's rows averaged; the task count
 * with the most tasks is read). No line (line_bw 0, alpha 0) with fewer than
 * two sizes, or where the slope or the intercept is not positive: the path is
 * then priced at bw alone, as before. Returns 0, 1 when the text holds no
 * such row (*r all zero), -1 on a malformed row (the message names the file,
 * line and value). */
typedef struct ct_intra_reading {
    double bw;      /* bytes/s at the largest size (the rows' last there) */
    double bytes;   /* that row's tasks x m: bw's time is bytes / bw */
    int nodes;      /* that row's node count */
    double alpha;   /* the line's intercept, s */
    double line_bw; /* the line's rate, bytes/s; 0: no line */
    int line_tasks; /* the task count the line was read on, 0: none */
    int line_sizes; /* its distinct sizes */
} ct_intra_reading;
int ct_intra_read(const char *name, const char *buf, size_t len, int all, ct_intra_reading *r,
                  ct_err *err);

/* Nodes that copy at once share one capacity when the rate all of them got
 * together (all_bw, on `nodes` nodes) is below CT_INTRA_SHARED_BELOW x nodes x
 * one node's rate alone (one_bw): the fabric's intra_shared_bw (signatures.h)
 * is then all_bw, else 0 (the nodes copy independently, as real nodes do, and
 * the model is left as it was). Our extension, session 55. */
#define CT_INTRA_SHARED_BELOW 0.75
double ct_intra_shared(double one_bw, double all_bw, int nodes);

/* Estimate beta (001 §V-A: mean of penalty(k)/k over out-k), gamma_o and
 * gamma_i (from fig4's a and f, else mix4's a and c) and check the model on the communications
 * not used: in-k and fig4's b, c, d, e. Needs "ref" and at least one out-k
 * with k >= 2; all schemes must share one message size. */
int ct_calibrate_gige(const ct_conflict_sample *c, size_t n, ct_calib_gige *g, ct_err *err);

/* The overlap floor (our extension of 001 §V-A's estimation): the out-k
 * schemes' k communications leave one NIC from k different processes, whose
 * starts are staggered on a loaded host; each is timed from its own start,
 * so a late one meets fewer competitors and the measured penalties come out
 * below what k communications started together pay (two flows out of a
 * token-bucket-shaped NIC measured 1.73 x T_ref, 13 % faster than the bucket
 * can pass them). A NIC cannot pass k messages of m bytes faster than its
 * capacity R: started together, the last ends >= k m / R after the start.
 * R = max(m / T_ref, nic_rate): what one communication alone and
 * overlapped communications demonstrably got through one NIC. With
 * nic_rate > 0, each penalty(k) is raised to at least
 * k * (m / T_ref) / R (floor_unit = (m / T_ref) / R <= 1; Hockney's alpha,
 * under 0.5 % of T_ref at the conflict size, is neglected), before beta and
 * the gammas are fitted. nic_rate = 0: no floor (= ct_calibrate_gige). */
typedef struct ct_calib_gige_opts {
    double nic_rate;   /* bytes/s, e.g. ct_nic_overlap_rate(); 0 = unknown */
} ct_calib_gige_opts;
int ct_calibrate_gige_ex(const ct_conflict_sample *c, size_t n, const ct_calib_gige_opts *o,
                         ct_calib_gige *g, ct_err *err);

/* What one NIC demonstrably carried with overlapped communications: the
 * largest (N - 1) m / t over the Alltoall samples on N >= 3 nodes with one
 * task per node, where one process posts its N - 1 sends at once (they start
 * together by construction). t is the sample's mean time; the receives of
 * the same NIC and any uplink crossed only lower it (then m / T_ref decides
 * in ct_calibrate_gige_ex). 0 when no such sample. */
double ct_nic_overlap_rate(const ct_a2a_sample *s, size_t n);

/* --- duplex coupling δ of the duplex fair-share model (our extension,
 * penalty_duplex.c) --- from the 2-node, 1-task-per-node Alltoall calibrate
 * measures anyway: the two nodes each send m to the other at once. Over the
 * samples with m >= min_m, that exchange takes
 *
 *     t(m) = c + (1 + δ)·T_alone(m)
 *
 * (session 15): δ, a sharing of bandwidth, is read from the slope (the least
 * squares time per added byte against the curve's over the same sizes), and
 * c, the exchange's fixed cost, from what is left at the intercept: > 0 a
 * per-exchange cost of host and MPI progress, < 0 the part of a token bucket
 * refilled between exchanges (ct_fabric.exchange, score.c). With fewer than
 * two distinct sizes (sloped = 0): δ = median of t / T_alone - 1, c = 0 (the rule before
 * session 15). δ is clamped to [0, 1]; needs at least one such sample (-1
 * and a message otherwise). lo, hi: the per-sample t / T_alone - 1.
 *
 * The long exchange (session 28, our extension): calibrate measures 2 x 1
 * also beyond the largest size of every other configuration, m_L (the
 * ping-pong's 1 and 2 MiB). Those points are left out of the line and read
 * as a hinge at m_L,
 *
 *     t(m) = c + (1 + δ)·T_alone(m) + λ·(T_alone(m) - T_alone(m_L)),  m > m_L
 *
 * λ by least squares on what the line leaves (CT_DUPLEX_LONG, clamped to
 * [-1, 1]; the scorer prices a phase whose largest message is beyond m_L with
 * ct_duplex_long_delta); it needs two sizes or more beyond m_L (one would set
 * it from a single mean: λ = 0, nlong = 0, those points still out of the
 * line). Below m_L nothing changes, so small messages keep the line fitted
 * where they are. No 2 x 1 point beyond m_L, or no other configuration to
 * set it: λ = 0, every point in the line (the rule before). */
typedef struct ct_duplex_fit {
    double delta;      /* the coupling written into the signature */
    double raw;        /* δ before clamping */
    double lo, hi;     /* smallest and largest t / T_alone - 1 over the line's samples */
    double exchange;   /* c, s (0 with fewer than two distinct sizes): the step of a
                        * phase priced alpha + (1 + δ) m beta + c, the latency outside
                        * the penalty (our extension, session 56; phase_time.c) */
    double exchange_penalized; /* c of the line c + (1 + δ)(alpha + m beta), the
                                * latency inside it (001 §IV-B's T = p T_alone; the
                                * model before session 56): exchange - δ alpha */
    double alpha;      /* the curve's alpha at the line's largest size, s */
    size_t nused;      /* the line's samples */
    int sloped;        /* 1: δ and c from the slope; 0: one size (or a flat curve), the median */
    double long_delta; /* λ (0: none) */
    double long_from;  /* m_L, bytes (0: none) */
    double long_hi;    /* the largest t / T_alone - 1 beyond m_L */
    size_t nlong;      /* the samples beyond m_L */
    /* the median of the line's samples' pauses (ct_a2a_sample.pause), s:
     * the idle time before each call, whose token-bucket refill c holds
     * (signatures.h ct_fabric.bucket_pause; session 29); 0 when any of them
     * was not recorded */
    double pause;
} ct_duplex_fit;
int ct_fit_duplex(const ct_p2p_curve *curve, const ct_a2a_sample *a2a, size_t n, double min_m,
                  ct_duplex_fit *out, ct_err *err);
/* m_L of the long exchange (session 28): the largest size measured at any
 * configuration other than 2 x 1 (0: none). The 2 x 1 points beyond it are
 * left out of the Alltoall signature's fit (ct_calibrate_alltoall) and read
 * by ct_fit_duplex as the long exchange. */
double ct_a2a_long_from(const ct_a2a_sample *a2a, size_t n);
/* The duplex terms' exchange read off the 2 x 1 exchange posted as the
 * patterns post theirs (our extension, session 53; doc/models-penalty.md,
 * "The exchange the duplex terms are read off"): the patterns post an
 * MPI_Irecv and an MPI_Isend to each peer and wait once, and the fixed time of
 * a step of theirs is not the MPI_Ialltoall's (doc/accuracy-notes.md, sessions
 * 46 and 53). Writes into out (room for n + nposted samples) a2a's samples
 * other than the 2 x 1 (2 nodes, 1 task each) followed by posted's 2 x 1
 * samples of m <= xmax, and returns how many; where posted has no such
 * sample, a2a unchanged. *nused (may be NULL): posted's samples taken. */
size_t ct_a2a_with_posted_exchange(const ct_a2a_sample *a2a, size_t n,
                                   const ct_a2a_sample *posted, size_t nposted, double xmax,
                                   ct_a2a_sample *out, size_t *nused);
/* The 2 x 1 Alltoall's saturated sizes on the call's fixed time (our
 * extension, session 51; doc/calibration.md "Saturated sizes on the call's
 * floor"). A call takes at least a fixed time the host sets (calibrate's
 * polled waits: about 2.4-2.9 ms a call on the emulated clusters at 32 and
 * 64 KiB wherever the link does not set it); where the link moves a
 * saturated size, less a token bucket's credit, in less than that, the
 * size's time is that floor,
 * the line through the saturated sizes bends and the fit reads gamma low and
 * gamma_incast / gamma high. Over the 402 kept networks of doc/accuracy.md,
 * the 30 whose 2 x 1 shows it met the 8 % goal on 6.
 * Finds the 2 x 1 sample (2 nodes, 1 task each) of the smallest size m >=
 * min_m and the 2 x 1's smallest size m0 < min_m; returns 1 with them in
 * *out where the first took at most ratio x the second (mean times), 0
 * otherwise (also where either is missing or ratio is not > 0). */
typedef struct ct_a2a_call_floor {
    double m, t;   /* the smallest saturated size and its mean time, s */
    double m0, t0; /* the 2 x 1's smallest size and its mean time, s */
} ct_a2a_call_floor;
int ct_a2a_on_call_floor(const ct_a2a_sample *a2a, size_t n, double min_m, double ratio,
                         ct_a2a_call_floor *out);
/* The ratio calibrate and fit warn at (1.10: within the repetitions' usual
 * spread of the floor) */
#define CT_A2A_CALL_FLOOR_RATIO 1.10
/* The long-exchange term of a duplex fit into a duplex model: CT_DUPLEX_LONG
 * = λ and CT_DUPLEX_LONG_FROM = m_L, both 0 when none was fitted. */
void ct_duplex_set_long(ct_penalty_model *m, const ct_duplex_fit *dx);
/* The bucket's refill (session 29) into a fabric: bucket = burst (the
 * ping-pong's, ct_p2p_sustained) and bucket_pause = the 2 x 1 calls' median
 * pause, where the duplex fit has that pause and a burst was read; both 0
 * otherwise (no term). One rule for calibrate and ct-accuracy-eval. */
void ct_duplex_set_bucket(ct_fabric *f, const ct_duplex_fit *dx, double burst);

/* The token bucket an exchange gets free after a full refill (our
 * extension, session 29; signatures.h ct_fabric.bucket). calibrate measures
 * the 2 x 1 exchange twice: with the benchmark's own short pause p_n before
 * each call (the Alltoall 2 x 1 step) and after an idle long enough to refill
 * the bucket (the refill step, ct-mpibench --idle). With C(p) = min(B, r p)
 * the credit a call gets, t_n - t_i = (B - r p_n) / r where r p_n < B, so
 *   B = r (t_n - t_i + p_n)
 * per size m measured both ways (each sample's pause recorded); B is the
 * mean over the sizes m >= burst (a message shorter than the bucket caps
 * the credit at m; none: the largest size) weighted by 1 / sd^2, sd = r
 * ((t_n - t_n,min) + (t_i - t_i,min)) the two means' distances from their
 * fastest repetitions (at least 0.1 % of r t_i): at 1 MiB a repetition's
 * noise is as large as the credit, at 256 KiB a fifth of it (session 31);
 * clamped to [0, burst]: burst, the ping-pong's (ct_p2p_sustained), is what
 * a single flow gets, and an exchange measured 60-90 % of it
 * (doc/accuracy-notes.md, "Session 29", "Session 31").
 * r: the sustained rate, 1 / beta of `curve` (the sustained curve) at the
 * burst, as the scorer reads it (score.c refill_credit). Returns 0 with out
 * filled, -1 (err) when no size was measured both ways with its pauses or
 * burst, r are not > 0. */
typedef struct ct_refill_fit {
    double bucket;     /* B, bytes */
    double raw;        /* the weighted mean before clamping */
    double lo, hi;     /* the sizes' estimates */
    double idle;       /* the median pause of the idle samples used, s */
    /* what the exchange lacks of the burst as the time r takes to refill it,
     * (burst - bucket) / r, s: the wait of the benchmark's polled calls,
     * which pass a call's bulk about 2.5 ms late while the idle link's full
     * bucket refills nothing (session 32, scripts/wait-evidence) */
    double lack;
    size_t nused;
} ct_refill_fit;
int ct_fit_refill(const ct_p2p_curve *curve, const ct_a2a_sample *normal, size_t n,
                  const ct_a2a_sample *idle, size_t ni, double burst, ct_refill_fit *out,
                  ct_err *err);

/* The duplex model's incast term ε (CT_DUPLEX_INCAST, penalty_duplex.c) from
 * a robust Alltoall signature: gamma(k) / gamma(1) - 1 per additional peer
 * node, i.e. gamma_incast / gamma (alltoall.h); 0 when gamma <= 0 or the
 * incast term was not fitted (gamma_incast = 0). */
double ct_duplex_incast(const ct_a2a_sig *sig);
/* The incast degree that term holds beyond (CT_DUPLEX_INCAST_MAX_K): the
 * signature's k_max when ct_duplex_incast is > 0 and k_max > 0, else 0 (no
 * limit). Our extension, as alltoall.h's k_max. */
double ct_duplex_incast_max_k(const ct_a2a_sig *sig);
/* The duplex model's flows term φ (CT_DUPLEX_FLOWS) from the same signature:
 * gamma_flows / gamma, the relative cost of each remote flow beyond the first
 * through a port; 0 when gamma <= 0 or gamma_flows was not fitted. Our
 * extension (session 20), as ct_duplex_incast. */
double ct_duplex_flows(const ct_a2a_sig *sig);
/* The flow count that term holds beyond (CT_DUPLEX_FLOWS_MAX_F): the
 * signature's f_max when ct_duplex_flows is > 0 and f_max > 0, else 0. */
double ct_duplex_flows_max_f(const ct_a2a_sig *sig);
/* The flows term's shape (CT_DUPLEX_FLOWS_EXP): the signature's flows_exp
 * when ct_duplex_flows is > 0, else 0 (session 21). */
double ct_duplex_flows_exp(const ct_a2a_sig *sig);
/* Sets the duplex model m's incast and flows terms, their holds and the
 * flows term's shape (CT_DUPLEX_INCAST, _INCAST_MAX_K, _FLOWS, _FLOWS_MAX_F,
 * _FLOWS_EXP) from sig, as the functions above give them: what calibrate
 * --incast writes. */
void ct_duplex_set_terms(ct_penalty_model *m, const ct_a2a_sig *sig);

#endif
