/* Node-level communication graph (paper 001 §IV-A, §V).
 *
 * Vertices are cluster nodes, arcs are communications between two distinct
 * nodes. Intra-node communications never load the network and are kept out
 * of the graph (the pattern/score layer accounts for them separately).
 * An arc carries a multiplicity: `mult` identical task-level communications
 * between the same pair of nodes (e.g. 4 tasks on node A each sending to one
 * of 4 tasks on node B gives one arc A->B with mult = 4). Every model works
 * on multiplicities, never on enumerated task pairs, so that a 1,024-node x
 * 64-task job stays cheap. A plain graph of single communications is the
 * special case mult = 1 everywhere.
 */
#ifndef CONTENTION_COMMGRAPH_H
#define CONTENTION_COMMGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"

typedef struct ct_comm {
    int32_t src;   /* source node, 0..nnodes-1 */
    int32_t dst;   /* destination node, != src */
    int64_t mult;  /* number of identical communications on this arc, >= 1 */
    double bytes;  /* bytes of EACH of the mult communications */
} ct_comm;

typedef struct ct_graph {
    int32_t nnodes;
    size_t ncomm;
    size_t cap;
    ct_comm *comm;
} ct_graph;

/* Initialise an empty graph over nnodes nodes. */
int ct_graph_init(ct_graph *g, int32_t nnodes, ct_err *err);
void ct_graph_free(ct_graph *g);
/* Append mult communications src->dst of `bytes` each. src == dst is
 * rejected (intra-node traffic is not network traffic). Arcs are not merged:
 * call ct_graph_coalesce() to merge identical (src, dst, bytes) arcs. */
int ct_graph_add(ct_graph *g, int32_t src, int32_t dst, int64_t mult, double bytes, ct_err *err);
/* Sort arcs by (src, dst, bytes) and merge duplicates by summing mult. */
void ct_graph_coalesce(ct_graph *g);
/* Total communications (sum of mult). */
int64_t ct_graph_total(const ct_graph *g);
/* Per-node degrees counted in communications (sum of mult):
 * out[v] = Δo(v), in[v] = Δi(v) of paper 001 §V-A. Arrays of nnodes. */
void ct_graph_degrees(const ct_graph *g, int64_t *out, int64_t *in);
/* Same, counting only arcs i with active[i] != 0 (active == NULL: all arcs).
 * Used to re-apply a model to the communications still in flight. */
void ct_graph_degrees_active(const ct_graph *g, const unsigned char *active, int64_t *out,
                             int64_t *in);

#endif
