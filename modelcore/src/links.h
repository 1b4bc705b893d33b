/* Routes on a job's switch tree (topology.h), shared by the link-level
 * composition (penalty_links.c) and the models whose link rule needs whole
 * routes (penalty_fairshare.c). Internal to libcontention.
 *
 * Switch links are numbered 2*s (switch s's uplink, towards its parent) and
 * 2*s + 1 (its downlink); link l's capacity is t->up_cap[l / 2], in NIC
 * units. NICs are not switch links: a node's NIC out and NIC in are priced
 * by the node-level model (or by the model's own tree rule). */
#ifndef CONTENTION_LINKS_H
#define CONTENTION_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include "contention/commgraph.h"
#include "contention/error.h"
#include "contention/topology.h"

/* An uplink direction is saturated -- a standing queue forms where its
 * communications offer more than it drains -- when it carries more than
 * LINKS_SATURATED x its capacity (NIC units: a communication offers one
 * NIC's rate). One flow at a NIC's rate through an uplink as fast as a NIC
 * is not (its queue forms at the sender's NIC). */
#define LINKS_SATURATED 1.1

/* Duplex share that a communication on switch link l pays (topology.h
 * up_duplex; our extension, session 11): its ACKs travel on l ^ 1, the same
 * uplink's other direction, and queue behind that direction's data only
 * where l ^ 1 is saturated (load_rev communications on it). 0 when the map
 * has no up_duplex. */
static inline double links_duplex(const ct_tree_map *t, int32_t l, double load_rev)
{
    if (!t->up_duplex || !(load_rev > LINKS_SATURATED * t->up_cap[l / 2]))
        return 0.0;
    return t->up_duplex[l / 2];
}

/* rw[l] (2 * t->nswitches zeroed entries filled): the weight a flow on
 * switch link l puts on l ^ 1, the uplink's other direction, from the
 * routes off/path of g's arcs (links_routes; an inactive arc has none):
 * links_duplex of that direction's load. Used by the fillings that couple
 * an uplink's two directions (the duplex and TCP shares). */
static inline void links_duplex_weights(const ct_tree_map *t, const ct_graph *g, const size_t *off,
                                        const int32_t *path, double *rw)
{
    const size_t nl = 2 * (size_t)t->nswitches;
    for (size_t i = 0; i < g->ncomm; i++) /* loads first */
        for (size_t j = off[i]; j < off[i + 1]; j++)
            rw[path[j]] += (double)g->comm[i].mult;
    for (size_t l = 0; l + 1 < nl; l += 2) {
        const double up = rw[l], down = rw[l + 1];
        rw[l] = links_duplex(t, (int32_t)l, down);
        rw[l + 1] = links_duplex(t, (int32_t)l + 1, up);
    }
}

/* Tasks under each switch (under[s], ns zeroed entries filled; the node's
 * leaf and every switch above it count its tasks), and the job's total. The
 * walk up stops after ns steps, so a parent cycle cannot hang it. */
static inline double links_tasks_under(const ct_tree_map *t, const int32_t *tasks, double *under)
{
    double n = 0;
    for (int32_t v = 0; v < t->nnodes; v++) {
        n += tasks[v];
        int32_t steps = 0;
        for (int32_t x = t->leaf[v]; x >= 0 && steps <= t->nswitches; x = t->parent[x], steps++)
            under[x] += tasks[v];
    }
    return n;
}

/* Longest route: up and down a tree of at most LINKS_MAX_DEPTH levels. */
#define LINKS_MAX_DEPTH 60
#define LINKS_MAX_ROUTE 128

/* Switch links of a flow from graph node a to graph node b, in route order
 * (up from a's leaf to the lowest common switch, then down to b's leaf):
 * the count, at most LINKS_MAX_ROUTE, written to out[]. */
size_t links_route(const ct_tree_map *t, int32_t a, int32_t b, int32_t *out);

/* The routes of g's active arcs (active NULL: all) in one array: arc i's
 * switch links are (*path)[(*off)[i] .. (*off)[i + 1]), none for an inactive
 * arc, none for any arc when t is NULL (one switch). *off has g->ncomm + 1 entries. Both freed by the caller (also on
 * error: set to NULL first). */
int links_routes(const ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                 size_t **off, int32_t **path, ct_err *err);

/* Max-min fair share by progressive filling over every link of g's active
 * arcs' routes (t NULL: one switch, the NICs only), each unfrozen arc rising
 * at weight[i] x the common level (weight NULL: all 1, the max-min baseline
 * of penalty_fairshare.c bit for bit): penalty[i] = 1 / its rate (in NIC
 * units) for each active arc, 0 for the others. uplink_duplex: each flow on
 * switch link l also weighs links_duplex() in l ^ 1 (0: the uplinks' duplex
 * share is not used). Defined in penalty_fairshare.c. */
int links_fair_penalties(const ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                         const double *weight, int uplink_duplex, double *penalty, ct_err *err);

#endif
