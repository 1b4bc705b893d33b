/* libFuzzer harness for the two files `contention-admin simulate` reads
 * beside a trace, both named by the user: --placement list:FILE (`TASK NODE`
 * lines, ct_placement_parse_buffer) and --measured FILE (`LABEL SECONDS`
 * lines, ct_measured_parse_buffer), both in modelcore/src/trace.c. The
 * first input byte chooses the placement's task and node counts, the rest
 * is the file; the same rest is read as measured times against paper 001's
 * Fig. 4 trace (tests/fixtures/traces/fig4_gige.trace: 6 labelled
 * communications). Beyond "never crash, never leak, never hang" it checks:
 * a refusal names the input (and, for a line's fault, the line); an
 * accepted placement puts every task on a node below the node count; an
 * accepted measured file gives each communication a finite time > 0, or
 * NaN where it lists none. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/trace.h"

static const char fig4[] = "tasks 7\n"
                           "isend 0 1 4M a\nisend 0 2 4M b\nisend 0 3 4M c\nwaitall 0\n"
                           "recv 1 0\n"
                           "irecv 2 0\nirecv 2 4\nwaitall 2\n"
                           "irecv 3 0\nirecv 3 5\nirecv 3 6\nwaitall 3\n"
                           "send 4 2 4M d\nsend 5 3 4M e\nsend 6 3 4M f\n";

static void refused_names(const ct_err *err, const char *name)
{
    if (strncmp(err->msg, name, strlen(name)) != 0) {
        fprintf(stderr, "message without the input's name: %s\n", err->msg);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* up to 64 tasks on up to 8 nodes: every count the parser treats alike */
    int32_t ntasks = 1 + (data[0] & 63), nnodes = 1 + (data[0] >> 6) * 2;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;

    int32_t node_of[64];
    for (int i = 0; i < 64; i++)
        node_of[i] = -1;
    ct_err err;
    err.msg[0] = '\0';
    if (ct_placement_parse_buffer("fuzz.place", text, len, ntasks, nnodes, node_of, &err) < 0)
        refused_names(&err, "fuzz.place");
    else
        for (int32_t t = 0; t < ntasks; t++)
            if (node_of[t] < 0 || node_of[t] >= nnodes)
                abort(); /* every task placed, on a node of the allocation */

    static ct_trace tr;
    static int have;
    if (!have) {
        if (ct_trace_parse_buffer("fig4.trace", fig4, sizeof fig4 - 1, &tr, &err) < 0 ||
            tr.ncomm != 6)
            abort();
        have = 1;
    }
    double m[6];
    err.msg[0] = '\0';
    if (ct_measured_parse_buffer("fuzz.measured", text, len, &tr, m, &err) < 0) {
        refused_names(&err, "fuzz.measured");
        return 0;
    }
    for (int c = 0; c < 6; c++)
        if (!isnan(m[c]) && !(isfinite(m[c]) && m[c] > 0))
            abort();
    return 0;
}
