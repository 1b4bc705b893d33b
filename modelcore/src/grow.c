#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int new_cap(size_t cap, size_t need, size_t elem, size_t first, size_t *nc)
{
    *nc = cap ? cap : (first ? first : 1);
    while (*nc < need) {
        if (*nc > SIZE_MAX / 2)
            return -1;
        *nc *= 2;
    }
    return elem && *nc > SIZE_MAX / elem ? -1 : 0;
}

int grow_array_aligned(void **p, size_t *cap, size_t need, size_t elem, size_t first,
                       size_t align)
{
    size_t nc;
    if (need <= *cap)
        return 0;
    if (new_cap(*cap, need, elem, first, &nc) < 0 || nc * elem > SIZE_MAX - align)
        return -1;
    void *q = aligned_alloc(align, (nc * elem + align - 1) / align * align);
    if (!q)
        return -1;
    if (*cap)
        memcpy(q, *p, *cap * elem);
    free(*p);
    *p = q;
    *cap = nc;
    return 0;
}

int grow_array(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    size_t nc;
    if (need <= *cap)
        return 0;
    if (new_cap(*cap, need, elem, first, &nc) < 0)
        return -1;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}
