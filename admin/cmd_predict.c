/* contention-admin predict alltoall: an Alltoall's predicted time on a fabric
 * (000 eq. 5, layout-aware form of alltoall.h) beside its contention-free
 * lower bound (000 Proposition 1). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "contention/alltoall.h"

#define CMD "predict"

static void help(void)
{
    printf("Usage: contention-admin predict alltoall --tasks N --size BYTES\n"
           "           [--fabric NAME] [--tasks-per-node K] [--config PATH] [--json]\n\n"
           "Predict an MPI_Alltoall of N tasks exchanging BYTES per destination on a fabric\n"
           "of the signature file (default %s;\n"
           "without --fabric, its default fabric), with the contention-free lower bound.\n"
           "Tasks fill nodes K at a time (default 1 per node; the last node may hold fewer).\n"
           "Sizes accept K, M, G suffixes (1024-based).\n\n"
           "  --fabric NAME         fabric of the signature file\n"
           "  --tasks N             tasks in the Alltoall (1 to 16777216)\n"
           "  --size BYTES          message size per destination, e.g. 64K\n"
           "  --tasks-per-node K    tasks sharing a node (and its NIC)\n"
           "  --config PATH         signature file to read\n"
           "  --json                one JSON object (seconds)\n\n"
           "Exit status: 0 ok, 1 invalid file or a fabric without an alltoall signature,\n"
           "2 usage error.\n",
           CT_DEFAULT_SIGNATURES);
}

int cmd_predict(int argc, char **argv)
{
    static const struct option opts[] = {
        {"fabric", required_argument, NULL, 'f'}, {"tasks", required_argument, NULL, 'n'},
        {"size", required_argument, NULL, 's'},   {"tasks-per-node", required_argument, NULL, 'k'},
        {"config", required_argument, NULL, 'c'}, {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = CMD,
                      .shortopts = "f:n:s:k:c:jh",
                      .longopts = opts,
                      .accepted = "--fabric, --tasks, --size, --tasks-per-node, --config, --json, "
                                  "--help",
                      .help = help,
                      .config = CT_DEFAULT_SIGNATURES};
    long tasks = 0, tpn = 1;
    double size = -1;
    int c;
    while ((c = admin_next_opt(&opt, argc, argv)) > 0) {
        switch (c) {
        case 'n':
            if (admin_int_opt(CMD, "--tasks", optarg, 1, 1L << 24, &tasks) < 0)
                return ADMIN_USAGE;
            break;
        case 's':
            if (admin_size_opt(CMD, "--size", optarg, &size) < 0)
                return ADMIN_USAGE;
            break;
        case 'k':
            if (admin_int_opt(CMD, "--tasks-per-node", optarg, 1, INT32_MAX, &tpn) < 0)
                return ADMIN_USAGE;
            break;
        }
    }
    if (c < 0)
        return opt.status;
    if (optind >= argc)
        return admin_usage(CMD, "no pattern given (accepted: alltoall)");
    if (strcmp(argv[optind], "alltoall") != 0)
        return admin_usage(CMD,
                           "pattern '%s' (accepted: alltoall; other patterns: "
                           "contention-admin score)",
                           argv[optind]);
    if (optind + 1 < argc)
        return admin_usage(CMD, "unexpected argument '%s'", argv[optind + 1]);
    if (tasks == 0)
        return admin_usage(CMD, "--tasks N is required");
    if (size < 0)
        return admin_usage(CMD, "--size BYTES is required");

    ct_sigfile sf;
    const ct_fabric *fab = admin_load_fabric(CMD, opt.config, opt.fabric, &sf);
    if (!fab)
        return ADMIN_INVALID;
    int rc = ADMIN_INVALID;
    int32_t *per_node = NULL;
    if (!fab->has_alltoall) {
        admin_fail(CMD,
                   "fabric '%s' has no alltoall signature (accepted: a fabric with an "
                   "alltoall: section; see contention-admin show)",
                   fab->name);
        goto out;
    }
    int32_t nodes = (int32_t)((tasks + tpn - 1) / tpn);
    per_node = malloc((size_t)nodes * sizeof *per_node);
    if (!per_node) {
        admin_fail(CMD, "out of memory for %d nodes", (int)nodes);
        goto out;
    }
    for (int32_t k = 0; k < nodes; k++)
        per_node[k] = (int32_t)(k + 1 < nodes ? tpn : tasks - (long)(nodes - 1) * tpn);
    double T, lower;
    ct_err err;
    /* layout-aware 000 eq. 5 (alltoall.h); = eq. 5 with one task per node */
    double alpha, beta;
    ct_fabric_p2p_at(fab, size, &alpha, &beta); /* the size range's Hockney alpha, beta */
    if (ct_a2a_layout_checked(per_node, nodes, alpha, beta, size, &fab->alltoall, fab->intra_bw,
                              &T, &err) < 0) {
        admin_fail(CMD, "%s", err.msg);
        goto out;
    }
    /* 000 Proposition 1 for the same layout */
    lower = ct_a2a_layout_lower_bound(per_node, nodes, alpha, beta, size, fab->intra_bw);
    if (opt.json) {
        printf("{\"fabric\": ");
        admin_json_string(stdout, fab->name);
        printf(", \"pattern\": \"alltoall\", \"tasks\": %ld, \"nodes\": %d, \"tasks_per_node\": "
               "%ld, \"size_bytes\": ",
               tasks, (int)nodes, tpn);
        admin_json_number(stdout, size);
        printf(", \"predicted_s\": ");
        admin_json_number(stdout, T);
        printf(", \"lower_bound_s\": ");
        admin_json_number(stdout, lower);
        printf(", \"published\": %s}\n", fab->published ? "true" : "false");
    } else {
        char b[32], t1[32], t2[32];
        printf("fabric %s%s: Alltoall of %ld tasks on %d node%s (%ld per node%s), %s per "
               "destination\n",
               fab->name, fab->published ? " (published signature)" : "", tasks, (int)nodes,
               nodes == 1 ? "" : "s", tpn, tasks % tpn ? ", last node fewer" : "",
               admin_fmt_bytes(size, b, sizeof b));
        printf("predicted    %.6g s  (%s; 000 eq. 5)\n", T, admin_fmt_time(T, t1, sizeof t1));
        printf("lower bound  %.6g s  (%s; contention-free, 000 Prop. 1)\n", lower,
               admin_fmt_time(lower, t2, sizeof t2));
        if (lower > 0)
            printf("ratio        %.3g\n", T / lower);
    }
    rc = ADMIN_OK;
out:
    free(per_node);
    ct_sigfile_free(&sf);
    return rc;
}
