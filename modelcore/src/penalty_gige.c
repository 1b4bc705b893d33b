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
 */
#include "contention/penalty.h"

#include <math.h>
#include <stdlib.h>

typedef struct node_info {
    int64_t dout, din;      /* Δo(v), Δi(v) */
    int64_t max_in_of_out;  /* max Δi over the destinations of v's outgoing arcs */
    int64_t card_om;        /* card(C_o^m) at source v */
    int64_t max_out_of_in;  /* max Δo over the sources of v's incoming arcs */
    int64_t card_im;        /* card(C_i^m) at destination v */
} node_info;

int ct_gige_penalties_ex(double beta, double gamma_i, double gamma_o, unsigned flags,
                         const ct_graph *g, const unsigned char *active, double *penalty,
                         ct_err *err)
{
    if (!(isfinite(beta) && beta > 0))
        return ct_err_set(err, "GigE beta = %g (accepted: finite, > 0; paper 001: 0.75)", beta);
    if (!(isfinite(gamma_i) && gamma_i >= 0 && gamma_i < 1))
        return ct_err_set(err, "GigE gamma_i = %g (accepted: 0 <= gamma_i < 1; paper 001: 0.036)",
                          gamma_i);
    if (!(isfinite(gamma_o) && gamma_o >= 0 && gamma_o < 1))
        return ct_err_set(err, "GigE gamma_o = %g (accepted: 0 <= gamma_o < 1; paper 001: 0.115)",
                          gamma_o);
    if (flags & ~CT_GIGE_LITERAL_PI)
        return ct_err_set(err, "GigE flags 0x%x (accepted: 0 or CT_GIGE_LITERAL_PI)", flags);
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
        double po = 1.0, pi = 1.0;
        if (s->dout > 1) {
            double k = (double)s->dout, card = (double)s->card_om;
            if (d->din == s->max_in_of_out)
                po = k * beta * (1.0 + gamma_o * (k - card)); /* 001 §V-A p_o, c_i ∈ C_o^m */
            else
                po = k * beta * (1.0 - gamma_o / card);       /* 001 §V-A p_o, otherwise */
        }
        if (d->din > 1) {
            double k = (double)d->din, card = (double)d->card_im;
            if (s->dout == d->max_out_of_in)
                pi = k * beta * (1.0 + gamma_i * (k - card)); /* 001 §V-A p_i, c_i ∈ C_i^m */
            else
                pi = k * beta * (1.0 - gamma_i / (literal ? (double)s->card_om : card));
            /* ^ 001 §V-A p_i, otherwise (printed card(C_o^m): see the header comment) */
        }
        penalty[i] = po > pi ? po : pi; /* 001 §V-A: p = max(p_o, p_i) */
    }
    free(nd);
    return 0;
}

int ct_gige_penalties(double beta, double gamma_i, double gamma_o, const ct_graph *g,
                      double *penalty, ct_err *err)
{
    return ct_gige_penalties_ex(beta, gamma_i, gamma_o, 0, g, NULL, penalty, err);
}
