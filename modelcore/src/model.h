/* The penalty-model interface (internal to libcontention).
 *
 * Each model defines one `const model_ops model_<name>` in its own
 * file and is listed once in contention/models.def; models.c builds the
 * registry from that list. Engines and front ends reach a model only
 * through these operations. doc/adding-a-model.md walks through a new one.
 */
#ifndef CONTENTION_MODEL_H
#define CONTENTION_MODEL_H

#include "contention/models.h"
#include "contention/topology.h"

#include "gige_incremental.h"

typedef struct model_ops {
    ct_model_info info; /* name, paper, YAML keys (contention/models.h) */
    /* Rules beyond each key's range (parameters not in YAML, relations
     * between keys); NULL: none. Called after the keys were checked. */
    int (*check)(const ct_penalty_model *m, ct_err *err);
    /* Penalty of each active arc of g (active NULL: all), 0 for the others.
     * m has passed ct_model_check. Must not write penalty[] when g has no arc. */
    int (*penalties)(const ct_penalty_model *m, const ct_graph *g, const unsigned char *active,
                     double *penalty, ct_err *err);
    /* Optional incremental hooks over an engine's network state
     * (gige_incremental.h). Both NULL: engines re-apply `penalties` to the
     * connected components that changed. inc_init (may be NULL when
     * inc_commit is set) prepares the state for m; inc_commit folds in the
     * links and unlinks since the last commit and lists in net->touched[]
     * every link whose penalty may have changed, its penalty in tpen[]
     * (every newly linked link must be listed). -1: out of memory. */
    int (*inc_init)(gnet *net, const ct_penalty_model *m);
    int (*inc_commit)(gnet *net);
    /* How the model behaves on a switch tree (topology.h; penalty_links.c,
     * our extension of 001's one-switch models). Set exactly one:
     *  - link_penalty: the penalty a switch link of capacity cap (in NIC
     *    bandwidths) carrying load communications in flight gives each of
     *    them (load counts the other direction's at the uplink's duplex
     *    share where that one is saturated: links.h links_duplex). The generic composition keeps `penalties` on the NICs and
     *    gives each communication the largest of its node-level penalty and
     *    its route's link penalties (001 §V-A's max over the links it uses).
     *  - tree_penalties: the whole tree computed by the model, for sharing
     *    that couples the links of a route (max-min fair share); routes from
     *    links.h. t has as many nodes as g (checked), m has passed
     *    ct_model_check. Same contract as `penalties` otherwise.
     * Either way, with every node under one switch the penalties must be
     * `penalties`' bit for bit (test_models checks it). */
    double (*link_penalty)(const ct_penalty_model *m, double load, double cap);
    int (*tree_penalties)(const ct_penalty_model *m, const ct_tree_map *t, const ct_graph *g,
                          const unsigned char *active, double *penalty, ct_err *err);
} model_ops;

/* The ops of kind k, or NULL when k is not registered. */
const model_ops *model_ops_of(ct_model_kind k);

/* Declarations of every model's ops, from the registry. */
#define CT_MODEL(ID, ops) extern const model_ops ops;
#include "contention/models.def"
#undef CT_MODEL

#endif
