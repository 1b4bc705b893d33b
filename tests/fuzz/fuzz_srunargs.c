/* libFuzzer harness for the scan of srun's command line (plugin/options.c),
 * which srun runs on its own argv (/proc/self/cmdline) at every launch. The
 * first input byte picks the Slurm release's option table, the rest is the
 * NUL-separated command line. Checks: never crash or leak; every field is a
 * terminated string; counts recorded are positive; an option the scan
 * reports understood is taken from argv as srun's getopt would (the mode,
 * pattern and size values it returns occur verbatim in the input). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugin/plugin.h"

static void terminated(const char *s, size_t n)
{
    if (!memchr(s, '\0', n))
        abort();
}

static int in_argv(int argc, char **argv, const char *v)
{
    for (int i = 0; i < argc; i++)
        if (strstr(argv[i], v))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* one more than the known releases: the scan must refuse it cleanly */
    ctp_slurm_version v = (ctp_slurm_version)(data[0] % (CTP_SLURM_NVERSIONS + 1));
    int argc;
    char **argv;
    ct_err err;
    if (ctp_split_cmdline((const char *)data + 1, size - 1, &argc, &argv, &err) < 0)
        abort(); /* only out of memory could refuse */
    if (argv[argc] != NULL)
        abort();
    ctp_srun_args a;
    ctp_srun_args_parse_for(v, argc, argv, &a);
    terminated(a.why, sizeof a.why);
    terminated(a.dist, sizeof a.dist);
    terminated(a.unsupported, sizeof a.unsupported);
    terminated(a.mode, sizeof a.mode);
    terminated(a.pattern, sizeof a.pattern);
    terminated(a.size, sizeof a.size);
    terminated(a.het_group, sizeof a.het_group);
    terminated(a.clusters, sizeof a.clusters);
    if (v == CTP_SLURM_NVERSIONS && a.ok)
        abort();
    if (!a.ok && !a.why[0])
        abort(); /* a stop always says why */
    /* a heterogeneous step: a lone ':' was there, and it is never decided */
    int colon = 0;
    for (int i = 1; i < argc; i++)
        colon |= strcmp(argv[i], ":") == 0;
    if (a.het_step != (colon && v < CTP_SLURM_NVERSIONS) || (a.het_step && a.ok))
        abort();
    if (a.ok) {
        if ((a.has_ntasks && a.ntasks < 1) || (a.has_cpt && a.cpt < 1) ||
            (a.has_nodes && a.nodes_min < 1) || (a.has_ntpn && a.ntpn < 1))
            abort();
        if ((a.has_mode && a.mode[0] && !in_argv(argc, argv, a.mode)) ||
            (a.has_dist && a.dist[0] && !in_argv(argc, argv, a.dist)))
            abort();
        /* -M's value as given, or "?" where it was too long to keep whole */
        if (a.has_clusters && strcmp(a.clusters, "?") != 0 && a.clusters[0] &&
            !in_argv(argc, argv, a.clusters))
            abort();
    }
    /* the scan must not depend on state left by an earlier call */
    ctp_srun_args b;
    ctp_srun_args_parse_for(v, argc, argv, &b);
    if (memcmp(&a, &b, sizeof a) != 0)
        abort();
    ctp_argv_free(argc, argv);
    return 0;
}
