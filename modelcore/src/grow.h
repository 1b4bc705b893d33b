/* Geometric growth of a malloc'ed array (internal to libcontention). */
#ifndef CONTENTION_GROW_H
#define CONTENTION_GROW_H

#include <stddef.h>

/* Make *p hold at least `need` elements of `elem` bytes: returns 0 at once
 * when *cap already suffices, else doubles the capacity (starting from
 * `first` when *cap is 0) until it does and reallocates. On failure (out of
 * memory, or a size that would overflow size_t) returns -1 and leaves *p and
 * *cap untouched; the caller words the error. */
int grow_array(void **p, size_t *cap, size_t need, size_t elem, size_t first);
/* The same for an array of over-aligned elements: *p starts on an `align`
 * boundary (a power of two; *p from aligned_alloc, freed with free). Grows by
 * copying. */
int grow_array_aligned(void **p, size_t *cap, size_t need, size_t elem, size_t first,
                       size_t align);

#endif
