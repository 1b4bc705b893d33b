/* Job geometry and task layouts, as Slurm builds them (paper 001 §VI-D's
 * RRP = Slurm "block", RRN = Slurm "cyclic"). No Slurm inside: callers pass
 * plain arrays (ct_alloc); the front ends parse Slurm's environment strings
 * with libctslurm (slurmfmt/include/ctslurm/slurmfmt.h).
 *
 * The layouts follow Slurm 22.05's step layout (src/common/slurm_step_layout.c,
 * read, not copied), checked against real `srun -l` output by
 * tests/integration/test_localcluster_layouts.sh:
 *  - each node offers floor(cpus / cpus_per_task) task slots (at least 1);
 *  - block: the number of tasks per node is found by dealing tasks one per
 *    node in rounds (a node takes part in round j while j < its slots), then
 *    consecutive task ids fill the nodes in order. On an uneven allocation
 *    this is NOT "fill node 0 first": -n10 over 4,4,4,4 gives 3,3,2,2;
 *  - cyclic: the same rounds, task ids dealt in round order (RRN);
 *  - plane=k: rounds of up to k tasks per node (the first round starts with
 *    one task on every node), task ids dealt in blocks of k;
 *  - with fewer tasks than nodes, the step runs on ntasks nodes, one task
 *    each, whatever the distribution: the first ntasks nodes up to Slurm
 *    24.05.4; from 24.05.5 the ones after the job's previous step (see "Step
 *    nodes" below: ct_layout_build_step).
 * SelectTypeParameters=CR_PACK_NODES and block:...:pack are not modelled.
 */
#ifndef CONTENTION_LAYOUT_H
#define CONTENTION_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"

#define CT_ALLOC_MAX_NODES (1 << 20)   /* larger allocations are refused */
#define CT_ALLOC_MAX_CPUS 65535        /* per node, Slurm's uint16_t limit */

typedef enum ct_dist {
    CT_DIST_BLOCK = 0,   /* fill a node's CPUs before the next (RRP) */
    CT_DIST_CYCLIC,      /* one task per node in turn (RRN) */
    CT_DIST_PLANE,       /* blocks of `plane` tasks dealt cyclically */
    CT_DIST_RANDOM,      /* seeded random placement within CPU limits */
    CT_DIST_EXPLICIT,    /* a given task -> node list */
} ct_dist;

/* The allocation: CPUs usable on each allocated node, in node order. */
typedef struct ct_alloc {
    int32_t nnodes;
    int32_t *cpus;
} ct_alloc;

/* A layout: node_of[task] for ntasks tasks over nnodes nodes. */
typedef struct ct_layout {
    int32_t ntasks;
    int32_t nnodes;
    int32_t *node_of;
    ct_dist dist;
    int32_t plane;
} ct_layout;

/* An allocation of nnodes nodes with `cpus` CPUs each. */
int ct_alloc_uniform(int32_t nnodes, int32_t cpus, ct_alloc *a, ct_err *err);
/* Copy `in` with every node limited to max_cpus CPUs (how Slurm applies
 * --ntasks-per-node: max_cpus = ntasks_per_node * cpus_per_task). */
int ct_alloc_cap(const ct_alloc *in, int32_t max_cpus, ct_alloc *out, ct_err *err);
/* Sum of the CPUs. */
int64_t ct_alloc_total(const ct_alloc *a);
/* Task slots Slurm sees: sum over nodes of max(1, cpus / cpus_per_task). */
int64_t ct_alloc_slots(const ct_alloc *a, int32_t cpus_per_task);
/* Node i's task slots: max(1, cpus / cpus_per_task). */
int32_t ct_alloc_node_slots(const ct_alloc *a, int32_t i, int32_t cpus_per_task);
void ct_alloc_free(ct_alloc *a);

/* Build the layout Slurm would produce for `dist` (cpus_per_task >= 1,
 * plane >= 1 for CT_DIST_PLANE, seed for CT_DIST_RANDOM). Fails when ntasks
 * exceeds the task slots (Slurm would need --overcommit) and for
 * CT_DIST_EXPLICIT (use ct_layout_explicit). */
int ct_layout_build(const ct_alloc *a, int32_t ntasks, int32_t cpus_per_task, ct_dist dist,
                    int32_t plane, uint64_t seed, ct_layout *out, ct_err *err);
/* ---- Step nodes: which of the allocation's nodes a step runs on, per Slurm
 * release (our reading of slurmctld's _pick_step_nodes_cpus; the rules are
 * in modelcore/src/step_nodes.c). Up to 24.05.4 a step that needs fewer
 * nodes than the allocation takes the first ones; from 24.05.5 (ticket
 * 19960) slurmctld starts where the job's previous step left off (its
 * next_step_node_inx), and 26.05 moves that start differently from 24.11.
 * ct_layout_build is the 22.05 rule with the first node 0. */

/* A release as Slurm's SLURM_VERSION_NUM: 24.11.5 -> (24 << 16) | (11 << 8) | 5 */
#define CT_SLURM_VERSION(maj, min, micro) \
    ((uint32_t)(((uint32_t)(maj) << 16) | ((uint32_t)(min) << 8) | (uint32_t)(micro)))
/* "24.11.5", "26.05", "22.05.8-1" -> CT_SLURM_VERSION(...) */
int ct_slurm_version_parse(const char *s, uint32_t *v, ct_err *err);

typedef struct ct_step_rules {
    uint32_t slurm_version; /* CT_SLURM_VERSION; 0: the 22.05 rules */
    /* from 24.05.5: the node the job's next step starts at (0 for the job's
     * first step; what ct_step_nodes returned as next_first_node for the
     * previous one), -1 when not known: a step on fewer nodes than the
     * allocation is then "not modelled" (an error naming why) */
    int32_t first_node;
} ct_step_rules;

/* picked[i] = 1 for the allocation nodes the step runs on (array of
 * a->nnodes); *next_first_node (may be NULL): the first node of the job's
 * next step, -1 when not known. A step on all nodes never depends on
 * first_node. Fails (with "not modelled" in the message) when first_node
 * matters and is -1, or when Slurm would find no such node set. */
int ct_step_nodes(const ct_alloc *a, int32_t ntasks, int32_t cpus_per_task,
                  const ct_step_rules *r, unsigned char *picked, int32_t *next_first_node,
                  ct_err *err);
/* ct_layout_build on the step's nodes (ct_step_nodes) for release r. */
int ct_layout_build_step(const ct_alloc *a, int32_t ntasks, int32_t cpus_per_task, ct_dist dist,
                         int32_t plane, uint64_t seed, const ct_step_rules *r, ct_layout *out,
                         int32_t *next_first_node, ct_err *err);

/* A layout from a given task -> node list (copied); every entry must be in
 * 0..nnodes-1. */
int ct_layout_explicit(int32_t nnodes, int32_t ntasks, const int32_t *node_of, ct_layout *out,
                       ct_err *err);
void ct_layout_free(ct_layout *l);
/* Tasks on each node (array of l->nnodes). */
void ct_layout_counts(const ct_layout *l, int32_t *tasks_per_node);
/* Slurm's name for a distribution ("block", "cyclic", "plane", "random",
 * "explicit"). */
const char *ct_dist_name(ct_dist d);
/* The full name of a distribution as Slurm's -m takes it: "block",
 * "cyclic", "plane=4", "random", "explicit". Returns buf. */
const char *ct_dist_label(ct_dist d, int32_t plane, char *buf, size_t bufsz);
/* Parse "block", "cyclic", "plane=K" or "random" (what ct_dist_label
 * prints; Slurm's second-level suffixes such as "block:cyclic" are refused). */
int ct_dist_parse(const char *s, ct_dist *d, int32_t *plane, ct_err *err);

#endif
