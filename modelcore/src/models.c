/* The penalty-model registry (contention/models.def) and what every model
 * shares: names, parameter checks from the key tables, the dispatcher. */
#include "model.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const model_ops *const registry[] = {
#define CT_MODEL(ID, ops) [CT_MODEL_##ID] = &ops,
#include "contention/models.def"
#undef CT_MODEL
};

size_t ct_model_count(void)
{
    return (size_t)CT_MODEL_COUNT;
}

const model_ops *model_ops_of(ct_model_kind k)
{
    if ((unsigned)k < (unsigned)CT_MODEL_COUNT)
        return registry[k];
    return NULL;
}

const ct_model_info *ct_model_info_of(ct_model_kind k)
{
    const model_ops *o = model_ops_of(k);
    return o ? &o->info : NULL;
}

int ct_model_latency_once(ct_model_kind k)
{
    const ct_model_info *i = ct_model_info_of(k);
    return i ? i->latency_once : 0;
}

const char *ct_model_name(ct_model_kind k)
{
    const ct_model_info *i = ct_model_info_of(k);
    return i ? i->name : "unknown";
}

int ct_model_from_name(const char *name, ct_model_kind *k)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < (size_t)CT_MODEL_COUNT; i++)
        if (strcasecmp(name, registry[i]->info.name) == 0) {
            *k = (ct_model_kind)i;
            return 0;
        }
    return -1;
}

const char *ct_model_names(void)
{
    static char names[256];
    if (!names[0]) {
        size_t used = 0;
        for (size_t i = 0; i < (size_t)CT_MODEL_COUNT; i++) {
            int w = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                             registry[i]->info.name);
            if (w < 0 || (size_t)w >= sizeof names - used)
                break;
            used += (size_t)w;
        }
    }
    return names;
}

static size_t nchoices(const ct_model_key *k)
{
    size_t n = 0;
    while (k->choices && k->choices[n])
        n++;
    return n;
}

double ct_model_key_get(const ct_penalty_model *m, const ct_model_key *k)
{
    return k->type == CT_PARAM_REAL ? m->real[k->slot] : (double)m->integer[k->slot];
}

int ct_model_key_ok(const ct_model_key *k, double v)
{
    if (!isfinite(v))
        return 0;
    if (k->type == CT_PARAM_CHOICE)
        return v >= 0 && v < (double)nchoices(k) && v == floor(v);
    if (k->type == CT_PARAM_INT && v != floor(v))
        return 0;
    if (k->lo_open ? !(v > k->lo) : !(v >= k->lo))
        return 0;
    if (isfinite(k->hi) && (k->hi_open ? !(v < k->hi) : !(v <= k->hi)))
        return 0;
    return 1;
}

void ct_model_key_accepted(const ct_model_key *k, char *buf, size_t sz)
{
    if (!sz)
        return;
    buf[0] = '\0';
    if (k->type == CT_PARAM_CHOICE) {
        size_t used = 0;
        for (size_t i = 0; k->choices[i]; i++) {
            int w = snprintf(buf + used, sz - used, "%s%s", i ? ", " : "", k->choices[i]);
            if (w < 0 || (size_t)w >= sz - used)
                break;
            used += (size_t)w;
        }
    } else if (k->type == CT_PARAM_INT) {
        if (isfinite(k->hi) && k->hi < 0x1p53)
            snprintf(buf, sz, "an integer from %.0f to %.0f", k->lo, k->hi);
        else
            snprintf(buf, sz, "an integer >= %.0f", k->lo);
    } else if (isfinite(k->hi)) {
        snprintf(buf, sz, "a number %s %g and %s %g", k->lo_open ? ">" : ">=", k->lo,
                 k->hi_open ? "<" : "<=", k->hi);
    } else {
        snprintf(buf, sz, "a number %s %g", k->lo_open ? ">" : ">=", k->lo);
    }
}

void ct_model_key_format(const ct_penalty_model *m, const ct_model_key *k, char *buf, size_t sz)
{
    if (k->type == CT_PARAM_REAL) {
        snprintf(buf, sz, "%.17g", m->real[k->slot]);
        return;
    }
    int64_t v = m->integer[k->slot];
    if (k->type == CT_PARAM_CHOICE && v >= 0 && (size_t)v < nchoices(k))
        snprintf(buf, sz, "%s", k->choices[v]);
    else
        snprintf(buf, sz, "%" PRId64, v);
}

int ct_model_check(const ct_penalty_model *m, ct_err *err)
{
    if (!m)
        return ct_err_set(err, "no penalty model");
    const model_ops *o = model_ops_of(m->kind);
    if (!o)
        return ct_err_set(err, "unknown penalty model kind %d (accepted: %s)", (int)m->kind,
                          ct_model_names());
    for (size_t i = 0; i < o->info.nkeys; i++) {
        const ct_model_key *k = &o->info.keys[i];
        /* an integer slot is checked as an integer, not through a double;
         * a real key's slot indexes real[] only (it may be past integer[]) */
        int64_t iv = k->type == CT_PARAM_REAL ? 0 : m->integer[k->slot];
        int ok;
        if (k->type == CT_PARAM_REAL)
            ok = ct_model_key_ok(k, m->real[k->slot]);
        else if (k->type == CT_PARAM_CHOICE)
            ok = iv >= 0 && (size_t)iv < nchoices(k);
        else /* compared as integers: a seed near 2^63 must not round */
            ok = (double)iv >= k->lo &&
                 (!isfinite(k->hi) || k->hi >= 0x1p63 || (double)iv <= k->hi);
        if (!ok) {
            char v[48], acc[128];
            if (k->type == CT_PARAM_REAL)
                snprintf(v, sizeof v, "%g", m->real[k->slot]);
            else
                snprintf(v, sizeof v, "%" PRId64, m->integer[k->slot]);
            ct_model_key_accepted(k, acc, sizeof acc);
            return ct_err_set(err, "%s: %s = %s (accepted: %s)", o->info.name, k->key, v, acc);
        }
    }
    return o->check ? o->check(m, err) : 0;
}

int ct_penalties_active(const ct_penalty_model *m, const ct_graph *g, const unsigned char *active,
                        double *penalty, ct_err *err)
{
    if (!m || !g || (!penalty && g->ncomm))
        return ct_err_set(err, "ct_penalties: NULL model, graph or penalty array");
    if (ct_model_check(m, err))
        return -1;
    if (m->tree) /* a switch tree: the link-level wrapper of the model (penalty_links.c) */
        return ct_links_penalties_active(m, m->tree, g, active, penalty, err);
    return model_ops_of(m->kind)->penalties(m, g, active, penalty, err);
}

int ct_penalties(const ct_penalty_model *m, const ct_graph *g, double *penalty, ct_err *err)
{
    return ct_penalties_active(m, g, NULL, penalty, err);
}
