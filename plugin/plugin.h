/* Internal interface of contention.so, shared by its files.
 *
 * Only spank.c includes <slurm/spank.h>: config.c (plugstack.conf
 * arguments), options.c (option values and srun's command line) and decide.c
 * (the srun decision) are plain C over modelcore, so the unit tests compile
 * them without Slurm (tests/unit/test_plugin_*.c).
 */
#ifndef CONTENTION_PLUGIN_H
#define CONTENTION_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "contention/error.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/signatures.h"

#define CTP_PATH_MAX 4096
#define CTP_PATTERN_MAX 4200
#define CTP_MAX_PARTITION_FABRICS 64
#define CTP_MSG_MAX 1024

/* --contention=MODE and plugstack.conf default=MODE */
typedef enum ctp_mode {
    CTP_MODE_OFF = 0,   /* nothing at all */
    CTP_MODE_AUTO,      /* score block and cyclic, launch with the faster */
    CTP_MODE_REPORT,    /* score and say so, change nothing */
    CTP_MODE_BLOCK,     /* force block */
    CTP_MODE_CYCLIC,    /* force cyclic */
    CTP_MODE_OPTIMIZED, /* force the searched placement (placement.c) */
} ctp_mode;

#define CTP_MODES_ACCEPTED "auto, block, cyclic, off, report, optimized"

/* ---- options.c: option values ---- */

/* Parse a mode name; the message lists the accepted names. */
int ctp_mode_parse(const char *s, ctp_mode *m, ct_err *err);
const char *ctp_mode_name(ctp_mode m);
/* --contention-pattern: a ct_pattern_parse name. */
int ctp_pattern_check(const char *s, ct_err *err);
/* --contention-size: bytes with K/M/G suffixes, > 0. */
int ctp_size_parse(const char *s, double *bytes, ct_err *err);
/* srun's --het-group value ("1", "[1]", "0,2", "1-3"): 0 when it names one
 * component (*comp), 1 when several (*comp = the first), -1 (err) when it is
 * not a set of indices below 128 as srun reads it. */
int ctp_het_group_parse(const char *s, int *comp, ct_err *err);

/* The Slurm releases whose srun command line the plugin can read (the
 * release running is known in slurm_spank_init: S_SLURM_VERSION). */
typedef enum ctp_slurm_version {
    CTP_SLURM_22_05 = 0,
    CTP_SLURM_23_02,
    CTP_SLURM_23_11,
    CTP_SLURM_24_05,
    CTP_SLURM_24_11,
    CTP_SLURM_25_05,
    CTP_SLURM_25_11,
    CTP_SLURM_26_05,
    CTP_SLURM_NVERSIONS,
} ctp_slurm_version;
#define CTP_SLURM_KNOWN "22.05, 23.02, 23.11, 24.05, 24.11, 25.05, 25.11, 26.05"

/* "22.05.8" -> CTP_SLURM_22_05; any other release is refused (message
 * names it and lists the known ones). */
int ctp_slurm_version_parse(const char *s, ctp_slurm_version *v, ct_err *err);
const char *ctp_slurm_version_name(ctp_slurm_version v);
/* 1: srun of that release takes -c from SLURM_CPUS_PER_TASK (23.11 on);
 * 0: from SRUN_CPUS_PER_TASK (22.05, 23.02). */
int ctp_srun_reads_cpus_per_task(ctp_slurm_version v);

/* What srun's own command line says (read from /proc/self/cmdline in
 * slurm_spank_init, before srun has parsed it). */
typedef struct ctp_srun_args {
    int ok;                 /* 1: every option up to the command was understood */
    char why[160];          /* when !ok: what stopped the scan */
    int has_ntasks;
    int32_t ntasks;
    int has_cpt;
    int32_t cpt;
    int has_nodes;
    int32_t nodes_min, nodes_max;   /* -N min[-max]; max 0 = same as min */
    int has_dist;
    char dist[64];          /* -m value */
    int has_ntpn;
    int32_t ntpn;           /* --ntasks-per-node */
    char unsupported[48];   /* first option changing the step's nodes or CPUs we do not model */
    int interactive;        /* --interactive (the use_interactive_step shell) */
    int het_step;           /* a lone ':': a heterogeneous step (ok is then 0) */
    int overlap;            /* --overlap */
    int has_het_group;
    char het_group[32];     /* --het-group (--pack-group) value, as given */
    int has_clusters;
    char clusters[64];      /* -M/--clusters value, as given ("?" if longer) */
    ctp_slurm_version version; /* the option table used */
    uint32_t release;       /* the running release, CT_SLURM_VERSION (layout.h); 0: unknown */
    int verbose;            /* count of -v */
    int quiet;              /* -Q */
    int has_mode, has_pattern, has_size;
    char mode[64];          /* --contention */
    char pattern[CTP_PATTERN_MAX]; /* --contention-pattern */
    char size[64];          /* --contention-size */
    /* Not from the command line: other steps of the job running when srun
     * decides, as slurmctld lists them (spank.c, busy_steps()); 0 when none
     * or not asked. Without --overlap the new step gets only the CPUs they
     * leave free, which the allocation variables do not tell. */
    int32_t busy_steps;
    char busy_ids[48];      /* their ids, comma-separated (truncated) */
    /* Nor this: the TCP congestion control of the node srun runs on
     * (net.ipv4.tcp_congestion_control, spank.c, node_tcp_cc()) when that is
     * one of the job's nodes (SLURMD_NODENAME set), "" when not read. A
     * fabric calibrated under another one says so in the decision's line
     * (signatures.h tcp_cc; session 62). */
    char node_tcp_cc[CT_TCP_CC_MAX];
} ctp_srun_args;

/* Scan srun's argv (argv[0] = srun) up to the command, the way srun's
 * getopt_long("+...") does: short option clusters, attached or separate
 * arguments, unique prefixes of long options. An option the scan does not
 * know (e.g. another SPANK plugin's) stops it with ok = 0, because its
 * argument count is unknown. */
void ctp_srun_args_parse_for(ctp_slurm_version v, int argc, char *const *argv,
                             ctp_srun_args *out);
/* The same with Slurm 22.05's table. */
void ctp_srun_args_parse(int argc, char *const *argv, ctp_srun_args *out);
/* Split a NUL-separated command line (the bytes of /proc/PID/cmdline) into
 * a NULL-terminated argv (free with ctp_argv_free). */
int ctp_split_cmdline(const char *buf, size_t len, int *argc, char ***argv, ct_err *err);
/* Read a NUL-separated command line file (/proc/self/cmdline) into a
 * NULL-terminated argv (free with ctp_argv_free). */
int ctp_read_cmdline(const char *path, int *argc, char ***argv, ct_err *err);
void ctp_argv_free(int argc, char **argv);

/* ---- config.c: plugstack.conf arguments ---- */

typedef struct ctp_part_fabric {
    char partition[CT_NAME_MAX];
    char fabric[CT_NAME_MAX];
} ctp_part_fabric;

typedef struct ctp_config {
    char signatures[CTP_PATH_MAX]; /* "" = none configured */
    ctp_mode default_mode;         /* default: off */
    char pattern[CTP_PATTERN_MAX]; /* default: alltoall */
    double size;                   /* bytes, default 1 MiB */
    size_t nparts;
    ctp_part_fabric parts[CTP_MAX_PARTITION_FABRICS];
    char fabric[CT_NAME_MAX];      /* default fabric override, "" = the file's default */
    int strict;                    /* 1: a failure aborts srun instead of failing open */
    double min_gain;               /* auto launches `optimized` only past this gain (0.10;
                                    * INFINITY = never) */
    double min_switch;             /* auto leaves Slurm's default, block, for cyclic or
                                    * plane only past this predicted gain (0.05; 0 = any
                                    * gain; INFINITY = never) */
    int budget_ms;                 /* decision time budget (default CTP_BUDGET_MS) */
    char log[CTP_PATH_MAX];        /* "" = no decision log, "syslog", or an absolute path */
    size_t trace_max_bytes;        /* trace:FILE size cap (default CTP_TRACE_MAX_BYTES) */
    size_t trace_max_events;       /* trace:FILE event cap, expanded (CTP_TRACE_MAX_EVENTS) */
} ctp_config;

/* Bounds on srun's launch path (issue 10, defect 4) */
#define CTP_BUDGET_MS 200
#define CTP_BUDGET_MS_MAX 60000
/* a recording of a 1,024-node x 64-task stencil job (one iteration, 18 MB,
 * 786 k events, 4.0 M once its collectives are expanded) fits with room to
 * spare and is decided within the default budget_ms (bench_trace_replay,
 * doc/recorder.md); what is larger is bounded by budget_ms in any case */
#define CTP_TRACE_MAX_BYTES ((size_t)32 << 20)
/* report mode with -m arbitrary: the user's SLURM_HOSTFILE is priced when it
 * is a regular file of at most this many bytes (srun reads the same file) */
#define CTP_HOSTFILE_MAX_BYTES ((size_t)16 << 20)
#define CTP_TRACE_MAX_EVENTS ((size_t)8000000)

#define CTP_CONFIG_KEYS                                                                            \
    "signatures, default, pattern, size, partition_fabric, fabric, strict, budget_ms, "            \
    "trace_max_bytes, trace_max_events, log, min_gain, min_switch"

void ctp_config_defaults(ctp_config *c);
/* Parse plugstack.conf arguments (key=value each). Unknown keys and bad
 * values are refused with a message starting "contention: plugstack.conf".
 * *c holds the defaults plus every argument before the bad one. */
int ctp_config_parse(int ac, char *const *av, ctp_config *c, ct_err *err);

/* ---- decide.c: the srun decision ---- */

typedef const char *(*ctp_getenv_fn)(const char *name, void *ctx);

typedef enum ctp_level {
    CTP_LEVEL_NONE = 0,  /* nothing to say */
    CTP_LEVEL_VERBOSE,   /* shown with srun -v */
    CTP_LEVEL_INFO,      /* shown at srun's default verbosity */
    CTP_LEVEL_WARNING,   /* fail-open warning, default verbosity */
    CTP_LEVEL_FATAL,     /* strict=yes: srun must stop */
} ctp_level;

/* What the decision log records about one srun (declog.c writes it; the
 * format is in doc/plugin.md, "Decision log"). No pointers: it crosses the
 * pipe from the decision's child process. */
#define CTP_LOG_MAX_CAND 8
typedef struct ctp_logrec {
    int32_t nodes, tasks, cpt;     /* 0 = not known */
    char cpus[128];                /* SLURM_JOB_CPUS_PER_NODE as read */
    char pattern[256];             /* "" = not known */
    double bytes;
    char fabric[64];
    int ncand;
    char cand[CTP_LOG_MAX_CAND][32];
    double pred[CTP_LOG_MAX_CAND]; /* predicted communication time, s */
    char choice[32];               /* predicted fastest, "" = not scored */
    char launched[32];             /* what the step runs: set by the plugin, the user's, or "" */
    int applied;                   /* 1: the plugin set the distribution */
    char why[24];                  /* "-" when applied by auto; else why not (doc/plugin.md) */
    /* TCP congestion control (session 63): the fabric's signature's
     * tcp_congestion_control and this node's, as srun's decision read them;
     * "" = not recorded / not read (a login node) */
    char fabric_tcp[CT_TCP_CC_MAX];
    char node_tcp[CT_TCP_CC_MAX];
} ctp_logrec;

typedef struct ctp_decision {
    ctp_mode mode;
    ctp_logrec log;
    int set_distribution;          /* 1: setenv SLURM_DISTRIBUTION=distribution */
    char distribution[32];
    char mapping[32];              /* SLURM_CONTENTION_MAPPING, "" = do not export */
    int have_slowdown;
    double slowdown;               /* SLURM_CONTENTION_PREDICTED_SLOWDOWN */
    ctp_level level;
    char message[CTP_MSG_MAX];     /* one line, starts with "contention:" */
    /* the optimized placement (placement.c): spank.c writes node_of as a
     * SLURM_HOSTFILE and sets SLURM_DISTRIBUTION=arbitrary; when it cannot,
     * ctp_decision_fallback switches to `fallback` (block or cyclic) */
    int use_hostfile;
    int32_t ntasks, nnodes;
    int32_t *node_of;              /* owned: ctp_decision_free */
    char fallback[32];
} ctp_decision;

/* Option values as they reach srun from sbatch/salloc (and srun's own
 * export to its tasks), for option NAME ("contention", "contention-pattern",
 * "contention-size"): SLURM_SPANK__SLURM_SPANK_OPTION_contention_<NAME with
 * '-' as '_'> first, then _SLURM_SPANK_OPTION_contention_<...>. */
const char *ctp_option_from_env(const char *name, ctp_getenv_fn getenv_fn, void *ctx);

/* The mode this srun runs in (command line, then sbatch/salloc's option,
 * then default=); an invalid value counts as off (srun refuses it). */
ctp_mode ctp_effective_mode(const ctp_config *cfg, const ctp_srun_args *args, ctp_getenv_fn fn,
                            void *ctx);

/* The decision for one srun, from its command line, its environment and
 * the admin's configuration. Never fails: problems become a warning (or a
 * fatal message with strict=yes) and no change. */
void ctp_decide(const ctp_config *cfg, const ctp_srun_args *args, ctp_getenv_fn getenv_fn,
                void *ctx, ctp_decision *d);
/* Frees what a decision owns (node_of). */
void ctp_decision_free(ctp_decision *d);
/* The optimized placement cannot be launched (why: one phrase): launch
 * d->fallback instead and say so in one line. */
void ctp_decision_fallback(ctp_decision *d, const char *why);

/* ---- hetjob.c: the component of a heterogeneous job a step runs on ---- */

typedef enum ctp_het_state {
    CTP_HET_NONE = 0, /* not a heterogeneous job: the view passes names through */
    CTP_HET_ONE,      /* a step on one component: the view reads that component's */
    CTP_HET_LEAVE,    /* not modelled (several components, ...): why says so */
} ctp_het_state;

typedef struct ctp_het_view {
    ctp_getenv_fn fn;  /* the environment as it is */
    void *ctx;
    ctp_het_state state;
    int size;          /* the job's components; 0 when it has one */
    int comp;          /* CTP_HET_ONE: the step's component */
    char why[240];     /* CTP_HET_LEAVE: one phrase */
    char name[128];    /* scratch: a suffixed name */
} ctp_het_view;

/* Classify the step (args: --het-group; fn/ctx: the environment). */
void ctp_het_view_init(ctp_het_view *v, const ctp_srun_args *args, ctp_getenv_fn fn, void *ctx);
/* A ctp_getenv_fn over the view (view: a ctp_het_view): with CTP_HET_ONE,
 * the allocation's variables are the component's (NAME_HET_GROUP_<n>) only,
 * SLURM_JOB_ID is the job's, and any other NAME_HET_GROUP_<n> overrides
 * NAME, as srun reads them; otherwise the environment as it is. */
const char *ctp_het_getenv(const char *name, void *view);
/* The id of the job the step belongs to: the component's own id
 * (SLURM_JOB_ID_HET_GROUP_<n>) with CTP_HET_ONE, else SLURM_JOB_ID. */
const char *ctp_het_job_id(ctp_het_view *v);

/* ---- placement.c: the optimized candidate ---- */

/* plugstack.conf min_gain= and min_switch=: "10%", "0.1" or "off" (never in auto). */
int ctp_min_gain_parse(const char *s, double *gain, ct_err *err);

typedef struct ctp_placed {
    int have;               /* the search ran */
    int explicit_layout;    /* 1: a placement other than block/cyclic is predicted best */
    char from[16];          /* its start ("tiles", "scotch", "refined", "block", ...) */
    char note[256];         /* the search's note (steps skipped by the work cap, ...) */
    double predicted_s, block_s, cyclic_s;
    double gain;            /* over the better of block and cyclic */
    int32_t ntasks, nnodes;
    int32_t *node_of;       /* explicit_layout only; ctp_placed_free */
} ctp_placed;

/* Run the placement search (ct_place_search, fixed seed) for a step, its
 * work capped at what budget_ms allows (ctp_place_work). trace: a trace
 * pattern's trace already read (the scorer's), or NULL to read it. */
int ctp_place(const ct_fabric *fab, const ct_pattern *pat, const struct ct_trace *trace,
              const ct_alloc *alloc, const struct ct_tree_map *tree, int32_t ntasks, int32_t cpt, int budget_ms,
              ctp_placed *out, ct_err *err);
/* The search's work cap for a decision budget of budget_ms: half of it at
 * CT_PLACE_WORK_PER_MS (the other half for the signature file, the scorer
 * and the fork; deterministic, unlike a clock). */
uint64_t ctp_place_work(int budget_ms);
void ctp_placed_free(ctp_placed *p);
/* 1 when the search found an explicit placement predicted faster than
 * scorer_best_s (the scorer's winner, block or cyclic): the search's own
 * gain compares it with ITS block and cyclic, which for a trace whose replay
 * the work cap skipped are screenings, not the scorer's replayed times. */
int ctp_optimized_beats(const ctp_placed *p, double scorer_best_s);
/* Write hosts[node_of[t]] on line t of a new file
 * dir/contention-hostfile.<srun pid>.XXXXXX (mode 0644); path receives its name. */
#define CTP_HOSTFILE_PREFIX "contention-hostfile."
int ctp_write_hostfile(const char *dir, const int32_t *node_of, int32_t ntasks, char *const *hosts,
                       int64_t nhosts, char *path, size_t pathsz, ct_err *err);
/* Remove the hostfiles in dir left by sruns of user uid that died before
 * removing theirs (SIGKILL, a crash): regular files named by
 * ctp_write_hostfile whose pid no longer exists and that are at least
 * CTP_HOSTFILE_STALE_S old (srun reads its hostfile within a second; the
 * age keeps a live srun in another PID namespace sharing the directory safe).
 * Looks at most CTP_HOSTFILE_SWEEP_MAX directory entries (launch path).
 * A recycled pid keeps a file until that process ends. Returns files removed. */
#define CTP_HOSTFILE_STALE_S 60
#define CTP_HOSTFILE_SWEEP_MAX 4096
int ctp_sweep_hostfiles(const char *dir, uid_t uid, time_t now);

/* ---- declog.c: the decision log ---- */

/* Who and what, known at slurm_spank_local_user_init. */
typedef struct ctp_logctx {
    long long time;   /* seconds since the epoch */
    long long job;    /* -1 = not known */
    long long step;   /* -1 = not known */
    long long uid;
    char user[64];    /* "" = not known */
} ctp_logctx;

/* One line (no newline) of the decision log for d: "contention/1 key=value
 * ... msg=TEXT". Values are %-encoded (bytes outside ! .. ~, '%'), msg is
 * the rest of the line. Returns the length, or -1 when it did not fit. */
int ctp_log_format(const ctp_decision *d, const ctp_logctx *c, char *buf, size_t n);
/* Append line + '\n' to the log configured (syslog or a regular file,
 * opened O_APPEND | O_NONBLOCK | O_NOFOLLOW); 0 or -1 (what says why). */
int ctp_log_write(const char *log, const char *line, char *what, size_t whatn);

/* ---- siteconf.c: what only slurm.conf says ---- */

/* SelectTypeParameters of the slurm.conf srun reads (slurm_conf = $SLURM_CONF
 * or NULL): 0 and the value in out, -1 when not known. */
int ctp_select_params(const char *slurm_conf, char *out, size_t n);
/* The same from a slurm.conf text (the last setting wins). */
int ctp_select_params_text(const char *text, size_t len, char *out, size_t n);
/* 1 when the comma-separated list holds word (case-insensitive). */
int ctp_has_word_ci(const char *list, const char *word);

/* ---- envmark.c: the variables the plugin sets for srun (see there) ---- */

/* setenv (value != NULL) or unsetenv (value == NULL); < 0 on failure */
typedef int (*ctp_setenv_fn)(const char *name, const char *value, void *ctx);

#define CTP_MARK_PREFIX "SLURM_CONTENTION_SET_"

/* 1 for a variable the plugin may set (SLURM_DISTRIBUTION, SLURM_HOSTFILE). */
int ctp_is_managed(const char *var);
/* srun: set VAR=value and its marker SLURM_CONTENTION_SET_VAR=value. */
int ctp_set_ours(const char *var, const char *value, ctp_setenv_fn set, void *ctx);
/* srun, before deciding: unset each managed variable equal to its marker
 * (the plugin set it in an outer srun) and every marker. Returns how many
 * variables were forgotten; note (may be NULL) names them. */
int ctp_forget_ours(ctp_getenv_fn get, ctp_setenv_fn set, void *ctx, char *note, size_t n);
/* The step's environment (remote context): unset each managed variable that
 * has a marker, and the marker. Returns how many were removed. */
int ctp_strip_step_env(ctp_getenv_fn get, ctp_setenv_fn set, void *ctx);

#endif
