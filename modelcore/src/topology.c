/* The switch tree of a fabric (topology.h): checks, capacities, and the
 * job-level view the link model routes on. */
#include "contention/topology.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ct_topology_free(ct_topology *t)
{
    if (!t)
        return;
    free(t->sw);
    free(t->node);
    free(t->node_switch);
    memset(t, 0, sizeof *t);
}

int ct_topology_copy(ct_topology *dst, const ct_topology *src, ct_err *err)
{
    memset(dst, 0, sizeof *dst);
    memcpy(dst->source, src->source, sizeof dst->source);
    size_t ns = src->nswitches > 0 ? (size_t)src->nswitches : 1;
    size_t nn = src->nnodes > 0 ? (size_t)src->nnodes : 1;
    dst->sw = malloc(ns * sizeof *dst->sw);
    dst->node = malloc(nn * sizeof *dst->node);
    dst->node_switch = malloc(nn * sizeof *dst->node_switch);
    if (!dst->sw || !dst->node || !dst->node_switch) {
        ct_topology_free(dst);
        return ct_err_set(err, "out of memory copying a topology of %d switches",
                          (int)src->nswitches);
    }
    dst->nswitches = src->nswitches;
    dst->nnodes = src->nnodes;
    if (src->nswitches > 0)
        memcpy(dst->sw, src->sw, (size_t)src->nswitches * sizeof *dst->sw);
    if (src->nnodes > 0) {
        memcpy(dst->node, src->node, (size_t)src->nnodes * sizeof *dst->node);
        memcpy(dst->node_switch, src->node_switch, (size_t)src->nnodes * sizeof(int32_t));
    }
    return 0;
}

/* ---- name index: indices sorted by name, binary search ---------------- */

typedef struct name_index {
    const char (*names)[CT_TOPO_NAME_MAX];
    size_t stride; /* bytes between consecutive names */
    int32_t n;
    int32_t *idx;
} name_index;

static const char *ni_name(const name_index *x, int32_t i)
{
    return (const char *)x->names + (size_t)i * x->stride;
}

static const name_index *sort_ctx;
static int cmp_idx(const void *a, const void *b)
{
    return strcmp(ni_name(sort_ctx, *(const int32_t *)a), ni_name(sort_ctx, *(const int32_t *)b));
}

static int ni_build(name_index *x, const void *names, size_t stride, int32_t n)
{
    x->names = names;
    x->stride = stride;
    x->n = n;
    x->idx = malloc((n > 0 ? (size_t)n : 1) * sizeof *x->idx);
    if (!x->idx)
        return -1;
    for (int32_t i = 0; i < n; i++)
        x->idx[i] = i;
    sort_ctx = x; /* qsort has no context argument in C11; the library is single-threaded here */
    qsort(x->idx, (size_t)n, sizeof *x->idx, cmp_idx);
    sort_ctx = NULL;
    return 0;
}

static int32_t ni_find(const name_index *x, const char *name)
{
    int32_t lo = 0, hi = x->n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ni_name(x, x->idx[mid]), name);
        if (c == 0)
            return x->idx[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* First duplicate name in the index, -1 if none (sets *other to its twin). */
static int32_t ni_duplicate(const name_index *x, int32_t *other)
{
    for (int32_t k = 1; k < x->n; k++)
        if (strcmp(ni_name(x, x->idx[k - 1]), ni_name(x, x->idx[k])) == 0) {
            *other = x->idx[k - 1] < x->idx[k] ? x->idx[k - 1] : x->idx[k];
            return x->idx[k - 1] < x->idx[k] ? x->idx[k] : x->idx[k - 1];
        }
    return -1;
}

int32_t ct_topology_node(const ct_topology *t, const char *name)
{
    for (int32_t i = 0; i < t->nnodes; i++)
        if (strcmp(t->node[i], name) == 0)
            return i;
    return -1;
}

int32_t ct_topology_switch(const ct_topology *t, const char *name)
{
    for (int32_t i = 0; i < t->nswitches; i++)
        if (strcmp(t->sw[i].name, name) == 0)
            return i;
    return -1;
}

int ct_topology_resolve(ct_topology *t, double nic_bw, int32_t *at_switch, ct_err *err)
{
    int32_t at_dummy;
    int32_t *at = at_switch ? at_switch : &at_dummy;
    *at = -1;
    if (t->nswitches < 1 || t->nswitches > CT_TOPO_MAX_SWITCHES)
        return ct_err_set(err, "topology with %d switches (accepted: 1 to %d)", (int)t->nswitches,
                          CT_TOPO_MAX_SWITCHES);
    if (t->nnodes < 1 || t->nnodes > CT_TOPO_MAX_NODES)
        return ct_err_set(err, "topology with %d nodes (accepted: 1 to %d)", (int)t->nnodes,
                          CT_TOPO_MAX_NODES);
    if (!(isfinite(nic_bw) && nic_bw > 0))
        return ct_err_set(err, "topology: NIC bandwidth %g bytes/s (accepted: > 0)", nic_bw);
    const int32_t ns = t->nswitches;
    int rc = -1;
    int32_t *order = malloc((size_t)ns * sizeof *order);
    double *below = calloc((size_t)ns, sizeof *below);
    name_index sx = {0}, nx = {0};
    if (!order || !below || ni_build(&sx, t->sw, sizeof *t->sw, ns) < 0 ||
        ni_build(&nx, t->node, sizeof *t->node, t->nnodes) < 0) {
        ct_err_set(err, "out of memory checking a topology of %d switches", (int)ns);
        goto out;
    }
    int32_t twin, d = ni_duplicate(&sx, &twin);
    if (d >= 0) {
        *at = d;
        ct_err_set(err, "switch '%s' is defined twice (accepted: unique switch names)",
                   t->sw[d].name);
        goto out;
    }
    d = ni_duplicate(&nx, &twin);
    if (d >= 0) {
        *at = t->node_switch[d];
        ct_err_set(err,
                   "node '%s' hangs under switch '%s' and under '%s' (accepted: each node "
                   "under one switch)",
                   t->node[d], t->sw[t->node_switch[twin]].name, t->sw[t->node_switch[d]].name);
        goto out;
    }
    int32_t root = -1;
    for (int32_t s = 0; s < ns; s++) {
        ct_topo_switch *w = &t->sw[s];
        if (w->parent < -1 || w->parent >= ns || w->parent == s) {
            *at = s;
            ct_err_set(err, "switch '%s': parent index %d (accepted: another switch)", w->name,
                       (int)w->parent);
            goto out;
        }
        if (w->parent < 0) {
            if (root >= 0) {
                *at = s;
                ct_err_set(err,
                           "switches '%s' and '%s' both have no parent (accepted: one tree "
                           "with a single top switch; add a switch whose switches list both)",
                           t->sw[root].name, w->name);
                goto out;
            }
            root = s;
        }
    }
    if (root < 0) {
        ct_err_set(err, "the switches form a cycle: no top switch (accepted: a tree)");
        goto out;
    }
    /* depths; a walk longer than ns means a cycle */
    for (int32_t s = 0; s < ns; s++) {
        int32_t depth = 0, x = s;
        while (t->sw[x].parent >= 0 && depth <= ns) {
            x = t->sw[x].parent;
            depth++;
        }
        if (depth > ns || x != root) {
            *at = s;
            ct_err_set(err, "switch '%s' is on a cycle of switches (accepted: a tree)",
                       t->sw[s].name);
            goto out;
        }
        t->sw[s].depth = depth;
    }
    for (int32_t s = 0; s < ns; s++) {
        ct_topo_switch *w = &t->sw[s];
        *at = s;
        if (w->parent < 0) {
            if (w->uplink_bw != 0 || w->oversub != 0 || w->duplex != 0) {
                ct_err_set(err,
                           "switch '%s' is the top of the tree but has an uplink (accepted: "
                           "no uplink_MBps, uplink_oversubscription or uplink_duplex on the "
                           "top switch)",
                           w->name);
                goto out;
            }
            continue;
        }
        int has_bw = w->uplink_bw != 0, has_ratio = w->oversub != 0;
        if (has_bw == has_ratio) {
            ct_err_set(err,
                       "switch '%s' gives %s (accepted: exactly one of uplink_MBps or "
                       "uplink_oversubscription under a switch that has a parent)",
                       w->name, has_bw ? "both uplink_MBps and uplink_oversubscription"
                                       : "no uplink capacity");
            goto out;
        }
        if (has_bw && !(isfinite(w->uplink_bw) && w->uplink_bw > 0)) {
            ct_err_set(err, "switch '%s': uplink %g bytes/s (accepted: > 0)", w->name,
                       w->uplink_bw);
            goto out;
        }
        if (has_ratio && !(isfinite(w->oversub) && w->oversub > 0)) {
            ct_err_set(err, "switch '%s': uplink_oversubscription %g (accepted: > 0)", w->name,
                       w->oversub);
            goto out;
        }
        if (!(w->duplex >= 0 && w->duplex <= 1)) {
            ct_err_set(err, "switch '%s': uplink_duplex %g (accepted: 0 to 1)", w->name,
                       w->duplex);
            goto out;
        }
    }
    *at = -1;
    for (int32_t v = 0; v < t->nnodes; v++) {
        if (t->node_switch[v] < 0 || t->node_switch[v] >= ns) {
            ct_err_set(err, "node '%s': switch index %d (accepted: 0..%d)", t->node[v],
                       (int)t->node_switch[v], (int)ns - 1);
            goto out;
        }
        below[t->node_switch[v]] += nic_bw;
    }
    /* capacities bottom-up: deepest switches first */
    for (int32_t s = 0; s < ns; s++)
        order[s] = s;
    for (int32_t i = 1; i < ns; i++) { /* insertion sort by depth, descending */
        int32_t x = order[i], j = i;
        while (j > 0 && t->sw[order[j - 1]].depth < t->sw[x].depth) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    for (int32_t i = 0; i < ns; i++) {
        ct_topo_switch *w = &t->sw[order[i]];
        if (w->parent < 0) {
            w->up_cap = 0;
            continue;
        }
        if (w->uplink_bw > 0)
            w->up_cap = w->uplink_bw;
        else {
            if (!(below[order[i]] > 0)) {
                *at = order[i];
                ct_err_set(err,
                           "switch '%s' has uplink_oversubscription but no node below it "
                           "(accepted: uplink_MBps for a switch with nothing below)",
                           w->name);
                goto out;
            }
            w->up_cap = below[order[i]] / w->oversub; /* ratio = capacity below / uplink */
        }
        below[w->parent] += w->up_cap;
    }
    rc = 0;
out:
    free(order);
    free(below);
    free(sx.idx);
    free(nx.idx);
    return rc;
}

int ct_topology_equal(const ct_topology *a, const ct_topology *b)
{
    if (a->nswitches != b->nswitches || a->nnodes != b->nnodes || strcmp(a->source, b->source))
        return 0;
    for (int32_t s = 0; s < a->nswitches; s++) {
        int32_t o = ct_topology_switch(b, a->sw[s].name);
        if (o < 0 || a->sw[s].uplink_bw != b->sw[o].uplink_bw ||
            a->sw[s].oversub != b->sw[o].oversub || a->sw[s].duplex != b->sw[o].duplex)
            return 0;
        int32_t pa = a->sw[s].parent, pb = b->sw[o].parent;
        if ((pa < 0) != (pb < 0) || (pa >= 0 && strcmp(a->sw[pa].name, b->sw[pb].name)))
            return 0;
    }
    for (int32_t v = 0; v < a->nnodes; v++) {
        int32_t o = ct_topology_node(b, a->node[v]);
        if (o < 0 || strcmp(a->sw[a->node_switch[v]].name, b->sw[b->node_switch[o]].name))
            return 0;
    }
    return 1;
}

/* ---- the job's view ---------------------------------------------------- */

void ct_tree_map_free(ct_tree_map *m)
{
    if (!m)
        return;
    free(m->parent);
    free(m->depth);
    free(m->up_cap);
    free(m->up_duplex);
    free(m->name);
    free(m->leaf);
    memset(m, 0, sizeof *m);
}

static int map_alloc(ct_tree_map *m, int32_t ns, int32_t n)
{
    memset(m, 0, sizeof *m);
    m->parent = malloc((size_t)ns * sizeof *m->parent);
    m->depth = malloc((size_t)ns * sizeof *m->depth);
    m->up_cap = malloc((size_t)ns * sizeof *m->up_cap);
    m->up_duplex = calloc((size_t)ns, sizeof *m->up_duplex);
    m->name = malloc((size_t)ns * sizeof *m->name);
    m->leaf = malloc((size_t)(n > 0 ? n : 1) * sizeof *m->leaf);
    if (!m->parent || !m->depth || !m->up_cap || !m->up_duplex || !m->name || !m->leaf) {
        ct_tree_map_free(m);
        return -1;
    }
    m->nswitches = ns;
    m->nnodes = n;
    return 0;
}

int ct_tree_map_flat(int32_t n, ct_tree_map *out, ct_err *err)
{
    if (n < 1)
        return ct_err_set(err, "tree map over %d nodes (accepted: >= 1)", (int)n);
    if (map_alloc(out, 1, n) < 0)
        return ct_err_set(err, "out of memory for a tree map of %d nodes", (int)n);
    out->parent[0] = -1;
    out->depth[0] = 0;
    out->up_cap[0] = 0;
    memcpy(out->name[0], "switch", sizeof "switch");
    for (int32_t i = 0; i < n; i++)
        out->leaf[i] = 0;
    return 0;
}

int ct_tree_map_build(const ct_topology *t, double nic_bw, const char *const *names, int32_t n,
                      ct_tree_map *out, ct_err *err)
{
    memset(out, 0, sizeof *out);
    if (!t || n < 1 || !names)
        return ct_err_set(err, "tree map: no topology or no nodes (accepted: >= 1 node)");
    if (!(isfinite(nic_bw) && nic_bw > 0))
        return ct_err_set(err, "tree map: NIC bandwidth %g bytes/s (accepted: > 0)", nic_bw);
    name_index nx = {0};
    if (map_alloc(out, t->nswitches, n) < 0 ||
        ni_build(&nx, t->node, sizeof *t->node, t->nnodes) < 0) {
        ct_tree_map_free(out);
        free(nx.idx);
        return ct_err_set(err, "out of memory for a tree map of %d nodes", (int)n);
    }
    for (int32_t s = 0; s < t->nswitches; s++) {
        out->parent[s] = t->sw[s].parent;
        out->depth[s] = t->sw[s].depth;
        out->up_cap[s] = t->sw[s].up_cap / nic_bw;
        out->up_duplex[s] = t->sw[s].parent >= 0 ? t->sw[s].duplex : 0;
        memcpy(out->name[s], t->sw[s].name, sizeof out->name[s]);
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t v = names[i] ? ni_find(&nx, names[i]) : -1;
        if (v < 0) {
            ct_err_set(err,
                       "node '%.64s' is not in the fabric's topology (accepted: a node listed "
                       "under one of its %d switches; re-run contention-admin topology import)",
                       names[i] ? names[i] : "(null)", (int)t->nswitches);
            free(nx.idx);
            ct_tree_map_free(out);
            return -1;
        }
        out->leaf[i] = t->node_switch[v];
    }
    free(nx.idx);
    return 0;
}

int32_t ct_tree_map_leaves(const ct_tree_map *m)
{
    unsigned char *seen = calloc((size_t)m->nswitches, 1);
    if (!seen)
        return -1;
    int32_t k = 0;
    for (int32_t i = 0; i < m->nnodes; i++)
        if (!seen[m->leaf[i]]) {
            seen[m->leaf[i]] = 1;
            k++;
        }
    free(seen);
    return k;
}

int ct_tree_map_switch_order(const ct_tree_map *m, int32_t *perm, ct_err *err)
{
    const int32_t ns = m->nswitches, n = m->nnodes;
    int32_t *rank = malloc((size_t)ns * sizeof *rank), *stack = malloc((size_t)ns * sizeof *stack);
    int32_t *head = malloc((size_t)ns * sizeof *head), *next = malloc((size_t)ns * sizeof *next);
    int32_t *cnt = calloc((size_t)ns + 1, sizeof *cnt);
    int rc = -1;
    if (!rank || !stack || !head || !next || !cnt) {
        ct_err_set(err, "out of memory ordering %d nodes by switch", (int)n);
        goto out;
    }
    /* children lists with the largest index first, so that pushing them in
     * list order leaves the smallest on top of the stack (visited first) */
    for (int32_t s = 0; s < ns; s++)
        head[s] = -1, rank[s] = -1;
    int32_t root = -1;
    for (int32_t s = 0; s < ns; s++) {
        if (m->parent[s] < 0)
            root = s;
        else {
            next[s] = head[m->parent[s]];
            head[m->parent[s]] = s;
        }
    }
    if (root < 0) {
        ct_err_set(err, "tree map without a top switch");
        goto out;
    }
    int32_t sp = 0, r = 0;
    stack[sp++] = root;
    while (sp > 0) {
        int32_t s = stack[--sp];
        rank[s] = r++;
        for (int32_t c = head[s]; c >= 0; c = next[c])
            stack[sp++] = c;
    }
    for (int32_t s = 0; s < ns; s++)
        if (rank[s] < 0) /* off the tree: cannot happen after resolve; keep it defined */
            rank[s] = r++;
    /* counting sort of the nodes by their leaf's rank: stable */
    for (int32_t i = 0; i < n; i++)
        cnt[rank[m->leaf[i]] + 1]++;
    for (int32_t k = 0; k < ns; k++)
        cnt[k + 1] += cnt[k];
    for (int32_t i = 0; i < n; i++)
        perm[cnt[rank[m->leaf[i]]]++] = i;
    rc = 0;
out:
    free(rank);
    free(stack);
    free(head);
    free(next);
    free(cnt);
    return rc;
}
