/* A cross-check of the simulator, internal to libcontention (tests and
 * benchmarks): ct_simulate without the model's incremental hooks, the model
 * re-applied to each connected component a change touched (slow). */
#ifndef CONTENTION_SIMULATE_REF_H
#define CONTENTION_SIMULATE_REF_H

#include "contention/simulate.h"

int simulate_reference(const ct_trace *tr, const ct_layout *l, const ct_sim_params *p,
                          ct_sim_result *out, ct_err *err);

#endif
