/* Stop & Go internals (paper 001 §V-B, penalty_stopgo.c): the counting
 * paths, their limits and statistics, and the entry point that lets tests
 * and benchmarks force a path and read what was done. Not part of the
 * public API (contention/penalty.h has the model's entry points). */
#ifndef CONTENTION_STOPGO_H
#define CONTENTION_STOPGO_H

#include <stddef.h>

#include "contention/penalty.h"

/* How a component of the conflict graph may be evaluated (tests and benches
 * force one to measure it; SG_ANY lets the method choose). */
typedef enum sg_path {
    SG_ANY = 0,
    SG_CLOSED,   /* closed form: all-to-all with rank-one multiplicities */
    SG_DP,       /* exact frontier dynamic programme (exponential in frontier width) */
    SG_ENUM,     /* exact enumeration of the maximal sets */
    SG_MCMC,     /* Markov-chain Monte Carlo estimate (seeded) */
} sg_path;

typedef struct sg_opts {
    ct_stopgo_method method;
    unsigned long seed;       /* MCMC seed; 0 = default */
    sg_path force;     /* SG_ANY, or the one path every component must take */
    size_t enum_max_steps;    /* search-tree nodes for ENUM; 0 = CT_STOPGO_ENUM_MAX_STEPS */
    size_t dp_max_states;     /* stored DP states; 0 = SG_DP_MAX_STATES */
    size_t mcmc_updates;      /* MCMC block updates per component; 0 = automatic */
} sg_opts;

typedef struct sg_stats {
    size_t components;        /* connected components of the conflict graph */
    size_t closed, dp, enumerated, mcmc;  /* components evaluated by each path */
    size_t max_dp_states;     /* largest DP table built */
    size_t enum_steps;        /* search-tree nodes visited by ENUM */
    size_t mcmc_updates;      /* block updates run by MCMC */
} sg_stats;

#define SG_DP_MAX_STATES ((size_t)1 << 21)
#define SG_DP_MAX_FRONTIER 32                  /* receivers open at once in the DP */

/* Stop & Go penalties with options, an active mask (NULL: all arcs) and
 * statistics (st may be NULL). */
int stopgo_penalties_ex(const sg_opts *o, const ct_graph *g, const unsigned char *active,
                           double *penalty, sg_stats *st, ct_err *err);

#endif
