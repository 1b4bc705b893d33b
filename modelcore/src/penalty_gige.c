/* Gigabit Ethernet penalty model, paper 001 §V-A (Vienne et al., Cluster 2008).
 *
 * Reading implemented (the text leaves room for more than one):
 *  - c_i belongs to C_o^m when Δi(i) equals max{Δi(j) : c_j ∈ C_o}, C_o being
 *    every communication with c_i's source INCLUDING c_i itself (Definition 1
 *    quantifies over C_o, which contains c_i). Likewise c_i ∈ C_i^m when Δo(i)
 *    equals the max of Δo over C_i (communications into c_i's destination).
 *  - card(C_o^m) is taken at c_i's source node and card(C_i^m) at its
 *    destination node; with multiplicities both count communications (sum of
 *    mult of the arcs in the set), as Δo and Δi do.
 *  - The last branch of p_i prints card(C_o^m). p_o's twin divides by
 *    card(C_o^m) and every other part of p_i is stated over C_i, so we read it
 *    as a misprint for card(C_i^m). CT_GIGE_LITERAL_PI selects the printed
 *    card(C_o^m) (of c_i's source node). On Fig. 4 both readings agree.
 * Cost: three passes over the arcs and O(nodes) memory, so a 4,096-node
 * all-to-all (16.8 M arcs) stays well under a second.
 *
 * The second half of the file keeps the same quantities incrementally for
 * event-driven engines (gige_incremental.h: the simulator and the
 * progressive evaluator), so that a change re-evaluates only the
 * communications whose inputs moved.
 */
#include "contention/penalty.h"

#include "gige_incremental.h"
#include "model.h"
#include "grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct node_info {
    int64_t dout, din;      /* Δo(v), Δi(v) */
    int64_t max_in_of_out;  /* max Δi over the destinations of v's outgoing arcs */
    int64_t card_om;        /* card(C_o^m) at source v */
    int64_t max_out_of_in;  /* max Δo over the sources of v's incoming arcs */
    int64_t card_im;        /* card(C_i^m) at destination v */
} node_info;

/* The GigE penalty of one communication c_i = (a -> b) from its inputs:
 * dout = Δo(a), din = Δi(b), in_max: c_i ∈ C_o^m (Δi(b) is the max of Δi
 * over a's communications), card_om = card(C_o^m) at a, out_max: c_i ∈ C_i^m,
 * card_im = card(C_i^m) at b. Shared by the batch and incremental evaluators. */
static inline double gige_formula(double share, double skew_in, double skew_out, int literal,
                                  int64_t dout, int64_t din, int in_max, int64_t card_om,
                                  int out_max, int64_t card_im)
{
    double po = 1.0, pi = 1.0;
    if (dout > 1) {
        double k = (double)dout, card = (double)card_om; /* share = β, skew_out = γ_o */
        if (in_max)
            po = k * share * (1.0 + skew_out * (k - card)); /* 001 §V-A p_o, c_i ∈ C_o^m */
        else
            po = k * share * (1.0 - skew_out / card);         /* 001 §V-A p_o, otherwise */
    }
    if (din > 1) {
        double k = (double)din, card = (double)card_im; /* skew_in = γ_i */
        if (out_max)
            pi = k * share * (1.0 + skew_in * (k - card)); /* 001 §V-A p_i, c_i ∈ C_i^m */
        else
            pi = k * share * (1.0 - skew_in / (literal ? (double)card_om : card));
        /* ^ 001 §V-A p_i, otherwise (printed card(C_o^m): see the header comment) */
    }
    return po > pi ? po : pi; /* 001 §V-A: p = max(p_o, p_i) */
}

/* The parameter checks, named by the YAML keys (β, γ_i, γ_o of 001 §V-A). */
static int gige_check_params(double share, double skew_in, double skew_out, unsigned flags,
                             ct_err *err)
{
    if (!(isfinite(share) && share > 0))
        return ct_err_set(err, "GigE beta = %g (accepted: finite, > 0; paper 001: 0.75)", share);
    if (!(isfinite(skew_in) && skew_in >= 0 && skew_in < 1))
        return ct_err_set(err, "GigE gamma_i = %g (accepted: 0 <= gamma_i < 1; paper 001: 0.036)",
                          skew_in);
    if (!(isfinite(skew_out) && skew_out >= 0 && skew_out < 1))
        return ct_err_set(err, "GigE gamma_o = %g (accepted: 0 <= gamma_o < 1; paper 001: 0.115)",
                          skew_out);
    if (flags & ~CT_GIGE_LITERAL_PI)
        return ct_err_set(err, "GigE flags 0x%x (accepted: 0 or CT_GIGE_LITERAL_PI)", flags);
    return 0;
}

int ct_gige_penalties_ex(double share, double skew_in, double skew_out, unsigned flags,
                         const ct_graph *g, const unsigned char *active, double *penalty,
                         ct_err *err)
{
    if (gige_check_params(share, skew_in, skew_out, flags, err))
        return -1;
    if (g->nnodes < 1)
        return ct_err_set(err, "graph with %d nodes (accepted: >= 1)", (int)g->nnodes);

    node_info *nd = calloc((size_t)g->nnodes, sizeof *nd);
    if (!nd)
        return ct_err_set(err, "out of memory for %d GigE node records", (int)g->nnodes);
    const ct_comm *c = g->comm;
    const size_t n = g->ncomm;

    for (size_t i = 0; i < n; i++) {
        if (active && !active[i])
            continue;
        nd[c[i].src].dout += c[i].mult;
        nd[c[i].dst].din += c[i].mult;
    }
    /* Running max with the communications that reach it: card(C_o^m) and
     * card(C_i^m) in the same pass. */
    for (size_t i = 0; i < n; i++) {
        if (active && !active[i])
            continue;
        node_info *s = &nd[c[i].src], *d = &nd[c[i].dst];
        if (d->din > s->max_in_of_out)
            s->max_in_of_out = d->din, s->card_om = c[i].mult;
        else if (d->din == s->max_in_of_out)
            s->card_om += c[i].mult;
        if (s->dout > d->max_out_of_in)
            d->max_out_of_in = s->dout, d->card_im = c[i].mult;
        else if (s->dout == d->max_out_of_in)
            d->card_im += c[i].mult;
    }
    const int literal = (flags & CT_GIGE_LITERAL_PI) != 0;
    for (size_t i = 0; i < n; i++) {
        if (active && !active[i]) {
            penalty[i] = 0.0;
            continue;
        }
        const node_info *s = &nd[c[i].src], *d = &nd[c[i].dst];
        penalty[i] = gige_formula(share, skew_in, skew_out, literal, s->dout, d->din,
                                  d->din == s->max_in_of_out, s->card_om,
                                  s->dout == d->max_out_of_in, d->card_im);
    }
    free(nd);
    return 0;
}

int ct_gige_penalties(double share, double skew_in, double skew_out, const ct_graph *g,
                      double *penalty, ct_err *err)
{
    return ct_gige_penalties_ex(share, skew_in, skew_out, 0, g, NULL, penalty, err);
}

/* ---- the model's entry in the registry (model.h) */

static int gige_check(const ct_penalty_model *m, ct_err *err)
{
    return gige_check_params(m->real[CT_GIGE_SHARE], m->real[CT_GIGE_SKEW_IN],
                             m->real[CT_GIGE_SKEW_OUT], (unsigned)m->integer[CT_GIGE_FLAGS], err);
}

static int gige_penalties(const ct_penalty_model *m, const ct_graph *g,
                          const unsigned char *active, double *penalty, ct_err *err)
{
    return ct_gige_penalties_ex(m->real[CT_GIGE_SHARE], m->real[CT_GIGE_SKEW_IN],
                                m->real[CT_GIGE_SKEW_OUT], (unsigned)m->integer[CT_GIGE_FLAGS], g,
                                active, penalty, err);
}

static int gige_inc_init(gnet *net, const ct_penalty_model *m)
{
    net->gige = 1;
    net->share = m->real[CT_GIGE_SHARE];
    net->skew_in = m->real[CT_GIGE_SKEW_IN];
    net->skew_out = m->real[CT_GIGE_SKEW_OUT];
    net->flags = (unsigned)m->integer[CT_GIGE_FLAGS];
    return 0;
}

/* On a switch link (our extension, issue 14): 001 §V-A's p = k·β of a NIC
 * shared by k, a link of capacity C (in NICs) carrying k communications
 * acting as k/C NICs' worth of load: p_l = β·k/C. The γ corrections need
 * the C^m sets, which are defined on nodes, and are not applied on switch
 * links. The composition (penalty_links.c) takes max(p_NIC, p_l). */
static double gige_link(const ct_penalty_model *m, double load, double cap)
{
    return m->real[CT_GIGE_SHARE] * load / cap;
}

/* 001 §V-A: p = Δ·β·(1 ± γ ...); γ < 1 keeps the "otherwise" branch positive.
 * The YAML keys keep the paper's symbols; the C slots say what they do. */
static const ct_model_key gige_keys[] = {
    {.key = "beta", .unit = "1", .meaning = "β of 001 §V-A: k-way NIC sharing costs k·β each",
     .type = CT_PARAM_REAL, .slot = CT_GIGE_SHARE, .required = 1, .lo = 0, .lo_open = 1,
     .hi = INFINITY},
    {.key = "gamma_i", .unit = "1", .meaning = "γ_i of 001 §V-A: skew among incoming ones",
     .type = CT_PARAM_REAL, .slot = CT_GIGE_SKEW_IN, .required = 1, .lo = 0, .hi = 1,
     .hi_open = 1},
    {.key = "gamma_o", .unit = "1", .meaning = "γ_o of 001 §V-A: skew among outgoing ones",
     .type = CT_PARAM_REAL, .slot = CT_GIGE_SKEW_OUT, .required = 1, .lo = 0, .hi = 1,
     .hi_open = 1},
};

const model_ops model_gige = {
    .info = {.name = "gige",
             .label = "GigE",
             .cite = "001 §V-A",
             .summary = "Gigabit Ethernet: p = max(p_o, p_i) from NIC degrees",
             .keys = gige_keys,
             .nkeys = sizeof gige_keys / sizeof gige_keys[0],
             .penalty_ge1 = 0, /* k·β < 1 is possible (β = 0.75, k = 1 in a group) */
             .incremental = 1},
    .check = gige_check,
    .penalties = gige_penalties,
    .inc_init = gige_inc_init,
    .inc_commit = gnet_commit_gige,
    .link_penalty = gige_link,
};

/* ================================================ incremental state */

int gnet_grow(void **p, size_t *cap, size_t need, size_t elem, mem_acct *acct)
{
    size_t old = *cap;
    if (grow_array(p, cap, need, elem, 64) < 0)
        return -1;
    if (acct && *cap > old) {
        acct->now += (*cap - old) * elem;
        if (acct->now > acct->peak)
            acct->peak = acct->now;
    }
    return 0;
}

void gnet_free(gnet *g)
{
    void *arrs[] = {g->nd,      g->l,       g->added, g->removed, g->nodes_o,
                    g->nodes_i, g->touched, g->tpen,  g->work};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
        free(arrs[i]);
    memset(g, 0, sizeof *g);
}

int gnet_init(gnet *g, int32_t nnodes, mem_acct *acct)
{
    memset(g, 0, sizeof *g);
    if (nnodes < 1)
        return -1;
    g->nnodes = nnodes;
    g->acct = acct;
    g->nd = aligned_alloc(_Alignof(gnode), (size_t)nnodes * sizeof *g->nd);
    if (!g->nd)
        return -1;
    memset(g->nd, 0, (size_t)nnodes * sizeof *g->nd);
    for (int32_t v = 0; v < nnodes; v++)
        g->nd[v].head_out = g->nd[v].head_in = -1;
    return 0;
}

int gnet_reserve(gnet *g, size_t n)
{
    size_t old = g->lcap;
    if (gnet_grow((void **)&g->l, &g->lcap, n, sizeof(glink), g->acct))
        return -1;
    if (g->lcap > old)
        memset(g->l + old, 0, (g->lcap - old) * sizeof(glink));
    return 0;
}

void gnet_next_epoch(gnet *g)
{
    if (++g->epoch == 0) { /* wrapped: old stamps could collide */
        for (int32_t v = 0; v < g->nnodes; v++)
            g->nd[v].st_out = g->nd[v].st_in = g->nd[v].st_bfs = 0;
        for (size_t i = 0; i < g->lcap; i++)
            g->l[i].stamp = 0;
        g->epoch = 1;
    }
}

int gnet_mark_grow(gnet *g)
{
    return gnet_grow((void **)&g->touched, &g->touched_cap, g->ntouched + 1, sizeof(int32_t),
                        g->acct);
}

static inline int push_i32(int32_t **arr, size_t *len, size_t *cap, int32_t v, mem_acct *acct)
{
    if (*len == *cap && gnet_grow((void **)arr, cap, *len + 1, sizeof(int32_t), acct))
        return -1;
    (*arr)[(*len)++] = v;
    return 0;
}

/* First sight of node v's outgoing side in this commit: remember its max and
 * count so that a change can be told from a no-op. */
static inline int note_o(gnet *g, int32_t v)
{
    if (g->nd[v].st_out == g->epoch)
        return 0;
    g->nd[v].st_out = g->epoch;
    g->nd[v].mo0 = g->nd[v].mo;
    g->nd[v].co0 = g->nd[v].co;
    g->nd[v].rescan_o = 0;
    return push_i32(&g->nodes_o, &g->no, &g->no_cap, v, g->acct);
}

static inline int note_i(gnet *g, int32_t v)
{
    if (g->nd[v].st_in == g->epoch)
        return 0;
    g->nd[v].st_in = g->epoch;
    g->nd[v].mi0 = g->nd[v].mi;
    g->nd[v].ci0 = g->nd[v].ci;
    g->nd[v].rescan_i = 0;
    return push_i32(&g->nodes_i, &g->ni, &g->ni_cap, v, g->acct);
}

/* (max, weight at the max) of a weighted multiset, kept under insertions and
 * removals; a removal that empties the max group asks for a rescan. */
static inline void mx_add(int64_t *mx, int64_t *cnt, uint8_t *rescan, int64_t v, int64_t w)
{
    if (*rescan)
        return;
    if (v > *mx)
        *mx = v, *cnt = w;
    else if (v == *mx)
        *cnt += w;
}

static inline void mx_del(int64_t *mx, int64_t *cnt, uint8_t *rescan, int64_t v, int64_t w)
{
    if (*rescan || v != *mx)
        return;
    *cnt -= w;
    if (*cnt <= 0)
        *rescan = 1;
}

int gnet_commit_nodes(gnet *g)
{
    gnet_next_epoch(g);
    g->no = g->ni = 0;
    for (size_t i = 0; i < g->nremoved; i += 3)
        for (int s = 0; s < 2; s++)
            if (note_o(g, (int32_t)g->removed[i + s]))
                return -1;
    for (size_t i = 0; i < g->nadded; i++) {
        glink *x = &g->l[g->added[i]];
        if (!x->linked || x->committed)
            continue;
        x->committed = 1;
        if (note_o(g, x->src) || note_o(g, x->dst))
            return -1;
    }
    for (size_t i = 0; i < g->no; i++) {
        int32_t v = g->nodes_o[i];
        g->nd[v].outc = g->nd[v].out;
        g->nd[v].inc = g->nd[v].in;
    }
    g->nadded = g->nremoved = 0;
    return 0;
}

static inline double gnet_penalty(const gnet *g, int32_t k);

int gnet_commit_gige(gnet *g)
{
    gnet_next_epoch(g);
    g->no = g->ni = g->ntouched = 0;
    glink *L = g->l;
    /* nodes whose own degrees may have moved */
    for (size_t i = 0; i < g->nremoved; i += 3)
        if (note_o(g, (int32_t)g->removed[i]) || note_i(g, (int32_t)g->removed[i + 1]))
            return -1;
    for (size_t i = 0; i < g->nadded; i++) {
        const glink *x = &L[g->added[i]];
        if (x->linked && !x->committed && (note_o(g, x->src) || note_i(g, x->dst)))
            return -1;
    }
    const size_t no_deg = g->no, ni_deg = g->ni;
    /* a committed link a -> b stands in a's set with value Δi(b) and in b's
     * with Δo(a): move it where those degrees changed */
    for (size_t i = 0; i < ni_deg; i++) {
        int32_t b = g->nodes_i[i];
        if (g->nd[b].in == g->nd[b].inc)
            continue;
        for (int32_t x = g->nd[b].head_in; x >= 0; x = L[x].next_in) {
            if (!L[x].committed)
                continue;
            int32_t a = L[x].src;
            if (note_o(g, a))
                return -1;
            mx_del(&g->nd[a].mo, &g->nd[a].co, &g->nd[a].rescan_o, g->nd[b].inc, L[x].mult);
            mx_add(&g->nd[a].mo, &g->nd[a].co, &g->nd[a].rescan_o, g->nd[b].in, L[x].mult);
        }
    }
    for (size_t i = 0; i < no_deg; i++) {
        int32_t a = g->nodes_o[i];
        if (g->nd[a].out == g->nd[a].outc)
            continue;
        for (int32_t x = g->nd[a].head_out; x >= 0; x = L[x].next_out) {
            if (!L[x].committed)
                continue;
            int32_t b = L[x].dst;
            if (note_i(g, b))
                return -1;
            mx_del(&g->nd[b].mi, &g->nd[b].ci, &g->nd[b].rescan_i, g->nd[a].outc, L[x].mult);
            mx_add(&g->nd[b].mi, &g->nd[b].ci, &g->nd[b].rescan_i, g->nd[a].out, L[x].mult);
        }
    }
    for (size_t i = 0; i < g->nremoved; i += 3) {
        int32_t a = (int32_t)g->removed[i], b = (int32_t)g->removed[i + 1];
        int64_t w = g->removed[i + 2];
        mx_del(&g->nd[a].mo, &g->nd[a].co, &g->nd[a].rescan_o, g->nd[b].inc, w);
        mx_del(&g->nd[b].mi, &g->nd[b].ci, &g->nd[b].rescan_i, g->nd[a].outc, w);
    }
    for (size_t i = 0; i < g->nadded; i++) {
        glink *x = &L[g->added[i]];
        if (!x->linked || x->committed)
            continue;
        x->committed = 1;
        if (gnet_mark(g, g->added[i])) /* a new link has no penalty yet */
            return -1;
        gnode *A = &g->nd[x->src], *B = &g->nd[x->dst];
        mx_add(&A->mo, &A->co, &A->rescan_o, B->in, x->mult);
        mx_add(&B->mi, &B->ci, &B->rescan_i, A->out, x->mult);
    }
    g->nadded = g->nremoved = 0;
    /* rescan the max groups that emptied (degrees are final now); a link's
     * penalty reads Δo, mo, co at its source and Δi, mi, ci at its
     * destination: re-evaluate the lists of the nodes where one moved */
    for (size_t i = 0; i < g->no; i++) {
        int32_t a = g->nodes_o[i];
        gnode *A = &g->nd[a];
        if (A->rescan_o) {
            int64_t mx = 0, cnt = 0;
            for (int32_t x = A->head_out; x >= 0; x = L[x].next_out) {
                int64_t v = g->nd[L[x].dst].in;
                if (v > mx)
                    mx = v, cnt = L[x].mult;
                else if (v == mx)
                    cnt += L[x].mult;
            }
            A->mo = mx, A->co = cnt;
        }
        if (A->out != A->outc || A->mo != A->mo0 || A->co != A->co0)
            for (int32_t x = A->head_out; x >= 0; x = L[x].next_out)
                if (gnet_mark(g, x))
                    return -1;
    }
    for (size_t i = 0; i < g->ni; i++) {
        int32_t b = g->nodes_i[i];
        gnode *B = &g->nd[b];
        if (B->rescan_i) {
            int64_t mx = 0, cnt = 0;
            for (int32_t x = B->head_in; x >= 0; x = L[x].next_in) {
                int64_t v = g->nd[L[x].src].out;
                if (v > mx)
                    mx = v, cnt = L[x].mult;
                else if (v == mx)
                    cnt += L[x].mult;
            }
            B->mi = mx, B->ci = cnt;
        }
        if (B->in != B->inc || B->mi != B->mi0 || B->ci != B->ci0)
            for (int32_t x = B->head_in; x >= 0; x = L[x].next_in)
                if (gnet_mark(g, x))
                    return -1;
    }
    for (size_t i = 0; i < no_deg; i++)
        g->nd[g->nodes_o[i]].outc = g->nd[g->nodes_o[i]].out;
    for (size_t i = 0; i < ni_deg; i++)
        g->nd[g->nodes_i[i]].inc = g->nd[g->nodes_i[i]].in;
    if (g->ntouched > g->tpen_cap &&
        gnet_grow((void **)&g->tpen, &g->tpen_cap, g->ntouched, sizeof(double), g->acct))
        return -1;
    for (size_t i = 0; i < g->ntouched; i++)
        g->tpen[i] = gnet_penalty(g, g->touched[i]);
    return 0;
}

static inline double gnet_penalty(const gnet *g, int32_t k)
{
    const glink *x = &g->l[k];
    int32_t a = x->src, b = x->dst;
    return gige_formula(g->share, g->skew_in, g->skew_out, (g->flags & CT_GIGE_LITERAL_PI) != 0,
                        g->nd[a].out, g->nd[b].in, g->nd[b].in == g->nd[a].mo, g->nd[a].co,
                        g->nd[a].out == g->nd[b].mi, g->nd[b].ci);
}
