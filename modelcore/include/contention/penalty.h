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

#include <stddef.h>
#include <stdint.h>

#include "contention/commgraph.h"
#include "contention/error.h"

/* Penalty models, in the order of the registry (contention/models.def):
 * CT_MODEL_NONE, CT_MODEL_GIGE, CT_MODEL_STOPGO, CT_MODEL_FAIRSHARE, ...
 * What each one is, its YAML keys and their units: contention/models.h. */
typedef enum ct_model_kind {
#define CT_MODEL(ID, ops) CT_MODEL_##ID,
#include "contention/models.def"
#undef CT_MODEL
    CT_MODEL_COUNT
} ct_model_kind;

typedef enum ct_stopgo_method {
    CT_STOPGO_AUTO = 0,   /* exact when small enough, scalable otherwise */
    CT_STOPGO_EXACT,      /* enumerate every maximal set of sending communications */
    CT_STOPGO_SCALABLE,   /* the scalable approximation (see penalty_stopgo.c) */
} ct_stopgo_method;

#define CT_MODEL_MAX_REAL 8
#define CT_MODEL_MAX_INT 4

/* A model and its parameters. Each model names its parameter slots (below
 * for the built-in ones) and declares them, with their YAML keys, units and
 * accepted ranges, in its own file (contention/models.h); nothing else in
 * the library knows a model's parameters. Zeroed: CT_MODEL_NONE. */
typedef struct ct_penalty_model {
    ct_model_kind kind;
    double real[CT_MODEL_MAX_REAL];     /* real-valued parameters, by slot */
    int64_t integer[CT_MODEL_MAX_INT];  /* integer and named-choice parameters, by slot */
    /* the job's switch tree (topology.h), graph node i under tree->leaf[i];
     * NULL: one switch, the node-level models of paper 001 as they are.
     * Non-NULL: every call goes through the link model (penalty_links.c),
     * which wraps whichever model kind names. */
    const struct ct_tree_map *tree;
} ct_penalty_model;

/* Slots of CT_MODEL_GIGE (001 §V-A; YAML keys beta, gamma_i, gamma_o).
 * Named for what they do, so that no C name means two things: "beta" is
 * Hockney's s/byte everywhere else, "gamma" the Alltoall contention ratio. */
enum {
    CT_GIGE_SHARE = 0,    /* real: 001's β, dimensionless: k communications sharing a NIC
                           * take k·share times longer (published 0.75) */
    CT_GIGE_SKEW_IN = 1,  /* real: 001's γ_i, dimensionless skew among incoming ones (0.036) */
    CT_GIGE_SKEW_OUT = 2, /* real: 001's γ_o, dimensionless skew among outgoing ones (0.115) */
    CT_GIGE_FLAGS = 0,    /* integer: reading options CT_GIGE_* (not in YAML; 0 = default) */
};
/* Slots of CT_MODEL_STOPGO (001 §V-B; YAML keys method, seed). */
enum {
    CT_STOPGO_METHOD = 0, /* integer: ct_stopgo_method */
    CT_STOPGO_SEED = 1,   /* integer: seed of the randomised scalable method; 0 = default */
};

/* The GigE model with the given parameters (001 §V-A). */
#define CT_GIGE_MODEL(share, skew_in, skew_out)                                                    \
    ((ct_penalty_model){.kind = CT_MODEL_GIGE,                                                     \
                        .real = {[CT_GIGE_SHARE] = (share),                                        \
                                 [CT_GIGE_SKEW_IN] = (skew_in),                                    \
                                 [CT_GIGE_SKEW_OUT] = (skew_out)}})
/* The Stop & Go model with a method and seed (001 §V-B). */
/* Slot of CT_MODEL_DUPLEX (our extension, penalty_duplex.c; YAML key duplex). */
enum {
    CT_DUPLEX_COUPLING = 0, /* real: δ, 0 = full duplex (fair share) .. 1 = half duplex */
    CT_DUPLEX_INCAST = 1,   /* real: ε >= 0, the extra cost per additional peer node of a
                               NIC (incast degree k: penalty x (1 + ε (k - 1))); 0 = none */
    CT_DUPLEX_INCAST_MAX_K = 2, /* real: the largest k ε was fitted on (the Alltoall
                                   signature's k_max, alltoall.h); beyond it the term holds
                                   at 1 + ε (k_max - 1); 0 = no limit */
    CT_DUPLEX_FLOWS = 3,        /* real: φ >= 0, the extra cost per additional remote flow
                                   through an arc's busier NIC direction (f flows: penalty
                                   x (1 + φ (f - 1)), or φ g_a(f) with _FLOWS_EXP); 0 = none */
    CT_DUPLEX_FLOWS_MAX_F = 4,  /* real: the largest f φ was fitted on (the Alltoall
                                   signature's f_max); beyond it the term holds; 0 = no limit */
    CT_DUPLEX_FLOWS_EXP = 5,    /* real: the flows term's shape, the Alltoall signature's
                                   flows_exp (alltoall.h): φ g_a(f), g_a(f) = (f^a - 1)/a;
                                   0 = the line f - 1 (session 21) */
    CT_DUPLEX_LONG = 6,         /* real: λ, the long-exchange term (session 28): a phase
                                   whose largest message m lasts T(m) alone beyond T(m_L)
                                   gets δ + λ (1 - T(m_L) / T(m)), clamped to [0, 1]
                                   (ct_duplex_long_delta); 0 = none */
    CT_DUPLEX_LONG_FROM = 7,    /* real: m_L, bytes: the size the term starts from (the
                                   largest size δ was fitted on); 0 = none */
};
/* δ for a phase whose largest message lasts t_alone alone, t_from the time
 * of a message of the term's m_L (our extension, session 28; penalty_duplex.c):
 * δ + λ (1 - t_from / t_alone) beyond m_L, δ up to it; in [0, 1]. */
double ct_duplex_long_delta(const ct_penalty_model *m, double t_alone, double t_from);
#define CT_DUPLEX_MODEL(delta)                                                                     \
    ((ct_penalty_model){.kind = CT_MODEL_DUPLEX, .real = {[CT_DUPLEX_COUPLING] = (delta)}})

/* Slot of CT_MODEL_TCPSHARE (our extension, penalty_tcpshare.c; YAML key bias). */
enum {
    CT_TCPSHARE_BIAS = 0, /* real: a flow through h standing queues rises at h^-bias in the
                             fair share's filling; 0 = the fair share, 1.5 from Mathis 1997 */
};
#define CT_TCPSHARE_MODEL(bias)                                                                    \
    ((ct_penalty_model){.kind = CT_MODEL_TCPSHARE, .real = {[CT_TCPSHARE_BIAS] = (bias)}})

#define CT_STOPGO_MODEL(method, seed)                                                              \
    ((ct_penalty_model){.kind = CT_MODEL_STOPGO,                                                   \
                        .integer = {[CT_STOPGO_METHOD] = (method), [CT_STOPGO_SEED] = (seed)}})

/* Literal reading of 001 §V-A's p_i: its last branch divides by card(C_o^m)
 * as printed instead of card(C_i^m) (the default; see penalty_gige.c). */
#define CT_GIGE_LITERAL_PI 1u

/* Name <-> kind, from the registry ("none", "gige", "stopgo", "fairshare"). */
const char *ct_model_name(ct_model_kind k);
int ct_model_from_name(const char *name, ct_model_kind *k);

/* Static penalty of every arc of g under model m (penalty[i] for g->comm[i]).
 * All arcs are taken to be in flight at once. */
int ct_penalties(const ct_penalty_model *m, const ct_graph *g, double *penalty, ct_err *err);

/* Same, for the arcs i with active[i] != 0 only (active == NULL: all arcs):
 * the model sees only those communications in flight, the others receive
 * penalty 0. This is what an event-driven engine calls after each change. */
int ct_penalties_active(const ct_penalty_model *m, const ct_graph *g, const unsigned char *active,
                        double *penalty, ct_err *err);

/* --- Gigabit Ethernet model, paper 001 §V-A (penalty_gige.c) --- */
int ct_gige_penalties(double share, double skew_in, double skew_out, const ct_graph *g,
                      double *penalty, ct_err *err);
/* Same with reading options (CT_GIGE_*) and an active mask (NULL: all arcs).
 * O(arcs + nodes) time; accepts share > 0 and 0 <= skew_in, skew_out < 1
 * (messages name them by their YAML keys beta, gamma_i, gamma_o). */
int ct_gige_penalties_ex(double share, double skew_in, double skew_out, unsigned flags,
                         const ct_graph *g, const unsigned char *active, double *penalty,
                         ct_err *err);

/* --- Myrinet Stop & Go model, paper 001 §V-B (penalty_stopgo.c) --- */
int ct_stopgo_penalties(ct_stopgo_method method, unsigned long seed, const ct_graph *g,
                        double *penalty, ct_err *err);

#define CT_STOPGO_ENUM_MAX_STEPS ((size_t)50000000)  /* EXACT refuses past this */
#define CT_STOPGO_ENUM_MAX_ARCS 4096                  /* distinct node pairs per component */

/* Exact counts of paper 001 Fig. 6 by enumeration: *nsets = number of maximal
 * sets of simultaneously sending communications (every copy of a multiple arc
 * counts as one communication), emission[i] = number of those sets that
 * contain one given copy of arc i (the "Sum" row). Refuses graphs past
 * CT_STOPGO_ENUM_MAX_STEPS search nodes. */
int ct_stopgo_exact_counts(const ct_graph *g, double *nsets, double *emission, ct_err *err);

/* --- max-min fair share baseline (penalty_fairshare.c) --- */
int ct_fairshare_penalties(const ct_graph *g, double *penalty, ct_err *err);
/* Same over the active arcs only (NULL: all arcs); inactive arcs get 0. */
int ct_fairshare_penalties_ex(const ct_graph *g, const unsigned char *active, double *penalty,
                              ct_err *err);

/* --- duplex-coupled fair share (penalty_duplex.c, our extension, issue 12) ---
 * Max-min fair share where a node sending at rate x and receiving at rate y
 * at once obeys x + δ·y <= 1 and y + δ·x <= 1 (0 <= δ <= 1). δ = 0 gives
 * ct_fairshare_penalties_ex's penalties. */
int ct_duplex_penalties_ex(double duplex, const ct_graph *g, const unsigned char *active,
                           double *penalty, ct_err *err);
/* Same with the incast term (our extension): each arc's penalty is then
 * multiplied by 1 + incast·(k - 1), k = the larger of the number of distinct
 * nodes its source sends to and the number its destination receives from
 * (active arcs only): the degree γ(k) = γ + γ_incast (k - 1) of alltoall.h
 * prices for the Alltoall, as a factor relative to one peer. incast = 0 gives
 * ct_duplex_penalties_ex's penalties. */
int ct_duplex_penalties_k(double duplex, double incast, const ct_graph *g,
                          const unsigned char *active, double *penalty, ct_err *err);
/* Same with the incast term held beyond the largest incast degree it was
 * fitted on (our extension, as alltoall.h's k_max: no line past its data):
 * k is taken as min(k, k_max) when k_max > 0 (ct_a2a_gamma_at's rule); k_max = 0 gives
 * ct_duplex_penalties_k's penalties. */
int ct_duplex_penalties_kmax(double duplex, double incast, double k_max, const ct_graph *g,
                             const unsigned char *active, double *penalty, ct_err *err);
/* Same with the flows term too (our extension, session 20): each arc's
 * penalty is also multiplied by 1 + flows·g_a(f), f = the larger of the
 * remote communications (sum of mult over active arcs between two nodes)
 * leaving its source and entering its destination, taken as min(f, f_max)
 * when f_max > 0, g_a(f) = ct_a2a_flows_term(f, flows_exp) (f - 1 when
 * flows_exp is 0 or 1, (f^a - 1)/a for a in (0, 1), session 21): the
 * γ_flows g_a(f) term of alltoall.h's γ(k, f) as a factor relative to one
 * flow. flows = 0 gives ct_duplex_penalties_kmax's penalties. */
int ct_duplex_penalties_kf(double duplex, double incast, double k_max, double flows,
                           double f_max, double flows_exp, const ct_graph *g,
                           const unsigned char *active, double *penalty, ct_err *err);
/* The largest incast degree k the duplex model's incast term sees among g's
 * arcs, all active, before any k_max hold (the scorer notes a prediction
 * past the fitted degree with it). 0 for no arc; -1 out of memory. */
int ct_duplex_incast_degree_max(const ct_graph *g, double *k, ct_err *err);
/* The largest flow count f the duplex model's flows term sees among g's arcs,
 * all active (the remote communications leaving or entering one node), before
 * any f_max hold. 0 for no arc; -1 out of memory. */
int ct_duplex_flows_max(const ct_graph *g, double *f, ct_err *err);

/* --- link-level model on a switch tree (penalty_links.c, issue 14) ---
 * m's model generalised from NICs to every link of t (NIC out/in, switch
 * uplink/downlink), by the model's own link rule (doc/adding-a-model.md):
 * fair share is max-min over all links; gige and stopgo keep their
 * node-level penalty and take the max with each switch link's beta * load /
 * capacity (gige) or load / capacity (stopgo); none stays 1. With every node
 * under one leaf the penalties are the node-level model's, bit for bit.
 * t->nnodes must equal g->nnodes. */
struct ct_tree_map;
int ct_links_penalties_active(const ct_penalty_model *m, const struct ct_tree_map *t,
                              const ct_graph *g, const unsigned char *active, double *penalty,
                              ct_err *err);

typedef enum ct_link_kind {
    CT_LINK_NIC_OUT = 0,
    CT_LINK_NIC_IN,
    CT_LINK_UP,     /* switch -> its parent */
    CT_LINK_DOWN,   /* parent -> switch */
} ct_link_kind;

typedef struct ct_link_use {
    ct_link_kind kind;
    int32_t index;     /* graph node (NIC) or switch (up/down); -1: no traffic */
    double load;       /* communications in flight through it */
    double capacity;   /* in NIC units */
    double ratio;      /* load / capacity */
} ct_link_use;

/* The link with the largest load/capacity for the active arcs (ties: the
 * first NIC in node order, then switch links in switch order). */
int ct_links_busiest(const struct ct_tree_map *t, const ct_graph *g, const unsigned char *active,
                     ct_link_use *out, ct_err *err);
/* The same for an Alltoall of tasks[i] tasks on graph node i (every task
 * sends to every other): a NIC carries t(n - t) communications each way, a
 * switch link T(n - T) for the T tasks under it. */
int ct_links_busiest_alltoall(const struct ct_tree_map *t, const int32_t *tasks, ct_link_use *out,
                              ct_err *err);
/* How much more an uplink carries than any NIC in that Alltoall: the
 * largest T(n - T) / C over the switches below the top (T tasks under the
 * switch, C its uplink capacity in NIC units) over the largest t(n - t) of
 * one NIC, into *excess (0 when every task sits under one switch); *sw = that
 * switch (-1). Above 1 the uplink, not a NIC, is the Alltoall's busiest
 * resource: calibrate leaves such samples out of the NIC signature fit
 * (cmd_calibrate.c; our extension, issue 14). */
int ct_links_alltoall_uplink_excess(const struct ct_tree_map *t, const int32_t *tasks,
                                    double *excess, int32_t *sw, ct_err *err);
/* "node 3 NIC out", "leaf2 uplink"... into buf. */
const char *ct_link_label(const struct ct_tree_map *t, const ct_link_use *u, char *buf,
                          size_t sz);

#endif
