#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

int grow_array(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : (first ? first : 1);
    while (nc < need) {
        if (nc > SIZE_MAX / 2)
            return -1;
        nc *= 2;
    }
    if (elem && nc > SIZE_MAX / elem)
        return -1;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}
