/* contention-admin report: what the plugin did, from its decision log
 * (plugstack.conf log=FILE or log=syslog; line format in doc/plugin.md,
 * "Decision log"). Answers "is this plugin doing anything for us?": steps
 * seen, how often the mapping was changed, the predicted communication time
 * saved, and why it did not act, by count. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "contention/signatures.h"

#define MAX_KEYS 64

typedef struct counter {
    char key[160];
    long n;
} counter;

typedef struct report {
    long lines, steps, applied, changed, scored, bad;
    long by_mode[5];
    double saved_s;  /* sum over applied steps of pred(block) - pred(launched) */
    long saved_n;    /* steps that term could be computed for */
    counter why[MAX_KEYS];
    size_t nwhy;
    counter fail[MAX_KEYS];
    size_t nfail;
    long fail_other; /* fail-open messages past MAX_KEYS distinct ones */
    /* TCP congestion control (keys fabric_tcp, node_tcp, session 63): steps
     * where both were recorded, and those whose node ran another than the
     * fabric was calibrated under, by pair "FABRIC NODE" */
    long tcp_known, tcp_mismatch, tcp_other;
    counter tcp_pair[MAX_KEYS];
    size_t ntcp;
    char first[32], last[32];
} report;

static void count(counter *c, size_t *n, long *other, const char *key)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(c[i].key, key) == 0) {
            c[i].n++;
            return;
        }
    if (*n < MAX_KEYS) {
        snprintf(c[*n].key, sizeof c[*n].key, "%s", key);
        c[*n].n = 1;
        (*n)++;
    } else if (other) {
        (*other)++;
    }
}

static int hexval(char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* value of key in a "contention/1" line (up to the next space), decoded
 * from %XX; "" when absent or "-" */
static void field(const char *line, const char *key, char *out, size_t n)
{
    out[0] = '\0';
    char pat[32];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *msg = strstr(line, " msg=");
    const char *p = strstr(line, pat);
    if (!p || (msg && p > msg))
        return;
    p += strlen(pat);
    size_t k = 0;
    while (*p && *p != ' ' && k + 1 < n) {
        /* %XX only with two hex digits: sscanf's "%2x" also took one digit
         * (or a sign, or a space), and the 3 bytes skipped then ran past
         * the line's end ("pred=b,%e": found by tests/fuzz/fuzz_report.c) */
        if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
            out[k++] = (char)(hexval(p[1]) << 4 | hexval(p[2]));
            p += 3;
        } else {
            out[k++] = *p++;
        }
    }
    out[k] = '\0';
    if (strcmp(out, "-") == 0)
        out[0] = '\0';
}

/* predicted time of candidate name in "block:0.01,cyclic:0.004": a finite
 * time >= 0, as the plugin writes it (a forged or damaged line's value is
 * not a time: found by tests/fuzz/fuzz_report.c, "-1e308" made the saving
 * infinite and the --json output invalid) */
static int pred_of(const char *preds, const char *name, double *t)
{
    size_t nl = strlen(name);
    for (const char *p = preds; *p;) {
        const char *colon = strchr(p, ':');
        if (!colon)
            return -1;
        if ((size_t)(colon - p) == nl && strncmp(p, name, nl) == 0) {
            char *end;
            errno = 0;
            *t = strtod(colon + 1, &end);
            return errno || end == colon + 1 || !isfinite(*t) || *t < 0 ? -1 : 0;
        }
        p = strchr(colon, ',');
        if (!p)
            break;
        p++;
    }
    return -1;
}

static void add_line(report *r, const char *raw)
{
    r->lines++;
    const char *line = strstr(raw, "contention/1 ");
    if (!line)
        return; /* another program's syslog line */
    char mode[16], why[32], applied[8], launched[64], preds[600], choice[64], ts[32], msg[512];
    field(line, "mode", mode, sizeof mode);
    field(line, "why", why, sizeof why);
    field(line, "applied", applied, sizeof applied);
    field(line, "launched", launched, sizeof launched);
    field(line, "pred", preds, sizeof preds);
    field(line, "choice", choice, sizeof choice);
    field(line, "time", ts, sizeof ts);
    if (!mode[0] || !applied[0]) {
        r->bad++;
        return;
    }
    r->steps++;
    static const char *const modes[] = {"auto", "report", "block", "cyclic"};
    for (int i = 0; i < 4; i++)
        if (strcmp(mode, modes[i]) == 0)
            r->by_mode[i]++;
    if (ts[0]) {
        if (!r->first[0] || strcmp(ts, r->first) < 0)
            snprintf(r->first, sizeof r->first, "%s", ts);
        if (strcmp(ts, r->last) > 0)
            snprintf(r->last, sizeof r->last, "%s", ts);
    }
    if (choice[0])
        r->scored++;
    if (strcmp(applied, "yes") == 0) {
        r->applied++;
        /* Slurm's own default is block: "changed" = the plugin launched another */
        if (launched[0] && strcmp(launched, "block") != 0)
            r->changed++;
        double tb, tl;
        if (preds[0] && launched[0] && pred_of(preds, "block", &tb) == 0 &&
            pred_of(preds, launched, &tl) == 0 && isfinite(r->saved_s + (tb - tl))) {
            r->saved_s += tb - tl;
            r->saved_n++;
        }
    } else {
        count(r->why, &r->nwhy, NULL, why[0] ? why : "-");
    }
    if (strcmp(why, "fail-open") == 0 || strcmp(why, "budget") == 0) {
        const char *m = strstr(line, " msg=");
        snprintf(msg, sizeof msg, "%s", m ? m + 5 : "");
        /* the reason without the common prefix and suffix */
        const char *s = msg;
        if (strncmp(s, "contention: warning: ", 21) == 0)
            s += 21;
        char *e = strstr(msg, "; job launched unchanged");
        if (e)
            *e = '\0';
        count(r->fail, &r->nfail, &r->fail_other, s);
    }
    /* a value that is not a congestion control's name (a forged or damaged
     * line) counts as not recorded; the buffers hold more than a name, so a
     * longer value is not cut down to one */
    char ftcp[CT_TCP_CC_MAX + 8], ntcp[CT_TCP_CC_MAX + 8];
    field(line, "fabric_tcp", ftcp, sizeof ftcp);
    field(line, "node_tcp", ntcp, sizeof ntcp);
    if (ct_tcp_cc_ok(ftcp) && ct_tcp_cc_ok(ntcp)) {
        r->tcp_known++;
        if (strcmp(ftcp, ntcp) != 0) {
            char pair[sizeof ftcp + sizeof ntcp];
            snprintf(pair, sizeof pair, "%s %s", ftcp, ntcp);
            r->tcp_mismatch++;
            count(r->tcp_pair, &r->ntcp, &r->tcp_other, pair);
        }
    }
}

static int read_log(report *r, const char *path, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) >= 0) {
        line[strcspn(line, "\n")] = '\0';
        add_line(r, line);
    }
    int bad = ferror(f);
    free(line);
    if (bad)
        return admin_fail("report", "%s: read error: %s", path, strerror(errno));
    return 0;
}

static int by_count(const void *a, const void *b)
{
    const counter *x = a, *y = b;
    return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->key, y->key);
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

/* a TCP pair's key "FABRIC NODE" (add_line: both names checked, no space in
 * either) -> the fabric's name's length and the node's name */
static int tcp_pair_split(const counter *c, const char **node)
{
    const char *sp = strchr(c->key, ' ');
    *node = sp + 1;
    return (int)(sp - c->key);
}

static void print_json(const report *r)
{
    printf("{\"steps\": %ld, \"applied\": %ld, \"changed\": %ld, \"scored\": %ld, "
           "\"predicted_saved_s\": %.9g, \"saved_steps\": %ld, \"unreadable_lines\": %ld,\n"
           " \"by_mode\": {\"auto\": %ld, \"report\": %ld, \"block\": %ld, \"cyclic\": %ld},\n"
           " \"first\": ",
           r->steps, r->applied, r->changed, r->scored, r->saved_s, r->saved_n, r->bad,
           r->by_mode[0], r->by_mode[1], r->by_mode[2], r->by_mode[3]);
    json_str(r->first);
    printf(", \"last\": ");
    json_str(r->last);
    printf(",\n \"not_applied\": {");
    for (size_t i = 0; i < r->nwhy; i++) {
        printf("%s", i ? ", " : "");
        json_str(r->why[i].key);
        printf(": %ld", r->why[i].n);
    }
    printf("},\n \"fail_open\": [");
    for (size_t i = 0; i < r->nfail; i++) {
        printf("%s{\"reason\": ", i ? ", " : "");
        json_str(r->fail[i].key);
        printf(", \"count\": %ld}", r->fail[i].n);
    }
    printf("], \"fail_open_other\": %ld,\n \"tcp_known\": %ld, \"tcp_mismatch\": %ld, "
           "\"tcp_mismatch_pairs\": [",
           r->fail_other, r->tcp_known, r->tcp_mismatch);
    for (size_t i = 0; i < r->ntcp; i++) {
        const char *node;
        int flen = tcp_pair_split(&r->tcp_pair[i], &node);
        printf("%s{\"fabric_tcp\": \"%.*s\", \"node_tcp\": \"%s\", \"count\": %ld}",
               i ? ", " : "", flen, r->tcp_pair[i].key, node, r->tcp_pair[i].n);
    }
    printf("], \"tcp_mismatch_other\": %ld}\n", r->tcp_other);
}

static void print_text(const report *r)
{
    printf("steps seen:            %ld", r->steps);
    if (r->first[0])
        printf("  (%s .. %s)", r->first, r->last);
    printf("\n  by mode:             auto %ld, report %ld, block %ld, cyclic %ld\n", r->by_mode[0],
           r->by_mode[1], r->by_mode[2], r->by_mode[3]);
    printf("mapping set by plugin: %ld\n", r->applied);
    printf("mapping changed:       %ld  (launched other than Slurm's default, block)\n",
           r->changed);
    printf("predicted time saved:  %.6g s  (sum over %ld applied steps of block - launched, "
           "communication time as predicted)\n",
           r->saved_s, r->saved_n);
    if (r->nwhy) {
        printf("not applied, by reason:\n");
        for (size_t i = 0; i < r->nwhy; i++)
            printf("  %-18s %ld\n", r->why[i].key, r->why[i].n);
    }
    if (r->nfail) {
        printf("fail-open reasons, by count:\n");
        for (size_t i = 0; i < r->nfail; i++)
            printf("  %5ld  %s\n", r->fail[i].n, r->fail[i].key);
        if (r->fail_other)
            printf("  %5ld  (other reasons)\n", r->fail_other);
    }
    if (r->tcp_known) {
        printf("TCP congestion control, steps with the fabric's and the node's known: %ld\n",
               r->tcp_known);
        printf("  on a node running another than the fabric was calibrated under: %ld\n",
               r->tcp_mismatch);
        for (size_t i = 0; i < r->ntcp; i++) {
            const char *node;
            int flen = tcp_pair_split(&r->tcp_pair[i], &node);
            printf("  %5ld  fabric calibrated under %.*s, node runs %s\n", r->tcp_pair[i].n,
                   flen, r->tcp_pair[i].key, node);
        }
        if (r->tcp_other)
            printf("  %5ld  (other pairs)\n", r->tcp_other);
        if (r->tcp_mismatch)
            printf("  (their predictions were fitted under another TCP: calibrate on those "
                   "nodes, doc/calibration.md)\n");
    }
    if (r->bad)
        printf("unreadable contention/1 lines: %ld\n", r->bad);
}

static void help(void)
{
    printf("Usage: contention-admin report [--json] [LOG...]\n\n"
           "Summarize the plugin's decision log (plugstack.conf log=FILE, or the syslog\n"
           "lines of log=syslog): steps seen, how often the plugin set the mapping and\n"
           "changed it from Slurm's default, the predicted communication time saved,\n"
           "and why it did not act (user -m, fail-open reasons, time budget), by count,\n"
           "and the steps whose node ran another TCP congestion control than the fabric\n"
           "was calibrated under.\n"
           "LOG '-' or none: standard input. Lines of other programs are skipped.\n\n"
           "  --json   the same as JSON\n\n"
           "Exit status: 0 ok, 1 unreadable file, 2 usage error.\n");
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};
    admin_opts o = {.cmd = "report",
                    .shortopts = "h",
                    .longopts = longopts,
                    .accepted = "--json, --help",
                    .help = help};
    int c;
    while ((c = admin_next_opt(&o, argc, argv)) > 0)
        ;
    if (c < 0)
        return o.status;
    report *r = calloc(1, sizeof *r);
    if (!r)
        return admin_fail("report", "out of memory");
    int rc = 0;
    if (optind >= argc) {
        rc = read_log(r, "(stdin)", stdin);
    } else {
        for (int i = optind; i < argc && rc == 0; i++) {
            if (strcmp(argv[i], "-") == 0) {
                rc = read_log(r, "(stdin)", stdin);
                continue;
            }
            FILE *f = fopen(argv[i], "r");
            if (!f) {
                rc = admin_fail("report", "%s: %s", argv[i], strerror(errno));
                break;
            }
            rc = read_log(r, argv[i], f);
            fclose(f);
        }
    }
    if (rc == 0) {
        qsort(r->why, r->nwhy, sizeof r->why[0], by_count);
        qsort(r->fail, r->nfail, sizeof r->fail[0], by_count);
        qsort(r->tcp_pair, r->ntcp, sizeof r->tcp_pair[0], by_count);
        if (o.json)
            print_json(r);
        else
            print_text(r);
    }
    free(r);
    return rc;
}
