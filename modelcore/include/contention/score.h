/* The mapping scorer: job geometry + pattern + fabric signature ->
 * predicted communication time per candidate mapping. This is the one code
 * path behind the plugin's decision and `contention-admin score`. */
#ifndef CONTENTION_SCORE_H
#define CONTENTION_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/signatures.h"

#define CT_MAX_CANDIDATES 8

typedef struct ct_candidate_score {
    ct_dist dist;
    int32_t plane;
    char name[32];          /* "block", "cyclic", "plane=4", "random" */
    double predicted_s;     /* predicted communication time */
    double uncontended_s;   /* same traffic with no contention */
    double slowdown;        /* predicted / uncontended */
    int64_t remote_comms;   /* communications crossing the network */
} ct_candidate_score;

typedef struct ct_score_request {
    const ct_alloc *alloc;
    int32_t ntasks;         /* <= 0: one task per allocated CPU / cpus_per_task */
    int32_t cpus_per_task;  /* >= 1 */
    ct_pattern pattern;
    int include_plane;      /* also score plane=k (k = plane_size) */
    int32_t plane_size;
    int include_random;     /* also score a seeded random layout */
    uint64_t seed;
} ct_score_request;

typedef struct ct_score_result {
    size_t n;                               /* candidates, sorted by predicted_s */
    ct_candidate_score c[CT_MAX_CANDIDATES];
    size_t winner;                          /* index into c (0 after sorting) */
    double margin;                          /* (second - winner) / winner, 0 if one candidate */
    char fabric[CT_NAME_MAX];
    char model[32];                         /* "alltoall-signature", "gige", ... */
} ct_score_result;

/* Score block and cyclic (and plane/random when asked) for req on fabric. */
int ct_score(const ct_fabric *fabric, const ct_score_request *req, ct_score_result *out,
             ct_err *err);

#endif
