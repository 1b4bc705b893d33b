/* Job geometry and task layouts, as Slurm builds them (paper 001 §VI-D's
 * RRP = Slurm "block", RRN = Slurm "cyclic"). No Slurm inside: callers pass
 * the strings Slurm puts in the environment. */
#ifndef CONTENTION_LAYOUT_H
#define CONTENTION_LAYOUT_H

#include <stdint.h>

#include "contention/error.h"

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

/* Parse Slurm's compressed CPU list, e.g. "4(x2),3,1(x5)". */
int ct_alloc_parse(const char *cpus_per_node, ct_alloc *a, ct_err *err);
void ct_alloc_free(ct_alloc *a);

/* Build the layout Slurm would produce for `dist` (cpus_per_task >= 1).
 * Fails when ntasks * cpus_per_task exceeds the allocation. */
int ct_layout_build(const ct_alloc *a, int32_t ntasks, int32_t cpus_per_task, ct_dist dist,
                    int32_t plane, uint64_t seed, ct_layout *out, ct_err *err);
void ct_layout_free(ct_layout *l);
/* Tasks on each node (array of l->nnodes). */
void ct_layout_counts(const ct_layout *l, int32_t *tasks_per_node);
/* Slurm's name for a distribution ("block", "cyclic", "plane=4", ...). */
const char *ct_dist_name(ct_dist d);

#endif
