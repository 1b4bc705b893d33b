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

/* Uplink duplex of switch link l's switch (topology.h up_duplex; 0 when the
 * map has none): a communication on link l also takes this share of link
 * l ^ 1, the same uplink's other direction (our extension, session 11). */
static inline double links_duplex(const ct_tree_map *t, int32_t l)
{
    return t->up_duplex ? t->up_duplex[l / 2] : 0.0;
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
 * arc. *off has g->ncomm + 1 entries. Both freed by the caller (also on
 * error: set to NULL first). */
int links_routes(const ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                 size_t **off, int32_t **path, ct_err *err);

#endif
