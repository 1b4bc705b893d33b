/* Myrinet Stop & Go penalty model, paper 001 §V-B (Vienne et al., Cluster 2008).
 *
 * A communication is "send" or "wait"; a sending communication puts every
 * communication with the same source node or the same destination node in
 * "wait". The sets of states are the maximal sets of pairwise non-conflicting
 * communications, i.e. the maximal matchings of the bipartite multigraph
 * (senders on one side, receivers on the other; a node can be both). The
 * emission coefficient e(c) of a communication is the number of sets that
 * contain it; every communication takes the minimum of e over its source
 * node's outgoing communications; penalty = (number of sets) / minimum.
 *
 * How it is computed (doc/models-penalty.md has the details and figures):
 *  - Multiplicities are never expanded: the mult copies of an arc are
 *    interchangeable and pairwise in conflict, so the copies of one node pair
 *    act as one edge of weight w = total mult. A maximal matching of the
 *    weighted graph stands for prod(w) maximal sets of communications, and a
 *    given copy lies in a fraction 1/w of the sets using its edge.
 *  - The conflict graph splits into connected components; the number of sets
 *    is the product over components, and a node's outgoing communications all
 *    lie in one component, so penalty(c) = 1 / min over c's source node of
 *    Pr[copy in a uniformly drawn maximal set] within c's component.
 *  - Per component, one of four paths:
 *      CLOSED  an all-to-all over n >= 3 nodes whose multiplicities factor as
 *              a_u * b_v (uniform ones included): counted in closed form from
 *              derangement numbers (see sg_closed);
 *      DP      exact dynamic programme over senders in BFS order whose state
 *              is the status of the receivers still open (free / must be
 *              covered / taken): exponential only in that frontier width;
 *      ENUM    exact enumeration of the maximal sets (Bron-Kerbosch with
 *              pivoting on the conflict graph's complement);
 *      MCMC    a heat-bath Markov chain on maximal matchings whose block is a
 *              sender and a random sender two hops away, Rao-Blackwellised.
 *    EXACT uses ENUM only; SCALABLE uses CLOSED, then DP, then MCMC; AUTO
 *    also tries a bounded ENUM before falling back to MCMC.
 * This file holds the model and its entry points; the graph and the four
 * counting methods are in stopgo_graph.c and stopgo_count_*.c
 * (stopgo_count.h).
 */
#include "contention/penalty.h"

#include "stopgo.h" /* internal: paths, options, statistics */

#include "model.h"
#include "stopgo_count.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SG_DEFAULT_SEED 0x5eed5eedUL
#define SG_AUTO_ENUM_STEPS ((size_t)1000000)

static const char *path_name(sg_path p)
{
    switch (p) {
    case SG_CLOSED: return "closed form";
    case SG_DP: return "frontier DP";
    case SG_ENUM: return "enumeration";
    case SG_MCMC: return "MCMC";
    default: return "any";
    }
}

static size_t mcmc_default_updates(const sg_comp *c)
{
    /* The error falls as 1/sqrt(sweeps) and barely depends on the component's
     * size: 1e5 sweeps give about 2 % on the benches' graphs. At least 1e6
     * block updates, at most 2e7 (~2 s); big components get fewer sweeps and
     * a larger error (doc/models-penalty.md has the measurements). */
    size_t u = (size_t)c->ns * 100000;
    if (u < 1000000)
        u = 1000000;
    if (u > 20000000)
        u = 20000000;
    return u;
}

int stopgo_penalties_ex(const sg_opts *o, const ct_graph *g, const unsigned char *active,
                           double *penalty, sg_stats *st, ct_err *err)
{
    sg_opts def = {0};
    if (!o)
        o = &def;
    if (o->method != CT_STOPGO_AUTO && o->method != CT_STOPGO_EXACT &&
        o->method != CT_STOPGO_SCALABLE)
        return ct_err_set(err, "Stop & Go method %d (accepted: auto, exact, scalable)",
                          (int)o->method);
    if ((int)o->force < SG_ANY || o->force > SG_MCMC)
        return ct_err_set(err, "Stop & Go path %d (accepted: any, closed, dp, enum, mcmc)",
                          (int)o->force);
    if (g->nnodes < 1)
        return ct_err_set(err, "graph with %d nodes (accepted: >= 1)", (int)g->nnodes);
    sg_stats stats = {0};
    if (o->method != CT_STOPGO_EXACT && (o->force == SG_ANY || o->force == SG_CLOSED) &&
        sg_fast_alltoall(g, active, penalty)) {
        stats.components = stats.closed = 1;
        if (st)
            *st = stats;
        return 0;
    }
    size_t enum_max = o->enum_max_steps ? o->enum_max_steps : CT_STOPGO_ENUM_MAX_STEPS;
    size_t dp_max = o->dp_max_states ? o->dp_max_states : SG_DP_MAX_STATES;
    uint64_t seed = o->seed ? o->seed : SG_DEFAULT_SEED;

    sg_graph sg;
    if (sg_build(g, active, &sg, err) < 0)
        return -1;
    const size_t nn = (size_t)g->nnodes;
    uint32_t *lmap_s = malloc(nn * sizeof *lmap_s), *lmap_r = malloc(nn * sizeof *lmap_r);
    double *minpi = malloc(nn * sizeof *minpi);
    int rc = -1;
    if (!lmap_s || !lmap_r || !minpi) {
        ct_err_set(err, "Stop & Go: out of memory for %zu nodes", nn);
        goto out;
    }
    for (size_t v = 0; v < nn; v++)
        lmap_s[v] = lmap_r[v] = SG_NONE;
    stats.components = sg.ncomp;
    for (uint32_t ci = 0; ci < sg.ncomp; ci++) {
        const uint32_t *A = sg.carcs + sg.cstart[ci];
        const uint32_t m = sg.cstart[ci + 1] - sg.cstart[ci];
        sg_path want = o->force;
        if (want == SG_ANY && o->method == CT_STOPGO_EXACT)
            want = SG_ENUM;
        if (m == 1) { /* a lone pair: always sending */
            sg.pi[A[0]] = 1.0;
            stats.closed++;
            continue;
        }
        if (want == SG_ANY || want == SG_CLOSED) {
            if (sg_closed(&sg, ci, lmap_s)) {
                stats.closed++;
                continue;
            }
            if (want == SG_CLOSED) {
                ct_err_set(err, "Stop & Go: component of %u node pairs (sender node %d) is not an "
                                "all-to-all with factorable multiplicities (closed form accepted "
                                "only for those)",
                           m, (int)sg.asrc[A[0]]);
                goto out;
            }
        }
        sg_comp c;
        if (sg_comp_build(&sg, ci, lmap_s, lmap_r, &c) < 0) {
            sg_comp_free(&c);
            ct_err_set(err, "Stop & Go: out of memory for a component of %u node pairs", m);
            goto out;
        }
        int r = 1;
        sg_path used = SG_ANY;
        if (want == SG_ANY || want == SG_DP) {
            r = sg_dp(&c, dp_max, &stats.max_dp_states);
            used = SG_DP;
        }
        if (r == 1 && (want == SG_ENUM || (want == SG_ANY && o->method == CT_STOPGO_AUTO))) {
            size_t budget = want == SG_ENUM ? enum_max
                            : (enum_max < SG_AUTO_ENUM_STEPS ? enum_max : SG_AUTO_ENUM_STEPS);
            memset(c.pi, 0, c.m * sizeof *c.pi);
            r = sg_enum(&c, budget, &stats.enum_steps, NULL);
            used = SG_ENUM;
        }
        if (r == 1 && (want == SG_ANY || want == SG_MCMC)) {
            size_t u = o->mcmc_updates ? o->mcmc_updates : mcmc_default_updates(&c);
            memset(c.pi, 0, c.m * sizeof *c.pi);
            r = sg_mcmc(&c, seed ^ ((uint64_t)ci * 0x9e3779b97f4a7c15ULL), u, &stats.mcmc_updates);
            used = SG_MCMC;
        }
        if (r != 0) {
            if (r < 0)
                ct_err_set(err, "Stop & Go: out of memory in the %s of a component of %u node "
                                "pairs",
                           path_name(used), m);
            else if (used == SG_ENUM)
                ct_err_set(err, "Stop & Go exact enumeration: the component of sender node %d "
                                "(%u senders, %u receivers, %u node pairs) needs more than %zu "
                                "search steps or %d node pairs (accepted: components within "
                                "CT_STOPGO_ENUM_MAX_STEPS, e.g. an all-to-all of up to 10 nodes; "
                                "use the scalable method beyond)",
                           (int)sg.asrc[A[0]], c.ns, c.nr, m, want == SG_ENUM ? enum_max : 0,
                           CT_STOPGO_ENUM_MAX_ARCS);
            else
                ct_err_set(err, "Stop & Go frontier DP: the component of sender node %d (%u "
                                "node pairs) needs more than %d open receivers or %zu states "
                                "(accepted: narrow components; use the scalable method)",
                           (int)sg.asrc[A[0]], m, SG_DP_MAX_FRONTIER, dp_max);
            sg_comp_free(&c);
            goto out;
        }
        if (used == SG_DP)
            stats.dp++;
        else if (used == SG_ENUM)
            stats.enumerated++;
        else
            stats.mcmc++;
        for (uint32_t k = 0; k < m; k++)
            sg.pi[A[k]] = c.pi[k];
        sg_comp_free(&c);
    }
    /* 001 §V-B: each communication takes the minimum emission coefficient over
     * its source node's outgoing communications; penalty = #sets / minimum,
     * i.e. 1 / min Pr[copy sending], a copy of pair a sending w.p. pi[a] / w[a]. */
    for (size_t v = 0; v < nn; v++)
        minpi[v] = INFINITY;
    for (uint32_t a = 0; a < sg.narc; a++) {
        double p = sg.pi[a] / sg.w[a];
        if (p < minpi[sg.asrc[a]])
            minpi[sg.asrc[a]] = p;
    }
    for (size_t i = 0; i < g->ncomm; i++)
        penalty[i] = sg.arc_of[i] == SG_NONE ? 0.0 : 1.0 / minpi[g->comm[i].src];
    rc = 0;
out:
    if (st)
        *st = stats;
    free(lmap_s), free(lmap_r), free(minpi);
    sg_free(&sg);
    return rc;
}

int ct_stopgo_penalties(ct_stopgo_method method, unsigned long seed, const ct_graph *g,
                        double *penalty, ct_err *err)
{
    sg_opts o = {.method = method, .seed = seed};
    return stopgo_penalties_ex(&o, g, NULL, penalty, NULL, err);
}

/* ---- the model's entry in the registry (model.h) */

static int stopgo_penalties(const ct_penalty_model *m, const ct_graph *g,
                            const unsigned char *active, double *penalty, ct_err *err)
{
    sg_opts o = {.method = (ct_stopgo_method)m->integer[CT_STOPGO_METHOD],
                        .seed = (unsigned long)m->integer[CT_STOPGO_SEED]};
    return stopgo_penalties_ex(&o, g, active, penalty, NULL, err);
}

static const char *const stopgo_methods[] = {"auto", "exact", "scalable", NULL};
static const ct_model_key stopgo_keys[] = {
    {.key = "method",
     .unit = "",
     .meaning = "how the maximal sets are counted (auto, exact, scalable)",
     .type = CT_PARAM_CHOICE, .slot = CT_STOPGO_METHOD, .choices = stopgo_methods},
    {.key = "seed",
     .unit = "1",
     .meaning = "seed of the scalable method's Markov chain; 0 = default",
     .type = CT_PARAM_INT, .slot = CT_STOPGO_SEED, .lo = 0, .hi = (double)INT64_MAX},
};

/* On a switch link (our extension, issue 14): a time-sliced link of
 * capacity C (in NICs) carrying k communications gives each k/C of the
 * time; the composition (penalty_links.c) takes max(p_NIC, k/C), so a link
 * with room (k <= C) leaves the node-level penalty (>= 1) as it is. */
static double stopgo_link(const ct_penalty_model *m, double load, double cap)
{
    (void)m;
    return load / cap;
}

const model_ops model_stopgo = {
    .info = {.name = "stopgo",
             .label = "Stop & Go",
             .cite = "001 §V-B",
             .summary = "Myrinet Stop & Go: penalty = #maximal sets / min emission at the source",
             .keys = stopgo_keys,
             .nkeys = sizeof stopgo_keys / sizeof stopgo_keys[0],
             .penalty_ge1 = 1},
    .penalties = stopgo_penalties,
    .link_penalty = stopgo_link,
};

int ct_stopgo_exact_counts(const ct_graph *g, double *nsets, double *emission, ct_err *err)
{
    if (g->nnodes < 1)
        return ct_err_set(err, "graph with %d nodes (accepted: >= 1)", (int)g->nnodes);
    sg_graph sg;
    if (sg_build(g, NULL, &sg, err) < 0)
        return -1;
    const size_t nn = (size_t)g->nnodes;
    uint32_t *lmap_s = malloc(nn * sizeof *lmap_s), *lmap_r = malloc(nn * sizeof *lmap_r);
    double *ncomp = malloc(((size_t)sg.ncomp + 1) * sizeof *ncomp);
    uint32_t *comp_of = malloc(((size_t)sg.narc + 1) * sizeof *comp_of);
    int rc = -1;
    if (!lmap_s || !lmap_r || !ncomp || !comp_of) {
        ct_err_set(err, "Stop & Go: out of memory for %zu nodes", nn);
        goto out;
    }
    for (size_t v = 0; v < nn; v++)
        lmap_s[v] = lmap_r[v] = SG_NONE;
    double total = 1.0;
    size_t steps = 0;
    for (uint32_t ci = 0; ci < sg.ncomp; ci++) {
        const uint32_t *A = sg.carcs + sg.cstart[ci];
        const uint32_t m = sg.cstart[ci + 1] - sg.cstart[ci];
        sg_comp c;
        if (sg_comp_build(&sg, ci, lmap_s, lmap_r, &c) < 0) {
            sg_comp_free(&c);
            ct_err_set(err, "Stop & Go: out of memory for a component of %u node pairs", m);
            goto out;
        }
        int r = sg_enum(&c, CT_STOPGO_ENUM_MAX_STEPS, &steps, &ncomp[ci]);
        if (r != 0) {
            if (r < 0)
                ct_err_set(err, "Stop & Go: out of memory enumerating %u node pairs", m);
            else
                ct_err_set(err, "Stop & Go exact enumeration: the component of sender node %d "
                                "(%u node pairs) needs more than %zu search steps or %d node "
                                "pairs (accepted: components within CT_STOPGO_ENUM_MAX_STEPS)",
                           (int)sg.asrc[A[0]], m, (size_t)CT_STOPGO_ENUM_MAX_STEPS,
                           CT_STOPGO_ENUM_MAX_ARCS);
            sg_comp_free(&c);
            goto out;
        }
        for (uint32_t k = 0; k < m; k++) {
            sg.pi[A[k]] = c.pi[k];
            comp_of[A[k]] = ci;
        }
        total *= ncomp[ci];
        sg_comp_free(&c);
    }
    /* A copy of pair a lies in pi[a]/w[a] of its component's sets, and the
     * other components multiply the count. */
    for (size_t i = 0; i < g->ncomm; i++) {
        uint32_t a = sg.arc_of[i];
        emission[i] = sg.pi[a] / sg.w[a] * total;
    }
    *nsets = total;
    rc = 0;
out:
    free(lmap_s), free(lmap_r), free(ncomp), free(comp_of);
    sg_free(&sg);
    return rc;
}
