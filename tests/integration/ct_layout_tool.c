/* Test helper for the integration tests: prints the task -> node layout
 * modelcore builds for a Slurm geometry, one node index per task, so that a
 * shell script can compare it with what real `srun -l` did.
 *
 *   ct-layout-tool CPUS_PER_NODE NTASKS CPUS_PER_TASK DISTRIBUTION
 *   e.g. ct-layout-tool '4(x2),3,1(x5)' 16 1 cyclic  ->  0 1 2 3 4 5 6 7 0 1 2 0 1 2 0 1
 */
#include <stdio.h>
#include <stdlib.h>

#include "contention/layout.h"
#include "ctslurm/slurmfmt.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: ct-layout-tool CPUS_PER_NODE NTASKS CPUS_PER_TASK "
                        "block|cyclic|plane=K|random\n");
        return 2;
    }
    ct_err err = {{0}};
    ct_alloc a;
    ct_layout l;
    ct_dist d;
    int32_t plane = 0;
    if (ctslurm_parse_cpus_per_node(argv[1], &a, &err) < 0 || ct_dist_parse(argv[4], &d, &plane, &err) < 0 ||
        ct_layout_build(&a, atoi(argv[2]), atoi(argv[3]), d, plane, 1, &l, &err) < 0) {
        fprintf(stderr, "ct-layout-tool: %s\n", err.msg);
        return 1;
    }
    for (int32_t t = 0; t < l.ntasks; t++)
        printf("%s%d", t ? " " : "", (int)l.node_of[t]);
    printf("\n");
    ct_layout_free(&l);
    ct_alloc_free(&a);
    return 0;
}
