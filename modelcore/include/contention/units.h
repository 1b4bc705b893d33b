/* Units as people write them: sizes such as "4M" in options, signature and
 * trace files. (Formatting back to text lives here too.)
 */
#ifndef CONTENTION_UNITS_H
#define CONTENTION_UNITS_H

#include "contention/error.h"

/* Parse a size with an optional K/M/G (binary, 1024-based) or KB/MB/GB
 * (also KiB/MiB/GiB) suffix, e.g. "4M" -> 4194304. Returns 0 and stores the
 * byte count, or -1 (negative, non-finite, overflowing or garbage input). */
int ct_parse_size(const char *s, double *bytes, ct_err *err);

#endif
