/* One phase's network time: see phase_time.h. The scorer's and the
 * placement search's point-to-point pricing. */
#include "phase_time.h"

#include <math.h>
#include <stdlib.h>

#include "contention/hockney.h"
#include "contention/models.h"
#include "contention/penalty.h"
#include "contention/progressive.h"

double ct_refill_dt(double bucket, double beta, double pause_cal, double S, double pause)
{
    if (!(bucket > 0) || !(beta > 0) || !(pause_cal > 0) || !(pause >= 0) || !(S > 0))
        return 0;
    double r = 1 / beta;
    double c = fmin(fmin(bucket, r * pause), S);
    double c_cal = fmin(fmin(bucket, r * pause_cal), S);
    return (c - c_cal) / r;
}

/* The refill before a point-to-point phase (ct_refill_dt): S is the graph's
 * busiest NIC direction, r the sustained curve's rate at the bucket. */
static double refill_credit(const ct_fabric *f, const ct_graph *g, double pause)
{
    if (!(f->bucket > 0) || !(f->bucket_pause > 0) || pause < 0 || g->ncomm == 0)
        return 0;
    double a, b, smax = 0;
    ct_fabric_p2p_at(f, f->bucket, &a, &b); /* the sustained curve's beta at the bucket */
    double *dir = calloc(2 * (size_t)g->nnodes, sizeof *dir); /* out, in per node */
    if (!dir)
        return 0;
    for (size_t i = 0; i < g->ncomm; i++) {
        double v = (double)g->comm[i].mult * g->comm[i].bytes;
        dir[2 * (size_t)g->comm[i].src] += v;
        dir[2 * (size_t)g->comm[i].dst + 1] += v;
    }
    for (size_t k = 0; k < 2 * (size_t)g->nnodes; k++)
        smax = dir[k] > smax ? dir[k] : smax;
    free(dir);
    return ct_refill_dt(f->bucket, b, f->bucket_pause, smax, pause);
}

/* Whether the penalty stretches the bytes' time only (our extension, session
 * 56; models.h ct_model_info.latency_once, signatures.h
 * ct_fabric.latency_in_penalty): a fair share divides a link's bandwidth
 * among the messages through it, and each message's latency -- its first
 * byte's way, a host's wake-up -- runs beside the others', once. */
static int latency_once(const ct_fabric *f)
{
    return !f->latency_in_penalty && ct_model_latency_once(f->penalty.kind);
}

int ct_phase_time(const ct_fabric *f, const ct_graph *g, double intra, int progressive,
                  const ct_tree_map *tree, double pause, double *predicted, double *uncontended,
                  ct_err *err)
{
    ct_penalty_model model = f->penalty;
    model.tree = tree; /* NULL: one switch, the node-level model as it is */
    int rc = 0;
    const int once = latency_once(f);
    const size_t n = g->ncomm ? g->ncomm : 1;
    /* alone, then (where alpha is taken once) each arc's bytes' time */
    double *alone = malloc((once ? 2 : 1) * n * sizeof *alone);
    double *fin = malloc(n * sizeof *fin);
    double *work = once && alone ? alone + n : alone;
    if (!alone || !fin) {
        rc = ct_err_set(err, "out of memory for %zu arcs", g->ncomm);
        goto out;
    }
    double net0 = 0, net = 0, lat = 0; /* lat: the largest alpha, a phase's least time */
    double mbig = 0, tbig = 0;         /* the phase's largest message and its time alone */
    for (size_t i = 0; i < g->ncomm; i++) {
        double a, b;
        ct_fabric_p2p_at(f, g->comm[i].bytes, &a, &b); /* the size range's alpha, beta */
        alone[i] = ct_hockney(a, b, g->comm[i].bytes); /* Hockney: alpha + m*beta */
        if (once) /* the bytes' time, which the penalty stretches; alpha once after */
            work[i] = fmax(alone[i] - a, 0);
        if (alone[i] > net0)
            net0 = alone[i];
        if (a > lat)
            lat = a;
        if (g->comm[i].bytes > mbig) {
            mbig = g->comm[i].bytes;
            tbig = work[i]; /* the bytes' time where alpha is taken once */
        }
    }
    if (model.kind == CT_MODEL_DUPLEX && model.real[CT_DUPLEX_LONG] != 0 &&
        model.real[CT_DUPLEX_LONG_FROM] > 0 && mbig > model.real[CT_DUPLEX_LONG_FROM]) {
        /* the long-exchange term (our extension, session 28; penalty.h): the
         * phase's coupling at its largest message's time alone */
        double a, b, mf = model.real[CT_DUPLEX_LONG_FROM];
        ct_fabric_p2p_at(f, mf, &a, &b);
        double tf = ct_hockney(a, b, mf) - (once ? a : 0); /* as tbig */
        model.real[CT_DUPLEX_COUPLING] = ct_duplex_long_delta(&model, tbig, tf);
    }
    if (g->ncomm) {
        if (progressive) {
            /* 001 §IV-B T = p * T_alone (the bytes' time where alpha is taken
             * once), penalties re-applied as communications end */
            rc = ct_progressive_times_ex(&model, g, work, fin, 4 * CT_PHASE_PROGRESSIVE_MAX_EVALS,
                                         NULL, err);
        } else {
            /* 001 §IV-B with the penalties of the first instant for the whole life */
            rc = ct_penalties(&model, g, fin, err);
            for (size_t i = 0; rc == 0 && i < g->ncomm; i++)
                fin[i] *= work[i];
        }
        if (rc != 0)
            goto out;
        if (once) /* each message's latency once, beside the others' (our extension) */
            for (size_t i = 0; i < g->ncomm; i++)
                fin[i] = fmax(fin[i] + (alone[i] - work[i]), 0);
        for (size_t i = 0; i < g->ncomm; i++)
            if (fin[i] > net)
                net = fin[i];
    }
    if (g->ncomm && f->exchange != 0) {
        /* the step's fixed time (our extension, signatures.h: ct_fabric.exchange),
         * once per phase that crosses the network, in the contended time and the
         * uncontended one alike (it is no contention); a bucket's refill (< 0)
         * takes no message below its latency */
        net = fmax(net + f->exchange, lat);
        net0 = fmax(net0 + f->exchange, lat);
    }
    double credit = refill_credit(f, g, pause);
    if (credit != 0) { /* the bucket's refill, as the exchange step: no contention */
        net = fmax(net - credit, lat);
        net0 = fmax(net0 - credit, lat);
    }
    *predicted = net > intra ? net : intra;
    *uncontended = net0 > intra ? net0 : intra;
out:
    free(alone);
    free(fin);
    return rc;
}
