/* The scorer's reference path (internal to libcontention, for tests): a
 * trace past replay_max_events is expanded into a full trace
 * (ct_trace_expand), then cut into phases and aggregated with a sort of its
 * messages, as ct_score did before ct_trace_phases_build. ct_score must give
 * the same candidates, times and notes bit for bit (tests/unit/test_score.c). */
#ifndef CONTENTION_SCORE_REF_H
#define CONTENTION_SCORE_REF_H

#include "contention/score.h"

int score_reference(const ct_fabric *fabric, const ct_score_request *req, ct_score_result *out,
                    ct_err *err);

#endif
