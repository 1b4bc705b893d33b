/* The Local Group (LG) two-cluster Alltoall (paper 002 §VI-B, Algorithm 1)
 * and the two-cluster models (002 eq. 6 and eq. 7, 000 eq. 6).
 *
 * Two departures from the printed algorithm, both forced by its own text:
 *  - the phase-2 loop runs i = 0 .. n1-1 (Algorithm 1 prints 1 .. n1-1, but
 *    the worked example n1 = 3, n2 = 7 has node 0 exchange in every step);
 *  - when n1 does not divide n2, the C2 -> C1 storage node floor(i/n1)*n1 + j
 *    may lie beyond the last node; such a message waits on n1 + j instead and
 *    travels in step 1 (keeps the step count and the worked example exact). */
#include "contention/grid_lg.h"

#include "links.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int32_t ct_lg_store_node(int32_t n1, int32_t n2, int32_t i, int32_t j)
{
    if (n1 < 1 || n2 < n1)
        return -1;
    int32_t N = n1 + n2;
    if (i < 0 || i >= N || j < 0 || j >= N)
        return -1;
    if (i < n1)
        return j % n1; /* 002 §VI-B-1: C1 data for j is stored on node j mod n1 */
    if (j >= n1)
        return j;                  /* C2 -> C2: the local exchange delivers it */
    int32_t k = (i / n1) * n1 + j; /* 002 §VI-B-1: floor(i/n1) * n1 + j */
    return k < N ? k : n1 + j;     /* partial last group: see the file comment */
}

typedef struct builder {
    ct_lg_schedule *s;
    size_t tcap, pcap;
    size_t *off; /* pool offset of each transfer, turned into pointers at the end */
} builder;

static int add_transfer(builder *b, int phase, int32_t step, int32_t from, int32_t to, size_t first,
                        size_t nmsg, ct_err *err)
{
    ct_lg_schedule *s = b->s;
    if (s->ntransfers == b->tcap) {
        size_t cap = b->tcap ? 2 * b->tcap : 64;
        ct_lg_transfer *t = realloc(s->t, cap * sizeof *t);
        size_t *off = realloc(b->off, cap * sizeof *off);
        if (t)
            s->t = t;
        if (off)
            b->off = off;
        if (!t || !off)
            return ct_err_set(err, "LG schedule: out of memory for %zu transfers", cap);
        b->tcap = cap;
    }
    s->t[s->ntransfers] = (ct_lg_transfer){phase, step, from, to, nmsg, NULL};
    b->off[s->ntransfers] = first;
    s->ntransfers++;
    return 0;
}

static void push_msg(builder *b, int32_t origin, int32_t dest)
{
    b->s->pool[b->s->npool++] = (ct_lg_msg){origin, dest};
}

void ct_lg_schedule_free(ct_lg_schedule *s)
{
    if (!s)
        return;
    free(s->t);
    free(s->pool);
    memset(s, 0, sizeof *s);
}

int ct_lg_schedule_build(int32_t n1, int32_t n2, ct_lg_schedule *out, ct_err *err)
{
    if (!out)
        return ct_err_set(err, "LG schedule: no output given");
    memset(out, 0, sizeof *out);
    if (n1 < 1)
        return ct_err_set(err, "LG schedule: n1 = %d nodes in C1 (accepted: >= 1)", (int)n1);
    if (n2 < n1)
        return ct_err_set(err,
                          "LG schedule: n1 = %d > n2 = %d (accepted: n1 <= n2; the "
                          "smaller cluster is numbered first, swap the clusters)",
                          (int)n1, (int)n2);
    if ((int64_t)n1 + n2 > CT_LG_MAX_NODES)
        return ct_err_set(err, "LG schedule: n1 + n2 = %lld nodes (accepted: <= %d)",
                          (long long)n1 + n2, CT_LG_MAX_NODES);
    const int32_t N = n1 + n2;
    out->n1 = n1;
    out->n2 = n2;
    out->nsteps = (n2 + n1 - 1) / n1;

    builder b = {.s = out};
    /* every message moves at most twice: once locally, once across clusters */
    b.pcap = (size_t)N * (size_t)(N - 1) + 2 * (size_t)n1 * (size_t)n2;
    out->pool = malloc(b.pcap * sizeof *out->pool);
    int32_t *holder = malloc((size_t)N * sizeof *holder);
    int32_t *count = malloc(((size_t)N + 1) * sizeof *count);
    int32_t *order = malloc((size_t)N * sizeof *order);
    if (!out->pool || !holder || !count || !order) {
        ct_err_set(err, "LG schedule: out of memory for %zu messages", b.pcap);
        goto fail;
    }

    /* Phase 1 (002 Algorithm 1, local phase): each sender packs, per holder,
     * the messages that holder must receive or store. Counting sort keeps it
     * O(N) per sender and the messages in ascending destination. */
    for (int32_t i = 0; i < N; i++) {
        memset(count, 0, ((size_t)N + 1) * sizeof *count);
        for (int32_t j = 0; j < N; j++) {
            holder[j] = ct_lg_store_node(n1, n2, i, j);
            count[holder[j] + 1]++;
        }
        for (int32_t x = 0; x < N; x++)
            count[x + 1] += count[x];
        for (int32_t j = 0; j < N; j++)
            order[count[holder[j]]++] = j;
        /* count[x] is now the end of holder x's run; runs are in x order */
        int32_t start = 0;
        for (int32_t x = 0; x < N; x++) {
            int32_t end = count[x];
            if (x != i && end > start) {
                size_t first = out->npool;
                for (int32_t q = start; q < end; q++)
                    push_msg(&b, i, order[q]);
                if (add_transfer(&b, 1, 0, i, x, first, (size_t)(end - start), err) < 0)
                    goto fail;
            }
            start = end;
        }
    }

    /* Phase 2 (002 Algorithm 1, inter-cluster phase), i from 0 (see top). */
    for (int32_t s = 1; s <= out->nsteps; s++) {
        for (int32_t i = 0; i < n1; i++) {
            int32_t j = i + n1 * s;
            if (j >= N)
                continue;
            size_t first = out->npool;
            for (int32_t k = 0; k < n1; k++) /* i sends M_k,j, k in C1 */
                push_msg(&b, k, j);
            if (add_transfer(&b, 2, s, i, j, first, (size_t)n1, err) < 0)
                goto fail;
            first = out->npool;
            for (int32_t k = n1; k < N; k++) /* j sends the M_k,i it holds */
                if (ct_lg_store_node(n1, n2, k, i) == j)
                    push_msg(&b, k, i);
            if (add_transfer(&b, 2, s, j, i, first, out->npool - first, err) < 0)
                goto fail;
        }
    }
    for (size_t q = 0; q < out->ntransfers; q++)
        out->t[q].msg = out->pool + b.off[q];
    free(b.off);
    free(holder);
    free(count);
    free(order);
    return 0;
fail:
    free(b.off);
    free(holder);
    free(count);
    free(order);
    ct_lg_schedule_free(out);
    return -1;
}

static double t_cluster(int64_t n, double m, const ct_lg_net *c)
{
    return ct_a2a_eq5(n, c->alpha, c->beta, m, &c->sig); /* 002 §VI-D: T_Cn is eq. 5 */
}

double ct_lg_eq6(int64_t n1, int64_t n2, double m, const ct_lg_net *c1, const ct_lg_net *c2,
                 double alpha_w, double beta_w)
{
    if (n1 < 1 || n2 < 1 || !c1 || !c2)
        return NAN;
    double local = fmax(t_cluster(n1, m, c1), t_cluster(n2, m, c2));
    int64_t nmax = n1 > n2 ? n1 : n2;
    return local + (double)nmax * (alpha_w + beta_w * m); /* 002 eq. 6 */
}

double ct_lg_eq6_gpc(int64_t n1, int64_t n2, double m, const ct_lg_net *c1, const ct_lg_net *c2,
                     double alpha_w, double beta_w, double n)
{
    if (n1 < 1 || n2 < 1 || !c1 || !c2)
        return NAN;
    if (n1 > n2) {
        int64_t tn = n1;
        n1 = n2;
        n2 = tn;
        const ct_lg_net *tc = c1;
        c1 = c2;
        c2 = tc;
    }
    double local = fmax(t_cluster(n1, m, c1), t_cluster(n2, m, c2));
    double steps = (double)((n2 + n1 - 1) / n1);
    return local + steps * (alpha_w + beta_w * m * n); /* 000 eq. 6 */
}

double ct_lg_eq7(int64_t n1, int64_t n2, double m, const ct_lg_net *c1, const ct_lg_net *c2,
                 double alpha_w, double beta_w)
{
    int64_t small = n1 < n2 ? n1 : n2;
    return ct_lg_eq6_gpc(n1, n2, m, c1, c2, alpha_w, beta_w, (double)small); /* 002 eq. 7 */
}

int ct_lg_tree_alltoall(const int32_t *tasks, const ct_tree_map *t, double alpha, double beta,
                        double m, const ct_a2a_sig *sig, double intra_bw, double *T,
                        int32_t *worst, ct_err *err)
{
    *T = 0;
    if (worst)
        *worst = -1;
    const int32_t nn = t->nnodes, ns = t->nswitches;
    double *under = calloc((size_t)(ns > 0 ? ns : 1), sizeof *under);
    int32_t *in = malloc((size_t)nn * sizeof *in), *out = malloc((size_t)nn * sizeof *out);
    int rc = 0;
    if (!under || !in || !out) {
        rc = ct_err_set(err, "out of memory for the uplink terms of %d switches", (int)ns);
        goto done;
    }
    /* task counts: integers, exact in a double */
    const int64_t n = (int64_t)links_tasks_under(t, tasks, under);
    for (int32_t s = 0; s < ns; s++) {
        if (t->parent[s] < 0 || under[s] <= 0 || under[s] >= n)
            continue;
        /* the two clusters: nodes under s and the rest */
        int32_t ni = 0, no = 0, tmax_in = 0, tmax_out = 0;
        for (int32_t v = 0; v < nn; v++) {
            if (tasks[v] <= 0)
                continue;
            int below = 0, steps = 0;
            for (int32_t x = t->leaf[v]; x >= 0 && !below && steps <= ns; x = t->parent[x], steps++)
                below = x == s;
            if (below) {
                in[ni++] = tasks[v];
                if (tasks[v] > tmax_in)
                    tmax_in = tasks[v];
            } else {
                out[no++] = tasks[v];
                if (tasks[v] > tmax_out)
                    tmax_out = tasks[v];
            }
        }
        double t_in, t_out;
        if (ct_a2a_layout_checked(in, ni, alpha, beta, m, sig, intra_bw, &t_in, err) < 0 ||
            ct_a2a_layout_checked(out, no, alpha, beta, m, sig, intra_bw, &t_out, err) < 0) {
            rc = -1;
            goto done;
        }
        int64_t n1 = (int64_t)under[s], n2 = n - n1;
        int32_t t1 = tmax_in;
        if (n1 > n2) {
            int64_t x = n1;
            n1 = n2;
            n2 = x;
            t1 = tmax_out;
        }
        /* an Alltoall loads both directions of the uplink with n1 transfers
         * at a time: where they saturate it (links.h), each direction takes
         * the other's duplex share too, n1 (1 + δ) / C (topology.h
         * up_duplex; our extension, session 11; δ = 0 when not measured) */
        const double dup = links_duplex(t, 2 * s, (double)n1);
        double share = fmax(1.0, (double)n1 * (1.0 + dup) / t->up_cap[s]);
        share = fmax(share, (double)(t1 < n1 ? t1 : n1));
        double steps = (double)((n2 + n1 - 1) / n1);
        /* 002 eq. 7's terms with beta_w = beta * share, the phases overlapped
         * (max, not +; see grid_lg.h) */
        double cross = steps * (alpha + beta * share * m * (double)n1);
        double ts = fmax(fmax(t_in, t_out), cross);
        if (ts > *T) {
            *T = ts;
            if (worst)
                *worst = s;
        }
    }
done:
    free(under);
    free(in);
    free(out);
    return rc;
}
