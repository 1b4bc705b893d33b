/* pLogP models of collective communications (paper 003, Barchet-Estefanel
 * and Mounié): broadcast strategies (Table 1), scatter strategies (Table 2),
 * the segment-size search s = m / 2^i, and a best-strategy selector. The
 * All-to-All bounds of Table 3 are declared in alltoall.h.
 *
 * pLogP terms: g(m) the gap of an m-byte message (a measured table), L the
 * latency, P the number of processes; a segmented strategy splits m into
 * k = ceil(m / s) segments of s bytes. */
#ifndef CONTENTION_PLOGP_H
#define CONTENTION_PLOGP_H

#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"

/* Largest process count the models accept (the Chain scatter sums P - 1 terms). */
#define CT_PLOGP_MAX_P ((int64_t)1 << 24)

/* A measured gap table g(m): n points, m strictly ascending (bytes, >= 0),
 * g >= 0 (s). Not owned: the arrays stay the caller's. */
typedef struct ct_gap_table {
    size_t n;
    const double *m;
    const double *g;
} ct_gap_table;

/* pLogP parameters of a network: its gap table and latency L (s). */
typedef struct ct_plogp {
    ct_gap_table gap;
    double L;
} ct_plogp;

/* Check a gap table (n >= 1, finite, m strictly ascending and >= 0, g >= 0). */
int ct_gap_check(const ct_gap_table *t, ct_err *err);
/* g(m) from a checked table: linear between points; beyond the last point the
 * last segment's line is continued, below the first point the first
 * segment's, with a negative slope taken as 0 (a gap never shrinks as the
 * message grows) and the result never below 0. One point: constant. */
double ct_gap_eval(const ct_gap_table *t, double m);

typedef enum ct_bcast_strategy {
    CT_BCAST_FLAT = 0,     /* 003 Table 1 row 1 */
    CT_BCAST_FLAT_RDV,     /* row 2, rendezvous */
    CT_BCAST_SEG_FLAT,     /* row 3, segmented */
    CT_BCAST_CHAIN,        /* row 4 */
    CT_BCAST_CHAIN_RDV,    /* row 5 */
    CT_BCAST_SEG_CHAIN,    /* row 6, pipeline, segmented */
    CT_BCAST_BINARY,       /* row 7, an upper bound (<=) */
    CT_BCAST_BINOMIAL,     /* row 8 */
    CT_BCAST_BINOMIAL_RDV, /* row 9 */
    CT_BCAST_SEG_BINOMIAL, /* row 10, segmented */
    CT_BCAST_COUNT
} ct_bcast_strategy;

typedef enum ct_scatter_strategy {
    CT_SCATTER_FLAT = 0,        /* 003 Table 2 row 1 */
    CT_SCATTER_CHAIN,           /* row 2 */
    CT_SCATTER_PIPELINED_CHAIN, /* row 3 */
    CT_SCATTER_BINOMIAL,        /* row 4 */
    CT_SCATTER_COUNT
} ct_scatter_strategy;

/* Names as in 003's tables ("flat", "seg-chain", ...), NULL for a bad id. */
const char *ct_bcast_name(ct_bcast_strategy st);
const char *ct_scatter_name(ct_scatter_strategy st);
/* 1 when the strategy takes a segment size. */
int ct_bcast_is_segmented(ct_bcast_strategy st);
/* 1 when 003 gives the model as an upper bound (the Binary Tree row). */
int ct_bcast_is_upper_bound(ct_bcast_strategy st);

/* Broadcast time of strategy st for 2 <= P <= CT_PLOGP_MAX_P processes and
 * an m-byte message (m > 0). Segmented strategies use segment size s in
 * (0, m]; the others ignore s. */
int ct_plogp_bcast(const ct_plogp *p, ct_bcast_strategy st, int64_t P, double m, double s,
                   double *T, ct_err *err);
/* Scatter time of strategy st: the root sends a distinct m-byte message to
 * each of the other P - 1 processes (P >= 2, m > 0). */
int ct_plogp_scatter(const ct_plogp *p, ct_scatter_strategy st, int64_t P, double m, double *T,
                     ct_err *err);

/* Segment-size search of 003 §3: s = ceil(m / 2^i) bytes for
 * i = 0 .. floor(log2 m) (only s = m when m < 2); returns the argmin (the
 * largest such s on ties) and its time. st must be segmented. */
int ct_plogp_best_segment(const ct_plogp *p, ct_bcast_strategy st, int64_t P, double m,
                          double *s_best, double *T, ct_err *err);

typedef struct ct_plogp_choice {
    int strategy;    /* ct_bcast_strategy or ct_scatter_strategy */
    double time;     /* s, predicted (an upper bound when upper_bound) */
    double segment;  /* bytes, best segment size; 0 for unsegmented strategies */
    int upper_bound; /* 1 when `time` is the Binary Tree bound */
} ct_plogp_choice;

/* The fastest broadcast strategy for (P, m): every row of Table 1, segmented
 * ones at their best segment size; the Binary Tree competes with its bound.
 * Ties go to the lower strategy id. */
int ct_plogp_bcast_best(const ct_plogp *p, int64_t P, double m, ct_plogp_choice *out, ct_err *err);
/* The fastest scatter strategy of Table 2 for (P, m); ties to the lower id. */
int ct_plogp_scatter_best(const ct_plogp *p, int64_t P, double m, ct_plogp_choice *out,
                          ct_err *err);

/* pLogP All-to-All bounds (003 Table 3), P processes:
 *   upper = (P-1)*g(m) + (P-1)*o_r(m) + L,  lower = (P-1)*o_s(m) + (P-1)*o_r(m) + L,
 * and the prediction T = lower + (upper - lower) * upper_frac, upper_frac
 * being 003 §5.1's γ (003 used 2/3 on its GigE cluster; named apart from the
 * Alltoall signature's gamma, alltoall.h). P <= 1 gives 0 (no peers). */
double ct_plogp_a2a_upper(int64_t P, double g_m, double or_m, double L);
double ct_plogp_a2a_lower(int64_t P, double os_m, double or_m, double L);
double ct_plogp_a2a(int64_t P, double g_m, double os_m, double or_m, double L,
                    double upper_frac);

#endif
