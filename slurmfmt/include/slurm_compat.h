/* Differences between the Slurm releases the front ends (plugin, admin
 * tool) are built against, 22.05 .. 26.05 (scripts/slurm-matrix). Header
 * only; it includes slurm/slurm.h. */
#ifndef CT_SLURM_COMPAT_H
#define CT_SLURM_COMPAT_H

#include <slurm/slurm.h>

/* 23.11 made hostlist_t the struct itself (API takes hostlist_t *); before,
 * hostlist_t was already the pointer. ct_hostlist is the handle in both. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
typedef hostlist_t *ct_hostlist;
#else
typedef hostlist_t ct_hostlist;
#endif

/* All steps of one job from slurmctld. 25.11 made slurm_get_job_steps take
 * the step to ask about as a slurm_step_id_t (NO_VAL step: all of the job's);
 * before, it took an update time, a job id and a step id. */
static inline int ct_get_job_steps(uint32_t job_id, job_step_info_response_msg_t **resp,
                                   uint16_t show_flags)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
    slurm_step_id_t id = {.job_id = job_id, .step_het_comp = NO_VAL, .step_id = NO_VAL};
    return slurm_get_job_steps(&id, resp, show_flags);
#else
    return slurm_get_job_steps((time_t)0, job_id, NO_VAL, resp, show_flags);
#endif
}

#endif
