#include "contention/error.h"

#include <stdarg.h>
#include <stdio.h>
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
