/* TCP share: max-min fair share biased against flows through several
 * standing queues (our extension, session 13; issue 14).
 *
 * The fair-share baseline (penalty_fairshare.c) gives every flow the same
 * share of the link that bottlenecks it. TCP does not: a flow whose route
 * crosses several congested queues waits in each (a longer round trip) and
 * is dropped at each (a higher loss rate), and its window, so its rate,
 * follows both -- Mathis, Semke, Mahdavi, Ott, "The macroscopic behavior of
 * the TCP congestion avoidance algorithm", ACM SIGCOMM CCR 27(3), 1997:
 * rate = (MSS / RTT) * C / sqrt(p). Where it meets flows through fewer
 * queues, it gets less than they do: the "beat-down" of connections through
 * multiple congested gateways (S. Floyd, ACM SIGCOMM CCR 21(5), 1991).
 *
 * Reading (ours): a flow through h standing queues of about the same delay
 * and drop rate (shaped links with queues of the same length) has RTT ~ h
 * and p ~ h, so its rate relative to a one-queue flow is h^(-3/2). The model
 * is the fair share's progressive filling (links.h links_fair_penalties) with
 * each flow rising at weight w = max(h, 1)^(-bias), bias = 3/2 from the
 * formula (the YAML key; 0 is the fair share exactly). Flows with equal h
 * share as in the fair share; a link's capacity is never exceeded.
 *
 * Where a standing queue is (links.h LINKS_SATURATED, the rule of the uplink
 * duplex share): at a link whose communications can offer more than it
 * drains. A NIC out is fed by its host, which offers one NIC's rate per
 * communication; any other link is fed by the links just before it on its
 * communications' routes, each passing at most its own capacity and what
 * those communications bring into it (a max flow over the routes that
 * converge on the link, which form a tree):
 *
 *     offered(l) = sum over the links u before l of min(cap(u), offered_l(u))
 *
 * (offered_l(u): the same, over l's communications only), and l holds a
 * queue when offered(l) > LINKS_SATURATED x cap(l). So a NIC in fed by one
 * sender's NIC holds none (that sender's NIC queues first), nor a wide
 * uplink below one NIC; a slow uplink below two busy NICs does. A switch
 * link whose communications all come through one other switch link (a
 * two-leaf tree's downlink after the other leaf's uplink) holds none
 * either, whatever their capacities: both are calibrated from pairs' rates
 * that differ by measurement noise (5.3 and 5.9 MB/s for two 50 Mbit/s
 * trunks in one run), and a queue between them would be read from that
 * noise; a queue there needs two upstream switch links merging. Computed
 * per evaluation from the communications in flight, so the progressive
 * evaluation and the simulator see queues drain as communications end. With one switch the links are the
 * NICs alone and the same rule applies there.
 *
 * An uplink with a measured duplex share (topology.h up_duplex, calibrate
 * --uplink-duplex) couples its two directions in the filling as in the
 * duplex model's tree rule (links.h links_duplex).
 *
 * Measured on the emulated two-leaf cluster (doc/multiswitch.md, session 13).
 */
#include "contention/penalty.h"

#include "links.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A communication's links in route order: NIC out, its switch links, NIC
 * in; numbered out(v) = v, in(v) = nn + v, switch link s = 2 nn + s. */
typedef struct seqs {
    const ct_tree_map *t;
    const ct_comm *comm; /* the graph's arcs (their multiplicities) */
    size_t nn;
    const size_t *first; /* arc i's links: link[first[i] .. first[i + 1]) */
    const int64_t *link;
} seqs;

/* (arc, position on its route): a communication arriving at a link. */
typedef struct item {
    size_t arc, pos;
    int64_t up; /* the link before pos (-1 at the NIC out: the host) */
} item;

static int cmp_item(const void *x, const void *y)
{
    const item *a = x, *b = y;
    return (a->up > b->up) - (a->up < b->up);
}

static double link_cap(const ct_tree_map *t, size_t nn, int64_t l)
{
    return l < 2 * (int64_t)nn ? 1.0 : t->up_cap[(l - 2 * (int64_t)nn) / 2];
}

/* The most the communications it[0..n) (each at its pos) can bring into
 * their link: grouped by the link u before it, each group brings at most
 * cap(u) and what its own communications bring into u (a max flow over the
 * routes converging on the link, a tree); at a NIC out the host offers one
 * NIC's rate per communication. it[] is reordered. */
static double feed(const seqs *q, item *it, size_t n, int depth)
{
    if (n == 0)
        return 0;
    if (it[0].pos == 0) { /* NIC out: every item is at position 0 of its route */
        int64_t m = 0;
        for (size_t k = 0; k < n; k++)
            m += q->comm[it[k].arc].mult;
        return (double)m;
    }
    for (size_t k = 0; k < n; k++)
        it[k].up = q->link[q->first[it[k].arc] + it[k].pos - 1];
    qsort(it, n, sizeof *it, cmp_item);
    double sum = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && it[b].up == it[a].up)
            b++;
        const int64_t u = it[a].up;
        for (size_t k = a; k < b; k++)
            it[k].pos--;
        double in = depth > 2 * LINKS_MAX_ROUTE ? INFINITY : feed(q, it + a, b - a, depth + 1);
        sum += fmin(link_cap(q->t, q->nn, u), in);
        a = b;
    }
    return sum;
}

/* weight[i] = max(h_i, 1)^(-bias), h_i the standing queues on arc i's route. */
static int queue_weights(double bias, const ct_tree_map *t, const ct_graph *g,
                         const unsigned char *active, double *weight, ct_err *err)
{
    const size_t n = g->ncomm, nn = (size_t)g->nnodes, nl = t ? 2 * (size_t)t->nswitches : 0;
    const size_t nlinks = 2 * nn + nl;
    size_t *off = NULL, *first = malloc((n + 1) * sizeof *first), *byl = NULL, *lo = NULL;
    int32_t *path = NULL;
    int64_t *link = NULL;
    item *it = NULL;
    unsigned char *queue = calloc(nlinks, 1);
    int rc = -1;
    if (!first || !queue)
        goto oom;
    if (links_routes(t, g, active, &off, &path, err) < 0)
        goto done;
    const ct_comm *c = g->comm;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        first[i] = total;
        if (!(active && !active[i]))
            total += off[i + 1] - off[i] + 2;
    }
    first[n] = total;
    if (!(link = malloc((total ? total : 1) * sizeof *link)) ||
        !(it = malloc((total ? total : 1) * sizeof *it)) ||
        !(lo = calloc(nlinks + 1, sizeof *lo)) || !(byl = malloc((total ? total : 1) * sizeof *byl)))
        goto oom;
    for (size_t i = 0; i < n; i++) {
        if (active && !active[i])
            continue;
        size_t k = first[i];
        link[k++] = c[i].src;
        for (size_t j = off[i]; j < off[i + 1]; j++)
            link[k++] = 2 * (int64_t)nn + path[j];
        link[k] = (int64_t)nn + c[i].dst;
    }
    /* the (arc, position) uses of each link, by counting sort */
    for (size_t k = 0; k < total; k++)
        lo[link[k] + 1]++;
    for (size_t l = 0; l < nlinks; l++)
        lo[l + 1] += lo[l];
    {
        size_t *fill = malloc((nlinks ? nlinks : 1) * sizeof *fill);
        if (!fill)
            goto oom;
        memcpy(fill, lo, nlinks * sizeof *fill);
        for (size_t i = 0; i < n; i++)
            if (!(active && !active[i]))
                for (size_t k = first[i]; k < first[i + 1]; k++)
                    byl[fill[link[k]]++] = i << 8 | (k - first[i]); /* pos < 2 + 128 */
        free(fill);
    }
    const seqs q = {.t = t, .comm = c, .nn = nn, .first = first, .link = link};
    for (size_t l = 0; l < nlinks; l++) {
        size_t m = lo[l + 1] - lo[l];
        int64_t up1 = -2; /* the one switch link before l, -1 when several or a NIC */
        for (size_t k = 0; k < m; k++) {
            it[k] = (item){.arc = byl[lo[l] + k] >> 8, .pos = byl[lo[l] + k] & 0xff};
            int64_t u = it[k].pos ? link[first[it[k].arc] + it[k].pos - 1] : -1;
            up1 = (up1 == -2 || up1 == u) && u >= 2 * (int64_t)nn ? u : -1;
        }
        if (l >= 2 * nn && up1 >= 0)
            continue; /* a switch link after one other: one pipe, see the top */
        queue[l] = m > 0 && feed(&q, it, m, 0) > LINKS_SATURATED * link_cap(t, nn, (int64_t)l);
    }
    for (size_t i = 0; i < n; i++) {
        weight[i] = 1.0;
        if (active && !active[i])
            continue;
        int h = 0;
        for (size_t k = first[i]; k < first[i + 1]; k++)
            h += queue[link[k]];
        if (h > 1)
            weight[i] = pow((double)h, -bias); /* Mathis 1997: rate ~ 1/(RTT sqrt(p)) */
    }
    rc = 0;
    goto done;
oom:
    ct_err_set(err, "out of memory for the standing queues of %zu arcs", n);
done:
    free(off), free(first), free(byl), free(lo), free(path), free(link), free(it);
    free(queue);
    return rc;
}

static int tcpshare_eval(const ct_penalty_model *m, const ct_tree_map *t, const ct_graph *g,
                         const unsigned char *active, double *penalty, ct_err *err)
{
    if (g->nnodes < 1)
        return ct_err_set(err, "graph with %d nodes (accepted: >= 1)", (int)g->nnodes);
    const size_t n = g->ncomm;
    double *w = malloc((n ? n : 1) * sizeof *w);
    if (!w)
        return ct_err_set(err, "out of memory for a TCP-share evaluation of %zu arcs", n);
    int rc = queue_weights(m->real[CT_TCPSHARE_BIAS], t, g, active, w, err);
    if (rc == 0)
        rc = links_fair_penalties(t, g, active, w, 1, penalty, err);
    free(w);
    return rc;
}

static int tcpshare_penalties(const ct_penalty_model *m, const ct_graph *g,
                              const unsigned char *active, double *penalty, ct_err *err)
{
    return tcpshare_eval(m, NULL, g, active, penalty, err);
}

static int tcpshare_tree(const ct_penalty_model *m, const ct_tree_map *t, const ct_graph *g,
                         const unsigned char *active, double *penalty, ct_err *err)
{
    return tcpshare_eval(m, t, g, active, penalty, err);
}

static const ct_model_key tcpshare_keys[] = {
    {.key = "bias", .unit = "1",
     .meaning = "a flow through h standing queues rises at h^-bias (our extension; Mathis 1997: 1.5)",
     .type = CT_PARAM_REAL, .slot = CT_TCPSHARE_BIAS, .required = 1, .lo = 0, .hi = 4},
};

const model_ops model_tcpshare = {
    .info = {.name = "tcpshare",
             .label = "TCP share",
             .cite = "our extension (Mathis 1997)",
             .summary = "fair share, flows through h standing queues weighted h^-bias",
             .keys = tcpshare_keys,
             .nkeys = sizeof tcpshare_keys / sizeof tcpshare_keys[0],
             .penalty_ge1 = 1,
             .latency_once = 1},
    .penalties = tcpshare_penalties,
    .tree_penalties = tcpshare_tree,
};
