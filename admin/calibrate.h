/* contention-admin calibrate, shared by its three files:
 *   cmd_calibrate.c      options, the fit and the order of the work
 *   calibrate_jobs.c     the job runner: plan, salloc, one srun step per
 *                        measurement with retries and progress, Ctrl-C,
 *                        reading the outputs back
 *   calibrate_report.c   the report, the plot, the fabric entry and the
 *                        files written (atomically)
 */
#ifndef CONTENTION_ADMIN_CALIBRATE_H
#define CONTENTION_ADMIN_CALIBRATE_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include "admin.h"
#include "contention/benchparse.h"
#include "contention/calibrate.h"
#include "contention/signatures.h"

#define CMD "calibrate"
#define MAX_STEPS 32
#define MAX_ARGS 48
#define MAX_SIZES 16
#define CALIB_INTERRUPTED 130 /* exit status after Ctrl-C / SIGTERM / SIGHUP */
/* Repetitions of the cross-leaf pair schemes at least (uplink.csv; with
 * --uplink-duplex since session 11, always since session 12): one pair
 * each way through a 4:1 trunk ran 1.00-1.36 x one pair alone from one
 * repetition to the next (TCP losses at the trunk's queue, session 11), and
 * two pairs together stalled (> 1.4 x their usual time, retransmission
 * timeouts of 0.2-2 s) in 5 of 60 repetitions of session 12's first twenty
 * runs at 4:1, two of three in one leaf of r4ae, whose median of 3 then
 * wrote 2.04 MB/s for a 6 MB/s trunk; a median of 7 needs 4 stalled. The
 * step costs ~0.7 s per repetition and leaf at 1 MiB there. */
#define CALIB_UPLINK_REPS 7
/* --pattern-model tcpshare's bias (penalty_tcpshare.c): a flow through h
 * standing queues rises at h^-1.5 of a one-queue flow's rate, from Mathis
 * et al. 1997 (rate ~ 1 / (RTT sqrt(p)), RTT and p each ~ h). A constant of
 * the formula, not fitted. */
#define CALIB_TCP_BIAS 1.5
/* Cross-leaf pairs measured together per leaf (u<sw>k) at most. */
#define CALIB_UPLINK_PAIRS_MAX 8

/* The options, as given. */
typedef struct calib_args {
    const char *name, *part, *out, *svg, *raw, *from, *bench, *sizes, *points;
    const char *wait; /* --wait: auto (default), polled, busy */
    long N, C, reps, tlimit, nseg;
    /* --flow-tasks: 2 nodes x this many tasks (-1 = auto, 0 = none) */
    long flow_tasks;
    int quick, incast, strict;
    int uplink_duplex; /* --uplink-duplex: write the uplinks' measured duplex share */
    int no_uplink_duplex; /* --no-uplink-duplex: not even with the TCP share */
    /* the sustained rate and the bucket read with the ping-pong's own refill
     * where it shows (ct_p2p_refill_read; session 50, the default with two
     * or more point-to-point segments since session 54: doc/calibration.md):
     * --pingpong-refill asks for it (1), --no-pingpong-refill declines it */
    int pingpong_refill;
    int no_pingpong_refill;
    int incast_intercept; /* --incast-intercept: the incast intercept (session 69, not the default) */
    int pattern_model; /* --pattern-model: CALIB_PM_* */
    double max_err_pct;
} calib_args;

/* The penalty model written for point-to-point patterns (--pattern-model):
 * by default the duplex fair share when --incast fitted it, else 001's GigE
 * model when the conflict schemes fitted it, else the fair-share baseline. */
enum { CALIB_PM_DEFAULT, CALIB_PM_GIGE, CALIB_PM_DUPLEX, CALIB_PM_FAIRSHARE, CALIB_PM_TCPSHARE };

/* ---- plan (calibrate_jobs.c) */

enum { ST_PINGPONG, ST_ALLTOALL, ST_CONFLICT, ST_INTRA, ST_UPLINK, ST_REFILL, ST_EXCHANGE };
/* The idle before each call of the refill step (s): long enough for a token
 * bucket to refill at the rates calibrate meets (100 ms: 1.25 MB at
 * 100 Mbit/s), short of TCP's minimum retransmission timeout (200 ms), after
 * which Linux restarts a flow's window. */
#define CALIB_REFILL_IDLE 0.1

typedef struct step {
    int kind;
    int nodes, tpn;
    char file[64];
    char label[160]; /* the longest label, intra_step's, fits whole: 142 bytes at most */
    char *argv[MAX_ARGS];
    int argc;
    char store[1024];
    size_t used;
    double work;         /* bytes through the busiest NIC, all repetitions */
    double idle;         /* s the step sleeps (ct-mpibench --idle), all repetitions */
    double est, took;    /* s */
    int optional;        /* a fit without it is the one before it was added: the many-flow
                          * steps; failed 3 times, it is skipped with a warning */
    int skipped;         /* it failed 3 times and was skipped (its output FILE.failed) */
    int wait_arg;        /* argv index of its --wait word (calib_plan_wait), 0: none */
    int sizes_at;        /* an Alltoall step: argv index of its --sizes value */
    int a2a_role;        /* an Alltoall step: CALIB_A2A_CONFIG, _FLOW or _INCAST */
} step;

/* what an Alltoall step measures (its label) */
enum { CALIB_A2A_CONFIG, CALIB_A2A_FLOW, CALIB_A2A_INCAST };

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
    int flow_tasks; /* > C: the Alltoall of 2 nodes x flow_tasks tasks (calib_flow_tasks) */
    int incast_tasks; /* > C: the Alltoall of 3 nodes x incast_tasks (calib_incast_tasks) */
    /* the sizes the Alltoall steps move to where the 2 x 1's smallest
     * saturated size sits on the call's floor (calib_floor_check), NULL:
     * keep the sizes (--sizes given); resized: they moved */
    const char *floor_sizes;
    int resized;
} plan;

/* --wait: how every step's ranks wait (ct-mpibench --wait auto|polled|busy;
 * doc/calibration.md "How the ranks wait"), appended to each step of the
 * plan. With auto, the first step (the ping-pong, 2 nodes) decides for
 * the rest when it waited polled: a step of one node cannot see that other
 * nodes share its machine (calib_wait_follow). */
void calib_plan_wait(plan *p, const char *wait);
/* After step i of an auto plan (calibrate: the ping-pong, its first): when
 * its output (path) says it waited polled, every later step is told --wait
 * polled (returns 1, the reason in why), else 0. */
int calib_wait_follow(plan *p, int i, const char *path, char *why, size_t sz);

/* The tasks per node of the many-flow step (our extension, issue 12): the
 * 2-node Alltoall with as many remote flows a port, T^2, as the largest
 * configuration, C^2 (N - 1), has at incast degree N - 1, so that the fit
 * sees flows per port apart from the incast degree: T = ceil(C sqrt(N - 1)),
 * at most the nodes' CPUs. `asked` > 0 is taken as given, 0 = none, -1 =
 * auto. Returns 0 when the step adds nothing (T <= C). */
int calib_flow_tasks(long asked, int N, int C, long cpus);
/* The tasks per node of the incast many-flow step (our extension, issue 12,
 * session 24): the Alltoall of 3 nodes, incast degree 2, with about as many
 * remote flows a port, 2 T^2, as the largest configuration, C^2 (N - 1):
 * T = ceil(C sqrt((N - 1) / 2)), at most the nodes' CPUs. There the flows
 * into a port come from two senders at once and the port's queue, not a
 * sender's NIC, takes their excess (doc/accuracy-notes.md, session 23: TCP
 * incast). Measured with the many-flow step (flow_tasks > C) on N >= 3
 * nodes. On 3 nodes that T is C, the largest configuration itself, which the
 * fit holds back: there T = C + 1, 2 (C + 1)^2 flows, beyond every
 * configuration the jobs run (session 59: before it, 3-node clusters had no
 * incast-loss term, and 3 x C was priced 17-54 % short where a bucket held
 * the links). Returns 0 when the step adds nothing (T <= C, as when the
 * nodes' CPUs cap it at C). */
int calib_incast_tasks(int flow_tasks, int N, int C, long cpus);
/* The sizes the 2 x 1 Alltoall measures beyond the plan's (our extension,
 * session 28): the wide ping-pong's largest, 1M and 2M, those above the
 * plan's largest size (--quick's too: the long-exchange term needs two), as a
 * --sizes tail ("1M,2M"; "" when none) and their sum in bytes; returns how
 * many. The duplex coupling is then fitted over the sizes the pattern model
 * uses it at. */
int calib_exchange_sizes(const plan *p, char *out, size_t sz, double *sum);
/* Sizes chosen by the link (our extension, session 52; doc/calibration.md,
 * "Saturated sizes on the call's floor"). After the 2 x 1 Alltoall step i
 * (its output at path) of a plan whose sizes were not asked for
 * (p->floor_sizes set, not yet resized): where its smallest saturated size
 * (from min_m) took no more than CT_A2A_CALL_FLOOR_RATIO x its smallest
 * size (ct_a2a_on_call_floor), the call's floor and not the link sets it.
 * Then the plan's sizes become p->floor_sizes for step i and every later
 * Alltoall step (their --sizes, work and labels), the floor found goes to
 * *f and 1 is returned: the caller measures step i again. 0 otherwise
 * (also when the output cannot be read: the plan stays as it was). */
int calib_floor_check(plan *p, int i, const char *path, double min_m, ct_a2a_call_floor *f);
/* the sizes calib_floor_check moves to (--quick: one fewer): those of
 * doc/accuracy-runs/sizes-s51, where the band's misses came within the goal
 * on 2 of 3 */
#define CALIB_FLOOR_SIZES "32K,64K,512K,1M,2M"
#define CALIB_FLOOR_SIZES_QUICK "32K,64K,512K,1M"
/* the 2 x 1's first output, kept where the sizes moved: beside the step's
 * own file, its name + CALIB_FLOOR_KEPT, which --from does not read (not a
 * .csv) but sees (data.sizes_moved) */
#define CALIB_FLOOR_KEPT ".call-floor"
#define CALIB_FLOOR_KEPT_2X1 "alltoall-2x1.csv" CALIB_FLOOR_KEPT
/* The steps for N nodes x C tasks inside allocation jobid (and the
 * many-flow step when p->flow_tasks > C). */
void calib_build_plan(plan *p, int N, int C, const char *jobid, int quick);
/* On a partition under several leaf switches (issue 14): read the tree from
 * Slurm (`scontrol show topology` -> dir/topology.txt, the allocation's
 * nodes -> dir/hosts.txt) and, when the allocation spans two or more
 * leaves, add the uplink step (uplink.csv: per leaf, one pair of nodes
 * across its uplink alone, then k pairs at once, then pairs each way at
 * once: with duplex (--uplink-duplex) and C >= 2 tasks per node k each way,
 * else one each way on four distinct nodes; at least CALIB_UPLINK_REPS
 * repetitions). Silent when Slurm has no
 * tree; a tree that cannot be read is reported on info and skipped. */
void calib_plan_uplinks(plan *p, int N, int C, int duplex, const char *jobid, const char *dir,
                        FILE *info);
/* --sizes "32K,64K,...": ADMIN_OK or ADMIN_USAGE with the message printed. */
int calib_parse_sizes(const char *s, plan *p);

/* ---- the measurements */

typedef struct data {
    ct_bench_data bench;
    ct_conflict_sample *conf;
    size_t nconf;
    /* intra.csv (one node's halves) and intra-all.csv (session 55: the same
     * halves on every node at once) as ct_intra_read reads them: the rate at
     * the largest size (bw 0 if not measured; intra_all.nodes its node count)
     * and, where the step ran two sizes, the line (session 57; line_bw 0 where
     * none) */
    ct_intra_reading intra, intra_all;
    ct_conflict_sample *upl; /* uplink.csv: the cross-leaf schemes */
    size_t nupl;
    ct_bench_data refill; /* refill-2x1.csv: the 2 x 1 exchange after an idle (session 29) */
    /* refill-p2p-2x1.csv: the same exchange posted as the patterns post it
     * (MPI_Irecv and MPI_Isend, one wait; session 36) */
    ct_bench_data refill_p2p;
    /* exchange-p2p-2x1.csv: the 2 x 1 exchange posted so, timed back to back
     * at the 2 x 1's sizes (session 53): what the duplex terms are read off
     * (ct_a2a_with_posted_exchange); none measured, the MPI_Ialltoall's */
    ct_bench_data exchange_p2p;
    /* how the outputs' ranks waited (ct-mpibench's '# wait:' line, session
     * 34): CALIB_WAIT_BUSY, _POLLED, _UNSAID (outputs from before it) */
    int nwait[3];
    char wait_why[3][128]; /* the first output's reason of each kind */
    /* the nodes' TCP congestion control (ct-mpibench's '# tcp:' line, session
     * 61): the first output's name, the first other name any output gave
     * ("" when none), and how many outputs gave one */
    char tcp_cc[16], tcp_other[16];
    int ntcp;
    /* the Alltoall steps moved to the floor's sizes (calib_floor_check):
     * measured so, or alltoall-2x1.csv.call-floor in --from DIR */
    int sizes_moved;
} data;
enum { CALIB_WAIT_BUSY, CALIB_WAIT_POLLED, CALIB_WAIT_UNSAID };

/* One run: where the outputs go, the allocation, what was measured. */
typedef struct calib_run {
    char dir[PATH_MAX - 512]; /* room for '/' + a file name in PATH_MAX */
    int keep;                 /* --raw or --from: the directory stays */
    char jobid[32];           /* the allocation, "" when none is held */
    int nodes_used, tpn_used;
    char today[16], when[32];
    data d;
} calib_run;

/* Set by SIGINT/SIGTERM/SIGHUP (the signal number); the running step's
 * process group gets SIGTERM. */
extern volatile sig_atomic_t calib_stop;
void calib_signals_install(struct sigaction old[3]);
void calib_signals_restore(const struct sigaction old[3]);

/* Allocate (salloc --no-shell), run every step of the plan with retries and
 * a progress line on info, release the allocation and read the outputs into
 * r->d. ADMIN_OK, ADMIN_INVALID (message printed) or CALIB_INTERRUPTED
 * (r->jobid still names the allocation to cancel). */
int calib_measure(const calib_args *a, plan *P, calib_run *r, FILE *info);
/* Read the kept .csv outputs of an earlier run (--from DIR). */
int calib_load_dir(const char *dir, data *d);
/* How the outputs' ranks waited, for the report ("busy in 13 of 13
 * outputs (auto: ...)"); returns 1 when they waited both ways (a signature
 * whose fitted steps mix two waits' costs), else 0. */
int calib_waits(const data *d, char *out, size_t sz);
/* The one word for the fabric's description: "busy", "polled", "mixed" or
 * NULL when no output said. */
const char *calib_wait_word(const data *d);
/* The nodes' TCP congestion control as the outputs said it, in out[sz]:
 * "cubic (said by 12 of 12 outputs)", or what differed; 1 when the outputs
 * (or an output's ranks, "mixed") named more than one, else 0. name: the one
 * name for a signature's description, NULL when none or mixed. */
int calib_tcp(const data *d, char *out, size_t sz, const char **name);
/* scancel the allocation (the message goes to dir/scancel.err). */
void calib_scancel(const char *jobid, const char *dir);
/* Remove dir and the files in it (no subdirectories). */
int calib_rmtree_flat(const char *dir);

/* ---- fit, report, files (calibrate_report.c) */

typedef struct calib_fit {
    ct_calib_result res;
    ct_calib_gige g;
    int have_gige;
    char gige_err[CT_ERR_MAX];
    ct_calib_opts co;
    /* the nodes' shared copy rate (ct_intra_shared, session 55), 0: none */
    double intra_shared_bw;
    /* the intra-node lines written (session 57): line_bw 0 where none */
    double intra_alpha, intra_line_bw, intra_shared_alpha, intra_shared_line_bw;
    int uplink_duplex; /* --uplink-duplex: calib_fill_topology writes uplink_duplex */
    double train_err; /* largest error on the points the fit trusts */
    int over;         /* train_err above --max-fit-error */
    /* the ping-pong curve against its own sizes (ct_p2p_worst_miss) */
    double p2p_miss, p2p_miss_m;
    int p2p_over;     /* p2p_miss above --max-fit-error */
    /* --incast: the duplex coupling (our extension, penalty_duplex.c) from the
     * 2 x 1 exchange posted as the patterns post theirs where measured
     * (session 53), else the 2 x 1 Alltoall; when fitted, the penalty model
     * written is duplex */
    ct_duplex_fit dx;
    int have_duplex;
    size_t nposted; /* dx read off the posted exchange's samples (their count), 0: the Alltoall's */
    /* the bucket an exchange gets after a full refill (session 29,
     * ct_fit_refill), from the refill step; have_refill 0: the ping-pong's
     * burst stands for it, refill_err says why */
    ct_refill_fit rf;
    int have_refill;
    int refill_p2p; /* rf is the posted exchange's (refill-p2p-2x1.csv), not the Alltoall's */
    /* the Alltoall's refill step's reading (rf itself where the posted one
     * was not read, else reported beside it); have_refill_a2a 0: not
     * measured or not read */
    ct_refill_fit rf_a2a;
    int have_refill_a2a;
    char refill_err[CT_ERR_MAX];
    char duplex_err[CT_ERR_MAX];
    /* on several leaves: the Alltoall samples the signature is fitted on,
     * without those an uplink sets (calib_uplink_bound); NULL: all */
    ct_a2a_sample *a2a_kept;
    size_t na2a_kept, nbound;
} calib_fit;

void calib_print_report(FILE *o, const ct_calib_result *r, const ct_calib_gige *g, int have_gige,
                        const char *gige_err);
/* Issue 14 (our extension): the Alltoall samples whose busiest resource is
 * an uplink, not a NIC -- the uplink carries more than CALIB_UPLINK_BOUND
 * times a NIC's messages at the capacity uplink.csv measured (physical
 * rates: k pairs' aggregate over one message's rate at the conflict size;
 * penalty.h ct_links_alltoall_uplink_excess; a step of N nodes runs on the
 * allocation's first N of dir/hosts.txt). They time the uplink, which the
 * tree's uplink term prices (grid_lg.h), so the NIC signature (000 eq. 5's
 * gamma) is fitted without them. bound[i], excess[i] per bench sample;
 * returns how many are bound (0 without a measured tree; *why says what
 * was missing when the check could not be made). */
#define CALIB_UPLINK_BOUND 1.1
#define CALIB_MAX_HOSTS 4096
size_t calib_uplink_bound(const calib_run *r, unsigned char *bound, double *excess, char *why,
                          size_t whysz);
/* The fabric's switch tree from dir/topology.txt + dir/hosts.txt with the
 * uplinks measured in uplink.csv (none measured: fab->topology stays NULL);
 * lines on info say what was measured. */
int calib_fill_topology(const calib_run *r, const calib_fit *f, ct_fabric *fab, FILE *info);
/* The fabric entry from the fit (fab already named by admin_new_fabric). */
/* 1 when the fabric written gets the TCP share for its patterns:
 * --pattern-model tcpshare, or left to its default with --incast on a
 * partition whose nodes span several leaf switches (the uplink step
 * measured; doc/multiswitch.md, "The TCP share"). */
int calib_writes_tcpshare(const calib_args *a, const calib_run *r);
/* 1 when the fabric written gets the duplex fair share for its patterns:
 * fitted, and --pattern-model is duplex or left to its default (and the
 * default is not the TCP share). */
int calib_writes_duplex(const calib_args *a, const calib_run *r, const calib_fit *f);
/* The token bucket written (p2p.bucket_bytes, bytes): the one the 2 x 1
 * exchange got after the refill step's idle where measured (session 31),
 * else the ping-pong's burst; the report prints the same. */
double calib_bucket(const calib_fit *f);
/* The 2 x 1 exchange's time per byte over the ping-pong's (our check,
 * session 49): 1 + delta + duplex_long (ct_duplex_fit's long_delta, the slope
 * beyond m_L, 0 where it was not fitted); 0 without a duplex fit. A ping-pong
 * back to back on a link shaped by a token bucket of B bytes lets each
 * direction refill while the other sends, so a message of m <= 2B takes about
 * m / 2r one way: the ping-pong reads up to twice the line rate r, the
 * exchange (both directions at once) about r, and the ratio nears 2. Where
 * the ping-pong reads the line it is 1 + delta, the TCP duplex coupling.
 * calibrate warns at CALIB_EXCHANGE_RATIO_WARN. Every kept run of the
 * accuracy matrix recalibrated with `calibrate --from RAW --incast` (session
 * 49): at most 1.23 on the 380 with a bucket of 256 KiB or less, 1.48-1.81
 * on the four with 1 MiB at 1 Gbit/s (their ping-pongs read 197-229 MB/s on a
 * 125 MB/s line) and 1.70 on the one with 576 KiB; doc/accuracy-notes.md,
 * "Session 49". */
#define CALIB_EXCHANGE_RATIO_WARN 1.4
double calib_exchange_ratio(const calib_fit *f);
int calib_fill_fabric(const calib_args *a, const calib_run *r, const calib_fit *f,
                      ct_fabric *fab);
/* Output files: signature YAML (--out, else stdout), --plot SVG, --points
 * CSV, each through a temporary file renamed into place. */
typedef struct calib_files {
    admin_atomic out, svg, points;
} calib_files;
/* ADMIN_OK, ADMIN_INVALID or CALIB_INTERRUPTED; whatever was not committed
 * is dropped by calib_files_abort. */
int calib_write(const calib_args *a, const calib_run *r, const calib_fit *f, ct_fabric *fab,
                calib_files *w, FILE *info);
void calib_files_abort(calib_files *w);

#endif
