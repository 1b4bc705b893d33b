/* Progressive evaluation: penalties re-applied each time a communication
 * completes (paper 001 §VI-A simulator; reproduces the predicted times of
 * 001 Fig. 4, see shared/vectors/README.md). */
#include "contention/progressive.h"

#include <math.h>
#include <stdlib.h>

/* Communications whose time to finish is within this fraction of the next
 * event's are taken to finish with it (equal sizes finish together). */
#define PROG_TIE 1e-9

int ct_progressive_times(const ct_penalty_model *m, const ct_graph *g, const double *alone,
                         double *finish, ct_err *err)
{
    const size_t n = g->ncomm;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(alone[i]) || alone[i] < 0)
            return ct_err_set(err, "arc %zu (%d->%d): time alone %g s (accepted: finite, >= 0)",
                              i, (int)g->comm[i].src, (int)g->comm[i].dst, alone[i]);
    unsigned char *active = malloc(n ? n : 1);
    double *rem = malloc((n ? n : 1) * sizeof *rem);    /* alone-time still to do, s */
    double *p = malloc((n ? n : 1) * sizeof *p);
    if (!active || !rem || !p) {
        free(active), free(rem), free(p);
        return ct_err_set(err, "out of memory for a progressive evaluation of %zu arcs", n);
    }
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        rem[i] = alone[i];
        active[i] = alone[i] > 0;
        finish[i] = 0.0;
        left += active[i];
    }
    double t = 0.0;
    int rc = 0;
    while (left > 0) {
        if (ct_penalties_active(m, g, active, p, err) < 0) {
            rc = -1;
            break;
        }
        /* Each communication advances at rate 1/p of its alone-time work
         * (001 §IV-B: T = p * T_ref), until the first one completes. */
        double dt = INFINITY;
        for (size_t i = 0; i < n; i++) {
            if (!active[i])
                continue;
            if (!(isfinite(p[i]) && p[i] > 0)) {
                rc = ct_err_set(err, "progressive evaluation: %s model gave arc %zu (%d->%d) "
                                     "penalty %g (accepted: finite, > 0)",
                                ct_model_name(m->kind), i, (int)g->comm[i].src,
                                (int)g->comm[i].dst, p[i]);
                break;
            }
            if (rem[i] * p[i] < dt)
                dt = rem[i] * p[i];
        }
        if (rc < 0)
            break;
        t += dt;
        for (size_t i = 0; i < n; i++) {
            if (!active[i])
                continue;
            if (rem[i] * p[i] <= dt * (1.0 + PROG_TIE)) {
                active[i] = 0;
                finish[i] = t;
                left--;
            } else {
                rem[i] -= dt / p[i];
            }
        }
    }
    free(active), free(rem), free(p);
    return rc;
}
