/* ct-mpibench: the MPI measurements behind `contention-admin calibrate`.
 *
 *   ct-mpibench pingpong --sizes LIST                 one-way time, ranks on two nodes
 *   ct-mpibench alltoall --sizes LIST                 MPI_Alltoall, all ranks
 *   ct-mpibench conflict --scheme [NAME=]SPEC --size M  paper 001 §IV-B conflict schemes
 *   ct-mpibench pattern  --pattern ring|halves|halo2d|halo3d --size M|--sizes LIST [--phased]
 *                        [--last-dim-first] [--host-clock]
 * common: --reps R (5) --warmup W (1) --max-time S (per size, 20)
 *         --wait auto|polled|busy (auto) --poll-us U|auto (500; implies --wait polled)
 *         --idle S (alltoall, pattern: every rank sleeps S seconds after the barrier
 *         before each repetition, so a token bucket refills: 0)
 *         --no-header --blocking (alltoall: MPI_Alltoall instead of a polled MPI_Ialltoall)
 *         --p2p (alltoall: every peer's MPI_Irecv and MPI_Isend posted at once and
 *         one wait, as the patterns exchange, instead of MPI_Ialltoall; the
 *         refill step of calibrate, session 36)
 *         --step incast (alltoall: a '# step: incast' line after the '# wait'
 *         one says the output is calibrate's incast many-flow step, which on
 *         3 nodes lies on the largest node count; session 59)
 *
 * Output (rank 0, stdout), one CSV line per measurement, each after a
 * '# ...' comment line saying how many repetitions it averages and a
 * '# times: T1 T2 ...' line with each repetition's time (conflict: that
 * communication's, repetitions in the same order for every communication
 * of a scheme, so a scheme's slowest per repetition can be taken):
 *   benchmark,tasks,size_bytes,t_avg_s,t_min_s,nodes,tasks_per_node[,detail]
 * (the detail column only for conflict and pattern, which `contention-admin
 * fit` does not read; pattern-host too). pingpong: one-way time (round trip / 2); alltoall:
 * size per destination, time = slowest rank; conflict: one line per communication, time of that
 * communication at its sender, detail NAME:LABEL:SRC>DST; pattern: detail
 * PATTERN[/phased]:LAYOUT where LAYOUT (block, cyclic, other) is read from where the
 * ranks actually run; with --host-clock a second row, pattern-host, times
 * the same repetitions from the first rank's start to the last rank's end
 * on CLOCK_MONOTONIC, which is one clock only where every rank runs on one
 * host (the emulated cluster). Nodes are told apart by CT_NODE, else SLURMD_NODENAME,
 * else the MPI processor name (emulated nodes share one host name), and are
 * numbered in the order of their first rank.
 *
 * How ranks wait (--wait, printed as a '# wait: ...' line after the header):
 * - polled: MPI_Test loops with short sleeps (10 us growing to --poll-us), so
 *   that idle or waiting ranks leave the CPUs to the ranks that move data and
 *   to the kernel's network path. The naps' cap: --poll-us U (us), else the
 *   environment's CT_MPIBENCH_POLL_US (which srun hands to every rank, so a
 *   script sets it once for every step it starts, calibrate's too), else
 *   500 us; "auto" is 31.25 us times the most ranks a CPU of one machine,
 *   within 10-500 us (session 47, choose_wait(): a 500 us cap costs 2 ranks
 *   on 2 CPUs 2.0 ms a call at 1 Gbit/s; tried as the matrix's procedure and
 *   not taken, doc/accuracy-runs/rules-s47.txt). Calibration on small hosts runs
 *   oversubscribed, and there busy-polling ranks turn a network measurement
 *   into a CPU one (16 ranks of a blocking MPI_Alltoall on 2 cores took 5.8 s
 *   on average for what the polled MPI_Ialltoall does in 0.7 s). The Alltoall
 *   is MPI_Ialltoall + the polled wait; --blocking times MPI_Alltoall.
 * - busy: MPI_Waitall and MPI_Alltoall, the MPI library's own waits, as
 *   applications wait. A polled wait costs a large message up to a nap per
 *   progress round (about 2.5 ms per call at 256 KiB on the emulated cluster,
 *   doc/accuracy-notes.md "Session 32"), which a node with a core per rank
 *   would carry into every fitted step of the signature.
 * - auto (the default): busy where every machine runs the ranks of one node
 *   only, and no more of them than the CPUs they may run on together (the
 *   union of their affinity masks); polled otherwise. A machine is the running
 *   kernel (its boot id), so the emulated cluster's nodes, network namespaces
 *   of one host, are several nodes on one machine, and polled.
 * Built with -DCT_SMPI (SimGrid's smpicc, bench/simgrid/run-smpi) the
 * waits are plain MPI_Waitall: simulated time has no CPU to share.
 */
#include <mpi.h>

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_OR */
#endif
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define NAME_LEN 64
#define MAX_COMMS 64
#define MAX_SCHEMES 32
#define MAX_SIZES 64

static int rank, nranks;
/* The naps' cap when neither --poll-us nor CT_MPIBENCH_POLL_US names one: a
 * number of us, or "auto" (the cap by the ranks a CPU, choose_wait()).
 * Session 47 measured both as the matrix's procedure and kept 500 us
 * (doc/accuracy-runs/rules-s47.txt). */
#define CT_POLL_US_DEFAULT "500"
static long poll_ns = 500000; /* the naps' cap */
static int poll_auto = 0;     /* the cap from the ranks a CPU (choose_wait) */
static int reps = 5, warmup = 1;
static double max_time = 20.0;
static double idle_s = 0; /* --idle: a sleep before each repetition (the links' pause) */
static int header = 1;
static int blocking = 0;
static int p2p = 0; /* --p2p: the Alltoall as the patterns' posted exchanges */
/* --step incast: the output is calibrate's incast many-flow step, said in a
 * '# step: incast' line after the wait line (benchparse.c reads it) */
static int incast_step = 0;
enum { WAIT_AUTO, WAIT_POLLED, WAIT_BUSY };
static int wait_mode = WAIT_AUTO; /* --wait; choose_wait() settles auto */
static char wait_why[160];        /* why, for the '# wait:' line */
/* rank 0: the TCP congestion control of the ranks' nodes, for the '# tcp:'
 * line (session 61; discover_tcp_cc) */
static char tcp_cc[128];

/* node identity of every rank */
static int *node_of;        /* node index of each rank */
static int nnodes;
static int *tasks_on;       /* tasks on each node */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_local(const char *what) __attribute__((noreturn));
/* an error only this rank sees */
/* "ct-mpibench: " and the message as one line in one write: mpirun's own
 * abort text must not split it (cut at 511 bytes) */
static void vsay(const char *fmt, va_list ap)
{
    char line[512];
    size_t n = sizeof "ct-mpibench: " - 1;
    memcpy(line, "ct-mpibench: ", n);
    int m = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    n += m < 0 ? 0 : (size_t)m;
    if (n > sizeof line - 2)
        n = sizeof line - 2; /* cut, as vsnprintf left it */
    line[n++] = '\n';
    (void)!write(STDERR_FILENO, line, n);
}
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}
static void die_local(const char *what)
{
    say("rank %d: %s", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}
static void die(const char *fmt, ...)
{
    /* every rank reaches the same verdict; one says it before any rank
     * aborts: the others give it a second, so mpirun's abort (which kills
     * every rank) does not come first */
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsay(fmt, ap);
        va_end(ap);
    } else {
        struct timespec pause = { 1, 0 };
        nanosleep(&pause, NULL);
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* Sleep between polls, growing from 10 us to poll_ns: short waits stay
 * precise, long ones cost little CPU. */
static void wait_all(int n, MPI_Request *r)
{
#ifdef CT_SMPI
    /* simulated (SimGrid SMPI, bench/simgrid/): no CPU to leave to anyone */
    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
    return;
#endif
    if (wait_mode == WAIT_BUSY) {
        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
        return;
    }
    int done = 0;
    long ns = poll_ns < 10000 ? poll_ns : 10000;
    for (;;) {
        MPI_Testall(n, r, &done, MPI_STATUSES_IGNORE);
        if (done)
            return;
        if (ns > 0) {
            struct timespec ts = {0, ns};
            nanosleep(&ts, NULL);
            ns = 2 * ns < poll_ns ? 2 * ns : poll_ns;
        }
    }
}

static void barrier(void)
{
    MPI_Request r;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    wait_all(1, &r);
}

/* --idle: every rank sleeps before a repetition, after the barrier (the
 * links stay idle: the barrier's own messages are a few bytes) */
static void idle(void)
{
    if (idle_s <= 0)
        return;
#ifdef CT_SMPI
    smpi_execute(idle_s); /* simulated time */
#else
    struct timespec ts = {(time_t)idle_s, (long)((idle_s - (double)(time_t)idle_s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
#endif
}

static double reduce_max(double t)
{
    double m = 0;
    MPI_Request r;
    MPI_Iallreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &r);
    wait_all(1, &r);
    return m;
}

/* rank 0 decides whether another repetition fits in the time budget */
static int more(int done, double spent)
{
    int go = done < warmup + reps && (done < warmup + 2 || spent < max_time);
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return go;
}

/* The repetitions of one measurement: the warm-ups count towards the time
 * budget only; the rest give the mean (sum / n) and the minimum. */
typedef struct timing {
    double sum, mn, spent;
    int done, n;
} timing;

/* each kept repetition's time (rank 0), printed as a '# times:' comment
 * line before the measurement's row, for medians and spreads */
#define MAX_KEPT 256
static double kept[MAX_KEPT];
static int nkept;

static timing timing_start(void)
{
    nkept = 0;
    return (timing){0, INFINITY, 0, 0, 0};
}

/* t: this repetition's time; cost: the time it spent of the budget */
static void timing_add(timing *tm, double t, double cost)
{
    tm->spent += cost;
    if (tm->done >= warmup) {
        tm->sum += t;
        tm->mn = t < tm->mn ? t : tm->mn;
        tm->n++;
        if (nkept < MAX_KEPT)
            kept[nkept++] = t;
    }
    tm->done++;
}

/* CLOCK_MONOTONIC, in seconds: one clock for the ranks of a node (for the
 * pauses below), and for all ranks only where they share a host (the
 * emulated cluster's nodes do), for --host-clock */
static double host_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the clock of the pauses: the node's own; simulated time under SMPI */
static double pause_clock(void)
{
#ifdef CT_SMPI
    return MPI_Wtime();
#else
    return host_now();
#endif
}

/* The links' idle time between repetitions (doc/accuracy-notes.md,
 * "Session 29"): a token bucket refills while a node's NIC is idle, so a
 * repetition that follows a longer pause passes more of its bytes free. Every
 * rank keeps each repetition's start and its own end (CLOCK_MONOTONIC, one
 * clock for the ranks of a node: Open MPI's MPI_Wtime counts from each
 * process's own origin, and compared across the ranks of a node it gave
 * negative pauses); after the measurement, never between repetitions (a collective
 * there would lengthen the pause it measures), rank 0 gathers them and takes
 * for each kept repetition k >= 1 and each node the time from the node's last
 * end of k - 1 to its first start of k; a repetition's pause is the least
 * over the nodes. Printed as "# pause m=M: median P s, min A s, max B s over
 * N repetitions ..." before the measurement's row. */
#define MAX_REPS (MAX_KEPT + 101)
static double rep_start[MAX_REPS], rep_end[MAX_REPS];
static int nrep_mark;

static void pause_mark(double start, double end)
{
    if (nrep_mark < MAX_REPS) {
        rep_start[nrep_mark] = start;
        rep_end[nrep_mark] = end;
    }
    nrep_mark++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void pause_report(double m)
{
    int n = nrep_mark < MAX_REPS ? nrep_mark : MAX_REPS;
    nrep_mark = 0;
    double *mine = malloc(2 * (size_t)n * sizeof *mine);
    double *all = rank == 0 ? malloc(2 * (size_t)n * (size_t)nranks * sizeof *all) : NULL;
    double *node_start = rank == 0 ? malloc((size_t)nnodes * sizeof *node_start) : NULL;
    double *node_end = rank == 0 ? malloc((size_t)nnodes * sizeof *node_end) : NULL;
    double *p = rank == 0 ? malloc((size_t)n * sizeof *p) : NULL;
    if (!mine || (rank == 0 && (!all || !node_start || !node_end || !p)))
        die_local("out of memory");
    for (int k = 0; k < n; k++)
        mine[2 * k] = rep_start[k], mine[2 * k + 1] = rep_end[k];
    MPI_Gather(mine, 2 * n, MPI_DOUBLE, all, 2 * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int np = 0;
        for (int k = warmup > 1 ? warmup : 1; k < n; k++) {
            for (int j = 0; j < nnodes; j++)
                node_start[j] = INFINITY, node_end[j] = -INFINITY;
            for (int r = 0; r < nranks; r++) {
                const double *v = all + (size_t)r * 2 * (size_t)n;
                int j = node_of[r];
                node_start[j] = v[2 * k] < node_start[j] ? v[2 * k] : node_start[j];
                node_end[j] = v[2 * (k - 1) + 1] > node_end[j] ? v[2 * (k - 1) + 1] : node_end[j];
            }
            double least = INFINITY;
            for (int j = 0; j < nnodes; j++)
                if (node_start[j] - node_end[j] < least)
                    least = node_start[j] - node_end[j];
            p[np++] = least;
        }
        if (np > 0) {
            qsort(p, (size_t)np, sizeof *p, cmp_double);
            double med = np % 2 ? p[np / 2] : (p[np / 2 - 1] + p[np / 2]) / 2;
            printf("# pause m=%.0f: median %.6g s, min %.6g s, max %.6g s over %d repetitions "
                   "(each the least over the nodes of a node's last end to its first start)\n",
                   m, med, p[0], p[np - 1], np);
        }
    }
    free(mine);
    free(all);
    free(node_start);
    free(node_end);
    free(p);
}

static void discover_nodes(void)
{
    char me[NAME_LEN] = {0};
    const char *e = getenv("CT_NODE");
    if (!e || !*e)
        e = getenv("SLURMD_NODENAME");
    if (e && *e) {
        snprintf(me, sizeof me, "%s", e);
    } else {
        int len = 0;
        char pn[MPI_MAX_PROCESSOR_NAME];
        MPI_Get_processor_name(pn, &len);
        snprintf(me, sizeof me, "%.63s", pn);
    }
    char *all = calloc((size_t)nranks, NAME_LEN);
    node_of = calloc((size_t)nranks, sizeof *node_of);
    tasks_on = calloc((size_t)nranks, sizeof *tasks_on);
    if (!all || !node_of || !tasks_on)
        die_local("out of memory");
    MPI_Allgather(me, NAME_LEN, MPI_CHAR, all, NAME_LEN, MPI_CHAR, MPI_COMM_WORLD);
    nnodes = 0;
    for (int r = 0; r < nranks; r++) {
        int k;
        for (k = 0; k < r; k++)
            if (strncmp(all + (size_t)r * NAME_LEN, all + (size_t)k * NAME_LEN, NAME_LEN) == 0)
                break;
        node_of[r] = k < r ? node_of[k] : nnodes++;
        tasks_on[node_of[r]]++;
    }
    free(all);
}

#ifndef CT_SMPI
/* The TCP congestion control each rank's sockets default to, the node's
 * net.ipv4.tcp_congestion_control (its network namespace's), gathered on
 * rank 0 as one name, or "mixed (NAME on N ranks, ...)": what moves the bytes
 * where MPI runs over TCP (the emulated cluster's bbr against a Debian host's
 * cubic changes an incast's time: doc/accuracy-notes.md, "Session 61") */
#define CC_LEN 16
static void discover_tcp_cc(void)
{
    char mine[CC_LEN] = "unknown", buf[64];
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", "r");
    if (f && fgets(buf, sizeof buf, f)) {
        size_t k = 0;
        while (k + 1 < CC_LEN && ((buf[k] >= 'a' && buf[k] <= 'z') ||
                                  (buf[k] >= '0' && buf[k] <= '9') || buf[k] == '_'))
            k++;
        if (k) {
            memcpy(mine, buf, k);
            mine[k] = '\0';
        }
    }
    if (f)
        fclose(f);
    char *all = rank == 0 ? calloc((size_t)nranks, CC_LEN) : NULL;
    if (rank == 0 && !all)
        die_local("out of memory");
    MPI_Gather(mine, CC_LEN, MPI_CHAR, all, CC_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    int same = 1;
    for (int r = 1; r < nranks; r++)
        same &= strncmp(all, all + (size_t)r * CC_LEN, CC_LEN) == 0;
    if (same) {
        snprintf(tcp_cc, sizeof tcp_cc, "%s (net.ipv4.tcp_congestion_control of every rank's node)",
                 all);
    } else {
        size_t k = (size_t)snprintf(tcp_cc, sizeof tcp_cc, "mixed (");
        for (int r = 0; r < nranks && k < sizeof tcp_cc; r++) {
            const char *c = all + (size_t)r * CC_LEN;
            int first = 1, n = 0;
            for (int q = 0; q < nranks; q++)
                if (strncmp(c, all + (size_t)q * CC_LEN, CC_LEN) == 0) {
                    first &= q >= r;
                    n++;
                }
            if (first)
                k += (size_t)snprintf(tcp_cc + k, sizeof tcp_cc - k, "%s%s on %d rank%s",
                                      k > 7 ? ", " : "", c, n, n == 1 ? "" : "s");
        }
        if (k < sizeof tcp_cc)
            snprintf(tcp_cc + k, sizeof tcp_cc - k, ")");
    }
    free(all);
}

/* The machine this rank runs on: the running kernel's boot id (the emulated
 * cluster's nodes, network namespaces of one host, share it), else the host
 * name. */
static void machine_id(char *id, size_t sz)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    int ok = f && fgets(id, (int)sz, f) && id[0] && id[0] != '\n';
    if (f)
        fclose(f);
    if (!ok && gethostname(id, sz) != 0)
        snprintf(id, sz, "unknown");
    id[sz - 1] = '\0';
    id[strcspn(id, "\n")] = '\0';
}

/* The naps' cap "auto" (session 47, our rule):
 * CT_NAP_US_PER_RANK_A_CPU times the most ranks a CPU of one machine, within
 * 10-500 us, so the naps wake each CPU about 32,000 times a second whatever
 * the crowding. Measured on the emulated cluster at 1 Gbit/s (2 cores,
 * doc/accuracy-runs/naps-s47): a cap of 500 us costs a 2 x 1 exchange of
 * 256 KiB 2.0 ms (3.93 ms against 1.90 at 100 us) and a 4-node halves
 * 0.8 ms, while 16 ranks of a 4 x 4 Alltoall take as long at 100 us as at
 * 500 (147.4 and 147.7 ms) and 32 ranks 2.1-4.9 x longer at 100 us: each CPU
 * woken 80,000 times a second was harmless, 160,000 not. 500 us, the
 * default cap, is the rule's at 16 ranks a CPU. */
#define CT_NAP_US_PER_RANK_A_CPU 31.25

/* --wait auto: busy where every machine runs one node's ranks, at most as
 * many as the CPUs their affinity masks allow together; polled otherwise
 * (every rank reaches the same verdict from the same gathered data). The
 * cap "auto" is set from the same data. poll_given: --poll-us (which made
 * the wait polled). */
static void choose_wait(int poll_given)
{
    if (wait_mode == WAIT_BUSY || (wait_mode == WAIT_POLLED && !poll_auto)) {
        snprintf(wait_why, sizeof wait_why, "%s",
                 wait_mode == WAIT_BUSY ? "--wait busy"
                 : poll_given           ? "--poll-us"
                                        : "--wait polled");
        return;
    }
    char me[NAME_LEN] = {0};
    machine_id(me, sizeof me);
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine); /* unknown: counted as no CPU, so polled */
    char *ids = calloc((size_t)nranks, NAME_LEN);
    cpu_set_t *masks = calloc((size_t)nranks, sizeof *masks);
    char *node_seen = malloc((size_t)nnodes);
    if (!ids || !masks || !node_seen)
        die_local("out of memory");
    MPI_Allgather(me, NAME_LEN, MPI_CHAR, ids, NAME_LEN, MPI_CHAR, MPI_COMM_WORLD);
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, masks, (int)sizeof mine, MPI_BYTE,
                  MPI_COMM_WORLD);
    int shared = 0, most_r = 0, most_c = 1; /* most nodes; most ranks a CPU (most_r / most_c) */
    for (int r = 0; r < nranks; r++) {
        const char *id = ids + (size_t)r * NAME_LEN;
        int first = 1;
        for (int k = 0; k < r && first; k++)
            first = strncmp(id, ids + (size_t)k * NAME_LEN, NAME_LEN) != 0;
        if (!first)
            continue; /* machine counted at its first rank */
        cpu_set_t all;
        CPU_ZERO(&all);
        int nr = 0, nn = 0;
        memset(node_seen, 0, (size_t)nnodes);
        for (int k = r; k < nranks; k++) {
            if (strncmp(id, ids + (size_t)k * NAME_LEN, NAME_LEN) != 0)
                continue;
            CPU_OR(&all, &all, &masks[k]);
            nr++;
            nn += !node_seen[node_of[k]]; /* a node of this machine not counted yet */
            node_seen[node_of[k]] = 1;
        }
        int nc = CPU_COUNT(&all);
        if (nn > shared)
            shared = nn;
        if (!nc || (long)nr * most_c > (long)most_r * nc)
            most_r = nr, most_c = nc;
        if (!most_c)
            break; /* no CPU known: nothing is worse */
    }
    free(ids);
    free(masks);
    free(node_seen);
    char cap[80] = ""; /* the cap "auto": said after the wait's reason */
    if (poll_auto) {
        double nap_us = most_c ? CT_NAP_US_PER_RANK_A_CPU * most_r / most_c : 500;
        poll_ns = (long)(1000 * (nap_us < 10 ? 10 : nap_us > 500 ? 500 : nap_us));
        snprintf(cap, sizeof cap, "; naps' cap from %d rank%s on %d CPU%s", most_r,
                 most_r == 1 ? "" : "s", most_c, most_c == 1 ? "" : "s");
    }
    if (wait_mode == WAIT_POLLED) {
        snprintf(wait_why, sizeof wait_why, "%s%s", poll_given ? "--poll-us" : "--wait polled",
                 cap);
        return;
    }
    if (shared > 1) {
        wait_mode = WAIT_POLLED;
        snprintf(wait_why, sizeof wait_why, "auto: %d nodes share one machine%s", shared, cap);
    } else if (most_r > most_c) {
        wait_mode = WAIT_POLLED;
        snprintf(wait_why, sizeof wait_why, "auto: %d ranks on %d CPU%s of one machine%s",
                 most_r, most_c, most_c == 1 ? "" : "s", cap);
    } else {
        wait_mode = WAIT_BUSY;
        snprintf(wait_why, sizeof wait_why,
                 "auto: one node per machine, at most %d rank%s on %d CPU%s", most_r,
                 most_r == 1 ? "" : "s", most_c, most_c == 1 ? "" : "s");
    }
}
#endif

static int max_tasks_per_node(void)
{
    int m = 0;
    for (int k = 0; k < nnodes; k++)
        if (tasks_on[k] > m)
            m = tasks_on[k];
    return m;
}

/* "block" when ranks fill nodes in order, "cyclic" when they are dealt
 * round-robin, else "other" (as launched, not as requested) */
static const char *layout_name(void)
{
    int block = 1, cyclic = 1, tpn = max_tasks_per_node();
    for (int r = 0; r < nranks; r++) {
        if (node_of[r] != r / tpn)
            block = 0;
        if (node_of[r] != r % nnodes)
            cyclic = 0;
    }
    if (nnodes == 1 || (block && cyclic))
        return "block";
    return block ? "block" : cyclic ? "cyclic" : "other";
}

/* pingpong and alltoall rows carry exactly the columns `contention-admin
 * fit` reads; conflict and pattern rows add a detail column. */
static void print_header(int with_detail)
{
    static int printed; /* once: pattern --sizes runs each size in turn */
    if (rank != 0 || printed)
        return;
    printed = 1;
    if (header)
        printf("benchmark,tasks,size_bytes,t_avg_s,t_min_s,nodes,tasks_per_node%s\n",
               with_detail ? ",detail" : "");
#ifdef CT_SMPI
    printf("# wait: simulated (MPI_Waitall)\n");
#else
    if (wait_mode == WAIT_BUSY)
        printf("# wait: busy (MPI_Waitall, MPI_Alltoall): %s\n", wait_why);
    else if (poll_ns == 0)
        printf("# wait: polled (MPI_Test, no naps%s): %s\n", blocking ? "; MPI_Alltoall" : "",
               wait_why);
    else
        printf("# wait: polled (MPI_Test, naps from %ld to %ld us%s): %s\n",
               (poll_ns < 10000 ? poll_ns : 10000) / 1000, poll_ns / 1000,
               blocking ? "; MPI_Alltoall" : "", wait_why);
#endif
    if (incast_step)
        printf("# step: incast (calibrate's incast many-flow step: flows into each port from "
               "2 nodes or more at once)\n");
#ifndef CT_SMPI
    if (tcp_cc[0])
        printf("# tcp: %s\n", tcp_cc);
#endif
}

/* times, ntimes: the repetitions' times (NULL: the last timing's, kept[]) */
static void emit_times(const char *bench, int tasks, double m, double avg, double mn, int nodes,
                       int tpn, int nrep, const char *detail, const double *times, int ntimes)
{
    if (rank != 0)
        return;
    if (!times)
        times = kept, ntimes = nkept;
    printf("# %s m=%.0f: %d repetitions%s%s\n", bench, m, nrep, detail ? ", " : "",
           detail ? detail : "");
    if (ntimes > 0) {
        printf("# times:");
        for (int i = 0; i < ntimes; i++)
            printf(" %.9g", times[i]);
        printf("\n");
    }
    printf("%s,%d,%.0f,%.9g,%.9g,%d,%d", bench, tasks, m, avg, mn, nodes, tpn);
    if (strcmp(bench, "conflict") == 0 || strncmp(bench, "pattern", 7) == 0)
        printf(",%s", detail ? detail : "");
    printf("\n");
    fflush(stdout);
}

static void emit(const char *bench, int tasks, double m, double avg, double mn, int nodes, int tpn,
                 int nrep, const char *detail)
{
    emit_times(bench, tasks, m, avg, mn, nodes, tpn, nrep, detail, NULL, 0);
}

static int parse_sizes(const char *s, double *out, int max)
{
    int n = 0;
    char *dup = strdup(s), *save = NULL;
    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        double v = strtod(t, &end);
        double mult = 1;
        if (*end == 'k' || *end == 'K')
            mult = 1024, end++;
        else if (*end == 'm' || *end == 'M')
            mult = 1024.0 * 1024, end++;
        if (end == t || *end || errno || v < 0 || !isfinite(v) || n == max)
            die("invalid size '%s' in '%s' (accepted: comma-separated bytes with optional K or M, "
                "at most %d)", t, s, max);
        out[n++] = v * mult;
    }
    free(dup);
    if (n == 0)
        die("empty size list");
    return n;
}

static char *xalloc(double bytes)
{
    size_t b = bytes < 1 ? 1 : (size_t)bytes;
    char *p = malloc(b);
    if (!p)
        die_local("cannot allocate a message buffer");
    memset(p, 1, b);
    return p;
}

/* ---- ping-pong: rank 0 and the first rank on another node ---- */
static void run_pingpong(const double *sizes, int nsizes)
{
    int peer = -1;
    for (int r = 1; r < nranks; r++)
        if (node_of[r] != node_of[0]) {
            peer = r;
            break;
        }
    if (peer < 0)
        die("pingpong needs ranks on two nodes (all %d ranks are on one node)", nranks);
    print_header(0);
    double maxm = 0;
    for (int i = 0; i < nsizes; i++)
        maxm = sizes[i] > maxm ? sizes[i] : maxm;
    char *buf = xalloc(maxm);
    for (int i = 0; i < nsizes; i++) {
        int m = (int)sizes[i];
        timing tm = timing_start();
        while (more(tm.done, tm.spent)) {
            barrier();
            double t = 0;
            if (rank == 0 || rank == peer) {
                /* the pair busy-polls: a nap would add to the latency */
                double t0 = MPI_Wtime();
                if (rank == 0) {
                    MPI_Send(buf, m, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, m, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, m, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, m, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
                }
                t = (MPI_Wtime() - t0) / 2;
                if (rank == 0 && getenv("CT_BENCH_TRACE"))
                    fprintf(stderr, "pingpong m=%d rep=%d t=%.6f\n", m, tm.done, t);
            }
            timing_add(&tm, t, 2 * t);
        }
        emit("pingpong", 2, sizes[i], tm.sum / tm.n, tm.mn, 2, 1, tm.n, NULL);
    }
    free(buf);
}

/* ---- Alltoall sweep (papers 000/002 §V: average of repetitions, barrier before each) ---- */
static void run_alltoall(const double *sizes, int nsizes)
{
    /* MPI_Alltoall when asked (--blocking) or waiting busy, else MPI_Ialltoall
     * polled; --p2p: MPI_Irecv and MPI_Isend to every other rank, one wait
     * (wait_all: polled or busy), the primitive of run_pattern */
    const int whole = !p2p && (blocking || wait_mode == WAIT_BUSY);
    MPI_Request *pr = NULL;
    if (p2p && !(pr = malloc(2 * (size_t)nranks * sizeof *pr)))
        die_local("out of memory for the requests");
    print_header(0);
    for (int i = 0; i < nsizes; i++) {
        int m = (int)sizes[i];
        char *sb = xalloc(sizes[i] * nranks), *rb = xalloc(sizes[i] * nranks);
        timing tm = timing_start();
        while (more(tm.done, tm.spent)) {
            barrier();
            idle();
            double p0 = pause_clock(), t0 = MPI_Wtime();
            if (p2p) {
                int q = 0;
                for (int k = 1; k < nranks; k++) {
                    int from = (rank - k + nranks) % nranks;
                    MPI_Irecv(rb + (size_t)from * (size_t)m, m, MPI_CHAR, from, 5, MPI_COMM_WORLD,
                              &pr[q++]);
                }
                for (int k = 1; k < nranks; k++) {
                    int to = (rank + k) % nranks;
                    MPI_Isend(sb + (size_t)to * (size_t)m, m, MPI_CHAR, to, 5, MPI_COMM_WORLD,
                              &pr[q++]);
                }
                memcpy(rb + (size_t)rank * (size_t)m, sb + (size_t)rank * (size_t)m, (size_t)m);
                wait_all(q, pr);
            } else if (!whole) {
                MPI_Request r;
                MPI_Ialltoall(sb, m, MPI_CHAR, rb, m, MPI_CHAR, MPI_COMM_WORLD, &r);
                wait_all(1, &r);
            } else {
                MPI_Alltoall(sb, m, MPI_CHAR, rb, m, MPI_CHAR, MPI_COMM_WORLD);
            }
            double t1 = MPI_Wtime();
            pause_mark(p0, pause_clock());
            double t = reduce_max(t1 - t0);
            timing_add(&tm, t, t);
        }
        pause_report(sizes[i]);
        char detail[64];
        snprintf(detail, sizeof detail, "%s layout, %s", layout_name(),
                 p2p     ? (wait_mode == WAIT_BUSY ? "Isend/Irecv, MPI_Waitall" : "Isend/Irecv polled")
                 : whole ? "MPI_Alltoall"
                         : "MPI_Ialltoall polled");
        emit("alltoall", nranks, sizes[i], tm.sum / tm.n, tm.mn, nnodes, max_tasks_per_node(), tm.n,
             detail);
        free(sb);
        free(rb);
    }
    free(pr);
}

/* ---- conflict schemes (paper 001 §IV-B: time at the sender, penalty = T_i / T_ref) ---- */
typedef struct scheme {
    char name[NAME_LEN];
    int ncomm;
    char label[MAX_COMMS][8];
    int src[MAX_COMMS], dst[MAX_COMMS];
} scheme;

/* "[NAME=][L:]S>D,..." with S, D node indices */
static void parse_scheme(const char *arg, int idx, scheme *s)
{
    memset(s, 0, sizeof *s);
    const char *spec = strchr(arg, '=');
    if (spec) {
        snprintf(s->name, sizeof s->name, "%.*s", (int)(spec - arg), arg);
        spec++;
    } else {
        snprintf(s->name, sizeof s->name, "s%d", idx);
        spec = arg;
    }
    char *dup = strdup(spec), *save = NULL;
    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (s->ncomm == MAX_COMMS)
            die("scheme '%s': more than %d communications", arg, MAX_COMMS);
        char *colon = strchr(t, ':');
        int c = s->ncomm;
        if (colon) {
            snprintf(s->label[c], sizeof s->label[c], "%.*s", (int)(colon - t), t);
            t = colon + 1;
        } else {
            snprintf(s->label[c], sizeof s->label[c], "%c", 'a' + c % 26);
        }
        int a, b, used = 0;
        /* SRC == DST is an intra-node communication (two tasks of one node) */
        if (sscanf(t, "%d>%d%n", &a, &b, &used) != 2 || t[used] || a < 0 || b < 0)
            die("scheme '%s': bad communication '%s' (accepted: [LABEL:]SRC>DST with node "
                "indices, e.g. a:0>1)", arg, t);
        s->src[c] = a;
        s->dst[c] = b;
        s->ncomm++;
    }
    free(dup);
    if (s->ncomm == 0)
        die("scheme '%s' has no communication", arg);
}

static void run_conflict(const scheme *schemes, int nschemes, double size)
{
    print_header(1);
    char *buf = xalloc(size);
    int m = (int)size;
    for (int si = 0; si < nschemes; si++) {
        const scheme *s = &schemes[si];
        /* give each communication its own sender and receiver rank */
        int *sender = malloc(sizeof(int) * (size_t)s->ncomm);
        int *receiver = malloc(sizeof(int) * (size_t)s->ncomm);
        char *used = calloc((size_t)nranks, 1);
        int *per_node = calloc((size_t)nranks + MAX_COMMS, sizeof(int));
        if (!sender || !receiver || !used || !per_node)
            die("out of memory for scheme %s", s->name);
        int need_nodes = 0, need_tpn = 0;
        for (int c = 0; c < s->ncomm; c++) {
            int ends[2] = {s->src[c], s->dst[c]};
            int *who[2] = {&sender[c], &receiver[c]};
            for (int e = 0; e < 2; e++) {
                if (ends[e] >= nnodes)
                    die("scheme %s needs node %d but the job has %d nodes", s->name, ends[e],
                        nnodes);
                need_nodes = ends[e] + 1 > need_nodes ? ends[e] + 1 : need_nodes;
                int r;
                for (r = 0; r < nranks; r++)
                    if (!used[r] && node_of[r] == ends[e])
                        break;
                if (r == nranks)
                    die("scheme %s needs more tasks on node %d than the %d it has", s->name,
                        ends[e], tasks_on[ends[e]]);
                used[r] = 1;
                *who[e] = r;
                if (++per_node[ends[e]] > need_tpn)
                    need_tpn = per_node[ends[e]];
            }
        }
        int my_send = -1, my_recv = -1;
        for (int c = 0; c < s->ncomm; c++) {
            if (sender[c] == rank)
                my_send = c;
            if (receiver[c] == rank)
                my_recv = c;
        }
        double *sum = calloc((size_t)s->ncomm, sizeof(double));
        double *mn = malloc(sizeof(double) * (size_t)s->ncomm);
        double *mine = calloc((size_t)nranks, sizeof(double));
        /* each communication's kept repetitions, rep-major: times[c * MAX_KEPT + i] */
        double *times = malloc(sizeof(double) * (size_t)s->ncomm * MAX_KEPT);
        if (!sum || !mn || !mine || !times)
            die("out of memory for scheme %s", s->name);
        for (int c = 0; c < s->ncomm; c++)
            mn[c] = INFINITY;
        double spent = 0;
        int done = 0, n = 0;
        while (more(done, spent)) {
            barrier();
            double t = 0;
            if (my_send >= 0) {
                /* from before the send until the receiver confirms the last
                 * byte: socket buffers cannot hide bytes still on the wire */
                MPI_Request r;
                char ack;
                double t0 = MPI_Wtime();
                MPI_Isend(buf, m, MPI_CHAR, receiver[my_send], 2, MPI_COMM_WORLD, &r);
                wait_all(1, &r);
                MPI_Irecv(&ack, 1, MPI_CHAR, receiver[my_send], 3, MPI_COMM_WORLD, &r);
                wait_all(1, &r);
                t = MPI_Wtime() - t0;
            } else if (my_recv >= 0) {
                MPI_Request r;
                char ack = 0;
                MPI_Irecv(buf, m, MPI_CHAR, sender[my_recv], 2, MPI_COMM_WORLD, &r);
                wait_all(1, &r);
                MPI_Isend(&ack, 1, MPI_CHAR, sender[my_recv], 3, MPI_COMM_WORLD, &r);
                wait_all(1, &r);
            }
            MPI_Request r;
            MPI_Igather(&t, 1, MPI_DOUBLE, mine, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r);
            wait_all(1, &r);
            if (rank == 0) {
                double tmax = 0;
                for (int c = 0; c < s->ncomm; c++) {
                    double tc = mine[sender[c]];
                    tmax = tc > tmax ? tc : tmax;
                    if (done >= warmup) {
                        sum[c] += tc;
                        mn[c] = tc < mn[c] ? tc : mn[c];
                        if (n < MAX_KEPT)
                            times[(size_t)c * MAX_KEPT + (size_t)n] = tc;
                    }
                }
                spent += tmax;
            }
            if (done >= warmup)
                n++;
            done++;
        }
        for (int c = 0; c < s->ncomm; c++) {
            char detail[160];
            snprintf(detail, sizeof detail, "%.63s:%.7s:%d>%d", s->name, s->label[c], s->src[c],
                     s->dst[c]);
            emit_times("conflict", 2 * s->ncomm, size, sum[c] / n, mn[c], need_nodes, need_tpn, n,
                       detail, times + (size_t)c * MAX_KEPT, n < MAX_KEPT ? n : MAX_KEPT);
        }
        free(sender);
        free(receiver);
        free(used);
        free(per_node);
        free(sum);
        free(mn);
        free(mine);
        free(times);
    }
    free(buf);
}

/* ---- patterns: one step of the communication pattern, all tasks at once ---- */
static void near_square(int n, int *px, int *py)
{
    int a = (int)floor(sqrt((double)n));
    while (a > 1 && n % a)
        a--;
    *px = a < 1 ? 1 : a;
    *py = n / *px;
}

/* modelcore's ct_grid_dims (pattern.c) for 3 dimensions: a >= b >= c with
 * the smallest spread a - c, ties keeping the first found (the larger c) */
static void grid3(int n, int dims[3])
{
    long best[3] = {n, 1, 1}, spread = -1;
    for (long c = (long)cbrt((double)n) + 1; c >= 1; c--) {
        if (n % c)
            continue;
        long rest = n / c;
        for (long b = (long)sqrt((double)rest) + 1; b >= c; b--) {
            if (rest % b || rest / b < b)
                continue;
            if (spread < 0 || rest / b - c < spread)
                spread = rest / b - c, best[0] = rest / b, best[1] = b, best[2] = c;
        }
    }
    for (int i = 0; i < 3; i++)
        dims[i] = (int)best[i];
}

/* peers of `me`: sends to dst[], receives from src[] (same count); dim[i]:
 * the grid dimension of peer i (the phased variants exchange one dimension
 * at a time, in this order) */
static int pattern_peers(const char *pat, int me, int n, int *dst, int *src, int *dim)
{
    int k = 0;
    if (strcmp(pat, "ring") == 0) {
        if (n > 1) {
            dst[k] = (me + 1) % n;
            dim[k] = 0;
            src[k++] = (me - 1 + n) % n;
        }
    } else if (strcmp(pat, "halves") == 0) {
        int h = n / 2;
        if (h > 0 && me < 2 * h) {
            int p = me < h ? me + h : me - h;
            dst[k] = p;
            dim[k] = 0;
            src[k++] = p;
        }
    } else if (strcmp(pat, "halo2d") == 0 || strcmp(pat, "halo3d") == 0) {
        /* as modelcore's pattern.c: dims a >= b (>= c), row-major with the
         * last dimension fastest, nearest neighbours along each dimension,
         * not periodic (halo2d: the near-square px x py grid, px <= py,
         * rank = y*px + x, is the same grid) */
        int nd = pat[4] == '2' ? 2 : 3, dims[3] = {1, 1, 1};
        if (nd == 2) {
            near_square(n, &dims[1], &dims[0]);
        } else {
            grid3(n, dims);
        }
        int stride[3];
        stride[nd - 1] = 1;
        for (int d = nd - 2; d >= 0; d--)
            stride[d] = stride[d + 1] * dims[d + 1];
        for (int d = 0; d < nd; d++) {
            int c = (me / stride[d]) % dims[d];
            for (int dir = -1; dir <= 1; dir += 2) {
                if (c + dir < 0 || c + dir >= dims[d])
                    continue;
                dst[k] = src[k] = me + dir * stride[d];
                dim[k++] = d;
            }
        }
    } else {
        die("unknown pattern '%s' (accepted: ring, halves, halo2d, halo3d)", pat);
    }
    return k;
}

/* --host-clock: a repetition from the first rank's start to the last rank's
 * end, against the row's slowest rank's own start-to-end. After one barrier
 * the ranks of an oversubscribed host start apart (seen: 0.7 ms with 4
 * ranks on 2 cores, 12 ms with 16), and a rank that starts late finds its
 * peers' messages already on their way: its own clock then times less than
 * the exchange took (doc/accuracy-notes.md, "Session 27"). */
typedef struct host_timing {
    double sum, mn, spread_sum, spread_max;
    int n;
} host_timing;

static double host_timing_add(host_timing *h, double start, double end, int kept_rep)
{
    double v[3] = {-start, start, end}, g[3];
    MPI_Allreduce(v, g, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (!kept_rep)
        return 0.0;
    double t = g[2] + g[0], spread = g[1] + g[0]; /* last end - first start; start spread */
    h->sum += t;
    h->mn = h->n == 0 || t < h->mn ? t : h->mn;
    h->spread_sum += spread;
    h->spread_max = spread > h->spread_max ? spread : h->spread_max;
    h->n++;
    return t;
}

/* concurrent: every exchange posted at once (Irecv/Isend, one Waitall);
 * phased: one grid dimension at a time (a Waitall per dimension), as codes
 * that exchange faces direction by direction do */
static void run_pattern(const char *pat, double size, int phased, int last_dim_first,
                        int host_clock)
{
    print_header(1);
    int dst[6], src[6], dim[6];
    int k = pattern_peers(pat, rank, nranks, dst, src, dim);
    /* --last-dim-first: post the last grid dimension's exchanges first (a
     * stable insertion sort by dimension, descending): to see whether the
     * posting order, not the layout's traffic, sets a halo's time */
    for (int i = 1; last_dim_first && i < k; i++)
        for (int j = i; j > 0 && dim[j] > dim[j - 1]; j--) {
            int t = dst[j];
            dst[j] = dst[j - 1], dst[j - 1] = t;
            t = src[j];
            src[j] = src[j - 1], src[j - 1] = t;
            t = dim[j];
            dim[j] = dim[j - 1], dim[j - 1] = t;
        }
    int m = (int)size;
    char *sb = xalloc(size * (k ? k : 1)), *rb = xalloc(size * (k ? k : 1));
    timing tm = timing_start();
    host_timing ht = {0};
    double host_kept[MAX_KEPT];
    while (more(tm.done, tm.spent)) {
        barrier();
        idle();
        MPI_Request r[12];
        double h0 = host_clock ? host_now() : 0.0;
        double p0 = pause_clock(), t0 = MPI_Wtime();
        for (int lo = 0; lo < k;) {
            int hi = lo + 1;
            while (hi < k && (!phased || dim[hi] == dim[lo]))
                hi++;
            int q = 0;
            for (int i = lo; i < hi; i++)
                MPI_Irecv(rb + (size_t)i * (size_t)m, m, MPI_CHAR, src[i], 4, MPI_COMM_WORLD,
                          &r[q++]);
            for (int i = lo; i < hi; i++)
                MPI_Isend(sb + (size_t)i * (size_t)m, m, MPI_CHAR, dst[i], 4, MPI_COMM_WORLD,
                          &r[q++]);
            wait_all(q, r);
            lo = hi;
        }
        double own = MPI_Wtime() - t0;
        pause_mark(p0, pause_clock());
        /* read after the ranks' own clock and before the reduction: a rank's
         * host interval holds its own (the row's), whatever the clocks */
        double h1 = host_clock ? host_now() : 0.0;
        double t = reduce_max(own);
        if (host_clock) {
            int keep = tm.done >= warmup;
            double th = host_timing_add(&ht, h0, h1, keep);
            if (keep && ht.n <= MAX_KEPT)
                host_kept[ht.n - 1] = th;
        }
        timing_add(&tm, t, t);
    }
    pause_report(size);
    char detail[64];
    snprintf(detail, sizeof detail, "%s%s%s:%s", pat, phased ? "/phased" : "",
             last_dim_first ? "/last-dim-first" : "", layout_name());
    emit("pattern", nranks, size, tm.sum / tm.n, tm.mn, nnodes, max_tasks_per_node(), tm.n, detail);
    if (host_clock && ht.n > 0) {
        if (rank == 0)
            printf("# pattern-host m=%.0f: the same repetitions, first start to last end on the "
                   "host clock; the ranks started %.3g ms apart on average, %.3g ms at most\n",
                   size, 1e3 * ht.spread_sum / ht.n, 1e3 * ht.spread_max);
        emit_times("pattern-host", nranks, size, ht.sum / ht.n, ht.mn, nnodes, max_tasks_per_node(),
                   ht.n, detail, host_kept, ht.n < MAX_KEPT ? ht.n : MAX_KEPT);
    }
    free(sb);
    free(rb);
}

static void usage(void)
{
    die("usage: ct-mpibench pingpong|alltoall --sizes LIST | conflict --scheme [NAME=]SPEC... "
        "--size M | pattern --pattern ring|halves|halo2d|halo3d --size M|--sizes LIST [--phased] "
        "[--last-dim-first] [--host-clock] [--reps R] [--warmup W] "
        "[--max-time S] [--wait auto|polled|busy] [--poll-us U|auto] [--idle S] [--no-header] "
        "[--blocking] [--p2p]");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
#if defined(PR_SET_TIMERSLACK) && !defined(CT_SMPI)
    /* naps of tens of microseconds must not stretch to the default 50 us slack */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
#endif
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 2)
        usage();
    const char *mode = argv[1];
    static double sizes[MAX_SIZES];
    static scheme schemes[MAX_SCHEMES];
    int nsizes = 0, nschemes = 0;
    const char *pat = NULL;
    int phased = 0, last_dim_first = 0, host_clock = 0, poll_given = 0;
    const char *poll_us = NULL; /* --poll-us, else CT_MPIBENCH_POLL_US, else the default */
    const char *wait_given = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (strcmp(a, "--sizes") == 0 && v) {
            nsizes = parse_sizes(v, sizes, MAX_SIZES);
        } else if (strcmp(a, "--size") == 0 && v) {
            nsizes = parse_sizes(v, sizes, 1);
        } else if (strcmp(a, "--scheme") == 0 && v) {
            if (nschemes == MAX_SCHEMES)
                die("more than %d --scheme options", MAX_SCHEMES);
            parse_scheme(v, nschemes, &schemes[nschemes]);
            nschemes++;
        } else if (strcmp(a, "--pattern") == 0 && v) {
            pat = v;
        } else if (strcmp(a, "--reps") == 0 && v) {
            reps = atoi(v);
        } else if (strcmp(a, "--warmup") == 0 && v) {
            warmup = atoi(v);
        } else if (strcmp(a, "--max-time") == 0 && v) {
            max_time = atof(v);
        } else if (strcmp(a, "--poll-us") == 0 && v) {
            poll_us = v;
            poll_given = 1;
        } else if (strcmp(a, "--wait") == 0 && v) {
            wait_given = v;
        } else if (strcmp(a, "--no-header") == 0) {
            header = 0;
            takes = 0;
        } else if (strcmp(a, "--blocking") == 0) {
            blocking = 1;
            takes = 0;
        } else if (strcmp(a, "--p2p") == 0) {
            p2p = 1;
            takes = 0;
        } else if (strcmp(a, "--phased") == 0) {
            phased = 1;
            takes = 0;
        } else if (strcmp(a, "--last-dim-first") == 0) {
            last_dim_first = 1;
            takes = 0;
        } else if (strcmp(a, "--idle") == 0 && v) {
            idle_s = atof(v);
        } else if (strcmp(a, "--step") == 0 && v) {
            if (strcmp(v, "incast") != 0)
                die("--step '%.40s' (accepted: incast)", v);
            incast_step = 1;
        } else if (strcmp(a, "--host-clock") == 0) {
            host_clock = 1;
            takes = 0;
        } else {
            die("unknown or incomplete option '%s'", a);
        }
        i += takes;
    }
    if (reps < 1 || reps > 10000 || warmup < 0 || warmup > 100 || !(max_time > 0) ||
        !(idle_s >= 0 && idle_s <= 10))
        die("out-of-range option: --reps 1..10000, --warmup 0..100, --max-time > 0, --idle 0..10");
    /* the naps' cap: --poll-us, else CT_MPIBENCH_POLL_US (a site's or a
     * script's choice for every step it starts), else the default */
    const char *cap_from = "--poll-us";
    if (!poll_us && (poll_us = getenv("CT_MPIBENCH_POLL_US")) != NULL)
        cap_from = "CT_MPIBENCH_POLL_US";
    if (!poll_us) {
        poll_us = CT_POLL_US_DEFAULT;
        cap_from = "the default";
    }
    if (strcmp(poll_us, "auto") == 0) {
        poll_auto = 1;
    } else {
        char *end;
        errno = 0;
        long us = strtol(poll_us, &end, 10);
        if (errno || end == poll_us || *end || us < 0 || us > 100000)
            die("%s '%.40s' (accepted: auto, or 0 to 100000 us)", cap_from, poll_us);
        poll_ns = us * 1000;
    }
    if (wait_given && strcmp(wait_given, "auto") == 0)
        wait_mode = WAIT_AUTO;
    else if (wait_given && strcmp(wait_given, "polled") == 0)
        wait_mode = WAIT_POLLED;
    else if (wait_given && strcmp(wait_given, "busy") == 0)
        wait_mode = WAIT_BUSY;
    else if (wait_given)
        die("--wait '%.40s' (accepted: auto, polled, busy)", wait_given);
    if (p2p && (blocking || strcmp(mode, "alltoall") != 0))
        die("--p2p with %s (accepted: alltoall --p2p, without --blocking)",
            blocking ? "--blocking" : mode);
    if (incast_step && strcmp(mode, "alltoall") != 0)
        die("--step incast with %s (accepted: alltoall --step incast)", mode);
    if (poll_given && wait_mode == WAIT_BUSY)
        die("--poll-us with --wait busy (accepted: --poll-us alone, or with --wait polled)");
    if (poll_given)
        wait_mode = WAIT_POLLED;
    discover_nodes();
#ifndef CT_SMPI
    discover_tcp_cc();
    choose_wait(poll_given);
#endif
    /* what is timed starts here: a tool that honours MPI_Pcontrol (the
     * project's recorder, doc/recorder.md "Recording a region"; mpiP) leaves
     * out the start-up above (node and TCP discovery, the wait's choice),
     * which no timed repetition holds. Not under SimGrid SMPI, which
     * aborts on it ("Not yet implemented: PMPI_Pcontrol", SimGrid 3.32) and
     * records nothing anyway */
#ifndef CT_SMPI
    MPI_Pcontrol(1);
#endif
    if (strcmp(mode, "pingpong") == 0 && nsizes)
        run_pingpong(sizes, nsizes);
    else if (strcmp(mode, "alltoall") == 0 && nsizes)
        run_alltoall(sizes, nsizes);
    else if (strcmp(mode, "conflict") == 0 && nschemes && nsizes)
        run_conflict(schemes, nschemes, sizes[0]);
    else if (strcmp(mode, "pattern") == 0 && pat && nsizes)
        for (int i = 0; i < nsizes; i++) /* --sizes: each size in turn (session 57) */
            run_pattern(pat, sizes[i], phased, last_dim_first, host_clock);
    else
        usage();
    MPI_Finalize();
    return 0;
}
