/* Error of the Stop & Go estimates against exact enumeration (paper 001 §V-B).
 *
 * Prints, over N random small graphs (3..8 nodes, random density, mult 1..3,
 * at most 40 communications; fixed seed), the maximum and mean relative error
 * of every arc's penalty for:
 *   - the MCMC estimate forced on every component (what runs on components
 *     too large for the exact paths), and
 *   - the method CT_STOPGO_SCALABLE as shipped (closed form / DP / MCMC).
 * Then the MCMC estimate on larger components where the frontier DP is still
 * exact (2-D periodic halos, random sparse graphs of 40 nodes).
 * Usage: bench_stopgo_error [N=1000] [seed=1]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "contention/penalty.h"

#include "stopgo.h" /* internal: paths, options, statistics */

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void random_graph(ct_graph *g, uint64_t *s, int nmin, int nmax, int maxcomm, double dmax)
{
    for (;;) {
        int n = nmin + (int)(lcg(s) % (uint64_t)(nmax - nmin + 1));
        double dens = 0.15 + (dmax - 0.15) * (double)(lcg(s) % 1000) / 1000.0;
        ct_graph_init(g, n, NULL);
        int total = 0;
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++) {
                if (u == v || (double)(lcg(s) % 1000) / 1000.0 >= dens)
                    continue;
                int64_t m = (lcg(s) % 5 == 0) ? 2 + (int64_t)(lcg(s) % 2) : 1;
                ct_graph_add(g, u, v, m, 1.0, NULL);
                total += (int)m;
            }
        if (total >= 2 && total <= maxcomm)
            return;
        ct_graph_free(g);
    }
}

typedef struct errstat {
    double max, sum_graph_max, sum_arc;
    size_t ngraph, narc;
} errstat;

static void account(errstat *e, const double *got, const double *ref, size_t n)
{
    double gmax = 0;
    for (size_t i = 0; i < n; i++) {
        double r = fabs(got[i] - ref[i]) / ref[i];
        e->sum_arc += r;
        if (r > gmax)
            gmax = r;
    }
    e->narc += n;
    e->ngraph++;
    e->sum_graph_max += gmax;
    if (gmax > e->max)
        e->max = gmax;
}

static void report(const char *what, const errstat *e, double secs)
{
    printf("%-34s graphs %5zu  max %.4f  mean(graph max) %.4f  mean(arc) %.5f  time %.2f s\n",
           what, e->ngraph, e->max, e->sum_graph_max / (double)e->ngraph,
           e->sum_arc / (double)e->narc, secs);
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 1000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    errstat em = {0}, es = {0};
    double tm = 0, ts = 0, te = 0;
    uint64_t s = seed;
    for (int t = 0; t < N; t++) {
        ct_graph g;
        random_graph(&g, &s, 3, 8, 40, 0.6);
        double *ref = malloc(g.ncomm * sizeof *ref), *got = malloc(g.ncomm * sizeof *got);
        ct_err err = {{0}};
        double t0 = now();
        if (ct_stopgo_penalties(CT_STOPGO_EXACT, 0, &g, ref, &err) < 0) {
            fprintf(stderr, "exact: %s\n", err.msg);
            return 1;
        }
        double t1 = now();
        sg_opts o = {.force = SG_MCMC, .seed = (unsigned long)t + 1};
        if (stopgo_penalties_ex(&o, &g, NULL, got, NULL, &err) < 0) {
            fprintf(stderr, "mcmc: %s\n", err.msg);
            return 1;
        }
        double t2 = now();
        account(&em, got, ref, g.ncomm);
        if (ct_stopgo_penalties(CT_STOPGO_SCALABLE, 0, &g, got, &err) < 0) {
            fprintf(stderr, "scalable: %s\n", err.msg);
            return 1;
        }
        double t3 = now();
        account(&es, got, ref, g.ncomm);
        te += t1 - t0, tm += t2 - t1, ts += t3 - t2;
        free(ref), free(got);
        ct_graph_free(&g);
    }
    printf("Stop & Go penalty error vs exact enumeration, %d random graphs (3-8 nodes, <= 40 "
           "communications, seed %llu); exact took %.2f s\n",
           N, (unsigned long long)seed, te);
    report("MCMC forced on every component", &em, tm);
    report("SCALABLE (closed form/DP/MCMC)", &es, ts);

    /* Larger components: DP exact vs MCMC. */
    printf("\nMCMC vs exact frontier DP on larger components:\n");
    for (int k = 4; k <= 8; k += 2) {
        ct_graph g;
        ct_graph_init(&g, k * k, NULL);
        for (int i = 0; i < k; i++)
            for (int j = 0; j < k; j++) {
                int u = i * k + j;
                ct_graph_add(&g, u, ((i + 1) % k) * k + j, 1, 1.0, NULL);
                ct_graph_add(&g, u, ((i + k - 1) % k) * k + j, 1, 1.0, NULL);
                ct_graph_add(&g, u, i * k + (j + 1) % k, 1, 1.0, NULL);
                ct_graph_add(&g, u, i * k + (j + k - 1) % k, 1, 1.0, NULL);
            }
        double *ref = malloc(g.ncomm * sizeof *ref), *got = malloc(g.ncomm * sizeof *got);
        sg_opts od = {.force = SG_DP}, om = {.force = SG_MCMC, .seed = 3};
        sg_stats st;
        ct_err err = {{0}};
        double t0 = now();
        if (stopgo_penalties_ex(&od, &g, NULL, ref, &st, &err) < 0) {
            printf("  halo2d %dx%d: DP out of reach (%s)\n", k, k, err.msg);
        } else {
            double t1 = now();
            stopgo_penalties_ex(&om, &g, NULL, got, NULL, NULL);
            double t2 = now();
            errstat e = {0};
            account(&e, got, ref, g.ncomm);
            printf("  halo2d %dx%d (%zu arcs): DP %.3f s (%zu states), MCMC %.3f s, max rel error "
                   "%.4f, mean %.5f\n",
                   k, k, g.ncomm, t1 - t0, st.max_dp_states, t2 - t1, e.max,
                   e.sum_arc / (double)e.narc);
        }
        free(ref), free(got);
        ct_graph_free(&g);
    }
    errstat eb = {0};
    double tb = 0;
    uint64_t s2 = seed + 99;
    size_t skipped = 0;
    for (int t = 0; t < 20; t++) {
        ct_graph g;
        ct_graph_init(&g, 40, NULL);
        for (int u = 0; u < 40; u++) /* ~2.5 random destinations per node, local-ish */
            for (int d = 1; d <= 5; d++)
                if (lcg(&s2) % 2)
                    ct_graph_add(&g, u, (u + d * (1 + (int)(lcg(&s2) % 3))) % 40, 1, 1.0, NULL);
        double *ref = malloc(g.ncomm * sizeof *ref), *got = malloc(g.ncomm * sizeof *got);
        sg_opts od = {.force = SG_DP}, om = {.force = SG_MCMC, .seed = 5};
        if (stopgo_penalties_ex(&od, &g, NULL, ref, NULL, NULL) < 0) {
            skipped++;
        } else {
            double t0 = now();
            stopgo_penalties_ex(&om, &g, NULL, got, NULL, NULL);
            tb += now() - t0;
            account(&eb, got, ref, g.ncomm);
        }
        free(ref), free(got);
        ct_graph_free(&g);
    }
    if (eb.ngraph)
        report("  MCMC, random sparse 40 nodes", &eb, tb);
    printf("  (%zu of 20 sparse graphs beyond the DP's reach, skipped)\n", skipped);
    return 0;
}
