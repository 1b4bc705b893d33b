/* No contention: every communication takes its time alone (penalty 1).
 * The reference point of every other model, and the default of a fabric
 * whose signature names no penalty model. */
#include "model.h"

static int none_penalties(const ct_penalty_model *m, const ct_graph *g, const unsigned char *active,
                          double *penalty, ct_err *err)
{
    (void)m, (void)err;
    for (size_t i = 0; i < g->ncomm; i++)
        penalty[i] = (active && !active[i]) ? 0.0 : 1.0;
    return 0;
}

/* Incremental: a new link gets 1, nothing else ever changes. */
static int none_commit(gnet *net)
{
    gnet_next_epoch(net);
    net->ntouched = 0;
    for (size_t i = 0; i < net->nadded; i++) {
        glink *x = &net->l[net->added[i]];
        if (!x->linked || x->committed)
            continue;
        x->committed = 1;
        if (gnet_mark(net, net->added[i]))
            return -1;
    }
    net->nadded = net->nremoved = 0;
    if (net->ntouched > net->tpen_cap &&
        gnet_grow((void **)&net->tpen, &net->tpen_cap, net->ntouched, sizeof(double),
                     net->acct))
        return -1;
    for (size_t i = 0; i < net->ntouched; i++)
        net->tpen[i] = 1.0;
    return 0;
}

/* On a switch link: no contention there either. */
static double none_link(const ct_penalty_model *m, double load, double cap)
{
    (void)m, (void)load, (void)cap;
    return 1.0;
}

const model_ops model_none = {
    .info = {.name = "none",
             .label = "no contention",
             .cite = "baseline",
             .summary = "no contention: every penalty is 1",
             .penalty_ge1 = 1,
             .incremental = 1},
    .penalties = none_penalties,
    .inc_commit = none_commit,
    .link_penalty = none_link,
};
