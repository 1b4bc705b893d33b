/* ct-accuracy-eval: refit one emulated-network run of scripts/accuracy-report
 * and print every prediction against its measurement (CSV on stdout), for the
 * accuracy matrix of doc/accuracy.md.
 *
 *   ct-accuracy-eval DIR paper|incast|incast-gige|incast-tcpshare|incast-host|wire
 *                    [exchange-max=BYTES] [refill=...] [a2a-refill=...]
 *                    [pause-impute=...] [fit-max-nodes=N] [exchange=posted|p2p|ialltoall]
 *                    [pingpong=refill|curve] [refill-clamp=off] [floor-censor=on]
 *                    [intra-shared=off] [latency=penalized] [call-incast=on|off]
 *
 * DIR holds raw/pingpong.csv, raw/alltoall-NxT.csv, raw/conflict.csv (from
 * `contention-admin calibrate --raw`) and, written by accuracy-report,
 * pingpong-wide.csv, patterns.txt (measured patterns, one-node halves) and
 * mix4.csv (the 4-node in-out conflict scheme).
 *
 * paper:  the papers' procedure as `calibrate` does it (one Hockney line from
 *         raw/pingpong.csv, the signature on N x 1 only, intra-node bandwidth
 *         from the 'intra' conflict scheme, gammas from fig4 only);
 * incast: this project's (piecewise p2p curve from the wide ping-pong, the
 *         robust gamma(k,f) fit on 2 x 1, N x 1 and N x 2, intra-node
 *         bandwidth from the one-node halves, gammas from mix4).
 * incast-gige: the same fits with 001's GigE model for the patterns instead
 *         of the duplex fair share (calibrate --incast --pattern-model gige).
 * incast-tcpshare: the same fits with the TCP share (our extension, bias
 *         1.5; calibrate --incast --pattern-model tcpshare).
 * incast-host: the incast fits, the patterns as timed on the host clock
 *         (ct-mpibench pattern --host-clock: first rank's start to last
 *         rank's end, the "TAG host: pattern-host,..." lines); no pattern
 *         row where a run has none.
 * wire:   no fit: the network floor of every pattern point, the time the
 *         network alone needs (each NIC at the line rate of DIR/setup, fair
 *         share, no latency, no send/receive coupling; intra-node transfers at
 *         the incast mode's intra-node bandwidth): measured / floor says how
 *         much of a time the network explains and how much the host adds.
 * exchange-max=BYTES leaves out the 2 x 1 Alltoall points above BYTES: the fit
 * of a run measured since session 28 (2 x 1 up to 2 MiB) as it was before.
 * refill=off prices a run measured since session 29 (ct-mpibench's '# pause'
 * lines) without the token bucket's refill, as before it (signatures.h
 * ct_fabric.bucket); by default the bucket is the one the 2 x 1 exchange
 * got after an idle where calibrate measured that (raw/refill-2x1.csv,
 * ct_fit_refill; session 31, as calibrate writes it), else the ping-pong's
 * burst; since session 36 calibrate measures that exchange also posted as the
 * patterns post theirs (raw/refill-p2p-2x1.csv, MPI_Irecv and MPI_Isend, one
 * wait) and writes its bucket: the default takes it where measured, and
 * refill=a2a takes the Alltoall's step instead (the procedure before session 36);
 * refill=pingpong prices with the ping-pong's burst everywhere (the
 * model of sessions 29-30); each pattern row is scored with the pause measured before its
 * repetitions ("TAG pause: pause m=M: median P s" in patterns.txt, after the
 * row's own lines of the same srun). The Alltoall's refill (by default since
 * session 43; a2a-refill=off, the model of sessions 29-42, leaves it out)
 * takes each Alltoall sample's refill beyond calibrate's 2 x 1 calls' out
 * before the signature is fitted and prices every point at its
 * configuration's pause (ct_calib_opts.refill, as calibrate --incast:
 * doc/models-alltoall.md).
 * pause-impute=CAL,P1,P2,P4 (seconds; session 34, a sensitivity check, never the
 * shipped figures) prices a run that recorded no pause (measured before session
 * 29) as if calibrate's 2 x 1 calls had paused CAL and each pattern's
 * repetitions P1, P2 or P4 at 1, 2 or 4 tasks per node (the medians of the
 * runs that recorded them, scripts/accuracy-report); the bucket is the
 * ping-pong's burst (those runs have no refill step), or with LACK (s) that
 * burst less what an exchange lacks of it, r x LACK (ct_refill_fit.lack). A run
 * that recorded its pauses is priced as without it.
 * fit-max-nodes=N (session 39) calibrates on the Alltoall configurations of
 * at most N nodes only, as a site calibrates on a few nodes and scores jobs on
 * more: the configurations of more nodes are then priced with that signature
 * (held = 1, beside calibrate's own held-back ones), and the patterns, measured
 * on every node of the run, with the model it gives.
 * exchange=posted (session 46, a sensitivity check, never the shipped figures)
 * takes the exchange step c (read off calibrate's 2 x 1 MPI_Ialltoall) less
 * the mean over the sizes up to 512 KiB of what the 2 x 1 exchange posted as
 * the patterns post theirs ran faster than that MPI_Ialltoall after the same
 * idle (raw/refill-p2p-2x1.csv against raw/refill-2x1.csv): the patterns'
 * step as if their primitive's fixed time were read alike; a run without both
 * files is priced as without it.
 * As shipped since session 53 (rules-s53.txt), δ, the exchange step, λ and
 * the bucket are read off the 2 x 1 exchange posted as the patterns post
 * theirs and timed back to back (raw/exchange-p2p-2x1.csv, calibrate's step
 * since session 53, else exchange-p2p-2x1.csv, which accuracy-report measured
 * beside the wide ping-pong in sessions 46-52) in place of calibrate's 2 x 1
 * MPI_Ialltoall: the patterns priced from their own primitive; a run without
 * either file is priced off the MPI_Ialltoall. exchange=p2p (session 46's
 * name for it) is the same; exchange=ialltoall reads the MPI_Ialltoall only,
 * the model of sessions 28-52.
 * The sustained rate and the burst are read off the ping-pong's own refill
 * where it shows (ct_p2p_refill_read: a bucket above half its third-largest
 * size), as ct_calib_opts.pingpong_refill and calibrate do (session 50's
 * reading, the default since session 54: rules-s54.txt); pingpong=curve
 * keeps the piecewise curve's top segment there (sessions 43-53's model),
 * pingpong=refill names the default.
 * The incast modes read raw/intra-all.csv where calibrate measured it
 * (session 55: the halves on every node at once): when all the nodes together
 * copy below 0.75 x their count x one node's rate (ct_intra_shared), a
 * point-to-point step's intra-node time is at least all nodes' intra-node
 * bytes at that shared rate (rules-s55.txt); intra-shared=off prices without.
 * The intra-node path as a Hockney line (session 57, rules-s57.txt;
 * ct_intra_read): where calibrate's intra-node step (else the report's
 * one-node halves at the pattern sizes) holds two sizes, a point-to-point
 * step's intra-node time is alpha + bytes / the line's rate, and likewise
 * for all nodes at once where raw/intra-all.csv has two sizes;
 * intra-line=off prices without (the model before session 57).
 * latency=penalized (session 56, rules-s56.txt) prices every penalty model as
 * 001 §IV-B does, T = p (alpha + m beta), the latency stretched too, and
 * writes the duplex exchange step read that way (ct_duplex_fit's
 * exchange_penalized): the model before session 56, where the fair-share
 * models take a message's latency once, T = alpha + p m beta (models.h
 * latency_once). The '# latency:' line says which, and alpha at 256 KiB.
 * refill-clamp=off (session 49's variant (a), a check) takes the refill
 * step's bucket as read, without the clamp to the ping-pong's burst.
 * floor-censor=on (session 51, tried and not taken: rules-s51c.txt) leaves out of
 * every fit the 2 x 1 samples of m >= 128 KiB at most 1.10 x the 2 x 1's time
 * at its smallest size (floor_censor_2x1: the host's call floor).
 * Patterns are never fitted on: every pattern row is a held-back prediction
 * of ct_score for that allocation, pattern, size and layout.
 *
 * Output rows: kind,nodes,tpn,pattern,layout,m,measured_s,spread,predicted_s,bound_s,held
 * then '# ' lines describing the fit. A benchmark (prints numbers), not a test. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contention/benchparse.h"
#include "contention/calibrate.h"
#include "contention/layout.h"
#include "contention/models.h"
#include "contention/pattern.h"
#include "contention/score.h"
#include "contention/signatures.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    fclose(f);
    if (b)
        b[n < cap ? n : cap - 1] = '\0';
    *len = n;
    return b;
}

static int die(const char *what, const ct_err *e)
{
    fprintf(stderr, "ct-accuracy-eval: %s: %s\n", what, e ? e->msg : "");
    return 1;
}
/* main's error exits: the message, then its one cleanup (out:) */
#define FAIL(rcv)                                                                                  \
    do {                                                                                           \
        rc = (rcv);                                                                                \
        goto out;                                                                                  \
    } while (0)

/* Score one pattern on nodes x tpn and return the candidate `layout`. */
static int predict_pattern(const ct_fabric *f, int nodes, int tpn, const char *pat, double m,
                           double pause, const char *layout, double *pred, double *bound)
{
    ct_alloc a;
    ct_err err;
    if (ct_alloc_uniform(nodes, tpn, &a, &err) < 0)
        return -1;
    ct_score_request req;
    memset(&req, 0, sizeof req);
    req.alloc = &a;
    req.ntasks = nodes * tpn;
    req.cpus_per_task = 1;
    if (ct_pattern_parse(pat, &req.pattern, &err) < 0) {
        ct_alloc_free(&a);
        return -1;
    }
    req.pattern.bytes = m;
    if (pause >= 0) { /* the links' idle time before each repetition (session 29) */
        req.pattern.has_pause = 1;
        req.pattern.pause = pause;
    }
    ct_score_result r;
    int rc = ct_score(f, &req, &r, &err);
    ct_alloc_free(&a);
    if (rc < 0) {
        fprintf(stderr, "ct-accuracy-eval: score %s %dx%d: %s\n", pat, nodes, tpn, err.msg);
        return -1;
    }
    for (size_t i = 0; i < r.n; i++)
        if (strcmp(r.c[i].name, layout) == 0) {
            *pred = r.c[i].predicted_s;
            *bound = r.c[i].uncontended_s;
            return 0;
        }
    return -1;
}

/* calibrate's 2 x 1 exchange: two nodes, one task each */
static int is_2x1(const ct_a2a_sample *s)
{
    return s->nodes == 2 && s->tasks_per_node == 1;
}

/* floor-censor=on (session 51, tried and not taken: rules-s51c.txt). calibrate's
 * 2 x 1 Alltoall calls take at least a floor of about 2.4-2.9 ms a call on this
 * host (the polled waits, session 47), at 32 and 64 KiB wherever the link does not
 * set it; a saturated size (m >= min_m) whose link time, less a bucket's credit,
 * is below it sits on it, and a line through it bends the fit. Removes from
 * a2a, in place and in order, every 2 x 1 sample with m >= min_m whose mean
 * time is at most ratio x the 2 x 1's mean time at its smallest size (below
 * min_m); returns the samples kept. No other configuration is touched. */
static size_t floor_censor_2x1(ct_a2a_sample *a2a, size_t n, double min_m, double ratio)
{
    ct_a2a_call_floor f; /* the 2 x 1's smallest size and time (any ratio: just found) */
    if (!ct_a2a_on_call_floor(a2a, n, min_m, INFINITY, &f))
        return n; /* no size below min_m, or none from it: nothing to leave out */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const ct_a2a_sample *s = &a2a[i];
        if (is_2x1(s) && s->m >= min_m && s->t > 0 && s->t <= ratio * f.t0)
            continue; /* on the floor: the host set it */
        a2a[k++] = *s;
    }
    return k;
}

/* The posted exchange (as shipped since session 53): a2's samples with its
 * 2 x 1 exchange replaced by the 2 x 1 exchange posted as the patterns post
 * theirs, timed back to back (up to xmax; ct_a2a_with_posted_exchange):
 * calibrate's DIR/raw/exchange-p2p-2x1.csv (session 53) where measured, else
 * accuracy-report's DIR/exchange-p2p-2x1.csv (sessions 46-52), into a new
 * array; 1 (and nothing allocated) when the run has neither. */
static int p2p_samples(const char *dir, const ct_bench_data *a2, double xmax,
                       ct_a2a_sample **out, size_t *nout, char *msg, size_t msgsz, ct_err *err)
{
    char path[4096];
    const char *name = "raw/exchange-p2p-2x1.csv"; /* said relative to DIR */
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (access(path, R_OK) != 0) {
        name += 4;
        snprintf(path, sizeof path, "%s/%s", dir, name);
    }
    if (access(path, R_OK) != 0)
        return 1;
    ct_bench_data xd;
    memset(&xd, 0, sizeof xd);
    if (ct_bench_parse_file(path, NULL, &xd, NULL, err) < 0)
        return -1;
    size_t cap = a2->na2a + xd.na2a;
    ct_a2a_sample *xs = malloc((cap + 1) * sizeof *xs);
    if (!xs) {
        ct_bench_free(&xd);
        return ct_err_set(err, "out of memory for %zu samples", cap);
    }
    size_t posted = 0;
    size_t n = ct_a2a_with_posted_exchange(a2->a2a, a2->na2a, xd.a2a, xd.na2a, xmax, xs, &posted);
    ct_bench_free(&xd);
    if (!posted) {
        free(xs);
        return 1;
    }
    snprintf(msg, msgsz,
             "# exchange: the 2 x 1 exchange posted as the patterns post theirs, the run's %s "
             "(%zu sizes), in place of the MPI_Ialltoall's\n",
             name, posted);
    *out = xs;
    *nout = n;
    return 0;
}

/* exchange=posted: the mean over the sizes up to 512 KiB measured both ways
 * of t(MPI_Ialltoall) - t(posted) after calibrate's idle; 0 when a run lacks
 * either file or a common size. */
static int posted_gain(const char *dir, double *gain, ct_err *err)
{
    *gain = 0;
    char pa[4096], pp[4096];
    snprintf(pa, sizeof pa, "%s/raw/refill-2x1.csv", dir);
    snprintf(pp, sizeof pp, "%s/raw/refill-p2p-2x1.csv", dir);
    if (access(pa, R_OK) != 0 || access(pp, R_OK) != 0)
        return 0;
    ct_bench_data da, dp;
    memset(&da, 0, sizeof da);
    memset(&dp, 0, sizeof dp);
    if (ct_bench_parse_file(pa, NULL, &da, NULL, err) < 0)
        return -1;
    if (ct_bench_parse_file(pp, NULL, &dp, NULL, err) < 0) {
        ct_bench_free(&da);
        return -1;
    }
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < da.na2a; i++)
        for (size_t j = 0; j < dp.na2a; j++)
            if (da.a2a[i].m == dp.a2a[j].m && da.a2a[i].m <= 524288 && da.a2a[i].t > 0 &&
                dp.a2a[j].t > 0) {
                sum += da.a2a[i].t - dp.a2a[j].t;
                n++;
            }
    ct_bench_free(&da);
    ct_bench_free(&dp);
    *gain = n ? sum / (double)n : 0;
    return 0;
}

int main(int argc, char **argv)
{
    /* exchange-max=BYTES: leave out the 2 x 1 Alltoall points above BYTES,
     * the model as it was before calibrate measured the exchange up to the
     * ping-pong's largest size (session 28: 524288 gives session 27's fit
     * on a run measured since) */
    double xmax = INFINITY;
    /* 0 off, 1 the ping-pong's burst, 2 the exchange's where measured (the
     * posted one's first, session 36), 3 the Alltoall exchange's only */
    int refill = 2;
    int a2a_refill = 1; /* the Alltoall's refill too (session 30; taken in session 43) */
    /* the incast intercept (alltoall.h, session 69): taken in-sample by
     * rules-s69.txt, not by rules-s69b.txt's six new shapes: off unless asked */
    int call_incast = 0;
    double imp[5] = {-1, -1, -1, -1, -1}; /* pause-impute=CAL,P1,P2,P4[,LACK] (s); -1: none */
    long fit_max_nodes = 0; /* fit-max-nodes=N; 0: every configuration calibrate takes */
    /* what the duplex terms are read off: 0 as shipped since session 53
     * (exchange=p2p, session 46's name for it), the 2 x 1 exchange posted as
     * the patterns post theirs, timed back to back, where measured
     * (p2p_samples), else the MPI_Ialltoall; 1 exchange=posted (session 46),
     * the MPI_Ialltoall's step less the posted exchange's gain after an idle;
     * 2 exchange=ialltoall, the MPI_Ialltoall only (the model of sessions
     * 28-52) */
    int xmode = 0;
    int pp_refill = 1;   /* pingpong=refill|curve (session 50; the default since 54) */
    int refill_clamp = 1; /* refill-clamp=off (session 49's variant (a)) */
    int floor_censor = 0; /* floor-censor=on (session 51, rules-s51c.txt) */
    int intra_shared_on = 1; /* intra-shared=off (session 55, rules-s55.txt) */
    int latency_penalized = 0; /* latency=penalized (session 56, rules-s56.txt) */
    int intra_line_on = 1;     /* intra-line=off (session 57, rules-s57.txt) */
    while (argc >= 4) {
        const char *a = argv[argc - 1];
        if (strcmp(a, "exchange=posted") == 0) {
            xmode = 1;
        } else if (strcmp(a, "exchange=p2p") == 0) {
            xmode = 0;
        } else if (strcmp(a, "exchange=ialltoall") == 0) {
            xmode = 2;
        } else if (strncmp(a, "fit-max-nodes=", 14) == 0) {
            char *end;
            fit_max_nodes = strtol(a + 14, &end, 10);
            if (end == a + 14 || *end || fit_max_nodes < 2 || fit_max_nodes > 64) {
                fprintf(stderr, "ct-accuracy-eval: '%s' (accepted: fit-max-nodes=N, N in 2..64)\n",
                        a);
                return 2;
            }
        } else if (strncmp(a, "pause-impute=", 13) == 0) {
            char *end = (char *)a + 13;
            for (int k = 0; k < 5; k++) {
                char *from = end;
                imp[k] = strtod(from, &end);
                int last = *end == '\0' && k >= 3;
                if (end == from || !(imp[k] >= (k == 4 ? 0 : 1e-9) && imp[k] < 3600) ||
                    (*end != ',' && !last) || (k == 4 && !last)) {
                    fprintf(stderr, "ct-accuracy-eval: '%s' (accepted: pause-impute=CAL,P1,P2,P4 "
                                    "or CAL,P1,P2,P4,LACK, pauses in seconds, each > 0, LACK >= 0)\n",
                            a);
                    return 2;
                }
                if (last)
                    break;
                end++;
            }
        } else if (strncmp(a, "exchange-max=", 13) == 0) {
            char *end;
            xmax = strtod(a + 13, &end);
            if (*end || !(xmax > 0)) {
                fprintf(stderr, "ct-accuracy-eval: '%s' (accepted: exchange-max=BYTES, > 0)\n",
                        a);
                return 2;
            }
        } else if (strcmp(a, "refill=off") == 0) {
            refill = 0;
        } else if (strcmp(a, "refill=pingpong") == 0) {
            refill = 1;
        } else if (strcmp(a, "refill=a2a") == 0) {
            refill = 3;
        } else if (strcmp(a, "a2a-refill=on") == 0) {
            a2a_refill = 1;
        } else if (strcmp(a, "call-incast=on") == 0) {
            call_incast = 1;
        } else if (strcmp(a, "call-incast=off") == 0) {
            call_incast = 0;
        } else if (strcmp(a, "a2a-refill=off") == 0) {
            a2a_refill = 0; /* the model of sessions 30-42 */
        } else if (strcmp(a, "pingpong=refill") == 0) {
            pp_refill = 1;
        } else if (strcmp(a, "pingpong=curve") == 0) {
            pp_refill = 0; /* the model of sessions 43-53 */
        } else if (strcmp(a, "floor-censor=on") == 0) {
            floor_censor = 1;
        } else if (strcmp(a, "intra-shared=off") == 0) {
            intra_shared_on = 0;
        } else if (strcmp(a, "latency=penalized") == 0) {
            latency_penalized = 1;
        } else if (strcmp(a, "intra-line=off") == 0) {
            intra_line_on = 0;
        } else if (strcmp(a, "refill-clamp=off") == 0) {
            refill_clamp = 0;
        } else {
            break;
        }
        argc--;
    }
    if (argc != 3 || (strcmp(argv[2], "paper") && strcmp(argv[2], "incast") &&
                      strcmp(argv[2], "incast-gige") && strcmp(argv[2], "incast-tcpshare") &&
                      strcmp(argv[2], "incast-host") && strcmp(argv[2], "wire"))) {
        fprintf(stderr,
                "usage: ct-accuracy-eval DIR "
                "paper|incast|incast-gige|incast-tcpshare|incast-host|wire [exchange-max=BYTES] "
                "[refill=off|pingpong|a2a] [a2a-refill=on|off] [pause-impute=CAL,P1,P2,P4[,LACK]] "
                "[fit-max-nodes=N] [exchange=posted|p2p|ialltoall] [pingpong=refill|curve] [refill-clamp=off] [latency=penalized] "
                "[intra-line=off] "
                "[floor-censor=on] [call-incast=on|off]\n");
        return 2;
    }
    const char *dir = argv[1];
    int wire = strcmp(argv[2], "wire") == 0;
    int keep_gige = strcmp(argv[2], "incast-gige") == 0; /* --pattern-model gige */
    int tcp = strcmp(argv[2], "incast-tcpshare") == 0; /* --pattern-model tcpshare */
    int host = strcmp(argv[2], "incast-host") == 0; /* patterns on the host clock */
    int incast = wire || keep_gige || tcp || host || strcmp(argv[2], "incast") == 0;
    char path[4096];
    ct_err err;
    /* everything an exit frees (out:), so every error exit is one line */
    int rc = 1;
    ct_bench_data pp = {0}, a2 = {0};
    DIR *d = NULL;
    ct_conflict_sample *cs = NULL, *m4 = NULL;
    char *buf = NULL, *pat = NULL;
    char **lines = NULL;
    ct_calib_result r;
    memset(&r, 0, sizeof r);
    ct_a2a_sample *xs = NULL; /* exchange=p2p's samples (freed at out: when not a2.a2a's) */
    /* ping-pong: the wide one (0..2M) in incast mode when measured */
    snprintf(path, sizeof path, "%s/pingpong-wide.csv", dir);
    FILE *t = incast ? fopen(path, "r") : NULL;
    if (t)
        fclose(t);
    else
        snprintf(path, sizeof path, "%s/raw/pingpong.csv", dir);
    if (ct_bench_parse_file(path, NULL, &pp, NULL, &err) < 0)
        FAIL(die(path, &err));
    snprintf(path, sizeof path, "%s/raw", dir);
    d = opendir(path);
    if (!d)
        FAIL(die(path, NULL));
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (strncmp(e->d_name, "alltoall-", 9) != 0 || nl < 4 ||
            strcmp(e->d_name + nl - 4, ".csv") != 0)
            continue;
        snprintf(path, sizeof path, "%s/raw/%s", dir, e->d_name);
        if (ct_bench_parse_file(path, NULL, &a2, NULL, &err) < 0)
            FAIL(die(path, &err));
    }
    closedir(d);
    d = NULL;
    if (isfinite(xmax)) {
        size_t keep = 0;
        for (size_t i = 0; i < a2.na2a; i++)
            if (!(is_2x1(&a2.a2a[i]) && a2.a2a[i].m > xmax))
                a2.a2a[keep++] = a2.a2a[i];
        a2.na2a = keep;
    }
    size_t ncensored = 0;
    if (floor_censor) { /* rules-s51c.txt: the 2 x 1 calls on the host's call floor */
        size_t before = a2.na2a;
        a2.na2a = floor_censor_2x1(a2.a2a, a2.na2a, 128.0 * 1024.0, 1.10);
        ncensored = before - a2.na2a;
    }
    /* fit-max-nodes: the configurations of more nodes leave the calibration
     * (moved to the end of the array: ext of them) and are priced after it */
    size_t ext = 0;
    if (fit_max_nodes > 0) {
        size_t keep = 0;
        for (size_t i = 0; i < a2.na2a; i++)
            if (a2.a2a[i].nodes <= fit_max_nodes) {
                ct_a2a_sample tmp = a2.a2a[keep];
                a2.a2a[keep++] = a2.a2a[i];
                a2.a2a[i] = tmp;
            }
        ext = a2.na2a - keep;
        a2.na2a = keep;
    }

    /* conflicts: calibrate's schemes, plus mix4 (incast mode) */
    size_t ncs = 0, len = 0;
    snprintf(path, sizeof path, "%s/raw/conflict.csv", dir);
    buf = slurp(path, &len);
    if (buf && ct_conflict_parse(path, buf, len, &cs, &ncs, &err) < 0)
        FAIL(die(path, &err));
    free(buf);
    buf = NULL;
    if (incast) {
        snprintf(path, sizeof path, "%s/mix4.csv", dir);
        buf = slurp(path, &len);
        if (buf) {
            /* mix4.csv carries its own ref: use it (same run) instead of calibrate's */
            size_t nm4 = 0;
            if (ct_conflict_parse(path, buf, len, &m4, &nm4, &err) < 0)
                FAIL(die(path, &err));
            size_t keep = 0;
            for (size_t i = 0; i < ncs; i++)
                if (strcmp(cs[i].scheme, "ref") != 0 || nm4 == 0)
                    cs[keep++] = cs[i];
            ncs = keep;
            ct_conflict_sample *nc = realloc(cs, (ncs + nm4 + 1) * sizeof *nc);
            if (!nc)
                FAIL(die("out of memory", NULL));
            cs = nc;
            int has_ref = 0;
            for (size_t i = 0; i < nm4; i++)
                has_ref |= strcmp(m4[i].scheme, "ref") == 0;
            for (size_t i = 0; i < nm4; i++)
                cs[ncs++] = m4[i];
            (void)has_ref;
            free(m4);
            m4 = NULL;
            free(buf);
            buf = NULL;
        }
    }
    ct_calib_gige g;
    memset(&g, 0, sizeof g);
    int have_gige = ncs && ct_calibrate_gige(cs, ncs, &g, &err) == 0;
    if (ncs && !have_gige)
        printf("# gige: %s\n", err.msg);
    if (have_gige && !incast && strcmp(g.gamma_scheme, "fig4") != 0) {
        /* the paper's procedure knows fig4 only */
        g.has_gammas = 0;
        g.skew_in = g.skew_out = 0;
    }
    double intra_bw = have_gige ? g.intra_bw : 0;
    const char *intra_src = "conflict scheme 'intra' (one 1 MiB transfer)";
    snprintf(path, sizeof path, "%s/patterns.txt", dir);
    pat = slurp(path, &len);
    /* the one-node line (session 57): calibrate's step where it read one,
     * else the one-node halves the report measured at the pattern sizes */
    ct_intra_reading line = {0}, line_all = {0};
    const char *line_src = "";
    if (incast && pat) {
        ct_intra_reading ir_r;
        int ir = ct_intra_read(path, pat, len, 0, &ir_r, &err);
        if (ir < 0)
            FAIL(die(path, &err));
        if (ir == 0) {
            intra_bw = ir_r.bw;
            intra_src = "one node's tasks exchanging halves (pattern on 1 node)";
            line = ir_r;
            line_src = "the report's one-node halves";
        }
    }

    if (incast) { /* calibrate's own intra-node step, when it ran */
        snprintf(path, sizeof path, "%s/raw/intra.csv", dir);
        char *ib = slurp(path, &len);
        ct_intra_reading ir_r;
        if (ib && ct_intra_read(path, ib, len, 0, &ir_r, &err) == 0) {
            intra_bw = ir_r.bw;
            intra_src = "one node's halves (calibrate's intra-node step)";
            if (ir_r.line_bw > 0) {
                line = ir_r, line_src = "calibrate's intra-node step";
            } else if (line.line_bw > 0) {
                /* a run calibrated at one size (before session 57): the
                 * intercept the report's one-node halves show, through
                 * calibrate's point, as calibrate reads it at two sizes */
                double t_cal = ir_r.bytes / ir_r.bw;
                if (t_cal > line.alpha) {
                    line.line_bw = ir_r.bytes / (t_cal - line.alpha);
                    line_src = "the report's one-node halves' intercept through calibrate's point";
                } else {
                    line = (ct_intra_reading){0};
                }
            }
        }
        free(ib);
    }
    /* the same halves on every node at once (session 55), when calibrate ran it */
    double intra_shared = 0, intra_would = 0;
    if (incast) {
        snprintf(path, sizeof path, "%s/raw/intra-all.csv", dir);
        char *ib = slurp(path, &len);
        if (ib && ct_intra_read(path, ib, len, 1, &line_all, &err) < 0)
            FAIL(die(path, &err));
        free(ib);
        intra_would = ct_intra_shared(intra_bw, line_all.bw, line_all.nodes);
        intra_shared = intra_shared_on ? intra_would : 0;
    }
    ct_calib_opts o;
    ct_calib_opts_default(&o);
    o.intra_bw = intra_bw;
    if (incast) {
        o.incast = 1;
        o.p2p_max_seg = 4;
        o.sustained = 1; /* patterns and collectives run back to back */
        o.force = 1; /* the matrix shows the numbers; the flag is printed */
        o.call_step = 1; /* as calibrate --incast */
        o.refill = refill && a2a_refill; /* session 30's term, taken in session 43 */
        o.pingpong_refill = pp_refill;
        o.call_incast = call_incast;
    }
    char failed[CT_ERR_MAX] = "";
    if (ct_calibrate_alltoall(pp.p2p, pp.np2p, a2.a2a, a2.na2a, &o, &r, &err) < 0) {
        /* reported, not fatal: the matrix says which network defeated the fit; the
         * point-to-point patterns need only the p2p curve and the penalty model */
        snprintf(failed, sizeof failed, "%s", err.msg);
        memset(&r, 0, sizeof r);
        ct_p2p_fit_opts po;
        ct_p2p_fit_opts_default(&po);
        po.max_seg = o.p2p_max_seg > 1 ? o.p2p_max_seg : 1;
        if (po.max_seg == 1)
            po.spread_floor = 0; /* the papers' single line, as calibrate fits it */
        if (ct_fit_hockney_piecewise(pp.p2p, pp.np2p, &po, &r.p2p, &r.p2p_diag, r.p2p_seg, &err) <
            0)
            FAIL(die("ping-pong", &err));
        r.p2p_pingpong = r.p2p;
        if (o.sustained) /* as calibrate.c */
            r.p2p_refill = ct_p2p_sustained_read(&r.p2p_pingpong, pp.p2p, pp.np2p,
                                                 o.pingpong_refill, &r.p2p, &r.burst);
        r.alpha = r.p2p.seg[0].alpha;
        r.beta = r.p2p.seg[0].beta;
    }

    ct_fabric f;
    ct_fabric_init(&f);
    double line_rate = 0; /* bytes/s, wire mode */
    if (wire) {
        snprintf(path, sizeof path, "%s/setup", dir);
        FILE *sf = fopen(path, "r");
        char rate[64] = "";
        double v = 0;
        char unit[16] = "";
        if (!sf || fscanf(sf, "%*d %63s", rate) != 1 || sscanf(rate, "%lf%15s", &v, unit) != 2) {
            if (sf)
                fclose(sf);
            fprintf(stderr, "ct-accuracy-eval: %s: no rate such as 100mbit (accepted: 'NODES "
                            "RATE ...' as accuracy-report writes it)\n", path);
            goto out;
        }
        fclose(sf);
        double mult = !strcmp(unit, "gbit") ? 1e9 : !strcmp(unit, "mbit") ? 1e6
                    : !strcmp(unit, "kbit") ? 1e3 : 0;
        if (!(v > 0) || mult == 0) {
            fprintf(stderr, "ct-accuracy-eval: %s: rate '%s' (accepted: N kbit, mbit or gbit)\n",
                    path, rate);
            goto out;
        }
        line_rate = v * mult / 8;
    }
    snprintf(f.name, sizeof f.name, "eval");
    f.alpha = r.alpha;
    f.beta = r.beta;
    if (r.p2p.nseg > 1)
        f.p2p_segments = r.p2p;
    f.has_alltoall = !failed[0];
    f.alltoall = r.sig;
    f.intra_bw = intra_bw;
    f.intra_shared_bw = intra_shared;
    if (intra_line_on && intra_bw > 0 && line.line_bw > 0) { /* session 57 */
        f.intra_alpha = line.alpha;
        f.intra_line_bw = line.line_bw;
    }
    if (intra_line_on && intra_shared > 0 && line_all.line_bw > 0) {
        f.intra_shared_alpha = line_all.alpha;
        f.intra_shared_line_bw = line_all.line_bw;
    }
    f.latency_in_penalty = latency_penalized;
    if (have_gige)
        f.penalty = CT_GIGE_MODEL(g.share, g.skew_in, g.skew_out); /* 001 §V-A */
    /* incast mode: the duplex fair-share model (our extension) with δ from the
     * 2 x 1 Alltoall, when calibrate measured it; the GigE fit is still printed */
    ct_duplex_fit dx;
    int have_duplex = 0;
    ct_refill_fit rf; /* session 29: the bucket an exchange gets after a full refill */
    int have_rf = 0, rf_p2p = 0; /* rf_p2p: rf read off the posted exchange (session 36) */
    char dxmsg[CT_ERR_MAX] = "";
    char xmsg[4096 + 256] = ""; /* the exchange read or exchange=posted: said after the rows */
    if (wire) {
        /* the network floor: line rate, no latency, fair share, no coupling */
        f.alpha = 0;
        f.beta = 1.0 / line_rate;
        memset(&f.p2p_segments, 0, sizeof f.p2p_segments);
        f.has_alltoall = 0;
        f.penalty = (ct_penalty_model){.kind = CT_MODEL_FAIRSHARE};
        r.npoints = 0; /* pattern rows only */
    } else if (tcp) {
        f.penalty = CT_TCPSHARE_MODEL(1.5); /* Mathis 1997's exponent (penalty_tcpshare.c) */
    } else if (incast && !(keep_gige && have_gige)) {
        ct_p2p_curve cur = r.p2p;
        if (cur.nseg == 0)
            ct_p2p_single(&cur, r.alpha, r.beta);
        xs = a2.a2a; /* the posted 2 x 1 exchange's in its place (p2p_samples) */
        size_t nxs = a2.na2a;
        if (xmode == 0 && p2p_samples(dir, &a2, xmax, &xs, &nxs, xmsg, sizeof xmsg, &err) < 0)
            FAIL(die(dir, &err)); /* xs still a2.a2a: p2p_samples sets it only on success */
        if (ct_fit_duplex(&cur, xs, nxs, o.saturated_m, &dx, &err) == 0) {
            have_duplex = 1;
            if (imp[0] > 0 && !(dx.pause > 0))
                dx.pause = imp[0]; /* pause-impute: a run that recorded none */
            else
                imp[0] = imp[1] = imp[2] = imp[3] = imp[4] = -1; /* it recorded its own */
            f.penalty = CT_DUPLEX_MODEL(dx.delta);
            f.exchange = latency_penalized ? dx.exchange_penalized : dx.exchange;
            ct_duplex_set_long(&f.penalty, &dx); /* session 28: the long exchange */
            char rpath[4096]; /* what the 2 x 1 exchange got after a full refill, where
                               * calibrate measured it (session 31) */
            snprintf(rpath, sizeof rpath, "%s/raw/refill-p2p-2x1.csv", dir);
            rf_p2p = refill == 2 && access(rpath, R_OK) == 0; /* session 36 */
            if (!rf_p2p)
                snprintf(rpath, sizeof rpath, "%s/raw/refill-2x1.csv", dir);
            if (refill >= 2 && dx.pause > 0 && r.burst > 0 && access(rpath, R_OK) == 0) {
                ct_bench_data rd;
                memset(&rd, 0, sizeof rd);
                if (ct_bench_parse_file(rpath, NULL, &rd, NULL, &err) < 0) {
                    ct_bench_free(&rd);
                    FAIL(die(rpath, &err));
                }
                have_rf = ct_fit_refill(&cur, xs, nxs, rd.a2a, rd.na2a, r.burst, &rf,
                                        &err) == 0;
                if (have_rf && !refill_clamp)
                    rf.bucket = fmax(0, rf.raw);
                ct_bench_free(&rd);
            }
            double bucket = have_rf ? rf.bucket : r.burst;
            if (imp[4] >= 0 && !have_rf && r.burst > 0) {
                /* pause-impute's LACK: the ping-pong's burst less what an
                 * exchange lacks of it (ct_refill_fit.lack), at the rate
                 * ct_fit_refill reads it at */
                double pa, pb;
                ct_p2p_at(&cur, r.burst, &pa, &pb);
                bucket = pb > 0 ? fmax(0, r.burst - imp[4] / pb) : r.burst;
            }
            if (refill) /* session 29: the bucket's refill, as calibrate writes it */
                ct_duplex_set_bucket(&f, &dx, bucket);
            double gain = 0;
            if (xmode == 1 && posted_gain(dir, &gain, &err) < 0)
                FAIL(die(dir, &err));
            if (gain != 0) {
                snprintf(xmsg, sizeof xmsg,
                         "# exchange=posted: exchange step %.0f us less %.0f us (the posted 2 x 1 "
                         "exchange's gain on the MPI_Ialltoall after an idle, sizes <= 512 KiB)\n",
                         f.exchange * 1e6, gain * 1e6);
                f.exchange -= gain;
            }
            if (!failed[0]) { /* the incast term from the Alltoall's gamma(k), held at k_max */
                ct_duplex_set_terms(&f.penalty, &r.sig_duplex); /* as calibrate --incast */
            }
        } else {
            snprintf(dxmsg, sizeof dxmsg, "%s", err.msg);
        }
    }

    printf("kind,nodes,tpn,pattern,layout,m,measured_s,spread,predicted_s,bound_s,held\n");
    for (size_t i = 0; i < r.npoints; i++) {
        const ct_calib_point *p = &r.points[i];
        double spread = 0;
        for (size_t j = 0; j < a2.na2a; j++)
            if (a2.a2a[j].nodes == p->nodes && a2.a2a[j].tasks_per_node == p->tasks_per_node &&
                a2.a2a[j].m == p->m)
                spread = ct_a2a_sample_spread(&a2.a2a[j]);
        printf("alltoall,%d,%d,alltoall,block,%.0f,%.9g,%.4f,%.9g,%.9g,%d\n", (int)p->nodes,
               (int)p->tasks_per_node, p->m, p->measured, spread, p->predicted, p->bound,
               p->held);
    }
    /* fit-max-nodes: the configurations of more nodes, priced as calibrate
     * prices its points (calibrate.c), with the signature of the fewer */
    for (size_t i = 0; !failed[0] && !wire && i < ext; i++) {
        ct_a2a_sample s = a2.a2a[a2.na2a + i];
        if (!(s.m > 0))
            continue;
        if (s.tasks_per_node < 1)
            s.tasks_per_node = 1; /* as calibrate.c's tpn_of */
        ct_a2a_sig none = {.gamma = 1.0, .delta = 0.0, .M = 0.0};
        double pred = ct_a2a_predict_sample(&s, &r.p2p, intra_bw, &r.sig);
        double bound = ct_a2a_predict_sample(&s, &r.p2p, intra_bw, &none);
        /* at its configuration's pause, as calibrate.c prices its points */
        double dt = ct_calib_a2a_refill(&r, &s, a2.a2a, a2.na2a + ext, o.saturated_m);
        if (dt != 0) {
            double al, be;
            ct_p2p_at(&r.p2p, s.m, &al, &be);
            pred = fmax(pred - dt, al);
            bound = fmax(bound - dt, al);
        }
        printf("alltoall,%d,%d,alltoall,block,%.0f,%.9g,%.4f,%.9g,%.9g,1\n", (int)s.nodes,
               (int)s.tasks_per_node, s.m, s.t, ct_a2a_sample_spread(&s), pred, bound);
    }
    /* patterns: "TAG measured: pattern,tasks,size,tavg,tmin,nodes,tpn,PATTERN:LAYOUT"
     * (incast-host: "TAG host: pattern-host,...") */
    const char *key = host ? " host: pattern-host," : " measured: pattern,";
    size_t nl = 0, capl = 0;
    for (char *line = pat ? strtok(pat, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        if (nl == capl) {
            capl = capl ? 2 * capl : 256;
            char **nv = realloc(lines, capl * sizeof *nv);
            if (!nv)
                FAIL(die("out of memory", NULL));
            lines = nv;
        }
        lines[nl++] = line;
    }
    for (size_t li = 0; li < nl; li++) {
        const char *line = lines[li];
        const char *row = strstr(line, key);
        if (!row || strncmp(line, "intra", 5) == 0)
            continue;
        int tasks, nodes, tpn;
        double m, tavg, tmin;
        char detail[64];
        if (sscanf(row + strlen(key), "%d,%lf,%lf,%lf,%d,%d,%63s", &tasks, &m, &tavg, &tmin,
                   &nodes, &tpn, detail) != 7 || nodes < 2)
            continue;
        char *colon = strchr(detail, ':');
        if (!colon)
            continue;
        *colon = '\0';
        const char *layout = colon + 1;
        if (strcmp(layout, "block") && strcmp(layout, "cyclic"))
            continue;
        /* the pause of the same srun: a later line of this tag, before the
         * tag's next measured row */
        double pause = -1;
        size_t tl = (size_t)(strstr(line, host ? " host: " : " measured: ") - line);
        for (size_t j = li + 1; j < nl; j++) {
            if (strncmp(lines[j], line, tl) != 0 || lines[j][tl] != ' ')
                continue;
            if (strncmp(lines[j] + tl, " measured: ", 11) == 0)
                break;
            double pm, pv;
            if (strncmp(lines[j] + tl, " pause: pause m=", 16) == 0 &&
                sscanf(lines[j] + tl + 16, "%lf: median %lf s", &pm, &pv) == 2 && pm == m &&
                pv > 0) {
                pause = pv;
                break;
            }
        }
        if (pause < 0 && imp[0] > 0) /* pause-impute: the pause of its tasks per node */
            pause = tpn == 1 ? imp[1] : tpn == 2 ? imp[2] : tpn == 4 ? imp[3] : -1;
        double pred, bound;
        if (predict_pattern(&f, nodes, tpn, detail, m, pause, layout, &pred, &bound) < 0)
            continue;
        printf("pattern,%d,%d,%s,%s,%.0f,%.9g,%.4f,%.9g,%.9g,1\n", nodes, tpn, detail, layout, m,
               tavg, tavg > 0 && tmin > 0 ? (tavg - tmin) / tavg : 0, pred, bound);
    }

    printf("# mode %s\n", argv[2]);
    if (wire) {
        printf("# network floor: %.4g MB/s per NIC direction, no latency, fair share; intra-node "
               "%.1f MB/s\n", line_rate / 1e6, intra_bw / 1e6);
        rc = 0;
        goto out;
    }
    const ct_p2p_curve *ppc = r.p2p_pingpong.nseg ? &r.p2p_pingpong : &r.p2p;
    printf("# p2p: %zu segment(s):", ppc->nseg);
    for (size_t q = 0; q < ppc->nseg; q++) {
        char bw[32] = "flat"; /* p2p.h: a segment the latency sets */
        if (ppc->seg[q].beta > CT_P2P_FLAT_BETA)
            snprintf(bw, sizeof bw, "%.2f MB/s", 1e-6 / ppc->seg[q].beta);
        printf(" [from %.0f B: alpha %.2f us, %s, R^2 %.4f, max err %.1f %%", ppc->seg[q].from,
               ppc->seg[q].alpha * 1e6, bw, r.p2p_seg[q].r2, 100 * r.p2p_seg[q].max_rel_err);
        if (r.p2p_seg[q].max_spread > 0)
            printf(", spread up to %.0f %%, worst miss %.2fx its spread",
                   100 * r.p2p_seg[q].max_spread, r.p2p_seg[q].max_err_spread);
        printf("]");
    }
    printf(" (%zu samples, overall R^2 %.4f, max err %.1f %%%s)\n", r.p2p_diag.npoints,
           r.p2p_diag.r2, 100 * r.p2p_diag.max_rel_err,
           incast ? ", sizes weighted by their repetitions' spread" : "");
    /* session 50: the ping-pong's own refill, read (the default since
     * session 54) or seen and not read (pingpong=curve) */
    double brb, brB;
    if (r.p2p_refill)
        printf("# ping-pong read with its own refill: a token bucket of %.0f KiB at %.2f MB/s "
               "(t = alpha + max(m/2r, (m - B)/r) from 256 KiB; pingpong=curve keeps the "
               "curve's top segment); patterns and Alltoall use alpha %.2f us at that rate\n",
               r.burst / 1024, 1e-6 / r.p2p.seg[0].beta, r.p2p.seg[0].alpha * 1e6);
    else if (r.burst > 0)
        printf("# token bucket: the ping-pong passes %.0f KiB free after an idle link; patterns and "
               "Alltoall use the sustained curve alpha %.2f us, %.2f MB/s\n",
               r.burst / 1024, r.p2p.seg[0].alpha * 1e6, 1e-6 / r.p2p.seg[0].beta);
    if (!r.p2p_refill && o.sustained && r.p2p_pingpong.nseg > 0 &&
        ct_p2p_refill_read(pp.p2p, pp.np2p, r.p2p_pingpong.seg[0].alpha, &brb, &brB) == 1)
        printf("# ping-pong bend: a token bucket of %.0f KiB at %.2f MB/s (t = alpha + "
               "max(m/2r, (m - B)/r) from 256 KiB; read by default, not with pingpong=curve)\n",
               brB / 1024, 1e-6 / brb);
    if (failed[0]) {
        printf("# FIT REFUSED: %s\n", failed);
    } else if (r.incast) {
        printf("# fitted on:");
        for (size_t k = 0; k < r.nfit_cfg; k++)
            printf(" %dx%d", (int)r.fit_cfg[k][0], (int)r.fit_cfg[k][1]);
        printf("\n");
    } else {
        printf("# fitted on: %dx%d\n", (int)r.fit_nodes, (int)r.fit_tasks_per_node);
    }
    if (!failed[0]) {
        char gf[48] = "";
        if (r.sig.flows_exp > 0 && r.sig.flows_exp < 1) /* alltoall.h: the flows term's shape */
            snprintf(gf, sizeof gf, " x (f^%.4g-1)/%.4g", r.sig.flows_exp, r.sig.flows_exp);
        char gl[160] = "";
        if (r.sig.gamma_loss > 0) /* alltoall.h: the incast-loss term, session 24 */
            snprintf(gl, sizeof gl, ", gamma_loss %.4f (flows %.0f to %.0f, k >= 2)",
                     r.sig.gamma_loss, r.sig.loss_min_f, r.sig.loss_max_f);
        if (r.sig.call_incast > 0) /* alltoall.h: the incast intercept, session 69 */
            snprintf(gl + strlen(gl), sizeof gl - strlen(gl),
                     ", call_incast %.0f us x (k-2) up to k = %.0f", r.sig.call_incast * 1e6,
                     r.sig.k_max);
        printf("# signature: gamma %.4f, gamma_incast %.4f, gamma_flows %.5f%s%s, delta %.1f us, "
               "M %.0f B, call step %.0f us (fitted on m >= %.0f KiB%s); training max err "
               "%.1f %%%s%s\n",
               r.sig.gamma, r.sig.gamma_incast, r.sig.gamma_flows, gf, gl, r.sig.delta * 1e6,
               r.sig.M, r.sig.call * 1e6, r.fit_min_m / 1024,
               r.a2a_rep.call_dropped ? "; step dropped" : "", 100 * r.a2a_diag.max_rel_err,
               r.a2a_rep.over_threshold ? "; OVER THRESHOLD: " : "",
               r.a2a_rep.over_threshold ? r.a2a_rep.note : "");
    }
    printf("# intra-node: %.1f MB/s from %s\n", intra_bw / 1e6, intra_bw > 0 ? intra_src : "-");
    if (line_all.bw > 0 && intra_bw > 0)
        printf("# intra-node on %d nodes at once: %.1f MB/s together, %.2f x their count x one "
               "node's rate%s\n",
               line_all.nodes, line_all.bw / 1e6, line_all.bw / (line_all.nodes * intra_bw),
               intra_would <= 0  ? ": independent"
               : intra_shared > 0 ? ": one shared capacity, priced"
                                  : ": one shared capacity, not priced (intra-shared=off)");
    if (line.line_bw > 0)
        printf("# intra-node line: %.0f us + bytes at %.1f MB/s (%d tasks, %d sizes, %s)%s\n",
               line.alpha * 1e6, line.line_bw / 1e6, line.line_tasks, line.line_sizes, line_src,
               intra_line_on ? "" : ", not priced (intra-line=off)");
    if (line_all.line_bw > 0)
        printf("# intra-node line on %d nodes at once: %.0f us + bytes at %.1f MB/s (%d tasks, "
               "%d sizes)%s\n",
               line_all.nodes, line_all.alpha * 1e6, line_all.line_bw / 1e6, line_all.line_tasks,
               line_all.line_sizes,
               !intra_line_on ? ", not priced (intra-line=off)"
               : intra_shared > 0 ? ""
                                  : ", not priced (no shared capacity)");
    if (have_gige)
        printf("# gige: beta %.4f, gamma_i %.4f, gamma_o %.4f (%s)%s%s\n", g.share, g.skew_in,
               g.skew_out, g.has_gammas ? g.gamma_scheme : "gammas not fitted",
               g.note[0] ? ": " : "", g.note);
    char lx[160] = ""; /* session 28: printed where the run measured the long exchange */
    if (have_duplex && dx.nlong)
        snprintf(lx, sizeof lx,
                 ", long exchange %.3f beyond %.0f KiB (%zu 2x1 points, t / T_alone - 1 up to "
                 "%.3f)",
                 dx.long_delta, dx.long_from / 1024, dx.nlong, dx.long_hi);
    char rx[400] = ""; /* session 29: printed where the run recorded its pauses */
    if (have_duplex && f.bucket > 0)
        snprintf(rx, sizeof rx,
                 ", bucket refill: %.0f KiB refilled in %.2f ms (the 2x1 calls' median pause)%s",
                 f.bucket / 1024, f.bucket_pause * 1e3,
                 !have_rf  ? ""
                 : rf_p2p ? " as a 2x1 exchange posted as the patterns' (Isend/Irecv) gets it "
                            "after an idle"
                          : " as a 2x1 exchange gets it after an idle");
    if (have_rf) {
        /* what the exchange lacks of the burst, as a time (ct_refill_fit.lack:
         * the wait of the benchmark's polled calls, session 32) */
        char lack[64] = "";
        if (rf.lack > 0)
            snprintf(lack, sizeof lack, ", %.1f ms of refill more", rf.lack * 1e3);
        snprintf(rx + strlen(rx), sizeof rx - strlen(rx),
                 " (%zu sizes after %.0f ms: %.0f to %.0f KiB; the ping-pong's burst %.0f KiB%s)",
                 rf.nused, rf.idle * 1e3, rf.lo / 1024, rf.hi / 1024, r.burst / 1024, lack);
    }
    if (have_duplex)
        printf("# duplex: delta %.3f and exchange step %.0f us (%s of %zu %s 2x1 points "
               "with m >= %.0f KiB; t / T_alone - 1 from %.3f to %.3f), incast term %.4f "
               "(gamma_incast / gamma), flows term %.4f (gamma_flows / gamma)%s%s; pattern "
               "penalty model: duplex fair share\n",
               dx.delta, f.exchange * 1e6,
               dx.sloped ? "slope and intercept" : "median t / T_alone - 1", dx.nused,
               xs != a2.a2a ? "posted-exchange" : "Alltoall", o.saturated_m / 1024, dx.lo,
               dx.hi, f.penalty.real[CT_DUPLEX_INCAST], f.penalty.real[CT_DUPLEX_FLOWS], lx, rx);
    else if (incast)
        printf("# duplex: not fitted (%s); pattern penalty model: %s\n", dxmsg,
               have_gige ? "gige" : "none");
    if (incast) { /* session 56: where the pattern model takes a message's latency */
        double la, lb;
        ct_fabric_p2p_at(&f, 262144, &la, &lb);
        printf("# latency: alpha %.2f us at 256 KiB, %s (pattern model %s)\n", la * 1e6,
               f.latency_in_penalty                  ? "inside the penalty (latency=penalized: 001's p T_alone)"
               : ct_model_latency_once(f.penalty.kind) ? "once a message, outside the penalty"
                                                       : "inside the penalty (001's p T_alone)",
               ct_model_name(f.penalty.kind));
    }
    fputs(xmsg, stdout);
    if (floor_censor)
        printf("# floor-censor: %zu 2 x 1 sample(s) of m >= 128 KiB at most 1.10 x the 2 x 1's "
               "time at its smallest size left out of the fits\n",
               ncensored);
    rc = 0;
out:
    if (d)
        closedir(d);
    if (xs != a2.a2a)
        free(xs);
    free(lines);
    free(pat);
    free(buf);
    free(m4);
    free(cs);
    ct_calib_result_free(&r);
    ct_bench_free(&pp);
    ct_bench_free(&a2);
    return rc;
}
