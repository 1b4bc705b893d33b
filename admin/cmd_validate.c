/* contention-admin validate FILE...: the loader's verdict on each file. */
#include <getopt.h>
#include <stdio.h>

#include "admin.h"

static void help(void)
{
    printf("Usage: contention-admin validate FILE...\n\n"
           "Check signature files with the loader the plugin uses. A valid file gets one\n"
           "line per fabric; an invalid one gets the loader's message\n"
           "FILE:LINE:COL: what is wrong (what is accepted).\n\n"
           "Exit status: 0 all files valid, 1 a file is invalid, 2 usage error.\n");
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    admin_opts opt = {
        .cmd = "validate", .shortopts = "h", .longopts = opts, .accepted = "--help", .help = help};
    if (admin_next_opt(&opt, argc, argv) < 0)
        return opt.status;
    if (optind >= argc)
        return admin_usage("validate", "no FILE given");
    int status = ADMIN_OK;
    for (int i = optind; i < argc; i++) {
        ct_sigfile sf;
        if (admin_load("validate", argv[i], &sf) < 0) {
            status = ADMIN_INVALID;
            continue;
        }
        const ct_fabric *def = ct_sigfile_for_partition(&sf, NULL);
        printf("%s: valid (version %d, %zu fabric%s, %zu partition mapping%s, default %s)\n",
               argv[i], sf.version, sf.nfabrics, sf.nfabrics == 1 ? "" : "s", sf.nparts,
               sf.nparts == 1 ? "" : "s", def ? def->name : "none");
        for (size_t k = 0; k < sf.nfabrics; k++)
            admin_fabric_line(stdout, &sf.fabrics[k]);
        ct_sigfile_free(&sf);
    }
    return status;
}
