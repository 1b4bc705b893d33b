/* Progressive evaluation of a communication graph (paper 001 §VI-A engine).
 *
 * All communications start together. Each progresses at rate 1 / (p * t_ref
 * per byte); whenever one completes, the model is re-applied to those still
 * in flight. This is the evaluation that reproduces paper 001 Fig. 4's
 * predicted times (see shared/vectors/README.md). It runs on the simulator's
 * event engine, as a replay whose transfers all start at 0: completions
 * within 10^-12 (relative) of each other, or within 10^-9 of the time since
 * the previous completion, are one event; models with incremental hooks
 * (GigE, none: contention/models.h) re-evaluate only the arcs at nodes whose
 * degrees or C^m sets changed, the others every arc still in flight.
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

typedef struct ct_progressive_stats {
    size_t events;          /* completion instants (simultaneous completions count once) */
    uint64_t evals;         /* arc penalties computed */
} ct_progressive_stats;

/* Same, with a work bound: returns 1 (finish[] incomplete, no error) once
 * more than max_evals arc penalties have been computed (0: no bound), so a
 * caller can fall back to a cheaper estimate. GigE (and none) cost about the
 * arcs at the nodes each completion changes; Stop & Go and fair share
 * re-evaluate every arc in flight at each completion. st may be NULL. */
int ct_progressive_times_ex(const ct_penalty_model *m, const ct_graph *g, const double *alone,
                            double *finish, uint64_t max_evals, ct_progressive_stats *st,
                            ct_err *err);

#endif
