/* libFuzzer harness for the benchmark parsers (scripts/fuzz builds it):
 * never crash, never leak, refusals carry a position and what is accepted,
 * accepted samples are finite and within the documented ranges. Both the
 * point-to-point/Alltoall parser (benchparse.h) and the conflict-scheme
 * parser calibrate runs on ct-mpibench's conflict and uplink outputs
 * (calibrate.h: ct_conflict_parse, with its '# times:' repetitions), and the
 * intra-node readings of the pattern outputs (ct_intra_read: one node, and
 * every node at once, session 55; their Hockney lines, session 57). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/benchparse.h"
#include "contention/signatures.h"
#include "contention/calibrate.h"

static void check(const ct_bench_data *d)
{
    for (size_t i = 0; i < d->np2p; i++)
        if (!(d->p2p[i].m >= 0) || !(d->p2p[i].t > 0) || !isfinite(d->p2p[i].t))
            abort();
    for (size_t i = 0; i < d->nbw; i++)
        if (!(d->bw[i].m >= 0) || !(d->bw[i].bw > 0) || !isfinite(d->bw[i].bw))
            abort();
    for (size_t i = 0; i < d->na2a; i++) {
        const ct_a2a_sample *s = &d->a2a[i];
        if (s->nodes < 1 || s->tasks_per_node < 1 || (int64_t)s->nodes * s->tasks_per_node < 2 ||
            !(s->m >= 0) || !(s->t > 0) || !isfinite(s->t) || !isfinite(s->m))
            abort();
    }
}

static void conflicts(const uint8_t *data, size_t size)
{
    ct_conflict_sample *c = NULL;
    size_t n = 0;
    ct_err err;
    if (ct_conflict_parse("fuzz", (const char *)data, size, &c, &n, &err) < 0) {
        if (strncmp(err.msg, "fuzz", 4) != 0 ||
            (!strchr(err.msg, '(') && !strstr(err.msg, "out of memory")))
            abort();
        if (n)
            abort(); /* a refusal appends nothing */
    }
    for (size_t i = 0; i < n; i++) {
        if (!(c[i].m >= 0) || !(c[i].t > 0) || !isfinite(c[i].t) || c[i].src < 0 ||
            c[i].dst < 0 || c[i].nrep < 0 || c[i].nrep > CT_CONFLICT_REPS_MAX ||
            !memchr(c[i].scheme, 0, sizeof c[i].scheme) || !memchr(c[i].label, 0, sizeof c[i].label))
            abort();
        for (int32_t r = 0; r < c[i].nrep; r++)
            if (!(c[i].rep[r] > 0) || !isfinite(c[i].rep[r]))
                abort();
    }
    free(c);
}

static int printable(char c)
{
    return c >= 0x20 && c < 0x7f;
}

/* out[sz] as a header-line parser left it: terminated within sz, empty
 * where the line was not of its kind (said 0), each byte one ok() takes */
static void check_out(const char *out, size_t sz, int said, int (*ok)(char))
{
    if (!sz)
        return;
    size_t len = strnlen(out, sz);
    if (len >= sz || (!said && len))
        abort();
    for (size_t i = 0; i < len; i++)
        if (!ok(out[i]))
            abort();
}

/* the header lines calibrate reads from each output: '# wait:'
 * (ct_bench_wait_line: a kind or -1, a printable reason) and '# tcp:'
 * (ct_bench_tcp_line, session 61: 0 only on that prefix, a name of
 * [a-z0-9_]), each into every buffer size up to its own */
static void header_lines(const uint8_t *data, size_t size)
{
    char line[600], why[128], cc[32];
    size_t n = size < sizeof line - 1 ? size : sizeof line - 1;
    memcpy(line, data, n);
    line[n] = '\0';
    for (size_t sz = 0; sz <= sizeof why; sz += 8) {
        memset(why, 'x', sizeof why);
        int k = ct_bench_wait_line(line, why, sz);
        if (k < -1 || k > CT_WAIT_OTHER || (k >= 0 && strncmp(line, "# wait: ", 8) != 0))
            abort();
        check_out(why, sz, k >= 0, printable);
        size_t csz = sz < sizeof cc ? sz : sizeof cc;
        memset(cc, 'X', sizeof cc);
        int t = ct_bench_tcp_line(line, cc, csz);
        if (t < -1 || t > 0 || (t == 0 && strncmp(line, "# tcp: ", 7) != 0))
            abort();
        check_out(cc, csz, t == 0, ct_tcp_cc_char);
    }
}

/* a rate > 0 and finite, on >= 2 nodes for the every-node reading; a refusal
 * names its position and what is accepted */
static void intra(const uint8_t *data, size_t size)
{
    for (int all = 0; all < 2; all++) {
        ct_intra_reading r;
        ct_err err;
        int rc = ct_intra_read("fuzz", (const char *)data, size, all, &r, &err);
        if (rc < 0 && (strncmp(err.msg, "fuzz", 4) != 0 || !strchr(err.msg, '(')))
            abort();
        if (rc == 0 && (!(r.bw > 0) || !isfinite(r.bw) || (all && r.nodes < 2)))
            abort();
        if (rc == 1 && r.bw != 0)
            abort();
        double sh = ct_intra_shared(1e9, rc == 0 ? r.bw : 0, rc == 0 ? r.nodes : 0);
        if (sh != 0 && sh != r.bw)
            abort();
        /* the line (session 57): where read, a positive intercept and rate,
         * on two sizes or more */
        if (rc == 0 && r.line_bw != 0 &&
            (!(r.line_bw > 0) || !isfinite(r.line_bw) || !(r.alpha > 0) || !isfinite(r.alpha) ||
             r.line_sizes < 2 || r.line_tasks < 2))
            abort();
        if (rc == 0 && r.line_bw == 0 && (r.alpha != 0 || r.line_sizes != 0))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    header_lines(data, size);
    intra(data, size);
    conflicts(data, size);
    static const ct_bench_defaults defs[2] = {{0, 0}, {8, 2}};
    for (int k = 0; k < 2; k++) {
        ct_bench_data d;
        memset(&d, 0, sizeof d);
        ct_err err;
        ct_bench_format fmt;
        if (ct_bench_parse("fuzz", (const char *)data, size, k ? &defs[k] : NULL, &d, &fmt, &err) <
            0) {
            if (strncmp(err.msg, "fuzz", 4) != 0 ||
                (!strchr(err.msg, '(') && !strstr(err.msg, "out of memory"))) {
                fprintf(stderr, "message without position or accepted values: %s\n", err.msg);
                abort();
            }
            if (d.np2p + d.nbw + d.na2a)
                abort(); /* a refusal appends nothing */
        } else {
            if (fmt == CT_BENCH_UNKNOWN || d.np2p + d.nbw + d.na2a == 0)
                abort();
            check(&d);
        }
        ct_bench_free(&d);
    }
    return 0;
}
