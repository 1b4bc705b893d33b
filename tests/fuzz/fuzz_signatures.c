/* libFuzzer harness for the signature loader (scripts/fuzz builds it).
 * Beyond "never crash, never leak" it checks the writer's contract on every
 * input the loader accepts: write -> load gives the same file, and writing
 * that again gives the same text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/signatures.h"

static char *write_mem(const ct_sigfile *sf, size_t *len)
{
    char *buf = NULL;
    FILE *m = open_memstream(&buf, len);
    if (!m)
        abort();
    ct_err err;
    if (ct_sigfile_write(m, sf, &err) < 0) {
        fprintf(stderr, "loaded file does not write: %s\n", err.msg);
        abort();
    }
    fclose(m);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_sigfile a, b;
    ct_err err;
    if (ct_sigfile_load_buffer("fuzz", (const char *)data, size, &a, &err) < 0) {
        /* every refusal says where and what is accepted */
        if (strncmp(err.msg, "fuzz", 4) != 0 ||
            (!strchr(err.msg, '(') && !strstr(err.msg, "out of memory"))) {
            fprintf(stderr, "message without position or accepted values: %s\n", err.msg);
            abort();
        }
        return 0;
    }
    (void)ct_sigfile_for_partition(&a, NULL);
    for (size_t i = 0; i < a.nparts; i++)
        if (!ct_sigfile_for_partition(&a, a.parts[i].partition))
            abort();
    size_t l1, l2;
    char *t1 = write_mem(&a, &l1);
    if (ct_sigfile_load_buffer("rewritten", t1, l1, &b, &err) < 0) {
        fprintf(stderr, "written file does not load: %s\n%s\n", err.msg, t1);
        abort();
    }
    if (!ct_sigfile_equal(&a, &b)) {
        fprintf(stderr, "round trip changed the file:\n%s\n", t1);
        abort();
    }
    char *t2 = write_mem(&b, &l2);
    if (l1 != l2 || memcmp(t1, t2, l1) != 0)
        abort();
    free(t1);
    free(t2);
    ct_sigfile_free(&a);
    ct_sigfile_free(&b);
    return 0;
}
