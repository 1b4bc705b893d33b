/* What the registered penalty models are (contention/models.def): name,
 * paper, YAML keys with units and accepted ranges, and what they promise.
 *
 * Front ends read this to show, load, write and check any model without
 * knowing it; the models' code sits behind an ops table in each model's file.
 */
#ifndef CONTENTION_MODELS_H
#define CONTENTION_MODELS_H

#include <stddef.h>

#include "contention/error.h"
#include "contention/penalty.h"

typedef enum ct_param_type {
    CT_PARAM_REAL,   /* ct_penalty_model.real[slot] */
    CT_PARAM_INT,    /* ct_penalty_model.integer[slot] */
    CT_PARAM_CHOICE, /* ct_penalty_model.integer[slot] = index into choices[] */
} ct_param_type;

/* One YAML key of a model's `penalty:` section. */
typedef struct ct_model_key {
    const char *key;     /* YAML key; messages name the parameter by it */
    const char *unit;    /* "1" for dimensionless, else an SI unit; "" for choices */
    const char *meaning; /* one line, with the paper's symbol and section */
    ct_param_type type;
    int slot;
    int required;        /* 1: a file must give it; 0: absent means 0 */
    double lo, hi;       /* REAL and INT: accepted range (hi INFINITY: unbounded) */
    int lo_open, hi_open;
    const char *const *choices; /* CHOICE: the names, NULL-terminated */
} ct_model_key;

typedef struct ct_model_info {
    const char *name;    /* in signature files and on command lines */
    const char *label;   /* for people: "GigE", "Stop & Go" */
    const char *cite;    /* the paper section it implements, or "baseline" */
    const char *summary; /* one line */
    const ct_model_key *keys;
    size_t nkeys;
    int penalty_ge1; /* 1: every active communication gets a penalty >= 1 */
    int incremental; /* 1: engines update it per change (cost follows the change) */
    /* 1: the penalty stretches a message's bytes' time only and its latency
     * runs once, beside the others' (T = alpha + p m beta: a share of a
     * link's bandwidth; our extension, session 56); 0: the penalty stretches
     * the whole time alone, latency included (001 §IV-B's T = p T_alone).
     * The scorer, the placement search and the simulator read it alike. */
    int latency_once;
} ct_model_info;

/* Whether a phase priced with model kind k (unless the caller asked for
 * 001's T = p T_alone for every model) takes each message's latency once:
 * its ct_model_info.latency_once. */
int ct_model_latency_once(ct_model_kind k);

/* Number of registered models; kinds are 0 .. ct_model_count() - 1. */
size_t ct_model_count(void);
/* The description of model k, or NULL for an unregistered kind. */
const ct_model_info *ct_model_info_of(ct_model_kind k);
/* "none, gige, stopgo, fairshare": the accepted names, for messages. */
const char *ct_model_names(void);

/* Check m's kind and parameters: each key's range and choices, plus the
 * model's own rules, without evaluating the model. The message names the
 * model and the key: "gige: gamma_o = 1.5 (accepted: a number >= 0 and < 1)". */
int ct_model_check(const ct_penalty_model *m, ct_err *err);

/* A key's value in m as a double (CHOICE and INT: the integer). */
double ct_model_key_get(const ct_penalty_model *m, const ct_model_key *k);
/* Is v acceptable for key k (range, integer, choice index)? */
int ct_model_key_ok(const ct_model_key *k, double v);
/* "a number >= 0 and < 1", "an integer from 0 to 9223372036854775807",
 * "auto, exact, scalable": what key k accepts. */
void ct_model_key_accepted(const ct_model_key *k, char *buf, size_t sz);
/* The key's value as text: a number (%.17g, integers exactly) or the choice name. */
void ct_model_key_format(const ct_penalty_model *m, const ct_model_key *k, char *buf, size_t sz);

#endif
