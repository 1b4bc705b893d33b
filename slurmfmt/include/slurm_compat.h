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

#endif
