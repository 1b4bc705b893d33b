/* Stop & Go counting methods (internal to libcontention): the merged,
 * weighted conflict graph of the active communications, its components, and
 * the four ways to count a component's maximal sets of states. The paper's
 * model and its public entry points are in penalty_stopgo.c (001 §V-B); the
 * counting methods are our own (doc/models-penalty.md):
 *   stopgo_graph.c          merge multiplicities, split into components
 *   stopgo_count_closed.c   CLOSED: all-to-all in closed form (derangements)
 *   stopgo_count_enum.c     ENUM: Bron-Kerbosch enumeration
 *   stopgo_count_dp.c       DP: dynamic programme over the receiver frontier
 *   stopgo_count_mcmc.c     MCMC: heat-bath chain on maximal matchings
 */
#ifndef CONTENTION_STOPGO_COUNT_H
#define CONTENTION_STOPGO_COUNT_H

#include <stddef.h>
#include <stdint.h>

#include "contention/commgraph.h"
#include "contention/error.h"
#include "contention/penalty.h"

#include "stopgo.h" /* the paths, their limits and statistics */

#define SG_NONE UINT32_MAX

/* Merged, weighted bipartite graph over the active arcs, split in components */
typedef struct sg_graph {
    uint32_t narc;        /* distinct (src, dst) pairs */
    int32_t *asrc, *adst; /* per distinct arc, sorted by src */
    double *w;            /* total multiplicity of the pair */
    uint32_t *arc_of;     /* original arc -> distinct arc (SG_NONE: inactive) */
    uint32_t *sstart;     /* nnodes + 1: distinct arcs of source v */
    uint32_t ncomp;
    uint32_t *cstart;     /* ncomp + 1 into carcs */
    uint32_t *carcs;      /* distinct arcs grouped by component, sorted by src */
    double *pi;           /* Pr[the pair carries a sending copy] */
} sg_graph;

/* Builds sg from the active arcs of g (every pair's copies merged into one
 * weighted edge) with its connected components. */
int sg_build(const ct_graph *g, const unsigned char *active, sg_graph *sg, ct_err *err);
void sg_free(sg_graph *sg);

/* One component with local numbering */
typedef struct sg_comp {
    uint32_t m;           /* edges (distinct pairs) */
    uint32_t ns, nr;      /* senders, receivers */
    uint32_t *es, *er;    /* per edge: local sender, local receiver */
    double *w;
    uint32_t *sst, *sadj; /* sender -> edges (CSR) */
    uint32_t *rst, *radj; /* receiver -> edges (CSR) */
    double *pi;           /* result per edge */
} sg_comp;

/* Component ci of sg in local numbering; lmap_s, lmap_r: nnodes entries,
 * all SG_NONE on entry and on return. */
int sg_comp_build(const sg_graph *sg, uint32_t ci, uint32_t *lmap_s, uint32_t *lmap_r,
                  sg_comp *c);
void sg_comp_free(sg_comp *c);

/* CLOSED: when component ci is an all-to-all over n >= 3 nodes with
 * multiplicities a_u * b_v, fills sg->pi for its arcs and returns 1; 0 when
 * it does not apply or memory ran out (the caller then counts another way).
 * lmap: nnodes entries, all SG_NONE on entry and on return. */
int sg_closed(const sg_graph *sg, uint32_t ci, uint32_t *lmap);
/* The commonest large case straight from g (one multiplicity, every node
 * reaching every other): penalties written, returns 1; 0 when it does not
 * apply. */
int sg_fast_alltoall(const ct_graph *g, const unsigned char *active, double *penalty);
/* The three counting paths fill c->pi and return 0, 1 when they give up
 * (ENUM beyond max_steps or CT_STOPGO_ENUM_MAX_ARCS, DP beyond
 * SG_DP_MAX_FRONTIER or max_states), -1 when memory ran out.
 * ENUM: exact enumeration; *nsets (may be NULL): the weighted number of
 * maximal sets. */
int sg_enum(sg_comp *c, size_t max_steps, size_t *steps, double *nsets);
/* DP: exact dynamic programme; *peak: the largest table seen. */
int sg_dp(sg_comp *c, size_t max_states, size_t *peak);
/* MCMC: `updates` block updates from seed; *done: updates made. */
int sg_mcmc(sg_comp *c, uint64_t seed, size_t updates, size_t *done);

#endif
