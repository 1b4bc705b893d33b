/* contention-admin score: the plugin's decision table, offline. Same code
 * path as the plugin (ct_score), fed from the command line instead of
 * Slurm's environment. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "admin.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/score.h"
#include "ctslurm/slurmfmt.h"

#define CMD "score"

static void help(void)
{
    printf(
        "Usage: contention-admin score --cpus-per-node SPEC --ntasks N --pattern P --size BYTES\n"
        "           [--fabric NAME] [--cpus-per-task C] [--plane K] [--random SEED]\n"
        "           [--config PATH] [--json]\n\n"
        "Score the task mappings the plugin considers (block, cyclic, and plane=K or a\n"
        "seeded random layout when asked) for a job, as the plugin would at launch, and\n"
        "print the predicted communication time of each, best first.\n\n"
        "  --cpus-per-node SPEC  the allocation in Slurm's compressed form, as in\n"
        "                        SLURM_JOB_CPUS_PER_NODE, e.g. 4(x2),3\n"
        "  --ntasks N            tasks of the step (0: one per CPU / cpus-per-task)\n"
        "  --pattern P           alltoall, ring, halves, halo2d, halo3d or trace:FILE\n"
        "  --size BYTES          bytes per communication (K, M, G suffixes)\n"
        "  --fabric NAME         fabric of the signature file (default: its default fabric)\n"
        "  --cpus-per-task C     CPUs per task (default 1)\n"
        "  --plane K             also score plane=K\n"
        "  --random SEED         also score a random layout drawn with SEED\n"
        "  --config PATH         signature file (default %s)\n"
        "  --json                one JSON object\n\n"
        "Exit status: 0 ok, 1 invalid file or job geometry, 2 usage error.\n",
        CT_DEFAULT_SIGNATURES);
}

int cmd_score(int argc, char **argv)
{
    static const struct option opts[] = {
        {"fabric", required_argument, NULL, 'f'}, {"cpus-per-node", required_argument, NULL, 'C'},
        {"ntasks", required_argument, NULL, 'n'}, {"pattern", required_argument, NULL, 'p'},
        {"size", required_argument, NULL, 's'},   {"cpus-per-task", required_argument, NULL, 'c'},
        {"plane", required_argument, NULL, 'P'},  {"random", required_argument, NULL, 'r'},
        {"config", required_argument, NULL, 'g'}, {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = CMD,
                      .shortopts = "f:C:n:p:s:c:P:r:g:jh",
                      .longopts = opts,
                      .accepted = "--cpus-per-node, --ntasks, --pattern, --size, --fabric, "
                                  "--cpus-per-task, --plane, --random, --config, --json, --help",
                      .help = help,
                      .config = CT_DEFAULT_SIGNATURES};
    const char *spec = NULL, *pat = NULL;
    long ntasks = -1, cpt = 1, plane = 0, seed = -1;
    double size = -1;
    int c;
    while ((c = admin_next_opt(&opt, argc, argv)) > 0) {
        switch (c) {
        case 'C':
            spec = optarg;
            break;
        case 'n':
            if (admin_int_opt(CMD, "--ntasks", optarg, 0, INT32_MAX, &ntasks) < 0)
                return ADMIN_USAGE;
            break;
        case 'p':
            pat = optarg;
            break;
        case 's':
            if (admin_size_opt(CMD, "--size", optarg, &size) < 0)
                return ADMIN_USAGE;
            break;
        case 'c':
            if (admin_int_opt(CMD, "--cpus-per-task", optarg, 1, 65535, &cpt) < 0)
                return ADMIN_USAGE;
            break;
        case 'P':
            if (admin_int_opt(CMD, "--plane", optarg, 1, INT32_MAX, &plane) < 0)
                return ADMIN_USAGE;
            break;
        case 'r':
            if (admin_int_opt(CMD, "--random", optarg, 0, INT32_MAX, &seed) < 0)
                return ADMIN_USAGE;
            break;
        }
    }
    if (c < 0)
        return opt.status;
    if (optind < argc)
        return admin_usage(CMD, "unexpected argument '%s' (accepted: options only)", argv[optind]);
    if (!spec)
        return admin_usage(CMD, "--cpus-per-node SPEC is required");
    if (ntasks < 0)
        return admin_usage(CMD, "--ntasks N is required");
    if (!pat)
        return admin_usage(CMD, "--pattern P is required");
    if (size < 0)
        return admin_usage(CMD, "--size BYTES is required");

    ct_err err;
    ct_pattern pattern;
    memset(&pattern, 0, sizeof pattern);
    if (ct_pattern_parse(pat, &pattern, &err) < 0)
        return admin_usage(CMD, "--pattern: %s", err.msg);
    pattern.bytes = size;
    ct_alloc alloc = {0, NULL};
    if (ctslurm_parse_cpus_per_node(spec, &alloc, &err) < 0)
        return admin_usage(CMD, "--cpus-per-node: %s", err.msg);

    ct_sigfile sf;
    const ct_fabric *fab = admin_load_fabric(CMD, opt.config, opt.fabric, &sf);
    if (!fab) {
        ct_alloc_free(&alloc);
        return ADMIN_INVALID;
    }
    int rc = ADMIN_INVALID;
    ct_score_request req;
    memset(&req, 0, sizeof req);
    req.alloc = &alloc;
    req.ntasks = (int32_t)ntasks;
    req.cpus_per_task = (int32_t)cpt;
    req.pattern = pattern;
    req.include_plane = plane > 0;
    req.plane_size = (int32_t)plane;
    req.include_random = seed >= 0;
    req.seed = seed >= 0 ? (uint64_t)seed : 0;
    ct_score_result res;
    if (ct_score(fab, &req, &res, &err) < 0) {
        admin_fail(CMD, "%s", err.msg);
        goto out;
    }
    if (opt.json) {
        printf("{\"fabric\": ");
        admin_json_string(stdout, res.fabric);
        printf(", \"model\": ");
        admin_json_string(stdout, res.model);
        printf(", \"pattern\": ");
        admin_json_string(stdout, pat);
        printf(", \"size_bytes\": ");
        admin_json_number(stdout, size);
        printf(", \"cpus_per_node\": ");
        admin_json_string(stdout, spec);
        printf(", \"ntasks\": %ld, \"winner\": ", ntasks);
        admin_json_string(stdout, res.n ? res.c[res.winner].name : "");
        printf(", \"margin\": ");
        admin_json_number(stdout, res.margin);
        printf(", \"candidates\": [");
        for (size_t i = 0; i < res.n; i++) {
            const ct_candidate_score *s = &res.c[i];
            printf("%s{\"name\": ", i ? ", " : "");
            admin_json_string(stdout, s->name);
            printf(", \"predicted_s\": ");
            admin_json_number(stdout, s->predicted_s);
            printf(", \"uncontended_s\": ");
            admin_json_number(stdout, s->uncontended_s);
            printf(", \"slowdown\": ");
            admin_json_number(stdout, s->slowdown);
            printf(", \"remote_comms\": %lld}", (long long)s->remote_comms);
        }
        printf("]}\n");
    } else {
        char b[32];
        printf("fabric %s (model %s), pattern %s, %s per communication, %ld tasks on %s\n",
               res.fabric, res.model, pat, admin_fmt_bytes(size, b, sizeof b), ntasks, spec);
        printf("  %-12s %14s %14s %9s %13s\n", "mapping", "predicted (s)", "no contention",
               "slowdown", "remote comms");
        for (size_t i = 0; i < res.n; i++) {
            const ct_candidate_score *s = &res.c[i];
            printf("%c %-12s %14.6g %14.6g %9.3g %13lld\n", i == res.winner ? '*' : ' ', s->name,
                   s->predicted_s, s->uncontended_s, s->slowdown, (long long)s->remote_comms);
        }
        if (res.n)
            printf("winner: %s (next best %.1f%% slower)\n", res.c[res.winner].name,
                   100 * res.margin);
    }
    rc = ADMIN_OK;
out:
    ct_alloc_free(&alloc);
    ct_sigfile_free(&sf);
    return rc;
}
