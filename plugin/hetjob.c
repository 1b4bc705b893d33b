/* One component of a heterogeneous job, as the srun of a step on it sees
 * its environment.
 *
 * salloc and sbatch of several components (`salloc -N1 : -N3`, `#SBATCH
 * hetjob`) describe each component in variables suffixed _HET_GROUP_<n>
 * (_PACK_GROUP_<n> before 20.02); salloc sets no unsuffixed allocation
 * variables at all, a batch script has component 0's. A step runs on the
 * components --het-group names, component 0 by default (srun(1)). For each
 * component srun reads its option variables unsuffixed, then suffixed with
 * that component's index, the latter winning (srun/opt.c _opt_env, which
 * exempts SLURM_JOB_ID: the job's id is the leader's). A step on one
 * component is therefore an ordinary step on that component's allocation
 * once the names are read this way; a step on several is not modelled (a
 * variable set for it would reach every component). Our extension; no
 * Slurm calls here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* The allocation as slurmctld granted it: only the component's own names. */
static const char *const alloc_vars[] = {
    "SLURM_JOB_CPUS_PER_NODE", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
    "SLURM_JOB_PARTITION",     "SLURM_NNODES",
};
/* srun reads these unsuffixed only */
static const char *const job_vars[] = {"SLURM_JOB_ID", "SLURM_JOBID"};

static int listed(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return 1;
    return 0;
}

static const char *get(const ctp_het_view *v, const char *name)
{
    const char *s = v->fn(name, v->ctx);
    return s && *s ? s : NULL;
}

/* NAME_HET_GROUP_<comp>, else NAME_PACK_GROUP_<comp> (srun reads the old
 * name first and lets the new one override it) */
static const char *component_value(ctp_het_view *v, const char *name, int comp)
{
    static const char *const suffix[] = {"HET", "PACK"};
    for (size_t i = 0; i < 2; i++) {
        int w = snprintf(v->name, sizeof v->name, "%s_%s_GROUP_%d", name, suffix[i], comp);
        if (w < 0 || (size_t)w >= sizeof v->name)
            return NULL;
        const char *s = get(v, v->name);
        if (s)
            return s;
    }
    return NULL;
}

/* The job's components: SLURM_HET_SIZE (SLURM_PACK_SIZE), else the highest
 * index with an allocation of its own, plus one; 0 or 1: not heterogeneous. */
static int components(ctp_het_view *v)
{
    const char *s = get(v, "SLURM_HET_SIZE");
    if (!s)
        s = get(v, "SLURM_PACK_SIZE");
    if (s) {
        char *end;
        long n = strtol(s, &end, 10);
        if (*end == '\0' && n >= 1 && n <= 128)
            return (int)n;
        return 2; /* present but unreadable: treated as several, left to Slurm */
    }
    for (int k = 127; k >= 1; k--)
        if (component_value(v, "SLURM_JOB_CPUS_PER_NODE", k))
            return k + 1;
    return 0;
}

void ctp_het_view_init(ctp_het_view *v, const ctp_srun_args *args, ctp_getenv_fn fn, void *ctx)
{
    memset(v, 0, sizeof *v);
    v->fn = fn;
    v->ctx = ctx;
    v->size = components(v);
    int het = v->size >= 2;
    int comp = 0;
    if (args->has_het_group) {
        ct_err err = {{0}};
        int several = ctp_het_group_parse(args->het_group, &comp, &err);
        if (several < 0) {
            v->state = CTP_HET_LEAVE;
            snprintf(v->why, sizeof v->why, "srun --het-group: %.150s", err.msg);
            return;
        }
        if (!het) {
            v->state = CTP_HET_LEAVE;
            snprintf(v->why, sizeof v->why,
                     "srun --het-group=%s in a job of one component, which is not modelled",
                     args->het_group);
            return;
        }
        if (several) {
            v->state = CTP_HET_LEAVE;
            snprintf(v->why, sizeof v->why,
                     "srun --het-group=%s launches one step on several components of the "
                     "heterogeneous job, which is not modelled",
                     args->het_group);
            return;
        }
        if (comp >= v->size) {
            v->state = CTP_HET_LEAVE;
            snprintf(v->why, sizeof v->why,
                     "srun --het-group=%d: the heterogeneous job has %d components", comp,
                     v->size);
            return;
        }
    }
    if (!het)
        return; /* CTP_HET_NONE: the view is the environment as it is */
    if (!component_value(v, "SLURM_JOB_CPUS_PER_NODE", comp)) {
        v->state = CTP_HET_LEAVE;
        snprintf(v->why, sizeof v->why,
                 "heterogeneous job (%d components): component %d's allocation is not in the "
                 "environment (no SLURM_JOB_CPUS_PER_NODE_HET_GROUP_%d)",
                 v->size, comp, comp);
        return;
    }
    v->state = CTP_HET_ONE;
    v->comp = comp;
}

const char *ctp_het_getenv(const char *name, void *view)
{
    ctp_het_view *v = view;
    if (v->state != CTP_HET_ONE || listed(name, job_vars, sizeof job_vars / sizeof *job_vars))
        return v->fn(name, v->ctx);
    const char *s = component_value(v, name, v->comp);
    if (s || listed(name, alloc_vars, sizeof alloc_vars / sizeof *alloc_vars))
        return s;
    return v->fn(name, v->ctx);
}

const char *ctp_het_job_id(ctp_het_view *v)
{
    const char *s = v->state == CTP_HET_ONE ? component_value(v, "SLURM_JOB_ID", v->comp) : NULL;
    return s ? s : get(v, "SLURM_JOB_ID");
}
