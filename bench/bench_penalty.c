/* Time to evaluate the penalty models on all-to-all graphs (paper 001 §V).
 *
 * For all-to-all graphs of 16, 256 and 4,096 nodes (mult 1: 240, 65,280 and
 * 16,773,120 arcs) prints the best of R runs of the GigE model, the Stop & Go
 * model (scalable method) and the fair-share baseline, the graph's size and
 * the process's peak resident memory. Target: 4,096-node GigE < 1 s.
 * The row "4096*" has multiplicity 1 or 2 by source node: Stop & Go then runs
 * its general path (merge, components, factored closed form).
 * Usage: bench_penalty [runs=3] [max_nodes=4096]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "contention/penalty.h"

#include "stopgo.h" /* internal: paths, options, statistics */
#include "bench_common.h"

static double peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 3;
    int maxn = argc > 2 ? atoi(argv[2]) : 4096;
    if (runs < 1)
        runs = 1;
    int sizes[] = {16, 256, 4096, -4096};
    printf("%-6s %10s %10s %12s %12s %12s %10s\n", "nodes", "arcs", "graph_MiB", "gige_s",
           "stopgo_s", "fairshare_s", "peak_MiB");
    for (int k = 0; k < 4; k++) {
        /* -n: the same all-to-all with multiplicity 1 or 2 by source node, which
         * the Stop & Go fast path does not take (general closed-form path) */
        int n = sizes[k] < 0 ? -sizes[k] : sizes[k], twomult = sizes[k] < 0;
        if (n > maxn)
            break;

        ct_graph g;
        ct_err err = {{0}};
        if (ct_graph_init(&g, n, &err) < 0)
            return fprintf(stderr, "%s\n", err.msg), 1;
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++)
                if (u != v && ct_graph_add(&g, u, v, twomult ? 1 + u % 2 : 1, 1048576.0, &err) < 0)
                    return fprintf(stderr, "%s\n", err.msg), 1;
        double *p = malloc(g.ncomm * sizeof *p);
        if (!p)
            return fprintf(stderr, "out of memory\n"), 1;
        double best[3] = {1e30, 1e30, 1e30};
        sg_stats st = {0};
        double pg = 0, ps = 0, pf = 0;
        for (int r = 0; r < runs; r++) {
            double t0 = bench_now();
            if (ct_gige_penalties(0.75, 0.036, 0.115, &g, p, &err) < 0)
                return fprintf(stderr, "gige: %s\n", err.msg), 1;
            double t1 = bench_now();
            pg = p[0];
            sg_opts o = {.method = CT_STOPGO_SCALABLE};
            if (stopgo_penalties_ex(&o, &g, NULL, p, &st, &err) < 0)
                return fprintf(stderr, "stopgo: %s\n", err.msg), 1;
            double t2 = bench_now();
            ps = p[0];
            if (ct_fairshare_penalties(&g, p, &err) < 0)
                return fprintf(stderr, "fairshare: %s\n", err.msg), 1;
            double t3 = bench_now();
            pf = p[0];
            double d[3] = {t1 - t0, t2 - t1, t3 - t2};
            for (int i = 0; i < 3; i++)
                if (d[i] < best[i])
                    best[i] = d[i];
        }
        printf("%-5d%-1s %10zu %10.1f %12.4f %12.4f %12.4f %10.1f\n", n, twomult ? "*" : "",
               g.ncomm, (double)g.ncomm * sizeof(ct_comm) / 1048576.0, best[0], best[1], best[2],
               peak_mib());
        printf("       penalty of arc 0: gige %.4f, stop&go %.4f, fairshare %.4f; stop&go: %zu "
               "component(s), closed form %zu, DP %zu, MCMC %zu\n",
               pg, ps, pf, st.components, st.closed, st.dp, st.mcmc);
        free(p);
        ct_graph_free(&g);
    }
    return 0;
}
