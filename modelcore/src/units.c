#include "contention/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int ct_parse_size(const char *s, double *bytes, ct_err *err)
{
    if (!s || !*s)
        return ct_err_set(err, "empty size (expected BYTES with optional K, M or G suffix, e.g. 4M)");
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v) || v < 0)
        return ct_err_set(err, "invalid size '%.64s' (expected a non-negative number of bytes with optional K, M or G suffix, e.g. 4M)", s);
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
            return ct_err_set(err, "invalid size suffix in '%.64s' (accepted: K, M, G, KB, MB, GB, KiB, MiB, GiB)", s);
    }
    if (!isfinite(v * mult))
        return ct_err_set(err, "size '%.64s' is too large (overflows a double)", s);
    *bytes = v * mult;
    return 0;
}

const char *ct_format_time(double s, int digits, char *buf, size_t sz)
{
    double a = fabs(s);
    if (a == 0)
        snprintf(buf, sz, "0 s");
    else if (a < 1e-3)
        snprintf(buf, sz, "%.*g us", digits, s * 1e6);
    else if (a < 1)
        snprintf(buf, sz, "%.*g ms", digits, s * 1e3);
    else
        snprintf(buf, sz, "%.*g s", digits, s);
    return buf;
}

const char *ct_format_bytes(double b, int digits, char *buf, size_t sz)
{
    static const char *const suf[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    double v = b;
    if (digits > 0) {
        while (v >= 1024 && k < 4) {
            v /= 1024;
            k++;
        }
        snprintf(buf, sz, "%.*g %s", digits, v, suf[k]);
    } else {
        while (v >= 1024 && fmod(v, 1024) == 0 && k < 4) {
            v /= 1024;
            k++;
        }
        snprintf(buf, sz, "%.0f %s", v, suf[k]);
    }
    return buf;
}
