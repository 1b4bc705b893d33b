/* Host names for a layout and the SLURM_HOSTFILE it is launched with (one
 * host name per task, in task order: srun -m arbitrary reads line i as the
 * node of task i). Used by `score --hostfile-out`; host lists are expanded
 * by libslurm. */
#include <errno.h>
#include "slurm_compat.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admin.h"
#include "ctslurm/slurmfmt.h"

void admin_hosts_free(char **v, int64_t n)
{
    for (int64_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* Slurm's own host-list expansion (libslurm), as topology import uses. */
int admin_expand_hosts(const char *list, int64_t max, char ***out, int64_t *n, char *err,
                       size_t errsz)
{
    *out = NULL;
    *n = 0;
    /* counted first without expanding (slurmfmt, the plugin's own reader of
     * SLURM_JOB_NODELIST): libslurm builds every name of a list before it
     * can count them, so "x[16-211][16-4231]" (826,336 names) took it more
     * than 10 s and x[1-99999][1-99999] would take the memory (found by
     * tests/fuzz/fuzz_topology.c) */
    int64_t counted;
    ct_err ce;
    if (ctslurm_count_hosts(list, &counted, &ce) < 0) {
        snprintf(err, errsz, "%s", ce.msg); /* names the list, what and what is accepted */
        return -1;
    }
    if (counted > max) {
        snprintf(err, errsz, "%lld hosts, more than %lld", (long long)counted, (long long)max);
        return -1;
    }
    ct_hostlist hl = slurm_hostlist_create(list);
    int count = hl ? slurm_hostlist_count(hl) : 0;
    if (count < 1) {
        if (hl)
            slurm_hostlist_destroy(hl);
        snprintf(err, errsz, "not a Slurm host list (accepted: names and ranges such as "
                             "tux[0-3,12])");
        return -1;
    }
    if (count > max) {
        slurm_hostlist_destroy(hl);
        snprintf(err, errsz, "%d hosts, more than %lld", count, (long long)max);
        return -1;
    }
    char **v = calloc((size_t)count, sizeof *v);
    char *h;
    int64_t k = 0;
    while (v && k < count && (h = slurm_hostlist_shift(hl))) {
        v[k] = strdup(h);
        free(h);
        if (!v[k])
            break;
        k++;
    }
    slurm_hostlist_destroy(hl);
    if (!v || k != count) {
        admin_hosts_free(v, k);
        snprintf(err, errsz, "out of memory expanding %d host names", count);
        return -1;
    }
    *out = v;
    *n = k;
    return 0;
}

int admin_write_hostfile(const char *cmd, const char *path, const int32_t *node_of, int32_t ntasks,
                         char *const *hosts)
{
    /* 0644: a hostfile is read by srun as the user */
    admin_atomic w;
    if (admin_atomic_open(&w, path, 0644) < 0)
        return admin_fail(cmd, "%s: cannot create a temporary file beside it: %s", path,
                          strerror(errno));
    int bad = 0;
    for (int32_t t = 0; t < ntasks; t++)
        bad |= fprintf(w.f, "%s\n", hosts[node_of[t]]) < 0;
    if (bad) {
        admin_atomic_abort(&w);
        return admin_fail(cmd, "%s: cannot write: %s", path, strerror(errno));
    }
    if (admin_atomic_commit(&w, NULL) < 0 && !w.renamed)
        return admin_fail(cmd, "%s: cannot write: %s", path, strerror(errno));
    return ADMIN_OK;
}
