/* One phase's network time (internal to libcontention): the scorer
 * (score.c) and the placement search (placement.c) price a point-to-point
 * phase with this one function, so that the times they print and compare
 * are the same model's: Hockney per size range, the penalty model (on the
 * bytes' time only, alpha once, for the models whose latency_once is set:
 * models.h, session 56), the long-exchange term, the exchange step and the
 * bucket's refill. */
#ifndef CONTENTION_PHASE_TIME_H
#define CONTENTION_PHASE_TIME_H

#include <stdint.h>

#include "contention/commgraph.h"
#include "contention/error.h"
#include "contention/signatures.h"
#include "contention/topology.h"

/* Run-time bound of one progressive evaluation, in arc penalty evaluations
 * (ct_progressive_times_ex): 4x the estimate the callers choose by. */
#define CT_PHASE_PROGRESSIVE_MAX_EVALS ((uint64_t)1000000)

/* A token bucket's refill before a step (our extension, session 29;
 * doc/models-penalty.md "The bucket's refill"): the time a step whose
 * busiest NIC direction moves S bytes saves, after the links were idle for
 * pause (s), against calibrate's calls, which paused pause_cal:
 *   dt = (min(B, r pause, S) - min(B, r pause_cal, S)) / r,   r = 1 / beta,
 * B = bucket (bytes), beta the sustained curve's s/byte at B. Negative when
 * the step's pause is the shorter. 0 when bucket, beta or pause_cal is not
 * > 0, or pause < 0 (unknown). The point-to-point phases (S: the busiest
 * NIC direction of the graph) and the Alltoall (score.c, calibrate.c's
 * fit: S = a node's remote bytes) use it alike. */
double ct_refill_dt(double bucket, double beta, double pause_cal, double S, double pause);

/* The phase g (its intra-node time intra, s) on fabric f, the penalty model
 * seeing the switch tree (NULL: one switch). progressive: 1 = penalties
 * re-applied as communications end, 0 = the first instant's. pause: the
 * links' idle time before the phase (s), < 0 unknown. Writes the contended
 * and uncontended times (each at least intra). Returns 0, 1 when the
 * progressive bound was hit (nothing written), -1 on error. */
int ct_phase_time(const ct_fabric *f, const ct_graph *g, double intra, int progressive,
                  const ct_tree_map *tree, double pause, double *predicted, double *uncontended,
                  ct_err *err);

#endif
