/* Shared by the benchmark programs: a monotonic clock and the published
 * Gigabit Ethernet fabric they score on. */
#ifndef CT_BENCH_COMMON_H
#define CT_BENCH_COMMON_H

#include <stdio.h>
#include <time.h>

#include "contention/signatures.h"

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Nominal GigE links (α 50 µs, 125 MB/s), paper 001 §V-A's penalty
 * parameters, 5 GB/s intra-node; with_alltoall adds the Alltoall signature
 * of 000 §6.2. */
static inline void bench_gige_fabric(ct_fabric *f, const char *name, int with_alltoall)
{
    ct_fabric_init(f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->alpha = 50e-6;
    f->beta = 1.0 / 125e6;
    if (with_alltoall) {
        f->has_alltoall = 1;
        f->alltoall = (ct_a2a_sig){.gamma = 4.3628, .delta = 4.93e-3, .M = 8192};
    }
    f->penalty = CT_GIGE_MODEL(0.75, 0.036, 0.115);
    f->intra_bw = 5e9;
}

#endif
