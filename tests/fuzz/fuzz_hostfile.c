/* libFuzzer harness for the SLURM_HOSTFILE reader (ctslurm_parse_hostfile),
 * which contention-admin score --layout runs on a file a user names. The
 * input is the file's bytes. Checks: never crash, leak or run long; a
 * refusal reads nothing and names the file and a line; an accepted file
 * gives at most the job's tasks, each on one of the allocation's nodes, and
 * written back one name per task (the harness's own writer) it reads the
 * same. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctslurm/slurmfmt.h"

#define NTASKS 64

static char *const hosts[] = {"n1", "n2", "n10", "rack1-n01", "tux", "a"};
#define NHOSTS ((int64_t)(sizeof hosts / sizeof *hosts))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t v[NTASKS], w[NTASKS], n = -1, m = -1;
    ct_err err;
    err.msg[0] = '\0';
    if (ctslurm_parse_hostfile("fuzz.hosts", (const char *)data, size, hosts, NHOSTS, NTASKS, v,
                               &n, &err) < 0) {
        if (n != 0 || strncmp(err.msg, "fuzz.hosts: line ", 17) != 0)
            abort();
        return 0;
    }
    if (n < 0 || n > NTASKS)
        abort();
    size_t cap = (size_t)n * 16 + 1, len = 0;
    char *again = malloc(cap);
    if (!again)
        abort();
    for (int32_t t = 0; t < n; t++) {
        if (v[t] < 0 || v[t] >= NHOSTS)
            abort();
        len += (size_t)snprintf(again + len, cap - len, "%s\n", hosts[v[t]]);
    }
    if (ctslurm_parse_hostfile("again", again, len, hosts, NHOSTS, NTASKS, w, &m, &err) < 0 ||
        m != n || memcmp(v, w, (size_t)n * sizeof *v) != 0) {
        fprintf(stderr, "written back as\n%s it reads differently\n", again);
        abort();
    }
    free(again);
    return 0;
}
