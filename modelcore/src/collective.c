/* Collective events expanded into point-to-point events (collective.h,
 * doc/trace-format.md "How collectives are replayed"). */
#include "contention/collective.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* ------------------------------------------------------------ parameters */

void ct_coll_params_hockney(double alpha, double beta, ct_coll_params *p)
{
    memset(p, 0, sizeof *p);
    p->alpha = alpha;
    p->beta = beta;
    /* our reading of pLogP from Hockney: one message costs L + g(m) in
     * pLogP and alpha + m beta in Hockney; with nothing measured the start-up
     * is split evenly, L = alpha / 2, g(m) = alpha / 2 + m beta */
    p->own_m[0] = 0;
    p->own_m[1] = 1;
    p->own_g[0] = alpha / 2;
    p->own_g[1] = alpha / 2 + beta;
    p->plogp.gap = (ct_gap_table){.n = 2, .m = p->own_m, .g = p->own_g};
    p->plogp.L = alpha / 2;
}

void ct_coll_params_from_fabric(const ct_fabric *f, ct_coll_params *p)
{
    ct_coll_params_hockney(f->alpha, f->beta, p);
    if (f->ngap > 0) {
        ct_gap_table t = {.n = f->ngap, .m = f->gap_m, .g = f->gap_g};
        if (ct_gap_check(&t, NULL) == 0) {
            p->plogp.gap = t;
            if (f->plogp_L > 0)
                p->plogp.L = f->plogp_L;
        }
    }
}

/* ------------------------------------------------------------ algorithms */

static int is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static int ceil_log2(int64_t x)
{
    int k = 0;
    while (((int64_t)1 << k) < x)
        k++;
    return k;
}

ct_allreduce_alg ct_coll_allreduce_alg(const ct_coll_params *p, int32_t P, double m)
{
    if (P < 2)
        return CT_ALLREDUCE_RECDOUBLING;
    /* Hockney cost of each (our choice, the usual MPICH pair): recursive
     * doubling ceil(log2 P) rounds of m (+ 2 rounds folding the ranks past
     * the largest power of two), ring 2 (P - 1) rounds of m / P */
    double rd = (ceil_log2(P) + (is_pow2(P) ? 0 : 1)) * (p->alpha + m * p->beta);
    if (!is_pow2(P))
        rd += p->alpha + m * p->beta;
    double ring = 2.0 * (P - 1) * (p->alpha + m / P * p->beta);
    return ring < rd ? CT_ALLREDUCE_RING : CT_ALLREDUCE_RECDOUBLING;
}

ct_allgather_alg ct_coll_allgather_alg(int32_t P, double total_bytes)
{
    /* MPICH's rule: recursive doubling for a power-of-two P and less than
     * 512 KiB gathered, ring (nearest neighbours only) otherwise */
    return is_pow2(P) && total_bytes < 524288.0 ? CT_ALLGATHER_RECDOUBLING : CT_ALLGATHER_RING;
}

static double seg_count(double m, double s) { return s >= m ? 1 : ceil(m / s - 1e-9); }

int ct_coll_bcast_choice(const ct_coll_params *p, int32_t P, double m, ct_plogp_choice *out,
                         ct_err *err)
{
    memset(out, 0, sizeof *out);
    out->time = INFINITY;
    if (P < 2 || !(m > 0)) { /* nothing, or one empty message down a binomial tree */
        out->strategy = CT_BCAST_BINOMIAL;
        out->time = 0;
        return 0;
    }
    for (int st = 0; st < CT_BCAST_COUNT; st++) {
        int seg = ct_bcast_is_segmented((ct_bcast_strategy)st);
        /* 003 §3's search s = m / 2^i, bounded to CT_COLL_MAX_SEGMENTS segments */
        for (int i = 0; i <= (seg ? 6 : 0); i++) {
            double s = seg ? ceil(m / (double)(1 << i)) : m;
            if (seg && (s < 1 || seg_count(m, s) > CT_COLL_MAX_SEGMENTS))
                break;
            double T;
            if (ct_plogp_bcast(&p->plogp, (ct_bcast_strategy)st, P, m, s, &T, err) < 0)
                return -1;
            if (T < out->time) { /* strict: ties keep the lower id and the larger s */
                out->time = T;
                out->strategy = st;
                out->segment = seg ? s : 0;
                out->upper_bound = ct_bcast_is_upper_bound((ct_bcast_strategy)st);
            }
        }
    }
    return 0;
}

int ct_coll_scatter_choice(const ct_coll_params *p, int32_t P, double m, ct_plogp_choice *out,
                           ct_err *err)
{
    memset(out, 0, sizeof *out);
    if (P < 2 || !(m > 0)) {
        out->strategy = CT_SCATTER_FLAT;
        return 0;
    }
    return ct_plogp_scatter_best(&p->plogp, P, m, out, err);
}

/* ------------------------------------------------------------ matching */

typedef struct inst {
    uint8_t kind;
    int chosen;
    int32_t root; /* rank in the communicator, -1 none */
    int32_t line; /* first member's line */
    double bytes;
    size_t vbase; /* v kinds: offset of the per-rank bytes in vbytes */
    int alg;
    double seg;
} inst;

typedef struct comm_state {
    inst *v;
    size_t n, cap;
    int32_t *cnt; /* per rank: collectives seen so far */
} comm_state;

static int is_v(int k)
{
    return k == CT_EV_GATHERV || k == CT_EV_SCATTERV || k == CT_EV_ALLGATHERV ||
           k == CT_EV_ALLTOALLV;
}

struct phase_sink;

typedef struct gen {
    const ct_trace *in;
    ct_trace *out;              /* expanding into a trace (ct_trace_expand), or */
    struct phase_sink *ph;      /* into phases (ct_trace_phases_build) */
    const ct_coll_params *p;
    comm_state *cs;
    double *vbytes;
    size_t nv, vcap;
    uint64_t nev, budget;
    ct_err *err;
} gen;

static int at(const ct_trace *tr, int32_t line, ct_err *err)
{
    return ct_err_prefix(err, "%s:%d: ", tr->name, (int)line);
}

/* Pass 1: instances per communicator, consistency between members. */
static int match(gen *g)
{
    const ct_trace *in = g->in;
    for (int32_t t = 0; t < in->ntasks; t++) {
        for (size_t i = in->task_first[t]; i < in->task_first[t + 1]; i++) {
            const ct_event *e = &in->ev[i];
            if (!CT_EV_IS_COLL(e->kind))
                continue;
            comm_state *s = &g->cs[e->comm];
            const ct_trace_comm *c = &in->comms[e->comm];
            int32_t r = ct_trace_comm_rank(in, (size_t)e->comm, t);
            int32_t root = e->peer >= 0 ? ct_trace_comm_rank(in, (size_t)e->comm, e->peer) : -1;
            if (!s->cnt && !(s->cnt = calloc((size_t)c->size, sizeof *s->cnt)))
                return ct_err_set(g->err, "out of memory (%d members)", (int)c->size);
            size_t k = (size_t)s->cnt[r]++;
            if (k == s->n) {
                if (grow_array((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v, 16) < 0)
                    return ct_err_set(g->err, "out of memory (collective calls)");
                inst *x = &s->v[s->n++];
                memset(x, 0, sizeof *x);
                x->kind = e->kind;
                x->root = root;
                x->line = e->line;
                x->bytes = e->value;
                x->vbase = SIZE_MAX;
                if (is_v(e->kind)) {
                    if (grow_array((void **)&g->vbytes, &g->vcap, g->nv + (size_t)c->size,
                                      sizeof *g->vbytes, 1024) < 0)
                        return ct_err_set(g->err, "out of memory (collective sizes)");
                    x->vbase = g->nv;
                    g->nv += (size_t)c->size;
                }
            }
            inst *x = &s->v[k];
            if (x->kind != e->kind || x->root != root ||
                (!is_v(e->kind) && x->bytes != e->value)) {
                ct_err_set(g->err,
                           "%s of task %d does not match call %zu on communicator '%s' (line "
                           "%d: %s root %d %.17g bytes; every member calls the same "
                           "collectives in the same order, same root, same size except for "
                           "v kinds)",
                           ct_ev_kind_name(e->kind), (int)t, k + 1, c->name, (int)x->line,
                           ct_ev_kind_name(x->kind),
                           x->root >= 0 ? (int)ct_trace_comm_task(in, (size_t)e->comm, x->root)
                                        : -1,
                           x->bytes);
                return at(in, e->line, g->err);
            }
            if (x->vbase != SIZE_MAX)
                g->vbytes[x->vbase + (size_t)r] = e->value;
        }
    }
    for (size_t c = 0; c < in->ncomms; c++) {
        const comm_state *s = &g->cs[c];
        for (int32_t r = 0; s->cnt && r < in->comms[c].size; r++)
            if ((size_t)s->cnt[r] != s->n) {
                int32_t t = ct_trace_comm_task(in, c, r);
                const inst *x = &s->v[s->cnt[r]];
                ct_err_set(g->err,
                           "communicator '%s': task %d makes %d collective calls, another "
                           "member %zu (task %d never reaches the %s of line %d; every member "
                           "calls the same collectives)",
                           in->comms[c].name, (int)t, (int)s->cnt[r], s->n, (int)t,
                           ct_ev_kind_name(x->kind), (int)x->line);
                return -1;
            }
    }
    return 0;
}

/* ------------------------------------------------------------ emission */

static int oom(gen *g, int32_t line)
{
    ct_err_set(g->err, "out of memory (phases of the expanded trace)");
    return at(g->in, line, g->err);
}

static int budget(gen *g, int32_t line)
{
    if (++g->nev > g->budget) {
        ct_err_set(g->err,
                   "expanding the collectives makes more than %llu point-to-point events "
                   "(the bound; record a shorter window)",
                   (unsigned long long)g->budget);
        return at(g->in, line, g->err);
    }
    return 0;
}

static int ph_send(struct phase_sink *ps, int32_t t, int32_t dst, double b, int blocking,
                   int32_t comm);
static int ph_close(struct phase_sink *ps);
static void ph_compute(struct phase_sink *ps, double s);
static void ph_coll_begin(struct phase_sink *ps);
static int ph_coll_end(struct phase_sink *ps);

static int em_send(gen *g, int32_t t, int32_t dst, double b, int blocking, int32_t line)
{
    if (budget(g, line))
        return -1;
    if (g->ph)
        return ph_send(g->ph, t, dst, b, blocking, -1) ? oom(g, line) : 0;
    return ct_trace_add_send(g->out, t, dst, b, blocking, NULL, line, g->err);
}

static int em_recv(gen *g, int32_t t, int32_t src, double b, int blocking, int32_t line)
{
    if (budget(g, line))
        return -1;
    if (g->ph)
        return blocking && ph_close(g->ph) ? oom(g, line) : 0;
    return ct_trace_add_recv(g->out, t, src, b, blocking, line, g->err);
}

static int em_wait(gen *g, int32_t t, int32_t line)
{
    if (budget(g, line))
        return -1;
    if (g->ph)
        return ph_close(g->ph) ? oom(g, line) : 0;
    return ct_trace_add_waitall(g->out, t, line, g->err);
}

/* One round: send sb bytes to `to`, receive from `from` (rank -1: none). */
static int xchg(gen *g, size_t c, int32_t t, int32_t to, double sb, int32_t from, int32_t line)
{
    const ct_trace *in = g->in;
    if (to >= 0 && em_send(g, t, ct_trace_comm_task(in, c, to), sb, 0, line))
        return -1;
    if (from >= 0 && em_recv(g, t, ct_trace_comm_task(in, c, from), -1, 0, line))
        return -1;
    return em_wait(g, t, line);
}

typedef struct ctx {
    gen *g;
    size_t c;
    int32_t t, r, P, line;
    inst *x;
} ctx;

static int32_t task_of(const ctx *k, int32_t rank) { return ct_trace_comm_task(k->g->in, k->c, rank); }
/* rank of virtual rank vr (root at 0) */
static int32_t real(const ctx *k, int32_t vr) { return (int32_t)((vr + k->x->root) % k->P); }
static double vb(const ctx *k, int32_t rank)
{
    return k->x->vbase == SIZE_MAX ? k->x->bytes : k->g->vbytes[k->x->vbase + (size_t)rank];
}

static int send_to(ctx *k, int32_t rank, double b, int blocking)
{
    return em_send(k->g, k->t, task_of(k, rank), b, blocking, k->line);
}
static int recv_from(ctx *k, int32_t rank, int blocking)
{
    return em_recv(k->g, k->t, task_of(k, rank), -1, blocking, k->line);
}

static int barrier(ctx *k)
{
    /* dissemination: round j exchanges an empty message at distance 2^j */
    for (int64_t d = 1; d < k->P; d <<= 1)
        if (xchg(k->g, k->c, k->t, (int32_t)((k->r + d) % k->P), 0,
                 (int32_t)((k->r - d % k->P + k->P) % k->P), k->line))
            return -1;
    return 0;
}

/* Binomial tree over virtual ranks: parent and children (largest first). */
static int32_t binomial_parent(int32_t vr)
{
    int32_t mask = 1;
    while (!(vr & mask))
        mask <<= 1;
    return vr - mask;
}

static int tree_bcast(ctx *k, int st, double m, double s)
{
    int32_t P = k->P, vr = (int32_t)((k->r - k->x->root + P) % P);
    double nseg = ct_bcast_is_segmented((ct_bcast_strategy)st) ? seg_count(m, s) : 1;
    double sz = nseg > 1 ? s : m;
    int32_t parent = -1, kids[64];
    int nk = 0;
    switch (st) {
    case CT_BCAST_FLAT:
    case CT_BCAST_FLAT_RDV:
    case CT_BCAST_SEG_FLAT: /* 003 Table 1 rows 1-3: the root sends to each in turn */
        if (vr == 0) {
            for (double j = 0; j < nseg; j++) {
                double b = j + 1 < nseg ? sz : m - sz * (nseg - 1);
                for (int32_t d = 1; d < P; d++)
                    if (send_to(k, real(k, d), b, 1))
                        return -1;
            }
            return 0;
        }
        for (double j = 0; j < nseg; j++)
            if (recv_from(k, real(k, 0), 1))
                return -1;
        return 0;
    case CT_BCAST_CHAIN:
    case CT_BCAST_CHAIN_RDV:
    case CT_BCAST_SEG_CHAIN: /* rows 4-6: a chain, pipelined by segment */
        parent = vr - 1;
        if (vr + 1 < P)
            kids[nk++] = vr + 1;
        break;
    case CT_BCAST_BINARY: /* row 7 */
        parent = vr ? (vr - 1) / 2 : -1;
        for (int32_t ch = 2 * vr + 1; ch <= 2 * vr + 2 && ch < P; ch++)
            kids[nk++] = ch;
        break;
    default: /* rows 8-10: binomial tree, largest subtree first */
    {
        parent = vr ? binomial_parent(vr) : -1;
        int32_t lim = vr ? (vr & -vr) : (int32_t)1 << ceil_log2(P);
        for (int32_t mask = lim >> 1; mask > 0; mask >>= 1)
            if (vr + mask < P)
                kids[nk++] = vr + mask;
        break;
    }
    }
    /* segment j + 1 is received while segment j goes to the children, who
     * are served one after the other (003's gap between two sends) */
    if (parent >= 0 && em_recv(k->g, k->t, task_of(k, real(k, parent)), -1, 0, k->line))
        return -1;
    for (double j = 0; j < nseg; j++) {
        double b = j + 1 < nseg ? sz : m - sz * (nseg - 1);
        if (parent >= 0 && (em_wait(k->g, k->t, k->line) ||
                            (j + 1 < nseg && em_recv(k->g, k->t, task_of(k, real(k, parent)),
                                                     -1, 0, k->line))))
            return -1;
        for (int i = 0; i < nk; i++)
            if (send_to(k, real(k, kids[i]), b, 1))
                return -1;
    }
    return 0;
}

/* bytes of the blocks of virtual ranks [a, b) */
static double vsum(ctx *k, int32_t a, int32_t b)
{
    if (k->x->vbase == SIZE_MAX)
        return k->x->bytes * (b - a);
    double s = 0;
    for (int32_t v = a; v < b; v++)
        s += vb(k, real(k, v));
    return s;
}

static int scatter(ctx *k, int st)
{
    int32_t P = k->P, vr = (int32_t)((k->r - k->x->root + P) % P);
    switch (st) {
    case CT_SCATTER_FLAT: /* 003 Table 2 row 1 */
        if (vr == 0) {
            for (int32_t d = 1; d < P; d++)
                if (send_to(k, real(k, d), vb(k, real(k, d)), 1))
                    return -1;
            return 0;
        }
        return recv_from(k, real(k, 0), 1);
    case CT_SCATTER_CHAIN: /* row 2: each forwards the blocks of those after it */
        if (vr > 0 && recv_from(k, real(k, vr - 1), 1))
            return -1;
        if (vr + 1 < P && send_to(k, real(k, vr + 1), vsum(k, vr + 1, P), 1))
            return -1;
        return 0;
    case CT_SCATTER_PIPELINED_CHAIN: /* row 3: one block at a time, farthest first;
                                          the next is received while one is forwarded */
        if (vr > 0 && recv_from(k, real(k, vr - 1), 0))
            return -1;
        for (int32_t j = P - 1; j >= vr; j--) {
            if (vr > 0 && (em_wait(k->g, k->t, k->line) ||
                           (j > vr && recv_from(k, real(k, vr - 1), 0))))
                return -1;
            if (j > vr && send_to(k, real(k, vr + 1), vb(k, real(k, j)), 1))
                return -1;
        }
        return 0;
    default: /* row 4: binomial, each child gets its subtree's blocks */
    {
        if (vr > 0 && recv_from(k, real(k, binomial_parent(vr)), 1))
            return -1;
        int32_t lim = vr ? (vr & -vr) : (int32_t)1 << ceil_log2(P);
        for (int32_t mask = lim >> 1; mask > 0; mask >>= 1)
            if (vr + mask < P) {
                int32_t end = vr + 2 * mask < P ? vr + 2 * mask : P;
                if (send_to(k, real(k, vr + mask), vsum(k, vr + mask, end), 1))
                    return -1;
            }
        return 0;
    }
    }
}

static int gather(ctx *k)
{
    /* linear: every member sends its block to the root (exact for gatherv;
     * the root's link carries the same bytes as in a tree) */
    int32_t root = k->x->root;
    if (k->r != root)
        return send_to(k, root, vb(k, k->r), 1);
    for (int32_t d = 0; d < k->P; d++)
        if (d != root && recv_from(k, d, 0))
            return -1;
    return em_wait(k->g, k->t, k->line);
}

static int reduce(ctx *k)
{
    /* binomial tree towards the root, the full vector on every edge */
    int32_t P = k->P, vr = (int32_t)((k->r - k->x->root + P) % P);
    for (int32_t mask = 1; mask < P; mask <<= 1) {
        if (vr & mask)
            return send_to(k, real(k, vr - mask), k->x->bytes, 1);
        if (vr + mask < P && recv_from(k, real(k, vr + mask), 1))
            return -1;
    }
    return 0;
}

static int allreduce(ctx *k)
{
    int32_t P = k->P, r = k->r;
    double m = k->x->bytes;
    if (k->x->alg == CT_ALLREDUCE_RING) {
        /* reduce-scatter then allgather around the ring, m / P per step */
        for (int32_t j = 0; j < 2 * (P - 1); j++)
            if (xchg(k->g, k->c, k->t, (r + 1) % P, m / P, (r - 1 + P) % P, k->line))
                return -1;
        return 0;
    }
    /* recursive doubling; ranks past the largest power of two p2 fold in first */
    int32_t p2 = 1;
    while (p2 * 2 <= P)
        p2 *= 2;
    int32_t rem = P - p2, nr;
    if (r < 2 * rem) {
        if (r % 2 == 0) {
            if (send_to(k, r + 1, m, 1) || recv_from(k, r + 1, 1))
                return -1;
            return 0;
        }
        if (recv_from(k, r - 1, 1))
            return -1;
        nr = r / 2;
    } else {
        nr = r - rem;
    }
    for (int32_t mask = 1; mask < p2; mask <<= 1) {
        int32_t pn = nr ^ mask, pr = pn < rem ? 2 * pn + 1 : pn + rem;
        if (xchg(k->g, k->c, k->t, pr, m, pr, k->line))
            return -1;
    }
    if (r < 2 * rem && send_to(k, r - 1, m, 1))
        return -1;
    return 0;
}

static int allgather(ctx *k)
{
    int32_t P = k->P, r = k->r;
    if (k->x->alg == CT_ALLGATHER_RECDOUBLING) { /* P is a power of two here */
        for (int32_t mask = 1; mask < P; mask <<= 1) {
            int32_t base = r & ~(mask - 1); /* the blocks held: [base, base + mask) */
            double b = 0;
            for (int32_t i = base; i < base + mask; i++)
                b += vb(k, i);
            if (xchg(k->g, k->c, k->t, r ^ mask, b, r ^ mask, k->line))
                return -1;
        }
        return 0;
    }
    /* ring: at step j, pass on the block of rank r - j */
    for (int32_t j = 0; j < P - 1; j++)
        if (xchg(k->g, k->c, k->t, (r + 1) % P, vb(k, (r - j + P) % P), (r - 1 + P) % P, k->line))
            return -1;
    return 0;
}

static int alltoall(ctx *k)
{
    /* pairwise exchange: round j sends to r + j and receives from r - j */
    int32_t P = k->P, r = k->r;
    double b = k->x->kind == CT_EV_ALLTOALLV ? vb(k, r) / (P - 1) : k->x->bytes;
    for (int32_t j = 1; j < P; j++)
        if (xchg(k->g, k->c, k->t, (r + j) % P, b, (r - j + P) % P, k->line))
            return -1;
    return 0;
}

/* MPI_Scan and MPI_Exscan: a linear chain, rank r receives the prefix of
 * ranks 0 .. r - 1 (or r - 2 and its own contribution to combine) from r - 1
 * and passes its own prefix on to r + 1: P - 1 messages of the whole vector,
 * one after the other: what Open MPI does by default (measured on Open MPI
 * 4.1.4 here, 16 ranks, 8 MiB: the default 27-48 ms, linear forced 38-55 ms,
 * recursive doubling forced 270-330 ms; doc/trace-format.md). MPICH's
 * recursive doubling (log2 P exchanges) is not replayed; the papers have no
 * scan model: our choice */
static int scan(ctx *k)
{
    if (k->r > 0 && recv_from(k, k->r - 1, 1))
        return -1;
    if (k->r + 1 < k->P && send_to(k, k->r + 1, k->x->bytes, 1))
        return -1;
    return 0;
}

static int choose(gen *g, size_t c, inst *x)
{
    int32_t P = g->in->comms[c].size;
    double mean = x->bytes;
    if (x->vbase != SIZE_MAX) {
        mean = 0;
        for (int32_t i = 0; i < P; i++)
            mean += g->vbytes[x->vbase + (size_t)i];
        mean /= P;
    }
    ct_plogp_choice ch;
    switch (x->kind) {
    case CT_EV_BCAST:
        if (ct_coll_bcast_choice(g->p, P, x->bytes, &ch, g->err) < 0)
            return at(g->in, x->line, g->err);
        x->alg = ch.strategy;
        x->seg = ch.segment;
        break;
    case CT_EV_SCATTER:
    case CT_EV_SCATTERV:
        if (ct_coll_scatter_choice(g->p, P, mean, &ch, g->err) < 0)
            return at(g->in, x->line, g->err);
        x->alg = ch.strategy;
        break;
    case CT_EV_ALLREDUCE:
        x->alg = ct_coll_allreduce_alg(g->p, P, x->bytes);
        break;
    case CT_EV_ALLGATHER:
    case CT_EV_ALLGATHERV:
        x->alg = ct_coll_allgather_alg(P, mean * P);
        break;
    default:
        break;
    }
    x->chosen = 1;
    return 0;
}

static int expand_one(gen *g, int32_t t, const ct_event *e, size_t seq)
{
    size_t c = (size_t)e->comm;
    inst *x = &g->cs[c].v[seq];
    ctx k = {.g = g, .c = c, .t = t, .r = ct_trace_comm_rank(g->in, c, t),
             .P = g->in->comms[c].size, .line = e->line, .x = x};
    if (k.P < 2)
        return 0; /* a collective of one task moves nothing */
    if (!x->chosen && choose(g, c, x))
        return -1;
    switch (x->kind) {
    case CT_EV_BARRIER:
        return barrier(&k);
    case CT_EV_BCAST:
        return tree_bcast(&k, x->alg, x->bytes, x->seg);
    case CT_EV_REDUCE:
        return reduce(&k);
    case CT_EV_ALLREDUCE:
        return allreduce(&k);
    case CT_EV_GATHER:
    case CT_EV_GATHERV:
        return gather(&k);
    case CT_EV_SCATTER:
    case CT_EV_SCATTERV:
        return scatter(&k, x->alg);
    case CT_EV_ALLGATHER:
    case CT_EV_ALLGATHERV:
        return allgather(&k);
    case CT_EV_SCAN:
    case CT_EV_EXSCAN:
        return scan(&k);
    default:
        return alltoall(&k);
    }
}

static int copy_event(gen *g, int32_t t, const ct_event *e)
{
    const ct_trace *in = g->in;
    char buf[CT_LABEL_MAX];
    if (g->ph) { /* into phases: labels do not matter */
        switch (e->kind) {
        case CT_EV_COMPUTE:
            if (budget(g, e->line))
                return -1;
            ph_compute(g->ph, e->value);
            return 0;
        case CT_EV_SEND:
        case CT_EV_ISEND:
            if (budget(g, e->line))
                return -1;
            return ph_send(g->ph, t, e->peer, e->value, e->kind == CT_EV_SEND, e->comm)
                       ? oom(g, e->line)
                       : 0;
        case CT_EV_RECV:
        case CT_EV_IRECV:
            return em_recv(g, t, e->peer, e->value, e->kind == CT_EV_RECV, e->line);
        default:
            return em_wait(g, t, e->line);
        }
    }
    switch (e->kind) {
    case CT_EV_COMPUTE:
        return budget(g, e->line) || ct_trace_add_compute(g->out, t, e->value, e->line, g->err);
    case CT_EV_SEND:
    case CT_EV_ISEND: {
        /* explicit labels are kept, default ones (c<k>) renumber */
        const char *lab = ct_trace_label(in, (size_t)e->comm, buf, sizeof buf);
        if (in->label_off[e->comm] == UINT32_MAX || (lab[0] == 'c' && lab[1] >= '0' && lab[1] <= '9'))
            lab = NULL;
        if (budget(g, e->line) || ct_trace_add_send(g->out, t, e->peer, e->value,
                                                    e->kind == CT_EV_SEND, lab, e->line, g->err))
            return -1;
        ct_match_key km = ct_trace_key(in, e); /* its tag and communicator */
        return ct_trace_copy_match(g->out, km.tag, km.mcomm, g->err);
    }
    case CT_EV_RECV:
    case CT_EV_IRECV:
        if (em_recv(g, t, e->peer, e->value, e->kind == CT_EV_RECV, e->line))
            return -1;
        ct_match_key km = ct_trace_key(in, e);
        return ct_trace_copy_match(g->out, km.tag, km.mcomm, g->err);
    default:
        return em_wait(g, t, e->line);
    }
}

static void ph_task_start(struct phase_sink *ps, int32_t t);
static int ph_task_end(struct phase_sink *ps);

/* Every task's events in program order, collectives expanded (pass 2). */
static int walk(gen *g, size_t *seq)
{
    const ct_trace *in = g->in;
    /* seq: per communicator, the task's collectives on it so far; reset
     * after each task for the communicators it used only (touched), not for
     * all of them (65,536 tasks x 257 communicators in a 1,024 x 64
     * recording) */
    size_t *touched = malloc((in->ncomms ? in->ncomms : 1) * sizeof *touched), nt = 0;
    if (!touched)
        return ct_err_set(g->err, "out of memory (%zu communicators)", in->ncomms);
    memset(seq, 0, in->ncomms * sizeof *seq);
    for (int32_t t = 0; t < in->ntasks; t++) {
        while (nt > 0)
            seq[touched[--nt]] = 0;
        if (g->ph)
            ph_task_start(g->ph, t);
        for (size_t i = in->task_first[t]; i < in->task_first[t + 1]; i++) {
            const ct_event *e = &in->ev[i];
            int r2;
            if (CT_EV_IS_COLL(e->kind)) {
                if (seq[e->comm] == 0)
                    touched[nt++] = (size_t)e->comm;
                size_t k = seq[e->comm]++;
                if (g->ph && g->p->coll_phase)
                    ph_coll_begin(g->ph);
                if (g->out) /* the library's own messages (trace.h CT_CTX_COLL) */
                    ct_trace_set_context(g->out, CT_CTX_COLL);
                r2 = expand_one(g, t, e, k);
                if (g->out)
                    ct_trace_set_context(g->out, CT_CTX_P2P);
                if (g->ph && !r2) r2 = ph_coll_end(g->ph);
            } else {
                r2 = copy_event(g, t, e);
            }
            if (r2) {
                free(touched);
                return -1;
            }
        }
        if (g->ph && ph_task_end(g->ph)) {
            free(touched);
            return oom(g, in->task_first[t + 1] > in->task_first[t]
                              ? in->ev[in->task_first[t + 1] - 1].line
                              : 0);
        }
    }
    free(touched);
    return 0;
}

static void gen_stats(const gen *g, ct_coll_stats *st)
{
    memset(st, 0, sizeof *st);
    for (size_t c = 0; c < g->in->ncomms; c++) {
        st->instances += g->cs[c].n;
        for (size_t j = 0; j < g->cs[c].n; j++)
            st->by_kind[g->cs[c].v[j].kind]++;
    }
    st->events_in = g->in->nevents;
    st->events_out = (size_t)g->nev;
}

static void gen_free(gen *g)
{
    for (size_t c = 0; g->cs && c < g->in->ncomms; c++) {
        free(g->cs[c].v);
        free(g->cs[c].cnt);
    }
    free(g->cs);
    free(g->vbytes);
}

int ct_trace_expand(const ct_trace *in, const ct_coll_params *p, ct_trace *out,
                    ct_coll_stats *stats, ct_err *err)
{
    ct_trace_init(out, in->name, err);
    gen g = {.in = in, .out = out, .p = p, .err = err,
             .budget = p->max_events ? p->max_events : CT_COLL_DEFAULT_MAX_EVENTS};
    size_t *seq = NULL;
    int rc = -1;
    g.cs = calloc(in->ncomms ? in->ncomms : 1, sizeof *g.cs);
    seq = calloc(in->ncomms ? in->ncomms : 1, sizeof *seq);
    if (!g.cs || !seq) {
        ct_err_set(err, "out of memory (%zu communicators)", in->ncomms);
        goto out;
    }
    if (in->ntasks > 0 && ct_trace_set_ntasks(out, in->ntasks, 0, err) < 0)
        goto out;
    if (match(&g) < 0 || walk(&g, seq) < 0)
        goto out;
    if (ct_trace_finish(out, err) < 0)
        goto out;
    if (stats)
        gen_stats(&g, stats);
    rc = 0;
out:
    gen_free(&g);
    free(seq);
    if (rc < 0)
        ct_trace_free(out);
    return rc;
}

int ct_trace_load_expanded(const char *path, const ct_coll_params *p, ct_trace *tr,
                           ct_coll_stats *stats, ct_err *err)
{
    return ct_trace_load_expanded_bounded(path, NULL, p, tr, stats, err);
}

int ct_trace_load_expanded_bounded(const char *path, const ct_trace_limits *lim,
                                   const ct_coll_params *pp, ct_trace *tr, ct_coll_stats *stats,
                                   ct_err *err)
{
    if (ct_trace_load_bounded(path, lim, tr, err) < 0)
        return -1;
    /* the event bound holds for the expanded trace too */
    ct_coll_params bounded = *pp;
    if (lim && lim->max_events &&
        (!bounded.max_events || bounded.max_events > (uint64_t)lim->max_events))
        bounded.max_events = lim->max_events;
    const ct_coll_params *p = &bounded;
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->events_in = stats->events_out = tr->nevents;
    }
    if (!tr->ncoll)
        return 0;
    ct_trace x;
    int rc = ct_trace_expand(tr, p, &x, stats, err);
    ct_trace_free(tr);
    if (rc < 0)
        return -1;
    *tr = x;
    return 0;
}

/* ------------------------------------------------------------ phases */

/* The phase rule (score.h, "aggregated"): a task's events are cut into
 * phases at its blocking points (send, recv, waitall); an isend belongs to
 * the phase it is posted in; a phase's compute is the longest sum of a
 * task's compute events in it, and each task's own sum is kept (sparse). */
typedef struct phase_sink {
    ct_trace_phases *out;
    size_t cap;         /* of out->ph */
    int32_t task;       /* the current task */
    size_t ph;          /* its phase */
    double c;           /* its compute so far in that phase */
    int32_t *phase_of;  /* traces without collectives: phase of each communication */
    int in_coll;        /* in a collective's expansion, one phase (coll_phase) */
    int pending;        /* a blocking point in it: the phase closes after it */
} phase_sink;

static int ph_reserve(phase_sink *ps, size_t ph)
{
    ct_trace_phases *o = ps->out;
    if (ph >= ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 64;
        while (cap <= ph)
            cap *= 2;
        ct_trace_phase *n = realloc(o->ph, cap * sizeof *n);
        if (!n)
            return -1;
        memset(n + ps->cap, 0, (cap - ps->cap) * sizeof *n);
        o->ph = n;
        ps->cap = cap;
    }
    if (ph + 1 > o->nphase)
        o->nphase = ph + 1;
    return 0;
}

static void ph_task_start(phase_sink *ps, int32_t t)
{
    ps->task = t;
    ps->ph = 0;
    ps->c = 0;
}

static void ph_compute(phase_sink *ps, double s) { ps->c += s; }

/* the current task's compute ps->c into phase p: its longest, and the
 * task's own when > 0 (tasks come in ascending order) */
static int ph_add_compute(phase_sink *ps, ct_trace_phase *p)
{
    if (ps->c > p->compute)
        p->compute = ps->c;
    if (!(ps->c > 0))
        return 0;
    if (p->nc == p->ccap) {
        size_t cap = p->ccap ? 2 * p->ccap : 4;
        int32_t *nt = realloc(p->ctask, cap * sizeof *nt);
        if (!nt)
            return -1;
        p->ctask = nt;
        double *ns = realloc(p->csec, cap * sizeof *ns);
        if (!ns)
            return -1;
        p->csec = ns;
        p->ccap = cap;
    }
    p->ctask[p->nc] = ps->task;
    p->csec[p->nc++] = ps->c;
    return 0;
}

static int ph_close(phase_sink *ps)
{
    if (ps->in_coll) { /* closed once, after the collective */
        ps->pending = 1;
        return ph_reserve(ps, ps->ph);
    }
    if (ph_reserve(ps, ps->ph) < 0)
        return -1;
    if (ph_add_compute(ps, &ps->out->ph[ps->ph]) < 0)
        return -1;
    ps->ph++;
    ps->c = 0;
    return 0;
}

/* ct_coll_params.coll_phase: a collective call is one phase of each of its
 * members, closed after it if its expansion blocks the task anywhere */
static void ph_coll_begin(phase_sink *ps)
{
    ps->in_coll = 1;
    ps->pending = 0;
}

static int ph_coll_end(phase_sink *ps)
{
    if (!ps->in_coll)
        return 0;
    ps->in_coll = 0;
    return ps->pending ? ph_close(ps) : 0;
}

static int ph_task_end(phase_sink *ps)
{
    /* a trailing compute (or a task without any blocking point) */
    if (ps->ph == 0 || ps->c > 0) {
        if (ph_reserve(ps, ps->ph) < 0)
            return -1;
        if (ph_add_compute(ps, &ps->out->ph[ps->ph]) < 0)
            return -1;
    }
    return 0;
}

static int ph_append(phase_sink *ps, size_t ph, int32_t src, int32_t dst, double b)
{
    ct_trace_phase *p = &ps->out->ph[ph];
    if (p->n == p->cap && grow_array((void **)&p->msg, &p->cap, p->n + 1, sizeof *p->msg, 16) < 0)
        return -1;
    p->msg[p->n++] = (ct_phase_msg){.src = src, .dst = dst, .bytes = b};
    ps->out->nmsg++;
    return 0;
}

static int ph_send(phase_sink *ps, int32_t t, int32_t dst, double b, int blocking, int32_t comm)
{
    if (ph_reserve(ps, ps->ph) < 0)
        return -1;
    if (ps->phase_of) /* placed in communication order afterwards */
        ps->phase_of[comm] = (int32_t)ps->ph;
    else if (ph_append(ps, ps->ph, t, dst, b) < 0)
        return -1;
    return blocking ? ph_close(ps) : 0;
}

void ct_trace_phases_free(ct_trace_phases *pt)
{
    if (!pt)
        return;
    for (size_t k = 0; pt->ph && k < pt->nphase; k++) {
        free(pt->ph[k].msg);
        free(pt->ph[k].ctask);
        free(pt->ph[k].csec);
    }
    free(pt->ph);
    memset(pt, 0, sizeof *pt);
}

int ct_trace_phases_build(const ct_trace *in, const ct_coll_params *p, ct_trace_phases *out,
                          ct_coll_stats *stats, ct_err *err)
{
    memset(out, 0, sizeof *out);
    phase_sink ps = {.out = out};
    gen g = {.in = in, .p = p, .err = err, .ph = &ps,
             .budget = p->max_events ? p->max_events : CT_COLL_DEFAULT_MAX_EVENTS};
    size_t *seq = NULL;
    int rc = -1;
    if (!in->finished)
        return ct_err_set(err, "%s: trace not finished", in->name);
    g.cs = calloc(in->ncomms ? in->ncomms : 1, sizeof *g.cs);
    seq = calloc(in->ncomms ? in->ncomms : 1, sizeof *seq);
    if (!in->ncoll) {
        /* nothing to expand (and no bound to apply: the trace was read
         * within it); the communications keep the trace's order, which is
         * file order */
        g.budget = UINT64_MAX;
        ps.phase_of = malloc((in->ncomm ? in->ncomm : 1) * sizeof *ps.phase_of);
    }
    if (!g.cs || !seq || (!in->ncoll && !ps.phase_of)) {
        ct_err_set(err, "out of memory (%zu communicators)", in->ncomms);
        goto out;
    }
    if (match(&g) < 0 || walk(&g, seq) < 0)
        goto out;
    if (ps.phase_of) {
        for (size_t c = 0; c < in->ncomm; c++) {
            const ct_event *e = ct_trace_comm_event(in, c);
            if (ph_append(&ps, (size_t)ps.phase_of[c], in->comm_src[c], e->peer, e->value) < 0) {
                ct_err_set(err, "out of memory (phases of %zu communications)", in->ncomm);
                goto out;
            }
        }
    }
    out->events = g.nev;
    if (stats)
        gen_stats(&g, stats);
    rc = 0;
out:
    gen_free(&g);
    free(seq);
    free(ps.phase_of);
    if (rc < 0)
        ct_trace_phases_free(out);
    return rc;
}
