/* contention-admin calibrate: measure a partition through Slurm and fit a
 * fabric entry.
 *
 * One allocation (salloc --no-shell) holds the nodes; each measurement is
 * one srun step of bench/mpi/ct-mpibench inside it. The fit and its
 * validation on held-back samples are modelcore's (calibrate.h); this file
 * only plans, runs, reports and writes. Ctrl-C (or SIGTERM/SIGHUP) stops the
 * running step, cancels the allocation and leaves no partial output file:
 * outputs are written to a temporary file renamed into place at the end. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "admin.h"
#include "contention/alltoall.h"
#include "contention/benchparse.h"
#include "contention/calibrate.h"
#include "contention/fit.h"
#include "contention/signatures.h"
#include "contention/svgplot.h"
#include "contention/units.h"

#define CMD "calibrate"
#define MAX_STEPS 32
#define MAX_ARGS 48
#define MAX_SIZES 16

static volatile sig_atomic_t g_stop;
static volatile pid_t g_child;

static void on_signal(int sig)
{
    g_stop = sig;
    if (g_child > 0)
        kill(-g_child, SIGTERM); /* the child leads its own process group */
}

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
           "  --sizes LIST            Alltoall sizes per destination (default 32K,64K,128K,256K,512K)\n"
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
           "                          gamma_flows (f-1) fitted robustly (spread weights, M by\n"
           "                          leave-one-out) on 1 task/node at the smallest and largest\n"
           "                          node counts and the largest at 2 tasks/node, the rest held\n"
           "                          back; a wider ping-pong and up to 4 p2p segments\n"
           "  --p2p-segments K        up to K Hockney segments by size range (default 1; 4 with\n"
           "                          --incast); written as p2p.segments\n"
           "  --max-fit-error PCT     flag (loudly) a signature that misses its own points whose\n"
           "                          spread is within PCT by more than PCT (default 15; 0: off)\n"
           "  --strict                refuse such a signature (exit 1) instead of flagging it\n"
           "  --help\n\n"
           "The environment (SLURM_CONF, OMPI_MCA_*) is passed to salloc and srun.\n"
           "Exit status: 0 ok, 1 failed measurement or fit, 2 usage error, 130 interrupted.\n");
}

/* ---- plan ----------------------------------------------------------------- */

enum { ST_PINGPONG, ST_ALLTOALL, ST_CONFLICT, ST_INTRA };

typedef struct step {
    int kind;
    int nodes, tpn;
    char file[64];
    char label[96];
    char *argv[MAX_ARGS];
    int argc;
    char store[1024];
    size_t used;
    double work;         /* bytes through the busiest NIC, all repetitions */
    double est, took;    /* s */
} step;

static void arg(step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void arg(step *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = s->store + s->used;
    int n = vsnprintf(dst, sizeof s->store - s->used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n + 1 > sizeof s->store - s->used || s->argc + 1 >= MAX_ARGS) {
        fprintf(stderr, "contention-admin calibrate: internal: step arguments too long\n");
        abort();
    }
    s->argv[s->argc++] = dst;
    s->argv[s->argc] = NULL;
    s->used += (size_t)n + 1;
}

typedef struct plan {
    step steps[MAX_STEPS];
    int n;
    const char *bench;
    const char *mpi;
    double sizes[MAX_SIZES];
    int nsizes;
    char sizes_arg[256];
    int reps;
    double csize;
    int conflicts;
    int wide_pingpong; /* --incast / --p2p-segments: sizes from 0 to 2M for the segments */
} plan;

static step *new_step(plan *p, int kind, int nodes, int tpn, const char *file)
{
    step *s = &p->steps[p->n++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->nodes = nodes;
    s->tpn = tpn;
    snprintf(s->file, sizeof s->file, "%s", file);
    return s;
}

static void srun_prefix(const plan *p, step *s, const char *jobid)
{
    arg(s, "srun");
    arg(s, "--jobid=%s", jobid);
    arg(s, "--nodes=%d", s->nodes);
    arg(s, "--ntasks-per-node=%d", s->tpn);
    arg(s, "--ntasks=%d", s->nodes * s->tpn);
    arg(s, "--kill-on-bad-exit=1");
    arg(s, "--quiet");
    if (strcmp(p->mpi, "none") != 0)
        arg(s, "--mpi=%s", p->mpi);
    arg(s, "%s", p->bench);
}

static void build_plan(plan *p, int N, int C, const char *jobid, int quick)
{
    char b1[32], b2[32];
    /* ping-pong: sizes where the link is the limit, plus 0 for the start-up */
    step *s = new_step(p, ST_PINGPONG, 2, 1, "pingpong.csv");
    srun_prefix(p, s, jobid);
    arg(s, "pingpong");
    arg(s, "--sizes");
    if (p->wide_pingpong)
        arg(s, "%s", quick ? "0,1K,16K,64K,128K,512K,1M" : "0,1K,4K,16K,32K,64K,128K,256K,512K,1M,2M");
    else
        arg(s, "%s", quick ? "0,128K,512K,1M" : "0,128K,256K,512K,1M,2M");
    arg(s, "--reps");
    arg(s, "%d", quick ? 5 : 10);
    s->work = (quick ? 1.625 : 3.875) * 1048576.0 * 2 * ((quick ? 5 : 10) + 1);
    snprintf(s->label, sizeof s->label, "ping-pong, 2 nodes");

    /* Alltoall, one task per node, at several node counts: the fit uses
     * the largest, the others are held back (papers 000/002 §VI) */
    int counts[8], nc = 0;
    if (N <= 4) {
        for (int k = 2; k <= N; k++)
            counts[nc++] = k;
    } else {
        counts[nc++] = 2;
        if (N / 2 > 2)
            counts[nc++] = N / 2;
        if (3 * N / 4 > N / 2 && 3 * N / 4 < N)
            counts[nc++] = 3 * N / 4;
        counts[nc++] = N;
    }
    double msum = 0;
    for (int i = 0; i < p->nsizes; i++)
        msum += p->sizes[i];
    for (int t = 1; t <= C; t *= 2) {
        for (int i = 0; i < nc; i++) {
            int nodes = counts[i];
            /* several tasks per node: the largest and half the node count */
            if (t > 1 && nodes != N && nodes != (N / 2 >= 2 ? N / 2 : N))
                continue;
            char file[64];
            snprintf(file, sizeof file, "alltoall-%dx%d.csv", nodes, t);
            s = new_step(p, ST_ALLTOALL, nodes, t, file);
            srun_prefix(p, s, jobid);
            arg(s, "alltoall");
            arg(s, "--sizes");
            arg(s, "%s", p->sizes_arg);
            arg(s, "--reps");
            arg(s, "%d", p->reps);
            double n = (double)nodes * t;
            s->work = t * (n - t) * msum * (p->reps + 1);
            snprintf(s->label, sizeof s->label, "Alltoall, %d nodes x %d task%s, %d sizes", nodes,
                     t, t > 1 ? "s" : "", p->nsizes);
        }
    }

    /* conflict schemes of paper 001 §IV-B / §V-A */
    if (p->conflicts && N >= 3 && C >= 2) {
        int fig4 = N >= 7 && C >= 3;
        int nodes = fig4 ? 7 : (N >= 4 ? 4 : 3);
        int tpn = C >= 3 ? 3 : 2;
        s = new_step(p, ST_CONFLICT, nodes, tpn, "conflict.csv");
        srun_prefix(p, s, jobid);
        arg(s, "conflict");
        arg(s, "--size");
        arg(s, "%.0f", p->csize);
        arg(s, "--reps");
        arg(s, "%d", p->reps < 3 ? p->reps : 3);
        arg(s, "--scheme");
        arg(s, "ref=0>1");
        arg(s, "--scheme");
        arg(s, "intra=0>0");
        arg(s, "--scheme");
        arg(s, "out2=0>1,0>2");
        arg(s, "--scheme");
        arg(s, "in2=1>0,2>0");
        double units = 1 + 2 + 2;
        if (tpn >= 3 && nodes >= 4) {
            arg(s, "--scheme");
            arg(s, "out3=0>1,0>2,0>3");
            arg(s, "--scheme");
            arg(s, "in3=1>0,2>0,3>0");
            units += 3 + 3;
        }
        if (fig4) {
            arg(s, "--scheme");
            arg(s, "fig4=a:0>1,b:0>2,c:0>3,d:4>2,e:5>3,f:6>3");
            units += 3;
        } else if (nodes >= 4) {
            /* Fig. 4's in-out conflict on 4 nodes: gamma_o, gamma_i (calibrate.h) */
            arg(s, "--scheme");
            arg(s, "mix4=a:0>1,b:0>2,c:3>2");
            units += 2;
        }
        s->work = units * p->csize * ((p->reps < 3 ? p->reps : 3) + 1);
        snprintf(s->label, sizeof s->label, "conflict schemes (001 §IV-B), %d nodes, %s each",
                 nodes, admin_fmt_bytes(p->csize, b1, sizeof b1));
    }

    /* intra-node: one node's tasks exchanging halves, as the MPI library moves
     * concurrent intra-node messages (ct_intra_from_pattern) */
    if (C >= 2) {
        s = new_step(p, ST_INTRA, 1, C, "intra.csv");
        srun_prefix(p, s, jobid);
        arg(s, "pattern");
        arg(s, "--pattern");
        arg(s, "halves");
        arg(s, "--size");
        arg(s, "%.0f", p->csize);
        arg(s, "--reps");
        arg(s, "%d", p->reps);
        s->work = 0; /* no network traffic */
        snprintf(s->label, sizeof s->label, "intra-node halves, 1 node x %d tasks, %s", C,
                 admin_fmt_bytes(p->csize, b1, sizeof b1));
    }
    (void)b2;
}

/* ---- running children ------------------------------------------------------ */

/* Run argv with stdout to out_path and stderr to err_path (NULL: inherit),
 * in its own process group so that we decide what it receives. Returns
 * the exit status, 128+signal, or -1 when it could not start. */
static int run(char *const argv[], const char *out_path, const char *err_path)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0);
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        if (out_path) {
            int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0)
                _exit(126);
            dup2(fd, 1);
        }
        if (err_path) {
            int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0)
                _exit(126);
            dup2(fd, 2);
        }
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        execvp(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid);
    g_child = pid;
    if (g_stop)
        kill(-pid, SIGTERM);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            g_child = 0;
            return -1;
        }
    }
    g_child = 0;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *fmt_dur(double s, char *buf, size_t sz)
{
    if (!(s >= 0) || !isfinite(s))
        s = 0;
    long t = lround(s);
    snprintf(buf, sz, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

/* first line of a file holding `needle`, copied into out */
static int grep_file(const char *path, const char *needle, char *out, size_t sz)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    int found = -1;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, needle)) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, sz, "%s", line);
            found = 0;
            break;
        }
    }
    fclose(f);
    return found;
}

/* the job id in "salloc: Granted job allocation 123" (or "Pending ...") */
static int salloc_jobid(const char *err_path, char *jobid, size_t sz)
{
    char line[512];
    const char *keys[] = {"Granted job allocation ", "Pending job allocation "};
    for (int k = 0; k < 2; k++) {
        if (grep_file(err_path, keys[k], line, sizeof line) == 0) {
            const char *p = strstr(line, keys[k]) + strlen(keys[k]);
            size_t n = strspn(p, "0123456789");
            if (n > 0 && n < sz) {
                memcpy(jobid, p, n);
                jobid[n] = '\0';
                return k == 0 ? 0 : 1;
            }
        }
    }
    return -1;
}

static void scancel(const char *jobid, const char *dir)
{
    if (!jobid[0])
        return;
    char *argv[] = {"scancel", (char *)jobid, NULL};
    char errp[PATH_MAX];
    snprintf(errp, sizeof errp, "%s/scancel.err", dir);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old); /* a second Ctrl-C must not skip this */
    int stop = g_stop;
    g_stop = 0;
    run(argv, NULL, errp);
    g_stop = stop;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* the ct-mpibench beside this program (build tree or install), else NULL */
static const char *find_bench(char *buf, size_t sz)
{
    const char *env = getenv("CT_MPIBENCH");
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            const char *rel[] = {"/../bench/mpi/ct-mpibench", "/ct-mpibench", "/../bin/ct-mpibench"};
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
                snprintf(buf, sz, "%s%s", self, rel[i]);
                if (access(buf, X_OK) == 0)
                    return buf;
            }
        }
    }
    if (env && *env) {
        snprintf(buf, sz, "%s", env);
        return buf;
    }
    snprintf(buf, sz, "ct-mpibench"); /* from PATH */
    return buf;
}

/* `sinfo -h -p P -o FMT` first line into out */
static int sinfo(const char *part, const char *fmt, const char *dir, char *out, size_t sz)
{
    char p[CT_NAME_MAX + 8], o[32], path[PATH_MAX], errp[PATH_MAX];
    snprintf(p, sizeof p, "%s", part);
    snprintf(o, sizeof o, "%s", fmt);
    char *argv[] = {"sinfo", "-h", "-p", p, "-o", o, NULL};
    snprintf(path, sizeof path, "%s/sinfo.out", dir);
    snprintf(errp, sizeof errp, "%s/sinfo.err", dir);
    if (run(argv, path, errp) != 0)
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(out, (int)sz, f) != NULL;
    fclose(f);
    unlink(path);
    unlink(errp);
    if (!ok)
        return -1;
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

/* ---- reading the outputs --------------------------------------------------- */

typedef struct data {
    ct_bench_data bench;
    ct_conflict_sample *conf;
    size_t nconf;
    double intra_bw; /* bytes/s from intra.csv (one node's halves), 0 if not measured */
} data;

static int load_output(const char *path, data *d)
{
    ct_err err;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (strncmp(base, "intra", 5) == 0) {
        char *buf = NULL;
        size_t len = 0;
        if (admin_read_file(CMD, path, CT_BENCH_MAX_BYTES, "a pattern benchmark output", &buf,
                            &len) != ADMIN_OK)
            return ADMIN_INVALID;
        int rc = ct_intra_from_pattern(path, buf, len, &d->intra_bw, &err);
        free(buf);
        if (rc < 0)
            return admin_fail(CMD, "%s", err.msg);
        return ADMIN_OK;
    }
    if (strncmp(base, "conflict", 8) == 0) {
        char *buf = NULL;
        size_t len = 0;
        if (admin_read_file(CMD, path, CT_BENCH_MAX_BYTES, "a conflict benchmark output", &buf,
                            &len) != ADMIN_OK)
            return ADMIN_INVALID;
        int rc = ct_conflict_parse(path, buf, len, &d->conf, &d->nconf, &err);
        free(buf);
        if (rc < 0)
            return admin_fail(CMD, "%s", err.msg);
        return ADMIN_OK;
    }
    if (ct_bench_parse_file(path, NULL, &d->bench, NULL, &err) < 0)
        return admin_fail(CMD, "%s", err.msg);
    return ADMIN_OK;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(const char *dir, data *d)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return admin_fail(CMD, "--from %s: %s", dir, strerror(errno));
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) && n < 256) {
        size_t l = strlen(e->d_name);
        if (l > 4 && l < 200 && strcmp(e->d_name + l - 4, ".csv") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    qsort(names, n, sizeof *names, cmp_name);
    int rc = n ? ADMIN_OK : admin_fail(CMD, "--from %s: no .csv benchmark outputs there", dir);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%.3800s/%.200s", dir, names[i]);
        if (rc == ADMIN_OK)
            rc = load_output(path, d);
        free(names[i]);
    }
    return rc;
}

/* ---- writing ---------------------------------------------------------------- */

static int plot(const char *path, admin_atomic *w, const char *fabric,
                const ct_calib_result *r)
{
    /* one measured and one predicted series per (nodes, tasks per node) */
    size_t np = r->npoints;
    double *x = malloc((np ? np : 1) * sizeof *x), *ym = malloc((np ? np : 1) * sizeof *ym),
           *yp = malloc((np ? np : 1) * sizeof *yp);
    ct_svg_series *ser = calloc(2 * (np ? np : 1), sizeof *ser);
    char(*labels)[2][96] = calloc(np ? np : 1, sizeof *labels);
    int rc = ADMIN_INVALID;
    if (!x || !ym || !yp || !ser || !labels) {
        admin_fail(CMD, "out of memory while plotting");
        goto out;
    }
    size_t k = 0, ns = 0, ng = 0;
    unsigned char *done = calloc(np ? np : 1, 1);
    if (!done) {
        admin_fail(CMD, "out of memory while plotting");
        goto out;
    }
    for (size_t i = 0; i < np; i++) {
        if (done[i])
            continue;
        size_t first = k;
        const ct_calib_point *p0 = &r->points[i];
        for (size_t j = i; j < np; j++) {
            const ct_calib_point *p = &r->points[j];
            if (done[j] || p->nodes != p0->nodes || p->tasks_per_node != p0->tasks_per_node)
                continue;
            done[j] = 1;
            /* sizes ascend within a group: insertion keeps the line drawable */
            size_t q = k++;
            while (q > first && x[q - 1] > p->m) {
                x[q] = x[q - 1];
                ym[q] = ym[q - 1];
                yp[q] = yp[q - 1];
                q--;
            }
            x[q] = p->m;
            ym[q] = p->measured;
            yp[q] = p->predicted;
        }
        snprintf(labels[ng][0], sizeof labels[ng][0], "%dx%d measured%s", (int)p0->nodes,
                 (int)p0->tasks_per_node, p0->held ? "" : " (fit)");
        snprintf(labels[ng][1], sizeof labels[ng][1], "%dx%d predicted", (int)p0->nodes,
                 (int)p0->tasks_per_node);
        ser[ns++] = (ct_svg_series){labels[ng][0], x + first, ym + first, k - first,
                                    CT_SVG_MARKERS, (int)ng, 0};
        ser[ns++] = (ct_svg_series){labels[ng][1], x + first, yp + first, k - first, CT_SVG_LINE,
                                    (int)ng, p0->held};
        ng++;
    }
    free(done);
    char title[160];
    snprintf(title, sizeof title, "%s: Alltoall measured vs predicted (fit on %dx%d)", fabric,
             (int)r->fit_nodes, (int)r->fit_tasks_per_node);
    ct_svg_plot pl = {title, "message size per destination (bytes)", "time (s)", 0, 0, 1, 1};
    if (admin_atomic_open(w, path, 0644) < 0) {
        admin_fail(CMD, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        goto out;
    }
    ct_err err;
    if (ct_svg_write(w->f, &pl, ser, ns, &err) < 0) {
        admin_atomic_abort(w);
        admin_fail(CMD, "%s: %s", path, err.msg);
        goto out;
    }
    if (admin_atomic_commit(w, &g_stop) < 0 && !w->renamed) {
        admin_fail(CMD, "%s: write error", path);
        goto out;
    }
    rc = ADMIN_OK;
out:
    free(x);
    free(ym);
    free(yp);
    free(ser);
    free(labels);
    return rc;
}

static int parse_sizes(const char *s, plan *p)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return admin_usage(CMD, "--sizes '%.40s...' too long", s);
    snprintf(buf, sizeof buf, "%s", s);
    p->nsizes = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        double b;
        ct_err err;
        if (p->nsizes == MAX_SIZES)
            return admin_usage(CMD, "--sizes: more than %d sizes", MAX_SIZES);
        if (ct_parse_size(t, &b, &err) < 0 || !(b >= 1) || b > 64.0 * 1048576)
            return admin_usage(CMD, "--sizes: '%s' (accepted: sizes from 1 byte to 64M, e.g. "
                               "32K,64K,128K)", t);
        p->sizes[p->nsizes++] = b;
    }
    if (p->nsizes < 2)
        return admin_usage(CMD, "--sizes: %d size(s) (accepted: at least 2, 4 or more advised: "
                           "the fit needs 4 points, 000 §V)", p->nsizes);
    snprintf(p->sizes_arg, sizeof p->sizes_arg, "%s", s);
    return ADMIN_OK;
}

static void print_report(FILE *o, const ct_calib_result *r, const ct_calib_gige *g, int have_gige,
                         const char *gige_err)
{
    char t1[32], t2[32], t3[32];
    fprintf(o, "point-to-point (Hockney): alpha = %s, bandwidth = %.4g MB/s (%zu ping-pong "
               "sizes, R^2 %.4f)\n",
            admin_fmt_time(r->alpha, t1, sizeof t1), 1.0 / r->beta / 1e6, r->p2p_diag.npoints,
            r->p2p_diag.r2);
    if (r->p2p_diag.warning[0])
        fprintf(o, "  warning: %s\n", r->p2p_diag.warning);
    for (size_t q = 0; r->p2p.nseg > 1 && q < r->p2p.nseg; q++)
        fprintf(o, "  segment %zu from %s: alpha = %s, bandwidth = %.4g MB/s (%zu samples, R^2 "
                   "%.4f, max error %.1f%%)\n",
                q + 1, admin_fmt_bytes(r->p2p.seg[q].from, t2, sizeof t2),
                admin_fmt_time(r->p2p.seg[q].alpha, t1, sizeof t1), 1.0 / r->p2p.seg[q].beta / 1e6,
                r->p2p_seg[q].npoints, r->p2p_seg[q].r2, 100 * r->p2p_seg[q].max_rel_err);
    if (r->incast) {
        fprintf(o, "Alltoall signature, gamma(k,f) (our extension of 000 eq. 5) fitted robustly on");
        for (size_t k = 0; k < r->nfit_cfg; k++)
            fprintf(o, " %dx%d", (int)r->fit_cfg[k][0], (int)r->fit_cfg[k][1]);
        fprintf(o, ", %zu samples: gamma = %.4g + %.4g (k-1) + %.4g (f-1), delta = %s, M = %s "
                   "(fit max error %.1f%%, on points within their spread %.1f%%)\n",
                r->nfit, r->sig.gamma, r->sig.gamma_incast, r->sig.gamma_flows,
                admin_fmt_time(r->sig.delta, t1, sizeof t1),
                admin_fmt_bytes(r->sig.M, t2, sizeof t2), 100 * r->a2a_diag.max_rel_err,
                100 * r->a2a_rep.max_err_trusted);
        if (r->a2a_rep.note[0])
            fprintf(o, "  note: %s\n", r->a2a_rep.note);
    } else {
        fprintf(o, "Alltoall signature (000 eq. 5) fitted on %d nodes x %d task%s, %zu samples: "
               "gamma = %.4g, delta = %s, M = %s (fit max error %.1f%%)\n",
            (int)r->fit_nodes, (int)r->fit_tasks_per_node, r->fit_tasks_per_node > 1 ? "s" : "",
            r->nfit, r->sig.gamma, admin_fmt_time(r->sig.delta, t1, sizeof t1),
            admin_fmt_bytes(r->sig.M, t2, sizeof t2), 100 * r->a2a_diag.max_rel_err);
    }
    if (r->a2a_diag.warning[0])
        fprintf(o, "  warning: %s\n", r->a2a_diag.warning);
    fprintf(o, "validation on %zu held-back samples (not used by the fit):\n", r->nheld);
    fprintf(o, "  %5s %4s %9s %11s %11s %11s %8s\n", "nodes", "tpn", "m", "measured",
            "predicted", "bound", "error");
    for (size_t i = 0; i < r->npoints; i++) {
        const ct_calib_point *p = &r->points[i];
        if (!p->held)
            continue;
        fprintf(o, "  %5d %4d %9s %11s %11s", (int)p->nodes, (int)p->tasks_per_node,
                admin_fmt_bytes(p->m, t1, sizeof t1), admin_fmt_time(p->measured, t2, sizeof t2),
                admin_fmt_time(p->predicted, t3, sizeof t3));
        fprintf(o, " %11s %+7.1f%%\n", admin_fmt_time(p->bound, t1, sizeof t1), 100 * p->rel_err);
    }
    fprintf(o, "held-back error: median %.1f%%, mean %.1f%%, max %.1f%% over %zu samples; "
               "saturated (m >= 128 KiB): median %.1f%% over %zu\n",
            100 * r->held_all.median_abs, 100 * r->held_all.mean_abs, 100 * r->held_all.max_abs,
            r->held_all.n, 100 * r->held_saturated.median_abs, r->held_saturated.n);
    if (have_gige) {
        fprintf(o, "GigE penalty model (001 §V-A) at %s: T_ref = %s, beta = %.4g", 
                admin_fmt_bytes(g->m, t1, sizeof t1), admin_fmt_time(g->t_ref, t2, sizeof t2),
                g->beta);
        for (size_t i = 0; i < g->nout; i++)
            fprintf(o, "%s penalty(%d out) = %.3g", i ? "," : " from", g->k[i], g->penalty[i]);
        fputc('\n', o);
        if (g->has_gammas)
            fprintf(o, "  gamma_o = %.4g, gamma_i = %.4g (from %s)\n", g->gamma_o, g->gamma_i,
                    strcmp(g->gamma_scheme, "mix4") ? "Fig. 4's a and f" : "mix4's a and c");
        else
            fprintf(o, "  gammas not fitted: %s\n", g->note);
        if (g->intra_bw > 0)
            fprintf(o, "  intra-node bandwidth %.4g MB/s\n", g->intra_bw / 1e6);
        for (size_t i = 0; i < g->nchecks; i++)
            fprintf(o, "  check %s:%s penalty measured %.3f, predicted %.3f\n",
                    g->checks[i].scheme, g->checks[i].label, g->checks[i].measured_penalty,
                    g->checks[i].predicted_penalty);
        if (g->nchecks)
            fprintf(o, "  penalty error on %zu held-back communications: median %.1f%%, max "
                       "%.1f%%\n", g->check_err.n, 100 * g->check_err.median_abs,
                    100 * g->check_err.max_abs);
    } else if (gige_err && *gige_err) {
        fprintf(o, "GigE penalty model not fitted: %s\n", gige_err);
    }
}

static int rmtree_flat(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return -1;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(dp);
    return rmdir(dir);
}

int cmd_calibrate(int argc, char **argv)
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
                                         {"p2p-segments", required_argument, NULL, 'S'},
                                         {"max-fit-error", required_argument, NULL, 'E'},
                                         {"strict", no_argument, NULL, 'X'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = CMD,
                      .shortopts = "f:p:N:C:o:P:s:r:qxc:R:F:b:m:t:T:h",
                      .longopts = opts,
                      .accepted = "--fabric, --partition, --nodes, --tasks-per-node, --out, "
                                  "--plot, --sizes, --reps, --quick, --no-conflicts, "
                                  "--conflict-size, --raw, --from, --bench, --mpi, "
                                  "--time-limit, --points, --incast, --p2p-segments, "
                                  "--max-fit-error, --strict, --help",
                      .help = help};
    const char *part = NULL, *out = NULL, *svg = NULL, *raw = NULL, *from = NULL;
    const char *bench = NULL, *sizes = NULL, *points = NULL;
    long N = 0, C = 0, reps = 0, tlimit = 60, nseg = 0;
    int quick = 0, incast = 0, strict = 0;
    double max_err_pct = 15;
    static plan P;
    memset(&P, 0, sizeof P);
    P.mpi = "pmix";
    P.conflicts = 1;
    P.csize = 1048576;
    int c;
    while ((c = admin_next_opt(&opt, argc, argv)) > 0) {
        switch (c) {
        case 'p': part = optarg; break;
        case 'N':
            if (admin_int_opt(CMD, "--nodes", optarg, 2, 64, &N) < 0)
                return ADMIN_USAGE;
            break;
        case 'C':
            if (admin_int_opt(CMD, "--tasks-per-node", optarg, 1, 64, &C) < 0)
                return ADMIN_USAGE;
            break;
        case 'o': out = optarg; break;
        case 'P': svg = optarg; break;
        case 's': sizes = optarg; break;
        case 'r':
            if (admin_int_opt(CMD, "--reps", optarg, 1, 1000, &reps) < 0)
                return ADMIN_USAGE;
            break;
        case 'q': quick = 1; break;
        case 'x': P.conflicts = 0; break;
        case 'c':
            if (admin_size_opt(CMD, "--conflict-size", optarg, &P.csize) < 0)
                return ADMIN_USAGE;
            if (!(P.csize >= 1024) || P.csize > 256.0 * 1048576)
                return admin_usage(CMD, "--conflict-size '%s' (accepted: 1K to 256M)", optarg);
            break;
        case 'R': raw = optarg; break;
        case 'F': from = optarg; break;
        case 'b': bench = optarg; break;
        case 'm': P.mpi = optarg; break;
        case 't':
            if (admin_int_opt(CMD, "--time-limit", optarg, 1, 10080, &tlimit) < 0)
                return ADMIN_USAGE;
            break;
        case 'T': points = optarg; break;
        case 'I': incast = 1; break;
        case 'X': strict = 1; break;
        case 'S':
            if (admin_int_opt(CMD, "--p2p-segments", optarg, 1, CT_P2P_MAX_SEG, &nseg) < 0)
                return ADMIN_USAGE;
            break;
        case 'E': {
            char *end = NULL;
            max_err_pct = strtod(optarg, &end);
            if (!*optarg || *end || !isfinite(max_err_pct) || max_err_pct < 0)
                return admin_usage(CMD, "--max-fit-error '%s' (accepted: a percentage >= 0)",
                                   optarg);
            break;
        }
        }
    }
    if (c < 0)
        return opt.status;
    const char *name = opt.fabric;
    if (optind < argc)
        return admin_usage(CMD, "unexpected argument '%s'", argv[optind]);
    if (!name)
        return admin_usage(CMD, "--fabric NAME is required");
    if (!part && !from)
        return admin_usage(CMD, "--partition P is required (or --from DIR to refit kept outputs)");
    if (part && (strlen(part) >= CT_NAME_MAX || strpbrk(part, " \t\n,")))
        return admin_usage(CMD, "--partition '%s' (accepted: a Slurm partition name)", part);

    ct_fabric fab;
    if (admin_new_fabric(CMD, name, &fab) != ADMIN_OK)
        return ADMIN_USAGE;
    ct_err err;
    P.reps = reps ? (int)reps : quick ? 3 : 5;
    if (!nseg)
        nseg = incast ? 4 : 1;
    P.wide_pingpong = nseg > 1;
    if (parse_sizes(sizes ? sizes : quick ? "32K,64K,128K,256K" : "32K,64K,128K,256K,512K",
                    &P) != ADMIN_OK)
        return ADMIN_USAGE;

    /* where the outputs go: --raw DIR is kept, a temporary one is not */
    char dir[PATH_MAX - 512]; /* room for '/' + a file name in PATH_MAX */
    int keep = 0;
    if (from) {
        snprintf(dir, sizeof dir, "%s", from);
        keep = 1;
    } else if (raw) {
        if (mkdir(raw, 0755) < 0 && errno != EEXIST)
            return admin_fail(CMD, "--raw %s: %s", raw, strerror(errno));
        snprintf(dir, sizeof dir, "%s", raw);
        keep = 1;
    } else {
        const char *tmpd = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/ct-calibrate.XXXXXX", tmpd && *tmpd ? tmpd : "/tmp");
        if (!mkdtemp(dir))
            return admin_fail(CMD, "cannot create a temporary directory: %s", strerror(errno));
    }

    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    g_stop = 0;

    FILE *info = out ? stdout : stderr; /* the YAML alone on stdout without --out */
    char jobid[32] = "";
    admin_atomic w_out = {NULL, "", "", 0}, w_svg = {NULL, "", "", 0}, w_pts = {NULL, "", "", 0};
    data d;
    memset(&d, 0, sizeof d);
    ct_calib_result res;
    memset(&res, 0, sizeof res);
    int rc = ADMIN_INVALID;
    char benchbuf[PATH_MAX], today[16], when[32];
    time_t tnow = time(NULL);
    struct tm tm;
    localtime_r(&tnow, &tm);
    strftime(today, sizeof today, "%Y-%m-%d", &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    int nodes_used = 0, tpn_used = 0;

    if (!from) {
        P.bench = bench ? bench : find_bench(benchbuf, sizeof benchbuf);
        char buf[64];
        if (!N) {
            N = 4;
            if (sinfo(part, "%D", dir, buf, sizeof buf) == 0 && atol(buf) >= 2)
                N = atol(buf) < 8 ? atol(buf) : 8;
        }
        if (!C) {
            C = 4;
            if (sinfo(part, "%c", dir, buf, sizeof buf) == 0 && atol(buf) >= 1)
                C = atol(buf) < 4 ? atol(buf) : 4;
        }
        nodes_used = (int)N;
        tpn_used = (int)C;

        fprintf(info, "calibrate: allocating %ld nodes x %ld tasks in partition %s ...\n", N, C,
                part);
        fflush(info);
        char nb[16], tb[32], tl[16], errp[PATH_MAX];
        snprintf(nb, sizeof nb, "%ld", N);
        snprintf(tb, sizeof tb, "%ld", C);
        snprintf(tl, sizeof tl, "%ld", tlimit);
        char pp[CT_NAME_MAX];
        snprintf(pp, sizeof pp, "%s", part);
        char *sa_argv[] = {"salloc", "--no-shell", "-J", "ct-calibrate", "-p", pp, "-N", nb,
                           "--ntasks-per-node", tb, "--time", tl, NULL};
        snprintf(errp, sizeof errp, "%s/salloc.err", dir);
        int st = run(sa_argv, NULL, errp);
        int got = salloc_jobid(errp, jobid, sizeof jobid);
        if (g_stop)
            goto interrupted;
        if (st != 0 || got != 0) {
            char line[512] = "";
            grep_file(errp, "error", line, sizeof line);
            admin_fail(CMD, "salloc failed (exit %d)%s%s", st, line[0] ? ": " : "", line);
            goto out;
        }
        fprintf(info, "calibrate: job %s allocated; %s\n", jobid, keep ? dir : "outputs in a temporary directory");

        build_plan(&P, (int)N, (int)C, jobid, quick);
        /* first guess: 100 MB/s, 1.5 s per step to start; corrected as steps finish */
        double guess_bps = 100e6, startup = 1.5, ratio = 1.0, est_done = 0, took_done = 0;
        double t0 = now_s();
        for (int i = 0; i < P.n; i++) {
            step *s = &P.steps[i];
            s->est = startup + s->work / guess_bps;
        }
        for (int i = 0; i < P.n && !g_stop; i++) {
            step *s = &P.steps[i];
            char outp[PATH_MAX], errq[PATH_MAX], d1[32], d2[32];
            snprintf(outp, sizeof outp, "%s/%s", dir, s->file);
            snprintf(errq, sizeof errq, "%s/%s.err", dir, s->file);
            fprintf(info, "[%2d/%d] %s ...", i + 1, P.n, s->label);
            fflush(info);
            double ts = now_s();
            int st2 = -1;
            for (int attempt = 0; attempt < 3 && !g_stop; attempt++) {
                if (attempt)
                    fprintf(info, " retry %d ...", attempt);
                st2 = run(s->argv, outp, errq);
                if (st2 == 0)
                    break;
            }
            if (g_stop)
                break;
            s->took = now_s() - ts;
            if (st2 != 0) {
                char line[512] = "";
                if (grep_file(errq, "rror", line, sizeof line) < 0)
                    grep_file(errq, "", line, sizeof line);
                fprintf(info, " failed\n");
                admin_fail(CMD, "step '%s' failed 3 times (exit %d)%s%s; its output: %s", s->label,
                           st2, line[0] ? ": " : "", line, errq);
                goto out;
            }
            if (s->kind == ST_PINGPONG) {
                /* the measured bandwidth replaces the guess */
                ct_bench_data pd;
                memset(&pd, 0, sizeof pd);
                double a, b;
                if (ct_bench_parse_file(outp, NULL, &pd, NULL, &err) == 0 &&
                    ct_fit_hockney(pd.p2p, pd.np2p, &a, &b, NULL, &err) == 0 && b > 0) {
                    guess_bps = 1.0 / b;
                    for (int j = i + 1; j < P.n; j++)
                        P.steps[j].est = startup + 1.5 * P.steps[j].work / guess_bps;
                }
                ct_bench_free(&pd);
            } else {
                est_done += s->est;
                took_done += s->took;
                ratio = took_done / est_done;
            }
            double left = 0;
            for (int j = i + 1; j < P.n; j++)
                left += P.steps[j].est * ratio;
            fprintf(info, " %.1f s   (elapsed %s, ~%s left)\n", s->took,
                    fmt_dur(now_s() - t0, d1, sizeof d1), fmt_dur(left, d2, sizeof d2));
            fflush(info);
        }
        if (g_stop)
            goto interrupted;
        scancel(jobid, dir);
        jobid[0] = '\0';
        for (int i = 0; i < P.n; i++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", dir, P.steps[i].file);
            if (load_output(path, &d) != ADMIN_OK)
                goto out;
        }
    } else if (load_dir(from, &d) != ADMIN_OK) {
        goto out;
    }

    /* fit and validate */
    ct_calib_gige g;
    memset(&g, 0, sizeof g);
    int have_gige = 0;
    char gige_err[CT_ERR_MAX] = "";
    if (d.nconf) {
        if (ct_calibrate_gige(d.conf, d.nconf, &g, &err) == 0)
            have_gige = 1;
        else
            snprintf(gige_err, sizeof gige_err, "%s", err.msg);
    }
    ct_calib_opts co;
    ct_calib_opts_default(&co);
    co.intra_bw = have_gige ? g.intra_bw : 0;
    if (d.intra_bw > 0) /* one node's halves: how MPI really moves intra-node bytes */
        co.intra_bw = d.intra_bw;
    co.incast = incast;
    co.p2p_max_seg = (size_t)nseg;
    co.max_fit_err = max_err_pct / 100;
    co.force = !strict; /* calibrate flags loudly; --strict refuses */
    if (ct_calibrate_alltoall(d.bench.p2p, d.bench.np2p, d.bench.a2a, d.bench.na2a, &co, &res,
                              &err) < 0) {
        admin_fail(CMD, "%s", err.msg);
        goto out;
    }
    /* the training-error threshold, the papers' fit included (fit_alltoall.h) */
    double train_err = 0;
    for (size_t i = 0; !incast && i < d.bench.na2a; i++) {
        const ct_a2a_sample *s = &d.bench.a2a[i];
        if (!(s->m > 0) || !ct_calib_result_in_fit(&res, s) ||
            ct_a2a_sample_spread(s) > co.max_fit_err)
            continue;
        double e = fabs(ct_a2a_predict_sample(s, &res.p2p, co.intra_bw, &res.sig) - s->t) / s->t;
        train_err = e > train_err ? e : train_err;
    }
    if (incast)
        train_err = res.a2a_rep.max_err_trusted;
    int over = co.max_fit_err > 0 && train_err > co.max_fit_err;
    if (over && strict) {
        admin_fail(CMD,
                   "Alltoall signature refused (--strict): it misses its own points by up to "
                   "%.1f%% (accepted: <= --max-fit-error %.1f%%); refit the kept outputs with "
                   "--from DIR, e.g. with --incast",
                   100 * train_err, max_err_pct);
        goto out;
    }
    if (res.nheld == 0)
        fprintf(stderr, "contention-admin calibrate: warning: no held-back samples: the "
                        "signature is not validated (measure more than one configuration)\n");
    print_report(info, &res, &g, have_gige, gige_err);
    if (d.intra_bw > 0)
        fprintf(info, "intra-node bandwidth %.4g MB/s from one node's halves (used by the model)\n",
                d.intra_bw / 1e6);
    if (over)
        fprintf(stderr,
                "contention-admin calibrate: WARNING: the Alltoall signature misses its own "
                "training points by up to %.1f%% (threshold %.1f%%): its predictions are not "
                "trustworthy; %s\n",
                100 * train_err, max_err_pct,
                incast ? "measure more repetitions, or on a quieter host"
                       : "refit with --from DIR --incast, or measure more repetitions");
    if (have_gige && g.gamma_out_of_range)
        fprintf(stderr, "contention-admin calibrate: WARNING: %s\n", g.note);
    if (!nodes_used) {
        for (size_t i = 0; i < res.npoints; i++) {
            nodes_used = res.points[i].nodes > nodes_used ? res.points[i].nodes : nodes_used;
            tpn_used = res.points[i].tasks_per_node > tpn_used ? res.points[i].tasks_per_node
                                                               : tpn_used;
        }
    }

    fab.alpha = res.alpha;
    fab.beta = res.beta;
    if (res.p2p.nseg > 1)
        fab.p2p_segments = res.p2p; /* read by every model through ct_fabric_p2p_at */
    fab.intra_bw = co.intra_bw;
    fab.has_alltoall = 1;
    fab.alltoall = res.sig;
    snprintf(fab.a2a_date, sizeof fab.a2a_date, "%s", today);
    fab.a2a_fitted_n = res.fit_nodes * res.fit_tasks_per_node;
    if (res.incast)
        for (size_t k = 0; k < res.nfit_cfg; k++)
            if (res.fit_cfg[k][0] * res.fit_cfg[k][1] > fab.a2a_fitted_n)
                fab.a2a_fitted_n = res.fit_cfg[k][0] * res.fit_cfg[k][1];
    fab.a2a_fit_error = res.a2a_diag.max_rel_err;
    snprintf(fab.description, sizeof fab.description,
             "calibrated by contention-admin calibrate on %s%s%s (%d nodes x up to %d tasks)",
             when, part ? ", partition " : "", part ? part : "", nodes_used, tpn_used);
    if (res.incast)
        snprintf(fab.source, sizeof fab.source,
                 "contention-admin calibrate %s: gamma(k,f) fitted robustly on %zu "
                 "configurations (our extension of 000 eq. 5), held-back median error %.1f%% "
                 "over %zu samples%s",
                 today, res.nfit_cfg, 100 * res.held_all.median_abs, res.held_all.n,
                 over ? " (FLAGGED: over the training-error threshold)" : "");
    else
        snprintf(fab.source, sizeof fab.source,
                 "contention-admin calibrate %s: signature fitted on %dx%d (000 §V), held-back "
                 "median error %.1f%% over %zu samples%s",
                 today, (int)res.fit_nodes, (int)res.fit_tasks_per_node,
                 100 * res.held_all.median_abs, res.held_all.n,
                 over ? " (FLAGGED: over the training-error threshold)" : "");
    snprintf(fab.p2p_source, sizeof fab.p2p_source,
             "contention-admin calibrate %s: Hockney least squares on %zu ping-pong sizes", today,
             d.bench.np2p);
    if (have_gige) {
        fab.penalty = CT_GIGE_MODEL(g.beta, g.gamma_i, g.gamma_o);
        snprintf(fab.penalty_source, sizeof fab.penalty_source,
                 "contention-admin calibrate %s: 001 §V-A from conflict schemes at %.0f bytes%s",
                 today, g.m,
                 g.has_gammas             ? (strcmp(g.gamma_scheme, "mix4") ? "" : ", gammas from mix4")
                 : g.gamma_out_of_range ? " (in-out conflicts beyond the model's range: gammas 0)"
                                         : " (no Fig. 4 / mix4 scheme: gammas 0)");
    } else {
        fab.penalty.kind = CT_MODEL_FAIRSHARE;
        snprintf(fab.penalty_source, sizeof fab.penalty_source,
                 "contention-admin calibrate %s: conflicts not measured; fair-share baseline",
                 today);
    }
    if (ct_fabric_validate(&fab, &err) < 0) {
        admin_fail(CMD, "the fitted values are out of range: %s", err.msg);
        goto out;
    }

    ct_partition_map pm;
    memset(&pm, 0, sizeof pm);
    ct_sigfile one;
    memset(&one, 0, sizeof one);
    one.version = CT_SIG_VERSION;
    one.nfabrics = 1;
    one.fabrics = &fab;
    one.default_fabric = 0;
    if (part) {
        snprintf(pm.partition, sizeof pm.partition, "%s", part);
        pm.fabric = 0;
        one.nparts = 1;
        one.parts = &pm;
    }
    FILE *o = stdout;
    if (out) {
        if (admin_atomic_open(&w_out, out, 0644) < 0) {
            admin_fail(CMD, "%s: cannot create a temporary file beside it: %s", out,
                       strerror(errno));
            goto out;
        }
        o = w_out.f;
    }
    fprintf(o, "# Calibrated by contention-admin calibrate on %s%s%s\n", when,
           part ? ", partition " : "", part ? part : "");
    fprintf(o, "# Held-back validation: median error %.1f%%, max %.1f%% over %zu samples "
               "(saturated, m >= 128 KiB: median %.1f%%)\n",
            100 * res.held_all.median_abs, 100 * res.held_all.max_abs, res.held_all.n,
            100 * res.held_saturated.median_abs);
    if (ct_sigfile_write(o, &one, &err) < 0) {
        admin_fail(CMD, "%s", err.msg);
        goto out; /* drops the temporary file */
    }
    if (out) {
        if (admin_atomic_commit(&w_out, &g_stop) < 0 && !w_out.renamed) {
            if (g_stop)
                goto interrupted;
            admin_fail(CMD, "%s: write error", out);
            goto out;
        }
        fprintf(info, "wrote fabric %s to %s\n", name, out);
    } else {
        fflush(stdout);
    }
    if (svg) {
        if (plot(svg, &w_svg, name, &res) != ADMIN_OK)
            goto out;
        fprintf(info, "wrote plot to %s\n", svg);
    }
    if (points) {
        if (admin_atomic_open(&w_pts, points, 0644) < 0) {
            admin_fail(CMD, "%s: cannot create a temporary file beside it: %s", points,
                       strerror(errno));
            goto out;
        }
        FILE *pf = w_pts.f;
        fprintf(pf, "nodes,tasks_per_node,size_bytes,measured_s,predicted_s,bound_s,rel_err,held\n");
        for (size_t i = 0; i < res.npoints; i++) {
            const ct_calib_point *p = &res.points[i];
            fprintf(pf, "%d,%d,%.0f,%.9g,%.9g,%.9g,%.6f,%d\n", (int)p->nodes,
                    (int)p->tasks_per_node, p->m, p->measured, p->predicted, p->bound, p->rel_err,
                    p->held);
        }
        if (admin_atomic_commit(&w_pts, &g_stop) < 0 && !w_pts.renamed) {
            admin_fail(CMD, "%s: write error", points);
            goto out;
        }
        fprintf(info, "wrote points to %s\n", points);
    }
    rc = ADMIN_OK;
    goto out;

interrupted:
    fprintf(stderr, "\ncontention-admin calibrate: interrupted (signal %d)%s%s; nothing written\n",
            (int)g_stop, jobid[0] ? ", cancelling job " : "", jobid);
    rc = 130;
out:
    if (jobid[0])
        scancel(jobid, dir);
    admin_atomic_abort(&w_out);
    admin_atomic_abort(&w_svg);
    admin_atomic_abort(&w_pts);
    if (!keep)
        rmtree_flat(dir);
    ct_calib_result_free(&res);
    ct_bench_free(&d.bench);
    free(d.conf);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    return rc;
}
