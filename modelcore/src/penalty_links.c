/* Link-level penalties on a switch tree (issue 14; our extension of paper
 * 001's node-level models, which assume one switch).
 *
 * Links: each node's NIC out and NIC in (capacity 1 = one communication
 * alone), each non-top switch's uplink and downlink (capacity up_cap, in
 * NIC units; topology.h). A communication a -> b is routed up from a's leaf
 * to the lowest common switch and down to b's leaf (the unique tree path,
 * Slurm's topology/tree; links.h).
 *
 * This file knows no model. Each model says in its own file how it behaves
 * on a switch link (model.h):
 *  - tree_penalties: the model computes the whole tree itself, for sharing
 *    that couples a route's links (max-min fair share, penalty_fairshare.c);
 *  - link_penalty(m, load, cap): the composition below keeps the node-level
 *    model on the NICs as it is (001 §V-A / §V-B) and, for each switch link
 *    l carrying load_l communications in flight, takes the model's penalty
 *    of that link; a communication's penalty is the largest along its route,
 *    as 001 §V-A takes p = max(p_o, p_i) over its two NICs. An uplink with a
 *    measured duplex share δ (topology.h) counts the communications of its
 *    other direction at weight δ in load_l when that direction is saturated
 *    (links.h; our extension, session 11).
 * With one switch no route has a switch link, so the penalties are the
 * node-level model's, bit for bit.
 */
#include "contention/penalty.h"
#include "contention/topology.h"

#include "links.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t links_route(const ct_tree_map *t, int32_t a, int32_t b, int32_t *out)
{
    int32_t x = t->leaf[a], y = t->leaf[b];
    size_t n = 0, nd = 0;
    int32_t down[LINKS_MAX_ROUTE];
    while (x != y) {
        if (t->depth[x] >= t->depth[y]) {
            out[n++] = 2 * x;
            x = t->parent[x];
        } else {
            if (nd < LINKS_MAX_ROUTE)
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

int links_routes(const ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                 size_t **off, int32_t **path, ct_err *err)
{
    const size_t n = g->ncomm;
    int32_t r[LINKS_MAX_ROUTE];
    *path = NULL;
    *off = malloc((n + 1) * sizeof **off);
    if (!*off)
        return ct_err_set(err, "out of memory for the routes of %zu arcs", n);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        (*off)[i] = total;
        if (t && !(active && !active[i]))
            total += links_route(t, g->comm[i].src, g->comm[i].dst, r);
    }
    (*off)[n] = total;
    *path = malloc((total ? total : 1) * sizeof **path);
    if (!*path)
        return ct_err_set(err, "out of memory for the routes of %zu arcs", n);
    for (size_t i = 0; t && i < n; i++)
        if (!(active && !active[i]))
            links_route(t, g->comm[i].src, g->comm[i].dst, *path + (*off)[i]);
    return 0;
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
    if (max_depth(t) > LINKS_MAX_DEPTH)
        return ct_err_set(err, "switch tree %d levels deep (accepted: at most %d)",
                          (int)max_depth(t), LINKS_MAX_DEPTH);
    return 0;
}

/* Communications in flight on each switch link (2 per switch). */
static void link_loads(const ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                       double *load, int *any)
{
    int32_t r[LINKS_MAX_ROUTE];
    *any = 0;
    memset(load, 0, 2 * (size_t)t->nswitches * sizeof *load);
    for (size_t i = 0; i < g->ncomm; i++) {
        if (active && !active[i])
            continue;
        size_t k = links_route(t, g->comm[i].src, g->comm[i].dst, r);
        for (size_t j = 0; j < k; j++)
            load[r[j]] += (double)g->comm[i].mult;
        *any |= k > 0;
    }
}

int ct_links_penalties_active(const ct_penalty_model *m, const ct_tree_map *t, const ct_graph *g,
                              const unsigned char *active, double *penalty, ct_err *err)
{
    if (!m || !g || (!penalty && g->ncomm))
        return ct_err_set(err, "ct_links_penalties: NULL model, graph or penalty array");
    if (check_map(t, g, err) < 0)
        return -1;
    const model_ops *o = model_ops_of(m->kind);
    if (!o)
        return ct_err_set(err, "unknown penalty model kind %d (accepted: %s)", (int)m->kind,
                          ct_model_names());
    if (o->tree_penalties) {
        if (ct_model_check(m, err))
            return -1;
        return o->tree_penalties(m, t, g, active, penalty, err);
    }
    if (!o->link_penalty)
        return ct_err_set(err, "%s: the model has no switch-link rule (model.h link_penalty)",
                          o->info.name);
    ct_penalty_model node = *m;
    node.tree = NULL; /* the node-level model itself, on the NICs */
    if (ct_penalties_active(&node, g, active, penalty, err) < 0)
        return -1;
    double *load = malloc((2 * (size_t)t->nswitches + 1) * sizeof *load);
    if (!load)
        return ct_err_set(err, "out of memory for %d switch links", 2 * (int)t->nswitches);
    int any;
    link_loads(t, g, active, load, &any);
    if (any) {
        /* a communication also loads its uplink's other direction by the
         * uplink's duplex share where that direction is saturated
         * (topology.h, links.h; our extension, session 11): link l is
         * priced at load_l + duplex * load_(l^1) */
        const size_t nl = 2 * (size_t)t->nswitches;
        double *eff = malloc((nl ? nl : 1) * sizeof *eff);
        if (!eff) {
            free(load);
            return ct_err_set(err, "out of memory for %zu switch links", nl);
        }
        for (size_t l = 0; l < nl; l++)
            eff[l] = load[l] + links_duplex(t, (int32_t)l, load[l ^ 1]) * load[l ^ 1];
        int32_t r[LINKS_MAX_ROUTE];
        for (size_t i = 0; i < g->ncomm; i++) {
            if (active && !active[i])
                continue;
            size_t k = links_route(t, g->comm[i].src, g->comm[i].dst, r);
            for (size_t j = 0; j < k; j++) {
                double p = o->link_penalty(m, eff[r[j]], t->up_cap[r[j] / 2]);
                if (p > penalty[i])
                    penalty[i] = p;
            }
        }
        free(eff);
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

/* The tasks under each switch (malloc'ed, per switch; NULL: out of memory)
 * and in all (*n) for an Alltoall of tasks[v] tasks on graph node v. */
static double *tasks_under(const ct_tree_map *t, const int32_t *tasks, double *n)
{
    double *under = calloc((size_t)(t->nswitches > 0 ? t->nswitches : 1), sizeof *under);
    *n = 0;
    if (under)
        *n = links_tasks_under(t, tasks, under);
    return under;
}

int ct_links_busiest_alltoall(const ct_tree_map *t, const int32_t *tasks, ct_link_use *out,
                              ct_err *err)
{
    memset(out, 0, sizeof *out);
    out->index = -1;
    const int32_t nn = t->nnodes, ns = t->nswitches;
    double n, *under = tasks_under(t, tasks, &n);
    if (!under)
        return ct_err_set(err, "out of memory for %d switches", (int)ns);
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

int ct_links_alltoall_uplink_excess(const ct_tree_map *t, const int32_t *tasks,
                                    double *excess, int32_t *sw, ct_err *err)
{
    *excess = 0;
    if (sw)
        *sw = -1;
    const int32_t nn = t->nnodes, ns = t->nswitches;
    double n, nic = 0, *under = tasks_under(t, tasks, &n);
    if (!under)
        return ct_err_set(err, "out of memory for %d switches", (int)ns);
    for (int32_t v = 0; v < nn; v++) {
        double load = (double)tasks[v] * (n - tasks[v]); /* one NIC, each way */
        nic = load > nic ? load : nic;
    }
    double up = 0;
    for (int32_t s = 0; s < ns; s++) {
        double load = under[s] * (n - under[s]); /* the uplink, each way */
        if (t->parent[s] >= 0 && load > 0 && t->up_cap[s] > 0 && load / t->up_cap[s] > up) {
            up = load / t->up_cap[s];
            if (sw)
                *sw = s;
        }
    }
    free(under);
    if (up > 0 && nic > 0)
        *excess = up / nic;
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
