/* contention-admin: manage and use the contention signatures offline.
 * This file only dispatches; each subcommand lives in admin/cmd_<name>.c. */
#include <stdio.h>
#include <string.h>

#include "admin.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"validate", cmd_validate, "check signature files; one line per fabric when valid"},
    {"install", cmd_install, "validate, then atomically replace the installed signature file"},
    {"show", cmd_show, "print the installed signatures (text or --json)"},
    {"fit", cmd_fit, "fit alpha, beta and gamma, delta, M from benchmark outputs"},
    {"predict", cmd_predict, "predict an Alltoall's time on a fabric"},
    {"score", cmd_score, "the plugin's mapping decision table, offline"},
    {"calibrate", cmd_calibrate, "run the calibration benchmarks and fit a fabric"},
    {"simulate", cmd_simulate, "replay a communication trace under a fabric's model"},
    {"topology", cmd_topology, "import Slurm's topology.conf/.yaml into a fabric"},
    {"record", cmd_record, "run an MPI command under the recorder, write its trace"},
    {"report", cmd_report, "summarize the plugin's decision log (log=FILE or syslog)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: contention-admin COMMAND [OPTIONS] [ARGS]\n"
            "       contention-admin COMMAND --help\n\n"
            "Manage slurm-contention's network signatures (installed file: %s).\n\n"
            "Commands:\n",
            CT_DEFAULT_SIGNATURES);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nExit status: 0 ok, 1 invalid input, 2 usage error.\n"
               "See contention-admin(8).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return ADMIN_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        if (strcmp(name, "help") == 0 && argc > 2) {
            for (size_t i = 0; i < NCOMMANDS; i++) {
                if (strcmp(commands[i].name, argv[2]) == 0) {
                    char *sub[] = {argv[2], "--help", NULL};
                    return commands[i].run(2, sub);
                }
            }
        }
        usage(stdout);
        return ADMIN_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("contention-admin %s\n", CT_VERSION);
        return ADMIN_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "contention-admin: unknown command '%s' (accepted:", name);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
    fprintf(stderr, ")\nTry 'contention-admin --help'.\n");
    return ADMIN_USAGE;
}
