/* libFuzzer harness for the values srun's plugin and the admin tool read
 * besides files and srun's command line (that scan is fuzz_srunargs.c):
 * the first input byte picks the reader, the rest is its input.
 *  0: plugstack.conf's arguments (`optional contention.so key=value ...`,
 *     NUL-separated), read by every srun (plugin/config.c);
 *  1: one option value as a user gives it, on srun's command line
 *     (--contention, --contention-pattern, --contention-size) or in its
 *     environment (SLURM_CONTENTION*), and min_gain=/min_switch='s value
 *     (plugin/options.c, modelcore ct_pattern_parse and ct_parse_size,
 *     plugin/placement.c), and srun's --het-group value (plugin/options.c);
 *  2: slurm.conf's text, of which srun reads SelectTypeParameters
 *     (plugin/siteconf.c);
 *  3: the admin tool's option values: whole numbers, percentages and sizes
 *     (admin/common.c), the next two input bytes setting the bounds.
 * Checks: never crash, leak or run long; a refusal carries a message (with
 * the plugstack.conf prefix, or a parenthesis saying what is accepted); an
 * accepted value is in its documented range and reads back as given (mode
 * and pattern names), parsing is deterministic, and the last of repeated
 * keys wins (plugstack.conf, slurm.conf) as srun and slurmctld take them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugin/plugin.h"
#include "admin.h"
#include "contention/pattern.h"
#include "contention/units.h"

static void terminated(const char *s, size_t n)
{
    if (!memchr(s, '\0', n))
        abort();
}

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= CT_NAME_MAX)
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == n;
}

static void check_config(const ctp_config *c)
{
    terminated(c->signatures, sizeof c->signatures);
    terminated(c->pattern, sizeof c->pattern);
    terminated(c->fabric, sizeof c->fabric);
    terminated(c->log, sizeof c->log);
    if (strcmp(ctp_mode_name(c->default_mode), "unknown") == 0)
        abort();
    ct_pattern p;
    if (ct_pattern_parse(c->pattern, &p, NULL) < 0)
        abort();
    if (!(c->size > 0) || !isfinite(c->size))
        abort();
    if (c->budget_ms < 1 || c->budget_ms > CTP_BUDGET_MS_MAX)
        abort();
    if (c->trace_max_bytes < 1 || c->trace_max_bytes > ((size_t)1 << 30) ||
        c->trace_max_events < 1 || c->trace_max_events > 100000000)
        abort();
    double g[2] = {c->min_gain, c->min_switch};
    for (int i = 0; i < 2; i++)
        if (!(isinf(g[i]) && g[i] > 0) && !(g[i] >= 0 && g[i] < 1))
            abort();
    if (c->signatures[0] && c->signatures[0] != '/')
        abort();
    if (c->log[0] && c->log[0] != '/' && strcmp(c->log, "syslog") != 0)
        abort();
    if (c->fabric[0] && !valid_name(c->fabric))
        abort();
    if (c->nparts > CTP_MAX_PARTITION_FABRICS)
        abort();
    for (size_t i = 0; i < c->nparts; i++) {
        if (!valid_name(c->parts[i].partition) || !valid_name(c->parts[i].fabric))
            abort();
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->parts[i].partition, c->parts[j].partition) == 0)
                abort();
    }
}

static void plugstack(const char *buf, size_t len)
{
    int argc;
    char **argv;
    ct_err err;
    if (ctp_split_cmdline(buf, len, &argc, &argv, &err) < 0)
        abort(); /* only out of memory could refuse */
    ctp_config a, b;
    int rc = ctp_config_parse(argc, argv, &a, &err);
    if (rc < 0) {
        static const char prefix[] = "contention: plugstack.conf";
        if (strncmp(err.msg, prefix, sizeof prefix - 1) != 0 || !strchr(err.msg, '(')) {
            fprintf(stderr, "refusal without its prefix or what is accepted: '%s'\n", err.msg);
            abort();
        }
    } else {
        check_config(&a);
    }
    if (ctp_config_parse(argc, argv, &b, &err) != rc || (rc == 0 && memcmp(&a, &b, sizeof a) != 0))
        abort();
    if (rc == 0) {
        /* a key given again wins: the same arguments and budget_ms=77 read
         * as before but for the budget */
        char **more = malloc((size_t)(argc + 2) * sizeof *more);
        if (!more)
            abort();
        memcpy(more, argv, (size_t)argc * sizeof *more);
        more[argc] = "budget_ms=77";
        more[argc + 1] = NULL;
        if (ctp_config_parse(argc + 1, more, &b, &err) < 0 || b.budget_ms != 77)
            abort();
        b.budget_ms = a.budget_ms;
        if (memcmp(&a, &b, sizeof a) != 0)
            abort();
        free(more);
    }
    ctp_argv_free(argc, argv);
}

/* what a refusal of a value says: something, and in parentheses what is
 * accepted, expected or the bound */
static void refusal(const ct_err *err, const char *what, const char *s)
{
    if (!err->msg[0] || !strchr(err->msg, '(')) {
        fprintf(stderr, "%s '%s' refused with '%s'\n", what, s, err->msg);
        abort();
    }
}

static void value(const char *s)
{
    ct_err err;
    ctp_mode m;
    err.msg[0] = '\0';
    if (ctp_mode_parse(s, &m, &err) == 0) {
        if (strcmp(ctp_mode_name(m), s) != 0)
            abort();
    } else {
        refusal(&err, "mode", s);
    }

    ct_pattern p;
    err.msg[0] = '\0';
    if (ctp_pattern_check(s, &err) == 0) {
        if (ct_pattern_parse(s, &p, &err) < 0)
            abort();
        if (p.kind == CT_PAT_TRACE) {
            if (strncmp(s, "trace:", 6) != 0 || strcmp(s + 6, p.trace) != 0)
                abort();
        } else if (strcmp(ct_pattern_name(p.kind), s) != 0) {
            fprintf(stderr, "pattern '%s' read as '%s'\n", s, ct_pattern_name(p.kind));
            abort();
        }
        if (p.bytes != CT_PATTERN_DEFAULT_BYTES || p.has_pause)
            abort();
    } else {
        refusal(&err, "pattern", s);
    }

    double b = -1;
    err.msg[0] = '\0';
    if (ctp_size_parse(s, &b, &err) == 0) {
        if (!(b > 0) || !isfinite(b))
            abort();
        double raw;
        if (ct_parse_size(s, &raw, NULL) < 0 || raw != b)
            abort();
        /* a bare number read with a K suffix is 1024 times as many bytes */
        size_t n = strlen(s);
        if (n < 200 && strpbrk(s, "kKmMgGbBiI") == NULL) {
            char k[256];
            snprintf(k, sizeof k, "%sK", s);
            double kb;
            int rk = ct_parse_size(k, &kb, &err);
            if (isfinite(b * 1024.0) ? (rk < 0 || kb != b * 1024.0) : rk == 0) {
                fprintf(stderr, "size '%s' is %.17g bytes, '%s' %.17g\n", s, b, k, kb);
                abort();
            }
        }
    } else {
        refusal(&err, "size", s);
    }

    /* srun's --het-group: one component or several, below 128; srun wraps
     * a value without '[' in brackets, which reads the same */
    int comp = -1, comp2 = -1;
    err.msg[0] = '\0';
    int hg = ctp_het_group_parse(s, &comp, &err);
    if (hg >= 0) {
        if (comp < 0 || comp >= 128 || strspn(s, "0123456789,-[]") != strlen(s))
            abort();
        if (hg == 0 && strspn(s, "0123456789") == strlen(s) && comp != atoi(s))
            abort();
        if (hg == 1 && !strpbrk(s, ",-"))
            abort();
    } else {
        refusal(&err, "het-group", s);
    }
    if (s[0] != '[' && strlen(s) < 200) {
        char wrapped[256];
        snprintf(wrapped, sizeof wrapped, "[%s]", s);
        if (ctp_het_group_parse(wrapped, &comp2, NULL) != hg || (hg >= 0 && comp2 != comp))
            abort();
    }

    double g = -1;
    err.msg[0] = '\0';
    if (ctp_min_gain_parse(s, &g, &err) == 0) {
        if (strcmp(s, "off") == 0 ? !(isinf(g) && g > 0) : !(g >= 0 && g < 1))
            abort();
    } else {
        refusal(&err, "gain", s);
    }
}

static int occurs(const char *text, size_t len, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(text + i, s, n) == 0)
            return 1;
    return 0;
}

static void slurm_conf(const char *text, size_t len)
{
    char out[256], again[256];
    memset(out, 'x', sizeof out);
    memset(again, 'y', sizeof again);
    int rc = ctp_select_params_text(text, len, out, sizeof out);
    if (ctp_select_params_text(text, len, again, sizeof again) != rc)
        abort();
    if (rc == 0) {
        terminated(out, sizeof out);
        if (strcmp(out, again) != 0)
            abort();
        for (const char *c = out; *c; c++)
            if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r' || *c == '#')
                abort();
        if (out[0] && !occurs(text, len, out))
            abort();
        if (out[0] && !strchr(out, ',') && !ctp_has_word_ci(out, out))
            abort();
    } else if (rc != -1) {
        abort();
    }
    /* the last SelectTypeParameters wins, whatever came before */
    static const char last[] = "\nSelectTypeParameters = CR_Core,CR_Pack_Nodes # packed\n";
    char *more = malloc(len + sizeof last);
    if (!more)
        abort();
    memcpy(more, text, len);
    memcpy(more + len, last, sizeof last - 1);
    if (ctp_select_params_text(more, len + sizeof last - 1, out, sizeof out) != 0 ||
        strcmp(out, "CR_Core,CR_Pack_Nodes") != 0 || !ctp_has_word_ci(out, "cr_pack_nodes") ||
        ctp_has_word_ci(out, "CR_Pack"))
        abort();
    free(more);
}

static void admin_values(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    long lo = (long)(int8_t)data[0], hi = lo + data[1];
    const char *s = (const char *)data + 2;
    long v = lo - 1;
    if (admin_int_opt("fuzz", "--n", s, lo, hi, &v) == 0 && (v < lo || v > hi))
        abort();
    double below = data[1] ? data[1] : INFINITY, pct = -1;
    if (admin_pct_opt("fuzz", "--pct", s, below, &pct) == 0 && !(pct >= 0 && pct < below))
        abort();
    double b = -1, raw = -2;
    int rb = admin_size_opt("fuzz", "--size", s, &b);
    int rr = ct_parse_size(s, &raw, NULL);
    if (rb != (rr < 0 ? -1 : 0) || (rb == 0 && (b != raw || !(b >= 0) || !isfinite(b))))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* the rest, NUL-terminated (its own NULs kept: they separate arguments) */
    char *buf = malloc(size);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    switch (data[0] % 4) {
    case 0: plugstack(buf, size - 1); break;
    case 1: value(buf); break; /* up to its first NUL, as a C string arrives */
    case 2: slurm_conf(buf, size - 1); break;
    default: admin_values((const uint8_t *)buf, size - 1); break;
    }
    free(buf);
    return 0;
}
