/* Link-level penalties on a switch tree (issue 14; our extension of paper
 * 001's node-level models, which assume one switch).
 *
 * Links: each node's NIC out and NIC in (capacity 1 = one communication
 * alone), each non-top switch's uplink and downlink (capacity up_cap, in
 * NIC units; topology.h). A communication a -> b is routed up from a's leaf
 * to the lowest common switch and down to b's leaf (the unique tree path,
 * Slurm's topology/tree).
 *
 *  - fairshare: max-min fair share over every link on the route
 *    (progressive filling, the baseline). With one switch the links are
 *    the NICs and the computation is penalty_fairshare.c's, operation for
 *    operation, so the penalties are bit-identical.
 *  - gige, stopgo, none: the fabric's node-level model prices the NICs as
 *    before (001 §V-A / §V-B), and each switch link l carrying k_l
 *    communications in flight adds the link generalisation of that model;
 *    a communication's penalty is the largest along its route, as 001 §V-A
 *    takes p = max(p_o, p_i) over its two NICs:
 *      gige:   p_l = max(1, beta * k_l / C_l)  (001 §V-A's p = k*beta of a
 *              NIC shared by k, with a link of capacity C acting as k/C NICs'
 *              worth of load; the gamma corrections need the C^m sets, which
 *              are defined on nodes, and are not applied on switch links)
 *      stopgo: p_l = max(1, k_l / C_l)        (time-sliced link)
 *      none:   1.
 *    With one switch no route has a switch link, so the penalties are the
 *    node-level model's, bit for bit.
 */
#include "contention/penalty.h"
#include "contention/topology.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Switch links of arc a -> b, in route order: uplinks 2*s, downlinks 2*s+1.
 * Returns the count (<= 2 * depth of the tree). */
static size_t route(const ct_tree_map *t, int32_t a, int32_t b, int32_t *out)
{
    int32_t x = t->leaf[a], y = t->leaf[b];
    size_t n = 0, nd = 0;
    int32_t down[128];
    while (x != y) {
        if (t->depth[x] >= t->depth[y]) {
            out[n++] = 2 * x;
            x = t->parent[x];
        } else {
            if (nd < 128)
                down[nd++] = 2 * y + 1;
            y = t->parent[y];
        }
        if (x < 0 || y < 0)
            break; /* not a tree: cannot happen after ct_topology_resolve */
    }
    while (nd > 0)
        out[n++] = down[--nd];
    return n;
}

static int32_t max_depth(const ct_tree_map *t)
{
    int32_t d = 0;
    for (int32_t s = 0; s < t->nswitches; s++)
        if (t->depth[s] > d)
            d = t->depth[s];
    return d;
}

static int check_map(const ct_tree_map *t, const ct_graph *g, ct_err *err)
{
    if (!t || t->nnodes != g->nnodes)
        return ct_err_set(err,
                          "tree map over %d nodes for a graph of %d nodes (accepted: the "
                          "same nodes)",
                          t ? (int)t->nnodes : -1, (int)g->nnodes);
    if (max_depth(t) > 60)
        return ct_err_set(err, "switch tree %d levels deep (accepted: at most 60)",
                          (int)max_depth(t));
    return 0;
}

/* Communications in flight on each switch link (2 per switch). */
static int link_loads(const ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                      double *load, int *any)
{
    int32_t r[128];
    *any = 0;
    memset(load, 0, 2 * (size_t)t->nswitches * sizeof *load);
    for (size_t i = 0; i < g->ncomm; i++) {
        if (active && !active[i])
            continue;
        size_t k = route(t, g->comm[i].src, g->comm[i].dst, r);
        for (size_t j = 0; j < k; j++)
            load[r[j]] += (double)g->comm[i].mult;
        *any |= k > 0;
    }
    return 0;
}

/* Max-min fair share over NICs and switch links. Mirrors
 * ct_fairshare_penalties_ex step for step (same level formula, same
 * tolerance, same freezing order), so that with no switch link on any route
 * it computes the same doubles. */
static int fairshare_links(const ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                           double *penalty, ct_err *err)
{
    const size_t n = g->ncomm, nn = (size_t)g->nnodes, nl = 2 * (size_t)t->nswitches;
    typedef struct lk {
        double cap, used;
        int64_t nfree;
    } lk;
    lk *out = calloc(nn, sizeof *out), *in = calloc(nn, sizeof *in), *sl = calloc(nl, sizeof *sl);
    double *rate = malloc((n ? n : 1) * sizeof *rate);
    size_t *off = malloc((n + 1) * sizeof *off);
    int32_t *path = NULL, r[128];
    int rc = -1;
    if (!out || !in || !sl || !rate || !off) {
        ct_err_set(err, "out of memory for a link fair-share evaluation of %zu arcs", n);
        goto done;
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        off[i] = total;
        if (!(active && !active[i]))
            total += route(t, g->comm[i].src, g->comm[i].dst, r);
    }
    off[n] = total;
    path = malloc((total ? total : 1) * sizeof *path);
    if (!path) {
        ct_err_set(err, "out of memory for the routes of %zu arcs", n);
        goto done;
    }
    for (size_t v = 0; v < nn; v++)
        out[v].cap = in[v].cap = 1.0;
    for (size_t s = 0; s < nl; s++)
        sl[s].cap = t->up_cap[s / 2];
    const ct_comm *c = g->comm;
    size_t unfrozen = 0;
    for (size_t i = 0; i < n; i++) {
        rate[i] = 0.0;
        if (active && !active[i])
            continue;
        route(t, c[i].src, c[i].dst, path + off[i]);
        out[c[i].src].nfree += c[i].mult;
        in[c[i].dst].nfree += c[i].mult;
        for (size_t j = off[i]; j < off[i + 1]; j++)
            sl[path[j]].nfree += c[i].mult;
        rate[i] = -1.0;
        unfrozen++;
    }
    while (unfrozen > 0) {
        double level = INFINITY;
        for (size_t v = 0; v < nn; v++) {
            if (out[v].nfree > 0 && (out[v].cap - out[v].used) / (double)out[v].nfree < level)
                level = (out[v].cap - out[v].used) / (double)out[v].nfree;
            if (in[v].nfree > 0 && (in[v].cap - in[v].used) / (double)in[v].nfree < level)
                level = (in[v].cap - in[v].used) / (double)in[v].nfree;
        }
        for (size_t s = 0; s < nl; s++)
            if (sl[s].nfree > 0 && (sl[s].cap - sl[s].used) / (double)sl[s].nfree < level)
                level = (sl[s].cap - sl[s].used) / (double)sl[s].nfree;
        const double tol = level * 1e-12;
        for (size_t i = 0; i < n; i++) {
            if (rate[i] >= 0)
                continue;
            const lk *o = &out[c[i].src], *d = &in[c[i].dst];
            int hit = (o->cap - o->used) / (double)o->nfree <= level + tol ||
                      (d->cap - d->used) / (double)d->nfree <= level + tol;
            for (size_t j = off[i]; j < off[i + 1] && !hit; j++) {
                const lk *x = &sl[path[j]];
                hit = (x->cap - x->used) / (double)x->nfree <= level + tol;
            }
            if (hit)
                rate[i] = -2.0;
        }
        size_t frozen = 0;
        for (size_t i = 0; i < n; i++) {
            if (rate[i] != -2.0)
                continue;
            rate[i] = level;
            out[c[i].src].used += level * (double)c[i].mult;
            out[c[i].src].nfree -= c[i].mult;
            in[c[i].dst].used += level * (double)c[i].mult;
            in[c[i].dst].nfree -= c[i].mult;
            for (size_t j = off[i]; j < off[i + 1]; j++) {
                sl[path[j]].used += level * (double)c[i].mult;
                sl[path[j]].nfree -= c[i].mult;
            }
            unfrozen--;
            frozen++;
        }
        if (!frozen) { /* cannot happen: the link that set the level freezes its flows */
            ct_err_set(err, "link fair share made no progress");
            goto done;
        }
    }
    for (size_t i = 0; i < n; i++)
        penalty[i] = (active && !active[i]) ? 0.0 : 1.0 / rate[i];
    rc = 0;
done:
    free(out), free(in), free(sl), free(rate), free(off), free(path);
    return rc;
}

int ct_links_penalties_active(const ct_penalty_model *m, const ct_tree_map *t, const ct_graph *g,
                              const unsigned char *active, double *penalty, ct_err *err)
{
    if (!m || !g || (!penalty && g->ncomm))
        return ct_err_set(err, "ct_links_penalties: NULL model, graph or penalty array");
    if (check_map(t, g, err) < 0)
        return -1;
    ct_penalty_model node = *m;
    node.tree = NULL; /* the node-level model itself */
    if (m->kind == CT_MODEL_FAIRSHARE)
        return fairshare_links(t, g, active, penalty, err);
    if (ct_penalties_active(&node, g, active, penalty, err) < 0)
        return -1;
    if (m->kind == CT_MODEL_NONE)
        return 0;
    double *load = malloc(2 * (size_t)t->nswitches * sizeof *load);
    if (!load)
        return ct_err_set(err, "out of memory for %d switch links", 2 * (int)t->nswitches);
    int any;
    link_loads(t, g, active, load, &any);
    if (any) {
        const double scale = m->kind == CT_MODEL_GIGE ? m->real[CT_GIGE_SHARE] : 1.0;
        int32_t r[128];
        for (size_t i = 0; i < g->ncomm; i++) {
            if (active && !active[i])
                continue;
            size_t k = route(t, g->comm[i].src, g->comm[i].dst, r);
            for (size_t j = 0; j < k; j++) {
                double p = scale * load[r[j]] / t->up_cap[r[j] / 2]; /* see the file comment */
                if (p > penalty[i])
                    penalty[i] = p;
            }
        }
    }
    free(load);
    return 0;
}

int ct_links_busiest(const ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                     ct_link_use *out, ct_err *err)
{
    if (check_map(t, g, err) < 0)
        return -1;
    memset(out, 0, sizeof *out);
    out->index = -1;
    const size_t nn = (size_t)g->nnodes, nl = 2 * (size_t)t->nswitches;
    double *nic = calloc(2 * nn, sizeof *nic), *load = malloc((nl ? nl : 1) * sizeof *load);
    if (!nic || !load) {
        free(nic), free(load);
        return ct_err_set(err, "out of memory for the link loads of %zu arcs", g->ncomm);
    }
    for (size_t i = 0; i < g->ncomm; i++) {
        if (active && !active[i])
            continue;
        nic[2 * (size_t)g->comm[i].src] += (double)g->comm[i].mult;
        nic[2 * (size_t)g->comm[i].dst + 1] += (double)g->comm[i].mult;
    }
    int any;
    link_loads(t, g, active, load, &any);
    /* ties keep the first: NICs in node order, then switch links */
    for (size_t v = 0; v < 2 * nn; v++)
        if (nic[v] > out->ratio) {
            out->kind = (v & 1) ? CT_LINK_NIC_IN : CT_LINK_NIC_OUT;
            out->index = (int32_t)(v / 2);
            out->load = nic[v];
            out->capacity = 1.0;
            out->ratio = nic[v];
        }
    for (size_t s = 0; s < nl; s++) {
        double cap = t->up_cap[s / 2];
        if (load[s] > 0 && cap > 0 && load[s] / cap > out->ratio) {
            out->kind = (s & 1) ? CT_LINK_DOWN : CT_LINK_UP;
            out->index = (int32_t)(s / 2);
            out->load = load[s];
            out->capacity = cap;
            out->ratio = load[s] / cap;
        }
    }
    free(nic), free(load);
    return 0;
}

int ct_links_busiest_alltoall(const ct_tree_map *t, const int32_t *tasks, ct_link_use *out,
                              ct_err *err)
{
    memset(out, 0, sizeof *out);
    out->index = -1;
    const int32_t nn = t->nnodes, ns = t->nswitches;
    double *under = calloc((size_t)ns, sizeof *under);
    if (!under)
        return ct_err_set(err, "out of memory for %d switches", (int)ns);
    double n = 0;
    for (int32_t v = 0; v < nn; v++) {
        n += tasks[v];
        int32_t steps = 0;
        for (int32_t x = t->leaf[v]; x >= 0 && steps <= ns; x = t->parent[x], steps++)
            under[x] += tasks[v];
    }
    for (int32_t v = 0; v < nn; v++) {
        double load = (double)tasks[v] * (n - tasks[v]);
        if (load > out->ratio) {
            out->kind = CT_LINK_NIC_OUT;
            out->index = v;
            out->load = out->ratio = load;
            out->capacity = 1.0;
        }
    }
    for (int32_t s = 0; s < ns; s++) {
        double load = under[s] * (n - under[s]);
        if (t->parent[s] >= 0 && load > 0 && t->up_cap[s] > 0 && load / t->up_cap[s] > out->ratio) {
            out->kind = CT_LINK_UP;
            out->index = s;
            out->load = load;
            out->capacity = t->up_cap[s];
            out->ratio = load / t->up_cap[s];
        }
    }
    free(under);
    return 0;
}

const char *ct_link_label(const ct_tree_map *t, const ct_link_use *u, char *buf, size_t sz)
{
    if (u->index < 0)
        snprintf(buf, sz, "none");
    else if (u->kind == CT_LINK_NIC_OUT || u->kind == CT_LINK_NIC_IN)
        snprintf(buf, sz, "node %d NIC %s", (int)u->index,
                 u->kind == CT_LINK_NIC_OUT ? "out" : "in");
    else
        snprintf(buf, sz, "%s %s", t->name[u->index],
                 u->kind == CT_LINK_UP ? "uplink" : "downlink");
    return buf;
}
