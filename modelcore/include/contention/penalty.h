/* Bandwidth-sharing penalty models (paper 001, Vienne et al., Cluster 2008).
 *
 * A penalty p >= 1 multiplies the time a communication would take alone:
 * T = p * T_ref (paper 001 §IV-B, P_i = T_i / T_ref). Models compute one
 * penalty per arc of a ct_graph (all mult communications of an arc share it).
 *
 * Static penalties describe one instant in which every arc of the graph is
 * in flight. Progressive evaluation (progressive.h) re-applies the model each
 * time a communication completes, which is what reproduces paper 001 Fig. 4.
 */
#ifndef CONTENTION_PENALTY_H
#define CONTENTION_PENALTY_H

#include "contention/commgraph.h"
#include "contention/error.h"

typedef enum ct_model_kind {
    CT_MODEL_NONE = 0,    /* no contention: every penalty is 1 */
    CT_MODEL_GIGE,        /* paper 001 §V-A: beta, gamma_i, gamma_o */
    CT_MODEL_STOPGO,      /* paper 001 §V-B: Myrinet Stop & Go */
    CT_MODEL_FAIRSHARE,   /* baseline: max-min fair share of each NIC's in/out bandwidth */
} ct_model_kind;

typedef enum ct_stopgo_method {
    CT_STOPGO_AUTO = 0,   /* exact when small enough, scalable otherwise */
    CT_STOPGO_EXACT,      /* enumerate every maximal set of sending communications */
    CT_STOPGO_SCALABLE,   /* the scalable approximation (see penalty_stopgo.c) */
} ct_stopgo_method;

typedef struct ct_penalty_model {
    ct_model_kind kind;
    /* CT_MODEL_GIGE parameters (paper 001 §V-A; published: 0.75, 0.036, 0.115) */
    double beta;
    double gamma_i;
    double gamma_o;
    /* CT_MODEL_STOPGO options */
    ct_stopgo_method stopgo_method;
    unsigned long stopgo_seed;   /* for a randomised scalable method; 0 = default */
} ct_penalty_model;

/* Name <-> kind ("none", "gige", "stopgo", "fairshare"). */
const char *ct_model_name(ct_model_kind k);
int ct_model_from_name(const char *name, ct_model_kind *k);

/* Static penalty of every arc of g under model m (penalty[i] for g->comm[i]).
 * All arcs are taken to be in flight at once. */
int ct_penalties(const ct_penalty_model *m, const ct_graph *g, double *penalty, ct_err *err);

/* --- Gigabit Ethernet model, paper 001 §V-A (penalty_gige.c) --- */
int ct_gige_penalties(double beta, double gamma_i, double gamma_o, const ct_graph *g,
                      double *penalty, ct_err *err);

/* --- Myrinet Stop & Go model, paper 001 §V-B (penalty_stopgo.c) --- */
int ct_stopgo_penalties(ct_stopgo_method method, unsigned long seed, const ct_graph *g,
                        double *penalty, ct_err *err);

/* --- max-min fair share baseline (penalty_fairshare.c) --- */
int ct_fairshare_penalties(const ct_graph *g, double *penalty, ct_err *err);

#endif
