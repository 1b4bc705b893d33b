/* The decision log (plugstack.conf log=syslog | log=/PATH): one line per
 * srun the plugin decided for (every mode but off), so that a site can
 * answer "is this plugin doing anything for us?" (contention-admin report).
 *
 *   contention/1 time=2026-11-23T03:55:01Z job=12 step=3 uid=1000 user=alice
 *     mode=auto nodes=4 tasks=16 cpt=1 cpus=4(x4) pattern=halves bytes=1048576
 *     fabric=gige_lab pred=block:0.0123,cyclic:0.00456 choice=cyclic
 *     launched=cyclic applied=yes why=- msg=contention: cyclic chosen ...
 *
 * (one line). Keys always appear in this order; a value not known is "-";
 * values are %-encoded (bytes outside '!' .. '~', and '%'); msg is last and
 * runs to the end of the line. Format version "contention/1": a change that
 * is not a new key at the end gets a new version. Spec: doc/plugin.md. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "plugin.h"

typedef struct out {
    char *buf;
    size_t n, len;
    int overflow;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out *o, const char *fmt, ...)
{
    if (o->overflow)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(o->buf + o->len, o->n - o->len, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= o->n - o->len)
        o->overflow = 1;
    else
        o->len += (size_t)w;
}

/* key=VALUE with VALUE %-encoded; "" -> "-" */
static void kv(out *o, const char *key, const char *v)
{
    put(o, " %s=", key);
    if (!v || !*v) {
        put(o, "-");
        return;
    }
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p < '!' || *p > '~' || *p == '%' || *p == ',')
            put(o, "%%%02X", *p);
        else
            put(o, "%c", *p);
    }
}

static void kvi(out *o, const char *key, long long v, int known)
{
    if (known)
        put(o, " %s=%lld", key, v);
    else
        put(o, " %s=-", key);
}

int ctp_log_format(const ctp_decision *d, const ctp_logctx *c, char *buf, size_t n)
{
    out o = {buf, n, 0, 0};
    if (n)
        buf[0] = '\0';
    char ts[32];
    time_t t = (time_t)c->time;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const ctp_logrec *l = &d->log;
    put(&o, "contention/1 time=%s", ts);
    kvi(&o, "job", c->job, c->job >= 0);
    kvi(&o, "step", c->step, c->step >= 0);
    kvi(&o, "uid", c->uid, c->uid >= 0);
    kv(&o, "user", c->user);
    kv(&o, "mode", ctp_mode_name(d->mode));
    kvi(&o, "nodes", l->nodes, l->nodes > 0);
    kvi(&o, "tasks", l->tasks, l->tasks > 0);
    kvi(&o, "cpt", l->cpt, l->cpt > 0);
    kv(&o, "cpus", l->cpus);
    kv(&o, "pattern", l->pattern);
    if (l->pattern[0] && l->bytes > 0)
        put(&o, " bytes=%.0f", l->bytes);
    else
        put(&o, " bytes=-");
    kv(&o, "fabric", l->fabric);
    if (l->ncand == 0)
        put(&o, " pred=-");
    for (int i = 0; i < l->ncand; i++) {
        put(&o, i ? "," : " pred=");
        /* candidate names are [a-z0-9=]: no encoding needed beyond ':' and ',' */
        put(&o, "%s:%.6g", l->cand[i], l->pred[i]);
    }
    kv(&o, "choice", l->choice);
    kv(&o, "launched", l->launched);
    put(&o, " applied=%s", l->applied ? "yes" : "no");
    kv(&o, "why", l->why);
    kv(&o, "fabric_tcp", l->fabric_tcp);
    kv(&o, "node_tcp", l->node_tcp);
    put(&o, " msg=");
    for (const char *p = d->message; *p; p++)
        put(&o, "%c", (*p == '\n' || *p == '\r') ? ' ' : *p);
    return o.overflow ? -1 : (int)o.len;
}

int ctp_log_write(const char *log, const char *line, char *what, size_t whatn)
{
    if (strcmp(log, "syslog") == 0) {
        openlog("contention", LOG_PID, LOG_USER);
        syslog(LOG_INFO, "%s", line);
        closelog();
        return 0;
    }
    /* O_NONBLOCK: a FIFO or device put in its place never blocks srun */
    int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC |
                           O_NOCTTY,
                  0644);
    if (fd < 0) {
        snprintf(what, whatn, "%s: %s", log, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(what, whatn, "%s: not a regular file", log);
        return -1;
    }
    size_t len = strlen(line);
    char buf[4200];
    int rc = 0;
    if (len + 1 > sizeof buf) {
        snprintf(what, whatn, "%s: line of %zu bytes not written", log, len);
        rc = -1;
    } else {
        /* one write() of the whole line: O_APPEND keeps concurrent sruns'
         * lines whole on a local file system */
        memcpy(buf, line, len);
        buf[len] = '\n';
        ssize_t w = write(fd, buf, len + 1);
        if (w != (ssize_t)(len + 1)) {
            snprintf(what, whatn, "%s: %s", log, w < 0 ? strerror(errno) : "short write");
            rc = -1;
        }
    }
    close(fd);
    return rc;
}
