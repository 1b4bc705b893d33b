/* plugstack.conf arguments: `optional contention.so key=value ...`.
 * Every key is checked here once per process; a bad one is refused with a
 * message naming it and listing what is accepted. */
#include <stdio.h>
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
                          "contention: plugstack.conf argument %d '%s' is not key=value "
                          "(accepted keys: " CTP_CONFIG_KEYS ")",
                          pos, arg);
    size_t klen = (size_t)(eq - arg);
    const char *val = eq + 1;
#define KEY(k) (klen == strlen(k) && strncmp(arg, k, klen) == 0)
    if (KEY("signatures")) {
        if (val[0] != '/')
            return ct_err_set(err,
                              "contention: plugstack.conf: signatures='%s' is not an "
                              "absolute path (expected signatures=/PATH/TO/signatures.yaml)",
                              val);
        if (strlen(val) >= sizeof c->signatures)
            return ct_err_set(err,
                              "contention: plugstack.conf: signatures= path longer than %zu "
                              "characters",
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
                              "contention: plugstack.conf: partition_fabric='%s' (expected "
                              "PARTITION:FABRIC, e.g. partition_fabric=debug:gigabit_ethernet)",
                              val);
        memcpy(part, val, (size_t)(colon - val));
        part[colon - val] = '\0';
        snprintf(fab, sizeof fab, "%s", colon + 1);
        if (!valid_name(part) || !valid_name(fab) || strlen(colon + 1) >= sizeof fab)
            return ct_err_set(err,
                              "contention: plugstack.conf: partition_fabric='%s' (expected "
                              "PARTITION:FABRIC, names of 1-63 characters A-Z a-z 0-9 _ - .)",
                              val);
        for (size_t i = 0; i < c->nparts; i++)
            if (strcmp(c->parts[i].partition, part) == 0)
                return ct_err_set(err,
                                  "contention: plugstack.conf: partition_fabric names "
                                  "partition '%s' twice (give each partition once)",
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
                              "contention: plugstack.conf: fabric='%s' (expected a fabric "
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
            return ct_err_set(err, "contention: plugstack.conf: strict='%s' (accepted: yes, no)",
                              val);
        return 0;
    }
    if (KEY("min_gain")) {
        if (ctp_min_gain_parse(val, &c->min_gain, err) < 0)
            return ct_err_prefix(err, "contention: plugstack.conf: min_gain=: ");
        return 0;
    }
#undef KEY
    return ct_err_set(
        err,
        "contention: plugstack.conf: unknown argument '%.*s' (accepted keys: " CTP_CONFIG_KEYS ")",
        (int)klen, arg);
}

int ctp_config_parse(int ac, char *const *av, ctp_config *c, ct_err *err)
{
    ctp_config_defaults(c);
    for (int i = 0; i < ac; i++)
        if (parse_one(av[i], i + 1, c, err) < 0)
            return -1;
    return 0;
}
