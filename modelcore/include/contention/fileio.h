/* Reading a whole input file into memory, bounded: the one reader used by
 * the signature loader, the benchmark-output parser, contention-admin and
 * the plugin. */
#ifndef CONTENTION_FILEIO_H
#define CONTENTION_FILEIO_H

#include <stddef.h>

#include "contention/error.h"

/* Read the regular file at path into a malloc'ed *buf of *len bytes, plus a
 * terminating NUL (not counted in *len). Refused, with one message naming
 * path (opened O_NONBLOCK, so a FIFO or a device never blocks the caller):
 * a file that cannot be opened ("PATH: cannot open: REASON"), one
 * that is not a regular file (a directory, a FIFO, a device), one larger
 * than max bytes ("PATH: larger than MAX bytes (accepted: ACCEPTED)",
 * refused before reading when its size is known), and read errors. Files
 * whose size stat cannot tell (/proc) are read up to max + 1 bytes. On
 * error *buf is NULL, *len 0, and -1 is returned. */
int ct_read_file(const char *path, size_t max, const char *accepted, char **buf, size_t *len,
                 ct_err *err);

#endif
