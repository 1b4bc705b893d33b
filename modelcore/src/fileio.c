#include "fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ct_read_stream(FILE *f, const char *path, unsigned max, const char *accepted, char **buf,
                   size_t *len, ct_err *err)
{
    char *b = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (n == cap) {
            if (cap > max) {
                rc =
                    ct_err_set(err, "%s: larger than %u bytes (accepted: %s)", path, max, accepted);
                break;
            }
            size_t ncap = cap ? cap * 2 : 16384;
            char *nb = realloc(b, ncap + 1);
            if (!nb) {
                rc = ct_err_set(err, "%s: out of memory", path);
                break;
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = ct_err_set(err, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
    if (rc < 0) {
        free(b);
        b = NULL;
        n = 0;
    }
    *buf = b;
    *len = n;
    return rc;
}
