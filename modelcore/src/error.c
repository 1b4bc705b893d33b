#include "contention/error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ct_err_set(ct_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int ct_err_prefix(ct_err *err, const char *fmt, ...)
{
    if (err) {
        char head[CT_ERR_MAX], old[CT_ERR_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(head, sizeof head, fmt, ap);
        va_end(ap);
        memcpy(old, err->msg, sizeof old);
        size_t hl = strnlen(head, sizeof head - 1);
        memcpy(err->msg, head, hl);
        size_t room = sizeof err->msg - 1 - hl;
        size_t ol = strnlen(old, room);
        memcpy(err->msg + hl, old, ol);
        err->msg[hl + ol] = '\0';
    }
    return -1;
}

int ct_parse_size(const char *s, double *bytes, ct_err *err)
{
    if (!s || !*s)
        return ct_err_set(err, "empty size (expected BYTES with optional K, M or G suffix, e.g. 4M)");
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v) || v < 0)
        return ct_err_set(err, "invalid size '%s' (expected a non-negative number of bytes with optional K, M or G suffix, e.g. 4M)", s);
    double mult = 1.0;
    if (*end) {
        const char *suf = end;
        switch (toupper((unsigned char)*suf)) {
        case 'K': mult = 1024.0; suf++; break;
        case 'M': mult = 1024.0 * 1024.0; suf++; break;
        case 'G': mult = 1024.0 * 1024.0 * 1024.0; suf++; break;
        default: break;
        }
        if (mult > 1.0 && (*suf == 'i' || *suf == 'I'))
            suf++;
        if (*suf == 'B' || *suf == 'b')
            suf++;
        if (*suf || suf == end)
            return ct_err_set(err, "invalid size suffix in '%s' (accepted: K, M, G, KB, MB, GB, KiB, MiB, GiB)", s);
    }
    *bytes = v * mult;
    return 0;
}
