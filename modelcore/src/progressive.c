/* Progressive evaluation: penalties re-applied each time a communication
 * completes (paper 001 §VI-A simulator; reproduces the predicted times of
 * 001 Fig. 4, see shared/vectors/README.md).
 *
 * Each arc keeps r, its remaining time-alone, as of tu, and progresses at
 * rate 1/p (001 §IV-B: T = p * T_alone), so only a change of its own penalty
 * touches it: r -= (now - tu) / p_old, and its end becomes now + r * p_new.
 * An indexed heap keyed by that end gives the next completion. GigE goes
 * through the incremental state of gige_incremental.h (the simulator's), so
 * a completion costs the arcs at the nodes it changes, not every arc.
 */
#include "contention/progressive.h"

#include "gige_incremental.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>

/* Completions within PROG_TIE of the time since the previous event, or within
 * PROG_SAME of the current time (rounding), belong to one event. */
#define PROG_TIE 1e-9
#define PROG_SAME 1e-12

typedef struct arc_state {
    double r, tu, p, finish;
    size_t heap; /* position in the heap, SIZE_MAX when out */
} arc_state;

typedef struct prog {
    const ct_penalty_model *m;
    const ct_graph *g;
    arc_state *a;
    size_t *heap, nheap;
    uint64_t evals, max_evals;
} prog;

static int before(const prog *P, size_t i, size_t j)
{
    const arc_state *x = &P->a[i], *y = &P->a[j];
    return x->finish < y->finish || (x->finish == y->finish && i < j);
}

static void heap_set(prog *P, size_t pos, size_t i)
{
    P->heap[pos] = i;
    P->a[i].heap = pos;
}

static void sift_up(prog *P, size_t pos)
{
    size_t i = P->heap[pos];
    while (pos > 0 && before(P, i, P->heap[(pos - 1) / 2])) {
        heap_set(P, pos, P->heap[(pos - 1) / 2]);
        pos = (pos - 1) / 2;
    }
    heap_set(P, pos, i);
}

static void sift_down(prog *P, size_t pos)
{
    size_t i = P->heap[pos];
    for (;;) {
        size_t c = 2 * pos + 1;
        if (c >= P->nheap)
            break;
        if (c + 1 < P->nheap && before(P, P->heap[c + 1], P->heap[c]))
            c++;
        if (!before(P, P->heap[c], i))
            break;
        heap_set(P, pos, P->heap[c]);
        pos = c;
    }
    heap_set(P, pos, i);
}

static size_t heap_pop(prog *P)
{
    size_t i = P->heap[0];
    P->a[i].heap = SIZE_MAX;
    if (--P->nheap) {
        heap_set(P, 0, P->heap[P->nheap]);
        sift_down(P, 0);
    }
    return i;
}

/* New penalty p for arc i at time now (p == 0 before its first one). */
static int apply(prog *P, size_t i, double p, double now, ct_err *err)
{
    arc_state *x = &P->a[i];
    P->evals++;
    if (!(isfinite(p) && p > 0))
        return ct_err_set(err,
                          "progressive evaluation: %s model gave arc %zu (%d->%d) "
                          "penalty %g (accepted: finite, > 0)",
                          ct_model_name(P->m->kind), i, (int)P->g->comm[i].src,
                          (int)P->g->comm[i].dst, p);
    if (p == x->p)
        return 0;
    if (x->p > 0) {
        double r = x->r - (now - x->tu) / x->p;
        x->r = r > 0 ? r : 0;
    }
    x->tu = now;
    x->p = p;
    x->finish = now + x->r * p;
    if (x->heap != SIZE_MAX) {
        sift_up(P, x->heap);
        sift_down(P, x->heap);
    }
    return 0;
}

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
    const ct_model_ops *ops = ct_model_ops_of(m->kind);
    /* a model with incremental hooks re-evaluates what each completion
     * changes; the others are re-applied to every arc in flight */
    const int gige = ops->inc_commit != NULL && !m->tree; /* trees: the link model */
    prog P = {.m = m, .g = g, .max_evals = max_evals};
    size_t n1 = n ? n : 1;
    P.a = malloc(n1 * sizeof *P.a);
    P.heap = malloc(n1 * sizeof *P.heap);
    unsigned char *active = gige ? NULL : malloc(n1);
    double *pen = gige ? NULL : malloc(n1 * sizeof *pen);
    ct_gige_net net = {0};
    int rc = 0;
    size_t nact = 0;
    if (!P.a || !P.heap || (!gige && (!active || !pen)) ||
        (gige && (ct_gnet_init(&net, g->nnodes > 0 ? g->nnodes : 1, NULL) ||
                  (ops->inc_init && ops->inc_init(&net, m)) || ct_gnet_reserve(&net, n1)))) {
        rc = ct_err_set(err, "out of memory for a progressive evaluation of %zu arcs", n);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        P.a[i] = (arc_state){.r = alone[i], .heap = SIZE_MAX};
        nact += alone[i] > 0;
        finish[i] = 0.0;
        if (!gige)
            active[i] = alone[i] > 0;
        if (alone[i] > 0) {
            if (gige &&
                ct_gnet_link(&net, (int32_t)i, g->comm[i].src, g->comm[i].dst, g->comm[i].mult)) {
                rc = ct_err_set(err, "out of memory for a progressive evaluation of %zu arcs", n);
                goto out;
            }
        }
    }
    double now = 0.0;
    int first = 1;
    for (;;) {
        /* re-apply the model to what is in flight */
        if (gige) {
            if (ops->inc_commit(&net)) {
                rc = ct_err_set(err, "out of memory for a progressive evaluation of %zu arcs", n);
                break;
            }
            for (size_t j = 0; j < net.ntouched && rc == 0; j++)
                rc = apply(&P, (size_t)net.touched[j], net.tpen[j], now, err);
        } else {
            if ((first ? nact : P.nheap) && ct_penalties_active(m, g, active, pen, err) < 0)
                rc = -1;
            for (size_t i = 0; i < n && rc == 0; i++)
                if (active[i])
                    rc = apply(&P, i, pen[i], now, err);
        }
        if (rc)
            break;
        if (first) { /* every end was set at once: build the heap now */
            for (size_t i = 0; i < n; i++)
                if (alone[i] > 0)
                    heap_set(&P, P.nheap++, i);
            for (size_t j = P.nheap / 2; j-- > 0;)
                sift_down(&P, j);
            first = 0;
        }
        if (!P.nheap)
            break;
        if (max_evals && P.evals > max_evals) {
            rc = 1;
            break;
        }
        double t = P.a[P.heap[0]].finish, dt = t - now;
        double lim = t + fmax(dt * PROG_TIE, t * PROG_SAME);
        while (P.nheap && P.a[P.heap[0]].finish <= lim) {
            size_t i = heap_pop(&P);
            finish[i] = t;
            if (gige) {
                if (ct_gnet_unlink(&net, (int32_t)i)) {
                    rc = ct_err_set(err, "out of memory for a progressive evaluation");
                    goto out;
                }
            } else {
                active[i] = 0;
            }
        }
        now = t;
        if (st)
            st->events++;
    }
out:
    if (st)
        st->evals = P.evals;
    if (gige)
        ct_gnet_free(&net);
    free(P.a), free(P.heap), free(active), free(pen);
    return rc;
}

int ct_progressive_times(const ct_penalty_model *m, const ct_graph *g, const double *alone,
                         double *finish, ct_err *err)
{
    return ct_progressive_times_ex(m, g, alone, finish, 0, NULL, err);
}
