/* Communication patterns of a job, turned into node-level graphs for a given
 * layout (arcs with multiplicities; intra-node bytes counted aside). */
#ifndef CONTENTION_PATTERN_H
#define CONTENTION_PATTERN_H

#include <stdint.h>

#include "contention/commgraph.h"
#include "contention/error.h"
#include "contention/layout.h"

typedef enum ct_pattern_kind {
    CT_PAT_ALLTOALL = 0,
    CT_PAT_RING,      /* task i -> i+1 (mod n): HPL-like, paper 001 §VI-D */
    CT_PAT_HALVES,    /* task i <-> i + n/2 */
    CT_PAT_HALO2D,    /* 4-neighbour stencil on a near-square process grid */
    CT_PAT_HALO3D,    /* 6-neighbour stencil on a near-cubic process grid */
    CT_PAT_TRACE,     /* a trace file (simulate.h format) */
} ct_pattern_kind;

typedef struct ct_pattern {
    ct_pattern_kind kind;
    double bytes;          /* message size per communication */
    char trace[4096];      /* CT_PAT_TRACE: path of the trace */
} ct_pattern;

/* Parse "alltoall", "ring", "halves", "halo2d", "halo3d" or "trace:FILE". */
int ct_pattern_parse(const char *s, ct_pattern *p, ct_err *err);
const char *ct_pattern_name(ct_pattern_kind k);

/* Node-level traffic of pattern p under layout l: remote arcs into g
 * (initialised by this call), intra-node bytes per node into intra_bytes
 * (array of l->nnodes, may be NULL). */
int ct_pattern_graph(const ct_pattern *p, const ct_layout *l, ct_graph *g, double *intra_bytes,
                     ct_err *err);

#endif
