/* contention-admin calibrate: measure a partition through Slurm and fit a
 * fabric entry.
 *
 * One allocation (salloc --no-shell) holds the nodes; each measurement is
 * one srun step of bench/mpi/ct-mpibench inside it (calibrate_jobs.c). The
 * fit and its validation on held-back samples are modelcore's (calibrate.h);
 * this file reads the options and orders the work; calibrate_report.c
 * reports and writes. Ctrl-C (or SIGTERM/SIGHUP) stops the running step,
 * cancels the allocation and leaves no partial output file: outputs are
 * written to a temporary file renamed into place at the end. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "calibrate.h"
#include "contention/fit_alltoall.h"
#include "contention/p2p.h"

static void help(void)
{
    printf("Usage: contention-admin calibrate --fabric NAME --partition P [--nodes N]\n"
           "                                  [--out FILE] [--plot FILE.svg] [OPTIONS]\n\n"
           "Measure partition P through Slurm (one salloc allocation, one srun step per\n"
           "measurement of bench/mpi/ct-mpibench), fit the Hockney parameters, the Alltoall\n"
           "contention signature (papers 000/002 §V: on ONE configuration, N nodes x 1 task)\n"
           "and the GigE penalty parameters (paper 001 §V-A), validate the signature on the\n"
           "measurements it was not fitted on, and write a signature file mapping P to NAME.\n\n"
           "Options:\n"
           "  --fabric NAME           fabric name in the output (required)\n"
           "  --partition P           Slurm partition to measure (required unless --from)\n"
           "  --nodes N               nodes to use (default: the partition's, at most 8)\n"
           "  --tasks-per-node C      largest tasks per node measured (default: min(4, CPUs))\n"
           "  --out FILE              write the signature file there (default: stdout)\n"
           "  --plot FILE.svg         draw measured and predicted Alltoall times\n"
           "  --sizes LIST            Alltoall sizes per destination (default 32K,64K,128K,256K,512K,\n"
           "                          moved to " CALIB_FLOOR_SIZES " where the 2x1's 128K took at most\n"
           "                          1.10 x its 32K: the call's floor, not the link, sets it)\n"
           "  --reps R                repetitions per measurement (default 5)\n"
           "  --quick                 fewer sizes and repetitions (sizes 32K..256K, 3 reps)\n"
           "  --no-conflicts          skip the conflict schemes (no penalty parameters)\n"
           "  --conflict-size M       message size of the conflict schemes (default 1M)\n"
           "  --raw DIR               keep the benchmark outputs in DIR (created)\n"
           "  --points FILE           write every Alltoall sample as CSV: nodes,tasks_per_node,\n"
           "                          size_bytes,measured_s,predicted_s,bound_s,rel_err,held\n"
           "  --from DIR              fit outputs kept by --raw, without measuring\n"
           "  --bench PATH            the ct-mpibench program (default: beside this tool,\n"
           "                          then $CT_MPIBENCH, then PATH)\n"
           "  --mpi TYPE              srun --mpi type for the steps (default pmix; none: omit)\n"
           "  --time-limit MIN        allocation time limit in minutes (default 60)\n"
           "  --incast                this project's fit instead of the papers' (issue 12): the\n"
           "                          signature with gamma(k,f) = gamma + gamma_incast (k-1) +\n"
           "                          gamma_flows (f^0.5-1)/0.5 fitted robustly (spread\n"
           "                          weights, M by leave-one-out) on 1 task/node at the\n"
           "                          smallest and largest node counts, the largest at 2\n"
           "                          tasks/node and the smallest at its most tasks (the\n"
           "                          many-flow step) and 3 nodes at theirs (the incast\n"
           "                          many-flow step: + gamma_loss where many flows come\n"
           "                          from 2+ nodes), the rest held back; a wider ping-pong\n"
           "                          and up to 4 p2p segments\n"
           "  --flow-tasks T|auto     also measure the Alltoall of 2 nodes x T tasks: as many\n"
           "                          remote flows a port as the largest configuration, at\n"
           "                          incast degree 1 (auto, the default with --incast: T =\n"
           "                          ceil(C sqrt(N-1)), at most the nodes' CPUs; 0: none);\n"
           "                          with it, on 3 nodes or more, the Alltoall of 3 nodes x\n"
           "                          ceil(C sqrt((N-1)/2)) tasks (C+1 on 3 nodes), as many\n"
           "                          flows from two nodes at once, for the incast-loss term\n"
           "                          gamma_loss\n"
           "  --pattern-model M       the penalty model written for point-to-point patterns:\n"
           "                          gige (001 V-A, from the conflict schemes), duplex (the\n"
           "                          duplex fair share, our extension, delta from the 2x1\n"
           "                          exchange posted as the patterns post theirs, else the\n"
           "                          2x1 Alltoall), fairshare, or tcpshare (the fair share with\n"
           "                          flows through h standing queues at h^-1.5: TCP's bias,\n"
           "                          our extension); default with --incast: tcpshare on a\n"
           "                          partition over several leaf switches, else duplex;\n"
           "                          without: gige (fairshare without conflict schemes)\n"
           "  --p2p-segments K        up to K Hockney segments by size range (default 1; 4 with\n"
           "                          --incast); written as p2p.segments\n"
           "  --max-fit-error PCT     flag (loudly) a signature that misses its own points whose\n"
           "                          spread is within PCT by more than PCT (default 15; 0: off)\n"
           "  --strict                refuse such a signature (exit 1) instead of flagging it\n"
           "  --uplink-duplex         write each uplink's measured duplex share (uplink_duplex:\n"
           "                          one direction's cost of the other, from cross-leaf pairs\n"
           "                          each way; our extension) and measure it with 2 tasks per\n"
           "                          node; written by default with the TCP share (held-out runs:\n"
           "                          more accurate, the same decisions), off by default for the\n"
           "                          other models (doc/multiswitch.md)\n"
           "  --no-uplink-duplex      do not write it (the TCP share without it)\n"
           "  --wait auto|polled|busy how the benchmark's ranks wait: busy (MPI_Waitall and\n"
           "                          MPI_Alltoall, as applications wait), polled (MPI_Test\n"
           "                          with naps of up to 500 us, which leave the CPUs to\n"
           "                          others), or auto (the default): busy where each machine\n"
           "                          runs one node's ranks and has a CPU for each, polled\n"
           "                          where ranks outnumber CPUs or nodes share a machine;\n"
           "                          the environment's CT_MPIBENCH_POLL_US=U|auto sets the\n"
           "                          naps' cap of every step (doc/calibration.md)\n"
           "  --pingpong-refill       read the line rate and the token bucket off the ping-pong's\n"
           "                          own refill where its largest sizes show one (a bucket above\n"
           "                          a quarter of its largest size; our extension, the default\n"
           "                          with --incast or --p2p-segments K >= 2 since session 54:\n"
           "                          doc/calibration.md \"A bucket above 256 KiB\")\n"
           "  --no-pingpong-refill    keep the piecewise curve's top segment there instead\n"
           "  --incast-intercept      with --incast, fit an incast intercept too (call_incast_us,\n"
           "                          a time once a call x (k-2) where k >= 3 nodes feed a\n"
           "                          port; our extension, session 69, not the default:\n"
           "                          doc/models-alltoall.md, \"The incast intercept\")\n"
           "  --help\n\n"
           "Under topology/tree (scontrol show topology lists switches) and an allocation\n"
           "over two or more leaf switches, one more step measures each leaf's uplink with\n"
           "cross-leaf node pairs (one alone, then k at once) and the fabric is written with\n"
           "the switch tree and the measured uplink_MBps (doc/multiswitch.md).\n"
           "The environment (SLURM_CONF, OMPI_MCA_*) is passed to salloc and srun.\n"
           "Exit status: 0 ok, 1 failed measurement or fit, 2 usage error, 130 interrupted.\n");
}

/* The options into a and P: CALIB_GO to go on, else the exit status (after
 * --help, or a usage message printed). */
#define CALIB_GO (-1)
static int parse_args(int argc, char **argv, calib_args *a, plan *P)
{
    static const struct option opts[] = {{"fabric", required_argument, NULL, 'f'},
                                         {"partition", required_argument, NULL, 'p'},
                                         {"nodes", required_argument, NULL, 'N'},
                                         {"tasks-per-node", required_argument, NULL, 'C'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"plot", required_argument, NULL, 'P'},
                                         {"sizes", required_argument, NULL, 's'},
                                         {"reps", required_argument, NULL, 'r'},
                                         {"quick", no_argument, NULL, 'q'},
                                         {"no-conflicts", no_argument, NULL, 'x'},
                                         {"conflict-size", required_argument, NULL, 'c'},
                                         {"raw", required_argument, NULL, 'R'},
                                         {"from", required_argument, NULL, 'F'},
                                         {"bench", required_argument, NULL, 'b'},
                                         {"mpi", required_argument, NULL, 'm'},
                                         {"time-limit", required_argument, NULL, 't'},
                                         {"points", required_argument, NULL, 'T'},
                                         {"incast", no_argument, NULL, 'I'},
                                         {"pattern-model", required_argument, NULL, 'M'},
                                         {"p2p-segments", required_argument, NULL, 'S'},
                                         {"max-fit-error", required_argument, NULL, 'E'},
                                         {"strict", no_argument, NULL, 'X'},
                                         {"uplink-duplex", no_argument, NULL, 'U'},
                                         {"flow-tasks", required_argument, NULL, 'W'},
                                         {"no-uplink-duplex", no_argument, NULL, 'D'},
                                         {"wait", required_argument, NULL, 'A'},
                                         {"pingpong-refill", no_argument, NULL, 'G'},
                                         {"no-pingpong-refill", no_argument, NULL, 'g'},
                                         {"incast-intercept", no_argument, NULL, 'K'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = CMD,
                      .shortopts = "f:p:N:C:o:P:s:r:qxc:R:F:b:m:t:T:h",
                      .longopts = opts,
                      .accepted = "--fabric, --partition, --nodes, --tasks-per-node, --out, "
                                  "--plot, --sizes, --reps, --quick, --no-conflicts, "
                                  "--conflict-size, --raw, --from, --bench, --mpi, "
                                  "--time-limit, --points, --incast, --pattern-model, --p2p-segments, "
                                  "--max-fit-error, --strict, --uplink-duplex, --no-uplink-duplex, "
                                  "--flow-tasks, --wait, --pingpong-refill, --no-pingpong-refill, "
                                  "--incast-intercept, --help",
                      .help = help};
    memset(a, 0, sizeof *a);
    a->tlimit = 60;
    a->max_err_pct = 15;
    memset(P, 0, sizeof *P);
    P->mpi = "pmix";
    P->conflicts = 1;
    P->csize = 1048576;
    int c;
    while ((c = admin_next_opt(&opt, argc, argv)) > 0) {
        switch (c) {
        case 'p': a->part = optarg; break;
        case 'N':
            if (admin_int_opt(CMD, "--nodes", optarg, 2, 64, &a->N) < 0)
                return ADMIN_USAGE;
            break;
        case 'C':
            if (admin_int_opt(CMD, "--tasks-per-node", optarg, 1, 64, &a->C) < 0)
                return ADMIN_USAGE;
            break;
        case 'o': a->out = optarg; break;
        case 'P': a->svg = optarg; break;
        case 's': a->sizes = optarg; break;
        case 'r':
            if (admin_int_opt(CMD, "--reps", optarg, 1, 1000, &a->reps) < 0)
                return ADMIN_USAGE;
            break;
        case 'q': a->quick = 1; break;
        case 'x': P->conflicts = 0; break;
        case 'c':
            if (admin_size_opt(CMD, "--conflict-size", optarg, &P->csize) < 0)
                return ADMIN_USAGE;
            if (!(P->csize >= 1024) || P->csize > 256.0 * 1048576)
                return admin_usage(CMD, "--conflict-size '%s' (accepted: 1K to 256M)", optarg);
            break;
        case 'R': a->raw = optarg; break;
        case 'F': a->from = optarg; break;
        case 'b': a->bench = optarg; break;
        case 'm': P->mpi = optarg; break;
        case 't':
            if (admin_int_opt(CMD, "--time-limit", optarg, 1, 10080, &a->tlimit) < 0)
                return ADMIN_USAGE;
            break;
        case 'T': a->points = optarg; break;
        case 'I': a->incast = 1; break;
        case 'G': a->pingpong_refill = 1; break;
        case 'g': a->no_pingpong_refill = 1; break;
        case 'K': a->incast_intercept = 1; break;
        case 'U': a->uplink_duplex = 1; break;
        case 'D': a->no_uplink_duplex = 1; break;
        case 'M':
            if (strcmp(optarg, "gige") == 0)
                a->pattern_model = CALIB_PM_GIGE;
            else if (strcmp(optarg, "duplex") == 0)
                a->pattern_model = CALIB_PM_DUPLEX;
            else if (strcmp(optarg, "fairshare") == 0)
                a->pattern_model = CALIB_PM_FAIRSHARE;
            else if (strcmp(optarg, "tcpshare") == 0)
                a->pattern_model = CALIB_PM_TCPSHARE;
            else
                return admin_usage(CMD,
                                   "--pattern-model '%s' (accepted: gige, duplex, fairshare, "
                                   "tcpshare)",
                                   optarg);
            break;
        case 'X': a->strict = 1; break;
        case 'A':
            if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "polled") != 0 &&
                strcmp(optarg, "busy") != 0)
                return admin_usage(CMD, "--wait '%s' (accepted: auto, polled, busy)", optarg);
            a->wait = optarg;
            break;
        case 'W':
            if (strcmp(optarg, "auto") == 0) {
                a->flow_tasks = -1;
            } else {
                char *end = NULL;
                errno = 0;
                long v = strtol(optarg, &end, 10);
                if (!*optarg || *end || errno || v < 0 || v > 64)
                    return admin_usage(CMD, "--flow-tasks '%s' (accepted: auto, or an integer "
                                            "from 0 to 64; 0 = no many-flow step)",
                                       optarg);
                a->flow_tasks = v ? v : -2; /* -2: asked for none */
            }
            break;
        case 'S':
            if (admin_int_opt(CMD, "--p2p-segments", optarg, 1, CT_P2P_MAX_SEG, &a->nseg) < 0)
                return ADMIN_USAGE;
            break;
        case 'E':
            if (admin_pct_opt(CMD, "--max-fit-error", optarg, INFINITY, &a->max_err_pct) < 0)
                return ADMIN_USAGE;
            break;
        }
    }
    if (c < 0)
        return opt.status;
    a->name = opt.fabric;
    if (optind < argc)
        return admin_usage(CMD, "unexpected argument '%s'", argv[optind]);
    if (!a->name)
        return admin_usage(CMD, "--fabric NAME is required");
    if (!a->part && !a->from)
        return admin_usage(CMD,
                           "--partition P is required (or --from DIR to refit kept outputs)");
    if (a->part && (strlen(a->part) >= CT_NAME_MAX || strpbrk(a->part, " \t\n,")))
        return admin_usage(CMD, "--partition '%s' (accepted: a Slurm partition name)",
                           a->part);
    if (a->wait && a->from)
        return admin_usage(CMD, "--wait with --from (accepted: --wait when measuring; the "
                                "outputs in --from DIR say how their ranks waited)");
    if (a->uplink_duplex && a->no_uplink_duplex)
        return admin_usage(CMD, "--uplink-duplex and --no-uplink-duplex together (accepted: "
                                "at most one of them)");
    if (!a->nseg)
        a->nseg = a->incast ? 4 : 1;
    if (a->pingpong_refill && a->no_pingpong_refill)
        return admin_usage(CMD, "--pingpong-refill and --no-pingpong-refill together (accepted: "
                                "at most one of them)");
    if (a->incast_intercept && !a->incast)
        return admin_usage(CMD, "--incast-intercept without --incast (accepted: with --incast: "
                                "the intercept is fitted beside its gamma(k, f) and per-call "
                                "step)");
    if (a->pingpong_refill && a->nseg < 2)
        return admin_usage(CMD, "--pingpong-refill with one point-to-point segment (accepted: "
                                "with --incast or --p2p-segments K, K >= 2: it replaces the "
                                "sustained rate the piecewise curve reads)");
    /* the many-flow step: auto with --incast, none otherwise unless asked */
    a->flow_tasks = a->flow_tasks == -2 ? 0 : a->flow_tasks ? a->flow_tasks : a->incast ? -1 : 0;
    P->reps = a->reps ? (int)a->reps : a->quick ? 3 : 5;
    P->wide_pingpong = a->nseg > 1;
    const char *sizes = a->sizes   ? a->sizes
                        : a->quick ? "32K,64K,128K,256K"
                                   : "32K,64K,128K,256K,512K";
    if (calib_parse_sizes(sizes, P) != ADMIN_OK)
        return ADMIN_USAGE;
    /* sizes not asked for: chosen by the link (calib_floor_check) */
    P->floor_sizes = a->sizes ? NULL : a->quick ? CALIB_FLOOR_SIZES_QUICK : CALIB_FLOOR_SIZES;
    return CALIB_GO;
}

/* Where the outputs go: --from DIR and --raw DIR are kept, a temporary
 * directory is removed at the end. */
static int output_dir(const calib_args *a, calib_run *r)
{
    if (a->from) {
        snprintf(r->dir, sizeof r->dir, "%s", a->from);
        r->keep = 1;
    } else if (a->raw) {
        if (mkdir(a->raw, 0755) < 0 && errno != EEXIST)
            return admin_fail(CMD, "--raw %s: %s", a->raw, strerror(errno));
        snprintf(r->dir, sizeof r->dir, "%s", a->raw);
        r->keep = 1;
    } else {
        const char *tmpd = getenv("TMPDIR");
        snprintf(r->dir, sizeof r->dir, "%s/ct-calibrate.XXXXXX", tmpd && *tmpd ? tmpd : "/tmp");
        if (!mkdtemp(r->dir))
            return admin_fail(CMD, "cannot create a temporary directory: %s", strerror(errno));
    }
    time_t tnow = time(NULL);
    struct tm tm;
    localtime_r(&tnow, &tm);
    strftime(r->today, sizeof r->today, "%Y-%m-%d", &tm);
    strftime(r->when, sizeof r->when, "%Y-%m-%d %H:%M", &tm);
    return ADMIN_OK;
}

/* The Alltoall samples without those an uplink sets (calib_uplink_bound)
 * into f->a2a_kept (NULL: none left out, or too few configurations would
 * remain to fit), reported on info. -1: out of memory. */
static int uplink_bound_out(const calib_run *r, calib_fit *f, FILE *info)
{
    const data *d = &r->d;
    f->a2a_kept = NULL;
    f->na2a_kept = f->nbound = 0;
    if (!d->nupl || !d->bench.na2a)
        return 0;
    size_t n = d->bench.na2a;
    unsigned char *bound = calloc(n, 1);
    double *excess = calloc(n, sizeof *excess);
    if (!bound || !excess) {
        free(bound);
        free(excess);
        return -1;
    }
    char why[256];
    size_t nb = calib_uplink_bound(r, bound, excess, why, sizeof why);
    if (nb == 0 && why[0])
        fprintf(info, "calibrate: uplink-bound Alltoall samples not checked: %s\n", why);
    /* the configurations kept and left out, once each */
    int kept_cfg = 0, nout = 0;
    char list[512] = "";
    size_t u = 0;
    for (size_t i = 0; i < n && nb; i++) {
        const ct_a2a_sample *s = &d->bench.a2a[i];
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= d->bench.a2a[j].nodes == s->nodes &&
                    d->bench.a2a[j].tasks_per_node == s->tasks_per_node;
        if (seen)
            continue;
        if (!bound[i]) {
            kept_cfg++;
        } else if (u < sizeof list) {
            u += (size_t)snprintf(list + u, sizeof list - u, "%s%dx%d (%.2f x)", nout ? ", " : "",
                                  (int)s->nodes, (int)s->tasks_per_node, excess[i]);
            nout++;
        }
    }
    if (nb && kept_cfg == 0) {
        fprintf(info, "calibrate: every Alltoall configuration crosses an uplink that carries "
                      "more than a NIC (%s): the signature is fitted on all of them, the "
                      "uplink's time included\n", list);
        nb = 0;
    }
    if (nb) {
        f->a2a_kept = malloc((n - nb) * sizeof *f->a2a_kept);
        if (!f->a2a_kept) {
            free(bound);
            free(excess);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            if (!bound[i])
                f->a2a_kept[f->na2a_kept++] = d->bench.a2a[i];
        f->nbound = nb;
        fprintf(info,
                "calibrate: Alltoall configurations left out of the signature fit, an uplink "
                "sets their time (it carries this many times a NIC's messages at the measured "
                "capacity; the tree's uplink term prices it): %s; %zu of %zu samples kept\n",
                list, f->na2a_kept, n);
    }
    free(bound);
    free(excess);
    return 0;
}

/* the incast intercept asked for and its fit refused (ct_calib_result
 * call_incast_refused), and what was made instead */
static void warn_intercept_refused(const ct_calib_result *res, const char *then)
{
    fprintf(stderr,
            "contention-admin calibrate: WARNING: --incast-intercept: the fit with the incast "
            "intercept was refused (%s); %s\n",
            res->call_incast_refused, then);
}

/* Fit Hockney, the Alltoall signature and (when conflicts were measured)
 * the GigE penalty (modelcore's calibrate.h), check the fit against its own
 * points and print the report. */
static int fit(const calib_args *a, calib_run *r, calib_fit *f, FILE *info)
{
    ct_err err;
    data *d = &r->d;
    if (d->nconf) {
        /* the out-k penalties floored at what the NIC can pass (calibrate.h:
         * the NIC's capacity from the Alltoall on >= 3 nodes x 1 task) */
        ct_calib_gige_opts go = {.nic_rate = ct_nic_overlap_rate(d->bench.a2a, d->bench.na2a)};
        if (ct_calibrate_gige_ex(d->conf, d->nconf, &go, &f->g, &err) == 0)
            f->have_gige = 1;
        else
            snprintf(f->gige_err, sizeof f->gige_err, "%s", err.msg);
    }
    ct_calib_opts_default(&f->co);
    f->co.intra_bw = f->have_gige ? f->g.intra_bw : 0;
    if (d->intra.bw > 0) /* one node's halves: how MPI really moves intra-node bytes */
        f->co.intra_bw = d->intra.bw;
    /* every node's halves at once (session 55): a shared copy capacity, if any */
    f->intra_shared_bw = ct_intra_shared(f->co.intra_bw, d->intra_all.bw, d->intra_all.nodes);
    /* the paths' Hockney lines where the steps ran two sizes (session 57) */
    if (d->intra.line_bw > 0) /* read only where the rate was */
        f->intra_alpha = d->intra.alpha, f->intra_line_bw = d->intra.line_bw;
    if (f->intra_shared_bw > 0 && d->intra_all.line_bw > 0)
        f->intra_shared_alpha = d->intra_all.alpha,
        f->intra_shared_line_bw = d->intra_all.line_bw;
    f->co.incast = a->incast;
    f->co.call_step = a->incast; /* this project's fit: the per-call step too */
    /* and, asked for, the incast intercept (alltoall.h, session 69) */
    f->co.call_incast = a->incast && a->incast_intercept;
    /* the uplinks' duplex share: asked for, or with the TCP share (checked
     * together on session 13's held-out runs, doc/multiswitch.md) */
    f->uplink_duplex = a->uplink_duplex || (calib_writes_tcpshare(a, r) && !a->no_uplink_duplex);
    f->co.p2p_max_seg = (size_t)a->nseg;
    f->co.sustained = a->nseg > 1; /* a token bucket's burst is no sustained rate */
    /* session 50's reading, the default where the curve has a sustained
     * rate to replace since session 54 (doc/accuracy-runs/rules-s54.txt) */
    f->co.pingpong_refill = f->co.sustained && !a->no_pingpong_refill;
    /* the bucket's refill before each Alltoall call (session 30's term, taken
     * in session 43; doc/models-alltoall.md): acts only with a burst and the
     * calls' recorded pauses */
    f->co.refill = a->incast;
    f->co.max_fit_err = a->max_err_pct / 100;
    f->co.force = !a->strict; /* calibrate flags loudly; --strict refuses */
    /* on several leaves: the samples an uplink sets are left out of the NIC
     * signature (calibrate.h calib_uplink_bound; the overlap floor above
     * keeps them: a rate through an uplink is still one the NIC passed) */
    if (uplink_bound_out(r, f, info) < 0)
        return admin_fail(CMD, "out of memory for %zu Alltoall samples", d->bench.na2a);
    const ct_a2a_sample *a2a = f->a2a_kept ? f->a2a_kept : d->bench.a2a;
    size_t na2a = f->a2a_kept ? f->na2a_kept : d->bench.na2a;
    int fitted = ct_calibrate_alltoall(d->bench.p2p, d->bench.np2p, a2a, na2a, &f->co, &f->res,
                                       &err) == 0;
    if (!fitted && f->a2a_kept) {
        fprintf(info, "calibrate: the signature fit without the uplink-bound samples failed "
                      "(%s): fitted on every sample\n", err.msg);
        ct_calib_result_free(&f->res);
        memset(&f->res, 0, sizeof f->res);
        a2a = d->bench.a2a;
        na2a = d->bench.na2a;
        f->nbound = 0;
        fitted = ct_calibrate_alltoall(d->bench.p2p, d->bench.np2p, a2a, na2a, &f->co, &f->res,
                                       &err) == 0;
    }
    if (!fitted) {
        if (f->res.call_incast_refused[0]) /* both refused (--strict): both said */
            warn_intercept_refused(&f->res, "the fit without it was refused too:");
        return admin_fail(CMD, "%s", err.msg);
    }
    /* the point-to-point curve against its own ping-pong sizes: a single line
     * through a bending curve is the papers' fit's usual failure (issue 12) */
    ct_p2p_curve pc = f->res.p2p_pingpong.nseg ? f->res.p2p_pingpong : f->res.p2p;
    if (pc.nseg == 0)
        ct_p2p_single(&pc, f->res.alpha, f->res.beta);
    ct_p2p_worst_miss(&pc, d->bench.p2p, d->bench.np2p, f->co.max_fit_err, 2 * f->res.burst,
                      &f->p2p_miss, &f->p2p_miss_m);
    f->p2p_over = f->co.max_fit_err > 0 && f->p2p_miss > f->co.max_fit_err;
    if (f->p2p_over && a->strict) {
        char sz[32];
        return admin_fail(CMD,
                   "point-to-point curve refused (--strict): it misses its own ping-pong at %s "
                   "by %.1f%% (accepted: <= --max-fit-error %.1f%%); refit the kept outputs "
                   "with --from DIR --incast",
                   admin_fmt_bytes(f->p2p_miss_m, sz, sizeof sz), 100 * f->p2p_miss,
                   a->max_err_pct);
    }
    /* the training-error threshold, the papers' fit included (fit_alltoall.h) */
    f->train_err = 0;
    for (size_t i = 0; !a->incast && i < na2a; i++) {
        const ct_a2a_sample *s = &a2a[i];
        if (!(s->m > 0) || !ct_calib_result_in_fit(&f->res, s) ||
            ct_a2a_sample_spread(s) > f->co.max_fit_err)
            continue;
        double e =
            fabs(ct_a2a_predict_sample(s, &f->res.p2p, f->co.intra_bw, &f->res.sig) - s->t) / s->t;
        f->train_err = e > f->train_err ? e : f->train_err;
    }
    if (a->incast)
        f->train_err = f->res.a2a_rep.max_err_trusted;
    f->over = f->co.max_fit_err > 0 && f->train_err > f->co.max_fit_err;
    if (f->over && a->strict) {
        return admin_fail(CMD,
                   "Alltoall signature refused (--strict): it misses its own points by up to "
                   "%.1f%% (accepted: <= --max-fit-error %.1f%%); refit the kept outputs with "
                   "--from DIR, e.g. with --incast",
                   100 * f->train_err, a->max_err_pct);
    }
    if (a->incast || a->pattern_model == CALIB_PM_DUPLEX) {
        /* a node sending and receiving at once: δ of the duplex fair share */
        ct_p2p_curve cur = f->res.p2p;
        if (cur.nseg == 0)
            ct_p2p_single(&cur, f->res.alpha, f->res.beta);
        /* read off the 2 x 1 exchange posted as the patterns post theirs,
         * where measured (session 53; ct_a2a_with_posted_exchange), else the
         * MPI_Ialltoall's; a posted exchange the fit cannot read, said, and
         * the MPI_Ialltoall's */
        const ct_a2a_sample *xa = d->bench.a2a;
        size_t nxa = d->bench.na2a;
        ct_a2a_sample *xs = NULL;
        if (d->exchange_p2p.na2a > 0) {
            xs = malloc((d->bench.na2a + d->exchange_p2p.na2a + 1) * sizeof *xs);
            if (!xs)
                return admin_fail(CMD, "out of memory for %zu Alltoall samples",
                                  d->bench.na2a + d->exchange_p2p.na2a);
            size_t nx = ct_a2a_with_posted_exchange(a2a, na2a, d->exchange_p2p.a2a,
                                                    d->exchange_p2p.na2a, INFINITY, xs,
                                                    &f->nposted);
            if (f->nposted && ct_fit_duplex(&cur, xs, nx, f->co.saturated_m, &f->dx, &err) == 0) {
                f->have_duplex = 1;
                xa = xs; /* the refill's calls back to back: the same exchange */
                nxa = nx;
            } else {
                if (f->nposted)
                    fprintf(stderr,
                            "contention-admin calibrate: warning: the posted 2x1 exchange "
                            "(exchange-p2p-2x1.csv) gives no duplex fit (%s): read off the 2x1 "
                            "Alltoall instead\n",
                            err.msg);
                f->nposted = 0;
            }
        }
        if (!f->have_duplex) {
            if (ct_fit_duplex(&cur, a2a, na2a, f->co.saturated_m, &f->dx, &err) == 0)
                f->have_duplex = 1;
            else
                snprintf(f->duplex_err, sizeof f->duplex_err, "%s", err.msg);
        }
        /* the bucket an exchange gets after a full refill (session 29):
         * the posted exchange's where measured (the patterns' primitive,
         * session 36), else the Alltoall's; both read, one written */
        if (f->have_duplex && f->res.burst > 0 && d->refill.na2a > 0) {
            if (ct_fit_refill(&cur, xa, nxa, d->refill.a2a, d->refill.na2a,
                              f->res.burst, &f->rf_a2a, &err) == 0)
                f->have_refill_a2a = 1;
            else
                snprintf(f->refill_err, sizeof f->refill_err, "%s", err.msg);
        }
        if (f->have_duplex && f->res.burst > 0 && d->refill_p2p.na2a > 0) {
            if (ct_fit_refill(&cur, xa, nxa, d->refill_p2p.a2a,
                              d->refill_p2p.na2a, f->res.burst, &f->rf, &err) == 0)
                f->have_refill = f->refill_p2p = 1;
            else
                snprintf(f->refill_err, sizeof f->refill_err, "posted exchange: %.400s", err.msg);
        }
        free(xs);
        if (!f->have_refill && f->have_refill_a2a) { /* reported beside rf only when posted */
            f->rf = f->rf_a2a;
            f->have_refill = 1;
        }
    }
    /* the largest node count the signature is fitted on (session 39): under
     * 4, none of its ports took flows from three or more nodes at once, and
     * what those cost is not what gamma(k, f) carries from fewer
     * (doc/accuracy.md, "Calibrated on fewer nodes than the job") */
    int32_t fit_nodes_max = f->res.incast ? 0 : f->res.fit_nodes; /* calibrate.h: the fit set */
    for (size_t k = 0; f->res.incast && k < f->res.nfit_cfg; k++)
        if (f->res.fit_cfg[k][0] > fit_nodes_max)
            fit_nodes_max = f->res.fit_cfg[k][0];
    if (fit_nodes_max > 0 && fit_nodes_max < 4)
        fprintf(stderr,
                "contention-admin calibrate: WARNING: the Alltoall signature is fitted on at "
                "most %d nodes: no port it measured took flows from three or more nodes at "
                "once, which cost more than it carries from fewer (a job on more nodes is "
                "priced short; doc/accuracy.md, \"Calibrated on fewer nodes than the job\"); "
                "calibrate on at least 4 nodes, as many as the jobs will use\n",
                (int)fit_nodes_max);
    if (f->res.nheld == 0)
        fprintf(stderr, "contention-admin calibrate: warning: no held-back samples: the "
                        "signature is not validated (%s)\n",
                f->nbound ? "the configurations no uplink sets are all in the fit"
                          : "measure more than one configuration");
    calib_print_report(info, &f->res, &f->g, f->have_gige, f->gige_err);
    char kheld[64] = "";
    double kmax = ct_duplex_incast_max_k(&f->res.sig_duplex);
    if (kmax > 0) /* held beyond the fitted degrees */
        snprintf(kheld, sizeof kheld, ", held beyond the fitted k = %.6g", kmax);
    char fheld[64] = "", gf[48];
    double fmx = ct_duplex_flows_max_f(&f->res.sig_duplex);
    if (fmx > 0) /* held beyond the fitted flows */
        snprintf(fheld, sizeof fheld, ", held beyond the fitted f = %.6g", fmx);
    char lx[320] = ""; /* the long exchange (session 28), where 2 x 1 was measured beyond m_L */
    if (f->have_duplex && f->dx.nlong)
        snprintf(lx, sizeof lx,
                 "; long-exchange term duplex_long = %.3f from duplex_long_from = %.0f KiB (%zu "
                 "2x1 point%s beyond it, t / T_alone - 1 up to %.3f: a phase whose largest "
                 "message lasts T alone is priced with delta + %.3f (1 - T(%.0f KiB)/T))",
                 f->dx.long_delta, f->dx.long_from / 1024, f->dx.nlong, f->dx.nlong > 1 ? "s" : "",
                 f->dx.long_hi, f->dx.long_delta, f->dx.long_from / 1024);
    char rx[1100] = ""; /* the bucket's refill (session 29), where the 2 x 1 pauses were recorded */
    if (f->have_duplex && f->dx.pause > 0 && f->res.burst > 0) {
        char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], t1[32], t2[32], t3[32], how[740];
        if (f->have_refill) { /* written (session 31; doc/accuracy-notes.md) */
            /* what the exchange lacks of the ping-pong's burst, as a time
             * (ct_refill_fit.lack: the wait of calibrate's polled calls) */
            char lack[160] = "";
            if (f->rf.lack > 0)
                snprintf(lack, sizeof lack,
                         ": the exchange lacks %s, the refill of %s at the sustained rate, "
                         "which calibrate's polled calls lose waiting",
                         admin_fmt_bytes(f->res.burst - f->rf.bucket, b5, sizeof b5),
                         admin_fmt_time(f->rf.lack, t3, sizeof t3));
            /* the Alltoall's reading beside the posted exchange's (session 36) */
            char other[200] = "";
            if (f->refill_p2p && f->have_refill_a2a)
                snprintf(other, sizeof other, "; the 2x1 Alltoall after the same idle got %s",
                         admin_fmt_bytes(f->rf_a2a.bucket, b6, sizeof b6));
            else if (f->refill_p2p && f->refill_err[0])
                snprintf(other, sizeof other, "; the 2x1 Alltoall's refill step: %.150s",
                         f->refill_err);
            snprintf(how, sizeof how,
                     "as a 2x1 %s got it after %s idle (weighted mean of %zu sizes, %s to "
                     "%s%s; the ping-pong's burst %s%s%s)",
                     f->refill_p2p ? "exchange posted as the patterns post theirs (Isend/Irecv)"
                                   : "exchange",
                     admin_fmt_time(f->rf.idle, t2, sizeof t2), f->rf.nused,
                     admin_fmt_bytes(f->rf.lo, b2, sizeof b2),
                     admin_fmt_bytes(f->rf.hi, b3, sizeof b3),
                     f->rf.raw != f->rf.bucket ? ", clamped to the burst" : "",
                     admin_fmt_bytes(f->res.burst, b4, sizeof b4), lack, other);
        } else
            snprintf(how, sizeof how, "the ping-pong's burst%s%.160s",
                     f->refill_err[0] ? "; refill step: " : "", f->refill_err);
        snprintf(rx, sizeof rx,
                 "; bucket refill: bucket_bytes = %s (%s) refilled in "
                 "bucket_pause_us = %.0f (%s, the median idle before the 2x1 calls): a step "
                 "scored with a longer pause gets more of the bucket free, a shorter one less",
                 admin_fmt_bytes(calib_bucket(f), b1, sizeof b1),
                 how, f->dx.pause * 1e6, admin_fmt_time(f->dx.pause, t1, sizeof t1));
    } else if (f->have_duplex && f->dx.pause > 0)
        snprintf(rx, sizeof rx,
                 "; bucket refill: none (the ping-pong's curve reads no token bucket: no burst "
                 "to refill between steps)");
    char lat[160] = ""; /* session 56: the latency once, outside the penalty */
    if (f->have_duplex && f->dx.sloped &&
        fabs(f->dx.exchange - f->dx.exchange_penalized) >= 0.05e-6)
        snprintf(lat, sizeof lat,
                 "; the line's intercept %.1f + delta x alpha %.1f: the latency taken once, "
                 "outside the penalty",
                 f->dx.exchange_penalized * 1e6, (f->dx.exchange - f->dx.exchange_penalized) * 1e6);
    if (f->have_duplex)
        fprintf(info,
                "duplex coupling (our extension): delta = %.3f, %s of %zu %s 2x1 "
                "points (m >= %.0f KiB: t / T_alone - 1 from %.3f to %.3f%s); exchange step "
                "exchange_us = %.1f (%s%s); incast term "
                "duplex_incast = %.4f (gamma_incast / gamma%s: a NIC with k peer nodes costs "
                "1 + %.4f (k-1) times a fair share%s); flows term duplex_flows = %.4f "
                "(gamma_flows / gamma: a NIC with f remote flows costs 1 + %.4f %s%s)%s%s%s\n",
                f->dx.delta,
                f->dx.sloped ? "the slope against T_alone's" : "the median t / T_alone - 1",
                f->dx.nused,
                f->nposted ? "posted-exchange (Isend/Irecv, as the patterns post theirs)"
                           : "Alltoall",
                f->co.saturated_m / 1024, f->dx.lo, f->dx.hi,
                f->dx.raw != f->dx.delta ? ", clamped to [0, 1]" : "", f->dx.exchange * 1e6,
                f->dx.sloped ? admin_exchange_what(f->dx.exchange) : "one size: not fitted", lat,
                ct_duplex_incast(&f->res.sig_duplex),
                f->res.sig.call_incast > 0 ? " of the fit without the incast intercept" : "",
                ct_duplex_incast(&f->res.sig_duplex), kheld,
                ct_duplex_flows(&f->res.sig_duplex), ct_duplex_flows(&f->res.sig_duplex),
                admin_flows_g(ct_duplex_flows_exp(&f->res.sig_duplex), gf, sizeof gf), fheld, lx, rx,
                calib_writes_duplex(a, r, f) ? "; penalty model written: duplex fair share"
                : calib_writes_tcpshare(a, r) ? "; penalty model written: TCP share (several leaves)"
                                              : "");
    else if (a->incast || a->pattern_model == CALIB_PM_DUPLEX)
        fprintf(info, "duplex coupling not fitted: %s\n", f->duplex_err);
    char b1[32], note[CT_ERR_MAX];
    if (f->res.p2p_refill)
        fprintf(info,
                "ping-pong read with its own refill: a token bucket of "
                "%s at %.4g MB/s (t = alpha + max(m/2r, (m - B)/r) from 256 KiB; the piecewise "
                "curve's top segment gave %.4g MB/s); predictions use that rate and bucket\n",
                admin_fmt_bytes(f->res.burst, b1, sizeof b1), 1 / f->res.p2p.seg[0].beta / 1e6,
                1 / f->res.p2p_pingpong.seg[f->res.p2p_pingpong.nseg - 1].beta / 1e6);
    else if (a->pingpong_refill)
        fprintf(info, "--pingpong-refill: the ping-pong shows no bucket above a quarter of its "
                      "largest size: the piecewise curve's reading is kept\n");
    else if (f->co.sustained &&
             admin_p2p_bend_note(r->d.bench.p2p, r->d.bench.np2p, &f->res.p2p_pingpong,
                                 &f->res.p2p, f->res.burst,
                                 "without --no-pingpong-refill calibrate reads the line rate "
                                 "and the bucket so",
                                 note,
                                 sizeof note))
        fprintf(stderr, "contention-admin calibrate: WARNING: %s\n", note);
    double xr = calib_exchange_ratio(f);
    if (xr >= CALIB_EXCHANGE_RATIO_WARN) {
        char burst[64] = "none read here";
        if (f->res.burst > 0)
            snprintf(burst, sizeof burst, "%s read here",
                     admin_fmt_bytes(f->res.burst, b1, sizeof b1));
        fprintf(stderr,
                "contention-admin calibrate: WARNING: the 2x1 exchange took %.2f x the "
                "ping-pong's time per byte (1 + delta %.3f + duplex_long %.3f): the ping-pong's "
                "rate (%.4g MB/s) is likely not the line's. A token bucket larger than half "
                "the ping-pong's largest message refills each direction while the other sends: "
                "a ping-pong then reads up to twice the line rate and too small a burst (%s), "
                "so a step after a long pause is priced with too little of the "
                "bucket (doc/accuracy-notes.md, \"Session 49\"); a link that cannot send both "
                "ways at once shows the same ratio\n",
                xr, f->dx.delta, f->dx.long_delta,
                f->res.beta > 0 ? 1 / f->res.beta / 1e6 : 0, burst);
    }
    if (r->d.intra.bw > 0)
        fprintf(info, "intra-node bandwidth %.4g MB/s from one node's halves (used by the model)\n",
                r->d.intra.bw / 1e6);
    if (r->d.intra_all.bw > 0 && f->co.intra_bw > 0)
        fprintf(info,
                "intra-node halves on %d nodes at once: %.4g MB/s together, %.2f x %d nodes' "
                "rate alone: %s\n",
                r->d.intra_all.nodes, r->d.intra_all.bw / 1e6,
                r->d.intra_all.bw / (r->d.intra_all.nodes * f->co.intra_bw), r->d.intra_all.nodes,
                f->intra_shared_bw > 0
                    ? "the nodes share one copy capacity (one host): intra_node_shared_MBps "
                      "written, a step's intra-node bytes of all nodes together at that rate"
                    : "the nodes copy independently; nothing written");
    if (f->intra_line_bw > 0)
        fprintf(info,
                "intra-node line from one node's halves at %d sizes: %.0f us + bytes at %.4g MB/s "
                "(a step's intra-node time; intra_node_latency_us, intra_node_line_MBps)\n",
                r->d.intra.line_sizes, f->intra_alpha * 1e6, f->intra_line_bw / 1e6);
    if (f->intra_shared_line_bw > 0)
        fprintf(info,
                "intra-node line on %d nodes at once: %.0f us + bytes at %.4g MB/s "
                "(intra_node_shared_latency_us, intra_node_shared_line_MBps)\n",
                r->d.intra_all.nodes, f->intra_shared_alpha * 1e6, f->intra_shared_line_bw / 1e6);
    if (admin_a2a_floor_note(r->d.bench.a2a, r->d.bench.na2a, f->co.saturated_m,
                             r->d.sizes_moved
                                 ? "calibrate already moved its sizes up once, to "
                                   CALIB_FLOOR_SIZES "; calibrate with larger ones still, "
                                   "e.g. --sizes 64K,128K,2M,4M,8M"
                                 : "calibrate with larger sizes per destination, e.g. --sizes "
                                   CALIB_FLOOR_SIZES ", to put the saturated points above it",
                             note, sizeof note))
        fprintf(stderr, "contention-admin calibrate: WARNING: %s\n", note);
    char waits[512];
    if (calib_waits(&r->d, waits, sizeof waits))
        fprintf(stderr,
                "contention-admin calibrate: WARNING: the ranks waited both ways: %s; the "
                "fitted steps mix the two waits' costs: calibrate again with --wait polled or "
                "--wait busy\n",
                waits);
    else
        fprintf(info, "waits: %s\n", waits);
    const char *cc;
    if (calib_tcp(&r->d, waits, sizeof waits, &cc))
        fprintf(stderr,
                "contention-admin calibrate: WARNING: the nodes' TCP congestion control: %s; "
                "a signature prices the one it was measured with (on one emulated network an "
                "Alltoall whose ports several nodes fed took up to 2.6 x as long under bbr as "
                "under cubic): calibrate again with one on every node\n",
                waits);
    else
        fprintf(info, "TCP congestion control on the nodes: %s\n", waits);
    if (f->over)
        fprintf(stderr,
                "contention-admin calibrate: WARNING: the Alltoall signature misses its own "
                "training points by up to %.1f%% (threshold %.1f%%): its predictions are not "
                "trustworthy; %s\n",
                100 * f->train_err, a->max_err_pct,
                a->incast ? "measure more repetitions, or on a quieter host"
                       : "refit with --from DIR --incast, or measure more repetitions");
    if (f->res.call_incast_refused[0]) /* asked for, its fit refused: said, not silent */
        warn_intercept_refused(&f->res, "the signature is the fit without it");
    for (size_t i = 0; i < f->res.nbeyond && f->co.max_fit_err > 0; i++) {
        const ct_calib_beyond *b = &f->res.beyond[i];
        if (!(fabs(b->median_err) > f->co.max_fit_err) || !(b->median_err > -1))
            continue;
        double longer = -b->median_err / (1 + b->median_err); /* measured / predicted - 1 */
        fprintf(stderr,
                "contention-admin calibrate: WARNING: beyond the fitted flows: %d x %d (%.6g "
                "remote flows a NIC; the fit's configurations at most %.6g) ran %.0f%% %s than "
                "predicted (median of %zu at m >= 128 KiB, threshold %.1f%%): on this network "
                "more flows a NIC cost %s than the signature prices%s; its predictions for jobs "
                "with more than %.6g remote flows a NIC are %s\n",
                (int)b->nodes, (int)b->tasks_per_node, b->flows, f->res.fit_flows_max,
                100 * fabs(longer), longer > 0 ? "longer" : "shorter", b->n, a->max_err_pct,
                longer > 0 ? "more" : "less",
                longer > 0 ? " (on shallow queues: losses recovered by retransmission timeouts; "
                             "on a host with fewer cores than ranks: the host's own time; "
                             "doc/accuracy-notes.md)"
                           : "",
                f->res.fit_flows_max, longer > 0 ? "optimistic" : "pessimistic");
    }
    if (f->p2p_over) {
        char note[CT_ERR_MAX];
        fprintf(stderr, "contention-admin calibrate: WARNING: %s\n",
                admin_p2p_miss_note(pc.nseg, f->co.p2p_max_seg, f->p2p_miss, f->p2p_miss_m,
                                    a->max_err_pct, "--from DIR --incast", note, sizeof note));
    }
    if (f->have_gige && f->g.gamma_out_of_range)
        fprintf(stderr, "contention-admin calibrate: WARNING: %s\n", f->g.note);
    if (!r->nodes_used) {
        for (size_t i = 0; i < f->res.npoints; i++) {
            const ct_calib_point *p = &f->res.points[i];
            r->nodes_used = p->nodes > r->nodes_used ? p->nodes : r->nodes_used;
            r->tpn_used = p->tasks_per_node > r->tpn_used ? p->tasks_per_node : r->tpn_used;
        }
    }
    return ADMIN_OK;
}

int cmd_calibrate(int argc, char **argv)
{
    static calib_args a;
    static plan P;
    int rc = parse_args(argc, argv, &a, &P);
    if (rc != CALIB_GO)
        return rc;
    ct_fabric fab;
    if (admin_new_fabric(CMD, a.name, &fab) != ADMIN_OK)
        return ADMIN_USAGE;
    static calib_run r;
    memset(&r, 0, sizeof r);
    if (output_dir(&a, &r) != ADMIN_OK)
        return ADMIN_INVALID;
    struct sigaction old[3];
    calib_signals_install(old);
    FILE *info = a.out ? stdout : stderr; /* the YAML alone on stdout without --out */
    calib_files w = {{NULL, "", "", 0}, {NULL, "", "", 0}, {NULL, "", "", 0}};
    static calib_fit f;
    memset(&f, 0, sizeof f);

    if (a.from) {
        rc = calib_load_dir(a.from, &r.d);
        if (rc == ADMIN_OK && r.d.sizes_moved)
            fprintf(info, "calibrate: %s/" CALIB_FLOOR_KEPT_2X1 ": the 2x1 Alltoall's 128 KiB "
                          "sat on the call's floor when measured, so the Alltoall outputs are at "
                          "the sizes calibrate moved to (not read: it is not a .csv)\n",
                    a.from);
    } else
        rc = calib_measure(&a, &P, &r, info);
    if (rc == ADMIN_OK)
        rc = fit(&a, &r, &f, info);
    if (rc == ADMIN_OK)
        rc = calib_fill_fabric(&a, &r, &f, &fab);
    if (rc == ADMIN_OK)
        rc = calib_fill_topology(&r, &f, &fab, info);
    if (rc == ADMIN_OK)
        rc = calib_write(&a, &r, &f, &fab, &w, info);
    if (rc == CALIB_INTERRUPTED)
        fprintf(stderr,
                "\ncontention-admin calibrate: interrupted (signal %d)%s%s; nothing written\n",
                (int)calib_stop, r.jobid[0] ? ", cancelling job " : "", r.jobid);
    if (r.jobid[0])
        calib_scancel(r.jobid, r.dir);
    calib_files_abort(&w);
    if (!r.keep)
        calib_rmtree_flat(r.dir);
    ct_calib_result_free(&f.res);
    free(f.a2a_kept);
    ct_bench_free(&r.d.bench);
    ct_bench_free(&r.d.refill);
    ct_bench_free(&r.d.refill_p2p);
    ct_bench_free(&r.d.exchange_p2p);
    free(r.d.conf);
    free(r.d.upl);
    if (fab.topology) {
        ct_topology_free(fab.topology);
        free(fab.topology);
    }
    calib_signals_restore(old);
    return rc;
}
