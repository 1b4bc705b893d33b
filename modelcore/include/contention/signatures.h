/* The signature file: per-fabric model parameters an admin installed
 * (YAML, schema `version: 1`, documented in conf/README.md).
 *
 * The loader is shared by the plugin and contention-admin. It only reads
 * the path it is given; callers decide which paths are trusted.
 */
#ifndef CONTENTION_SIGNATURES_H
#define CONTENTION_SIGNATURES_H

#include <stddef.h>
#include <stdio.h>

#include "contention/alltoall.h"
#include "contention/error.h"
#include "contention/p2p.h"
#include "contention/penalty.h"
#include "contention/topology.h"

#define CT_NAME_MAX 64
#define CT_TEXT_MAX 256
#define CT_GAP_MAX 64
#define CT_TCP_CC_MAX 16 /* Linux TCP_CA_NAME_MAX, with its NUL */
#define CT_SIG_VERSION 1
#define CT_SIG_MAX_BYTES (4u << 20)   /* larger files are refused unread */
#define CT_SIG_MAX_FABRICS 1024
#define CT_SIG_MAX_PARTITIONS 4096

typedef struct ct_fabric {
    char name[CT_NAME_MAX];
    char description[CT_TEXT_MAX];
    int published;                 /* 1: a paper's published values, not measured here */
    char source[CT_TEXT_MAX];      /* provenance: paper and section, or calibration run */
    /* optional (our extension, session 62; YAML tcp_congestion_control): the
     * TCP congestion control the nodes ran when the fabric was calibrated
     * (Linux's net.ipv4.tcp_congestion_control, e.g. cubic), "" if unsaid.
     * Several nodes feeding one port cost up to 2.6 x as much under bbr as
     * under cubic (doc/accuracy-notes.md, "Session 61"): a signature prices
     * the one it was measured with. ct_tcp_cc_ok() says what a value may be. */
    char tcp_cc[CT_TCP_CC_MAX];

    /* point-to-point (Hockney) */
    double alpha;                  /* s */
    double beta;                   /* s/byte */
    char p2p_source[CT_TEXT_MAX];  /* where alpha/beta came from ("nominal ..."), "" if unsaid */
    /* optional piecewise Hockney curve (p2p.h; YAML p2p.segments); nseg = 0:
     * absent, alpha/beta above hold for every size. Read it through
     * ct_fabric_p2p_at(), never directly. */
    ct_p2p_curve p2p_segments;
    /* optional (our extension, session 15; YAML p2p.exchange_us, absent = 0):
     * the fixed time of one exchange step beyond its bytes, added once to
     * every phase of a point-to-point pattern that crosses the network
     * (score.c; trace patterns, replayed message by message by the
     * simulator, do not get it). > 0: host and MPI progress; < 0: the token
     * bucket a link refills between steps. Fitted by calibrate
     * (ct_fit_duplex). */
    double exchange;               /* s */
    /* optional (our extension, session 29; YAML p2p.bucket_bytes and
     * p2p.bucket_pause_us, absent = 0 = no term): a token bucket's refill.
     * A link shaped by a token bucket passes up to bucket bytes at the wire's
     * speed after it was idle long enough to refill (bucket / the sustained
     * rate); the exchange step above was fitted on calibrate's 2 x 1 Alltoall,
     * whose calls followed an idle time of bucket_pause each and so already
     * holds the refill of that pause. A pattern scored with its own pause
     * (ct_pattern.pause) gets the difference (phase_time.c, ct_refill_dt).
     * bucket: the burst calibrate reads off the ping-pong after an idle link
     * (p2p.h ct_p2p_sustained); bucket_pause: the median of the measured
     * idle times before those calls (ct-mpibench '# pause'). */
    double bucket;                 /* bytes */
    double bucket_pause;           /* s */
    /* optional pLogP gap table g(m), m ascending */
    size_t ngap;
    double gap_m[CT_GAP_MAX];      /* bytes */
    double gap_g[CT_GAP_MAX];      /* s */
    double plogp_L;                /* s, pLogP latency (0 = unknown) */

    /* Alltoall signature (000 eq. 5) and its provenance */
    int has_alltoall;
    ct_a2a_sig alltoall;
    char a2a_date[32];             /* ISO date of the fit, "" if unknown */
    int a2a_fitted_n;              /* processes used for the fit, 0 if unknown */
    double a2a_fit_error;          /* max relative error of the fit, < 0 if unknown */

    /* bandwidth-sharing penalty model (001 §V) */
    ct_penalty_model penalty;
    char penalty_source[CT_TEXT_MAX]; /* provenance of the penalty parameters, "" if unsaid */

    /* intra-node (shared-memory) bandwidth, bytes/s; <= 0: intra-node time ignored */
    double intra_bw;
    /* optional (our extension, session 55; YAML intra_node_shared_MBps, absent
     * = 0 = none): the rate at which all nodes together copy intra-node bytes
     * when they copy at once, written by calibrate only when it is well below
     * the node count x intra_bw (nodes that share one host: emulated or
     * virtual nodes); a point-to-point step's intra-node time is then at least
     * all nodes' intra-node bytes / this (intra_node.h). Real nodes copy
     * independently and have none. */
    double intra_shared_bw;
    /* optional (our extension, session 57; YAML intra_node_latency_us and
     * intra_node_line_MBps, the latency only with the rate; absent = 0 = none): the
     * intra-node path as a Hockney line (000 §3, alpha + m beta, applied to
     * the MPI library's intra-node transfers), read by calibrate off one
     * node's halves at two sizes. A point-to-point step whose node moves
     * b > 0 bytes within it takes intra_alpha + b / intra_line_bw there
     * instead of b / intra_bw (intra_node.h); intra_bw, the rate at
     * calibrate's largest size, stays the Alltoall's. */
    double intra_alpha;
    double intra_line_bw;
    /* the same line for all nodes at once (intra_node_shared_latency_us,
     * intra_node_shared_line_MBps; the latency only with the rate, the rate
     * only with intra_shared_bw): all nodes' b > 0 intra-node bytes take
     * intra_shared_alpha + b / intra_shared_line_bw. */
    double intra_shared_alpha;
    double intra_shared_line_bw;

    /* not in YAML (our extension, session 56): 1 prices a point-to-point
     * phase as paper 001 §IV-B does for every model, T = p (alpha + m beta),
     * the penalty multiplying the latency too; 0 (the default) does so for
     * the papers' models (gige, stopgo) only, and the fair-share models
     * (fairshare, duplex, tcpshare) divide a link's bandwidth, not its
     * latency: T = alpha + p m beta (phase_time.c). ct-accuracy-eval's
     * latency=penalized sets it. */
    int latency_in_penalty;

    /* the switch tree (topology.h), NULL for a single switch; owned by the
     * ct_sigfile it was loaded into (ct_sigfile_free frees it) */
    ct_topology *topology;
} ct_fabric;

typedef struct ct_partition_map {
    char partition[CT_NAME_MAX];
    size_t fabric;                 /* index into ct_sigfile.fabrics */
} ct_partition_map;

typedef struct ct_sigfile {
    int version;
    size_t nfabrics;
    ct_fabric *fabrics;
    size_t nparts;
    ct_partition_map *parts;
    long default_fabric;           /* index, or -1 when the file names no default */
} ct_sigfile;

/* Load and validate path. On error returns -1 with
 * "FILE:LINE:COL: what is wrong (what is accepted)" in err, and *out is left
 * empty (nothing to free). */
int ct_sigfile_load(const char *path, ct_sigfile *out, ct_err *err);
/* Same, from a memory buffer; `name` is used in messages in place of a path. */
int ct_sigfile_load_buffer(const char *name, const char *buf, size_t len, ct_sigfile *out,
                           ct_err *err);
void ct_sigfile_free(ct_sigfile *sf);

/* Fabric by name, or NULL. */
const ct_fabric *ct_sigfile_fabric(const ct_sigfile *sf, const char *name);
/* Fabric for a Slurm partition: its mapping if listed, else the default;
 * NULL partition means the default. NULL when neither exists. */
const ct_fabric *ct_sigfile_for_partition(const ct_sigfile *sf, const char *partition);

/* The point-to-point alpha (s) and beta (s/byte) for a message of m bytes:
 * the segment of p2p.segments holding m when the fabric has segments, else
 * the fabric's single alpha and beta. Every model asks this accessor. */
void ct_fabric_p2p_at(const ct_fabric *fab, double m, double *alpha, double *beta);

/* A fabric with every optional field at its "absent" value (published 0,
 * a2a_fit_error -1, penalty none, no pLogP table, intra_bw 0). */
void ct_fabric_init(ct_fabric *fab);
/* Check a fabric built in memory (e.g. by a fit) against the same rules the
 * loader applies to a file; message names the fabric, field and value. */
int ct_fabric_validate(const ct_fabric *fab, ct_err *err);
/* 1 when s can be a Linux TCP congestion control's name as a signature
 * records it: 1-15 characters from a-z 0-9 _ (the kernel's own are such,
 * e.g. cubic, bbr, reno, dctcp, htcp). */
int ct_tcp_cc_ok(const char *s);
/* 1 when c may stand in such a name (a-z 0-9 _): the one rule the bench
 * outputs' '# tcp:' line (benchparse.c) is read by too */
int ct_tcp_cc_char(char c);
/* Names of the YAML keys whose values differ between a and b, comma
 * separated into buf (e.g. "p2p.alpha_us, alltoall.gamma"); returns how many
 * differ (0: the fabrics are equivalent; a name change is not counted). */
size_t ct_fabric_diff(const ct_fabric *a, const ct_fabric *b, char *buf, size_t bufsz);
/* 1 when two loaded files carry the same fabrics, partitions and default. */
int ct_sigfile_equal(const ct_sigfile *a, const ct_sigfile *b);

/* Write sf as YAML that ct_sigfile_load reads back identically: bit for bit
 * for anything loaded from a file. The file stores Hockney beta as the
 * bandwidth 1/beta, and 1/x skips some doubles, so a beta computed in memory
 * (a fit) may come back one ulp away; a second write/load cycle is exact. */
int ct_sigfile_write(FILE *f, const ct_sigfile *sf, ct_err *err);
/* Write one fabric entry (the body under `fabrics:`), e.g. for `fit --out`. */
int ct_fabric_write(FILE *f, const ct_fabric *fab, ct_err *err);

#endif
