/* libFuzzer harness for the parsers of Slurm's job geometry strings, read
 * by the plugin from the environment of every srun: the compressed CPU
 * list (SLURM_JOB_CPUS_PER_NODE, "4(x2),3,1(x5)") and the host list
 * (SLURM_JOB_NODELIST, "rack[1-2]-n[01-16]"). The input is split at its
 * first NUL (CPU list before, host list after). Checks: never crash, leak
 * or run long; refusals leave the allocation empty and carry a message; an
 * accepted CPU list has 1..CT_ALLOC_MAX_NODES nodes of 1..CT_ALLOC_MAX_CPUS
 * CPUs, and survives re-compression (printed back and parsed again it is
 * the same allocation); an accepted host list counts at least one host and,
 * up to 4,096 hosts, expands (ctslurm_expand_hosts: the plugin's switch
 * tree, contention-admin simulate --nodelist) to exactly that many
 * non-empty names -- or, for a list over 255 characters, may be refused
 * with a message (a name longer than that) -- and is refused with a
 * message when given one host fewer as its cap. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/layout.h"
#include "ctslurm/slurmfmt.h"

/* Slurm's compressed form of a CPU list, written independently of the
 * parser: runs of equal counts as N(xR). */
static char *compress_cpus(const ct_alloc *a)
{
    size_t cap = (size_t)a->nnodes * 24 + 1;
    char *s = malloc(cap);
    if (!s)
        abort();
    size_t len = 0;
    s[0] = '\0';
    for (int32_t i = 0; i < a->nnodes;) {
        int32_t j = i;
        while (j < a->nnodes && a->cpus[j] == a->cpus[i])
            j++;
        int n = j - i > 1 ? snprintf(s + len, cap - len, "%s%d(x%d)", i ? "," : "", (int)a->cpus[i],
                                     (int)(j - i))
                          : snprintf(s + len, cap - len, "%s%d", i ? "," : "", (int)a->cpus[i]);
        len += (size_t)n;
        i = j;
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 2);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    buf[size + 1] = '\0';
    const char *cpus = buf;
    const char *hosts = buf + strlen(buf) + 1;
    if ((size_t)(hosts - buf) > size)
        hosts = buf + size + 1; /* no NUL: an empty host list */

    ct_alloc a;
    ct_err err;
    if (ctslurm_parse_cpus_per_node(cpus, &a, &err) < 0) {
        if (!err.msg[0] || a.nnodes != 0 || a.cpus)
            abort();
    } else {
        if (a.nnodes < 1 || a.nnodes > CT_ALLOC_MAX_NODES)
            abort();
        for (int32_t i = 0; i < a.nnodes; i++)
            if (a.cpus[i] < 1 || a.cpus[i] > CT_ALLOC_MAX_CPUS)
                abort();
        char *again = compress_cpus(&a);
        ct_alloc b;
        if (ctslurm_parse_cpus_per_node(again, &b, &err) < 0 || b.nnodes != a.nnodes ||
            memcmp(a.cpus, b.cpus, (size_t)a.nnodes * sizeof *a.cpus) != 0) {
            fprintf(stderr, "'%s' re-compressed as '%s' reads differently\n", cpus, again);
            abort();
        }
        ct_alloc_free(&b);
        free(again);
        ct_alloc_free(&a);
    }
    int64_t n = -1;
    if (ctslurm_count_hosts(hosts, &n, &err) == 0) {
        if (n < 1)
            abort();
        if (n <= 4096) {
            char **names = NULL;
            int64_t k = -1;
            int rc = ctslurm_expand_hosts(hosts, n, &names, &k, &err);
            if (rc < 0 && strlen(hosts) > 255 && err.msg[0] && !names)
                goto refused; /* a name no expansion of a shorter list reaches */
            if (rc < 0 || k != n) {
                fprintf(stderr, "'%s' counts %lld hosts but expands to %lld (%s)\n", hosts,
                        (long long)n, (long long)k, err.msg);
                abort();
            }
            for (int64_t i = 0; i < k; i++)
                if (!names[i] || !names[i][0])
                    abort();
            ctslurm_hosts_free(names, k);
            err.msg[0] = '\0';
            if (ctslurm_expand_hosts(hosts, n - 1, &names, &k, &err) == 0 || names || !err.msg[0])
                abort();
        }
    refused:;
    } else if (!err.msg[0]) {
        abort();
    }
    free(buf);
    return 0;
}
