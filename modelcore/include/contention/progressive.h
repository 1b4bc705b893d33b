/* Progressive evaluation of a communication graph (paper 001 §VI-A engine).
 *
 * All communications start together. Each progresses at rate 1 / (p * t_ref
 * per byte); whenever one completes, the model is re-applied to those still
 * in flight. This is the evaluation that reproduces paper 001 Fig. 4's
 * predicted times (see shared/vectors/README.md); the simulator builds on it.
 */
#ifndef CONTENTION_PROGRESSIVE_H
#define CONTENTION_PROGRESSIVE_H

#include "contention/commgraph.h"
#include "contention/penalty.h"

/* Completion time of each arc of g when every communication starts at 0.
 * `alone[i]` is the time arc i's communication would take with no other
 * traffic (e.g. Hockney alpha + bytes * beta, or t_ref). finish[i] receives
 * the predicted completion time. Arcs with mult > 1 are treated as mult
 * simultaneous communications (they finish together). */
int ct_progressive_times(const ct_penalty_model *m, const ct_graph *g, const double *alone,
                         double *finish, ct_err *err);

#endif
