/* contention-admin calibrate, the job runner (calibrate.h): the plan of
 * measurements, one allocation (salloc --no-shell) holding the nodes, one
 * srun step of bench/mpi/ct-mpibench per measurement inside it (3 attempts
 * each, a progress line with the time left), Ctrl-C stopping the running
 * step and cancelling the allocation, and the outputs read back. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#include "calibrate.h"
#include "contention/fileio.h"
#include "contention/fit.h"
#include "contention/units.h"

volatile sig_atomic_t calib_stop;
static volatile pid_t g_child;

static void on_signal(int sig)
{
    calib_stop = sig;
    if (g_child > 0)
        kill(-g_child, SIGTERM); /* the child leads its own process group */
}

void calib_signals_install(struct sigaction old[3])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    sigaction(SIGHUP, &sa, &old[2]);
    calib_stop = 0;
}

void calib_signals_restore(const struct sigaction old[3])
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    sigaction(SIGHUP, &old[2], NULL);
}

/* ---- plan ----------------------------------------------------------------- */

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

static step *new_step(plan *p, int kind, int nodes, int tpn, const char *file)
{
    if (p->n >= MAX_STEPS) {
        fprintf(stderr, "contention-admin calibrate: internal: more than %d steps\n", MAX_STEPS);
        abort();
    }
    step *s = &p->steps[p->n++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->nodes = nodes;
    s->tpn = tpn;
    snprintf(s->file, sizeof s->file, "%s", file);
    return s;
}

/* srun in the allocation, the tasks dealt as `dist` says (NULL: srun's default) */
static void srun_prefix_dist(const plan *p, step *s, const char *jobid, const char *dist)
{
    arg(s, "srun");
    arg(s, "--jobid=%s", jobid);
    arg(s, "--nodes=%d", s->nodes);
    arg(s, "--ntasks-per-node=%d", s->tpn);
    arg(s, "--ntasks=%d", s->nodes * s->tpn);
    arg(s, "--kill-on-bad-exit=1");
    arg(s, "--quiet");
    if (dist)
        arg(s, "--distribution=%s", dist);
    if (strcmp(p->mpi, "none") != 0)
        arg(s, "--mpi=%s", p->mpi);
    arg(s, "%s", p->bench);
}

static void srun_prefix(const plan *p, step *s, const char *jobid)
{
    srun_prefix_dist(p, s, jobid, NULL);
}

/* The bucket's refill step (session 29): the 2 x 1 exchange after an idle of
 * CALIB_REFILL_IDLE before each call, at 256 KiB, 512 KiB and 1 MiB, as an
 * MPI_Ialltoall into refill-2x1.csv or, posted (session 36), as the patterns
 * post theirs (ct-mpibench alltoall --p2p: MPI_Irecv and MPI_Isend, one wait)
 * into refill-p2p-2x1.csv: the bucket a pattern's step gets. Timed by
 * calibrate's polled wait the Alltoall got 0.22-0.77 ms less of it after the
 * same idle (doc/accuracy-notes.md, "Session 35"). Optional. */
static void refill_step(plan *p, int posted, const char *jobid)
{
    step *s = new_step(p, ST_REFILL, 2, 1, posted ? "refill-p2p-2x1.csv" : "refill-2x1.csv");
    srun_prefix(p, s, jobid);
    arg(s, "alltoall");
    if (posted)
        arg(s, "--p2p");
    arg(s, "--sizes");
    arg(s, "256K,512K,1M");
    arg(s, "--reps");
    arg(s, "%d", p->reps);
    arg(s, "--idle");
    arg(s, "%g", CALIB_REFILL_IDLE);
    s->optional = 1;
    s->work = (262144.0 + 524288.0 + 1048576.0) * (p->reps + 1);
    s->idle = CALIB_REFILL_IDLE * 3 * (p->reps + 1);
    if (posted)
        snprintf(s->label, sizeof s->label,
                 "Isend/Irecv exchange, 2 nodes x 1 task, after %.0f ms idle, 3 sizes",
                 1e3 * CALIB_REFILL_IDLE);
    else
        snprintf(s->label, sizeof s->label,
                 "Alltoall, 2 nodes x 1 task, after %.0f ms idle (the bucket's refill), 3 sizes",
                 1e3 * CALIB_REFILL_IDLE);
}

/* The exchange the duplex terms are read off (our extension, session 53):
 * the 2 x 1 exchange posted as the patterns post theirs (ct-mpibench
 * alltoall --p2p: MPI_Irecv and MPI_Isend, one wait), timed back to back at
 * the 2 x 1 Alltoall's sizes as planned (x2: that step), into
 * exchange-p2p-2x1.csv. The patterns' fixed time a step is not the
 * MPI_Ialltoall's: read off it, the pattern points that cross the network came
 * out within 8 % on more of the networks measured since session 46
 * (doc/accuracy-runs/rules-s53.txt). Optional: without it the duplex terms are
 * the MPI_Ialltoall's, as before. */
static void exchange_step(plan *p, const step *x2, const char *jobid)
{
    step *s = new_step(p, ST_EXCHANGE, 2, 1, "exchange-p2p-2x1.csv");
    srun_prefix(p, s, jobid);
    arg(s, "alltoall");
    arg(s, "--p2p");
    arg(s, "--sizes");
    arg(s, "%s", x2->argv[x2->sizes_at]);
    arg(s, "--reps");
    arg(s, "%d", p->reps);
    s->optional = 1;
    s->work = x2->work;
    int n = 1;
    for (const char *c = x2->argv[x2->sizes_at]; *c; c++)
        n += *c == ',';
    snprintf(s->label, sizeof s->label,
             "Isend/Irecv exchange, 2 nodes x 1 task, back to back, %d sizes", n);
}

/* An argument in s's store at argv index k, in place of the one there */
static void set_arg(step *s, int k, const char *v)
{
    size_t n = strlen(v) + 1;
    if (k <= 0 || k >= s->argc || n > sizeof s->store - s->used) {
        fprintf(stderr, "contention-admin calibrate: internal: step arguments too long\n");
        abort();
    }
    char *dst = memcpy(s->store + s->used, v, n);
    s->used += n;
    s->argv[k] = dst;
}

/* An Alltoall step's --sizes value, work and label from the plan's sizes:
 * the 2 x 1 also at the exchange's sizes (calib_exchange_sizes) */
static void alltoall_sizes(plan *p, step *s)
{
    char xsz[32] = "", v[sizeof p->sizes_arg + 40];
    double xsum = 0, msum = 0;
    const int t = s->tpn, x2 = s->a2a_role == CALIB_A2A_CONFIG && s->nodes == 2 && t == 1;
    int nx = x2 ? calib_exchange_sizes(p, xsz, sizeof xsz, &xsum) : 0;
    for (int i = 0; i < p->nsizes; i++)
        msum += p->sizes[i];
    snprintf(v, sizeof v, "%s%s%s", p->sizes_arg, nx ? "," : "", nx ? xsz : "");
    set_arg(s, s->sizes_at, v);
    double n = (double)s->nodes * t;
    s->work = t * (n - t) * (msum + xsum) * (p->reps + 1); /* bytes through the busiest NIC */
    if (s->a2a_role == CALIB_A2A_FLOW)
        snprintf(s->label, sizeof s->label,
                 "Alltoall, 2 nodes x %d tasks (%d flows a port), %d sizes", t, t * t, p->nsizes);
    else if (s->a2a_role == CALIB_A2A_INCAST)
        snprintf(s->label, sizeof s->label,
                 "Alltoall, 3 nodes x %d tasks (%d flows a port from 2 nodes), %d sizes", t,
                 2 * t * t, p->nsizes);
    else if (nx)
        snprintf(s->label, sizeof s->label,
                 "Alltoall, 2 nodes x 1 task, %d sizes (the exchange up to 2 MiB)",
                 p->nsizes + nx);
    else
        snprintf(s->label, sizeof s->label, "Alltoall, %d nodes x %d task%s, %d sizes", s->nodes,
                 t, t > 1 ? "s" : "", p->nsizes);
}

/* One Alltoall step of `nodes` x t tasks over the plan's sizes into
 * alltoall-NxT.csv (alltoall_sizes) */
static step *alltoall_step(plan *p, int nodes, int t, int role, const char *jobid)
{
    char file[64];
    snprintf(file, sizeof file, "alltoall-%dx%d.csv", nodes, t);
    step *s = new_step(p, ST_ALLTOALL, nodes, t, file);
    srun_prefix(p, s, jobid);
    arg(s, "alltoall");
    arg(s, "--sizes");
    arg(s, "-"); /* alltoall_sizes writes it */
    s->sizes_at = s->argc - 1;
    arg(s, "--reps");
    arg(s, "%d", p->reps);
    s->a2a_role = role;
    alltoall_sizes(p, s);
    return s;
}

int calib_floor_check(plan *p, int i, const char *path, double min_m, ct_a2a_call_floor *f)
{
    const step *s = &p->steps[i];
    if (!p->floor_sizes || p->resized || s->kind != ST_ALLTOALL ||
        s->a2a_role != CALIB_A2A_CONFIG || s->nodes != 2 || s->tpn != 1)
        return 0;
    ct_bench_data bd;
    memset(&bd, 0, sizeof bd);
    ct_err err;
    int floor = ct_bench_parse_file(path, NULL, &bd, NULL, &err) == 0 &&
                ct_a2a_on_call_floor(bd.a2a, bd.na2a, min_m, CT_A2A_CALL_FLOOR_RATIO, f);
    ct_bench_free(&bd);
    if (!floor)
        return 0;
    double was[MAX_SIZES];
    const int nwas = p->nsizes;
    memcpy(was, p->sizes, sizeof was);
    if (calib_parse_sizes(p->floor_sizes, p) != ADMIN_OK) { /* said why; the plan as it was */
        memcpy(p->sizes, was, sizeof was);
        p->nsizes = nwas;
        return 0;
    }
    p->resized = 1;
    for (int j = i; j < p->n; j++)
        if (p->steps[j].kind == ST_ALLTOALL)
            alltoall_sizes(p, &p->steps[j]);
    return 1;
}

int calib_flow_tasks(long asked, int N, int C, long cpus)
{
    if (asked == 0 || N < 2)
        return 0;
    long t = asked > 0 ? asked : (long)ceil(C * sqrt((double)(N - 1)) - 1e-9);
    if (asked < 0 && cpus > 0 && t > cpus)
        t = cpus; /* auto: what the nodes hold */
    return t > C ? (int)t : 0;
}

/* calib_incast_tasks before the nodes' CPUs cap it */
static long incast_wanted(int N, int C)
{
    long t = (long)ceil(C * sqrt((N - 1) / 2.0) - 1e-9);
    return t > C ? t : C + 1; /* 3 nodes: beyond the largest configuration, 3 x C (session 59) */
}

int calib_incast_tasks(int flow_tasks, int N, int C, long cpus)
{
    if (flow_tasks <= C || N < 3)
        return 0;
    long t = incast_wanted(N, C);
    if (cpus > 0 && t > cpus)
        t = cpus;
    return t > C ? (int)t : 0;
}

int calib_exchange_sizes(const plan *p, char *out, size_t sz, double *sum)
{
    static const double top[] = {1048576.0, 2097152.0}; /* the wide ping-pong's largest */
    const int ntop = (int)(sizeof top / sizeof top[0]);
    double mmax = 0;
    for (int i = 0; i < p->nsizes; i++)
        mmax = fmax(mmax, p->sizes[i]);
    size_t u = 0;
    int k = 0;
    *sum = 0;
    if (sz)
        out[0] = '\0';
    for (int i = 0; i < ntop; i++) {
        if (!(top[i] > mmax))
            continue;
        int n = snprintf(out + u, sz > u ? sz - u : 0, "%s%dM", u ? "," : "",
                         (int)(top[i] / 1048576.0));
        if (n < 0 || (size_t)n >= (sz > u ? sz - u : 0)) {
            if (sz)
                out[0] = '\0';
            *sum = 0;
            return 0;
        }
        u += (size_t)n;
        *sum += top[i];
        k++;
    }
    return k;
}

/* The intra-node halves of C tasks a node at an eighth of the conflict size
 * and at it (two sizes: the path's Hockney line, session 57): on one node
 * into intra.csv, or on `nodes` nodes at once, dealt cyclically so that each
 * pair is within a node, into intra-all.csv (session 55). */
static step *intra_step(plan *p, int nodes, int C, const char *jobid)
{
    char b1[32];
    step *s = new_step(p, ST_INTRA, nodes, C, nodes == 1 ? "intra.csv" : "intra-all.csv");
    srun_prefix_dist(p, s, jobid, nodes == 1 ? NULL : "cyclic");
    arg(s, "pattern");
    arg(s, "--pattern");
    arg(s, "halves");
    double small = floor(p->csize / 8);
    arg(s, "--sizes");
    arg(s, "%.0f,%.0f", small, p->csize);
    arg(s, "--reps");
    arg(s, "%d", p->reps);
    s->work = 0; /* no network traffic */
    char b2[32];
    admin_fmt_bytes(small, b2, sizeof b2);
    if (nodes == 1)
        snprintf(s->label, sizeof s->label, "intra-node halves, 1 node x %d tasks, %s and %s", C,
                 b2, admin_fmt_bytes(p->csize, b1, sizeof b1));
    else
        snprintf(s->label, sizeof s->label,
                 "intra-node halves, %d nodes x %d tasks at once (cyclic), %s and %s", nodes, C,
                 b2, admin_fmt_bytes(p->csize, b1, sizeof b1));
    return s;
}

void calib_build_plan(plan *p, int N, int C, const char *jobid, int quick)
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
    /* The exchange (our extension, session 28): 2 x 1 also at the
     * ping-pong's largest sizes above the plan's (alltoall_sizes), so that
     * the duplex coupling δ and the exchange step (ct_fit_duplex, the slope
     * and intercept of the 2 x 1 points from 128 KiB) span the sizes the
     * pattern model prices with them instead of being extrapolated from
     * 512 KiB: a node that sends and receives a long message at once loses
     * more than a 512 KiB exchange shows (doc/accuracy-notes.md, session 28). */
    for (int t = 1; t <= C; t *= 2) {
        for (int i = 0; i < nc; i++) {
            int nodes = counts[i];
            /* several tasks per node: the largest and half the node count */
            if (t > 1 && nodes != N && nodes != (N / 2 >= 2 ? N / 2 : N))
                continue;
            s = alltoall_step(p, nodes, t, CALIB_A2A_CONFIG, jobid);
            if (nodes == 2 && t == 1)
                exchange_step(p, s, jobid);
        }
    }

    /* The bucket's refill (our extension, session 29): the 2 x 1 exchange
     * again after an idle of CALIB_REFILL_IDLE before each call, at 256 KiB,
     * 512 KiB and 1 MiB: how much of a full token bucket an exchange gets
     * free (ct_fit_refill; a ping-pong gets more of it than an exchange,
     * doc/accuracy-notes.md "Session 29"). Optional: without it the
     * ping-pong's burst stands for the bucket. */
    if (N >= 2) {
        refill_step(p, 1, jobid);
        refill_step(p, 0, jobid);
    }

    /* the many-flow step (calib_flow_tasks): 2 nodes, incast degree 1 */
    if (p->flow_tasks > C && N >= 2) {
        s = alltoall_step(p, 2, p->flow_tasks, CALIB_A2A_FLOW, jobid);
        s->optional = 1; /* without it the fit takes 2 x C, as before session 19 */
    }
    /* the incast many-flow step (calib_incast_tasks): 3 nodes, incast degree 2,
     * marked as the step in its output ('# step: incast'): on 3 nodes it lies
     * on the largest node count, where only the mark tells it from the
     * configurations (ct_calib_incast_step) */
    if (p->incast_tasks > C && N >= 3) {
        s = alltoall_step(p, 3, p->incast_tasks, CALIB_A2A_INCAST, jobid);
        arg(s, "--step");
        arg(s, "incast");
        s->optional = 1; /* without it the fit has no incast-loss term, as before session 24 */
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
     * concurrent intra-node messages (ct_intra_read) */
    if (C >= 2)
        intra_step(p, 1, C, jobid);
    /* the same on every node at once, each pair within a node (cyclic, C even):
     * whether the nodes copy independently or share one capacity (emulated or
     * virtual nodes on one host; ct_intra_shared, session 55). Optional:
     * without it the nodes are taken to copy independently */
    if (C >= 2 && C % 2 == 0 && N >= 2)
        intra_step(p, N, C, jobid)->optional = 1;
    (void)b2;
}

int calib_parse_sizes(const char *s, plan *p)
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
    if (calib_stop)
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

void calib_scancel(const char *jobid, const char *dir)
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
    int stop = calib_stop;
    calib_stop = 0;
    run(argv, NULL, errp);
    calib_stop = stop;
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

/* ---- the switch tree (issue 14) -------------------------------------------- */

/* Whole small file into a NUL-terminated buffer (NULL when absent/empty). */
static char *slurp(const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    ct_err err;
    if (ct_read_file(path, 1u << 20, "a Slurm command's output", &buf, &len, &err) < 0)
        return NULL;
    if (len == 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

void calib_plan_uplinks(plan *p, int N, int C, int duplex, const char *jobid, const char *dir,
                        FILE *info)
{
    char topo_p[PATH_MAX], hosts_p[PATH_MAX], errp[PATH_MAX], raw_p[PATH_MAX], jb[64];
    snprintf(topo_p, sizeof topo_p, "%s/topology.txt", dir);
    snprintf(hosts_p, sizeof hosts_p, "%s/hosts.txt", dir);
    snprintf(raw_p, sizeof raw_p, "%s/nodelist.txt", dir);
    snprintf(errp, sizeof errp, "%s/scontrol.err", dir);
    snprintf(jb, sizeof jb, "%s", jobid);
    char *sc_argv[] = {"scontrol", "show", "topology", NULL};
    char *sq_argv[] = {"squeue", "-h", "-j", jb, "-o", "%N", NULL};
    char *text = NULL, *nl = NULL, **hosts = NULL, msg[200];
    int64_t nh = 0;
    ct_topology t;
    memset(&t, 0, sizeof t);
    int have_t = 0;
    if (run(sc_argv, topo_p, errp) != 0 || !(text = slurp(topo_p)) ||
        !strstr(text, "SwitchName=")) {
        unlink(topo_p); /* no topology/tree: one switch, nothing to measure */
        goto out;
    }
    if (run(sq_argv, raw_p, errp) != 0 || !(nl = slurp(raw_p))) {
        fprintf(info, "calibrate: switch tree not measured: squeue gave no node list for job "
                      "%s (%s)\n", jobid, errp);
        goto drop;
    }
    nl[strcspn(nl, " \n")] = '\0';
    if (admin_expand_hosts(nl, N, &hosts, &nh, msg, sizeof msg) < 0 || nh != N) {
        fprintf(info, "calibrate: switch tree not measured: node list '%.100s': %s\n", nl,
                nh != N ? "not the allocation's node count" : msg);
        goto drop;
    }
    if (admin_topology_from_scontrol("scontrol show topology", text, 1.0, &t) != ADMIN_OK)
        goto drop;
    have_t = 1;
    /* the allocation's nodes by leaf, in Slurm's order (= ct-mpibench's node indices) */
    int32_t *leaf = calloc((size_t)N, sizeof *leaf);
    if (!leaf)
        goto drop;
    for (int i = 0; i < N; i++) {
        int32_t v = ct_topology_node(&t, hosts[i]);
        if (v < 0) {
            fprintf(info, "calibrate: switch tree not measured: node %s is not in scontrol show "
                          "topology\n", hosts[i]);
            free(leaf);
            goto drop;
        }
        leaf[i] = t.node_switch[v];
    }
    FILE *hf = fopen(hosts_p, "w");
    for (int i = 0; hf && i < N; i++)
        fprintf(hf, "%s\n", hosts[i]);
    if (!hf || fclose(hf) != 0) {
        fprintf(info, "calibrate: switch tree not measured: cannot write %s\n", hosts_p);
        free(leaf);
        goto drop;
    }
    /* per leaf with allocation nodes (at most 7: the step's argument room),
     * its nodes S and the others O: scheme u<sw>a = S0>O0 alone, u<sw>k =
     * S0>O0, ..., S(k-1)>O(k-1), k = min(|S|, |O|, 8) pairs through the
     * uplink at once (distinct nodes: no NIC is shared), and u<sw>d, pairs
     * each way at once (session 11): with --uplink-duplex and 2 tasks per
     * node the k pairs of u<sw>k and their reverses Oc>Sc (each NIC one
     * stream each way, at the uplink's share of it: the uplink, not a NIC,
     * saturates, when the k pairs one way did); else S0>O0, O1>S1 (four
     * distinct nodes, each NIC one direction; the other schemes run as
     * before session 11). Every scheme at least CALIB_UPLINK_REPS
     * repetitions (session 12: the median over them, calibrate_report.c
     * together_median, needs more than --quick's 3) */
    const int tpn = duplex && C >= 2 ? 2 : 1;
    const int reps = p->reps < CALIB_UPLINK_REPS ? CALIB_UPLINK_REPS : p->reps;
    step *s = NULL;
    int nleaf = 0;
    for (int i = 0; i < N && nleaf < 7; i++) {
        int first = 1;
        for (int j = 0; j < i; j++)
            first &= leaf[j] != leaf[i];
        if (!first)
            continue;
        int in[CALIB_UPLINK_PAIRS_MAX], outn[CALIB_UPLINK_PAIRS_MAX], ni = 0, no = 0;
        for (int j = 0; j < N; j++) {
            if (leaf[j] == leaf[i] && ni < CALIB_UPLINK_PAIRS_MAX)
                in[ni++] = j;
            else if (leaf[j] != leaf[i] && no < CALIB_UPLINK_PAIRS_MAX)
                outn[no++] = j;
        }
        if (no == 0)
            break; /* one leaf holds the whole allocation */
        if (!s) {
            s = new_step(p, ST_UPLINK, N, tpn, "uplink.csv");
            srun_prefix(p, s, jobid);
            arg(s, "conflict");
            arg(s, "--size");
            arg(s, "%.0f", p->csize);
            arg(s, "--reps");
            arg(s, "%d", reps);
        }
        int k = ni < no ? ni : no;
        char spec[160];
        size_t u = (size_t)snprintf(spec, sizeof spec, "u%da=%d>%d", (int)leaf[i], in[0], outn[0]);
        arg(s, "--scheme");
        arg(s, "%s", spec);
        if (k >= 2) {
            u = (size_t)snprintf(spec, sizeof spec, "u%dk=", (int)leaf[i]);
            for (int c = 0; c < k && u < sizeof spec; c++)
                u += (size_t)snprintf(spec + u, sizeof spec - u, "%s%d>%d", c ? "," : "", in[c],
                                      outn[c]);
            arg(s, "--scheme");
            arg(s, "%s", spec);
        }
        /* u<sw>d: j pairs each way, Sc>Oc then the reverses; with one task
         * per node the reverse pair is O1>S1, on two other nodes */
        const int j = k < 2 ? 0 : tpn == 2 ? k : 1, rev = tpn == 2 ? 0 : 1;
        if (j > 0) {
            u = (size_t)snprintf(spec, sizeof spec, "u%dd=", (int)leaf[i]);
            for (int c = 0; c < 2 * j && u < sizeof spec; c++)
                u += (size_t)snprintf(spec + u, sizeof spec - u, "%s%d>%d", c ? "," : "",
                                      c < j ? in[c] : outn[c - j + rev],
                                      c < j ? outn[c] : in[c - j + rev]);
            arg(s, "--scheme");
            arg(s, "%s", spec);
        }
        s->work += (1.0 + k + 2 * j) * p->csize * (reps + 1);
        nleaf++;
    }
    free(leaf);
    if (!s) {
        fprintf(info, "calibrate: the allocation's %d nodes hang under one leaf switch: uplinks "
                      "not measured, no switch tree written\n", N);
        goto drop;
    }
    snprintf(s->label, sizeof s->label,
             "uplinks of %d leaf switch%s: 1 and k cross-leaf pairs, %s each way", nleaf,
             nleaf > 1 ? "es" : "", tpn == 2 ? "k" : "1");
    goto out;
drop:
    unlink(topo_p);
    unlink(hosts_p);
out:
    if (have_t)
        ct_topology_free(&t);
    admin_hosts_free(hosts, nh);
    free(text);
    free(nl);
    unlink(raw_p);
    unlink(errp);
}

void calib_plan_wait(plan *p, const char *wait)
{
    for (int i = 0; i < p->n; i++) {
        arg(&p->steps[i], "--wait");
        arg(&p->steps[i], "%s", wait);
        p->steps[i].wait_arg = p->steps[i].argc - 1;
    }
}

/* ---- reading the outputs --------------------------------------------------- */

/* ct-mpibench's '# wait: busy|polled (...): WHY' line, within an output's
 * first lines (after the header): counted in d->nwait, the first reason
 * of each kind kept, printable characters only; and its '# tcp: NAME' line
 * (session 61), the nodes' TCP congestion control, in d->tcp_cc */
static void note_wait(const char *path, data *d)
{
    FILE *f = fopen(path, "r");
    char line[512], why[sizeof d->wait_why[0]] = "", cc[sizeof d->tcp_cc];
    int kind = CALIB_WAIT_UNSAID, waited = 0, said = 0;
    for (int n = 0; f && n < 8 && (!waited || !said) && fgets(line, sizeof line, f); n++) {
        if (!said && ct_bench_tcp_line(line, cc, sizeof cc) == 0 && cc[0]) {
            said = 1;
            if (d->ntcp++ == 0)
                snprintf(d->tcp_cc, sizeof d->tcp_cc, "%s", cc);
            else if (strcmp(cc, d->tcp_cc) != 0 && !d->tcp_other[0])
                snprintf(d->tcp_other, sizeof d->tcp_other, "%s", cc);
            continue;
        }
        if (waited)
            continue;
        int k = ct_bench_wait_line(line, why, sizeof why);
        if (k < 0)
            continue;
        waited = 1;
        kind = k == CT_WAIT_BUSY     ? CALIB_WAIT_BUSY
               : k == CT_WAIT_POLLED ? CALIB_WAIT_POLLED
                                     : CALIB_WAIT_UNSAID; /* simulated: not a wait named here */
    }
    if (f)
        fclose(f);
    if (d->nwait[kind]++ == 0)
        snprintf(d->wait_why[kind], sizeof d->wait_why[kind], "%s", why);
}

int calib_tcp(const data *d, char *out, size_t sz, const char **name)
{
    const int n = d->nwait[CALIB_WAIT_BUSY] + d->nwait[CALIB_WAIT_POLLED] +
                  d->nwait[CALIB_WAIT_UNSAID];
    const int mixed = d->tcp_other[0] || strcmp(d->tcp_cc, "mixed") == 0;
    *name = NULL;
    if (!d->ntcp) {
        snprintf(out, sz,
                 "not recorded in the %d outputs (written by a ct-mpibench from before "
                 "session 61)",
                 n);
        return 0;
    }
    if (mixed) {
        if (d->tcp_other[0])
            snprintf(out, sz, "%s in one output, %s in another (%d of %d outputs said one)",
                     d->tcp_cc, d->tcp_other, d->ntcp, n);
        else
            snprintf(out, sz,
                     "mixed: the ranks' nodes ran different ones (%d of %d outputs said; "
                     "ct-mpibench's '# tcp:' lines name them)",
                     d->ntcp, n);
        return 1;
    }
    *name = d->tcp_cc;
    snprintf(out, sz, "%s (said by %d of %d outputs)", d->tcp_cc, d->ntcp, n);
    return 0;
}

int calib_waits(const data *d, char *out, size_t sz)
{
    const int b = d->nwait[CALIB_WAIT_BUSY], p = d->nwait[CALIB_WAIT_POLLED],
              u = d->nwait[CALIB_WAIT_UNSAID], n = b + p + u;
    if (!b && !p) {
        snprintf(out, sz,
                 "not recorded in the %d outputs (written by a ct-mpibench that did not say; "
                 "it polled)",
                 n);
        return 0;
    }
    size_t k = 0;
    if (b)
        k += (size_t)snprintf(out + k, sz - k, "busy in %d (%s)", b, d->wait_why[CALIB_WAIT_BUSY]);
    if (p && k < sz)
        k += (size_t)snprintf(out + k, sz - k, "%spolled in %d (%s)", b ? ", " : "", p,
                              d->wait_why[CALIB_WAIT_POLLED]);
    if (u && k < sz)
        k += (size_t)snprintf(out + k, sz - k, ", not recorded in %d", u);
    if (k < sz)
        snprintf(out + k, sz - k, " of %d outputs", n);
    return b && p;
}

const char *calib_wait_word(const data *d)
{
    const int b = d->nwait[CALIB_WAIT_BUSY], p = d->nwait[CALIB_WAIT_POLLED];
    return b && p ? "mixed" : b ? "busy" : p ? "polled" : NULL;
}

int calib_wait_follow(plan *p, int i, const char *path, char *why, size_t sz)
{
    static char polled[] = "polled";
    const step *s = &p->steps[i];
    if (!s->wait_arg || strcmp(s->argv[s->wait_arg], "auto") != 0)
        return 0;
    data d;
    memset(&d, 0, sizeof d);
    note_wait(path, &d);
    if (!d.nwait[CALIB_WAIT_POLLED])
        return 0;
    for (int j = i + 1; j < p->n; j++)
        if (p->steps[j].wait_arg)
            p->steps[j].argv[p->steps[j].wait_arg] = polled;
    snprintf(why, sz, "%s", d.wait_why[CALIB_WAIT_POLLED]);
    return 1;
}

static int load_output(const char *path, data *d)
{
    ct_err err;
    note_wait(path, d);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (strncmp(base, "intra", 5) == 0) { /* one node; "intra-all": every node at once */
        char *buf = NULL;
        size_t len = 0;
        if (admin_read_file(CMD, path, CT_BENCH_MAX_BYTES, "a pattern benchmark output", &buf,
                            &len) != ADMIN_OK)
            return ADMIN_INVALID;
        int all = strncmp(base, "intra-all", 9) == 0;
        int rc = ct_intra_read(path, buf, len, all, all ? &d->intra_all : &d->intra, &err);
        free(buf);
        if (rc < 0)
            return admin_fail(CMD, "%s", err.msg);
        return ADMIN_OK;
    }
    if (strncmp(base, "exchange-p2p", 12) == 0) { /* posted, back to back (session 53) */
        if (ct_bench_parse_file(path, NULL, &d->exchange_p2p, NULL, &err) < 0)
            return admin_fail(CMD, "%s", err.msg);
        return ADMIN_OK;
    }
    if (strncmp(base, "refill", 6) == 0) { /* the 2 x 1 exchange after an idle (session 29),
                                            * refill-p2p: posted as patterns (session 36) */
        ct_bench_data *into = strncmp(base, "refill-p2p", 10) == 0 ? &d->refill_p2p : &d->refill;
        if (ct_bench_parse_file(path, NULL, into, NULL, &err) < 0)
            return admin_fail(CMD, "%s", err.msg);
        return ADMIN_OK;
    }
    if (strncmp(base, "uplink", 6) == 0) { /* cross-leaf schemes (calib_plan_uplinks) */
        char *buf = NULL;
        size_t len = 0;
        if (admin_read_file(CMD, path, CT_BENCH_MAX_BYTES, "an uplink benchmark output", &buf,
                            &len) != ADMIN_OK)
            return ADMIN_INVALID;
        int rc = ct_conflict_parse(path, buf, len, &d->upl, &d->nupl, &err);
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

int calib_load_dir(const char *dir, data *d)
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
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%.3800s/" CALIB_FLOOR_KEPT_2X1, dir);
    d->sizes_moved = access(probe, F_OK) == 0;
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

int calib_rmtree_flat(const char *dir)
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

/* salloc --no-shell for N x C in a->part; r->jobid on success. */
static int allocate(const calib_args *a, long N, long C, calib_run *r, FILE *info)
{
    fprintf(info, "calibrate: allocating %ld nodes x %ld tasks in partition %s ...\n", N, C,
            a->part);
    fflush(info);
    char nb[16], tb[32], tl[16], errp[PATH_MAX];
    snprintf(nb, sizeof nb, "%ld", N);
    snprintf(tb, sizeof tb, "%ld", C);
    snprintf(tl, sizeof tl, "%ld", a->tlimit);
    char pp[CT_NAME_MAX];
    snprintf(pp, sizeof pp, "%s", a->part);
    char *sa_argv[] = {"salloc", "--no-shell", "-J", "ct-calibrate", "-p", pp, "-N", nb,
                       "--ntasks-per-node", tb, "--time", tl, NULL};
    snprintf(errp, sizeof errp, "%s/salloc.err", r->dir);
    int st = run(sa_argv, NULL, errp);
    int got = salloc_jobid(errp, r->jobid, sizeof r->jobid);
    if (calib_stop)
        return CALIB_INTERRUPTED;
    if (st != 0 || got != 0) {
        char line[512] = "";
        grep_file(errp, "error", line, sizeof line);
        return admin_fail(CMD, "salloc failed (exit %d)%s%s", st, line[0] ? ": " : "", line);
    }
    fprintf(info, "calibrate: job %s allocated; %s\n", r->jobid,
            r->keep ? r->dir : "outputs in a temporary directory");
    return ADMIN_OK;
}

/* Every step of the plan, 3 attempts each, with a progress line: the time
 * left is re-estimated from the measured ping-pong bandwidth and from how
 * long the finished steps took against their estimate. */
/* Steps from..n-1 estimated again from their work at the ping-pong's
 * bandwidth, with the margin of 1.5 the estimates have always had */
static void reestimate(plan *P, int from, double startup, double bps)
{
    for (int j = from; j < P->n; j++)
        P->steps[j].est = startup + 1.5 * P->steps[j].work / bps + P->steps[j].idle;
}

static int run_steps(plan *P, const char *dir, FILE *info)
{
    /* first guess: 100 MB/s, 1.5 s per step to start; corrected as steps finish */
    double guess_bps = 100e6, startup = 1.5, ratio = 1.0, est_done = 0, took_done = 0;
    double t0 = now_s();
    ct_calib_opts co; /* the saturated sizes the fit reads (calib_floor_check) */
    ct_calib_opts_default(&co);
    const double sat_m = co.saturated_m;
    for (int i = 0; i < P->n; i++) {
        step *s = &P->steps[i];
        s->est = startup + s->work / guess_bps + s->idle;
    }
    for (int i = 0; i < P->n && !calib_stop; i++) {
        step *s = &P->steps[i];
        char outp[PATH_MAX], errq[PATH_MAX], d1[32], d2[32];
        snprintf(outp, sizeof outp, "%s/%s", dir, s->file);
        snprintf(errq, sizeof errq, "%s/%s.err", dir, s->file);
        fprintf(info, "[%2d/%d] %s ...", i + 1, P->n, s->label);
        fflush(info);
        double ts = now_s();
        int st = -1;
        for (int attempt = 0; attempt < 3 && !calib_stop; attempt++) {
            if (attempt)
                fprintf(info, " retry %d ...", attempt);
            st = run(s->argv, outp, errq);
            if (st == 0)
                break;
        }
        if (calib_stop)
            break;
        s->took = now_s() - ts;
        if (st != 0) {
            char line[512] = "";
            if (grep_file(errq, "rror", line, sizeof line) < 0)
                grep_file(errq, "", line, sizeof line);
            if (!s->optional) {
                fprintf(info, " failed\n");
                return admin_fail(CMD, "step '%s' failed 3 times (exit %d)%s%s; its output: %s",
                                  s->label, st, line[0] ? ": " : "", line, errq);
            }
            /* an optional step: the calibration goes on without it, and its
             * partial output is kept aside, where --from does not read it */
            char failed[PATH_MAX + 8];
            snprintf(failed, sizeof failed, "%s.failed", outp);
            if (rename(outp, failed) != 0 && errno != ENOENT)
                unlink(outp);
            s->skipped = 1;
            fprintf(info, " failed 3 times: skipped\n");
            fflush(info);
            fprintf(stderr,
                    "contention-admin calibrate: WARNING: step '%s' failed 3 times (exit %d)%s%s; "
                    "skipped: the signature is fitted without it (its output: %s)\n",
                    s->label, st, line[0] ? ": " : "", line, errq);
            continue;
        }
        ct_a2a_call_floor fl;
        if (calib_floor_check(P, i, outp, sat_m, &fl)) {
            /* measured again at the plan's new sizes; this output is kept
             * beside them, where --from does not read it */
            char kept[PATH_MAX + 16], what[160];
            snprintf(kept, sizeof kept, "%s" CALIB_FLOOR_KEPT, outp);
            if (rename(outp, kept) != 0)
                unlink(outp);
            fprintf(info, " %.1f s\n", s->took);
            fprintf(info,
                    "calibrate: %s: the call's floor, not the link, sets that size; the "
                    "Alltoall steps measure at %s instead (doc/calibration.md, \"Saturated "
                    "sizes on the call's floor\"; this output kept as %s" CALIB_FLOOR_KEPT ")\n",
                    admin_a2a_floor_what(&fl, what, sizeof what), P->sizes_arg, s->file);
            fflush(info);
            reestimate(P, i, startup, guess_bps); /* the steps' new work */
            i--;
            continue;
        }
        if (s->kind == ST_PINGPONG) {
            /* the measured bandwidth replaces the guess */
            ct_bench_data pd;
            memset(&pd, 0, sizeof pd);
            double alpha, beta;
            ct_err err;
            if (ct_bench_parse_file(outp, NULL, &pd, NULL, &err) == 0 &&
                ct_fit_hockney(pd.p2p, pd.np2p, &alpha, &beta, NULL, &err) == 0 && beta > 0) {
                guess_bps = 1.0 / beta;
                reestimate(P, i + 1, startup, guess_bps);
            }
            ct_bench_free(&pd);
        } else {
            est_done += s->est;
            took_done += s->took;
            ratio = took_done / est_done;
        }
        double left = 0;
        for (int j = i + 1; j < P->n; j++)
            left += P->steps[j].est * ratio;
        fprintf(info, " %.1f s   (elapsed %s, ~%s left)\n", s->took,
                fmt_dur(now_s() - t0, d1, sizeof d1), fmt_dur(left, d2, sizeof d2));
        char why[128];
        if (s->kind == ST_PINGPONG && calib_wait_follow(P, i, outp, why, sizeof why))
            fprintf(info, "calibrate: the ping-pong waited polled (%s): every step waits so\n",
                    why);
        fflush(info);
    }
    return calib_stop ? CALIB_INTERRUPTED : ADMIN_OK;
}

int calib_measure(const calib_args *a, plan *P, calib_run *r, FILE *info)
{
    char benchbuf[PATH_MAX], buf[64];
    P->bench = a->bench ? a->bench : find_bench(benchbuf, sizeof benchbuf);
    long N = a->N, C = a->C;
    if (!N) {
        N = 4;
        if (sinfo(a->part, "%D", r->dir, buf, sizeof buf) == 0 && atol(buf) >= 2)
            N = atol(buf) < 8 ? atol(buf) : 8;
    }
    long cpus = 0;
    if (sinfo(a->part, "%c", r->dir, buf, sizeof buf) == 0 && atol(buf) >= 1)
        cpus = atol(buf);
    if (!C)
        C = cpus >= 1 && cpus < 4 ? cpus : 4;
    r->nodes_used = (int)N;
    r->tpn_used = (int)C;
    P->flow_tasks = calib_flow_tasks(a->flow_tasks, (int)N, (int)C, cpus);
    if (P->flow_tasks)
        fprintf(info, "calibrate: many-flow step: 2 nodes x %d tasks, %d remote flows a port "
                      "(the largest configuration has %ld at incast degree %ld)\n",
                P->flow_tasks, P->flow_tasks * P->flow_tasks, C * C * (N - 1), N - 1);
    P->incast_tasks = calib_incast_tasks(P->flow_tasks, (int)N, (int)C, cpus);
    if (P->incast_tasks)
        fprintf(info, "calibrate: incast many-flow step: 3 nodes x %d tasks, %d remote flows a "
                      "port from 2 nodes\n",
                P->incast_tasks, 2 * P->incast_tasks * P->incast_tasks);
    else if (P->flow_tasks && N >= 3)
        fprintf(info, "calibrate: no incast many-flow step: 3 nodes x %d tasks needs that many CPUs "
                      "a node, the nodes have %ld: the incast-loss term is not fitted, and "
                      "configurations whose ports take flows from 2 nodes or more at once may be "
                      "priced short\n",
                (int)incast_wanted((int)N, (int)C), cpus);
    int most = P->flow_tasks > C ? P->flow_tasks : (int)C;
    most = P->incast_tasks > most ? P->incast_tasks : most;
    int rc = allocate(a, N, most, r, info);
    if (rc != ADMIN_OK)
        return rc;
    calib_build_plan(P, (int)N, (int)C, r->jobid, a->quick);
    calib_plan_uplinks(P, (int)N, (int)C, a->uplink_duplex, r->jobid, r->dir, info);
    calib_plan_wait(P, a->wait ? a->wait : "auto");
    /* a --raw DIR used before: an earlier run's floor output would say
     * these sizes moved */
    char stale[PATH_MAX];
    snprintf(stale, sizeof stale, "%.3800s/" CALIB_FLOOR_KEPT_2X1, r->dir);
    if (unlink(stale) != 0 && errno != ENOENT)
        return admin_fail(CMD, "%s: %s", stale, strerror(errno));
    if ((rc = run_steps(P, r->dir, info)) != ADMIN_OK)
        return rc;
    calib_scancel(r->jobid, r->dir);
    r->jobid[0] = '\0';
    r->d.sizes_moved = P->resized;
    for (int i = 0; i < P->n; i++) {
        char path[PATH_MAX];
        if (P->steps[i].skipped)
            continue; /* failed 3 times, optional: fitted without it */
        snprintf(path, sizeof path, "%s/%s", r->dir, P->steps[i].file);
        if (load_output(path, &r->d) != ADMIN_OK)
            return ADMIN_INVALID;
    }
    return ADMIN_OK;
}
