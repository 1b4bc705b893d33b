/* libFuzzer harness for `contention-admin topology import`'s reader
 * (admin_topology_read, admin/cmd_topology.c): a site's topology.conf or
 * topology.yaml, whose host ranges libslurm's hostlist functions expand.
 * The first input byte chooses the format (bit 0: YAML) and how uplinks
 * are priced (bit 1: each switch's LinkSpeed in MB/s, else 2:1
 * oversubscription); the rest is the file (a file holding a NUL byte is
 * refused before the reader, as the command does). Beyond "never crash,
 * never leak, never hang" it checks an accepted tree: at least one switch
 * and one node, every node under a switch of the tree with a non-empty name,
 * every switch's parent in the tree and the walk up from it reaching the
 * one root within as many steps as there are switches, every uplink priced
 * (> 0). Refusals print one message to stderr (run with -close_fd_mask=2). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "contention/topology.h"

static void check(const ct_topology *t)
{
    if (t->nswitches < 1 || t->nnodes < 1 || !t->sw || !t->node || !t->node_switch)
        abort();
    int roots = 0;
    for (int32_t s = 0; s < t->nswitches; s++) {
        if (!memchr(t->sw[s].name, '\0', sizeof t->sw[s].name) || !t->sw[s].name[0])
            abort();
        int32_t p = t->sw[s].parent, steps = 0;
        if (p < -1 || p >= t->nswitches)
            abort();
        if (p < 0)
            roots++;
        else if (!(t->sw[s].up_cap > 0))
            abort(); /* every uplink priced */
        for (int32_t at = s; at >= 0; at = t->sw[at].parent)
            if (++steps > t->nswitches)
                abort(); /* a cycle */
    }
    if (roots != 1)
        abort();
    for (int32_t v = 0; v < t->nnodes; v++)
        if (t->node_switch[v] < 0 || t->node_switch[v] >= t->nswitches || !t->node[v][0] ||
            !memchr(t->node[v], '\0', CT_TOPO_NAME_MAX))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || memchr(data + 1, '\0', size - 1))
        return 0;
    char *text = malloc(size); /* the file, NUL-terminated as admin_read_file leaves it */
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    int yaml = data[0] & 1, linkspeed = data[0] & 2;
    ct_topology t;
    memset(&t, 0, sizeof t);
    if (admin_topology_read(yaml ? "fuzz.yaml" : "fuzz.conf", text, size - 1, yaml, NULL,
                            linkspeed ? 0 : 2.0, 0, linkspeed ? 1e6 : 0, 1.25e7,
                            &t) == ADMIN_OK)
        check(&t);
    ct_topology_free(&t);
    free(text);
    return 0;
}
