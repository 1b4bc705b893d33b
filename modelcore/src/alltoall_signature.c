/* Alltoall contention signature (papers 000/002, Steffenel, Martinasso,
 * Trystram): Proposition 1, eq. 4, eq. 5, and this project's layout-aware
 * form for several tasks per node (see doc/models-alltoall.md).
 *
 * Every formula is written through the same two helpers so that the
 * layout-aware form with one task per node reproduces eq. 5 bit for bit
 * (the tests compare with ==), not merely to rounding. */
#include "contention/alltoall.h"

#include <math.h>
#include <stddef.h>

/* Per-communication network cost m*beta*gamma (+ delta once m >= M): the
 * bracket of 000 eq. 5 without alpha. */
static double per_comm(double beta, double m, double gamma, double delta, double M)
{
    return m * beta * gamma + (m >= M ? delta : 0.0); /* 000 eq. 5 */
}

/* Time a node's t tasks spend exchanging through memory: t(t-1) messages. */
static double intra_time(int64_t t, double m, double intra_bw)
{
    if (intra_bw <= 0 || t < 2)
        return 0.0;
    return (double)t * (double)(t - 1) * m / intra_bw;
}

double ct_a2a_lower_bound(int64_t n, double alpha, double beta, double m)
{
    if (n <= 1)
        return 0.0;
    double k = (double)(n - 1);
    return k * alpha + k * per_comm(beta, m, 1.0, 0.0, INFINITY); /* 000 Prop. 1 */
}

double ct_a2a_eq4(int64_t n, double alpha, double beta, double m, double gamma)
{
    if (n <= 1)
        return 0.0;
    double k = (double)(n - 1);
    return k * alpha + k * per_comm(beta, m, gamma, 0.0, INFINITY); /* 000 eq. 4 */
}

double ct_a2a_eq5(int64_t n, double alpha, double beta, double m, const ct_a2a_sig *s)
{
    if (!s)
        return NAN;
    if (n <= 1)
        return 0.0;
    double k = (double)(n - 1);
    return k * alpha + k * per_comm(beta, m, s->gamma, s->delta, s->M); /* 000 eq. 5 */
}

double ct_a2a_flows_term(double f, double a)
{
    if (!(f > 1.0))
        return 0.0;
    if (a == 0.0 || a == 1.0)
        return f - 1.0; /* the line, bit for bit as before session 21 */
    return (pow(f, a) - 1.0) / a; /* Box & Cox (1964) power family, a in (0, 1) */
}

int ct_a2a_flows_exp_check(const char *name, double a, ct_err *err)
{
    if (!(a >= 0 && a <= 1))
        return ct_err_set(err, "%s = %g (accepted: 0 for the line f - 1, or an exponent in (0, 1])",
                          name, a);
    return 0;
}

double ct_a2a_loss_share(const ct_a2a_sig *s, double k, double f)
{
    double span = s->loss_max_f - s->loss_min_f;
    if (!(k >= 2.0) || !(span > 0) || !(f > s->loss_min_f))
        return 0.0;
    /* 2 (k - 1) / k: at a port whose k senders send at once it takes up to
     * k times its line rate and serves one, so the share of their segments
     * it must drop once its queue is full is (k - 1) / k; 1 at the step's
     * k = 2, at most 2; k held at the largest incast degree fitted (k_max) */
    if (s->k_max > 0)
        k = fmin(k, fmax(2.0, s->k_max));
    return 2.0 * (k - 1.0) / k * fmin(1.0, (f - s->loss_min_f) / span);
}

int ct_a2a_loss_bounds_ok(const ct_a2a_sig *s)
{
    return !(s->gamma_loss > 0) || s->loss_max_f > s->loss_min_f;
}

double ct_a2a_gamma_at(const ct_a2a_sig *s, double k, double f)
{
    if (s->gamma_incast == 0 && s->gamma_flows == 0 && s->gamma_loss == 0)
        return s->gamma; /* 000 eq. 5: one gamma for the fabric */
    /* this project's extension (session 24): the incast-loss term at the raw
     * k, f (its own share holds beyond loss_max_f) */
    double loss = s->gamma_loss > 0 ? s->gamma_loss * ct_a2a_loss_share(s, k, f) : 0.0;
    /* this project's extension: gamma(k, f) = gamma0 + g_k (k-1) + g_f g_a(f),
     * g_a(f) = f - 1 or (f^a - 1)/a (alltoall.h), each term held beyond the
     * k, f it was fitted on */
    if (s->k_max > 0)
        k = fmin(k, s->k_max);
    if (s->f_max > 0)
        f = fmin(f, s->f_max);
    return s->gamma + s->gamma_incast * fmax(0.0, k - 1.0) +
           s->gamma_flows * ct_a2a_flows_term(f, s->flows_exp) + loss;
}

/* Per-communication cost at a node whose port has incast degree k and f
 * remote flows. */
static double node_comm(const ct_a2a_sig *s, double beta, double m, double k, double f)
{
    return per_comm(beta, m, ct_a2a_gamma_at(s, k, f), s->delta, s->M);
}

double ct_a2a_call_incast_share(const ct_a2a_sig *s, double k)
{
    if (s->k_max > 0)
        k = fmin(k, s->k_max); /* no line past the degrees it was fitted on */
    return fmax(0.0, k - 2.0);
}

/* A node's network time per call: its messages' cost plus the per-call step
 * and the incast intercept at its port's incast degree k (alltoall.h, this
 * project's extensions) when the call crosses the network; a negative step
 * (a refilled token bucket) cannot make it negative. */
static double net_time(const ct_a2a_sig *s, double msgs, double k, int crosses)
{
    if (!crosses || (s->call == 0 && s->call_incast == 0))
        return msgs;
    double c = s->call;
    if (s->call_incast > 0) /* alltoall.h: session 69 */
        c += s->call_incast * ct_a2a_call_incast_share(s, k);
    return fmax(0.0, msgs + c);
}

/* The busiest node's share: max_k r_k * c_k + intra_k, r_k = t_k (n - t_k). */
static double layout_time(const int32_t *tasks, int32_t nnodes, double alpha, double beta,
                          const ct_a2a_sig *s, double m, double intra_bw)
{
    if (!tasks || nnodes <= 0)
        return NAN;
    int64_t n = 0, used = 0;
    for (int32_t k = 0; k < nnodes; k++) {
        if (tasks[k] < 0)
            return NAN;
        n += tasks[k];
        used += tasks[k] > 0;
    }
    if (n == 0)
        return NAN;
    if (n == 1)
        return 0.0;
    double worst = 0.0;
    for (int32_t k = 0; k < nnodes; k++) {
        int64_t t = tasks[k];
        if (t == 0)
            continue;
        /* node k's NIC carries t_k (n - t_k) remote messages each way */
        double r = (double)t * (double)(n - t);
        double v = net_time(s, r * node_comm(s, beta, m, (double)(used - 1), r),
                            (double)(used - 1), used > 1) +
                   intra_time(t, m, intra_bw);
        if (v > worst)
            worst = v;
    }
    return (double)(n - 1) * alpha + worst; /* layout-aware eq. 5 (alltoall.h) */
}

double ct_a2a_layout(const int32_t *tasks, int32_t nnodes, double alpha, double beta, double m,
                     const ct_a2a_sig *s, double intra_bw)
{
    if (!s)
        return NAN;
    return layout_time(tasks, nnodes, alpha, beta, s, m, intra_bw);
}

double ct_a2a_layout_lower_bound(const int32_t *tasks, int32_t nnodes, double alpha, double beta,
                                 double m, double intra_bw)
{
    /* 000 Prop. 1 generalised: gamma = 1, no delta */
    ct_a2a_sig free_of_contention = {.gamma = 1.0, .delta = 0.0, .M = INFINITY};
    return layout_time(tasks, nnodes, alpha, beta, &free_of_contention, m, intra_bw);
}

double ct_a2a_uniform_flows(int32_t nodes, int32_t tasks_per_node)
{
    int64_t t = tasks_per_node;
    return (double)t * (double)((int64_t)nodes * t - t); /* as ct_a2a_uniform's r */
}

double ct_a2a_uniform(int32_t nodes, int32_t tasks_per_node, double alpha, double beta, double m,
                      const ct_a2a_sig *s, double intra_bw)
{
    if (!s || nodes <= 0 || tasks_per_node <= 0)
        return NAN;
    int64_t t = tasks_per_node;
    int64_t n = (int64_t)nodes * t;
    if (n == 1)
        return 0.0;
    /* same expression as layout_time() so both agree exactly */
    double r = (double)t * (double)(n - t);
    double c = node_comm(s, beta, m, (double)(nodes - 1), r);
    return (double)(n - 1) * alpha +
           (net_time(s, r * c, (double)(nodes - 1), nodes > 1) + intra_time(t, m, intra_bw));
}

int ct_a2a_layout_checked(const int32_t *tasks, int32_t nnodes, double alpha, double beta, double m,
                          const ct_a2a_sig *s, double intra_bw, double *T, ct_err *err)
{
    if (!tasks || nnodes <= 0)
        return ct_err_set(err, "alltoall layout: %d nodes (accepted: at least one node)",
                          (int)nnodes);
    if (!s || !T)
        return ct_err_set(err, "alltoall layout: missing signature or result pointer");
    int64_t n = 0;
    for (int32_t k = 0; k < nnodes; k++) {
        if (tasks[k] < 0)
            return ct_err_set(err, "alltoall layout: tasks[%d] = %d (accepted: >= 0)", (int)k,
                              (int)tasks[k]);
        n += tasks[k];
    }
    if (n == 0)
        return ct_err_set(err,
                          "alltoall layout: no task on any of the %d nodes (accepted: >= 1 "
                          "task in total)",
                          (int)nnodes);
    const struct {
        const char *name;
        double v;
    } chk[] = {{"beta", beta},      {"m", m},
               {"gamma", s->gamma}, {"delta", s->delta}, {"M", s->M},
               {"gamma_incast", s->gamma_incast}, {"gamma_flows", s->gamma_flows},
               {"k_max", s->k_max},   {"f_max", s->f_max},
               {"gamma_loss", s->gamma_loss}, {"loss_min_f", s->loss_min_f},
               {"loss_max_f", s->loss_max_f}, {"call_incast", s->call_incast}};
    for (size_t i = 0; i < sizeof chk / sizeof chk[0]; i++)
        if (!isfinite(chk[i].v) || chk[i].v < 0)
            return ct_err_set(err, "alltoall layout: %s = %g (accepted: a finite value >= 0)",
                              chk[i].name, chk[i].v);
    if (ct_a2a_flows_exp_check("alltoall layout: flows_exp", s->flows_exp, err) < 0)
        return -1;
    if (!ct_a2a_loss_bounds_ok(s))
        return ct_err_set(err,
                          "alltoall layout: gamma_loss = %g with loss flows %g to %g (accepted: "
                          "loss_min_f < loss_max_f)",
                          s->gamma_loss, s->loss_min_f, s->loss_max_f);
    /* a size range's alpha may be negative (p2p.h); one message's time may not */
    if (!isfinite(alpha) || !(alpha + m * beta >= 0))
        return ct_err_set(err,
                          "alltoall layout: alpha = %g (accepted: finite, with alpha + m*beta "
                          ">= 0)",
                          alpha);
    if (!isfinite(s->call))
        return ct_err_set(err, "alltoall layout: call step = %g s (accepted: a finite time, "
                               "either sign)",
                          s->call);
    if (isnan(intra_bw))
        return ct_err_set(err, "alltoall layout: intra_bw = nan (accepted: bytes/s > 0, or <= 0 "
                               "to ignore intra-node time)");
    *T = ct_a2a_layout(tasks, nnodes, alpha, beta, m, s, intra_bw);
    return 0;
}
