/* Model names and the dispatcher over the penalty models of penalty.h. */
#include "contention/penalty.h"

#include <stdlib.h>
#include <strings.h>

static const char *const model_names[] = {
    [CT_MODEL_NONE] = "none",
    [CT_MODEL_GIGE] = "gige",
    [CT_MODEL_STOPGO] = "stopgo",
    [CT_MODEL_FAIRSHARE] = "fairshare",
};

const char *ct_model_name(ct_model_kind k)
{
    if ((unsigned)k < sizeof model_names / sizeof *model_names)
        return model_names[k];
    return "unknown";
}

int ct_model_from_name(const char *name, ct_model_kind *k)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof model_names / sizeof *model_names; i++)
        if (strcasecmp(name, model_names[i]) == 0) {
            *k = (ct_model_kind)i;
            return 0;
        }
    return -1;
}

int ct_penalties_active(const ct_penalty_model *m, const ct_graph *g, const unsigned char *active,
                        double *penalty, ct_err *err)
{
    if (!m || !g || (!penalty && g->ncomm))
        return ct_err_set(err, "ct_penalties: NULL model, graph or penalty array");
    if (m->tree)
        return ct_links_penalties_active(m, m->tree, g, active, penalty, err);
    switch (m->kind) {
    case CT_MODEL_NONE:
        for (size_t i = 0; i < g->ncomm; i++)
            penalty[i] = (active && !active[i]) ? 0.0 : 1.0;
        return 0;
    case CT_MODEL_GIGE:
        return ct_gige_penalties_ex(m->beta, m->gamma_i, m->gamma_o, m->gige_flags, g, active,
                                    penalty, err);
    case CT_MODEL_STOPGO: {
        ct_stopgo_opts o = {.method = m->stopgo_method, .seed = m->stopgo_seed};
        return ct_stopgo_penalties_ex(&o, g, active, penalty, NULL, err);
    }
    case CT_MODEL_FAIRSHARE:
        return ct_fairshare_penalties_ex(g, active, penalty, err);
    }
    return ct_err_set(err, "unknown penalty model kind %d (accepted: none, gige, stopgo, fairshare)",
                      (int)m->kind);
}

int ct_penalties(const ct_penalty_model *m, const ct_graph *g, double *penalty, ct_err *err)
{
    return ct_penalties_active(m, g, NULL, penalty, err);
}
