/* Job geometry -> task layouts the way Slurm 22.05 lays out a step
 * (paper 001 §VI-D: RRP = block, RRN = cyclic). See layout.h for the rules;
 * every loop here is linear in nodes + tasks so that 1,024-node x 64-task
 * jobs stay cheap even on very uneven allocations. */
#include "contention/layout.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CT_RANDOM_MAX_SLOTS (1L << 26) /* random layouts shuffle one entry per slot */

int ct_alloc_uniform(int32_t nnodes, int32_t cpus, ct_alloc *a, ct_err *err)
{
    a->nnodes = 0;
    a->cpus = NULL;
    if (nnodes < 1 || nnodes > CT_ALLOC_MAX_NODES)
        return ct_err_set(err, "node count %d out of range (1..%d)", (int)nnodes,
                          CT_ALLOC_MAX_NODES);
    if (cpus < 1 || cpus > CT_ALLOC_MAX_CPUS)
        return ct_err_set(err, "CPU count %d out of range (1..%d)", (int)cpus, CT_ALLOC_MAX_CPUS);
    a->cpus = malloc((size_t)nnodes * sizeof *a->cpus);
    if (!a->cpus)
        return ct_err_set(err, "out of memory for %d nodes", (int)nnodes);
    for (int32_t i = 0; i < nnodes; i++)
        a->cpus[i] = cpus;
    a->nnodes = nnodes;
    return 0;
}

int ct_alloc_cap(const ct_alloc *in, int32_t max_cpus, ct_alloc *out, ct_err *err)
{
    out->nnodes = 0;
    out->cpus = NULL;
    if (!in || in->nnodes < 1 || !in->cpus)
        return ct_err_set(err, "empty allocation");
    if (max_cpus < 1)
        return ct_err_set(err, "CPU cap %d out of range (>= 1)", (int)max_cpus);
    out->cpus = malloc((size_t)in->nnodes * sizeof *out->cpus);
    if (!out->cpus)
        return ct_err_set(err, "out of memory for %d nodes", (int)in->nnodes);
    for (int32_t i = 0; i < in->nnodes; i++)
        out->cpus[i] = in->cpus[i] < max_cpus ? in->cpus[i] : max_cpus;
    out->nnodes = in->nnodes;
    return 0;
}

int64_t ct_alloc_total(const ct_alloc *a)
{
    int64_t t = 0;
    for (int32_t i = 0; a && i < a->nnodes; i++)
        t += a->cpus[i];
    return t;
}

static int32_t node_slots(int32_t cpus, int32_t cpus_per_task)
{
    /* Slurm gives a node at least one task even when cpus < cpus_per_task
     * (heterogeneous allocations, slurm_step_layout.c). */
    int32_t s = cpus / cpus_per_task;
    return s < 1 ? 1 : s;
}

int32_t ct_alloc_node_slots(const ct_alloc *a, int32_t i, int32_t cpus_per_task)
{
    return node_slots(a->cpus[i], cpus_per_task < 1 ? 1 : cpus_per_task);
}

int64_t ct_alloc_slots(const ct_alloc *a, int32_t cpus_per_task)
{
    if (cpus_per_task < 1)
        cpus_per_task = 1;
    int64_t t = 0;
    for (int32_t i = 0; a && i < a->nnodes; i++)
        t += node_slots(a->cpus[i], cpus_per_task);
    return t;
}

void ct_alloc_free(ct_alloc *a)
{
    if (!a)
        return;
    free(a->cpus);
    a->cpus = NULL;
    a->nnodes = 0;
}

/* ------------------------------------------------------------------ */
/* layouts */

const char *ct_dist_name(ct_dist d)
{
    switch (d) {
    case CT_DIST_BLOCK:
        return "block";
    case CT_DIST_CYCLIC:
        return "cyclic";
    case CT_DIST_PLANE:
        return "plane";
    case CT_DIST_RANDOM:
        return "random";
    case CT_DIST_EXPLICIT:
        return "explicit";
    }
    return "unknown";
}

const char *ct_dist_label(ct_dist d, int32_t plane, char *buf, size_t bufsz)
{
    if (!buf || bufsz == 0)
        return "";
    if (d == CT_DIST_PLANE)
        snprintf(buf, bufsz, "plane=%d", (int)plane);
    else
        snprintf(buf, bufsz, "%s", ct_dist_name(d));
    return buf;
}

int ct_dist_parse(const char *s, ct_dist *d, int32_t *plane, ct_err *err)
{
    static const char *const accepted = "accepted: block, cyclic, plane=K (K >= 1), random";
    if (!s || !*s)
        return ct_err_set(err, "empty distribution (%s)", accepted);
    if (strcmp(s, "block") == 0) {
        *d = CT_DIST_BLOCK;
        *plane = 0;
        return 0;
    }
    if (strcmp(s, "cyclic") == 0) {
        *d = CT_DIST_CYCLIC;
        *plane = 0;
        return 0;
    }
    if (strcmp(s, "random") == 0) {
        *d = CT_DIST_RANDOM;
        *plane = 0;
        return 0;
    }
    if (strncmp(s, "plane=", 6) == 0) {
        const char *p = s + 6;
        char *end = NULL;
        errno = 0;
        long k = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1;
        if (k < 1 || k > CT_ALLOC_MAX_CPUS || errno || *end)
            return ct_err_set(err, "bad plane size in distribution '%s' (%s)", s, accepted);
        *d = CT_DIST_PLANE;
        *plane = (int32_t)k;
        return 0;
    }
    return ct_err_set(err, "unknown distribution '%s' (%s)", s, accepted);
}

/* Compacts `act` (node indices, in node order) to the nodes for which
 * keep(i) holds; returns the new length. */
static int32_t compact(int32_t *act, int32_t n, const int32_t *have, const int32_t *limit)
{
    int32_t w = 0;
    for (int32_t r = 0; r < n; r++)
        if (have[act[r]] < limit[act[r]])
            act[w++] = act[r];
    return w;
}

/* Block: how many tasks each node gets when tasks are dealt one per node in
 * rounds (a node joins round j while j < slots), as slurm_step_layout.c
 * does before numbering the tasks consecutively. */
static void block_counts(const int32_t *slots, int32_t nnodes, int32_t ntasks, int32_t *cnt,
                         int32_t *act)
{
    int32_t nact = 0;
    for (int32_t i = 0; i < nnodes; i++) {
        cnt[i] = 0;
        act[nact++] = i;
    }
    int32_t left = ntasks;
    while (left > 0 && nact > 0) {
        if (left >= nact) {
            /* a whole round: every active node takes one */
            for (int32_t r = 0; r < nact; r++)
                cnt[act[r]]++;
            left -= nact;
        } else {
            for (int32_t r = 0; r < left; r++)
                cnt[act[r]]++;
            left = 0;
        }
        nact = compact(act, nact, cnt, slots);
    }
}

static void layout_cyclic(const int32_t *slots, int32_t nnodes, int32_t ntasks, int32_t *node_of,
                          int32_t *cnt, int32_t *act)
{
    int32_t nact = 0;
    for (int32_t i = 0; i < nnodes; i++) {
        cnt[i] = 0;
        act[nact++] = i;
    }
    int32_t t = 0;
    while (t < ntasks && nact > 0) {
        for (int32_t r = 0; r < nact && t < ntasks; r++) {
            node_of[t++] = act[r];
            cnt[act[r]]++;
        }
        nact = compact(act, nact, cnt, slots);
    }
}

/* Plane: counts per node (rounds of up to `plane` tasks per node, the first
 * round starting with one task on every node), then task ids dealt in
 * blocks of `plane` over the nodes that still have tasks to receive. */
static void layout_plane(const int32_t *slots, int32_t nnodes, int32_t ntasks, int32_t plane,
                         int32_t *node_of, int32_t *cnt, int32_t *act)
{
    int32_t left = ntasks;
    int32_t nact = 0;
    for (int32_t i = 0; i < nnodes; i++) {
        cnt[i] = 0;
        if (left > 0) {
            cnt[i] = 1;
            left--;
        }
        act[nact++] = i;
    }
    int first = 1;
    while (left > 0 && nact > 0) {
        for (int32_t r = 0; r < nact && left > 0; r++) {
            int32_t i = act[r];
            int32_t want = first ? plane - 1 : plane;
            int32_t room = slots[i] - cnt[i];
            int32_t take = want < room ? want : room;
            if (take > left)
                take = left;
            if (take > 0) {
                cnt[i] += take;
                left -= take;
            }
        }
        first = 0;
        nact = compact(act, nact, cnt, slots);
    }
    /* numbering: cycles over the nodes that still expect tasks, each taking
     * a block of up to `plane` ids; cnt counts down what is still owed */
    nact = 0;
    for (int32_t i = 0; i < nnodes; i++)
        if (cnt[i] > 0)
            act[nact++] = i;
    int32_t t = 0;
    while (t < ntasks && nact > 0) {
        int32_t w = 0;
        for (int32_t r = 0; r < nact; r++) {
            int32_t i = act[r];
            for (int32_t k = 0; k < plane && cnt[i] > 0 && t < ntasks; k++) {
                node_of[t++] = i;
                cnt[i]--;
            }
            if (cnt[i] > 0)
                act[w++] = i;
        }
        nact = w;
    }
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias. */
static uint64_t rand_below(uint64_t *s, uint64_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do {
        r = splitmix64(s);
    } while (r >= lim);
    return r % n;
}

static int layout_random(const int32_t *slots, int32_t nnodes, int32_t ntasks, uint64_t seed,
                         int64_t total_slots, int32_t *node_of, ct_err *err)
{
    if (total_slots > CT_RANDOM_MAX_SLOTS)
        return ct_err_set(err, "random layout over %lld task slots refused (at most %ld)",
                          (long long)total_slots, CT_RANDOM_MAX_SLOTS);
    int32_t *slot_node = malloc((size_t)total_slots * sizeof *slot_node);
    if (!slot_node)
        return ct_err_set(err, "out of memory for %lld task slots", (long long)total_slots);
    int64_t k = 0;
    for (int32_t i = 0; i < nnodes; i++)
        for (int32_t j = 0; j < slots[i]; j++)
            slot_node[k++] = i;
    /* partial Fisher-Yates: the first ntasks entries are a uniform sample
     * of slots in uniform order */
    uint64_t st = seed;
    for (int32_t t = 0; t < ntasks; t++) {
        int64_t j = t + (int64_t)rand_below(&st, (uint64_t)(total_slots - t));
        int32_t tmp = slot_node[t];
        slot_node[t] = slot_node[j];
        slot_node[j] = tmp;
        node_of[t] = slot_node[t];
    }
    free(slot_node);
    return 0;
}

int ct_layout_build(const ct_alloc *a, int32_t ntasks, int32_t cpus_per_task, ct_dist dist,
                    int32_t plane, uint64_t seed, ct_layout *out, ct_err *err)
{
    memset(out, 0, sizeof *out);
    if (!a || a->nnodes < 1 || !a->cpus)
        return ct_err_set(err, "empty allocation (no nodes)");
    if (ntasks < 1)
        return ct_err_set(err, "task count %d out of range (>= 1)", (int)ntasks);
    if (cpus_per_task < 1)
        return ct_err_set(err, "cpus per task %d out of range (>= 1)", (int)cpus_per_task);
    if (dist == CT_DIST_PLANE && plane < 1)
        return ct_err_set(err, "plane size %d out of range (>= 1)", (int)plane);
    if (dist == CT_DIST_EXPLICIT)
        return ct_err_set(err, "an explicit layout is given, not built (use ct_layout_explicit)");
    if (dist != CT_DIST_BLOCK && dist != CT_DIST_CYCLIC && dist != CT_DIST_PLANE &&
        dist != CT_DIST_RANDOM)
        return ct_err_set(err, "unknown distribution %d (accepted: block, cyclic, plane, random)",
                          (int)dist);
    int32_t n = a->nnodes;
    int64_t total = ct_alloc_slots(a, cpus_per_task);
    if (ntasks > total)
        return ct_err_set(err,
                          "%d tasks do not fit in the allocation's %lld task slots "
                          "(%d nodes, %d cpus per task): Slurm would need --overcommit",
                          (int)ntasks, (long long)total, (int)n, (int)cpus_per_task);
    int32_t *slots = malloc((size_t)n * sizeof *slots);
    int32_t *cnt = malloc((size_t)n * sizeof *cnt);
    int32_t *act = malloc((size_t)n * sizeof *act);
    int32_t *node_of = malloc((size_t)ntasks * sizeof *node_of);
    int rc = 0;
    if (!slots || !cnt || !act || !node_of) {
        rc = ct_err_set(err, "out of memory for a %d-task layout", (int)ntasks);
        goto fail;
    }
    for (int32_t i = 0; i < n; i++)
        slots[i] = node_slots(a->cpus[i], cpus_per_task);

    switch (dist) {
    case CT_DIST_BLOCK: {
        block_counts(slots, n, ntasks, cnt, act);
        int32_t t = 0;
        for (int32_t i = 0; i < n; i++)
            for (int32_t j = 0; j < cnt[i]; j++)
                node_of[t++] = i;
        break;
    }
    case CT_DIST_CYCLIC:
        layout_cyclic(slots, n, ntasks, node_of, cnt, act);
        break;
    case CT_DIST_PLANE:
        layout_plane(slots, n, ntasks, plane, node_of, cnt, act);
        break;
    case CT_DIST_RANDOM:
        if (layout_random(slots, n, ntasks, seed, total, node_of, err) < 0) {
            rc = -1;
            goto fail;
        }
        break;
    case CT_DIST_EXPLICIT:
        break;
    }
    out->ntasks = ntasks;
    out->nnodes = n;
    out->node_of = node_of;
    out->dist = dist;
    out->plane = dist == CT_DIST_PLANE ? plane : 0;
    node_of = NULL;
fail:
    free(slots);
    free(cnt);
    free(act);
    free(node_of);
    return rc;
}

int ct_layout_explicit(int32_t nnodes, int32_t ntasks, const int32_t *node_of, ct_layout *out,
                       ct_err *err)
{
    memset(out, 0, sizeof *out);
    if (nnodes < 1 || nnodes > CT_ALLOC_MAX_NODES)
        return ct_err_set(err, "node count %d out of range (1..%d)", (int)nnodes,
                          CT_ALLOC_MAX_NODES);
    if (ntasks < 1 || !node_of)
        return ct_err_set(err, "task count %d out of range (>= 1)", (int)ntasks);
    for (int32_t t = 0; t < ntasks; t++)
        if (node_of[t] < 0 || node_of[t] >= nnodes)
            return ct_err_set(err, "task %d placed on node %d (accepted: 0..%d)", (int)t,
                              (int)node_of[t], (int)nnodes - 1);
    out->node_of = malloc((size_t)ntasks * sizeof *out->node_of);
    if (!out->node_of)
        return ct_err_set(err, "out of memory for a %d-task layout", (int)ntasks);
    memcpy(out->node_of, node_of, (size_t)ntasks * sizeof *node_of);
    out->ntasks = ntasks;
    out->nnodes = nnodes;
    out->dist = CT_DIST_EXPLICIT;
    out->plane = 0;
    return 0;
}

void ct_layout_free(ct_layout *l)
{
    if (!l)
        return;
    free(l->node_of);
    l->node_of = NULL;
    l->ntasks = 0;
    l->nnodes = 0;
}

void ct_layout_counts(const ct_layout *l, int32_t *tasks_per_node)
{
    for (int32_t i = 0; i < l->nnodes; i++)
        tasks_per_node[i] = 0;
    for (int32_t t = 0; t < l->ntasks; t++)
        tasks_per_node[l->node_of[t]]++;
}
