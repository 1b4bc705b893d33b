/* Test helper for the integration tests: prints the task -> node layout
 * modelcore builds for a Slurm geometry, one node index per task, so that a
 * shell script can compare it with what real `srun -l` did.
 *
 *   ct-layout-tool [--slurm-version V --first-node N] CPUS_PER_NODE NTASKS CPUS_PER_TASK DIST
 *   e.g. ct-layout-tool '4(x2),3,1(x5)' 16 1 cyclic  ->  0 1 2 3 4 5 6 7 0 1 2 0 1 2 0 1
 *
 * With --slurm-version (e.g. 24.11.5) the step's nodes follow that
 * release's rules (ct_layout_build_step), the step starting at node N
 * (0 for a job's first step), and a second line "next M" gives the node
 * the job's next step starts at (-1: not known).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/layout.h"
#include "ctslurm/slurmfmt.h"

int main(int argc, char **argv)
{
    ct_err err = {{0}};
    ct_step_rules rules = {.slurm_version = 0, .first_node = 0};
    int with_rules = 0;
    while (argc >= 3 && strncmp(argv[1], "--", 2) == 0) {
        if (strcmp(argv[1], "--slurm-version") == 0) {
            if (ct_slurm_version_parse(argv[2], &rules.slurm_version, &err) < 0) {
                fprintf(stderr, "ct-layout-tool: %s\n", err.msg);
                return 2;
            }
            with_rules = 1;
        } else if (strcmp(argv[1], "--first-node") == 0) {
            rules.first_node = atoi(argv[2]);
            with_rules = 1;
        } else {
            break;
        }
        argc -= 2;
        argv += 2;
    }
    if (argc != 5) {
        fprintf(stderr, "usage: ct-layout-tool [--slurm-version V --first-node N] CPUS_PER_NODE "
                        "NTASKS CPUS_PER_TASK block|cyclic|plane=K|random\n");
        return 2;
    }
    ct_alloc a;
    ct_layout l;
    ct_dist d;
    int32_t plane = 0, next = -1;
    if (ctslurm_parse_cpus_per_node(argv[1], &a, &err) < 0)
        goto bad;
    if (ct_dist_parse(argv[4], &d, &plane, &err) < 0 ||
        (with_rules ? ct_layout_build_step(&a, atoi(argv[2]), atoi(argv[3]), d, plane, 1, &rules,
                                           &l, &next, &err)
                    : ct_layout_build(&a, atoi(argv[2]), atoi(argv[3]), d, plane, 1, &l, &err)) <
            0) {
        ct_alloc_free(&a);
        goto bad;
    }
    for (int32_t t = 0; t < l.ntasks; t++)
        printf("%s%d", t ? " " : "", (int)l.node_of[t]);
    printf("\n");
    if (with_rules)
        printf("next %d\n", (int)next);
    ct_layout_free(&l);
    ct_alloc_free(&a);
    return 0;
bad:
    fprintf(stderr, "ct-layout-tool: %s\n", err.msg);
    return 1;
}
