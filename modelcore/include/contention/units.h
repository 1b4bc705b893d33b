/* Units as people read and write them: sizes such as "4M" in options,
 * signature and trace files, and times and sizes printed back for people
 * (the plugin's messages, contention-admin's tables).
 */
#ifndef CONTENTION_UNITS_H
#define CONTENTION_UNITS_H

#include <stddef.h>

#include "contention/error.h"

/* Parse a size with an optional K/M/G (binary, 1024-based) or KB/MB/GB
 * (also KiB/MiB/GiB) suffix, e.g. "4M" -> 4194304. Returns 0 and stores the
 * byte count, or -1 (negative, non-finite, overflowing or garbage input). */
int ct_parse_size(const char *s, double *bytes, ct_err *err);

/* Seconds in a readable unit with `digits` significant digits (%g):
 * "12.3 us", "4.93 ms", "1.25 s" (the unit chosen on |s|; 0 prints "0 s").
 * Returns buf. */
const char *ct_format_time(double s, int digits, char *buf, size_t sz);

/* Bytes with a binary suffix (B, KiB, MiB, GiB, TiB). digits > 0: the
 * largest unit not above b, `digits` significant digits ("1.5 MiB",
 * "97.66 KiB"). digits == 0: exact, the largest unit that divides b
 * ("1 MiB", "1536 B", never rounded). Returns buf. */
const char *ct_format_bytes(double b, int digits, char *buf, size_t sz);

#endif
