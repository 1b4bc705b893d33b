/* Error reporting shared by every modelcore unit.
 *
 * Functions that can fail take a `ct_err *` (may be NULL) and return 0 on
 * success, -1 on failure after writing one human-readable line into it.
 * Messages about input name the file, line and value at fault, and what
 * would be accepted instead: "FILE:LINE:COL: what is wrong (what is accepted)".
 */
#ifndef CONTENTION_ERROR_H
#define CONTENTION_ERROR_H

#include <stddef.h>

#define CT_ERR_MAX 512

typedef struct ct_err {
    char msg[CT_ERR_MAX];
} ct_err;

/* Format a message into err (no-op when err is NULL). Always returns -1, so
 * `return ct_err_set(err, "...")` reads naturally. */
int ct_err_set(ct_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefix an existing message, e.g. with "FILE:LINE: ". Returns -1. */
int ct_err_prefix(ct_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
