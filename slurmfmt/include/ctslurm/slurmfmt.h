/* libctslurm: the string formats Slurm writes into the environment, parsed
 * for the two front ends (plugin/ and admin/). The layout rules themselves
 * are domain logic and stay in libcontention (contention/layout.h), which
 * takes plain arrays (ct_alloc) and never sees these strings.
 */
#ifndef CTSLURM_SLURMFMT_H
#define CTSLURM_SLURMFMT_H

#include <stdint.h>

#include "contention/error.h"
#include "contention/layout.h"

/* Parse Slurm's compressed CPU list, e.g. "4(x2),3,1(x5)" (the form of
 * SLURM_JOB_CPUS_PER_NODE and SLURM_TASKS_PER_NODE) into an allocation.
 * Every count must be in 1..CT_ALLOC_MAX_CPUS, every repeat >= 1, at most
 * CT_ALLOC_MAX_NODES nodes. On error *a is left empty; free with
 * ct_alloc_free. */
int ctslurm_parse_cpus_per_node(const char *spec, ct_alloc *a, ct_err *err);

/* Most digits a host-range number may have as written (n[0001-0100]: 4). */
#define CTSLURM_RANGE_DIGITS_MAX 31

/* Count the hosts in a Slurm host list such as "n[1-4,7],login2" or
 * "rack[1-2]-n[01-16]" (ranges multiply), e.g. SLURM_JOB_NODELIST. No names
 * are expanded. *count is untouched on error. */
int ctslurm_count_hosts(const char *hostlist, int64_t *count, ct_err *err);

/* Expand a Slurm host list into names, in Slurm's order: "n[1-3],x" ->
 * n1 n2 n3 x; "rack[1-2]-n[01-02]" -> rack1-n01 rack1-n02 rack2-n01
 * rack2-n02 (zero padding as written). At most max names (more is an
 * error). *names: malloc'ed array of malloc'ed strings, free with
 * ctslurm_hosts_free. On error nothing is allocated. */
int ctslurm_expand_hosts(const char *hostlist, int64_t max, char ***names, int64_t *n,
                         ct_err *err);
void ctslurm_hosts_free(char **names, int64_t n);

/* Read a SLURM_HOSTFILE (srun -m arbitrary: line after line, the node of
 * task 0, 1, ...) of len bytes into node_of[0 .. *nread - 1], each an index
 * into hosts[0 .. nhosts - 1] (the allocation's node names). The format is
 * the one srun reads (Slurm's slurm_read_hostfile, read, not copied): '#'
 * starts a comment, blank lines are skipped, a line holds comma-separated
 * names, each NAME or NAME*COUNT (COUNT tasks on NAME); surrounding blanks
 * are dropped here. As srun, reading stops after ntasks tasks (the rest of
 * the file is not read); *nread < ntasks means the file names fewer. Errors
 * name label, the line and the value: a name that is not one of hosts, a
 * bad count, an empty entry, a NUL byte. */
int ctslurm_parse_hostfile(const char *label, const char *text, size_t len, char *const *hosts,
                           int64_t nhosts, int32_t ntasks, int32_t *node_of, int32_t *nread,
                           ct_err *err);

/* The same file as an explicit layout over the nhosts nodes (hosts[k] is
 * node k): out->ntasks is what the file names, at most ntasks (a caller
 * that needs them all checks it). Errors as ctslurm_parse_hostfile's, or
 * "LABEL: ..." from ct_layout_explicit (e.g. a file naming no task); on
 * error *out is empty. Free with ct_layout_free. */
int ctslurm_hostfile_layout(const char *label, const char *text, size_t len, char *const *hosts,
                            int64_t nhosts, int32_t ntasks, ct_layout *out, ct_err *err);

#endif
