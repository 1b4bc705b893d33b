/* Candidate mappings -> predicted times (see score.h for the model). */
#include "contention/score.h"

#include "contention/models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/alltoall.h"
#include "contention/grid_lg.h"
#include "contention/collective.h"
#include "contention/commgraph.h"
#include "contention/hockney.h"
#include "contention/penalty.h"
#include "contention/progressive.h"
#include "contention/simulate.h"
#include "contention/trace.h"

typedef struct timing {
    double predicted, uncontended, intra;
    int64_t remote;
    ct_link_use busiest;
    int has_busiest;
} timing;

static double intra_time(const double *intra_bytes, int32_t nnodes, double intra_bw)
{
    if (intra_bw <= 0)
        return 0; /* signatures.h: intra_bw <= 0 ignores intra-node time */
    double worst = 0;
    for (int32_t k = 0; k < nnodes; k++)
        if (intra_bytes[k] / intra_bw > worst)
            worst = intra_bytes[k] / intra_bw;
    return worst;
}

static int time_alltoall(const ct_fabric *f, const ct_a2a_sig *sig, double m, const ct_layout *l,
                         const ct_tree_map *tree, const ct_tree_map *view, timing *t,
                         ct_err *err)
{
    int32_t *cnt = malloc((size_t)l->nnodes * sizeof *cnt);
    double *intra = malloc((size_t)l->nnodes * sizeof *intra);
    int rc = 0;
    if (!cnt || !intra) {
        rc = ct_err_set(err, "out of memory for %d nodes", (int)l->nnodes);
        goto out;
    }
    ct_layout_counts(l, cnt);
    t->remote = 0;
    for (int32_t k = 0; k < l->nnodes; k++) {
        t->remote += (int64_t)cnt[k] * (l->ntasks - cnt[k]);
        intra[k] = (double)cnt[k] * (cnt[k] - 1) * m;
    }
    double alpha, beta;
    ct_fabric_p2p_at(f, m, &alpha, &beta); /* the size range's Hockney alpha, beta (p2p.h) */
    /* 000/002 eq. 5, layout-aware form of alltoall.h */
    if (ct_a2a_layout_checked(cnt, l->nnodes, alpha, beta, m, sig, f->intra_bw, &t->predicted,
                              err) < 0) {
        rc = -1;
        goto out;
    }
    if (tree) { /* the uplinks: 002 eq. 7 per uplink of the tree (grid_lg.h) */
        double t_up;
        if (ct_lg_tree_alltoall(cnt, tree, alpha, beta, m, sig, f->intra_bw, &t_up, NULL, err) <
            0) {
            rc = -1;
            goto out;
        }
        if (t_up > t->predicted)
            t->predicted = t_up;
    }
    if (ct_links_busiest_alltoall(view, cnt, &t->busiest, err) < 0) {
        rc = -1;
        goto out;
    }
    t->has_busiest = 1;
    /* 000 Proposition 1, same layout */
    t->uncontended = ct_a2a_layout_lower_bound(cnt, l->nnodes, alpha, beta, m, f->intra_bw);
    t->intra = intra_time(intra, l->nnodes, f->intra_bw);
out:
    free(cnt);
    free(intra);
    return rc;
}

/* A point-to-point candidate between graph building and timing. */
typedef struct p2p_work {
    ct_graph g;
    double intra; /* s */
    int built;
} p2p_work;

static int build_p2p(const ct_fabric *f, const ct_pattern *p, const ct_layout *l, p2p_work *w,
                     ct_err *err)
{
    double *intra = malloc((size_t)l->nnodes * sizeof *intra);
    if (!intra)
        return ct_err_set(err, "out of memory for %d nodes", (int)l->nnodes);
    if (ct_pattern_graph(p, l, &w->g, intra, err) < 0) {
        free(intra);
        return -1;
    }
    w->intra = intra_time(intra, l->nnodes, f->intra_bw);
    w->built = 1;
    free(intra);
    return 0;
}

/* Budget of arc penalty evaluations for one candidate's progressive
 * evaluation (ct_progressive_times_ex), about 0.1 s: a GigE completion
 * re-evaluates the arcs at its source and destination nodes, so a graph
 * whose completions do not coincide (a random layout of a large job) costs
 * about sum over arcs of (arcs at src + arcs at dst) evaluations. */
#define SCORE_PROGRESSIVE_MAX_EVALS ((uint64_t)1000000)

/* That sum: the work if every arc completed at its own instant. */
static uint64_t progressive_work(const ct_graph *g, ct_err *err, int *oom)
{
    size_t nn = g->nnodes > 0 ? (size_t)g->nnodes : 1;
    uint32_t *no = calloc(nn, sizeof *no), *ni = calloc(nn, sizeof *ni);
    uint64_t w = 0;
    *oom = !no || !ni;
    if (*oom) {
        ct_err_set(err, "out of memory for %zu nodes", nn);
    } else {
        for (size_t i = 0; i < g->ncomm; i++)
            no[g->comm[i].src]++, ni[g->comm[i].dst]++;
        for (size_t i = 0; i < g->ncomm; i++)
            w += (uint64_t)no[g->comm[i].src] + ni[g->comm[i].dst];
    }
    free(no);
    free(ni);
    return w;
}

/* progressive: 1 = re-apply the model as communications end (returns 1 when
 * the run-time bound, 4x the estimate's, is hit: nothing timed), 0 =
 * first-instant penalties. */
static int time_p2p(const ct_fabric *f, const p2p_work *w, int progressive,
                    const ct_tree_map *tree, const ct_tree_map *view, timing *t, ct_err *err)
{
    const ct_graph *g = &w->g;
    ct_penalty_model model = f->penalty;
    model.tree = tree; /* NULL: one switch, the node-level model as it is */
    int rc = 0;
    double *alone = malloc((g->ncomm ? g->ncomm : 1) * sizeof *alone);
    double *fin = malloc((g->ncomm ? g->ncomm : 1) * sizeof *fin);
    if (!alone || !fin) {
        rc = ct_err_set(err, "out of memory for %zu arcs", g->ncomm);
        goto out;
    }
    double net0 = 0, net = 0;
    for (size_t i = 0; i < g->ncomm; i++) {
        double a, b;
        ct_fabric_p2p_at(f, g->comm[i].bytes, &a, &b); /* the size range's alpha, beta */
        alone[i] = ct_hockney(a, b, g->comm[i].bytes); /* Hockney: alpha + m*beta */
        if (alone[i] > net0)
            net0 = alone[i];
    }
    if (g->ncomm) {
        if (progressive) {
            /* 001 §IV-B T = p * T_alone, penalties re-applied as communications end */
            rc = ct_progressive_times_ex(&model, g, alone, fin,
                                         4 * SCORE_PROGRESSIVE_MAX_EVALS, NULL, err);
        } else {
            /* 001 §IV-B with the penalties of the first instant for the whole life */
            rc = ct_penalties(&model, g, fin, err);
            for (size_t i = 0; rc == 0 && i < g->ncomm; i++)
                fin[i] *= alone[i];
        }
        if (rc != 0)
            goto out;
        for (size_t i = 0; i < g->ncomm; i++)
            if (fin[i] > net)
                net = fin[i];
    }
    if (g->ncomm) {
        if ((rc = ct_links_busiest(view, g, NULL, &t->busiest, err)) < 0)
            goto out;
        t->has_busiest = 1;
    }
    t->remote = ct_graph_total(g);
    t->intra = w->intra;
    t->predicted = net > t->intra ? net : t->intra;
    t->uncontended = net0 > t->intra ? net0 : t->intra;
out:
    free(alone);
    free(fin);
    return rc;
}

static int time_trace(const ct_fabric *f, const ct_trace *tr, const ct_layout *l, timing *t,
                      ct_err *err)
{
    ct_sim_params sp;
    ct_sim_result r;
    ct_sim_params_from_fabric(f, &sp);
    sp.keep_comms = 0;
    if (ct_simulate(tr, l, &sp, &r, err) < 0)
        return -1;
    t->predicted = r.makespan;
    t->remote = (int64_t)r.nremote;
    ct_sim_result_free(&r);
    sp.model.kind = CT_MODEL_NONE;
    if (ct_simulate(tr, l, &sp, &r, err) < 0)
        return -1;
    t->uncontended = r.makespan;
    ct_sim_result_free(&r);
    t->intra = 0;
    return 0;
}

static void note_add(ct_score_result *out, const char *s)
{
    size_t len = strlen(out->note);
    snprintf(out->note + len, sizeof out->note - len, "%s%s", len ? "; " : "", s);
}

int ct_score(const ct_fabric *fabric, const ct_score_request *req, ct_score_result *out,
             ct_err *err)
{
    if (!out)
        return ct_err_set(err, "ct_score: NULL result");
    memset(out, 0, sizeof *out);
    if (!fabric)
        return ct_err_set(err, "no fabric to score on");
    if (!req || !req->alloc || req->alloc->nnodes < 1 || !req->alloc->cpus)
        return ct_err_set(err, "no allocation to score (empty node list)");
    if (!isfinite(fabric->alpha) || fabric->alpha < 0 || !isfinite(fabric->beta) ||
        fabric->beta < 0)
        return ct_err_set(err, "fabric '%s': alpha %g s, beta %g s/byte (accepted: finite, >= 0)",
                          fabric->name, fabric->alpha, fabric->beta);
    const ct_pattern *p = &req->pattern;
    if (!isfinite(p->bytes) || p->bytes < 0)
        return ct_err_set(err, "message size %g bytes (accepted: finite, >= 0)", p->bytes);
    if (req->include_plane && req->plane_size < 1)
        return ct_err_set(err, "plane size %d (accepted: >= 1)", (int)req->plane_size);
    int32_t cpt = req->cpus_per_task < 1 ? 1 : req->cpus_per_task;

    ct_trace tr;
    int have_trace = 0;
    int32_t ntasks = req->ntasks;
    if (p->kind == CT_PAT_TRACE) {
        /* collectives expanded by the algorithms the fabric's models select
         * (collective.h) */
        ct_coll_params cp;
        ct_coll_params_from_fabric(fabric, &cp);
        if (ct_trace_load_expanded_bounded(p->trace, &p->trace_limits, &cp, &tr, NULL, err) < 0)
            return -1;
        have_trace = 1;
        if (ntasks <= 0)
            ntasks = tr.ntasks;
        else if (ntasks != tr.ntasks) {
            int32_t tn = tr.ntasks;
            ct_trace_free(&tr);
            return ct_err_set(err, "%s: trace has %d tasks but the job runs %d (they must match)",
                              p->trace, (int)tn, (int)ntasks);
        }
    }
    if (ntasks <= 0) {
        int64_t slots = ct_alloc_slots(req->alloc, cpt);
        ntasks = slots > INT32_MAX ? INT32_MAX : (int32_t)slots;
    }

    snprintf(out->fabric, sizeof out->fabric, "%s", fabric->name);
    ct_a2a_sig sig = fabric->alltoall;
    if (p->kind == CT_PAT_ALLTOALL) {
        snprintf(out->model, sizeof out->model, "alltoall-signature");
        if (!fabric->has_alltoall) {
            sig = (ct_a2a_sig){.gamma = 1, .delta = 0, .M = 0};
            note_add(out, "fabric has no Alltoall signature: scored with gamma = 1, delta = 0 "
                          "(no contention)");
        }
    } else if (p->kind == CT_PAT_TRACE) {
        snprintf(out->model, sizeof out->model, "simulate/%s", ct_model_name(fabric->penalty.kind));
    } else {
        snprintf(out->model, sizeof out->model, "%s", ct_model_name(fabric->penalty.kind));
    }
    if (p->kind != CT_PAT_ALLTOALL && fabric->penalty.kind == CT_MODEL_NONE)
        note_add(out, "fabric has no penalty model: point-to-point contention not modelled "
                      "(every penalty 1)");
    if (fabric->intra_bw <= 0)
        note_add(out, "fabric has no intra-node bandwidth: intra-node time ignored");

    struct cand {
        ct_dist d;
        int32_t plane;
    } cand[4];
    size_t nc = 0;
    cand[nc++] = (struct cand){CT_DIST_BLOCK, 0};
    cand[nc++] = (struct cand){CT_DIST_CYCLIC, 0};
    if (req->include_plane)
        cand[nc++] = (struct cand){CT_DIST_PLANE, req->plane_size};
    if (req->include_random)
        cand[nc++] = (struct cand){CT_DIST_RANDOM, 0};

    /* the links the busiest-link report looks at: the tree, or one switch */
    ct_tree_map flat = {0};
    const ct_tree_map *view = req->tree;
    if (req->tree && req->tree->nnodes != req->alloc->nnodes) {
        if (have_trace)
            ct_trace_free(&tr);
        return ct_err_set(err,
                          "switch tree over %d nodes for an allocation of %d nodes (accepted: "
                          "the allocation's nodes)",
                          (int)req->tree->nnodes, (int)req->alloc->nnodes);
    }
    if (!view) {
        if (ct_tree_map_flat(req->alloc->nnodes, &flat, err) < 0) {
            if (have_trace)
                ct_trace_free(&tr);
            return -1;
        }
        view = &flat;
    }
    int rc = 0;
    int p2p = p->kind != CT_PAT_ALLTOALL && p->kind != CT_PAT_TRACE;
    p2p_work work[4];
    memset(work, 0, sizeof work);
    timing tm[4];
    memset(tm, 0, sizeof tm);
    size_t max_arcs = 0;
    for (size_t i = 0; i < nc && rc == 0; i++) {
        ct_layout l;
        if (ct_layout_build(req->alloc, ntasks, cpt, cand[i].d, cand[i].plane, req->seed, &l, err) <
            0) {
            rc = -1;
            break;
        }
        if (p->kind == CT_PAT_ALLTOALL)
            rc = time_alltoall(fabric, &sig, p->bytes, &l, req->tree, view, &tm[i], err);
        else if (p->kind == CT_PAT_TRACE)
            rc = time_trace(fabric, &tr, &l, &tm[i], err);
        else if ((rc = build_p2p(fabric, p, &l, &work[i], err)) == 0 && work[i].g.ncomm > max_arcs)
            max_arcs = work[i].g.ncomm;
        ct_layout_free(&l);
        if (rc < 0) {
            char name[32];
            ct_err_prefix(err, "%s: ", ct_dist_label(cand[i].d, cand[i].plane, name, sizeof name));
        }
    }
    /* One evaluation method for every candidate, so that they compare fairly.
     * Models with incremental hooks (contention/models.h: GigE, none) cost,
     * per completion, the arcs at the nodes it changes and are bounded by
     * work only; the others (Stop & Go, fair share) re-evaluate every arc at
     * every completion, so their graphs are also bounded in size. Past either
     * bound every candidate is timed with the penalties of the first instant. */
    const ct_model_info *minfo = ct_model_info_of(fabric->penalty.kind);
    int incremental = minfo && minfo->incremental && !req->tree; /* trees: link model */
    /* on a tree, a model with incremental hooks is re-applied whole at each
     * completion (the link model); the run-time bound of time_p2p guards it */
    int tree_bounded = req->tree && minfo && minfo->incremental;
    int progressive = incremental || tree_bounded || max_arcs <= CT_SCORE_PROGRESSIVE_MAX_ARCS;
    for (size_t i = 0; i < nc && rc == 0 && p2p && progressive && incremental; i++) {
        int oom;
        uint64_t w = progressive_work(&work[i].g, err, &oom);
        if (oom) {
            rc = -1;
        } else if (w > SCORE_PROGRESSIVE_MAX_EVALS) {
            char name[32], msg[200];
            snprintf(msg, sizeof msg,
                     "%s: progressive evaluation would take up to %llu penalty evaluations "
                     "(> %llu): static penalties (first instant) instead",
                     ct_dist_label(cand[i].d, cand[i].plane, name, sizeof name),
                     (unsigned long long)w, (unsigned long long)SCORE_PROGRESSIVE_MAX_EVALS);
            note_add(out, msg);
            progressive = 0;
        }
    }
    if (p2p && rc == 0 && !progressive && !incremental) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "%zu node pairs exceed %d for the %s model: static penalties (first instant) "
                 "instead of progressive evaluation",
                 max_arcs, CT_SCORE_PROGRESSIVE_MAX_ARCS, ct_model_name(fabric->penalty.kind));
        note_add(out, msg);
    }
    for (size_t i = 0; i < nc && rc == 0 && p2p; i++) {
        int r = time_p2p(fabric, &work[i], progressive, req->tree, view, &tm[i], err);
        if (r == 1) { /* work bound hit: start over with static penalties */
            char name[32], msg[200];
            snprintf(msg, sizeof msg,
                     "%s: progressive evaluation past %llu penalty evaluations: static penalties "
                     "(first instant) instead",
                     ct_dist_label(cand[i].d, cand[i].plane, name, sizeof name),
                     (unsigned long long)(4 * SCORE_PROGRESSIVE_MAX_EVALS));
            note_add(out, msg);
            progressive = 0;
            i = (size_t)-1;
            continue;
        }
        if (r < 0) {
            char name[32];
            ct_err_prefix(err, "%s: ", ct_dist_label(cand[i].d, cand[i].plane, name, sizeof name));
            rc = -1;
        }
    }
    for (size_t i = 0; i < nc && rc == 0; i++) {
        ct_candidate_score *c = &out->c[out->n++];
        c->dist = cand[i].d;
        c->plane = cand[i].plane;
        ct_dist_label(cand[i].d, cand[i].plane, c->name, sizeof c->name);
        c->predicted_s = tm[i].predicted;
        c->uncontended_s = tm[i].uncontended;
        c->slowdown = tm[i].uncontended > 0 ? tm[i].predicted / tm[i].uncontended : 1.0;
        c->remote_comms = tm[i].remote;
        c->intra_s = tm[i].intra;
        if (tm[i].has_busiest && tm[i].busiest.index >= 0) {
            ct_link_label(view, &tm[i].busiest, c->busiest_link, sizeof c->busiest_link);
            c->busiest_ratio = tm[i].busiest.ratio;
        }
    }
    for (size_t i = 0; i < nc; i++)
        if (work[i].built)
            ct_graph_free(&work[i].g);
    if (have_trace)
        ct_trace_free(&tr);
    ct_tree_map_free(&flat);
    if (rc < 0) {
        out->n = 0;
        return -1;
    }
    /* stable insertion sort: ties keep Slurm's default (block) first */
    for (size_t i = 1; i < out->n; i++) {
        ct_candidate_score x = out->c[i];
        size_t j = i;
        while (j > 0 && out->c[j - 1].predicted_s > x.predicted_s) {
            out->c[j] = out->c[j - 1];
            j--;
        }
        out->c[j] = x;
    }
    out->winner = 0;
    out->ntasks = ntasks;
    if (out->n < 2)
        out->margin = 0;
    else if (out->c[0].predicted_s > 0)
        out->margin = (out->c[1].predicted_s - out->c[0].predicted_s) / out->c[0].predicted_s;
    else
        out->margin = out->c[1].predicted_s > 0 ? INFINITY : 0;
    return 0;
}
