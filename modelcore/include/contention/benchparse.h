/* Benchmark outputs -> fit samples (for `contention-admin fit`).
 *
 * Formats, detected from the text:
 *   - this project's CSV (what bench/mpi/ct-mpibench prints): a header line
 *     naming the columns, in any order,
 *       benchmark,tasks,size_bytes,t_avg_s[,t_min_s][,nodes][,tasks_per_node][,detail]
 *     benchmark is pingpong or alltoall (conflict and pattern rows are
 *     skipped, detail is ignored); size_bytes is the message size per
 *     destination; t_avg_s the average time in seconds (ping-pong: one-way,
 *     i.e. half the round trip). Tasks per node: the `tasks_per_node` and/or
 *     `nodes` columns (they must agree), else a `# tasks_per_node: K` comment
 *     line, else the caller's default, else one task per node;
 *   - OSU micro-benchmarks: osu_latency (one-way latency in us), osu_bw (MB/s,
 *     10^6 bytes/s), osu_alltoall (average latency in us per size); OSU output
 *     does not say how many processes ran, so osu_alltoall needs a
 *     `# tasks: N` line (optionally `# tasks_per_node: K`) or the caller's default;
 *   - Intel MPI Benchmarks (IMB-MPI1) PingPong and Alltoall blocks, each under
 *     `# Benchmarking NAME` and `# #processes = N`; other benchmarks' blocks are
 *     skipped.
 * Errors are "NAME:LINE: what is wrong (what is accepted)".
 */
#ifndef CONTENTION_BENCHPARSE_H
#define CONTENTION_BENCHPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"
#include "contention/fit.h"

#define CT_BENCH_MAX_BYTES (64u << 20) /* larger inputs are refused */
#define CT_BENCH_MAX_SAMPLES 1000000

typedef enum ct_bench_format {
    CT_BENCH_UNKNOWN = 0,
    CT_BENCH_CSV,
    CT_BENCH_OSU_LATENCY,
    CT_BENCH_OSU_BW,
    CT_BENCH_OSU_ALLTOALL,
    CT_BENCH_IMB,
} ct_bench_format;

/* One streaming-bandwidth measurement (osu_bw): m bytes at bw bytes/s. */
typedef struct ct_bw_sample {
    double m;
    double bw;
} ct_bw_sample;

/* Samples gathered from one or more inputs (parsing appends). */
typedef struct ct_bench_data {
    ct_p2p_sample *p2p; /* one-way ping-pong times */
    size_t np2p, cap_p2p;
    ct_bw_sample *bw;
    size_t nbw, cap_bw;
    ct_a2a_sample *a2a;
    size_t na2a, cap_a2a;
} ct_bench_data;

/* What to assume when an input does not say (0 = no assumption). */
typedef struct ct_bench_defaults {
    int32_t tasks;          /* osu_alltoall process count */
    int32_t tasks_per_node; /* Alltoall inputs; 0 means one task per node */
} ct_bench_defaults;

/* The format of a text, or CT_BENCH_UNKNOWN. */
ct_bench_format ct_bench_detect(const char *buf, size_t len);
/* "csv", "osu_latency", "osu_bw", "osu_alltoall", "imb", "unknown". */
const char *ct_bench_format_name(ct_bench_format f);

/* Parse buf (format detected) and append its samples to out. `def` may be
 * NULL. On error nothing is appended, -1 is returned with a line-numbered
 * message, and out keeps what it held. *fmt (may be NULL) gets the format. */
int ct_bench_parse(const char *name, const char *buf, size_t len, const ct_bench_defaults *def,
                   ct_bench_data *out, ct_bench_format *fmt, ct_err *err);
/* Same, reading path. */
int ct_bench_parse_file(const char *path, const ct_bench_defaults *def, ct_bench_data *out,
                        ct_bench_format *fmt, ct_err *err);
void ct_bench_free(ct_bench_data *d);

/* How a ct-mpibench output's ranks waited (bench/mpi/ct_mpibench.c, session
 * 34): its line "# wait: busy (...): WHY" or "# wait: polled (...): WHY". */
enum { CT_WAIT_BUSY, CT_WAIT_POLLED, CT_WAIT_OTHER };
/* line (NUL-terminated, a trailing newline allowed): -1 when it is not a
 * wait line, else CT_WAIT_BUSY, CT_WAIT_POLLED or CT_WAIT_OTHER (a wait line
 * of another kind, e.g. "simulated"), with WHY (the text after "): ", up to
 * the line's end; "" when absent) in why[whysz], non-printable bytes as
 * '?', cut to fit. */
int ct_bench_wait_line(const char *line, char *why, size_t whysz);

/* The TCP congestion control of a ct-mpibench output's nodes (session 61):
 * its line "# tcp: NAME (...)", NAME what every rank's node defaulted to
 * (net.ipv4.tcp_congestion_control: cubic, bbr, ...) or "mixed" where they
 * differed. line as ct_bench_wait_line's: -1 when it is not a tcp line, else
 * 0 with NAME in cc[ccsz] (lower-case letters, digits and '_' only, up to
 * the first other byte; "" when none), cut to fit. */
int ct_bench_tcp_line(const char *line, char *cc, size_t ccsz);

#endif
