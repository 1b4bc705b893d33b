/* Which of the allocation's nodes a step runs on, per Slurm release (see
 * layout.h, "Step nodes"). Our reading of slurmctld's _pick_step_nodes_cpus
 * (src/slurmctld/step_mgr.c up to 24.05, src/stepmgr/stepmgr.c from 24.11;
 * read, not copied) for a step that names no nodes, on a job with no other
 * step running and no GRES or memory limits on its CPUs:
 *  - the step needs k nodes: the allocation's, or ntasks when fewer (srun
 *    lowers the node count to the task count), and c = ntasks x cpt CPUs;
 *  - nodes are examined in order from a start position, wrapping around:
 *    always node 0 up to 24.05.4; from 24.05.5 (SchedMD ticket 19960) the
 *    job's next_step_node_inx, i.e. where the previous step left off;
 *  - when c <= k the first k nodes examined are taken; else nodes with at
 *    least ceil(c/k) CPUs are taken in that order, and if the CPUs are still
 *    short, a second pass takes nodes with fewer CPUs, largest count first,
 *    as many of each count as needed;
 *  - the next step's start: 24.05.5 .. 25.11: one past the highest node
 *    index taken (past the last node: 0); 26.05: one past the position of
 *    the last node taken, in examination order (one topology unit; with
 *    topology/tree or block, 26.05 skips to the next unit: not modelled).
 * A job's first step starts at node 0. */
#include <stdlib.h>
#include <string.h>

#include "contention/layout.h"

#define V_ROTATE CT_SLURM_VERSION(24, 5, 5)   /* ticket 19960: steps round-robin */
#define V_NEXT_BY_POS CT_SLURM_VERSION(26, 5, 0) /* order map: next = position after */

int ct_slurm_version_parse(const char *s, uint32_t *v, ct_err *err)
{
    unsigned long part[3] = {0, 0, 0};
    const char *p = s;
    int n = 0;
    if (!s || !*s)
        return ct_err_set(err, "empty Slurm version (accepted: MAJOR.MINOR[.MICRO], e.g. 24.11.5)");
    while (n < 3) {
        if (*p < '0' || *p > '9')
            break;
        char *end;
        part[n] = strtoul(p, &end, 10);
        if (end - p > 3 || part[n] > 255)
            return ct_err_set(err, "Slurm version '%s': part %d out of range (0..255)", s, n + 1);
        n++;
        p = end;
        if (*p != '.')
            break;
        p++;
    }
    /* what follows the numbers (e.g. "-1", "rc1", "~deb") is not part of it */
    if (n < 2 || (p > s && p[-1] == '.'))
        return ct_err_set(err,
                          "Slurm version '%s' is not MAJOR.MINOR[.MICRO] (e.g. 22.05, 24.11.5)",
                          s);
    *v = CT_SLURM_VERSION(part[0], part[1], part[2]);
    return 0;
}

int ct_step_nodes(const ct_alloc *a, int32_t ntasks, int32_t cpus_per_task,
                  const ct_step_rules *r, unsigned char *picked, int32_t *next_first_node,
                  ct_err *err)
{
    int32_t n = a ? a->nnodes : 0;
    uint32_t ver = r ? r->slurm_version : 0;
    int32_t first = r ? r->first_node : 0;
    if (next_first_node)
        *next_first_node = -1;
    if (n < 1 || !a->cpus)
        return ct_err_set(err, "empty allocation (no nodes)");
    if (ntasks < 1 || cpus_per_task < 1)
        return ct_err_set(err, "task count %d / cpus per task %d out of range (>= 1)", (int)ntasks,
                          (int)cpus_per_task);
    int32_t k = ntasks < n ? ntasks : n;
    int rotate = ver >= V_ROTATE;
    if (!rotate)
        first = 0;
    if (first >= n)
        first = 0;
    if (first < 0) {
        if (k < n)
            return ct_err_set(err,
                              "%d tasks on %d of the allocation's %d nodes: from Slurm 24.05.5 "
                              "the step starts where the job's previous step left off "
                              "(slurmctld's next_step_node_inx), which is not known here: "
                              "not modelled",
                              (int)ntasks, (int)k, (int)n);
        first = 0; /* every node is taken; only the next start stays unknown */
    }
    memset(picked, 0, (size_t)n);
    int64_t c = (int64_t)ntasks * cpus_per_task;
    int64_t target = (c + k - 1) / k;
    int32_t last = -1; /* examination position of the last node taken */
    if (c <= k || target > 1024) {
        for (int32_t j = 0; j < k; j++)
            picked[(first + j) % n] = 1;
        last = k - 1;
    } else {
        int64_t rem_cpus = c, rem_nodes = k;
        int64_t *short_cnt = calloc((size_t)target, sizeof *short_cnt);
        if (!short_cnt)
            return ct_err_set(err, "out of memory for %d nodes", (int)n);
        for (int32_t j = 0; j < n && (rem_cpus > 0 || rem_nodes > 0); j++) {
            int32_t i = (first + j) % n;
            if (a->cpus[i] < target) {
                short_cnt[a->cpus[i] > 0 ? a->cpus[i] : 0]++;
                continue;
            }
            picked[i] = 1;
            last = j;
            rem_cpus -= a->cpus[i];
            rem_nodes--;
            if (rem_nodes == 0 && rem_cpus > 0)
                break;
        }
        if (rem_cpus > 0 || rem_nodes > 0) {
            /* second pass: how many nodes of each smaller count to take */
            int64_t rn = rem_nodes, rc = rem_cpus;
            short_cnt[0] = 0;
            for (int64_t cpus = target - 1; cpus > 0; cpus--) {
                if (short_cnt[cpus] == 0)
                    continue;
                if (short_cnt[cpus] > rn)
                    short_cnt[cpus] = rn;
                if (rn > 0) {
                    rn -= short_cnt[cpus];
                    rc -= short_cnt[cpus] * cpus;
                }
            }
            int ok = rn <= 0 && rc <= 0 && rem_nodes > 0;
            for (int32_t j = 0; ok && j < n && (rem_cpus > 0 || rem_nodes > 0); j++) {
                int32_t i = (first + j) % n;
                if (a->cpus[i] >= target || a->cpus[i] < 1 || short_cnt[a->cpus[i]] == 0)
                    continue;
                short_cnt[a->cpus[i]]--;
                picked[i] = 1;
                last = j;
                rem_cpus -= a->cpus[i];
                rem_nodes--;
                if (rem_nodes == 0)
                    break;
            }
            if (!ok || rem_cpus > 0 || rem_nodes > 0) {
                free(short_cnt);
                return ct_err_set(err,
                                  "%d tasks of %d CPUs on %d nodes: Slurm finds no such set of "
                                  "nodes in the allocation (the step would wait or fail): not "
                                  "modelled",
                                  (int)ntasks, (int)cpus_per_task, (int)k);
            }
        }
        free(short_cnt);
    }
    if (next_first_node) {
        if (!rotate) {
            *next_first_node = 0;
        } else if (ver >= V_NEXT_BY_POS) {
            *next_first_node = r->first_node < 0 ? -1 : (first + last + 1) % n;
        } else {
            int32_t hi = 0;
            for (int32_t i = 0; i < n; i++)
                if (picked[i])
                    hi = i;
            *next_first_node = hi + 1 < n ? hi + 1 : 0;
        }
    }
    return 0;
}

int ct_layout_build_step(const ct_alloc *a, int32_t ntasks, int32_t cpus_per_task, ct_dist dist,
                         int32_t plane, uint64_t seed, const ct_step_rules *r, ct_layout *out,
                         int32_t *next_first_node, ct_err *err)
{
    memset(out, 0, sizeof *out);
    if (next_first_node)
        *next_first_node = -1;
    if (!a || a->nnodes < 1 || !a->cpus)
        return ct_err_set(err, "empty allocation (no nodes)");
    if (ntasks < 1 || cpus_per_task < 1)
        return ct_layout_build(a, ntasks, cpus_per_task, dist, plane, seed, out, err);
    int32_t n = a->nnodes;
    unsigned char *picked = malloc((size_t)n);
    ct_alloc sub = {0, NULL};
    int32_t *idx = NULL;
    int rc = -1;
    if (!picked)
        return ct_err_set(err, "out of memory for %d nodes", (int)n);
    if (ct_step_nodes(a, ntasks, cpus_per_task, r, picked, next_first_node, err) < 0)
        goto out;
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++)
        k += picked[i];
    if (k == n) { /* the whole allocation: the layout of layout.c as it is */
        rc = ct_layout_build(a, ntasks, cpus_per_task, dist, plane, seed, out, err);
        goto out;
    }
    /* the step's own nodes, in node order (slurm_step_layout.c lays tasks
     * over the step's node list), mapped back to allocation indices */
    sub.cpus = malloc((size_t)k * sizeof *sub.cpus);
    idx = malloc((size_t)k * sizeof *idx);
    if (!sub.cpus || !idx) {
        ct_err_set(err, "out of memory for %d nodes", (int)k);
        goto out;
    }
    for (int32_t i = 0; i < n; i++)
        if (picked[i]) {
            idx[sub.nnodes] = i;
            sub.cpus[sub.nnodes++] = a->cpus[i];
        }
    ct_layout l;
    if (ct_layout_build(&sub, ntasks, cpus_per_task, dist, plane, seed, &l, err) < 0)
        goto out;
    for (int32_t t = 0; t < l.ntasks; t++)
        l.node_of[t] = idx[l.node_of[t]];
    l.nnodes = n;
    *out = l;
    rc = 0;
out:
    if (rc < 0 && next_first_node)
        *next_first_node = -1;
    free(picked);
    free(sub.cpus);
    free(idx);
    return rc;
}
