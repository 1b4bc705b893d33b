/* contention-admin: one entry point per subcommand (admin/cmd_<name>.c),
 * dispatched by admin/main.c, plus the helpers they share (admin/common.c).
 *
 * Every subcommand takes (argc, argv) with argv[0] = its own name, answers
 * --help, and returns an exit status: 0 ok, 1 invalid input (a bad file, a
 * failed fit, a refused install), 2 usage error (unknown option, missing
 * argument). Messages go to stderr, prefixed "contention-admin NAME: ".
 */
#ifndef CONTENTION_ADMIN_H
#define CONTENTION_ADMIN_H

#include <getopt.h>
#include <stdint.h>
#include <limits.h>
#include <signal.h>
#include <sys/types.h>
#include <stdio.h>

#include "contention/p2p.h"
#include "contention/signatures.h"

#define ADMIN_OK 0
#define ADMIN_INVALID 1
#define ADMIN_USAGE 2

/* Installed signature file; meson sets it from the slurm_confdir option. */
#ifndef CT_DEFAULT_SIGNATURES
#define CT_DEFAULT_SIGNATURES "/etc/slurm/contention/signatures.yaml"
#endif

int cmd_validate(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* "contention-admin CMD: <msg>\nTry 'contention-admin CMD --help'." -> 2 */
int admin_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "contention-admin CMD: <msg>" -> 1 */
int admin_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The getopt '?' case: name the option at fault and the accepted ones. */
int admin_bad_option(const char *cmd, int argc, char **argv, const char *accepted);

/* One subcommand's option loop (getopt_long over its own table). --help,
 * --config, --fabric and --json, when the table has them (found by long
 * name, so each subcommand keeps its own short letters), are handled here;
 * so is an unknown option or a missing value (admin_bad_option). */
typedef struct admin_opts {
    const char *cmd;               /* subcommand name, for messages */
    const char *shortopts;         /* getopt_long's optstring */
    const struct option *longopts; /* its table, {NULL, 0, NULL, 0} last */
    const char *accepted;          /* the options named on an unknown one */
    void (*help)(void);            /* prints the --help text to stdout */
    const char *config;            /* --config PATH; the caller sets the default */
    const char *fabric;            /* --fabric NAME, or NULL */
    int json;                      /* --json given */
    int status;                    /* exit status when admin_next_opt returns -1 */
    int begun;                     /* internal: getopt reset done */
} admin_opts;

/* The next option the subcommand handles itself (its getopt value); 0 at the
 * end of the options (optind is the first argument); -1 when the subcommand
 * should return o->status (ADMIN_OK after --help, ADMIN_USAGE on a bad one). */
int admin_next_opt(admin_opts *o, int argc, char **argv);

/* `trace:NAME` -> `trace:PATH` when NAME is a profile of this user
 * (ct_trace_resolve with XDG_DATA_HOME and HOME); returns 0 when out was
 * written, -1 to keep pat as it is. */
int admin_resolve_trace_pattern(const char *pat, char *out, size_t n);

/* Load a signature file, printing the loader's message on failure. */
int admin_load(const char *cmd, const char *path, ct_sigfile *sf);
/* Fabric by name (NULL name: the file's default), or an error naming the
 * fabrics the file defines. */
const ct_fabric *admin_pick_fabric(const char *cmd, const ct_sigfile *sf, const char *path,
                                   const char *name);

/* admin_load then admin_pick_fabric: the fabric, or NULL with the message
 * printed and *sf freed and zeroed. */
const ct_fabric *admin_load_fabric(const char *cmd, const char *path, const char *name,
                                   ct_sigfile *sf);
/* A new fabric named NAME (fit, calibrate --fabric): initialised, its name
 * checked as the signature loader checks it. ADMIN_OK, or ADMIN_USAGE with
 * the message printed. */
int admin_new_fabric(const char *cmd, const char *name, ct_fabric *fab);

/* Integer option in [lo, hi]; prints a usage message on failure. */
int admin_int_opt(const char *cmd, const char *opt, const char *s, long lo, long hi, long *out);
/* Percentage option: a number >= 0 and below `below` (INFINITY: no bound). */
int admin_pct_opt(const char *cmd, const char *opt, const char *s, double below, double *pct);
/* Size option with K/M/G suffixes (ct_parse_size). */
int admin_size_opt(const char *cmd, const char *opt, const char *s, double *bytes);

/* One-line summary of a fabric (validate, install). */
void admin_fabric_line(FILE *f, const ct_fabric *fab);
/* A JSON string literal. */
void admin_json_string(FILE *f, const char *s);
/* A JSON number (finite values only; anything else prints null). */
void admin_json_number(FILE *f, double v);
/* ct_format_time / ct_format_bytes (contention/units.h) at the 4 significant
 * digits every admin table uses. Seconds: "12.3 us", "4.93 ms", "1.25 s". */
const char *admin_fmt_time(double s, char *buf, size_t sz);
/* what an exchange step c (ct_fabric.exchange) is: its sign's meaning */
const char *admin_exchange_what(double c);
/* The same for an Alltoall's per-call step (alltoall.h). */
const char *admin_call_what(double c);
/* A p2p segment's bandwidth as printed: "11.94 MB/s", or "none (flat: ...)"
 * for a segment the fit held at CT_P2P_FLAT_BETA (p2p.h). */
const char *admin_seg_bw(double beta, char *buf, size_t sz);
/* The flows term's g(f) as printed beside gamma_flows (alltoall.h): "(f-1)"
 * for the line (a = 0 or 1), "(f^0.5-1)/0.5" for a = 0.5. */
const char *admin_flows_g(double a, char *buf, size_t sz);
/* `topology import`'s reading (cmd_topology.c): FILE's TEXT (LEN bytes, no
 * NUL byte) as a topology.conf, or as a topology.yaml tree (is_yaml; WANT
 * its name or NULL), every uplink at OVERSUB (> 0), else UPLINK_BW bytes/s
 * (> 0), else its switch's LinkSpeed x UNIT, resolved against NICs of
 * NIC_BW bytes/s into T, which the caller frees (ct_topology_free) either
 * way. ADMIN_OK, or ADMIN_INVALID after one message naming FILE:LINE:COL.
 * The command calls it, and so does the fuzz harness
 * (tests/fuzz/fuzz_topology.c). */
int admin_topology_read(const char *file, const char *text, size_t len, int is_yaml,
                        const char *want, double oversub, double uplink_bw, double unit,
                        double nic_bw, ct_topology *t);
/* "k = K, f = F" (the set ones) of a signature's k_max, f_max (alltoall.h). */
const char *admin_fit_range(const ct_a2a_sig *s, char *buf, size_t sz);
/* "gamma 1.002 +- 0.012, gamma_incast 0.0972 +- 0.031, call step 1.361 ms +- 420 us"
 * (the terms the signature has or the fit could use) from a robust fit's
 * jackknife (fit_alltoall.h); "" when it has none. */
struct ct_a2a_fit_report;
const char *admin_jackknife(const struct ct_a2a_fit_report *rep, const ct_a2a_sig *s, char *buf,
                            size_t sz);
/* "model scatter: X % beyond the repetitions' spread ..." of a robust fit
 * (fit_alltoall.h: model_scatter > 0). */
const char *admin_scatter_line(const struct ct_a2a_fit_report *rep, char *buf, size_t sz);
/* Bytes with a binary suffix: "2 KiB", "1.5 MiB", "300 B". */
const char *admin_fmt_bytes(double b, char *buf, size_t sz);
/* The WARNING text for a point-to-point curve of nseg segments (fitted
 * with at most max_seg) that misses its own ping-pong by miss at at_m bytes
 * (ct_p2p_worst_miss): one message for calibrate and fit; refit: the
 * options that fit a bending curve, advised when max_seg is 1. Returns buf. */
/* Session 50: where the ping-pong samples s (n) show a token bucket that
 * refills each direction while the other sends (ct_p2p_refill_read, with
 * the fitted curve's first segment's alpha as the latency), the WARNING's text
 * in buf, naming the bucket and line rate that bend gives, the rate `used`
 * reads (its first segment) and burst, then `remedy`; NULL (buf "")
 * otherwise. */
const char *admin_p2p_bend_note(const ct_p2p_sample *s, size_t n, const ct_p2p_curve *fitted,
                                const ct_p2p_curve *used, double burst, const char *remedy,
                                char *buf, size_t sz);
/* The WARNING text, calibrate's and fit's, where the 2 x 1 Alltoall's
 * smallest saturated size took no longer than its smallest size
 * (ct_a2a_on_call_floor, saturated from min_m), then `remedy`; NULL (buf "")
 * otherwise. */
const char *admin_a2a_floor_note(const ct_a2a_sample *a2a, size_t n, double min_m,
                                 const char *remedy, char *buf, size_t sz);
/* "the 2x1 Alltoall at M took T where M0 took T0 (not 1.10 x more)": the
 * floor ct_a2a_on_call_floor found, as calibrate's lines say it */
struct ct_a2a_call_floor;
const char *admin_a2a_floor_what(const struct ct_a2a_call_floor *f, char *buf, size_t sz);
const char *admin_p2p_miss_note(size_t nseg, size_t max_seg, double miss, double at_m,
                                double threshold_pct, const char *refit, char *buf, size_t n);
/* ", spread up to S %, worst miss E x its spread" for a piecewise ping-pong
 * segment whose samples know their repetitions' spread (p2p.h), else "". */
const char *admin_seg_spread(const ct_p2p_seg_diag *d, char *buf, size_t sz);

/* Expand a Slurm host list ("n[1-4,7],login2") into at most max names with
 * libslurm (admin/hostfile.c); err receives what is wrong. Free with
 * admin_hosts_free. */
int admin_expand_hosts(const char *list, int64_t max, char ***out, int64_t *n, char *err,
                       size_t errsz);
void admin_hosts_free(char **v, int64_t n);
/* `scontrol show topology` output -> a resolved tree (cmd_topology.c): only
 * leaves keep their Nodes=, every uplink starts at oversubscription 1 (the
 * caller sets measured capacities and resolves again). label names the text
 * in messages (LABEL:LINE:COL) and becomes t->source. Returns ADMIN_*. */
int admin_topology_from_scontrol(const char *label, const char *text, double nic_bw,
                                 ct_topology *t);
/* Write a SLURM_HOSTFILE (hosts[node_of[t]] on line t) to path, through a
 * temporary file renamed into place; messages name cmd. Returns ADMIN_*. */
int admin_write_hostfile(const char *cmd, const char *path, const int32_t *node_of, int32_t ntasks,
                         char *const *hosts);

/* Whole input file (ct_read_file, at most max bytes) into a malloc'ed, NUL-
 * terminated *buf; on failure the reader's message is printed. */
int admin_read_file(const char *cmd, const char *path, size_t max, const char *accepted,
                    char **buf, size_t *len);

/* Atomic replacement of a file: the content goes to a temporary file beside
 * PATH (DIR/.BASE.XXXXXX, same file system), which commit fsyncs, renames
 * over PATH and follows with an fsync of DIR; a reader sees the old file or
 * the new one, never a partial one. */
typedef struct admin_atomic {
    FILE *f;             /* write the content here */
    char tmp[PATH_MAX];  /* the temporary file, "" when there is none */
    char path[PATH_MAX]; /* the file replaced */
    int renamed;         /* set once PATH holds the new content */
} admin_atomic;
/* Create the temporary file with permissions `mode`. -1 with errno set. */
int admin_atomic_open(admin_atomic *a, const char *path, mode_t mode);
/* Flush, fsync, rename over PATH, fsync the directory. -1 with errno set
 * when any step fails: before the rename (a->renamed == 0) the temporary
 * file is removed and PATH is untouched. When *cancel is set (a signal
 * arrived) nothing is renamed. cancel may be NULL. */
int admin_atomic_commit(admin_atomic *a, const volatile sig_atomic_t *cancel);
/* Drop the temporary file, if any (safe after commit, and twice). */
void admin_atomic_abort(admin_atomic *a);

#endif
