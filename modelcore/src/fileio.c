#include "contention/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int too_large(const char *path, size_t max, const char *accepted, ct_err *err)
{
    return ct_err_set(err, "%s: larger than %zu bytes (accepted: %s)", path, max, accepted);
}

int ct_read_file(const char *path, size_t max, const char *accepted, char **buf, size_t *len,
                 ct_err *err)
{
    *buf = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO for reading must not wait for a writer (srun
     * reads what a user names; fopen would hang there for ever). A regular
     * file ignores the flag, and nothing else gets past the S_ISREG check. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return ct_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return ct_err_set(err, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fileno(f), &st) < 0) {
        int e = errno;
        fclose(f);
        return ct_err_set(err, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        fclose(f);
        return ct_err_set(err, "%s: not a regular file (accepted: %s)", path, accepted);
    }
    if (st.st_size > 0 && (unsigned long long)st.st_size > max) {
        fclose(f);
        return too_large(path, max, accepted, err);
    }
    /* st_size is a hint only: the file may grow, and /proc reports 0 */
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 16384;
    if (cap > max + 1 && max + 1 > max)
        cap = max + 1;
    char *b = malloc(cap + 1);
    size_t n = 0;
    int rc = b ? 0 : ct_err_set(err, "%s: out of memory", path);
    while (rc == 0) {
        if (n == cap) {
            if (n > max) {
                rc = too_large(path, max, accepted, err);
                break;
            }
            size_t ncap = cap > max / 2 ? max + 1 : cap * 2;
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
            else if (n > max)
                rc = too_large(path, max, accepted, err);
            break;
        }
    }
    fclose(f);
    if (rc < 0) {
        free(b);
        return -1;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}
