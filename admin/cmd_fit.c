/* contention-admin fit: a fabric entry from benchmark outputs.
 * alpha, beta from ping-pong data (Hockney, least squares: ct_fit_hockney);
 * gamma, delta, M from Alltoall data (000 §V least squares:
 * ct_fit_signature). Inputs are parsed by benchparse (CSV, OSU, IMB). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admin.h"
#include "contention/alltoall.h"
#include "contention/calibrate.h"
#include "contention/benchparse.h"
#include "contention/fit.h"
#include "contention/fit_alltoall.h"
#include "contention/p2p.h"
#include "contention/svgplot.h"

#define CMD "fit"

static void help(void)
{
    printf("Usage: contention-admin fit --fabric NAME FILE... [--out FILE] [--plot FILE.svg]\n"
           "           [--tasks N] [--tasks-per-node K] [--intra-node-bandwidth MBPS]\n"
           "           [--config PATH] [--p2p-segments K] [--robust] [--incast]\n"
           "           [--max-fit-error PCT] [--force] [--incast-intercept]\n\n"
           "Fit a fabric's point-to-point parameters (alpha, bandwidth) from ping-pong data and\n"
           "its Alltoall signature (gamma, delta, M; papers 000/002 §V) from Alltoall data,\n"
           "and print a signature file holding that one fabric, with the fit diagnostics\n"
           "(R^2, max relative error, unsaturated-reference warning) as comments.\n\n"
           "Inputs (format detected from the text):\n"
           "  CSV   header benchmark,tasks,size_bytes,t_avg_s and optionally t_min_s, nodes,\n"
           "        tasks_per_node, detail (ct-mpibench output); benchmark pingpong (2 tasks,\n"
           "        one-way time) or alltoall (size per destination); seconds. Tasks per node:\n"
           "        the columns, else '# tasks_per_node: K', else --tasks-per-node, else 1.\n"
           "  OSU   osu_latency, osu_bw (bandwidth: beta = 1/peak), osu_alltoall (needs\n"
           "        '# tasks: N' in the file or --tasks).\n"
           "  IMB   IMB-MPI1 PingPong and Alltoall blocks.\n\n"
           "  --fabric NAME                name of the fabric entry (required)\n"
           "  --out FILE                   write the YAML to FILE instead of stdout\n"
           "  --plot FILE.svg              draw measured vs fitted times per process count\n"
           "  --tasks N                    processes of osu_alltoall inputs that do not say\n"
           "  --tasks-per-node K           tasks per node of Alltoall inputs that do not say\n"
           "  --intra-node-bandwidth MBPS  shared-memory bandwidth (MB/s) for K > 1\n"
           "  --config PATH                without ping-pong data, take alpha and bandwidth\n"
           "                               from fabric NAME of PATH\n"
           "  --p2p-segments K             up to K Hockney segments by size range, chosen by\n"
           "                               the fit (BIC); written as p2p.segments (default 1);\n"
           "                               a token bucket's burst (negative top intercept)\n"
           "                               is left out: the sustained line is written, as\n"
           "                               calibrate does, and where the largest sizes bend\n"
           "                               as a bucket that refills each direction while the\n"
           "                               other sends, the line rate and the bucket read off\n"
           "                               that bend (our extension, session 54)\n"
           "  --no-pingpong-refill         keep the piecewise curve's top segment there\n"
           "  --robust                     Alltoall fit weighted by the repeated runs' spread\n"
           "                               (t_min_s), M by leave-one-out error\n"
           "  --incast                     --robust with gamma(k,f) = gamma + gamma_incast (k-1)\n"
           "                               + gamma_flows (f^0.5-1)/0.5 (our extension; needs\n"
           "                               several node counts and >= 2 tasks per node) and, on 3 or\n"
           "                               more sizes >= 128 KiB, fitted on those with a\n"
           "                               per-call step in delta's place (as calibrate)\n"
           "  --incast-intercept           with --incast, an incast intercept too: a time once\n"
           "                               a call x (k-2) where k >= 3 nodes feed a port (as\n"
           "                               calibrate --incast-intercept; session 69)\n"
           "  --max-fit-error PCT          refuse a signature missing its own points (those\n"
           "                               whose spread is within PCT) by more than PCT\n"
           "                               (default 15; 0 never refuses)\n"
           "  --force                      write such a signature anyway, flagged\n\n"
           "Exit status: 0 ok, 1 unreadable input or failed fit, 2 usage error.\n");
}

typedef struct p2p_fit {
    double alpha, beta;
    ct_fit_diag diag;
    char how[160];
} p2p_fit;

/* osu_bw's peak streaming bandwidth is the better 1/beta; alpha then is the
 * weighted least-squares intercept of the latency samples (fit.c). */
static int fit_p2p_with_bw(const ct_bench_data *d, p2p_fit *pf, ct_err *err)
{
    double peak = 0;
    for (size_t i = 0; i < d->nbw; i++)
        peak = fmax(peak, d->bw[i].bw);
    pf->beta = 1.0 / peak; /* Hockney: beta = 1 / bandwidth */
    if (ct_fit_hockney_alpha(d->p2p, d->np2p, pf->beta, &pf->alpha, &pf->diag, err) < 0)
        return -1;
    snprintf(pf->how, sizeof pf->how,
             "bandwidth = peak of %zu osu_bw samples, alpha fitted on %zu "
             "latency samples",
             d->nbw, d->np2p);
    return 0;
}

typedef struct group {
    int32_t nodes, tpn;
    size_t first, n;
} group;

static int cmp_sample(const void *a, const void *b)
{
    const ct_a2a_sample *x = a, *y = b;
    if (x->nodes != y->nodes)
        return x->nodes < y->nodes ? -1 : 1;
    if (x->tasks_per_node != y->tasks_per_node)
        return x->tasks_per_node < y->tasks_per_node ? -1 : 1;
    return x->m < y->m ? -1 : x->m > y->m;
}

static int plot(const char *path, const char *fabric, const ct_bench_data *d, const p2p_fit *pf,
                const ct_a2a_sample *a2a, size_t na2a, const ct_a2a_sig *sig, double intra_bw)
{
    /* a2a is sorted by (nodes, tasks_per_node, m): one group per process layout */
    group *groups = calloc(na2a + 1, sizeof *groups);
    size_t ng = 0, npp = 0;
    double *buf = malloc((3 * (na2a + d->np2p) + 1) * sizeof *buf);
    ct_svg_series *series = calloc(2 * (na2a + 1), sizeof *series);
    char(*labels)[2][48] = calloc(na2a + 1, sizeof *labels);
    int rc = ADMIN_INVALID;
    if (!groups || !buf || !series || !labels) {
        admin_fail(CMD, "out of memory while plotting");
        goto out;
    }
    for (size_t i = 0; i < na2a; i++) {
        if (ng && groups[ng - 1].nodes == a2a[i].nodes &&
            groups[ng - 1].tpn == a2a[i].tasks_per_node) {
            groups[ng - 1].n++;
        } else {
            groups[ng++] = (group){a2a[i].nodes, a2a[i].tasks_per_node, i, 1};
        }
    }
    double *x = buf, *ym = buf + na2a + d->np2p, *yf = buf + 2 * (na2a + d->np2p);
    size_t ns = 0;
    for (size_t g = 0; g < ng; g++) {
        for (size_t k = 0; k < groups[g].n; k++) {
            const ct_a2a_sample *s = &a2a[groups[g].first + k];
            x[groups[g].first + k] = s->m;
            ym[groups[g].first + k] = s->t;
            /* the fitted model: layout-aware 000 eq. 5 */
            yf[groups[g].first + k] = ct_a2a_uniform(s->nodes, s->tasks_per_node, pf->alpha,
                                                     pf->beta, s->m, sig, intra_bw);
        }
        int32_t n = groups[g].nodes * groups[g].tpn;
        if (groups[g].tpn > 1)
            snprintf(labels[g][0], sizeof labels[g][0], "n=%d (%dx%d) measured", (int)n,
                     (int)groups[g].nodes, (int)groups[g].tpn);
        else
            snprintf(labels[g][0], sizeof labels[g][0], "n=%d measured", (int)n);
        snprintf(labels[g][1], sizeof labels[g][1], "n=%d fitted", (int)n);
        series[ns++] = (ct_svg_series){labels[g][0],
                                       x + groups[g].first,
                                       ym + groups[g].first,
                                       groups[g].n,
                                       CT_SVG_MARKERS,
                                       (int)g,
                                       0};
        series[ns++] = (ct_svg_series){labels[g][1],
                                       x + groups[g].first,
                                       yf + groups[g].first,
                                       groups[g].n,
                                       CT_SVG_LINE,
                                       (int)g,
                                       0};
    }
    /* ping-pong samples with m > 0 (the log axis cannot show m = 0) */
    double *px = x + na2a, *pm = ym + na2a, *pfit = yf + na2a;
    for (size_t i = 0; i < d->np2p; i++) {
        if (d->p2p[i].m > 0) {
            px[npp] = d->p2p[i].m;
            pm[npp] = d->p2p[i].t;
            pfit[npp] = pf->alpha + d->p2p[i].m * pf->beta; /* Hockney */
            npp++;
        }
    }
    /* sort the ping-pong points by size so the fitted line reads left to right */
    for (size_t i = 1; i < npp; i++)
        for (size_t j = i; j > 0 && px[j - 1] > px[j]; j--) {
            double t;
            t = px[j], px[j] = px[j - 1], px[j - 1] = t;
            t = pm[j], pm[j] = pm[j - 1], pm[j - 1] = t;
            t = pfit[j], pfit[j] = pfit[j - 1], pfit[j - 1] = t;
        }
    if (npp) {
        series[ns++] = (ct_svg_series){"ping-pong measured", px, pm, npp, CT_SVG_MARKERS, 9, 0};
        series[ns++] = (ct_svg_series){"ping-pong fitted", px, pfit, npp, CT_SVG_LINE, 9, 1};
    }
    char title[160];
    snprintf(title, sizeof title, "fabric %s: measured (dots) vs fitted (lines)", fabric);
    ct_svg_plot p = {title, "message size per destination (bytes)", "time (s)", 0, 0, 1, 1};
    admin_atomic w;
    if (admin_atomic_open(&w, path, 0644) < 0) {
        admin_fail(CMD, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        goto out;
    }
    ct_err err;
    if (ct_svg_write(w.f, &p, series, ns, &err) < 0) {
        admin_atomic_abort(&w);
        admin_fail(CMD, "%s: %s", path, err.msg);
        goto out;
    }
    if (admin_atomic_commit(&w, NULL) < 0 && !w.renamed) {
        admin_fail(CMD, "%s: write error: %s", path, strerror(errno));
        goto out;
    }
    rc = ADMIN_OK;
out:
    free(groups);
    free(buf);
    free(series);
    free(labels);
    return rc;
}

static void append(char *dst, size_t sz, const char *fmt, const char *s)
{
    size_t used = strlen(dst);
    if (used + 1 < sz)
        snprintf(dst + used, sz - used, fmt, s);
}

int cmd_fit(int argc, char **argv)
{
    static const struct option opts[] = {{"fabric", required_argument, NULL, 'f'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"plot", required_argument, NULL, 'p'},
                                         {"tasks", required_argument, NULL, 'n'},
                                         {"tasks-per-node", required_argument, NULL, 'k'},
                                         {"intra-node-bandwidth", required_argument, NULL, 'i'},
                                         {"config", required_argument, NULL, 'c'},
                                         {"p2p-segments", required_argument, NULL, 'S'},
                                         {"robust", no_argument, NULL, 'R'},
                                         {"incast", no_argument, NULL, 'I'},
                                         {"max-fit-error", required_argument, NULL, 'E'},
                                         {"force", no_argument, NULL, 'F'},
                                         {"no-pingpong-refill", no_argument, NULL, 'g'},
                                         {"incast-intercept", no_argument, NULL, 'K'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = CMD,
                      .shortopts = "f:o:p:n:k:i:c:h",
                      .longopts = opts,
                      .accepted = "--fabric, --out, --plot, --tasks, --tasks-per-node, "
                                  "--intra-node-bandwidth, --config, --p2p-segments, --robust, "
                                  "--incast, --max-fit-error, --force, --no-pingpong-refill, "
                                  "--incast-intercept, --help",
                      .help = help};
    const char *out = NULL, *svg = NULL;
    long tasks = 0, tpn = 0;
    double intra_mbps = 0, max_err_pct = 15;
    long nseg = 1;
    int robust = 0, incast = 0, force = 0, no_refill = 0, intercept = 0;
    int c;
    while ((c = admin_next_opt(&opt, argc, argv)) > 0) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'p':
            svg = optarg;
            break;
        case 'n':
            if (admin_int_opt(CMD, "--tasks", optarg, 2, INT32_MAX, &tasks) < 0)
                return ADMIN_USAGE;
            break;
        case 'k':
            if (admin_int_opt(CMD, "--tasks-per-node", optarg, 1, INT32_MAX, &tpn) < 0)
                return ADMIN_USAGE;
            break;
        case 'S':
            if (admin_int_opt(CMD, "--p2p-segments", optarg, 1, CT_P2P_MAX_SEG, &nseg) < 0)
                return ADMIN_USAGE;
            break;
        case 'R':
            robust = 1;
            break;
        case 'I':
            robust = incast = 1;
            break;
        case 'F':
            force = 1;
            break;
        case 'g':
            no_refill = 1;
            break;
        case 'K':
            intercept = 1;
            break;
        case 'E':
            if (admin_pct_opt(CMD, "--max-fit-error", optarg, INFINITY, &max_err_pct) < 0)
                return ADMIN_USAGE;
            break;
        case 'i': {
            char *end = NULL;
            intra_mbps = strtod(optarg, &end);
            if (!*optarg || *end || !isfinite(intra_mbps) || intra_mbps < 0)
                return admin_usage(CMD, "--intra-node-bandwidth '%s' (accepted: MB/s >= 0)",
                                   optarg);
            break;
        }
        }
    }
    if (c < 0)
        return opt.status;
    const char *name = opt.fabric, *config = opt.config;
    if (!name)
        return admin_usage(CMD, "--fabric NAME is required");
    if (optind >= argc)
        return admin_usage(CMD, "no benchmark FILE given");
    if (intercept && !incast)
        return admin_usage(CMD, "--incast-intercept without --incast (accepted: with --incast: "
                                "the intercept is fitted beside its gamma(k, f) and per-call "
                                "step)");

    ct_fabric fab;
    if (admin_new_fabric(CMD, name, &fab) != ADMIN_OK)
        return ADMIN_USAGE;
    ct_err err;

    ct_bench_defaults def = {(int32_t)tasks, (int32_t)tpn};
    ct_bench_data data;
    memset(&data, 0, sizeof data);
    ct_sigfile cfg;
    memset(&cfg, 0, sizeof cfg);
    ct_a2a_sample *a2a = NULL;
    FILE *o = NULL;
    admin_atomic wout = {NULL, "", "", 0};
    int rc = ADMIN_INVALID;
    char files[CT_TEXT_MAX] = "";
    for (int i = optind; i < argc; i++) {
        ct_bench_format fmt;
        if (ct_bench_parse_file(argv[i], &def, &data, &fmt, &err) < 0) {
            admin_fail(CMD, "%s", err.msg);
            goto out;
        }
        char item[CT_TEXT_MAX];
        const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        snprintf(item, sizeof item, "%s%s (%s)", i > optind ? ", " : "", base,
                 ct_bench_format_name(fmt));
        append(files, sizeof files, "%s", item);
    }

    /* point-to-point */
    p2p_fit pf;
    memset(&pf, 0, sizeof pf);
    ct_p2p_curve curve, pingpong; /* what predictions use; the ping-pong's own fit */
    memset(&curve, 0, sizeof curve);
    memset(&pingpong, 0, sizeof pingpong);
    double burst = 0;
    int refill_read = 0; /* the line rate and bucket read off the ping-pong's refill */
    ct_p2p_seg_diag segdiag[CT_P2P_MAX_SEG];
    memset(segdiag, 0, sizeof segdiag);
    if (data.nbw && data.np2p) {
        if (fit_p2p_with_bw(&data, &pf, &err) < 0) {
            admin_fail(CMD, "point-to-point fit: %s", err.msg);
            goto out;
        }
    } else if (data.nbw) {
        admin_fail(CMD, "osu_bw output gives the bandwidth but no latency (accepted: add "
                        "osu_latency output, or ping-pong rows)");
        goto out;
    } else if (data.np2p) {
        ct_p2p_fit_opts po;
        ct_p2p_fit_opts_default(&po);
        po.max_seg = (size_t)nseg;
        if (po.max_seg == 1)
            po.spread_floor = 0; /* the papers' single line, exactly ct_fit_hockney */
        if (ct_fit_hockney_piecewise(data.p2p, data.np2p, &po, &curve, &pf.diag, segdiag, &err) <
            0) {
            admin_fail(CMD, "point-to-point fit: %s", err.msg);
            goto out;
        }
        /* several segments: like calibrate (ct_calib_opts.sustained and
         * pingpong_refill, one rule: ct_p2p_sustained_read), the signature
         * and the Alltoall fit use the sustained curve, since a token
         * bucket's burst is no sustained rate (p2p.h), read off the
         * ping-pong's own refill where its largest sizes show it */
        if (curve.nseg > 1) {
            pingpong = curve;
            refill_read = ct_p2p_sustained_read(&pingpong, data.p2p, data.np2p, !no_refill,
                                                &curve, &burst);
        }
        pf.alpha = curve.seg[0].alpha; /* one segment: exactly ct_fit_hockney */
        pf.beta = curve.seg[0].beta;
        snprintf(pf.how, sizeof pf.how, "Hockney least squares on %zu ping-pong samples%s%s",
                 data.np2p, pingpong.nseg > 1 ? ", piecewise by size (BIC)" : "",
                 refill_read ? ", line rate and bucket read off its own refill"
                 : burst > 0 ? ", sustained rate (token bucket burst left out)"
                             : "");
        double miss, at;
        const ct_p2p_curve *fitted = pingpong.nseg > 1 ? &pingpong : &curve;
        ct_p2p_worst_miss(fitted, data.p2p, data.np2p, max_err_pct / 100, 2 * burst, &miss,
                          &at);
        if (max_err_pct > 0 && miss > max_err_pct / 100) {
            char note[CT_ERR_MAX];
            fprintf(stderr, "contention-admin %s: WARNING: %s\n", CMD,
                    admin_p2p_miss_note(fitted->nseg, (size_t)nseg, miss, at, max_err_pct,
                                        "--p2p-segments 4", note, sizeof note));
        }
        char bend[CT_ERR_MAX];
        if (!refill_read &&
            admin_p2p_bend_note(data.p2p, data.np2p, fitted, &curve, burst,
                                "without --no-pingpong-refill fit and calibrate read the line "
                                "rate and the bucket so",
                                bend, sizeof bend))
            fprintf(stderr, "contention-admin %s: WARNING: %s\n", CMD, bend);
    } else if (config) {
        const ct_fabric *cf = admin_load_fabric(CMD, config, name, &cfg);
        if (!cf)
            goto out;
        pf.alpha = cf->alpha;
        pf.beta = cf->beta;
        snprintf(pf.how, sizeof pf.how, "taken from fabric %s of %s", name, config);
    } else {
        admin_fail(CMD,
                   "no ping-pong data (accepted: pingpong CSV rows, osu_latency or IMB "
                   "PingPong output, or --config PATH to reuse that fabric's alpha and bandwidth)");
        goto out;
    }
    fab.alpha = pf.alpha;
    fab.beta = pf.beta;
    if (curve.nseg > 1)
        fab.p2p_segments = curve; /* every model reads it through ct_fabric_p2p_at */
    else
        ct_p2p_single(&curve, pf.alpha, pf.beta);
    double intra_bw = intra_mbps * 1e6;
    fab.intra_bw = intra_bw;

    char today[16];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(today, sizeof today, "%Y-%m-%d", &tm);
    snprintf(fab.p2p_source, sizeof fab.p2p_source, "contention-admin fit %s: %s", today, pf.how);

    /* Alltoall signature: m = 0 rows carry no bandwidth term and the fit
     * refuses them, so they are left out */
    size_t na2a = 0, dropped = 0;
    ct_fit_diag ad;
    memset(&ad, 0, sizeof ad);
    ct_a2a_fit_report arep;
    memset(&arep, 0, sizeof arep);
    ct_a2a_sig sig = {.gamma = 1, .delta = 0, .M = 0};
    int32_t nmin = INT32_MAX, nmax = 0;
    if (data.na2a) {
        a2a = malloc(data.na2a * sizeof *a2a);
        if (!a2a) {
            admin_fail(CMD, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < data.na2a; i++) {
            if (data.a2a[i].m > 0)
                a2a[na2a++] = data.a2a[i];
            else
                dropped++;
        }
        qsort(a2a, na2a, sizeof *a2a, cmp_sample);
        for (size_t i = 0; i < na2a; i++) {
            int32_t n = a2a[i].nodes * a2a[i].tasks_per_node;
            nmin = n < nmin ? n : nmin;
            nmax = n > nmax ? n : nmax;
        }
        ct_a2a_fit_opts ao;
        ct_a2a_fit_opts_default(&ao);
        ao.incast = incast;
        /* --incast is calibrate --incast's fit: the per-call step on the
         * saturated sizes (fit_alltoall.h; with fewer than 3 sizes >= 128 KiB
         * the fit before it, noted) */
        ct_calib_opts co; /* calibrate's saturated range, not a second constant */
        ct_calib_opts_default(&co);
        char fl[CT_ERR_MAX];
        if (admin_a2a_floor_note(a2a, na2a, co.saturated_m,
                                 "measure larger sizes per destination (contention-admin "
                                 "calibrate --sizes 32K,64K,512K,1M,2M, e.g.) to put the "
                                 "saturated points above it",
                                 fl, sizeof fl))
            fprintf(stderr, "contention-admin %s: WARNING: %s\n", CMD, fl);
        ao.call_step = incast;
        ao.min_m = incast ? co.saturated_m : 0;
        ao.max_fit_err = max_err_pct / 100;
        ao.force = force;
        if (incast) /* the incast-loss term (alltoall.h), as calibrate fits it */
            ct_calib_loss_bounds(a2a, na2a, &ao.loss_min_f, &ao.loss_max_f);
        if (robust) {
            /* the incast intercept (alltoall.h, session 69) as calibrate
             * --incast-intercept fits it: where the fit with it is refused,
             * the fit without it */
            ao.call_incast = incast && intercept;
            int frc = ct_fit_signature_robust(a2a, na2a, &curve, intra_bw, &ao, &sig, &arep, &err);
            if (frc < 0 && ao.call_incast) {
                fprintf(stderr,
                        "contention-admin %s: WARNING: --incast-intercept: the fit with the incast "
                        "intercept was refused (%s); fitting without it\n",
                        CMD, err.msg);
                ao.call_incast = 0;
                frc = ct_fit_signature_robust(a2a, na2a, &curve, intra_bw, &ao, &sig, &arep, &err);
            }
            if (frc < 0) {
                admin_fail(CMD, "Alltoall signature fit: %s", err.msg);
                goto out;
            }
            ad = arep.diag;
        } else {
            if (ct_fit_signature(a2a, na2a, pf.alpha, pf.beta, intra_bw, NULL, 0, &sig, &ad,
                                 &err) < 0) {
                admin_fail(CMD, "Alltoall signature fit: %s", err.msg);
                goto out;
            }
            /* the same threshold on the paper's fit: points within their own spread */
            for (size_t i = 0; i < na2a; i++) {
                double e = fabs(ct_a2a_predict_sample(&a2a[i], &curve, intra_bw, &sig) -
                                a2a[i].t) / a2a[i].t;
                if (ao.max_fit_err > 0 && ct_a2a_sample_spread(&a2a[i]) <= ao.max_fit_err &&
                    e > arep.max_err_trusted)
                    arep.max_err_trusted = e;
            }
            arep.over_threshold = ao.max_fit_err > 0 && arep.max_err_trusted > ao.max_fit_err;
        }
        if (arep.over_threshold && !force) {
            admin_fail(CMD,
                       "Alltoall signature fit refused: it misses its own points by up to "
                       "%.1f%% (accepted: <= --max-fit-error %.1f%%; measure more repetitions, "
                       "try --robust or --incast, or --force to write it flagged)",
                       100 * arep.max_err_trusted, max_err_pct);
            goto out;
        }
        fab.has_alltoall = 1;
        fab.alltoall = sig;
        memcpy(fab.a2a_date, today, sizeof today);
        fab.a2a_fitted_n = nmax;
        fab.a2a_fit_error = ad.max_rel_err;
    }
    snprintf(fab.description, sizeof fab.description, "fitted by contention-admin fit on %s",
             today);
    snprintf(fab.source, sizeof fab.source, "contention-admin fit %s from %s", today, files);
    snprintf(fab.penalty_source, sizeof fab.penalty_source,
             "not fitted: choose a model by hand (gige, stopgo, fairshare; conf/README.md)");
    if (ct_fabric_validate(&fab, &err) < 0) {
        admin_fail(CMD, "the fitted values are out of range: %s", err.msg);
        goto out;
    }

    o = stdout;
    if (out) {
        if (admin_atomic_open(&wout, out, 0644) < 0) {
            admin_fail(CMD, "%s: cannot create a temporary file beside it: %s", out,
                       strerror(errno));
            goto out;
        }
        o = wout.f;
    }
    char t1[32], t2[32], sp[96], bw[80];
    fprintf(o, "# Fitted by contention-admin fit on %s from: %s\n", today, files);
    fprintf(o, "# point-to-point: %s\n#   alpha = %s, bandwidth = %.6g MB/s", pf.how,
            admin_fmt_time(pf.alpha, t1, sizeof t1), 1.0 / pf.beta / 1e6);
    if (pf.diag.npoints)
        fprintf(o, "; R^2 = %.6f, max rel err %.2f%%, mean %.2f%%", pf.diag.r2,
                100 * pf.diag.max_rel_err, 100 * pf.diag.mean_abs_rel_err);
    fputc('\n', o);
    if (pf.diag.warning[0])
        fprintf(o, "#   WARNING: %s\n", pf.diag.warning);
    for (size_t q = 0; pingpong.nseg > 1 && q < pingpong.nseg; q++)
        fprintf(o,
                "#   segment %zu from %.0f B: alpha = %s, bandwidth = %s; %zu samples "
                "%.0f..%.0f B, R^2 = %.6f, max rel err %.2f%%%s\n",
                q + 1, pingpong.seg[q].from,
                admin_fmt_time(pingpong.seg[q].alpha, t1, sizeof t1),
                admin_seg_bw(pingpong.seg[q].beta, bw, sizeof bw), segdiag[q].npoints,
                segdiag[q].m_lo,
                segdiag[q].m_hi, segdiag[q].r2, 100 * segdiag[q].max_rel_err,
                admin_seg_spread(&segdiag[q], sp, sizeof sp));
    if (refill_read)
        fprintf(o,
                "#   token bucket: the ping-pong's largest sizes bend as a bucket of about %.0f B "
                "that refills each direction while the other sends (t = alpha + max(m/2r, "
                "(m - B)/r) from 256 KiB); the signature uses alpha = %s, %.6g MB/s for every "
                "size\n",
                burst, admin_fmt_time(curve.seg[0].alpha, t2, sizeof t2),
                1.0 / curve.seg[0].beta / 1e6);
    else if (burst > 0)
        fprintf(o,
                "#   token bucket: the ping-pong passes about %.0f B at memory speed after an "
                "idle link (top segment alpha = %s); back-to-back traffic runs at the line "
                "rate: the signature uses alpha = %s, %.6g MB/s for every size\n",
                burst, admin_fmt_time(pingpong.seg[pingpong.nseg - 1].alpha, t1, sizeof t1),
                admin_fmt_time(curve.seg[0].alpha, t2, sizeof t2), 1.0 / curve.seg[0].beta / 1e6);
    if (fab.has_alltoall) {
        fprintf(o, "# alltoall (000 eq. 5): %zu samples, n = %d..%d", na2a, (int)nmin, (int)nmax);
        if (dropped)
            fprintf(o, " (%zu zero-byte rows left out)", dropped);
        fprintf(o,
                "\n#   gamma = %.6g, delta = %s, M = %.0f bytes; R^2 = %.6f, max rel err "
                "%.2f%%, mean %.2f%%\n",
                sig.gamma, admin_fmt_time(sig.delta, t2, sizeof t2), sig.M, ad.r2,
                100 * ad.max_rel_err, 100 * ad.mean_abs_rel_err);
        if (sig.gamma_incast > 0 || sig.gamma_flows > 0 || incast)
            fprintf(o, "#   gamma(k,f) = %.6g + %.6g (k-1) + %.6g %s (our extension)%s%s\n",
                    sig.gamma, sig.gamma_incast, sig.gamma_flows,
                    admin_flows_g(sig.flows_exp, t1, sizeof t1), arep.note[0] ? "; " : "",
                    arep.note);
        if (sig.gamma_loss > 0) /* alltoall.h: session 24 */
            fprintf(o, "#   incast loss: + %.6g 2(k-1)/k at >= %.0f flows a port from k >= 2 nodes, "
                       "none at <= %.0f (our extension)\n",
                    sig.gamma_loss, sig.loss_max_f, sig.loss_min_f);
        if (sig.call != 0)
            fprintf(o, "#   per-call step %s (%s; our extension), fitted on m >= %s\n",
                    admin_fmt_time(sig.call, t2, sizeof t2), admin_call_what(sig.call),
                    admin_fmt_bytes(arep.fit_min_m, t1, sizeof t1));
        if (sig.call_incast > 0) /* alltoall.h: session 69 */
            fprintf(o, "#   incast intercept: + %s a call x (k-2) at a port k >= 3 nodes feed, k "
                       "held at %.0f (our extension)\n",
                    admin_fmt_time(sig.call_incast, t2, sizeof t2), sig.k_max);
        if (robust) {
            char jk[256];
            fprintf(o, "#   robust fit: leave-one-out error %.2f spreads (M = 0: %.2f)\n",
                    arep.cv_rms, arep.cv_rms_M0);
            if (arep.model_scatter > 0)
                fprintf(o, "#   %s\n", admin_scatter_line(&arep, jk, sizeof jk));
            if (admin_jackknife(&arep, &sig, jk, sizeof jk)[0])
                fprintf(o, "#   jackknife (each of the %zu fitted samples left out in turn): %s\n",
                        arep.jk_n, jk);
        }
        if (arep.over_threshold)
            fprintf(o, "#   WARNING: FORCED: the fit misses its own points by up to %.1f%% "
                       "(threshold %.1f%%)\n",
                    100 * arep.max_err_trusted, max_err_pct);
        if (ad.warning[0] || ad.unsaturated)
            fprintf(o, "#   WARNING: %s\n",
                    ad.warning[0] ? ad.warning : "reference data look unsaturated");
    } else {
        fprintf(o, "# alltoall: no Alltoall data, no signature fitted\n");
    }
    fprintf(o, "# Copy the entry under `fabrics:` into your signature file, or install this\n"
               "# file as it is (contention-admin install).\n");
    ct_sigfile one;
    memset(&one, 0, sizeof one);
    one.version = CT_SIG_VERSION;
    one.nfabrics = 1;
    one.fabrics = &fab;
    one.default_fabric = 0;
    if (ct_sigfile_write(o, &one, &err) < 0) {
        admin_fail(CMD, "%s", err.msg);
        goto out;
    }
    if (out) {
        o = NULL;
        if (admin_atomic_commit(&wout, NULL) < 0 && !wout.renamed) {
            admin_fail(CMD, "%s: write error: %s", out, strerror(errno));
            goto out;
        }
        printf("wrote fabric %s to %s\n", name, out);
    }
    if (ad.warning[0] || ad.unsaturated)
        fprintf(stderr, "contention-admin fit: warning: %s\n",
                ad.warning[0] ? ad.warning : "reference data look unsaturated");
    if (svg) {
        if (plot(svg, name, &data, &pf, a2a, na2a, &sig, intra_bw) != ADMIN_OK)
            goto out;
        if (out)
            printf("wrote plot to %s\n", svg);
    }
    rc = ADMIN_OK;
out:
    admin_atomic_abort(&wout);
    free(a2a);
    ct_bench_free(&data);
    ct_sigfile_free(&cfg);
    return rc;
}
