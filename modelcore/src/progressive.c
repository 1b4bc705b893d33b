/* Progressive evaluation: penalties re-applied each time a communication
 * completes (paper 001 §VI-A simulator; reproduces the predicted times of
 * 001 Fig. 4, see shared/vectors/README.md).
 *
 * A replay on the simulator's event engine (engine.h) in which every arc is
 * a transfer posted at t = 0 with its time alone: the engine re-applies the
 * model after each instant's completions (incrementally for models with
 * hooks, such as GigE: a completion costs the arcs at the nodes it changes)
 * and applies its one rule for simultaneous completions.
 */
#include "contention/progressive.h"

#include "engine.h"

#include <math.h>
#include <stdlib.h>

int ct_progressive_times_ex(const ct_penalty_model *m, const ct_graph *g, const double *alone,
                            double *finish, uint64_t max_evals, ct_progressive_stats *st,
                            ct_err *err)
{
    const size_t n = g->ncomm;
    if (st)
        *st = (ct_progressive_stats){0};
    for (size_t i = 0; i < n; i++)
        if (!isfinite(alone[i]) || alone[i] < 0)
            return ct_err_set(err, "arc %zu (%d->%d): time alone %g s (accepted: finite, >= 0)", i,
                              (int)g->comm[i].src, (int)g->comm[i].dst, alone[i]);
    if (ct_model_check(m, err)) /* once, before any event */
        return -1;
    eng e;
    int rc = 0;
    if (eng_init(&e, g->nnodes > 0 ? g->nnodes : 1, m, 0))
        return ct_err_set(err, "out of memory for a progressive evaluation of %zu arcs", n);
    /* models without incremental hooks: re-applied to every arc in flight */
    if (!e.incremental && eng_graph(&e, g)) {
        rc = ct_err_set(err, "out of memory for a progressive evaluation of %zu arcs", n);
        goto out;
    }
    eng_bulk(&e);
    for (size_t i = 0; i < n; i++) {
        finish[i] = 0.0;
        if (alone[i] > 0 &&
            eng_start(&e, g->comm[i].src, g->comm[i].dst, g->comm[i].mult, alone[i],
                         (int64_t)i) < 0) {
            rc = ct_err_set(err, "out of memory for a progressive evaluation of %zu arcs", n);
            goto out;
        }
    }
    for (;;) {
        if ((rc = eng_commit(&e, err)) != 0)
            break;
        if (!e.nheap)
            break;
        if (max_evals && e.evals > max_evals) {
            rc = 1;
            break;
        }
        eng_advance(&e, eng_next(&e));
        int32_t k;
        while ((k = eng_pop_due(&e)) >= 0) {
            finish[e.s[k].tag] = e.now;
            eng_release(&e, k);
        }
        if (k < -1) {
            rc = ct_err_set(err, "out of memory for a progressive evaluation");
            break;
        }
        if (st)
            st->events++;
    }
out:
    if (st)
        st->evals = e.evals;
    eng_free(&e);
    return rc;
}

int ct_progressive_times(const ct_penalty_model *m, const ct_graph *g, const double *alone,
                         double *finish, ct_err *err)
{
    return ct_progressive_times_ex(m, g, alone, finish, 0, NULL, err);
}
