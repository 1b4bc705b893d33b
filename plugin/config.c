/* plugstack.conf arguments: `optional contention.so key=value ...`.
 * Every key is checked here once per process; a bad one is refused with a
 * message naming it and listing what is accepted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

void ctp_config_defaults(ctp_config *c)
{
    memset(c, 0, sizeof *c);
    c->default_mode = CTP_MODE_OFF;
    snprintf(c->pattern, sizeof c->pattern, "alltoall");
    c->size = 1024.0 * 1024.0;
    c->strict = 0;
    c->min_gain = 0.10;
    c->min_switch = 0.05;
    c->budget_ms = CTP_BUDGET_MS;
    c->trace_max_bytes = CTP_TRACE_MAX_BYTES;
    c->trace_max_events = CTP_TRACE_MAX_EVENTS;
}

/* a whole number in [lo, hi] */
static int parse_whole(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= CT_NAME_MAX)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.'))
            return 0;
    return 1;
}

static int parse_one(const char *arg, int pos, ctp_config *c, ct_err *err)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return ct_err_set(err,
                          "contention: plugstack.conf argument %d '%.64s' is not key=value "
                          "(accepted keys: " CTP_CONFIG_KEYS ")",
                          pos, arg);
    size_t klen = (size_t)(eq - arg);
    const char *val = eq + 1;
#define KEY(k) (klen == strlen(k) && strncmp(arg, k, klen) == 0)
    if (KEY("signatures")) {
        if (val[0] != '/')
            return ct_err_set(err,
                              "contention: plugstack.conf: signatures='%.64s' is not an "
                              "absolute path (expected signatures=/PATH/TO/signatures.yaml)",
                              val);
        if (strlen(val) >= sizeof c->signatures)
            return ct_err_set(err,
                              "contention: plugstack.conf: signatures= path longer than %zu "
                              "characters (accepted: a shorter absolute path)",
                              sizeof c->signatures - 1);
        snprintf(c->signatures, sizeof c->signatures, "%s", val);
        return 0;
    }
    if (KEY("default")) {
        if (ctp_mode_parse(val, &c->default_mode, err) < 0)
            return ct_err_prefix(err, "contention: plugstack.conf: default=: ");
        return 0;
    }
    if (KEY("pattern")) {
        if (ctp_pattern_check(val, err) < 0)
            return ct_err_prefix(err, "contention: plugstack.conf: pattern=: ");
        snprintf(c->pattern, sizeof c->pattern, "%s", val);
        return 0;
    }
    if (KEY("size")) {
        if (ctp_size_parse(val, &c->size, err) < 0)
            return ct_err_prefix(err, "contention: plugstack.conf: size=: ");
        return 0;
    }
    if (KEY("partition_fabric")) {
        const char *colon = strchr(val, ':');
        char part[CT_NAME_MAX], fab[CT_NAME_MAX];
        if (!colon || (size_t)(colon - val) >= sizeof part)
            return ct_err_set(err,
                              "contention: plugstack.conf: partition_fabric='%.64s' (expected "
                              "PARTITION:FABRIC, e.g. partition_fabric=debug:gigabit_ethernet)",
                              val);
        memcpy(part, val, (size_t)(colon - val));
        part[colon - val] = '\0';
        snprintf(fab, sizeof fab, "%s", colon + 1);
        if (!valid_name(part) || !valid_name(fab) || strlen(colon + 1) >= sizeof fab)
            return ct_err_set(err,
                              "contention: plugstack.conf: partition_fabric='%.64s' (expected "
                              "PARTITION:FABRIC, names of 1-63 characters A-Z a-z 0-9 _ - .)",
                              val);
        for (size_t i = 0; i < c->nparts; i++)
            if (strcmp(c->parts[i].partition, part) == 0)
                return ct_err_set(err,
                                  "contention: plugstack.conf: partition_fabric names "
                                  "partition '%.64s' twice (give each partition once)",
                                  part);
        if (c->nparts >= CTP_MAX_PARTITION_FABRICS)
            return ct_err_set(err,
                              "contention: plugstack.conf: more than %d partition_fabric= "
                              "arguments (map the others in the signature file)",
                              CTP_MAX_PARTITION_FABRICS);
        snprintf(c->parts[c->nparts].partition, CT_NAME_MAX, "%s", part);
        snprintf(c->parts[c->nparts].fabric, CT_NAME_MAX, "%s", fab);
        c->nparts++;
        return 0;
    }
    if (KEY("fabric")) {
        if (!valid_name(val))
            return ct_err_set(err,
                              "contention: plugstack.conf: fabric='%.64s' (expected a fabric "
                              "name of 1-63 characters A-Z a-z 0-9 _ - .)",
                              val);
        snprintf(c->fabric, sizeof c->fabric, "%s", val);
        return 0;
    }
    if (KEY("strict")) {
        if (strcmp(val, "yes") == 0)
            c->strict = 1;
        else if (strcmp(val, "no") == 0)
            c->strict = 0;
        else
            return ct_err_set(err, "contention: plugstack.conf: strict='%.64s' (accepted: yes, no)",
                              val);
        return 0;
    }
    if (KEY("log")) {
        if (strcmp(val, "syslog") != 0 && val[0] != '/')
            return ct_err_set(err,
                              "contention: plugstack.conf: log='%.64s' (accepted: log=syslog or "
                              "log=/ABSOLUTE/PATH of a file the users' sruns may append to)",
                              val);
        if (strlen(val) >= sizeof c->log)
            return ct_err_set(err, "contention: plugstack.conf: log= path longer than %zu "
                                   "characters (accepted: a shorter absolute path)",
                              sizeof c->log - 1);
        snprintf(c->log, sizeof c->log, "%s", val);
        return 0;
    }
    if (KEY("budget_ms")) {
        long long v;
        if (parse_whole(val, 1, CTP_BUDGET_MS_MAX, &v) < 0)
            return ct_err_set(err,
                              "contention: plugstack.conf: budget_ms='%.64s' (accepted: a whole "
                              "number of milliseconds, 1 to %d; default %d)",
                              val, CTP_BUDGET_MS_MAX, CTP_BUDGET_MS);
        c->budget_ms = (int)v;
        return 0;
    }
    if (KEY("trace_max_bytes")) {
        double b;
        if (ctp_size_parse(val, &b, NULL) < 0 || b < 1 || b > (double)((size_t)1 << 30))
            return ct_err_set(err,
                              "contention: plugstack.conf: trace_max_bytes='%.64s' (accepted: 1 "
                              "to 1G bytes with K, M or G suffix; default 32M)",
                              val);
        c->trace_max_bytes = (size_t)b;
        return 0;
    }
    if (KEY("trace_max_events")) {
        long long v;
        if (parse_whole(val, 1, 100000000, &v) < 0)
            return ct_err_set(err,
                              "contention: plugstack.conf: trace_max_events='%.64s' (accepted: 1 "
                              "to 100000000; default %zu)",
                              val, CTP_TRACE_MAX_EVENTS);
        c->trace_max_events = (size_t)v;
        return 0;
    }
    if (KEY("min_gain")) {
        if (ctp_min_gain_parse(val, &c->min_gain, err) < 0)
            return ct_err_prefix(err, "contention: plugstack.conf: min_gain=: ");
        return 0;
    }
    if (KEY("min_switch")) {
        if (ctp_min_gain_parse(val, &c->min_switch, err) < 0)
            return ct_err_prefix(err, "contention: plugstack.conf: min_switch=: ");
        return 0;
    }
#undef KEY
    return ct_err_set(
        err,
        "contention: plugstack.conf: unknown argument '%.*s' (accepted keys: " CTP_CONFIG_KEYS ")",
        (int)(klen < 64 ? klen : 64), arg);
}

int ctp_config_parse(int ac, char *const *av, ctp_config *c, ct_err *err)
{
    ctp_config_defaults(c);
    for (int i = 0; i < ac; i++)
        if (parse_one(av[i], i + 1, c, err) < 0)
            return -1;
    return 0;
}
