/* Communication patterns of a job, turned into node-level graphs for a given
 * layout (arcs with multiplicities; intra-node bytes counted aside).
 *
 * Every pattern describes one exchange step in which all its communications
 * start together, each of p->bytes:
 *  - alltoall: every task sends to every other task;
 *  - ring:     task i sends to i+1 (mod n), the HPL-like scheme of 001 §VI-D;
 *  - halves:   tasks i and i + n/2 exchange (both directions), i < n/2; with an
 *              odd n the last task idles;
 *  - halo2d / halo3d: tasks on a near-square / near-cubic Cartesian grid
 *              (ct_grid_dims, row-major ranks as MPI_Cart_create numbers them)
 *              send to each grid neighbour (4 / 6 at most). The grid is NOT
 *              periodic: boundary tasks have fewer neighbours, as in a domain
 *              decomposition with physical boundaries;
 *  - halo2d-phased / halo3d-phased: the same grid, rank order and
 *              neighbours, exchanged dimension by dimension as stencil codes
 *              do (LAMMPS Comm::borders, MPI_Neighbor-less halo codes): phase
 *              d (d = 0 .. ndims-1, the slowest-varying dimension first)
 *              holds every task's exchanges with its two neighbours along
 *              dimension d, all concurrent; the phases run in sequence, the
 *              next starting when the previous one's last communication ends
 *              (bulk-synchronous). Every message is p->bytes (the ghosts a
 *              later phase forwards for an earlier one are not added). See
 *              doc/models-penalty.md "Phased halos";
 *  - trace:FILE: the communications of a trace (trace.h format), all taken
 *              as in flight at once for the graph (the scorer replays the
 *              trace with the simulator when it is built in).
 * Graph building is linear in tasks (alltoall: in node pairs), never in task
 * pairs.
 */
#ifndef CONTENTION_PATTERN_H
#define CONTENTION_PATTERN_H

#include <stdint.h>

#include "contention/commgraph.h"
#include "contention/error.h"
#include "contention/layout.h"
#include "contention/trace.h"

/* Message size ct_pattern_parse puts in p->bytes (callers override it). */
#define CT_PATTERN_DEFAULT_BYTES (1024.0 * 1024.0)

typedef enum ct_pattern_kind {
    CT_PAT_ALLTOALL = 0,
    CT_PAT_RING,      /* task i -> i+1 (mod n): HPL-like, paper 001 §VI-D */
    CT_PAT_HALVES,    /* task i <-> i + n/2 */
    CT_PAT_HALO2D,    /* 4-neighbour stencil on a near-square process grid */
    CT_PAT_HALO3D,    /* 6-neighbour stencil on a near-cubic process grid */
    CT_PAT_TRACE,     /* a trace file (simulate.h format) */
    CT_PAT_HALO2D_PHASED, /* halo2d, one phase per dimension, phases in sequence */
    CT_PAT_HALO3D_PHASED, /* halo3d, one phase per dimension, phases in sequence */
} ct_pattern_kind;

/* Most phases a pattern has (halo3d-phased). */
#define CT_PATTERN_MAX_PHASES 3

typedef struct ct_pattern {
    ct_pattern_kind kind;
    double bytes;          /* message size per communication */
    char trace[4096];      /* CT_PAT_TRACE: path of the trace */
    ct_trace_limits trace_limits; /* CT_PAT_TRACE: bounds on reading it (0: none) */
    /* point-to-point patterns: the links' idle time before each step (the
     * application's compute between its exchanges), s, when has_pause; a
     * token bucket refills then (signatures.h ct_fabric.bucket; score.c).
     * has_pause 0 (ct_pattern_parse's default): unknown, no refill term.
     * The phases of a phased halo after its first follow without a pause. */
    int has_pause;
    double pause;
} ct_pattern;

/* Parse "alltoall", "ring", "halves", "halo2d", "halo3d", "halo2d-phased",
 * "halo3d-phased" or "trace:FILE"; p->bytes is set to
 * CT_PATTERN_DEFAULT_BYTES. */
int ct_pattern_parse(const char *s, ct_pattern *p, ct_err *err);
const char *ct_pattern_name(ct_pattern_kind k);

/* Grid dimensions of a halo pattern (2 for halo2d[-phased], 3 for
 * halo3d[-phased]), 0 for the others. */
int ct_pattern_halo_dims(ct_pattern_kind k);

/* Phases of a pattern: its grid dimensions for the phased halos, else 1. */
int ct_pattern_nphases(const ct_pattern *p);

/* Balanced Cartesian grid for n tasks in ndims (1..3) dimensions, sizes in
 * non-increasing order with the smallest spread (as MPI_Dims_create does),
 * e.g. 12 -> 4x3, 65536 -> 64x32x32; a prime n gives n x 1 (x 1). */
int ct_grid_dims(int64_t n, int ndims, int32_t *dims, ct_err *err);

/* Node-level traffic of pattern p under layout l: remote arcs into g
 * (initialised by this call, merged: one arc per node pair), intra-node bytes
 * per node into intra_bytes (array of l->nnodes, may be NULL). For trace:FILE
 * the trace's task count must equal l->ntasks. A phased halo gives all its
 * phases together (the arcs of the unphased halo). */
int ct_pattern_graph(const ct_pattern *p, const ct_layout *l, ct_graph *g, double *intra_bytes,
                     ct_err *err);

/* The same for one phase (0 .. ct_pattern_nphases(p) - 1) of a phased halo;
 * phase 0 of any other pattern is ct_pattern_graph. */
int ct_pattern_graph_phase(const ct_pattern *p, int phase, const ct_layout *l, ct_graph *g,
                           double *intra_bytes, ct_err *err);

#endif
