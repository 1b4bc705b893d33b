/* A fabric's switch tree (issue 14): which nodes hang under which leaf
 * switch, how the switches nest, and each uplink's capacity. Loaded from the
 * `topology` section of a fabric in the signature file (conf/README.md);
 * `contention-admin topology import` writes that section from Slurm's
 * topology.conf / topology.yaml.
 *
 * Links of the tree as the models see them (penalty_links.c): each node has
 * a NIC out and a NIC in of the fabric's point-to-point bandwidth; each
 * switch but the root has an uplink (towards its parent) and a downlink
 * (from its parent) of its uplink capacity. A flow a -> b goes out of a's
 * NIC, up from a's leaf to the lowest common switch, down to b's leaf and
 * into b's NIC (the unique path of a tree: Slurm's topology/tree).
 */
#ifndef CONTENTION_TOPOLOGY_H
#define CONTENTION_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"

#define CT_TOPO_NAME_MAX 64
#define CT_TOPO_TEXT_MAX 256
#define CT_TOPO_MAX_SWITCHES 65536
#define CT_TOPO_MAX_NODES (1 << 20)

typedef struct ct_topo_switch {
    char name[CT_TOPO_NAME_MAX];
    int32_t parent;       /* index of the parent switch, -1 for the root */
    double uplink_bw;     /* uplink_MBps as written (bytes/s), 0 when not given */
    double oversub;       /* uplink_oversubscription as written, 0 when not given */
    double up_cap;        /* resolved uplink capacity, bytes/s (0 for the root) */
    double duplex;        /* uplink_duplex as written, 0 when not given: the share of
                             this uplink's one direction a communication in the
                             other direction takes (TCP's ACKs queued behind the
                             data of a saturated uplink; 0 = full duplex, <= 1) */
    int32_t depth;        /* root 0 */
} ct_topo_switch;

typedef struct ct_topology {
    char source[CT_TOPO_TEXT_MAX]; /* provenance, "" if unsaid */
    int32_t nswitches;
    ct_topo_switch *sw;
    int32_t nnodes;
    char (*node)[CT_TOPO_NAME_MAX]; /* node names, grouped by switch in file order */
    int32_t *node_switch;           /* the switch each node hangs under */
} ct_topology;

void ct_topology_free(ct_topology *t);
/* Deep copy (dst is overwritten, not freed first). */
int ct_topology_copy(ct_topology *dst, const ct_topology *src, ct_err *err);

/* Resolve and check the tree: exactly one root, no cycle, every non-root
 * switch with exactly one of uplink_bw > 0 / oversub >= 1 (the root with
 * neither, and no duplex), 0 <= duplex <= 1, unique switch and node names. An oversubscribed uplink's
 * capacity is the sum of the capacities below the switch (nic_bw per node,
 * each child's uplink) divided by the ratio. Fills depth and up_cap.
 * Messages name the switch and the value; *at_switch (may be NULL) receives
 * the index of the switch at fault, -1 when none is. */
int ct_topology_resolve(ct_topology *t, double nic_bw, int32_t *at_switch, ct_err *err);

/* Index of a node or a switch by name, -1 if absent. */
int32_t ct_topology_node(const ct_topology *t, const char *name);
int32_t ct_topology_switch(const ct_topology *t, const char *name);

/* 1 when a and b describe the same tree with the same capacities as written
 * (switch order and child order do not matter; node order within a switch
 * does not either). */
int ct_topology_equal(const ct_topology *a, const ct_topology *b);

/* The tree restricted to a job: graph node i (an allocation node, in the
 * order Slurm lists them) hangs under leaf[i]; capacities are in units of
 * one NIC (uplink bytes/s divided by the NIC's), which is what the link
 * model shares. Built by ct_tree_map_build from a topology and the job's
 * node names; ct_tree_map_flat puts n nodes under one switch. */
typedef struct ct_tree_map {
    int32_t nswitches;
    int32_t *parent;   /* per switch, -1 for the root */
    int32_t *depth;    /* per switch */
    double *up_cap;    /* per switch: uplink capacity / NIC bandwidth (root: 0) */
    double *up_duplex; /* per switch: its uplink_duplex; NULL: every uplink 0 */
    char (*name)[CT_TOPO_NAME_MAX]; /* per switch */
    int32_t nnodes;    /* graph nodes */
    int32_t *leaf;     /* per graph node: its switch */
} ct_tree_map;

/* names[0..n-1]: the job's nodes; a name the topology lacks is an error
 * naming it. nic_bw: bytes/s of one NIC (the fabric's 1/beta). */
int ct_tree_map_build(const ct_topology *t, double nic_bw, const char *const *names, int32_t n,
                      ct_tree_map *out, ct_err *err);
int ct_tree_map_flat(int32_t n, ct_tree_map *out, ct_err *err);
void ct_tree_map_free(ct_tree_map *m);
/* Number of distinct leaves the graph nodes use. */
int32_t ct_tree_map_leaves(const ct_tree_map *m);
/* Order of the graph nodes that keeps each switch's nodes together
 * (depth-first over the tree, switches in index order, nodes by index
 * within a leaf): perm[k] = the k-th node. Stable: an already switch-ordered
 * list gives the identity. */
int ct_tree_map_switch_order(const ct_tree_map *m, int32_t *perm, ct_err *err);

#endif
