/* Duplex-coupled max-min fair share (our extension, issue 12).
 *
 * Every node has one outgoing and one incoming NIC of capacity 1 (the
 * bandwidth of a communication alone), as in the fair-share baseline
 * (penalty_fairshare.c), but a node that sends and receives at once does not
 * get both directions in full: with x_v the rate it sends and y_v the rate it
 * receives,
 *
 *     x_v + δ·y_v <= 1   and   y_v + δ·x_v <= 1,      0 <= δ <= 1.
 *
 * δ = 0 is the fair-share baseline (full duplex, bit for bit the same
 * penalties), δ = 1 a half-duplex NIC. The mechanism on TCP over shaped
 * links: the ACKs of the incoming streams queue behind the node's own
 * outgoing data in the same egress queue, and on a small host the same CPU
 * moves both directions. (Measured against the sustained point-to-point
 * rate and from the slope, doc/accuracy.md session 15, δ is 0-0.08 on the
 * emulated 100 Mbit/s networks; the larger values of sessions 3-14 read a
 * step's fixed time, or a ping-pong fit above the line rate, as coupling.)
 * Reverse ACK traffic taking a share
 * of a link is what SimGrid's flow-level TCP model calls cross-traffic
 * (Velho, Mello Schnorr, Casanova, Legrand: "On the validity of flow-level
 * TCP network models for grid and cloud simulations", ACM TOMACS 23(4),
 * 2013), with a fixed share; here δ is fitted per network by calibrate
 * (ct_fit_duplex, calibrate.h) from the 2-node Alltoall it measures anyway:
 * two nodes each sending m to the other take c + (1 + δ)·T_alone(m), δ from
 * the slope, c (the exchange step, signatures.h) from the intercept.
 *
 * Rates by progressive filling (max-min over the 2·nodes constraints, each
 * flow weighted 1 in its own direction and δ in the other direction of both
 * its end nodes); penalty = 1 / rate (T = p·T_alone, 001 §IV-B).
 *
 * Incast term ε (optional, our extension): several TCP flows to or from
 * different nodes through one shaped NIC cost more than a fair share each
 * (held-back halo exchanges with two peers each way ran 6-22 % slower than
 * the fair share on every default-bucket network, doc/accuracy.md). The
 * Alltoall signature already measures this as gamma(k) = gamma +
 * gamma_incast (k - 1) (alltoall.h, k = the busiest port's peer nodes), so
 * the penalty of an arc is multiplied by 1 + ε (k - 1), with ε =
 * gamma_incast / gamma from calibrate (ct_duplex_incast): the same relative
 * cost per extra peer as in the Alltoall. k is the larger of its source's
 * number of distinct destination nodes and its destination's number of
 * distinct source nodes among the active arcs, except that a NIC direction
 * with slack counts 1: one of its arcs goes to (out) or comes from (in) a
 * node with a single peer in that direction, a flow this NIC alone holds,
 * which takes up the capacity the other flows leave (session 7, measured on
 * the emulated 100 Mbit/s network, doc/placement-runs/2026-11-23-s7-cal/
 * probe: a NIC whose bytes go to 2 peer nodes that each also have 2 took
 * 8-13 % longer than one sending as much to 1; the block layouts of a halo,
 * whose middle nodes have 2 peers but the end nodes 1, ran within 3 % of the
 * fair share). An Alltoall (every node N - 1 peers) and pairs (1) are priced
 * as before. Beyond the largest k the Alltoall signature fitted γ_incast on
 * (its k_max, alltoall.h), k is held there (duplex_incast_max_k; our
 * extension, session 17): a term calibrated on 4 nodes does not price a
 * NIC with 63 peers.
 *
 * Flows term φ (optional, our extension, session 20): the Alltoall's
 * γ(k, f) = γ + γ_incast (k - 1) + γ_flows (f - 1) also prices the remote
 * flows a port carries at once (alltoall.h), and the patterns are priced
 * with it too: an arc's penalty is further multiplied by 1 + φ (f - 1),
 * φ = γ_flows / γ from calibrate (ct_duplex_flows), f the larger of the
 * remote communications leaving its source node and entering its
 * destination node among the active arcs (multiplicities counted), held at
 * the signature's f_max (duplex_flows_max_f). Seen before it was added
 * (doc/accuracy-notes.md, session 20): the held-back patterns whose NICs
 * carry several flows (a cyclic ring on 4 tasks a node: 4; a halo: 4-8) ran
 * 10-35 % slower than priced on the 10-25 ms queues, and within a few % at
 * 1 flow; a 2 x 1 Alltoall, the duplex δ's own source, has 1. No slack
 * rule here: every flow through a shallow queue takes its share of the
 * losses, whatever the other end carries. Since session 21 the term takes
 * the signature's shape too: 1 + φ g_a(f), g_a(f) = (f^a - 1)/a with the
 * Alltoall's flows_exponent a (duplex_flows_exponent; 0 = the line f - 1,
 * as fitted before), so the patterns price a NIC's flows as the Alltoall
 * they were read from does.
 */
#include "contention/penalty.h"
#include "contention/alltoall.h"

#include "links.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>

typedef struct dcons {
    double used;   /* capacity taken by frozen flows (weighted) */
    double wfree;  /* weight of the unfrozen flows through it */
    int64_t nfree; /* unfrozen flows (communications) through it: wfree = 0 when 0 */
} dcons;

/* Constraint c of flow (s -> d) and its weight: j = 0 out(s) 1, 1 in(d) 1,
 * 2 in(s) δ, 3 out(d) δ. Index of out(v) = 2v, in(v) = 2v + 1. */
static inline size_t cons_of(const ct_comm *c, int j)
{
    switch (j) {
    case 0:
        return 2 * (size_t)c->src;
    case 1:
        return 2 * (size_t)c->dst + 1;
    case 2:
        return 2 * (size_t)c->src + 1;
    default:
        return 2 * (size_t)c->dst;
    }
}

typedef struct pair {
    int32_t a, b;
} pair;

static int cmp_pair(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    if (p->a != q->a)
        return (p->a > q->a) - (p->a < q->a);
    return (p->b > q->b) - (p->b < q->b);
}

/* deg[v] = number of distinct b among the pairs (v, b) */
static void distinct_degree(pair *pr, size_t np, int64_t *deg)
{
    qsort(pr, np, sizeof *pr, cmp_pair);
    for (size_t i = 0; i < np; i++)
        if (i == 0 || pr[i].a != pr[i - 1].a || pr[i].b != pr[i - 1].b)
            deg[pr[i].a]++;
}

/* karc[i] = the incast degree k of active arc i (see the top of the file:
 * the larger of its source's distinct destination nodes and its
 * destination's distinct source nodes, 1 for a NIC direction with slack),
 * not held; 0 for an inactive arc. */
static int arc_incast_degrees(const ct_graph *g, const unsigned char *active, double *karc,
                              ct_err *err)
{
    /* the incast degree of each NIC: distinct peer nodes, each direction */
    const size_t n = g->ncomm, nn = (size_t)g->nnodes;
    pair *pr = malloc(n * sizeof *pr);
    int64_t *kout = calloc(nn, sizeof *kout), *kin = calloc(nn, sizeof *kin);
    unsigned char *slack_out = calloc(nn, 1), *slack_in = calloc(nn, 1);
    if (!pr || !kout || !kin || !slack_out || !slack_in) {
        free(pr), free(kout), free(kin), free(slack_out), free(slack_in);
        return ct_err_set(err, "out of memory for the incast degrees of %zu arcs", n);
    }
    size_t np = 0;
    for (size_t i = 0; i < n; i++)
        if (!active || active[i])
            pr[np++] = (pair){g->comm[i].src, g->comm[i].dst};
    distinct_degree(pr, np, kout);
    np = 0;
    for (size_t i = 0; i < n; i++)
        if (!active || active[i])
            pr[np++] = (pair){g->comm[i].dst, g->comm[i].src};
    distinct_degree(pr, np, kin);
    /* a NIC direction has slack when one of its arcs' other end has a single
     * peer node (that flow is held by this NIC alone and takes up what the
     * others leave): then it pays no incast term (k = 1) */
    for (size_t i = 0; i < n; i++) {
        if (active && !active[i])
            continue;
        int32_t a = g->comm[i].src, b = g->comm[i].dst;
        if (kin[b] < 2)
            slack_out[a] = 1;
        if (kout[a] < 2)
            slack_in[b] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        karc[i] = 0;
        if (active && !active[i])
            continue;
        int32_t a = g->comm[i].src, b = g->comm[i].dst;
        int64_t ko = slack_out[a] ? 1 : kout[a], ki = slack_in[b] ? 1 : kin[b];
        karc[i] = (double)(ko > ki ? ko : ki);
    }
    free(pr), free(kout), free(kin), free(slack_out), free(slack_in);
    return 0;
}

/* *fout, *fin (allocated here, the caller frees them): the remote
 * communications (multiplicities) leaving and entering each node among the
 * active arcs (every arc is remote: ct_graph_add refuses src == dst, and
 * the engine links only transfers between two nodes) */
static int count_flows(const ct_graph *g, const unsigned char *active, double **fout,
                       double **fin, ct_err *err)
{
    const size_t nn = (size_t)g->nnodes;
    *fout = calloc(nn ? nn : 1, sizeof **fout);
    *fin = calloc(nn ? nn : 1, sizeof **fin);
    if (!*fout || !*fin) {
        free(*fout), free(*fin);
        *fout = *fin = NULL;
        return ct_err_set(err, "out of memory for the flow counts of %zu nodes", nn);
    }
    for (size_t i = 0; i < g->ncomm; i++) {
        const ct_comm *c = &g->comm[i];
        if (active && !active[i])
            continue;
        (*fout)[c->src] += (double)c->mult;
        (*fin)[c->dst] += (double)c->mult;
    }
    return 0;
}

/* The flows term on penalties already computed (see the top of the file). */
static int apply_flows(double flows, double f_max, double a, const ct_graph *g,
                       const unsigned char *active, double *penalty, ct_err *err)
{
    if (flows == 0 || g->ncomm == 0)
        return 0;
    double *fout, *fin;
    if (count_flows(g, active, &fout, &fin, err) < 0)
        return -1;
    for (size_t i = 0; i < g->ncomm; i++) {
        const ct_comm *c = &g->comm[i];
        if (active && !active[i])
            continue;
        double f = fmax(fout[c->src], fin[c->dst]);
        if (f_max > 0)
            f = fmin(f, f_max); /* held beyond the fitted flows, as ct_a2a_gamma_at */
        penalty[i] *= 1.0 + flows * ct_a2a_flows_term(f, a); /* alltoall.h: gamma_flows g_a(f) */
    }
    free(fout), free(fin);
    return 0;
}

/* The incast term on penalties already computed (see the top of the file). */
static int apply_incast(double incast, double k_max, const ct_graph *g,
                        const unsigned char *active, double *penalty, ct_err *err)
{
    if (incast == 0 || g->ncomm == 0)
        return 0;
    double *karc = malloc(g->ncomm * sizeof *karc);
    if (!karc)
        return ct_err_set(err, "out of memory for the incast degrees of %zu arcs", g->ncomm);
    if (arc_incast_degrees(g, active, karc, err) < 0) {
        free(karc);
        return -1;
    }
    for (size_t i = 0; i < g->ncomm; i++) {
        if (active && !active[i])
            continue;
        double k = karc[i];
        if (k_max > 0)
            k = fmin(k, k_max); /* held beyond the fitted degrees, as ct_a2a_gamma_at */
        penalty[i] *= 1.0 + incast * fmax(0.0, k - 1); /* alltoall.h: gamma_incast (k-1) */
    }
    free(karc);
    return 0;
}

int ct_duplex_incast_degree_max(const ct_graph *g, double *k, ct_err *err)
{
    if (!g || !k)
        return ct_err_set(err, "duplex incast degree: missing graph or result pointer");
    *k = 0;
    if (g->ncomm == 0)
        return 0;
    double *karc = malloc(g->ncomm * sizeof *karc);
    if (!karc)
        return ct_err_set(err, "out of memory for the incast degrees of %zu arcs", g->ncomm);
    int rc = arc_incast_degrees(g, NULL, karc, err);
    for (size_t i = 0; rc == 0 && i < g->ncomm; i++)
        *k = fmax(*k, karc[i]);
    free(karc);
    return rc;
}

int ct_duplex_flows_max(const ct_graph *g, double *f, ct_err *err)
{
    if (!g || !f)
        return ct_err_set(err, "duplex flows: missing graph or result pointer");
    *f = 0;
    if (g->ncomm == 0)
        return 0;
    double *fout, *fin;
    if (count_flows(g, NULL, &fout, &fin, err) < 0)
        return -1;
    for (size_t v = 0; v < (size_t)g->nnodes; v++)
        *f = fmax(*f, fmax(fout[v], fin[v]));
    free(fout), free(fin);
    return 0;
}

/* The progressive filling, with one switch (t NULL: the 2 * nodes NIC
 * constraints) or over a tree (t, and the arcs' routes off/path, links.h:
 * each switch link one more constraint of capacity up_cap and weight 1, and
 * the same uplink's other direction weight up_duplex when the calibration
 * measured one: the NICs' δ coupling on an uplink, session 11).
 * One code path for both, so that with no switch link on any route the
 * tree computes the same doubles. */
static int duplex_fill(double duplex, const ct_graph *g, const unsigned char *active,
                       const ct_tree_map *t, const size_t *off, const int32_t *path,
                       double *penalty, ct_err *err)
{
    if (!(duplex >= 0 && duplex <= 1))
        return ct_err_set(err, "duplex = %g (accepted: a number >= 0 and <= 1)", duplex);
    if (g->nnodes < 1)
        return ct_err_set(err, "graph with %d nodes (accepted: >= 1)", (int)g->nnodes);
    const size_t n = g->ncomm, nc = 2 * (size_t)g->nnodes, nl = t ? 2 * (size_t)t->nswitches : 0;
    const int nj = duplex > 0 ? 4 : 2; /* δ = 0: the fair-share baseline's two NICs */
    dcons *k = calloc(nc, sizeof *k), *sl = calloc(nl ? nl : 1, sizeof *sl);
    double *rate = malloc((n ? n : 1) * sizeof *rate);
    /* rw[l]: the weight a flow on switch link l puts on l ^ 1, the uplink's
     * other direction (links_duplex of that direction's load) */
    double *rw = calloc(nl ? nl : 1, sizeof *rw);
    if (!k || !sl || !rate || !rw) {
        free(k), free(sl), free(rate), free(rw);
        return ct_err_set(err, "out of memory for a duplex fair-share evaluation of %zu arcs", n);
    }
    const ct_comm *c = g->comm;
    if (t)
        links_duplex_weights(t, g, off, path, rw);
    size_t unfrozen = 0;
    for (size_t i = 0; i < n; i++) {
        rate[i] = 0.0;
        if (active && !active[i])
            continue;
        for (int j = 0; j < nj; j++) {
            dcons *x = &k[cons_of(&c[i], j)];
            x->wfree += (j < 2 ? 1.0 : duplex) * (double)c[i].mult;
            x->nfree += c[i].mult;
        }
        for (size_t j = t ? off[i] : 0; t && j < off[i + 1]; j++)
            for (int d = 0; d < 2; d++) {
                const int32_t l = d ? path[j] ^ 1 : path[j];
                const double w = d ? rw[path[j]] : 1.0;
                if (w > 0) {
                    sl[l].wfree += w * (double)c[i].mult;
                    sl[l].nfree += c[i].mult;
                }
            }
        rate[i] = -1.0; /* unfrozen */
        unfrozen++;
    }
    int rc = 0;
    while (unfrozen > 0) {
        /* the water level at which the first constraint fills: (cap - used) / wfree */
        double level = INFINITY;
        for (size_t v = 0; v < nc; v++)
            if (k[v].nfree > 0 && k[v].wfree > 0 && (1.0 - k[v].used) / k[v].wfree < level)
                level = (1.0 - k[v].used) / k[v].wfree;
        for (size_t l = 0; l < nl; l++)
            if (sl[l].nfree > 0 && (t->up_cap[l / 2] - sl[l].used) / sl[l].wfree < level)
                level = (t->up_cap[l / 2] - sl[l].used) / sl[l].wfree;
        if (level < 0)
            level = 0; /* rounding: a constraint already full */
        const double tol = level * 1e-12;
        for (size_t i = 0; i < n; i++) {
            if (rate[i] >= 0)
                continue;
            int hit = 0;
            for (int j = 0; j < nj && !hit; j++) {
                const dcons *x = &k[cons_of(&c[i], j)];
                hit = x->wfree > 0 && (1.0 - x->used) / x->wfree <= level + tol;
            }
            for (size_t j = t ? off[i] : 0; t && j < off[i + 1] && !hit; j++)
                for (int d = 0; d < 2 && !hit; d++) {
                    const int32_t l = d ? path[j] ^ 1 : path[j];
                    const dcons *x = &sl[l];
                    hit = (d == 0 || rw[path[j]] > 0) && x->wfree > 0 &&
                          (t->up_cap[l / 2] - x->used) / x->wfree <= level + tol;
                }
            if (hit)
                rate[i] = -2.0; /* freeze after the scan: levels must not move */
        }
        size_t frozen = 0;
        for (size_t i = 0; i < n; i++) {
            if (rate[i] != -2.0)
                continue;
            rate[i] = level;
            for (int j = 0; j < nj; j++) {
                dcons *x = &k[cons_of(&c[i], j)];
                const double w = (j < 2 ? 1.0 : duplex) * (double)c[i].mult;
                x->used += level * w;
                x->nfree -= c[i].mult;
                x->wfree = x->nfree > 0 ? x->wfree - w : 0.0;
            }
            for (size_t j = t ? off[i] : 0; t && j < off[i + 1]; j++)
                for (int d = 0; d < 2; d++) {
                    const double w = (d ? rw[path[j]] : 1.0) * (double)c[i].mult;
                    if (!(w > 0))
                        continue;
                    dcons *x = &sl[d ? path[j] ^ 1 : path[j]];
                    x->used += level * w;
                    x->nfree -= c[i].mult;
                    x->wfree = x->nfree > 0 ? x->wfree - w : 0.0;
                }
            unfrozen--;
            frozen++;
        }
        if (!frozen) { /* cannot happen: the constraint that set the level freezes its flows */
            rc = ct_err_set(err, "duplex fair share made no progress");
            break;
        }
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (active && !active[i])
            penalty[i] = 0.0;
        else if (!(rate[i] > 0))
            rc = ct_err_set(err, "duplex fair share: arc %zu got rate %g", i, rate[i]);
        else
            penalty[i] = 1.0 / rate[i];
    }
    free(k), free(sl), free(rate), free(rw);
    return rc;
}

int ct_duplex_penalties_ex(double duplex, const ct_graph *g, const unsigned char *active,
                           double *penalty, ct_err *err)
{
    return duplex_fill(duplex, g, active, NULL, NULL, NULL, penalty, err);
}

/* One relative term's coefficient (key = v) and where it is held (max_key =
 * max, a count of `what`), checked. */
static int check_term(const char *key, double v, const char *max_key, double max,
                      const char *what, ct_err *err)
{
    if (!(v >= 0) || !isfinite(v))
        return ct_err_set(err, "%s = %g (accepted: a finite number >= 0)", key, v);
    if (!(max >= 0) || !isfinite(max))
        return ct_err_set(err, "%s = %g (accepted: 0 for no limit, or a finite number of %s > 0)",
                          max_key, max, what);
    return 0;
}

/* The whole model: the filling (one switch: t NULL; a tree: t and the
 * routes off/path), then its incast and flows terms; one entry for both. */
static int duplex_incast_fill(double duplex, double incast, double k_max, double flows,
                              double f_max, double a, const ct_graph *g,
                              const unsigned char *active,
                              const ct_tree_map *t, const size_t *off, const int32_t *path,
                              double *penalty, ct_err *err)
{
    if (check_term("duplex_incast", incast, "duplex_incast_max_k", k_max, "peer nodes", err) < 0 ||
        check_term("duplex_flows", flows, "duplex_flows_max_f", f_max, "flows", err) < 0)
        return -1;
    if (ct_a2a_flows_exp_check("duplex_flows_exponent", a, err) < 0)
        return -1;
    if (duplex_fill(duplex, g, active, t, off, path, penalty, err) < 0)
        return -1;
    if (apply_incast(incast, k_max, g, active, penalty, err) < 0)
        return -1;
    return apply_flows(flows, f_max, a, g, active, penalty, err);
}

int ct_duplex_penalties_k(double duplex, double incast, const ct_graph *g,
                          const unsigned char *active, double *penalty, ct_err *err)
{
    return duplex_incast_fill(duplex, incast, 0.0, 0.0, 0.0, 0.0, g, active, NULL, NULL, NULL,
                              penalty, err);
}

int ct_duplex_penalties_kmax(double duplex, double incast, double k_max, const ct_graph *g,
                             const unsigned char *active, double *penalty, ct_err *err)
{
    return duplex_incast_fill(duplex, incast, k_max, 0.0, 0.0, 0.0, g, active, NULL, NULL, NULL,
                              penalty, err);
}

int ct_duplex_penalties_kf(double duplex, double incast, double k_max, double flows,
                           double f_max, double flows_exp, const ct_graph *g,
                           const unsigned char *active, double *penalty, ct_err *err)
{
    return duplex_incast_fill(duplex, incast, k_max, flows, f_max, flows_exp, g, active, NULL,
                              NULL, NULL, penalty, err);
}

/* ---- the model's entry in the registry (model.h) */

static int duplex_penalties(const ct_penalty_model *m, const ct_graph *g,
                            const unsigned char *active, double *penalty, ct_err *err)
{
    return ct_duplex_penalties_kf(m->real[CT_DUPLEX_COUPLING], m->real[CT_DUPLEX_INCAST],
                                  m->real[CT_DUPLEX_INCAST_MAX_K], m->real[CT_DUPLEX_FLOWS],
                                  m->real[CT_DUPLEX_FLOWS_MAX_F], m->real[CT_DUPLEX_FLOWS_EXP], g,
                                  active, penalty, err);
}

static const ct_model_key duplex_keys[] = {
    {.key = "duplex", .unit = "1",
     .meaning = "δ (our extension): sending and receiving at once, x + δ·y <= 1 per NIC",
     .type = CT_PARAM_REAL, .slot = CT_DUPLEX_COUPLING, .required = 1, .lo = 0, .hi = 1},
    {.key = "duplex_incast", .unit = "1",
     .meaning = "ε (our extension): penalty x (1 + ε (k-1)) for a NIC with k peer nodes",
     .type = CT_PARAM_REAL, .slot = CT_DUPLEX_INCAST, .required = 0, .lo = 0, .hi = 10},
    {.key = "duplex_incast_max_k", .unit = "1",
     .meaning = "the largest k ε was fitted on (our extension); beyond it k is held there, "
                "0 = no limit",
     .type = CT_PARAM_REAL, .slot = CT_DUPLEX_INCAST_MAX_K, .required = 0, .lo = 0, .hi = 1e9},
    {.key = "duplex_flows", .unit = "1",
     .meaning = "φ (our extension): penalty x (1 + φ g(f)) for a NIC carrying f remote flows, "
                "g(f) = f-1 or (f^a-1)/a (duplex_flows_exponent)",
     .type = CT_PARAM_REAL, .slot = CT_DUPLEX_FLOWS, .required = 0, .lo = 0, .hi = 10},
    {.key = "duplex_flows_max_f", .unit = "1",
     .meaning = "the largest f φ was fitted on (our extension); beyond it f is held there, "
                "0 = no limit",
     .type = CT_PARAM_REAL, .slot = CT_DUPLEX_FLOWS_MAX_F, .required = 0, .lo = 0, .hi = 1e9},
    {.key = "duplex_flows_exponent", .unit = "1",
     .meaning = "a (our extension, session 21): the flows term's g(f) = (f^a-1)/a, the Alltoall "
                "signature's flows_exponent; 0 = the line f-1",
     .type = CT_PARAM_REAL, .slot = CT_DUPLEX_FLOWS_EXP, .required = 0, .lo = 0, .hi = 1},
    {.key = "duplex_long", .unit = "1",
     .meaning = "λ (our extension, session 28): a phase whose largest message lasts T alone "
                "beyond T(m_L) is priced with δ + λ (1 - T(m_L)/T); 0 = none",
     .type = CT_PARAM_REAL, .slot = CT_DUPLEX_LONG, .required = 0, .lo = -1, .hi = 1},
    {.key = "duplex_long_from", .unit = "B",
     .meaning = "m_L (our extension, session 28): the message size the long-exchange term "
                "starts from, the largest δ was fitted on; 0 = none",
     .type = CT_PARAM_REAL, .slot = CT_DUPLEX_LONG_FROM, .required = 0, .lo = 0, .hi = 1e12},
};

double ct_duplex_long_delta(const ct_penalty_model *m, double t_alone, double t_from)
{
    double d = m->real[CT_DUPLEX_COUPLING], l = m->real[CT_DUPLEX_LONG];
    if (m->kind != CT_MODEL_DUPLEX || l == 0 || !(m->real[CT_DUPLEX_LONG_FROM] > 0) ||
        !(t_from > 0) || !(t_alone > t_from) || !isfinite(t_alone))
        return d;
    /* (1 + δ') T = (1 + δ) T + λ (T - T(m_L)): the 2 x 1 exchange's hinge */
    d += l * (1.0 - t_from / t_alone);
    return d < 0 ? 0 : d > 1 ? 1 : d;
}

/* ---- on a switch tree (model.h tree_penalties; our extension, issue 14)
 *
 * One max-min over every constraint a flow meets: the δ-coupled NIC
 * constraints of its two end nodes (above) and the switch links of its
 * route, each of capacity up_cap (NIC units, links.h) and weight 1; an
 * uplink also weighs up_duplex in its other direction (topology.h; 0 unless
 * calibrate measured it: one pair each way across an uplink slower than the
 * NICs feeding it ran 1.15-1.3 x one pair alone on the emulated 4:1 trunk,
 * none at 2:1, session 11). Until session 8 a link's penalty k/C was composed by taking the
 * max with the node-level penalty (penalty_links.c), which lets the flows
 * that do not cross a saturated uplink keep the NIC share the crossing ones
 * cannot use on neither side: with the uplink the bottleneck of every
 * layout, two layouts that send the same bytes across it tied, whatever
 * their NICs carried besides. The joint filling gives a NIC's capacity
 * left by uplink-bound flows to its other flows, as the fair-share
 * baseline's tree rule does (penalty_fairshare.c). Mirrors
 * ct_duplex_penalties_ex step for step (same levels, tolerance and freezing
 * order), so that with no switch link on any route it computes the same
 * doubles; the incast and flows terms are applied after, as there. */
static int duplex_tree(const ct_penalty_model *m, const ct_tree_map *t, const ct_graph *g,
                       const unsigned char *active, double *penalty, ct_err *err)
{
    size_t *off = NULL;
    int32_t *path = NULL;
    int rc = links_routes(t, g, active, &off, &path, err);
    if (rc == 0)
        rc = duplex_incast_fill(m->real[CT_DUPLEX_COUPLING], m->real[CT_DUPLEX_INCAST],
                                m->real[CT_DUPLEX_INCAST_MAX_K], m->real[CT_DUPLEX_FLOWS],
                                m->real[CT_DUPLEX_FLOWS_MAX_F], m->real[CT_DUPLEX_FLOWS_EXP], g,
                                active, t, off, path, penalty, err);
    free(off), free(path);
    return rc;
}

const model_ops model_duplex = {
    .info = {.name = "duplex",
             .label = "duplex fair share",
             .cite = "our extension (issue 12)",
             .summary = "max-min fair share with send/receive coupling δ per node (fitted)",
             .keys = duplex_keys,
             .nkeys = sizeof duplex_keys / sizeof duplex_keys[0],
             .penalty_ge1 = 1,
             .latency_once = 1},
    .penalties = duplex_penalties,
    .tree_penalties = duplex_tree,
};
