/* Reading a whole input file into memory (internal to libcontention; used by
 * the signature loader and the benchmark-output parser). */
#ifndef CONTENTION_FILEIO_H
#define CONTENTION_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "contention/error.h"

/* Read f (opened by the caller from path, which messages name) to its end
 * into a malloc'ed *buf of *len bytes plus a spare one. More than max bytes
 * is refused unread: "PATH: larger than MAX bytes (accepted: ACCEPTED)".
 * On error *buf is NULL and -1 is returned. */
int ct_read_stream(FILE *f, const char *path, unsigned max, const char *accepted, char **buf,
                   size_t *len, ct_err *err);

#endif
