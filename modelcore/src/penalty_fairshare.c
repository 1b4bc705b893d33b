/* Max-min fair-share baseline: every node has one outgoing and one incoming
 * NIC of capacity 1 (the bandwidth of a communication alone). Progressive
 * filling raises the rate of every unfrozen flow together; when a NIC is
 * full, the flows through it are frozen at the current level. Penalty = 1/r.
 * Not a model of paper 001: the simulator's reference point for "what a
 * perfectly fair network would do" (the bottleneck is the NIC, not the fabric).
 */
#include "contention/penalty.h"

#include "links.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>

int ct_fairshare_penalties_ex(const ct_graph *g, const unsigned char *active, double *penalty,
                              ct_err *err)
{
    if (g->nnodes < 1)
        return ct_err_set(err, "graph with %d nodes (accepted: >= 1)", (int)g->nnodes);
    return links_fair_penalties(NULL, g, active, NULL, 0, penalty, err); /* one switch */
}

int ct_fairshare_penalties(const ct_graph *g, double *penalty, ct_err *err)
{
    return ct_fairshare_penalties_ex(g, NULL, penalty, err);
}

/* ---- on a switch tree (model.h tree_penalties; our extension, issue 14)
 *
 * Max-min fair share over every link a flow crosses: its NIC out and NIC in
 * (capacity 1) and the switch links of its route (capacity up_cap, links.h).
 * The sharing couples a route's links, so the model computes the whole tree
 * itself. One filling for both: with t NULL (one switch, ct_fairshare_
 * penalties_ex) or no switch link on any route it is the NICs' max-min, so a
 * tree under one switch computes the same doubles.
 *
 * Weighted (links.h links_fair_penalties; weight non-NULL, our extension, session
 * 13): every unfrozen flow i rises at weight[i] x the level, a link filling
 * at level (cap - used) / (sum of its unfrozen flows' weights); the TCP share
 * (penalty_tcpshare.c) uses it. weight NULL is the max-min above, bit for
 * bit (each weight 1: the sums are the integer counts). uplink_duplex: a
 * flow on switch link l also weighs links_duplex (links.h) in l ^ 1, the
 * uplink's other direction, where that one is saturated and the map has a
 * measured share, as in the duplex model's tree rule (penalty_duplex.c). */
int links_fair_penalties(const ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                         const double *weight, int uplink_duplex, double *penalty, ct_err *err)
{
    const size_t n = g->ncomm, nn = (size_t)g->nnodes, nl = t ? 2 * (size_t)t->nswitches : 0;
    typedef struct lk {
        double cap, used, wfree; /* wfree: the unfrozen flows' weights (counts when unweighted) */
        int64_t nfree;
    } lk;
    lk *out = calloc(nn, sizeof *out), *in = calloc(nn, sizeof *in),
       *sl = calloc(nl ? nl : 1, sizeof *sl);
    /* rw[l]: the weight a flow on switch link l puts on l ^ 1 (uplink_duplex) */
    double *rw = calloc(nl ? nl : 1, sizeof *rw), *rate = malloc((n ? n : 1) * sizeof *rate);
    size_t *off = NULL;
    int32_t *path = NULL;
    int rc = -1;
    if (!out || !in || !sl || !rw || !rate) {
        ct_err_set(err, "out of memory for a link fair-share evaluation of %zu arcs", n);
        goto done;
    }
    if (links_routes(t, g, active, &off, &path, err) < 0)
        goto done;
    for (size_t v = 0; v < nn; v++)
        out[v].cap = in[v].cap = 1.0;
    for (size_t s = 0; s < nl; s++)
        sl[s].cap = t->up_cap[s / 2];
    const ct_comm *c = g->comm;
    if (uplink_duplex && t && t->up_duplex)
        links_duplex_weights(t, g, off, path, rw);
    size_t unfrozen = 0;
    for (size_t i = 0; i < n; i++) {
        rate[i] = 0.0;
        if (active && !active[i])
            continue;
        const double wm = (weight ? weight[i] : 1.0) * (double)c[i].mult;
        out[c[i].src].nfree += c[i].mult, out[c[i].src].wfree += wm;
        in[c[i].dst].nfree += c[i].mult, in[c[i].dst].wfree += wm;
        for (size_t j = off[i]; j < off[i + 1]; j++) {
            sl[path[j]].nfree += c[i].mult, sl[path[j]].wfree += wm;
            if (rw[path[j]] > 0)
                sl[path[j] ^ 1].nfree += c[i].mult, sl[path[j] ^ 1].wfree += rw[path[j]] * wm;
        }
        rate[i] = -1.0;
        unfrozen++;
    }
#define FILL_AT(x) (((x)->cap - (x)->used) / (x)->wfree)
    while (unfrozen > 0) {
        double level = INFINITY;
        for (size_t v = 0; v < nn; v++) {
            if (out[v].nfree > 0 && FILL_AT(&out[v]) < level)
                level = FILL_AT(&out[v]);
            if (in[v].nfree > 0 && FILL_AT(&in[v]) < level)
                level = FILL_AT(&in[v]);
        }
        for (size_t s = 0; s < nl; s++)
            if (sl[s].nfree > 0 && FILL_AT(&sl[s]) < level)
                level = FILL_AT(&sl[s]);
        const double tol = level * 1e-12;
        for (size_t i = 0; i < n; i++) {
            if (rate[i] >= 0)
                continue;
            int hit = FILL_AT(&out[c[i].src]) <= level + tol || FILL_AT(&in[c[i].dst]) <= level + tol;
            for (size_t j = off[i]; j < off[i + 1] && !hit; j++)
                hit = FILL_AT(&sl[path[j]]) <= level + tol ||
                      (rw[path[j]] > 0 && FILL_AT(&sl[path[j] ^ 1]) <= level + tol);
            if (hit)
                rate[i] = -2.0;
        }
        size_t frozen = 0;
        for (size_t i = 0; i < n; i++) {
            if (rate[i] != -2.0)
                continue;
            const double w = weight ? weight[i] : 1.0, r = w * level;
            const double used = r * (double)c[i].mult, wm = w * (double)c[i].mult;
            rate[i] = r;
            out[c[i].src].used += used, out[c[i].src].nfree -= c[i].mult;
            out[c[i].src].wfree -= wm;
            in[c[i].dst].used += used, in[c[i].dst].nfree -= c[i].mult, in[c[i].dst].wfree -= wm;
            for (size_t j = off[i]; j < off[i + 1]; j++) {
                lk *x = &sl[path[j]], *y = &sl[path[j] ^ 1];
                x->used += used, x->nfree -= c[i].mult, x->wfree -= wm;
                if (rw[path[j]] > 0)
                    y->used += rw[path[j]] * used, y->nfree -= c[i].mult,
                        y->wfree -= rw[path[j]] * wm;
            }
            unfrozen--;
            frozen++;
        }
        if (!frozen) { /* cannot happen: the link that set the level freezes its flows */
            ct_err_set(err, "link fair share made no progress");
            goto done;
        }
    }
#undef FILL_AT
    for (size_t i = 0; i < n; i++)
        penalty[i] = (active && !active[i]) ? 0.0 : 1.0 / rate[i];
    rc = 0;
done:
    free(out), free(in), free(sl), free(rw), free(rate), free(off), free(path);
    return rc;
}

static int fairshare_tree(const ct_penalty_model *m, const ct_tree_map *t, const ct_graph *g,
                          const unsigned char *active, double *penalty, ct_err *err)
{
    (void)m;
    return links_fair_penalties(t, g, active, NULL, 0, penalty, err);
}

/* ---- the model's entry in the registry (model.h) */

static int fairshare_penalties(const ct_penalty_model *m, const ct_graph *g,
                               const unsigned char *active, double *penalty, ct_err *err)
{
    (void)m;
    return ct_fairshare_penalties_ex(g, active, penalty, err);
}

const model_ops model_fairshare = {
    .info = {.name = "fairshare",
             .label = "fair share",
             .cite = "baseline",
             .summary = "max-min fair share of each NIC's in/out bandwidth (not from a paper)",
             .penalty_ge1 = 1,
             .latency_once = 1},
    .penalties = fairshare_penalties,
    .tree_penalties = fairshare_tree,
};
