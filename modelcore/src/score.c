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
#include "grow.h"
#include "intra_node.h"
#include "phase_time.h"
#include "score_ref.h"

typedef struct timing {
    double predicted, uncontended, intra;
    int64_t remote;
    double k, f; /* Alltoall: the largest incast degree and remote flows of a NIC */
    ct_link_use busiest;
    int has_busiest;
} timing;

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
    t->k = t->f = 0;
    int32_t used = 0;
    for (int32_t k = 0; k < l->nnodes; k++) {
        int64_t r = (int64_t)cnt[k] * (l->ntasks - cnt[k]); /* alltoall.h's r_k */
        t->remote += r;
        t->f = fmax(t->f, (double)r);
        intra[k] = (double)cnt[k] * (cnt[k] - 1) * m;
        used += cnt[k] > 0;
    }
    t->k = used > 0 ? used - 1 : 0;
    double alpha, beta;
    ct_fabric_p2p_at(f, m, &alpha, &beta); /* the size range's Hockney alpha, beta (p2p.h) */
    /* 000/002 eq. 5, layout-aware form of alltoall.h */
    if (ct_a2a_layout_checked(cnt, l->nnodes, alpha, beta, m, sig, f->intra_bw, &t->predicted,
                              err) < 0) {
        rc = -1;
        goto out;
    }
    if (tree) { /* the uplinks: 002 eq. 7's terms per uplink, overlapped (grid_lg.h) */
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
    /* 000 Proposition 1, same layout, with the signature's per-call step
     * (alltoall.h, our extension): a fixed time per call, not contention, as
     * the exchange step is for point-to-point phases */
    ct_a2a_sig free_of_contention = {.gamma = 1.0, .delta = 0.0, .M = INFINITY, .call = sig->call};
    t->uncontended = ct_a2a_layout(cnt, l->nnodes, alpha, beta, m, &free_of_contention,
                                   f->intra_bw);
    /* the Alltoall's own intra-node term (ct_a2a_layout) has no shared rate
     * (session 55, rules-s55.txt): its reported part matches it */
    t->intra = intra_busiest_time(intra, l->nnodes, f->intra_bw, 0, 0);
out:
    free(cnt);
    free(intra);
    return rc;
}

/* A point-to-point candidate between graph building and timing. */
typedef struct p2p_work {
    ct_graph g[CT_PATTERN_MAX_PHASES]; /* one per phase (pattern.h: phased halos) */
    double intra[CT_PATTERN_MAX_PHASES]; /* s */
    int nphase;                          /* graphs built */
    double pause; /* s, the links' idle time before a step (ct_pattern.pause); < 0: unknown */
} p2p_work;

static int build_p2p(const ct_fabric *f, const ct_pattern *p, const ct_layout *l, p2p_work *w,
                     ct_err *err)
{
    double *intra = malloc((size_t)l->nnodes * sizeof *intra);
    if (!intra)
        return ct_err_set(err, "out of memory for %d nodes", (int)l->nnodes);
    int nph = ct_pattern_nphases(p);
    w->pause = p->has_pause ? p->pause : -1;
    for (int k = 0; k < nph; k++) {
        if (ct_pattern_graph_phase(p, nph > 1 ? k : -1, l, &w->g[k], intra, err) < 0) {
            free(intra);
            return -1;
        }
        w->intra[k] = intra_node_time(intra, l->nnodes, f);
        w->nphase = k + 1;
    }
    free(intra);
    return 0;
}

/* Budget of arc penalty evaluations for one candidate's progressive
 * evaluation (ct_progressive_times_ex), about 0.1 s: a GigE completion
 * re-evaluates the arcs at its source and destination nodes, so a graph
 * whose completions do not coincide (a random layout of a large job) costs
 * about sum over arcs of (arcs at src + arcs at dst) evaluations. */
#define SCORE_PROGRESSIVE_MAX_EVALS CT_PHASE_PROGRESSIVE_MAX_EVALS

/* That sum: the work if every arc completed at its own instant. */
static uint64_t progressive_work_1(const ct_graph *g, ct_err *err, int *oom)
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

/* The same over a candidate's phases. */
static uint64_t progressive_work(const p2p_work *pw, ct_err *err, int *oom)
{
    uint64_t w = 0;
    *oom = 0;
    for (int k = 0; k < pw->nphase && !*oom; k++)
        w += progressive_work_1(&pw->g[k], err, oom);
    return w;
}

/* progressive: 1 = re-apply the model as communications end (returns 1 when
 * the run-time bound, 4x the estimate's, is hit: nothing timed), 0 =
 * first-instant penalties. pause: the links' idle time before the phase
 * (phase_time.h), < 0 unknown. The time is ct_phase_time's, the placement
 * search's too; the busiest link is the scorer's report. */
static int time_p2p_phase(const ct_fabric *f, const ct_graph *g, double intra, int progressive,
                          const ct_tree_map *tree, const ct_tree_map *view, double pause,
                          timing *t, ct_err *err)
{
    int rc = ct_phase_time(f, g, intra, progressive, tree, pause, &t->predicted,
                           &t->uncontended, err);
    if (rc != 0)
        return rc;
    if (g->ncomm) {
        if (ct_links_busiest(view, g, NULL, &t->busiest, err) < 0)
            return -1;
        t->has_busiest = 1;
    }
    t->remote = ct_graph_total(g);
    t->intra = intra;
    return 0;
}

/* A candidate's phases in sequence (bulk-synchronous: a phase starts when
 * the previous one's last communication ends, pattern.h), so its times are
 * the sums of the phases' times; the busiest link is the busiest phase's.
 * One phase: time_p2p_phase as it is. Returns 1 like time_p2p_phase. */
static int time_p2p(const ct_fabric *f, const p2p_work *w, int progressive,
                    const ct_tree_map *tree, const ct_tree_map *view, timing *t, ct_err *err)
{
    timing sum = {0};
    for (int k = 0; k < w->nphase; k++) {
        timing ph = {0};
        /* the phases of a phased halo after its first follow without a pause */
        double pause = k == 0 || w->pause < 0 ? w->pause : 0;
        int rc = time_p2p_phase(f, &w->g[k], w->intra[k], progressive, tree, view, pause, &ph,
                                err);
        if (rc != 0)
            return rc;
        sum.predicted += ph.predicted;
        sum.uncontended += ph.uncontended;
        sum.intra += ph.intra;
        sum.remote += ph.remote;
        if (ph.has_busiest && (!sum.has_busiest || ph.busiest.ratio > sum.busiest.ratio)) {
            sum.has_busiest = 1;
            sum.busiest = ph.busiest;
        }
    }
    *t = sum;
    return 0;
}

static int time_trace(const ct_fabric *f, const ct_trace *tr, const ct_layout *l,
                      const ct_tree_map *tree, timing *t, ct_err *err)
{
    ct_sim_params sp;
    ct_sim_result r;
    ct_sim_params_from_fabric(f, &sp);
    sp.keep_comms = 0;
    sp.model.tree = tree; /* the engine re-applies a tree's model to everything in flight */
    if (ct_simulate(tr, l, &sp, &r, err) < 0)
        return -1;
    t->predicted = r.makespan;
    t->remote = (int64_t)r.nremote;
    ct_sim_result_free(&r);
    sp.model.kind = CT_MODEL_NONE;
    sp.model.tree = NULL;
    if (ct_simulate(tr, l, &sp, &r, err) < 0)
        return -1;
    t->uncontended = r.makespan;
    ct_sim_result_free(&r);
    t->intra = 0;
    return 0;
}

/* ---- trace patterns aggregated per phase (score.h; our extension) */

/* Per-task clocks through the phases (score.h, "aggregated"; our
 * extension, replacing the sum of each phase's longest compute): task t's
 * exchange in phase k can start at start_t = clock_t + c_{t,k}, its own
 * compute in the phase; each message (s, d) of the phase ties its two
 * ends, so a task with messages in phase k ends the phase at
 * max(start_t, start of each partner) + comm_k (the phase's network time
 * for the candidate: predicted, or uncontended for the uncontended time);
 * a task without messages just at start_t. The time is the latest clock at
 * the end. Both aggregation paths feed it the same computes (tasks in
 * ascending order, each the sum of its events in program order) and the
 * same messages, so their times stay bit-identical. Work per phase: its
 * computes and messages, not the task count. */
typedef struct task_clock {
    double clock[2]; /* [0] predicted, [1] uncontended: the task's start in the
                      * current phase (end of its last phase + its compute) */
    double ready[2]; /* with messages in phase stamp - 1: latest start among its ends */
    uint64_t stamp;  /* phase + 1 while its end (ready + that phase's comm) is
                      * not yet in clock; 0 when it is */
} task_clock;         /* 40 bytes per task: a message touches two */

typedef struct task_clocks {
    int32_t ntasks;
    task_clock *c;
    double *comm[2]; /* per phase closed: predicted, uncontended */
    uint64_t phase;  /* the current phase */
} task_clocks;

static void clk_free(task_clocks *c)
{
    free(c->c);
    free(c->comm[0]);
    free(c->comm[1]);
    memset(c, 0, sizeof *c);
}

static int clk_init(task_clocks *c, int32_t ntasks, size_t nphase)
{
    memset(c, 0, sizeof *c);
    size_t n = ntasks > 0 ? (size_t)ntasks : 1;
    c->ntasks = ntasks;
    c->c = calloc(n, sizeof *c->c);
    c->comm[0] = malloc((nphase ? nphase : 1) * sizeof *c->comm[0]);
    c->comm[1] = malloc((nphase ? nphase : 1) * sizeof *c->comm[1]);
    if (!c->c || !c->comm[0] || !c->comm[1]) {
        clk_free(c);
        return -1;
    }
    return 0;
}

/* a phase closed after the task's last messages: its end into clock (done
 * when the task is next used, so closing a phase costs nothing per task) */
static void clk_settle(const task_clocks *c, task_clock *k)
{
    if (k->stamp && k->stamp != c->phase + 1) {
        k->clock[0] = k->ready[0] + c->comm[0][k->stamp - 1];
        k->clock[1] = k->ready[1] + c->comm[1][k->stamp - 1];
        k->stamp = 0;
    }
}

/* task t computes s seconds in the current phase (before its exchange) */
static void clk_compute(task_clocks *c, int32_t t, double s)
{
    task_clock *k = &c->c[t];
    clk_settle(c, k);
    k->clock[0] += s;
    k->clock[1] += s;
}

static void clk_touch(const task_clocks *c, task_clock *k, double m0, double m1)
{
    if (k->stamp != c->phase + 1) { /* m >= the task's own start */
        k->stamp = c->phase + 1;
        k->ready[0] = m0;
        k->ready[1] = m1;
        return;
    }
    if (m0 > k->ready[0])
        k->ready[0] = m0;
    if (m1 > k->ready[1])
        k->ready[1] = m1;
}

/* a message from s to d in the current phase (after every compute of it) */
static void clk_msg(task_clocks *c, int32_t s, int32_t d)
{
    task_clock *a = &c->c[s], *b = &c->c[d];
    clk_settle(c, a);
    clk_settle(c, b);
    double m0 = a->clock[0] > b->clock[0] ? a->clock[0] : b->clock[0];
    double m1 = a->clock[1] > b->clock[1] ? a->clock[1] : b->clock[1];
    clk_touch(c, a, m0, m1);
    clk_touch(c, b, m0, m1);
}

/* the phase ends: its exchange took comm (predicted) / unc (uncontended) */
static void clk_close(task_clocks *c, double comm, double unc)
{
    c->comm[0][c->phase] = comm;
    c->comm[1][c->phase] = unc;
    c->phase++;
}

static void clk_result(task_clocks *c, double *pred, double *unc)
{
    double a = 0, b = 0;
    for (int32_t t = 0; t < c->ntasks; t++) {
        task_clock *k = &c->c[t];
        clk_settle(c, k);
        if (k->clock[0] > a)
            a = k->clock[0];
        if (k->clock[1] > b)
            b = k->clock[1];
    }
    *pred = a;
    *unc = b;
}

/* The layout-independent part: every communication's phase (its sender's
 * phase when it is posted), each phase's longest compute and each task's
 * own compute in it (sparse, tasks ascending). */
typedef struct phase_work {
    int32_t *task;
    double *sec;
    size_t n, cap;
} phase_work;

typedef struct phased_trace {
    int32_t *phase_of; /* per communication */
    double *compute;   /* per phase, s */
    phase_work *work;  /* per phase */
    size_t nphase, cap;
    size_t *first;     /* communications of phase k: order[first[k] .. first[k+1]) */
    size_t *order;
} phased_trace;

static void phased_trace_free(phased_trace *pt)
{
    free(pt->phase_of);
    for (size_t k = 0; pt->work && k < pt->cap; k++) {
        free(pt->work[k].task);
        free(pt->work[k].sec);
    }
    free(pt->work);
    free(pt->compute);
    free(pt->first);
    free(pt->order);
    memset(pt, 0, sizeof *pt);
}

static int phase_close(phased_trace *pt, size_t ph, int32_t t, double c)
{
    if (ph >= pt->cap) {
        size_t cap = pt->cap ? 2 * pt->cap : 64;
        while (cap <= ph)
            cap *= 2;
        double *n = realloc(pt->compute, cap * sizeof *n);
        if (!n)
            return -1;
        memset(n + pt->cap, 0, (cap - pt->cap) * sizeof *n);
        pt->compute = n;
        phase_work *w = realloc(pt->work, cap * sizeof *w);
        if (!w)
            return -1;
        memset(w + pt->cap, 0, (cap - pt->cap) * sizeof *w);
        pt->work = w;
        pt->cap = cap;
    }
    if (c > pt->compute[ph])
        pt->compute[ph] = c;
    if (c > 0) {
        phase_work *w = &pt->work[ph];
        if (w->n == w->cap) {
            size_t cap = w->cap ? 2 * w->cap : 4;
            int32_t *nt = realloc(w->task, cap * sizeof *nt);
            if (!nt)
                return -1;
            w->task = nt;
            double *ns = realloc(w->sec, cap * sizeof *ns);
            if (!ns)
                return -1;
            w->sec = ns;
            w->cap = cap;
        }
        w->task[w->n] = t;
        w->sec[w->n++] = c;
    }
    if (ph + 1 > pt->nphase)
        pt->nphase = ph + 1;
    return 0;
}

static int trace_phases(const ct_trace *tr, phased_trace *pt, ct_err *err)
{
    memset(pt, 0, sizeof *pt);
    size_t nc = tr->ncomm ? tr->ncomm : 1;
    pt->phase_of = malloc(nc * sizeof *pt->phase_of);
    pt->order = malloc(nc * sizeof *pt->order);
    if (!pt->phase_of || !pt->order)
        goto oom;
    for (int32_t t = 0; t < tr->ntasks; t++) {
        size_t ph = 0;
        double c = 0;
        for (size_t i = tr->task_first[t]; i < tr->task_first[t + 1]; i++) {
            const ct_event *e = &tr->ev[i];
            int close = 0;
            switch (e->kind) {
            case CT_EV_COMPUTE:
                c += e->value;
                break;
            case CT_EV_SEND: /* blocking: the phase ends with it */
                pt->phase_of[e->comm] = ph > INT32_MAX ? INT32_MAX : (int32_t)ph;
                close = 1;
                break;
            case CT_EV_ISEND: /* its phase exists even if nothing closes it */
                pt->phase_of[e->comm] = ph > INT32_MAX ? INT32_MAX : (int32_t)ph;
                if (phase_close(pt, ph, t, 0) < 0)
                    goto oom;
                break;
            case CT_EV_RECV:
            case CT_EV_WAITALL:
                close = 1;
                break;
            default:
                break;
            }
            if (close) {
                if (phase_close(pt, ph, t, c) < 0)
                    goto oom;
                ph++;
                c = 0;
            }
        }
        if ((ph == 0 || c > 0) && phase_close(pt, ph, t, c) < 0) /* a trailing compute */
            goto oom;
    }
    /* communications grouped by phase (counting sort) */
    pt->first = calloc(pt->nphase + 1, sizeof *pt->first);
    if (!pt->first)
        goto oom;
    for (size_t c = 0; c < tr->ncomm; c++)
        pt->first[pt->phase_of[c] + 1]++;
    for (size_t k = 0; k < pt->nphase; k++)
        pt->first[k + 1] += pt->first[k];
    for (size_t c = 0; c < tr->ncomm; c++)
        pt->order[pt->first[pt->phase_of[c]]++] = c;
    for (size_t k = pt->nphase; k > 0; k--)
        pt->first[k] = pt->first[k - 1];
    pt->first[0] = 0;
    return 0;
oom:
    phased_trace_free(pt);
    return ct_err_set(err, "out of memory aggregating a trace of %zu communications", tr->ncomm);
}

/* a node pair's messages of one size: count of them (time_phases sums
 * them in a hash table; time_trace_phased has one per message, count 1) */
typedef struct arc_acc {
    int32_t src, dst;
    double bytes;
    int64_t count;
    size_t slot; /* in time_phases' hash table, to clear it */
} arc_acc;

static int cmp_arc_bytes(const void *pa, const void *pb)
{
    const arc_acc *a = pa, *b = pb;
    return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

/* a[0..n) sorted by (src, dst, bytes): two counting passes over the nodes
 * (dst, then src, stable), then each (src, dst) run by bytes; cnt has
 * nnodes + 1 entries, tmp n. Linear but for runs of mixed sizes. */
static void sort_arcs(arc_acc *a, arc_acc *tmp, size_t n, size_t *cnt, int32_t nnodes)
{
    for (int pass = 0; pass < 2; pass++) {
        arc_acc *from = pass ? tmp : a, *to = pass ? a : tmp;
        memset(cnt, 0, ((size_t)nnodes + 1) * sizeof *cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(pass ? from[i].src : from[i].dst) + 1]++;
        for (int32_t k = 0; k < nnodes; k++)
            cnt[k + 1] += cnt[k];
        for (size_t i = 0; i < n; i++)
            to[cnt[pass ? from[i].src : from[i].dst]++] = from[i];
    }
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && a[j].src == a[i].src && a[j].dst == a[i].dst)
            j++;
        if (j - i > 1)
            qsort(a + i, j - i, sizeof *a, cmp_arc_bytes);
        i = j;
    }
}

static int cmp_arc_key(const void *pa, const void *pb)
{
    const arc_acc *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

/* The links' idle time before each phase of an aggregated trace (our
 * extension, session 33; doc/simulator.md "Steps"): a task's compute since
 * its last phase with messages between nodes, infinite before its first;
 * a phase's pause is the least over the tasks at either end of its network
 * messages, the bucket's refill (phase_time.c) then priced as the replay
 * prices it. Kept only on a fabric with a bucket (else the pause is -1,
 * unknown, and nothing changes). */
typedef struct task_idle {
    double *acc;          /* per task: compute since its last network phase */
    unsigned char *seen;  /* per task: it had one */
    int32_t *used;        /* the tasks at the ends of this phase's network messages */
    size_t nused, cap;
    double pause;         /* this phase's, INFINITY until a message lowers it */
} task_idle;

static int idle_init(task_idle *w, const ct_fabric *f, int32_t ntasks)
{
    memset(w, 0, sizeof *w);
    if (!(f->bucket > 0) || !(f->bucket_pause > 0))
        return 0; /* no refill term: acc stays NULL, pauses -1 */
    size_t n = ntasks > 0 ? (size_t)ntasks : 1;
    w->acc = calloc(n, sizeof *w->acc);
    w->seen = calloc(n, 1);
    w->pause = INFINITY;
    return w->acc && w->seen ? 0 : -1;
}

static void idle_free(task_idle *w)
{
    free(w->acc);
    free(w->seen);
    free(w->used);
    memset(w, 0, sizeof *w);
}

static inline void idle_compute(task_idle *w, int32_t t, double s)
{
    if (w->acc)
        w->acc[t] += s;
}

/* a message between nodes from task a to task b in this phase */
static int idle_msg(task_idle *w, int32_t a, int32_t b)
{
    if (!w->acc)
        return 0;
    if (w->nused + 2 > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        int32_t *u = realloc(w->used, cap * sizeof *u);
        if (!u)
            return -1;
        w->used = u;
        w->cap = cap;
    }
    int32_t e[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        double p = w->seen[e[i]] ? w->acc[e[i]] : INFINITY;
        if (p < w->pause)
            w->pause = p;
        w->used[w->nused++] = e[i];
    }
    return 0;
}

/* this phase's pause (-1: no refill term, or no network message) */
static double idle_pause(const task_idle *w)
{
    return w->acc && w->nused ? w->pause : -1;
}

/* the phase is priced: its network tasks' links were just busy */
static void idle_close(task_idle *w)
{
    for (size_t i = 0; i < w->nused; i++) {
        w->acc[w->used[i]] = 0;
        w->seen[w->used[i]] = 1;
    }
    w->nused = 0;
    w->pause = INFINITY;
}

static int time_p2p_phase(const ct_fabric *f, const ct_graph *g, double intra, int progressive,
                          const ct_tree_map *tree, const ct_tree_map *view, double pause,
                          timing *t, ct_err *err);
static uint64_t progressive_work_1(const ct_graph *g, ct_err *err, int *oom);

/* One candidate of an aggregated trace: its phases in sequence. The
 * progressive evaluation is used for a phase while the candidate's budget
 * of penalty evaluations lasts (models with incremental hooks; the others
 * while the phase has <= CT_SCORE_PROGRESSIVE_MAX_ARCS arcs), static
 * penalties after; *static_phases counts the phases timed statically. */
static int time_trace_phased(const ct_fabric *f, const ct_trace *tr, const phased_trace *pt,
                             const ct_trace_phases *tp, const ct_layout *l,
                             const ct_tree_map *tree, const ct_tree_map *view, timing *t,
                             size_t *static_phases, ct_err *err)
{
    /* the phases: pt (cut from the expanded trace tr) or tp (built with
     * collectives as one phase each) */
    timing sum = {0};
    int rc = 0;
    size_t most = 1, nphase = tp ? tp->nphase : pt->nphase;
    for (size_t k = 0; k < nphase; k++) {
        size_t n = tp ? tp->ph[k].n : pt->first[k + 1] - pt->first[k];
        if (n > most)
            most = n;
    }
    arc_acc *m = malloc(most * sizeof *m), *tmp = malloc(most * sizeof *tmp);
    size_t *cnt = malloc(((size_t)l->nnodes + 1) * sizeof *cnt);
    double *intra = malloc((size_t)l->nnodes * sizeof *intra);
    task_clocks clk;
    int have_clk = clk_init(&clk, l->ntasks, nphase) == 0;
    task_idle idle;
    int have_idle = idle_init(&idle, f, l->ntasks) == 0;
    if (!m || !tmp || !cnt || !intra || !have_clk || !have_idle) {
        rc = ct_err_set(err, "out of memory for %zu messages", most);
        goto out;
    }
    const ct_model_info *minfo = ct_model_info_of(f->penalty.kind);
    int incremental = minfo && minfo->incremental;
    uint64_t budget = 4 * (uint64_t)1000000;
    *static_phases = 0;
    for (size_t k = 0; k < nphase && rc == 0; k++) {
        size_t nm = 0;
        for (int32_t i = 0; i < l->nnodes; i++)
            intra[i] = 0;
        size_t n = tp ? tp->ph[k].n : pt->first[k + 1] - pt->first[k];
        /* the tasks' computes in this phase, before its messages */
        size_t nc = tp ? tp->ph[k].nc : pt->work[k].n;
        for (size_t j = 0; j < nc; j++) {
            int32_t t = tp ? tp->ph[k].ctask[j] : pt->work[k].task[j];
            double sec = tp ? tp->ph[k].csec[j] : pt->work[k].sec[j];
            clk_compute(&clk, t, sec);
            idle_compute(&idle, t, sec);
        }
        for (size_t j = 0; j < n; j++) {
            int32_t src, dst;
            double bytes;
            if (tp) {
                src = tp->ph[k].msg[j].src;
                dst = tp->ph[k].msg[j].dst;
                bytes = tp->ph[k].msg[j].bytes;
            } else {
                size_t c = pt->order[pt->first[k] + j];
                const ct_event *e = ct_trace_comm_event(tr, c);
                src = tr->comm_src[c];
                dst = e->peer;
                bytes = e->value;
            }
            clk_msg(&clk, src, dst);
            int32_t s = l->node_of[src], d = l->node_of[dst];
            if (s == d)
                intra[s] += bytes;
            else if (idle_msg(&idle, src, dst) < 0) {
                rc = ct_err_set(err, "out of memory for %zu messages", most);
                goto out;
            } else
                m[nm++] = (arc_acc){.src = s, .dst = d, .bytes = bytes, .count = 1};
        }
        sort_arcs(m, tmp, nm, cnt, l->nnodes);
        ct_graph g;
        if ((rc = ct_graph_init(&g, l->nnodes, err)) < 0)
            break;
        for (size_t j = 0; j < nm && rc == 0;) {
            size_t j2 = j + 1;
            while (j2 < nm && cmp_arc_key(&m[j], &m[j2]) == 0)
                j2++;
            rc = ct_graph_add(&g, m[j].src, m[j].dst, (int64_t)(j2 - j), m[j].bytes, err);
            j = j2;
        }
        if (rc == 0) {
            int oom = 0;
            uint64_t w = incremental ? progressive_work_1(&g, err, &oom) : 0;
            int prog = incremental ? w <= budget : g.ncomm <= CT_SCORE_PROGRESSIVE_MAX_ARCS;
            if (oom)
                rc = -1;
            if (prog && incremental)
                budget -= w;
            timing ph = {0};
            double itime = intra_node_time(intra, l->nnodes, f);
            double pause = idle_pause(&idle);
            if (rc == 0) {
                rc = time_p2p_phase(f, &g, itime, prog, tree, view, pause, &ph, err);
                if (rc == 1) { /* the run-time bound: this phase statically */
                    prog = 0;
                    ph = (timing){0};
                    rc = time_p2p_phase(f, &g, itime, 0, tree, view, pause, &ph, err);
                }
            }
            idle_close(&idle);
            if (rc == 0) {
                *static_phases += !prog && g.ncomm;
                clk_close(&clk, ph.predicted, ph.uncontended);
                sum.intra += ph.intra;
                sum.remote += ph.remote;
                if (ph.has_busiest && (!sum.has_busiest || ph.busiest.ratio > sum.busiest.ratio)) {
                    sum.has_busiest = 1;
                    sum.busiest = ph.busiest;
                }
            }
        }
        ct_graph_free(&g);
    }
    if (rc == 0) {
        clk_result(&clk, &sum.predicted, &sum.uncontended);
        *t = sum;
    }
out:
    if (have_clk)
        clk_free(&clk);
    idle_free(&idle);
    free(m);
    free(tmp);
    free(cnt);
    free(intra);
    return rc < 0 ? -1 : 0;
}

/* The same from phases built without expanding the trace
 * (ct_trace_phases_build): each phase's messages accumulated into node-pair
 * arcs through a hash table (one pass, no sort of the messages), the arcs
 * then sorted as the messages were above, so that the graphs, the intra-node
 * sums (messages in the same order) and hence the times are those of
 * time_trace_phased bit for bit. */

typedef struct arc_tab {
    uint32_t *slot; /* arc index + 1, 0 = empty */
    size_t cap;     /* power of two */
    arc_acc *arc, *tmp;
    size_t n, acap;
} arc_tab;

static size_t arc_hash(int32_t s, int32_t d, double b)
{
    uint64_t bits;
    memcpy(&bits, &b, sizeof bits);
    uint64_t h = ((uint64_t)(uint32_t)s << 32 | (uint32_t)d) * 0x9E3779B97F4A7C15ull;
    h ^= bits * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ h >> 29);
}

static int arc_tab_grow(arc_tab *t)
{
    size_t cap = t->cap ? 2 * t->cap : 1024;
    uint32_t *sl = calloc(cap, sizeof *sl);
    if (!sl)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        arc_acc *a = &t->arc[i];
        size_t h = arc_hash(a->src, a->dst, a->bytes) & (cap - 1);
        while (sl[h])
            h = (h + 1) & (cap - 1);
        sl[h] = (uint32_t)(i + 1);
        a->slot = h;
    }
    free(t->slot);
    t->slot = sl;
    t->cap = cap;
    return 0;
}

static int arc_tab_add(arc_tab *t, int32_t s, int32_t d, double b)
{
    b += 0.0; /* -0 and 0 are one size (the sort above compares them equal) */
    if (2 * (t->n + 1) > t->cap && (t->n + 1 >= UINT32_MAX || arc_tab_grow(t) < 0))
        return -1;
    size_t h = arc_hash(s, d, b) & (t->cap - 1);
    for (uint32_t k; (k = t->slot[h]); h = (h + 1) & (t->cap - 1)) {
        arc_acc *a = &t->arc[k - 1];
        if (a->src == s && a->dst == d && a->bytes == b) {
            a->count++;
            return 0;
        }
    }
    if (t->n == t->acap) {
        size_t cap = t->acap;
        if (grow_array((void **)&t->arc, &cap, t->n + 1, sizeof *t->arc, 1024) < 0)
            return -1;
        cap = t->acap;
        if (grow_array((void **)&t->tmp, &cap, t->n + 1, sizeof *t->tmp, 1024) < 0)
            return -1;
        t->acap = cap;
    }
    t->arc[t->n] = (arc_acc){.src = s, .dst = d, .bytes = b, .count = 1, .slot = h};
    t->slot[h] = (uint32_t)(++t->n);
    return 0;
}

static void arc_tab_clear(arc_tab *t)
{
    for (size_t i = 0; i < t->n; i++)
        t->slot[t->arc[i].slot] = 0;
    t->n = 0;
}

static int time_phases(const ct_fabric *f, const ct_trace_phases *tp, const ct_layout *l,
                       const ct_tree_map *tree, const ct_tree_map *view, timing *t,
                       size_t *static_phases, ct_err *err)
{
    timing sum = {0};
    int rc = 0;
    arc_tab tab = {0};
    size_t *cnt = malloc(((size_t)l->nnodes + 1) * sizeof *cnt);
    double *intra = malloc((size_t)l->nnodes * sizeof *intra);
    task_clocks clk;
    int have_clk = clk_init(&clk, l->ntasks, tp->nphase) == 0;
    task_idle idle;
    int have_idle = idle_init(&idle, f, l->ntasks) == 0;
    if (!cnt || !intra || !have_clk || !have_idle || arc_tab_grow(&tab) < 0) {
        rc = ct_err_set(err, "out of memory for %d nodes", (int)l->nnodes);
        goto out;
    }
    const ct_model_info *minfo = ct_model_info_of(f->penalty.kind);
    int incremental = minfo && minfo->incremental;
    uint64_t budget = 4 * (uint64_t)1000000; /* as time_trace_phased */
    *static_phases = 0;
    for (size_t k = 0; k < tp->nphase && rc == 0; k++) {
        const ct_trace_phase *ph = &tp->ph[k];
        for (int32_t i = 0; i < l->nnodes; i++)
            intra[i] = 0;
        arc_tab_clear(&tab);
        /* the clocks' starts in this pass over the messages (one read of
         * them: 22 MB in a 1,024 x 64 recording) */
        for (size_t j = 0; j < ph->nc; j++) {
            clk_compute(&clk, ph->ctask[j], ph->csec[j]);
            idle_compute(&idle, ph->ctask[j], ph->csec[j]);
        }
        for (size_t j = 0; j < ph->n; j++) {
            const ct_phase_msg *m = &ph->msg[j];
            clk_msg(&clk, m->src, m->dst);
            int32_t s = l->node_of[m->src], d = l->node_of[m->dst];
            if (s == d)
                intra[s] += m->bytes;
            else if (idle_msg(&idle, m->src, m->dst) < 0 || arc_tab_add(&tab, s, d, m->bytes) < 0) {
                rc = ct_err_set(err, "out of memory for %zu node pairs", tab.n);
                goto out;
            }
        }
        sort_arcs(tab.arc, tab.tmp, tab.n, cnt, l->nnodes);
        ct_graph g;
        if ((rc = ct_graph_init(&g, l->nnodes, err)) < 0)
            break;
        for (size_t j = 0; j < tab.n && rc == 0; j++)
            rc = ct_graph_add(&g, tab.arc[j].src, tab.arc[j].dst, tab.arc[j].count,
                              tab.arc[j].bytes, err);
        if (rc == 0) {
            int oom = 0;
            uint64_t w = incremental ? progressive_work_1(&g, err, &oom) : 0;
            int prog = incremental ? w <= budget : g.ncomm <= CT_SCORE_PROGRESSIVE_MAX_ARCS;
            if (oom)
                rc = -1;
            if (prog && incremental)
                budget -= w;
            timing pt = {0};
            double itime = intra_node_time(intra, l->nnodes, f);
            double pause = idle_pause(&idle);
            if (rc == 0) {
                rc = time_p2p_phase(f, &g, itime, prog, tree, view, pause, &pt, err);
                if (rc == 1) { /* the run-time bound: this phase statically */
                    prog = 0;
                    pt = (timing){0};
                    rc = time_p2p_phase(f, &g, itime, 0, tree, view, pause, &pt, err);
                }
            }
            idle_close(&idle);
            if (rc == 0) {
                *static_phases += !prog && g.ncomm;
                clk_close(&clk, pt.predicted, pt.uncontended);
                sum.intra += pt.intra;
                sum.remote += pt.remote;
                if (pt.has_busiest && (!sum.has_busiest || pt.busiest.ratio > sum.busiest.ratio)) {
                    sum.has_busiest = 1;
                    sum.busiest = pt.busiest;
                }
            }
        }
        ct_graph_free(&g);
    }
    if (rc == 0) {
        clk_result(&clk, &sum.predicted, &sum.uncontended);
        *t = sum;
    }
out:
    if (have_clk)
        clk_free(&clk);
    idle_free(&idle);
    free(tab.slot);
    free(tab.arc);
    free(tab.tmp);
    free(cnt);
    free(intra);
    return rc < 0 ? -1 : 0;
}

static void note_add(ct_score_result *out, const char *s)
{
    size_t len = strlen(out->note);
    snprintf(out->note + len, sizeof out->note - len, "%s%s", len ? "; " : "", s);
}

/* One candidate distribution (Slurm -m) and everything ct_score learns
 * about it. */
typedef struct cand {
    ct_dist d;
    int32_t plane;
    p2p_work work; /* point-to-point patterns: the graph between building and timing */
    timing tm;
} cand;

typedef struct score_ctx {
    const ct_fabric *fabric;
    const ct_score_request *req;
    const ct_trace *trp; /* trace patterns: req->trace or tr, replayed per candidate */
    ct_trace raw;        /* the trace read here (have_raw) */
    int have_raw;
    ct_trace tr;         /* its collectives expanded here for a replay (have_trace) */
    int have_trace;
    int have_phases;
    phased_trace pt; /* reference path: the expanded trace cut into phases */
    ct_trace_phases tp; /* a trace past req->replay_max_events: aggregated (score.h) */
    int aggregated;
    uint64_t trace_events; /* events of the trace, collectives expanded */
    int reference; /* score_reference: expand, then aggregate as before phases */
    size_t static_phases; /* phases timed with static penalties, all candidates */
    int32_t ntasks, cpt;
    ct_a2a_sig sig;
    cand c[4];
    size_t nc;
    ct_tree_map flat;          /* one switch, when the request has no tree */
    const ct_tree_map *view;   /* the links the busiest-link report looks at */
    size_t max_arcs;           /* largest point-to-point graph */
} score_ctx;

static const char *cand_label(const cand *c, char *buf, size_t sz)
{
    return ct_dist_label(c->d, c->plane, buf, sz);
}

static const char *given_name(const ct_score_request *req)
{
    return req->given_name && req->given_name[0] ? req->given_name : "given";
}

/* A candidate's name in messages: the given layout goes by its own. */
static const char *cand_name(const score_ctx *x, const cand *c, char *buf, size_t sz)
{
    if (c->d == CT_DIST_EXPLICIT) {
        snprintf(buf, sz, "%s", given_name(x->req));
        return buf;
    }
    return cand_label(c, buf, sz);
}

static int check_request(const ct_fabric *fabric, const ct_score_request *req, ct_err *err)
{
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
    return 0;
}

/* The trace (trace patterns) and the task count: the request's, the
 * trace's, or every slot of the allocation. */
static int resolve_tasks(score_ctx *x, ct_err *err)
{
    const ct_pattern *p = &x->req->pattern;
    x->ntasks = x->req->ntasks;
    if (p->kind == CT_PAT_TRACE) {
        /* collectives expanded by the algorithms the fabric's models select
         * (collective.h), within the event bound of pattern.trace_limits */
        ct_coll_params cp;
        ct_coll_params_from_fabric(x->fabric, &cp);
        if (p->trace_limits.max_events &&
            (!cp.max_events || cp.max_events > (uint64_t)p->trace_limits.max_events))
            cp.max_events = p->trace_limits.max_events;
        if (x->req->trace) {
            x->trp = x->req->trace;
        } else {
            if (ct_trace_load_bounded(p->trace, &p->trace_limits, &x->raw, err) < 0)
                return -1;
            x->have_raw = 1;
            x->trp = &x->raw;
        }
        int64_t bound = x->req->replay_max_events ? x->req->replay_max_events
                                                  : CT_SCORE_REPLAY_MAX_EVENTS;
        if (x->reference) { /* expanded first, then cut (score_ref.h) */
            const ct_trace *in = x->trp;
            if (x->trp->ncoll) {
                if (ct_trace_expand(x->trp, &cp, &x->tr, NULL, err) < 0)
                    return -1;
                x->have_trace = 1;
                x->trp = &x->tr;
            }
            x->trace_events = x->trp->nevents;
            if (bound > 0 && x->trp->nevents > (uint64_t)bound) {
                if (in->ncoll) {
                    /* a collective call is one phase (collective.h
                     * coll_phase), which the expanded trace no longer
                     * shows: cut by ct_trace_phases_build, timed below
                     * with the sort of the messages */
                    cp.coll_phase = 1;
                    if (ct_trace_phases_build(in, &cp, &x->tp, NULL, err) < 0)
                        return -1;
                    x->have_phases = 1;
                } else if (trace_phases(x->trp, &x->pt, err) < 0) {
                    return -1;
                }
                x->aggregated = 1;
            }
        } else {
            /* the phases, collectives expanded on the fly: the expanded
             * trace's event count at no more cost than counting, and the
             * aggregation's input without building 10-50x the events */
            x->trace_events = x->trp->nevents;
            if (x->trp->ncoll || (bound > 0 && x->trp->nevents > (uint64_t)bound)) {
                cp.coll_phase = 1; /* a collective call, one phase (collective.h) */
                if (ct_trace_phases_build(x->trp, &cp, &x->tp, NULL, err) < 0)
                    return -1;
                x->have_phases = 1;
                x->trace_events = x->tp.events;
            }
            if (bound > 0 && x->trace_events > (uint64_t)bound) {
                x->aggregated = 1;
            } else {
                ct_trace_phases_free(&x->tp);
                x->have_phases = 0;
                if (x->trp->ncoll) { /* replayed: the expanded trace */
                    if (ct_trace_expand(x->trp, &cp, &x->tr, NULL, err) < 0)
                        return -1;
                    x->have_trace = 1;
                    x->trp = &x->tr;
                }
            }
        }
        if (x->ntasks <= 0)
            x->ntasks = x->trp->ntasks;
        else if (x->ntasks != x->trp->ntasks)
            return ct_err_set(err, "%s: trace has %d tasks but the job runs %d (they must match)",
                              p->trace, (int)x->trp->ntasks, (int)x->ntasks);
    }
    if (x->ntasks <= 0) {
        int64_t slots = ct_alloc_slots(x->req->alloc, x->cpt);
        x->ntasks = slots > INT32_MAX ? INT32_MAX : (int32_t)slots;
    }
    return 0;
}

/* out->fabric, out->model and the notes on what the fabric lacks. */
static void describe_model(score_ctx *x, ct_score_result *out)
{
    const ct_fabric *fabric = x->fabric;
    const ct_pattern *p = &x->req->pattern;
    snprintf(out->fabric, sizeof out->fabric, "%s", fabric->name);
    x->sig = fabric->alltoall;
    if (p->kind == CT_PAT_ALLTOALL) {
        snprintf(out->model, sizeof out->model, "alltoall-signature");
        if (!fabric->has_alltoall) {
            x->sig = (ct_a2a_sig){.gamma = 1, .delta = 0, .M = 0};
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
}

/* block and cyclic always, then plane and random when asked; the given
 * layout last (priced like them, reported apart: rank). */
static void list_candidates(score_ctx *x)
{
    const ct_score_request *req = x->req;
    x->nc = 0;
    x->c[x->nc++] = (cand){.d = CT_DIST_BLOCK};
    x->c[x->nc++] = (cand){.d = CT_DIST_CYCLIC};
    if (req->include_plane)
        x->c[x->nc++] = (cand){.d = CT_DIST_PLANE, .plane = req->plane_size};
    if (req->include_random)
        x->c[x->nc++] = (cand){.d = CT_DIST_RANDOM};
    if (req->given)
        x->c[x->nc++] = (cand){.d = CT_DIST_EXPLICIT};
}

/* The request's given layout, checked against the job, into *l. */
static int given_layout(const score_ctx *x, ct_layout *l, ct_err *err)
{
    const ct_score_request *req = x->req;
    const ct_layout *g = req->given;
    const char *name = given_name(req);
    const int32_t nnodes = req->alloc->nnodes;
    if (g->ntasks != x->ntasks)
        return ct_err_set(err, "%s: %d tasks, but the job runs %d (they must match)", name,
                          (int)g->ntasks, (int)x->ntasks);
    if (g->nnodes != nnodes)
        return ct_err_set(err, "%s: a layout over %d nodes for an allocation of %d nodes", name,
                          (int)g->nnodes, (int)nnodes);
    if (ct_layout_explicit(nnodes, g->ntasks, g->node_of, l, err) < 0) /* tasks on its nodes */
        return ct_err_prefix(err, "%s: ", name);
    int32_t *count = malloc((size_t)nnodes * sizeof *count);
    if (!count) {
        ct_layout_free(l);
        return ct_err_set(err, "%s: out of memory", name);
    }
    ct_layout_counts(l, count);
    int rc = 0;
    for (int32_t k = 0; k < nnodes && rc == 0; k++) {
        int32_t slots = ct_alloc_node_slots(req->alloc, k, x->cpt);
        if (count[k] > slots)
            rc = ct_err_set(err,
                            "%s: more than %d tasks on node %d (%d CPUs at %d per task; Slurm "
                            "would need --overcommit)",
                            name, (int)slots, (int)k, (int)req->alloc->cpus[k], (int)x->cpt);
    }
    free(count);
    if (rc < 0)
        ct_layout_free(l);
    return rc;
}

/* The links the busiest-link report looks at: the tree, or one switch. */
static int link_view(score_ctx *x, ct_err *err)
{
    const ct_score_request *req = x->req;
    x->view = req->tree;
    if (req->tree && req->tree->nnodes != req->alloc->nnodes)
        return ct_err_set(err,
                          "switch tree over %d nodes for an allocation of %d nodes (accepted: "
                          "the allocation's nodes)",
                          (int)req->tree->nnodes, (int)req->alloc->nnodes);
    if (!x->view) {
        if (ct_tree_map_flat(req->alloc->nnodes, &x->flat, err) < 0)
            return -1;
        x->view = &x->flat;
    }
    return 0;
}

/* Alltoall: a note when a candidate's busiest NIC has more peer nodes or
 * remote flows than the signature's incast terms were fitted on (alltoall.h:
 * they are held there), so a user sees that the prediction extrapolates. */
static void note_beyond_fit(const score_ctx *x, ct_score_result *out)
{
    const ct_a2a_sig *s = &x->sig;
    /* kl: the largest k >= 3 at which a candidate pays the incast-loss term
     * (alltoall.h), read at calibrate's 3-node step, two sending nodes a
     * port; at k >= 3 its share 2 (k - 1) / k is the model's, not a
     * measurement's (doc/accuracy-notes.md, session 26: the kept 4 x 4
     * points, k = 3 with 48 flows a port, moved 9.9 % median in prediction
     * between two runs of one network, the others 0.7-1.7 %) */
    double k = 0, f = 0, kl = 0;
    for (size_t i = 0; i < x->nc; i++) {
        const timing *t = &x->c[i].tm;
        k = fmax(k, t->k);
        f = fmax(f, t->f);
        if (s->gamma_loss > 0 && t->k > 2 && ct_a2a_loss_share(s, t->k, t->f) > 0)
            kl = fmax(kl, t->k);
    }
    /* the incast intercept (alltoall.h, session 69) is held at k_max too */
    int over_k = (s->gamma_incast > 0 || s->call_incast > 0) && s->k_max > 0 && k > s->k_max;
    int over_f = s->gamma_flows > 0 && s->f_max > 0 && f > s->f_max;
    if (kl > 0) {
        char lm[160];
        snprintf(lm, sizeof lm,
                 "incast-loss term measured with 2 sending nodes, carried to %.6g by 2(k-1)/k: "
                 "the prediction extrapolates",
                 kl);
        note_add(out, lm);
    }
    if (!over_k && !over_f)
        return;
    char msg[200], ks[64] = "", fs[64] = "";
    if (over_k)
        snprintf(ks, sizeof ks, "%.6g peer nodes, fitted up to %.6g", k, s->k_max);
    if (over_f)
        snprintf(fs, sizeof fs, "%.6g remote flows a NIC, fitted up to %.6g", f, s->f_max);
    snprintf(msg, sizeof msg,
             "beyond the Alltoall signature's fit (%s%s%s): its incast terms held there, the "
             "prediction extrapolates",
             ks, over_k && over_f ? "; " : "", fs);
    note_add(out, msg);
}

/* Point-to-point patterns under the duplex model: the same note as
 * note_beyond_fit when a candidate has a NIC whose incast degree (the k the
 * model prices, penalty_duplex.c) is past the one its incast term ε was
 * fitted on (duplex_incast_max_k: held there), or whose remote flows are
 * past the ones its flows term φ was fitted on (duplex_flows_max_f). */
static void note_duplex_beyond_fit(const score_ctx *x, ct_score_result *out)
{
    const ct_penalty_model *pm = &x->fabric->penalty;
    if (pm->kind != CT_MODEL_DUPLEX)
        return;
    const double kmax = pm->real[CT_DUPLEX_INCAST_MAX_K], fmx = pm->real[CT_DUPLEX_FLOWS_MAX_F];
    const int want_k = pm->real[CT_DUPLEX_INCAST] > 0 && kmax > 0;
    const int want_f = pm->real[CT_DUPLEX_FLOWS] > 0 && fmx > 0;
    if (!want_k && !want_f)
        return;
    double k = 0, f = 0;
    for (size_t i = 0; i < x->nc; i++)
        for (int ph = 0; ph < x->c[i].work.nphase; ph++) {
            double v = 0;
            /* out of memory: no note, the timing says why */
            if (want_k && ct_duplex_incast_degree_max(&x->c[i].work.g[ph], &v, NULL) == 0)
                k = fmax(k, v);
            if (want_f && ct_duplex_flows_max(&x->c[i].work.g[ph], &v, NULL) == 0)
                f = fmax(f, v);
        }
    const int over_k = want_k && k > kmax, over_f = want_f && f > fmx;
    if (!over_k && !over_f)
        return;
    char msg[240], ks[64] = "", fs[64] = "";
    if (over_k)
        snprintf(ks, sizeof ks, "a NIC with %.6g peer nodes, fitted up to %.6g", k, kmax);
    if (over_f)
        snprintf(fs, sizeof fs, "a NIC with %.6g remote flows, fitted up to %.6g", f, fmx);
    snprintf(msg, sizeof msg,
             "beyond the duplex model's fit (%s%s%s): its %s held there, the prediction "
             "extrapolates",
             ks, over_k && over_f ? "; " : "", fs,
             over_k && over_f ? "incast and flows terms"
             : over_k         ? "incast term"
                              : "flows term");
    note_add(out, msg);
}

/* Each candidate's layout; Alltoall and trace patterns are timed at once,
 * point-to-point ones get their graph (timed by time_p2p_all). */
static int build_candidates(score_ctx *x, ct_err *err)
{
    const ct_score_request *req = x->req;
    const ct_pattern *p = &req->pattern;
    for (size_t i = 0; i < x->nc; i++) {
        cand *c = &x->c[i];
        ct_layout l;
        const ct_step_rules rules = {.slurm_version = req->slurm_version, .first_node = -1};
        int rc = c->d == CT_DIST_EXPLICIT
                     ? given_layout(x, &l, err)
                     : ct_layout_build_step(req->alloc, x->ntasks, x->cpt, c->d, c->plane,
                                            req->seed, &rules, &l, NULL, err);
        if (rc < 0)
            return -1;
        if (p->kind == CT_PAT_ALLTOALL)
            rc = time_alltoall(x->fabric, &x->sig, p->bytes, &l, req->tree, x->view, &c->tm, err);
        else if (p->kind == CT_PAT_TRACE && x->aggregated) {
            size_t sp = 0;
            if (x->reference)
                rc = time_trace_phased(x->fabric, x->trp, x->have_phases ? NULL : &x->pt,
                                       x->have_phases ? &x->tp : NULL, &l, req->tree, x->view,
                                       &c->tm, &sp, err);
            else
                rc = time_phases(x->fabric, &x->tp, &l, req->tree, x->view, &c->tm, &sp, err);
            x->static_phases += sp;
        } else if (p->kind == CT_PAT_TRACE)
            rc = time_trace(x->fabric, x->trp, &l, req->tree, &c->tm, err);
        else if ((rc = build_p2p(x->fabric, p, &l, &c->work, err)) == 0)
            for (int k = 0; k < c->work.nphase; k++)
                if (c->work.g[k].ncomm > x->max_arcs)
                    x->max_arcs = c->work.g[k].ncomm;
        ct_layout_free(&l);
        if (rc < 0) {
            char name[32];
            return ct_err_prefix(err, "%s: ", cand_name(x, c, name, sizeof name));
        }
    }
    return 0;
}

/* One evaluation method for every candidate, so that they compare fairly.
 * Models with incremental hooks (contention/models.h: GigE, none) cost,
 * per completion, the arcs at the nodes it changes and are bounded by
 * work only; the others (Stop & Go, fair share) re-evaluate every arc at
 * every completion, so their graphs are also bounded in size. Past either
 * bound every candidate is timed with the penalties of the first instant.
 * Sets *progressive; -1 on allocation failure. */
static int choose_method(score_ctx *x, ct_score_result *out, int *progressive, ct_err *err)
{
    const ct_model_info *minfo = ct_model_info_of(x->fabric->penalty.kind);
    int incremental = minfo && minfo->incremental && !x->req->tree; /* trees: link model */
    /* on a tree, a model with incremental hooks is re-applied whole at each
     * completion (the link model); the run-time bound of time_p2p guards it */
    int tree_bounded = x->req->tree && minfo && minfo->incremental;
    *progressive = incremental || tree_bounded || x->max_arcs <= CT_SCORE_PROGRESSIVE_MAX_ARCS;
    for (size_t i = 0; i < x->nc && *progressive && incremental; i++) {
        int oom;
        uint64_t w = progressive_work(&x->c[i].work, err, &oom);
        if (oom)
            return -1;
        if (w > SCORE_PROGRESSIVE_MAX_EVALS) {
            char name[32], msg[200];
            snprintf(msg, sizeof msg,
                     "%s: progressive evaluation would take up to %llu penalty evaluations "
                     "(> %llu): static penalties (first instant) instead",
                     cand_name(x, &x->c[i], name, sizeof name), (unsigned long long)w,
                     (unsigned long long)SCORE_PROGRESSIVE_MAX_EVALS);
            note_add(out, msg);
            *progressive = 0;
        }
    }
    if (!*progressive && !incremental) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "%zu node pairs exceed %d for the %s model: static penalties (first instant) "
                 "instead of progressive evaluation",
                 x->max_arcs, CT_SCORE_PROGRESSIVE_MAX_ARCS,
                 ct_model_name(x->fabric->penalty.kind));
        note_add(out, msg);
    }
    return 0;
}

/* Times every point-to-point candidate with one method; when progressive
 * evaluation hits its work bound on one candidate, every candidate is timed
 * again with static penalties. */
static int time_p2p_all(score_ctx *x, ct_score_result *out, int progressive, ct_err *err)
{
    for (size_t i = 0; i < x->nc; i++) {
        cand *c = &x->c[i];
        int r = time_p2p(x->fabric, &c->work, progressive, x->req->tree, x->view, &c->tm, err);
        char name[32];
        if (r == 1) { /* work bound hit */
            char msg[200];
            snprintf(msg, sizeof msg,
                     "%s: progressive evaluation past %llu penalty evaluations: static penalties "
                     "(first instant) instead",
                     cand_name(x, c, name, sizeof name),
                     (unsigned long long)(4 * SCORE_PROGRESSIVE_MAX_EVALS));
            note_add(out, msg);
            return time_p2p_all(x, out, 0, err);
        }
        if (r < 0)
            return ct_err_prefix(err, "%s: ", cand_name(x, c, name, sizeof name));
    }
    return 0;
}

/* The candidates into out, fastest first (stable: ties keep Slurm's
 * default, block, first), and the winner's margin. */
static void rank(const score_ctx *x, ct_score_result *out)
{
    for (size_t i = 0; i < x->nc; i++) {
        const cand *k = &x->c[i];
        ct_candidate_score *c = k->d == CT_DIST_EXPLICIT ? &out->given : &out->c[out->n++];
        out->have_given |= k->d == CT_DIST_EXPLICIT;
        c->dist = k->d;
        c->plane = k->plane;
        cand_name(x, k, c->name, sizeof c->name);
        c->predicted_s = k->tm.predicted;
        c->uncontended_s = k->tm.uncontended;
        c->slowdown = k->tm.uncontended > 0 ? k->tm.predicted / k->tm.uncontended : 1.0;
        c->remote_comms = k->tm.remote;
        c->intra_s = k->tm.intra;
        if (k->tm.has_busiest && k->tm.busiest.index >= 0) {
            ct_link_label(x->view, &k->tm.busiest, c->busiest_link, sizeof c->busiest_link);
            c->busiest_ratio = k->tm.busiest.ratio;
        }
    }
    for (size_t i = 1; i < out->n; i++) {
        ct_candidate_score y = out->c[i];
        size_t j = i;
        while (j > 0 && out->c[j - 1].predicted_s > y.predicted_s) {
            out->c[j] = out->c[j - 1];
            j--;
        }
        out->c[j] = y;
    }
    out->winner = 0;
    out->ntasks = x->ntasks;
    if (out->n < 2)
        out->margin = 0;
    else if (out->c[0].predicted_s > 0)
        out->margin = (out->c[1].predicted_s - out->c[0].predicted_s) / out->c[0].predicted_s;
    else
        out->margin = out->c[1].predicted_s > 0 ? INFINITY : 0;
}

static void score_ctx_free(score_ctx *x)
{
    for (size_t i = 0; i < x->nc; i++)
        for (int k = 0; k < x->c[i].work.nphase; k++)
            ct_graph_free(&x->c[i].work.g[k]);
    if (x->have_trace)
        ct_trace_free(&x->tr);
    if (x->have_raw)
        ct_trace_free(&x->raw);
    if (x->have_phases)
        ct_trace_phases_free(&x->tp);
    phased_trace_free(&x->pt);
    ct_tree_map_free(&x->flat);
}

static int score_run(const ct_fabric *fabric, const ct_score_request *req, int reference,
                     ct_score_result *out, ct_err *err)
{
    if (!out)
        return ct_err_set(err, "ct_score: NULL result");
    memset(out, 0, sizeof *out);
    if (check_request(fabric, req, err) < 0)
        return -1;
    static const score_ctx zero;
    score_ctx x = zero;
    x.fabric = fabric;
    x.req = req;
    x.reference = reference;
    x.cpt = req->cpus_per_task < 1 ? 1 : req->cpus_per_task;
    int rc = resolve_tasks(&x, err);
    if (rc == 0) {
        describe_model(&x, out);
        list_candidates(&x);
        rc = link_view(&x, err);
    }
    if (rc == 0)
        rc = build_candidates(&x, err);
    const ct_pattern_kind kind = req->pattern.kind;
    if (rc == 0 && kind == CT_PAT_ALLTOALL)
        note_beyond_fit(&x, out);
    if (rc == 0 && kind != CT_PAT_ALLTOALL && kind != CT_PAT_TRACE) {
        int progressive;
        note_duplex_beyond_fit(&x, out);
        rc = choose_method(&x, out, &progressive, err);
        if (rc == 0)
            rc = time_p2p_all(&x, out, progressive, err);
    }
    if (rc == 0 && x.aggregated) {
        out->aggregated = 1;
        char msg[200];
        snprintf(msg, sizeof msg,
                 "trace of %zu events (> %lld): aggregated into %zu phases of node-pair "
                 "graphs, not replayed%s",
                 (size_t)x.trace_events,
                 (long long)(req->replay_max_events ? req->replay_max_events
                                                    : CT_SCORE_REPLAY_MAX_EVENTS),
                 x.reference && !x.have_phases ? x.pt.nphase : x.tp.nphase, x.static_phases ? " (some phases with static penalties)" : "");
        note_add(out, msg);
    }
    if (rc == 0)
        rank(&x, out);
    score_ctx_free(&x);
    if (rc < 0)
        out->n = 0;
    return rc < 0 ? -1 : 0;
}

size_t ct_score_auto_pick(const ct_score_result *r, double min_switch, double *gain)
{
    if (gain)
        *gain = 0;
    if (!r || r->n == 0)
        return 0;
    size_t b = r->n;
    for (size_t i = 0; i < r->n; i++)
        if (r->c[i].dist == CT_DIST_BLOCK) {
            b = i;
            break;
        }
    if (b == r->n || b == r->winner || !(r->c[b].predicted_s > 0))
        return r->winner;
    double g = (r->c[b].predicted_s - r->c[r->winner].predicted_s) / r->c[b].predicted_s;
    if (gain)
        *gain = g;
    return g >= min_switch ? r->winner : b;
}

int ct_score(const ct_fabric *fabric, const ct_score_request *req, ct_score_result *out,
             ct_err *err)
{
    return score_run(fabric, req, 0, out, err);
}

int score_reference(const ct_fabric *fabric, const ct_score_request *req, ct_score_result *out,
                    ct_err *err)
{
    return score_run(fabric, req, 1, out, err);
}
