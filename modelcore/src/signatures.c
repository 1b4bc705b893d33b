/* The signature file (schema `version: 1`, conf/README.md).
 *
 * YAML carries readable units named in each key (`_us` microseconds,
 * `_MBps` 10^6 bytes per second, `_bytes`); the structs are SI. Every number
 * field is described once in a table below, which drives loading, range
 * checks, writing and diffs, so the four cannot drift apart.
 */
#include "contention/signatures.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "contention/models.h"

#include "contention/fileio.h"
#include "yamlutil.h"

/* ---- number fields ---------------------------------------------------- */

typedef enum conv {
    CONV_PLAIN,    /* dimensionless, or bytes */
    CONV_US,       /* YAML microseconds -> s */
    CONV_MBPS,     /* YAML MB/s (10^6 bytes/s) -> bytes/s */
    CONV_INV_MBPS, /* YAML MB/s -> s/byte (Hockney beta = 1 / bandwidth) */
} conv;

typedef struct numfield {
    const char *key;
    size_t off; /* offset of the double in ct_fabric */
    conv conv;
    int required;
    double lo; /* accepted: v >= lo, or v > lo when lo_open */
    int lo_open;
    double hi; /* accepted: v <= hi, or v < hi when hi_open (INFINITY: no bound) */
    int hi_open;
    double absent; /* stored when an optional key is missing; not written back */
} numfield;

#define FOFF(m) offsetof(ct_fabric, m)

static const numfield p2p_fields[] = {
    {"alpha_us", FOFF(alpha), CONV_US, 1, 0, 0, INFINITY, 0, 0},
    {"bandwidth_MBps", FOFF(beta), CONV_INV_MBPS, 1, 0, 1, INFINITY, 0, 0},
    /* a pattern step's fixed time (our extension, signatures.h); absent = 0 */
    {"exchange_us", FOFF(exchange), CONV_US, 0, -1e6, 0, 1e6, 0, 0},
    /* a token bucket's refill (our extension, session 29, signatures.h); absent = 0 */
    {"bucket_bytes", FOFF(bucket), CONV_PLAIN, 0, 0, 0, 1e12, 0, 0},
    {"bucket_pause_us", FOFF(bucket_pause), CONV_US, 0, 0, 0, 1e9, 0, 0},
};
static const numfield plogp_fields[] = {
    {"L_us", FOFF(plogp_L), CONV_US, 0, 0, 0, INFINITY, 0, 0},
};
static const numfield a2a_fields[] = {
    {"gamma", FOFF(alltoall.gamma), CONV_PLAIN, 1, 0, 0, INFINITY, 0, 0},
    {"delta_us", FOFF(alltoall.delta), CONV_US, 1, 0, 0, INFINITY, 0, 0},
    {"M_bytes", FOFF(alltoall.M), CONV_PLAIN, 1, 0, 0, INFINITY, 0, 0},
    {"fit_max_rel_err", FOFF(a2a_fit_error), CONV_PLAIN, 0, 0, 0, INFINITY, 0, -1},
    /* incast-aware gamma(k, f) (this project's extension, alltoall.h); absent = 0 */
    {"gamma_incast", FOFF(alltoall.gamma_incast), CONV_PLAIN, 0, 0, 0, INFINITY, 0, 0},
    {"gamma_flows", FOFF(alltoall.gamma_flows), CONV_PLAIN, 0, 0, 0, INFINITY, 0, 0},
    /* per-call step (this project's extension, alltoall.h), either sign; absent = 0 */
    {"call_us", FOFF(alltoall.call), CONV_US, 0, -1e6, 0, 1e6, 0, 0},
    /* the k, f the gamma(k, f) terms were fitted up to (alltoall.h); absent = 0, no limit */
    {"incast_max_k", FOFF(alltoall.k_max), CONV_PLAIN, 0, 0, 0, 1e9, 0, 0},
    {"flows_max_f", FOFF(alltoall.f_max), CONV_PLAIN, 0, 0, 0, 1e12, 0, 0},
    /* the flows term's exponent (alltoall.h, session 21); absent = 0, the line f - 1 */
    {"flows_exponent", FOFF(alltoall.flows_exp), CONV_PLAIN, 0, 0, 1, 1, 0, 0},
    /* the incast-loss term and its flow bounds (alltoall.h, session 24); absent = 0, none */
    {"gamma_loss", FOFF(alltoall.gamma_loss), CONV_PLAIN, 0, 0, 0, INFINITY, 0, 0},
    {"loss_min_f", FOFF(alltoall.loss_min_f), CONV_PLAIN, 0, 0, 0, 1e12, 0, 0},
    {"loss_max_f", FOFF(alltoall.loss_max_f), CONV_PLAIN, 0, 0, 0, 1e12, 0, 0},
    /* the incast intercept (alltoall.h, session 69); absent = 0, none */
    {"call_incast_us", FOFF(alltoall.call_incast), CONV_US, 0, 0, 0, 1e6, 0, 0},
};
static const numfield fabric_fields[] = {
    {"intra_node_bandwidth_MBps", FOFF(intra_bw), CONV_MBPS, 0, 0, 0, INFINITY, 0, 0},
    /* the nodes' shared copy rate (our extension, session 55, signatures.h); absent = 0 */
    {"intra_node_shared_MBps", FOFF(intra_shared_bw), CONV_MBPS, 0, 0, 0, INFINITY, 0, 0},
    /* the intra-node Hockney lines (our extension, session 57, signatures.h):
     * a latency only with its line's rate, the shared line only with the
     * shared rate (load_fabric, ct_fabric_validate); absent = 0 */
    {"intra_node_latency_us", FOFF(intra_alpha), CONV_US, 0, 0, 0, 1e9, 0, 0},
    {"intra_node_line_MBps", FOFF(intra_line_bw), CONV_MBPS, 0, 0, 1, INFINITY, 0, 0},
    {"intra_node_shared_latency_us", FOFF(intra_shared_alpha), CONV_US, 0, 0, 0, 1e9, 0, 0},
    {"intra_node_shared_line_MBps", FOFF(intra_shared_line_bw), CONV_MBPS, 0, 0, 1, INFINITY, 0,
     0},
};
#define NF(a) (sizeof(a) / sizeof(a[0]))

/* The penalty section is the model's: its keys come from the registry
 * (contention/models.h). Real-valued keys become number fields like the
 * others; CT_MODEL_MAX_REAL bounds how many a model has. */
static size_t model_real_fields(ct_model_kind kind, numfield *fs)
{
    const ct_model_info *mi = ct_model_info_of(kind);
    size_t n = 0;
    for (size_t i = 0; mi && i < mi->nkeys; i++) {
        const ct_model_key *k = &mi->keys[i];
        if (k->type != CT_PARAM_REAL)
            continue;
        fs[n++] = (numfield){.key = k->key,
                             .off = FOFF(penalty.real) + (size_t)k->slot * sizeof(double),
                             .conv = CONV_PLAIN,
                             .required = k->required,
                             .lo = k->lo,
                             .lo_open = k->lo_open,
                             .hi = k->hi,
                             .hi_open = k->hi_open,
                             .absent = 0};
    }
    return n;
}

static double *field_ptr(ct_fabric *f, const numfield *d)
{
    return (double *)((char *)f + d->off);
}

static double field_get(const ct_fabric *f, const numfield *d)
{
    double v;
    memcpy(&v, (const char *)f + d->off, sizeof v);
    return v;
}

/* The decimal text times 10^k, correctly rounded: the exponent is shifted in
 * the text so that "25.5" us becomes exactly the double nearest 25.5e-6 s
 * (multiplying the parsed double by 1e-6 would round twice). The text has
 * passed is_decimal(). */
static double strtod_shift(const char *text, long k)
{
    size_t n = strlen(text);
    const char *e = strpbrk(text, "eE");
    size_t mlen = e ? (size_t)(e - text) : n;
    long ex = 0;
    if (e) {
        errno = 0;
        ex = strtol(e + 1, NULL, 10);
        if (errno == ERANGE || ex > 100000 || ex < -100000)
            ex = ex > 0 ? 100000 : -100000; /* far beyond any double either way */
    }
    char small[128];
    char *buf = mlen + 32 <= sizeof small ? small : malloc(mlen + 32);
    if (!buf)
        return NAN;
    memcpy(buf, text, mlen);
    snprintf(buf + mlen, 32, "e%ld", ex + k);
    double v = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    return v;
}

/* SI value of a YAML number text of the given unit. */
static double to_si(conv c, const char *text)
{
    switch (c) {
    case CONV_US:
        return strtod_shift(text, -6);
    case CONV_MBPS:
        return strtod_shift(text, 6);
    case CONV_INV_MBPS:
        return 1.0 / strtod_shift(text, 6); /* Hockney beta = 1 / bandwidth */
    case CONV_PLAIN:
        break;
    }
    return strtod(text, NULL);
}

static double from_si(conv c, double si)
{
    switch (c) {
    case CONV_US:
        return si * 1e6;
    case CONV_MBPS:
        return si / 1e6;
    case CONV_INV_MBPS:
        return 1.0 / (si * 1e6);
    case CONV_PLAIN:
        break;
    }
    return si;
}

static int in_range(const numfield *d, double v)
{
    if (!isfinite(v))
        return 0;
    if (d->lo_open ? !(v > d->lo) : !(v >= d->lo))
        return 0;
    if (isfinite(d->hi) && (d->hi_open ? !(v < d->hi) : !(v <= d->hi)))
        return 0;
    return 1;
}

static void range_text(const numfield *d, char *buf, size_t sz)
{
    if (isfinite(d->hi))
        snprintf(buf, sz, "a number %s %g and %s %g", d->lo_open ? ">" : ">=", d->lo,
                 d->hi_open ? "<" : "<=", d->hi);
    else
        snprintf(buf, sz, "a number %s %g", d->lo_open ? ">" : ">=", d->lo);
}

static int fields_equal(const ct_fabric *a, const ct_fabric *b, const numfield *d)
{
    double x = field_get(a, d), y = field_get(b, d);
    if (!d->required && d->absent < 0 && x < 0 && y < 0)
        return 1; /* both "unknown" */
    return x == y;
}

/* ---- loading ----------------------------------------------------------- */

typedef struct ctx {
    const char *name;
    ct_err *err;
} ctx;

static int missing(const ctx *c, const ynode *map, const char *path, const char *key,
                   const char *required)
{
    return y_err(c->err, c->name, map, "%s: missing required key '%s' (required here: %s)", path,
                    key, required);
}

static int load_fields(const ctx *c, const ynode *map, const char *path, const numfield *fs,
                       size_t nfs, ct_fabric *fab)
{
    for (size_t i = 0; i < nfs; i++) {
        const numfield *d = &fs[i];
        const ynode *v = ymap_get(map, d->key);
        if (!v) {
            if (d->required) {
                char req[200];
                size_t used = 0;
                req[0] = '\0';
                for (size_t j = 0; j < nfs; j++) {
                    if (!fs[j].required)
                        continue;
                    int w = snprintf(req + used, sizeof req - used, "%s%s", used ? ", " : "",
                                     fs[j].key);
                    if (w < 0 || (size_t)w >= sizeof req - used)
                        break;
                    used += (size_t)w;
                }
                return missing(c, map, path, d->key, req);
            }
            *field_ptr(fab, d) = d->absent;
            continue;
        }
        char what[CT_NAME_MAX * 2 + 64];
        snprintf(what, sizeof what, "%s.%s", path, d->key);
        double x;
        if (y_number(c->name, v, what, &x, c->err) < 0)
            return -1;
        if (!in_range(d, x)) {
            char acc[96];
            range_text(d, acc, sizeof acc);
            return y_err(c->err, c->name, v, "%s is %s (accepted: %s)", what, v->str, acc);
        }
        double si = to_si(d->conv, v->str);
        if (!isfinite(si) || (d->conv == CONV_INV_MBPS && !(si > 0)))
            return y_err(c->err, c->name, v,
                            "%s is %s, out of range once converted to SI "
                            "(accepted: a number of ordinary magnitude)",
                            what, v->str);
        *field_ptr(fab, d) = si;
    }
    return 0;
}

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= CT_NAME_MAX || !isalnum((unsigned char)s[0]))
        return 0;
    /* YAML reads these as null when written unquoted as a value */
    if (strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!isalnum(ch) && ch != '_' && ch != '-' && ch != '.')
            return 0;
    }
    return 1;
}

static int load_name(const ctx *c, const ynode *n, const char *what, char *out)
{
    if (n->kind != Y_SCALAR || !name_ok(n->str))
        return y_err(c->err, c->name, n,
                        "%s '%.64s' is not a valid name (accepted: 1-%d characters from "
                        "A-Z a-z 0-9 _ - ., starting with a letter or digit)",
                        what, n->kind == Y_SCALAR ? n->str : "", CT_NAME_MAX - 1);
    memcpy(out, n->str, strlen(n->str) + 1);
    return 0;
}

static int date_ok(const char *s)
{
    if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
        return 0;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
            return 0;
    int mon = (s[5] - '0') * 10 + (s[6] - '0');
    int day = (s[8] - '0') * 10 + (s[9] - '0');
    return mon >= 1 && mon <= 12 && day >= 1 && day <= 31;
}

static int load_plogp(const ctx *c, const ynode *map, const char *path, ct_fabric *fab)
{
    static const char *const keys[] = {"L_us", "gap", NULL};
    if (y_expect(c->name, map, Y_MAP, path, c->err) < 0 ||
        ymap_check_keys(c->name, map, path, keys, c->err) < 0 ||
        load_fields(c, map, path, plogp_fields, NF(plogp_fields), fab) < 0)
        return -1;
    const ynode *gap = ymap_get(map, "gap");
    if (!gap)
        return 0;
    char what[CT_NAME_MAX * 2 + 64];
    snprintf(what, sizeof what, "%s.gap", path);
    if (y_expect(c->name, gap, Y_SEQ, what, c->err) < 0)
        return -1;
    if (gap->nitems > CT_GAP_MAX)
        return y_err(c->err, c->name, gap, "%s has %zu entries (accepted: at most %d)", what,
                        gap->nitems, CT_GAP_MAX);
    static const char *const ekeys[] = {"m_bytes", "g_us", NULL};
    for (size_t i = 0; i < gap->nitems; i++) {
        const ynode *e = gap->items[i];
        char ew[CT_NAME_MAX * 2 + 96];
        snprintf(ew, sizeof ew, "%s[%zu]", what, i);
        if (y_expect(c->name, e, Y_MAP, ew, c->err) < 0 ||
            ymap_check_keys(c->name, e, ew, ekeys, c->err) < 0)
            return -1;
        const ynode *m = ymap_get(e, "m_bytes"), *g = ymap_get(e, "g_us");
        if (!m)
            return missing(c, e, ew, "m_bytes", "m_bytes, g_us");
        if (!g)
            return missing(c, e, ew, "g_us", "m_bytes, g_us");
        char fw[CT_NAME_MAX * 2 + 128];
        double mv, gv;
        snprintf(fw, sizeof fw, "%s.m_bytes", ew);
        if (y_number(c->name, m, fw, &mv, c->err) < 0)
            return -1;
        if (mv < 0 || (i > 0 && !(mv > fab->gap_m[i - 1])))
            return y_err(c->err, c->name, m,
                            "%s is %s (accepted: a number >= 0, larger than "
                            "the previous entry's m_bytes)",
                            fw, m->str);
        snprintf(fw, sizeof fw, "%s.g_us", ew);
        if (y_number(c->name, g, fw, &gv, c->err) < 0)
            return -1;
        if (gv < 0)
            return y_err(c->err, c->name, g, "%s is %s (accepted: a number >= 0)", fw, g->str);
        fab->gap_m[i] = mv;
        fab->gap_g[i] = to_si(CONV_US, g->str);
    }
    fab->ngap = gap->nitems;
    return 0;
}

/* p2p.segments: the piecewise Hockney curve (p2p.h), one map per segment
 * {from_bytes, alpha_us, bandwidth_MBps}, from_bytes ascending from 0. */
static int load_segments(const ctx *c, const ynode *seq, const char *path, ct_fabric *fab)
{
    if (y_expect(c->name, seq, Y_SEQ, path, c->err) < 0)
        return -1;
    if (seq->nitems < 1 || seq->nitems > CT_P2P_MAX_SEG)
        return y_err(c->err, c->name, seq, "%s has %zu entries (accepted: 1 to %d)", path,
                        seq->nitems, CT_P2P_MAX_SEG);
    static const char *const keys[] = {"from_bytes", "alpha_us", "bandwidth_MBps", NULL};
    ct_p2p_curve *cv = &fab->p2p_segments;
    for (size_t i = 0; i < seq->nitems; i++) {
        const ynode *e = seq->items[i];
        char ew[CT_NAME_MAX * 2 + 96], fw[CT_NAME_MAX * 2 + 128];
        snprintf(ew, sizeof ew, "%s[%zu]", path, i);
        if (y_expect(c->name, e, Y_MAP, ew, c->err) < 0 ||
            ymap_check_keys(c->name, e, ew, keys, c->err) < 0)
            return -1;
        const ynode *v[3];
        double x[3];
        for (int k = 0; k < 3; k++) {
            v[k] = ymap_get(e, keys[k]);
            if (!v[k])
                return missing(c, e, ew, keys[k], "from_bytes, alpha_us, bandwidth_MBps");
            snprintf(fw, sizeof fw, "%s.%s", ew, keys[k]);
            if (y_number(c->name, v[k], fw, &x[k], c->err) < 0)
                return -1;
        }
        ct_p2p_seg *sg = &cv->seg[i];
        snprintf(fw, sizeof fw, "%s.from_bytes", ew);
        if (i == 0 && x[0] != 0)
            return y_err(c->err, c->name, v[0], "%s is %s (accepted: 0 for the first segment)",
                            fw, v[0]->str);
        if (i > 0 && !(x[0] > cv->seg[i - 1].from))
            return y_err(c->err, c->name, v[0],
                            "%s is %s (accepted: a size larger than the previous segment's "
                            "from_bytes)",
                            fw, v[0]->str);
        sg->from = x[0];
        snprintf(fw, sizeof fw, "%s.bandwidth_MBps", ew);
        sg->beta = to_si(CONV_INV_MBPS, v[2]->str);
        if (!(x[2] > 0) || !isfinite(sg->beta) || !(sg->beta > 0))
            return y_err(c->err, c->name, v[2], "%s is %s (accepted: a number > 0)", fw,
                            v[2]->str);
        snprintf(fw, sizeof fw, "%s.alpha_us", ew);
        sg->alpha = to_si(CONV_US, v[1]->str);
        if (!isfinite(sg->alpha) || (i == 0 && sg->alpha < 0))
            return y_err(c->err, c->name, v[1], "%s is %s (accepted: a number%s)", fw,
                            v[1]->str, i == 0 ? " >= 0 in the first segment" : "");
        if (i > 0 && !(sg->alpha + sg->from * sg->beta > 0))
            return y_err(c->err, c->name, v[1],
                            "%s is %s: the segment's time at from_bytes is %g us (accepted: "
                            "alpha_us + from_bytes / bandwidth > 0 where the segment starts)",
                            fw, v[1]->str, (sg->alpha + sg->from * sg->beta) * 1e6);
    }
    cv->nseg = seq->nitems;
    return 0;
}

static int load_penalty(const ctx *c, const ynode *map, const char *path, ct_fabric *fab)
{
    if (y_expect(c->name, map, Y_MAP, path, c->err) < 0)
        return -1;
    const ynode *m = ymap_get(map, "model");
    if (!m)
        return missing(c, map, path, "model", "model");
    char what[CT_NAME_MAX * 2 + 64], kind[32];
    snprintf(what, sizeof what, "%s.model", path);
    if (y_string(c->name, m, what, kind, sizeof kind, c->err) < 0)
        return y_err(c->err, c->name, m, "unknown penalty model '%.40s' (accepted: %s)",
                        m->kind == Y_SCALAR ? m->str : "", ct_model_names());
    const ct_model_info *mi = NULL;
    for (size_t k = 0; k < ct_model_count() && !mi; k++)
        if (strcmp(kind, ct_model_info_of((ct_model_kind)k)->name) == 0) {
            fab->penalty.kind = (ct_model_kind)k;
            mi = ct_model_info_of((ct_model_kind)k);
        }
    if (!mi)
        return y_err(c->err, c->name, m, "unknown penalty model '%s' (accepted: %s)", kind,
                        ct_model_names());
    const char *keys[CT_MODEL_MAX_REAL + CT_MODEL_MAX_INT + 3];
    size_t nk = 0;
    keys[nk++] = "model";
    for (size_t i = 0; i < mi->nkeys && nk < NF(keys) - 2; i++)
        keys[nk++] = mi->keys[i].key;
    keys[nk++] = "source";
    keys[nk] = NULL;
    char pw[CT_NAME_MAX * 2 + 64];
    snprintf(pw, sizeof pw, "%s (model %s)", path, kind);
    if (ymap_check_keys(c->name, map, pw, keys, c->err) < 0)
        return -1;
    const ynode *src = ymap_get(map, "source");
    snprintf(what, sizeof what, "%s.source", path);
    if (src && y_string(c->name, src, what, fab->penalty_source, sizeof fab->penalty_source,
                           c->err) < 0)
        return -1;
    numfield rf[CT_MODEL_MAX_REAL];
    size_t nrf = model_real_fields(fab->penalty.kind, rf);
    if (load_fields(c, map, path, rf, nrf, fab) < 0)
        return -1;
    for (size_t i = 0; i < mi->nkeys; i++) {
        const ct_model_key *k = &mi->keys[i];
        const ynode *v = ymap_get(map, k->key);
        if (k->type == CT_PARAM_REAL)
            continue;
        if (!v) {
            if (k->required)
                return missing(c, map, path, k->key, k->key);
            continue;
        }
        snprintf(what, sizeof what, "%s.%s", path, k->key);
        if (k->type == CT_PARAM_CHOICE) {
            size_t j = 0, n = 0;
            while (k->choices[n])
                n++;
            j = n;
            if (v->kind == Y_SCALAR && !y_is_null(v))
                for (j = 0; j < n && strcmp(v->str, k->choices[j]) != 0; j++)
                    ;
            if (j == n) {
                char acc[128];
                ct_model_key_accepted(k, acc, sizeof acc);
                return y_err(c->err, c->name, v, "%s '%.40s' is unknown (accepted: %s)", what,
                                v->kind == Y_SCALAR ? v->str : "", acc);
            }
            fab->penalty.integer[k->slot] = (int64_t)j;
        } else {
            long long x, lo = (long long)k->lo;
            long long hi = !isfinite(k->hi) || k->hi >= 0x1p63 ? LLONG_MAX : (long long)k->hi;
            if (y_integer(c->name, v, what, lo, hi, &x, c->err) < 0)
                return -1;
            fab->penalty.integer[k->slot] = (int64_t)x;
        }
    }
    return 0;
}


/* fabrics.F.topology (issue 14): switches by name, each with the nodes and
 * child switches directly under it and its uplink capacity. */
static int load_name_list(const ctx *c, const ynode *list, const char *what)
{
    if (y_expect(c->name, list, Y_SEQ, what, c->err) < 0)
        return -1;
    for (size_t i = 0; i < list->nitems; i++) {
        char iw[CT_NAME_MAX * 3 + 96], tmp[CT_NAME_MAX];
        snprintf(iw, sizeof iw, "%s[%zu]", what, i);
        if (load_name(c, list->items[i], iw, tmp) < 0)
            return -1;
    }
    return 0;
}

static int load_topology(const ctx *c, const ynode *map, const char *path, ct_fabric *fab)
{
    static const char *const keys[] = {"source", "switches", NULL};
    static const char *const skeys[] = {"nodes", "switches", "uplink_MBps",
                                        "uplink_oversubscription", "uplink_duplex", NULL};
    if (y_expect(c->name, map, Y_MAP, path, c->err) < 0 ||
        ymap_check_keys(c->name, map, path, keys, c->err) < 0)
        return -1;
    const ynode *sws = ymap_get(map, "switches");
    if (!sws)
        return missing(c, map, path, "switches", "switches");
    char what[CT_NAME_MAX * 3 + 64];
    snprintf(what, sizeof what, "%s.switches", path);
    if (y_expect(c->name, sws, Y_MAP, what, c->err) < 0 ||
        ymap_check_keys(c->name, sws, what, NULL, c->err) < 0)
        return -1;
    size_t ns = ymap_size(sws);
    if (ns == 0 || ns > CT_TOPO_MAX_SWITCHES)
        return y_err(c->err, c->name, sws, "%s has %zu switches (accepted: 1 to %d)", what, ns,
                        CT_TOPO_MAX_SWITCHES);
    ct_topology *t = calloc(1, sizeof *t);
    if (!t)
        return ct_err_set(c->err, "%s: out of memory", c->name);
    fab->topology = t; /* freed with the file, also on error */
    const ynode *src = ymap_get(map, "source");
    if (src) {
        char sw[CT_NAME_MAX * 3 + 64];
        snprintf(sw, sizeof sw, "%s.source", path);
        if (y_string(c->name, src, sw, t->source, sizeof t->source, c->err) < 0)
            return -1;
    }
    t->sw = calloc(ns, sizeof *t->sw);
    if (!t->sw)
        return ct_err_set(c->err, "%s: out of memory", c->name);
    t->nswitches = (int32_t)ns;
    size_t nn = 0;
    for (size_t i = 0; i < ns; i++) {
        const ynode *k = ymap_key(sws, i), *v = ymap_value(sws, i);
        if (load_name(c, k, "switch name", t->sw[i].name) < 0)
            return -1;
        t->sw[i].parent = -1;
        char sp[CT_NAME_MAX * 4 + 64];
        snprintf(sp, sizeof sp, "%s.%s", what, t->sw[i].name);
        if (y_expect(c->name, v, Y_MAP, sp, c->err) < 0 ||
            ymap_check_keys(c->name, v, sp, skeys, c->err) < 0)
            return -1;
        const ynode *n;
        char fw[CT_NAME_MAX * 4 + 96];
        if ((n = ymap_get(v, "nodes"))) {
            snprintf(fw, sizeof fw, "%s.nodes", sp);
            if (load_name_list(c, n, fw) < 0)
                return -1;
            nn += n->nitems;
        }
        if ((n = ymap_get(v, "switches"))) {
            snprintf(fw, sizeof fw, "%s.switches", sp);
            if (load_name_list(c, n, fw) < 0)
                return -1;
        }
        if ((n = ymap_get(v, "uplink_MBps"))) {
            snprintf(fw, sizeof fw, "%s.uplink_MBps", sp);
            double x;
            if (y_number(c->name, n, fw, &x, c->err) < 0)
                return -1;
            double si = to_si(CONV_MBPS, n->str);
            if (!(x > 0) || !isfinite(si) || !(si > 0))
                return y_err(c->err, c->name, n, "%s is %s (accepted: a number > 0)", fw,
                                n->str);
            t->sw[i].uplink_bw = si;
        }
        if ((n = ymap_get(v, "uplink_oversubscription"))) {
            snprintf(fw, sizeof fw, "%s.uplink_oversubscription", sp);
            double x;
            if (y_number(c->name, n, fw, &x, c->err) < 0)
                return -1;
            if (!(x > 0))
                return y_err(c->err, c->name, n,
                                "%s is %s (accepted: a number > 0, e.g. 4 for 4:1)", fw, n->str);
            t->sw[i].oversub = x;
        }
        if ((n = ymap_get(v, "uplink_duplex"))) {
            snprintf(fw, sizeof fw, "%s.uplink_duplex", sp);
            double x;
            if (y_number(c->name, n, fw, &x, c->err) < 0)
                return -1;
            if (!(x >= 0 && x <= 1))
                return y_err(c->err, c->name, n,
                                "%s is %s (accepted: a number from 0 to 1: the share of the "
                                "uplink's other direction a communication takes)",
                                fw, n->str);
            t->sw[i].duplex = x;
        }
        if (t->sw[i].uplink_bw > 0 && t->sw[i].oversub > 0)
            return y_err(c->err, c->name, ymap_get(v, "uplink_oversubscription"),
                            "%s gives both uplink_MBps and uplink_oversubscription (accepted: "
                            "one of them)",
                            sp);
    }
    if (nn == 0)
        return y_err(c->err, c->name, sws,
                        "%s lists no node (accepted: nodes under at least one switch)", what);
    if (nn > CT_TOPO_MAX_NODES)
        return y_err(c->err, c->name, sws, "%s lists %zu nodes (accepted: at most %d)", what,
                        nn, CT_TOPO_MAX_NODES);
    t->node = calloc(nn, sizeof *t->node);
    t->node_switch = calloc(nn, sizeof *t->node_switch);
    if (!t->node || !t->node_switch)
        return ct_err_set(c->err, "%s: out of memory", c->name);
    /* second pass: children and nodes by name; the tree's own checks
     * (names twice, one top switch, uplinks) follow in resolve */
    for (size_t i = 0; i < ns; i++) {
        const ynode *v = ymap_value(sws, i), *n;
        if ((n = ymap_get(v, "nodes")))
            for (size_t j = 0; j < n->nitems; j++) {
                memcpy(t->node[t->nnodes], n->items[j]->str, n->items[j]->len + 1);
                t->node_switch[t->nnodes++] = (int32_t)i;
            }
        if ((n = ymap_get(v, "switches")))
            for (size_t j = 0; j < n->nitems; j++) {
                const ynode *item = n->items[j];
                int32_t ch = ct_topology_switch(t, item->str);
                if (ch < 0)
                    return y_err(c->err, c->name, item,
                                    "%s.%s.switches names '%s', which is not a switch of this "
                                    "topology (accepted: a name under %s)",
                                    what, t->sw[i].name, item->str, what);
                if (ch == (int32_t)i || t->sw[ch].parent >= 0)
                    return y_err(c->err, c->name, item,
                                    "%s.%s.switches names '%s', which already hangs under '%s' "
                                    "(accepted: each switch under one parent, never itself)",
                                    what, t->sw[i].name, item->str,
                                    ch == (int32_t)i ? t->sw[i].name : t->sw[t->sw[ch].parent].name);
                t->sw[ch].parent = (int32_t)i;
            }
    }
    ct_err e2;
    int32_t at;
    if (ct_topology_resolve(t, 1.0 / fab->beta, &at, &e2) < 0)
        return y_err(c->err, c->name, at >= 0 ? ymap_key(sws, (size_t)at) : sws, "%s: %s",
                        what, e2.msg);
    return 0;
}

static int load_fabric(const ctx *c, const ynode *key, const ynode *val, ct_fabric *fab)
{
    ct_fabric_init(fab);
    if (load_name(c, key, "fabric name", fab->name) < 0)
        return -1;
    char path[CT_NAME_MAX + 16], what[CT_NAME_MAX + 64];
    snprintf(path, sizeof path, "fabrics.%s", fab->name);
    static const char *const keys[] = {"description",
                                       "published",
                                       "source",
                                       "tcp_congestion_control",
                                       "p2p",
                                       "alltoall",
                                       "penalty",
                                       "intra_node_bandwidth_MBps",
                                       "intra_node_shared_MBps",
                                       "intra_node_latency_us",
                                       "intra_node_line_MBps",
                                       "intra_node_shared_latency_us",
                                       "intra_node_shared_line_MBps",
                                       "topology",
                                       NULL};
    if (y_expect(c->name, val, Y_MAP, path, c->err) < 0 ||
        ymap_check_keys(c->name, val, path, keys, c->err) < 0)
        return -1;
    const ynode *n;
    if ((n = ymap_get(val, "description"))) {
        snprintf(what, sizeof what, "%s.description", path);
        if (y_string(c->name, n, what, fab->description, sizeof fab->description, c->err) < 0)
            return -1;
    }
    if ((n = ymap_get(val, "published"))) {
        snprintf(what, sizeof what, "%s.published", path);
        if (y_bool(c->name, n, what, &fab->published, c->err) < 0)
            return -1;
    }
    if ((n = ymap_get(val, "source"))) {
        snprintf(what, sizeof what, "%s.source", path);
        if (y_string(c->name, n, what, fab->source, sizeof fab->source, c->err) < 0)
            return -1;
    }
    if ((n = ymap_get(val, "tcp_congestion_control"))) {
        snprintf(what, sizeof what, "%s.tcp_congestion_control", path);
        if (n->kind != Y_SCALAR || !ct_tcp_cc_ok(n->str))
            return y_err(c->err, c->name, n,
                         "%s '%.64s' is not a TCP congestion control's name (accepted: 1-%d "
                         "characters from a-z 0-9 _, e.g. cubic or bbr)",
                         what, n->kind == Y_SCALAR ? n->str : "", CT_TCP_CC_MAX - 1);
        memcpy(fab->tcp_cc, n->str, strlen(n->str) + 1);
    }

    const ynode *p2p = ymap_get(val, "p2p");
    if (!p2p)
        return missing(c, val, path, "p2p", "p2p");
    snprintf(what, sizeof what, "%s.p2p", path);
    static const char *const p2p_keys[] = {"alpha_us", "bandwidth_MBps", "exchange_us",
                                           "bucket_bytes", "bucket_pause_us", "source",
                                           "plogp",    "segments",       NULL};
    if (y_expect(c->name, p2p, Y_MAP, what, c->err) < 0 ||
        ymap_check_keys(c->name, p2p, what, p2p_keys, c->err) < 0 ||
        load_fields(c, p2p, what, p2p_fields, NF(p2p_fields), fab) < 0)
        return -1;
    if ((n = ymap_get(p2p, "source"))) {
        char sw[CT_NAME_MAX + 80];
        snprintf(sw, sizeof sw, "%s.source", what);
        if (y_string(c->name, n, sw, fab->p2p_source, sizeof fab->p2p_source, c->err) < 0)
            return -1;
    }
    if ((n = ymap_get(p2p, "plogp"))) {
        char pw[CT_NAME_MAX + 80];
        snprintf(pw, sizeof pw, "%s.plogp", what);
        if (load_plogp(c, n, pw, fab) < 0)
            return -1;
    }
    if ((n = ymap_get(p2p, "segments"))) {
        char pw[CT_NAME_MAX + 80];
        snprintf(pw, sizeof pw, "%s.segments", what);
        if (load_segments(c, n, pw, fab) < 0)
            return -1;
    }

    const ynode *a2a = ymap_get(val, "alltoall");
    if (a2a) {
        snprintf(what, sizeof what, "%s.alltoall", path);
        static const char *const a2a_keys[] = {"gamma",        "delta_us",    "M_bytes",
                                               "date",         "fitted_n",    "fit_max_rel_err",
                                               "gamma_incast", "gamma_flows", "call_us",
                                               "incast_max_k", "flows_max_f", "flows_exponent",
                                               "gamma_loss",   "loss_min_f",  "loss_max_f",
                                               "call_incast_us", NULL};
        if (y_expect(c->name, a2a, Y_MAP, what, c->err) < 0 ||
            ymap_check_keys(c->name, a2a, what, a2a_keys, c->err) < 0 ||
            load_fields(c, a2a, what, a2a_fields, NF(a2a_fields), fab) < 0)
            return -1;
        /* alltoall.h: the incast-loss term needs its flow bounds in order */
        if (!ct_a2a_loss_bounds_ok(&fab->alltoall))
            return y_err(c->err, c->name, ymap_get(a2a, "gamma_loss"),
                         "%s.gamma_loss is %g with loss_min_f %g and loss_max_f %g (accepted: "
                         "loss_min_f < loss_max_f, both given)",
                         what, fab->alltoall.gamma_loss, fab->alltoall.loss_min_f,
                         fab->alltoall.loss_max_f);
        char sw[CT_NAME_MAX + 80];
        if ((n = ymap_get(a2a, "date"))) {
            snprintf(sw, sizeof sw, "%s.date", what);
            char d[64];
            if (y_string(c->name, n, sw, d, sizeof d, c->err) < 0 || !date_ok(d))
                return y_err(c->err, c->name, n,
                                "%s is '%.40s' (accepted: an ISO date "
                                "YYYY-MM-DD)",
                                sw, n->kind == Y_SCALAR ? n->str : "");
            memcpy(fab->a2a_date, d, sizeof fab->a2a_date);
        }
        if ((n = ymap_get(a2a, "fitted_n"))) {
            long long v;
            snprintf(sw, sizeof sw, "%s.fitted_n", what);
            if (y_integer(c->name, n, sw, 2, INT32_MAX, &v, c->err) < 0)
                return -1;
            fab->a2a_fitted_n = (int)v;
        }
        fab->has_alltoall = 1;
    }

    const ynode *pen = ymap_get(val, "penalty");
    if (pen) {
        snprintf(what, sizeof what, "%s.penalty", path);
        if (load_penalty(c, pen, what, fab) < 0)
            return -1;
    }
    const ynode *topo = ymap_get(val, "topology");
    if (topo) { /* after p2p: an oversubscription ratio needs the NIC bandwidth */
        snprintf(what, sizeof what, "%s.topology", path);
        if (load_topology(c, topo, what, fab) < 0)
            return -1;
    }
    if (load_fields(c, val, path, fabric_fields, NF(fabric_fields), fab) < 0)
        return -1;
    /* the intra-node lines (session 57): a latency needs its line's rate (a
     * rate alone is a line of latency 0, as the writer omits a zero), and
     * the shared line the shared rate */
    static const char *const pairs[][2] = {
        {"intra_node_latency_us", "intra_node_line_MBps"},
        {"intra_node_shared_latency_us", "intra_node_shared_line_MBps"}};
    for (size_t i = 0; i < 2; i++) {
        const ynode *a = ymap_get(val, pairs[i][0]);
        if (a && !ymap_get(val, pairs[i][1]))
            return y_err(c->err, c->name, a,
                         "%s.%s given without %s.%s (accepted: a latency with its line's rate)",
                         path, pairs[i][0], path, pairs[i][1]);
    }
    const ynode *sl = ymap_get(val, "intra_node_shared_line_MBps");
    if (sl && !(fab->intra_shared_bw > 0))
        return y_err(c->err, c->name, sl,
                     "%s.intra_node_shared_line_MBps given without %s.intra_node_shared_MBps "
                     "(accepted: the shared line only with the shared rate)",
                     path, path);
    return 0;
}

static long find_fabric(const ct_sigfile *sf, const char *name)
{
    for (size_t i = 0; i < sf->nfabrics; i++)
        if (strcmp(sf->fabrics[i].name, name) == 0)
            return (long)i;
    return -1;
}

static int unknown_fabric(const ctx *c, const ct_sigfile *sf, const ynode *n, const char *what)
{
    char list[200];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < sf->nfabrics; i++) {
        int w =
            snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", sf->fabrics[i].name);
        if (w < 0 || (size_t)w >= sizeof list - used) {
            snprintf(list + (sizeof list > 5 ? sizeof list - 5 : 0), 5, "...");
            break;
        }
        used += (size_t)w;
    }
    return y_err(c->err, c->name, n,
                    "%s names fabric '%.64s', which is not defined "
                    "(accepted: a fabric of this file: %s)",
                    what, n->str, list);
}

static int load_root(const ctx *c, const ynode *root, ct_sigfile *sf)
{
    if (!root || y_is_null(root))
        return ct_err_set(c->err,
                          "%s:1:1: the file is empty (accepted: a mapping starting "
                          "with 'version: 1'; see conf/README.md)",
                          c->name);
    if (root->kind != Y_MAP)
        return y_err(c->err, c->name, root,
                        "the top level is %s (accepted: a mapping with "
                        "keys version, fabrics, partitions, default)",
                        ykind_name(root));
    /* the version first: a newer file's new keys must not be reported as unknown */
    const ynode *ver = ymap_get(root, "version");
    if (!ver)
        return missing(c, root, "top level", "version", "version (write 'version: 1')");
    long long v;
    if (y_integer(c->name, ver, "version", LLONG_MIN, LLONG_MAX, &v, c->err) < 0)
        return y_err(c->err, c->name, ver, "version is '%.40s' (accepted: %d, unquoted)",
                        ver->kind == Y_SCALAR ? ver->str : "", CT_SIG_VERSION);
    if (v > CT_SIG_VERSION)
        return y_err(c->err, c->name, ver,
                        "version %lld is newer than this slurm-contention "
                        "understands (accepted: %d; upgrade slurm-contention)",
                        v, CT_SIG_VERSION);
    if (v < CT_SIG_VERSION)
        return y_err(c->err, c->name, ver, "version %lld is not a schema version (accepted: %d)",
                        v, CT_SIG_VERSION);
    sf->version = (int)v;
    static const char *const keys[] = {"version", "fabrics", "partitions", "default", NULL};
    if (ymap_check_keys(c->name, root, "the top level", keys, c->err) < 0)
        return -1;

    const ynode *fabs = ymap_get(root, "fabrics");
    if (!fabs)
        return missing(c, root, "top level", "fabrics", "version, fabrics");
    if (y_expect(c->name, fabs, Y_MAP, "fabrics", c->err) < 0 ||
        ymap_check_keys(c->name, fabs, "fabrics", NULL, c->err) < 0)
        return -1;
    size_t nf = ymap_size(fabs);
    if (nf == 0)
        return y_err(c->err, c->name, fabs, "fabrics is empty (accepted: at least one fabric)");
    if (nf > CT_SIG_MAX_FABRICS)
        return y_err(c->err, c->name, fabs, "%zu fabrics (accepted: at most %d)", nf,
                        CT_SIG_MAX_FABRICS);
    sf->fabrics = calloc(nf, sizeof *sf->fabrics);
    if (!sf->fabrics)
        return ct_err_set(c->err, "%s: out of memory", c->name);
    for (size_t i = 0; i < nf; i++) {
        sf->nfabrics = i + 1; /* counted first: a topology loaded before an error is freed */
        if (load_fabric(c, ymap_key(fabs, i), ymap_value(fabs, i), &sf->fabrics[i]) < 0)
            return -1;
    }

    const ynode *parts = ymap_get(root, "partitions");
    if (parts && !y_is_null(parts)) {
        if (y_expect(c->name, parts, Y_MAP, "partitions", c->err) < 0 ||
            ymap_check_keys(c->name, parts, "partitions", NULL, c->err) < 0)
            return -1;
        size_t np = ymap_size(parts);
        if (np > CT_SIG_MAX_PARTITIONS)
            return y_err(c->err, c->name, parts, "%zu partitions (accepted: at most %d)", np,
                            CT_SIG_MAX_PARTITIONS);
        if (np) {
            sf->parts = calloc(np, sizeof *sf->parts);
            if (!sf->parts)
                return ct_err_set(c->err, "%s: out of memory", c->name);
        }
        for (size_t i = 0; i < np; i++) {
            const ynode *k = ymap_key(parts, i), *val = ymap_value(parts, i);
            ct_partition_map *pm = &sf->parts[i];
            if (load_name(c, k, "partition name", pm->partition) < 0)
                return -1;
            char what[CT_NAME_MAX + 32], fname[CT_NAME_MAX];
            snprintf(what, sizeof what, "partitions.%s", pm->partition);
            if (y_string(c->name, val, what, fname, sizeof fname, c->err) < 0)
                return -1;
            long idx = find_fabric(sf, fname);
            if (idx < 0)
                return unknown_fabric(c, sf, val, what);
            pm->fabric = (size_t)idx;
            sf->nparts = i + 1;
        }
    }

    const ynode *def = ymap_get(root, "default");
    if (def) {
        char fname[CT_NAME_MAX];
        if (y_string(c->name, def, "default", fname, sizeof fname, c->err) < 0)
            return -1;
        sf->default_fabric = find_fabric(sf, fname);
        if (sf->default_fabric < 0)
            return unknown_fabric(c, sf, def, "default");
    }
    return 0;
}

static void sigfile_reset(ct_sigfile *sf)
{
    memset(sf, 0, sizeof *sf);
    sf->default_fabric = -1;
}

int ct_sigfile_load_buffer(const char *name, const char *buf, size_t len, ct_sigfile *out,
                           ct_err *err)
{
    sigfile_reset(out);
    if (!name)
        name = "<buffer>";
    if (!buf && len)
        return ct_err_set(err, "%s: no data", name);
    if (len > CT_SIG_MAX_BYTES)
        return ct_err_set(err,
                          "%s: %zu bytes (accepted: at most %u bytes; is this the right "
                          "file?)",
                          name, len, CT_SIG_MAX_BYTES);
    ynode *root = NULL;
    if (ytree_parse(name, buf ? buf : "", len, &root, err) < 0)
        return -1;
    ctx c = {name, err};
    int rc = load_root(&c, root, out);
    ynode_free(root);
    if (rc < 0)
        ct_sigfile_free(out);
    return rc;
}

int ct_sigfile_load(const char *path, ct_sigfile *out, ct_err *err)
{
    sigfile_reset(out);
    char *buf;
    size_t len;
    int rc = ct_read_file(path, CT_SIG_MAX_BYTES, "a signature file; is this the right file?", &buf,
                          &len, err);
    if (rc == 0)
        rc = ct_sigfile_load_buffer(path, buf, len, out, err);
    free(buf);
    return rc;
}

void ct_sigfile_free(ct_sigfile *sf)
{
    if (!sf)
        return;
    for (size_t i = 0; sf->fabrics && i < sf->nfabrics; i++) {
        ct_topology_free(sf->fabrics[i].topology);
        free(sf->fabrics[i].topology);
    }
    free(sf->fabrics);
    free(sf->parts);
    sigfile_reset(sf);
}

const ct_fabric *ct_sigfile_fabric(const ct_sigfile *sf, const char *name)
{
    if (!sf || !name)
        return NULL;
    long i = find_fabric(sf, name);
    return i < 0 ? NULL : &sf->fabrics[i];
}

const ct_fabric *ct_sigfile_for_partition(const ct_sigfile *sf, const char *partition)
{
    if (!sf)
        return NULL;
    if (partition) {
        for (size_t i = 0; i < sf->nparts; i++)
            if (strcmp(sf->parts[i].partition, partition) == 0 &&
                sf->parts[i].fabric < sf->nfabrics)
                return &sf->fabrics[sf->parts[i].fabric];
    }
    if (sf->default_fabric >= 0 && (size_t)sf->default_fabric < sf->nfabrics)
        return &sf->fabrics[sf->default_fabric];
    return NULL;
}

/* ---- in-memory checks, comparison ------------------------------------- */

void ct_fabric_p2p_at(const ct_fabric *fab, double m, double *alpha, double *beta)
{
    if (fab->p2p_segments.nseg > 0) {
        ct_p2p_at(&fab->p2p_segments, m, alpha, beta); /* piecewise Hockney (p2p.h) */
        return;
    }
    *alpha = fab->alpha;
    *beta = fab->beta;
}

void ct_fabric_init(ct_fabric *fab)
{
    memset(fab, 0, sizeof *fab);
    fab->a2a_fit_error = -1;
    fab->penalty.kind = CT_MODEL_NONE;
}

static int check_fields(const ct_fabric *fab, const char *section, const numfield *fs, size_t n,
                        ct_err *err)
{
    for (size_t i = 0; i < n; i++) {
        const numfield *d = &fs[i];
        double si = field_get(fab, d);
        if (!d->required && si == d->absent)
            continue;
        if (!d->required && d->absent < 0 && si < 0)
            continue;
        double v = from_si(d->conv, si);
        if (!in_range(d, v) || !isfinite(si) || (d->conv == CONV_INV_MBPS && !(si > 0))) {
            char acc[96];
            range_text(d, acc, sizeof acc);
            return ct_err_set(err, "fabric '%s': %s%s is %g (accepted: %s)", fab->name, section,
                              d->key, v, acc);
        }
    }
    return 0;
}

static int text_ok(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

int ct_tcp_cc_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

int ct_tcp_cc_ok(const char *s)
{
    const char *end = memchr(s, '\0', CT_TCP_CC_MAX);
    if (!end || end == s)
        return 0;
    for (; s < end; s++)
        if (!ct_tcp_cc_char(*s))
            return 0;
    return 1;
}

int ct_fabric_validate(const ct_fabric *fab, ct_err *err)
{
    if (!fab)
        return ct_err_set(err, "no fabric");
    if (!text_ok(fab->name, sizeof fab->name) || !name_ok(fab->name))
        return ct_err_set(err,
                          "fabric name '%.*s' is not valid (accepted: 1-%d characters from "
                          "A-Z a-z 0-9 _ - ., starting with a letter or digit)",
                          CT_NAME_MAX - 1, fab->name, CT_NAME_MAX - 1);
    if (!text_ok(fab->description, sizeof fab->description) ||
        !text_ok(fab->source, sizeof fab->source) ||
        !text_ok(fab->p2p_source, sizeof fab->p2p_source) ||
        !text_ok(fab->penalty_source, sizeof fab->penalty_source) ||
        !text_ok(fab->a2a_date, sizeof fab->a2a_date) || !text_ok(fab->tcp_cc, sizeof fab->tcp_cc))
        return ct_err_set(err, "fabric '%s': a text field is not terminated", fab->name);
    if (fab->tcp_cc[0] && !ct_tcp_cc_ok(fab->tcp_cc))
        return ct_err_set(err,
                          "fabric '%s': tcp_congestion_control '%s' is not a TCP congestion "
                          "control's name (accepted: 1-%d characters from a-z 0-9 _, e.g. cubic "
                          "or bbr)",
                          fab->name, fab->tcp_cc, CT_TCP_CC_MAX - 1);
    if (fab->published != 0 && fab->published != 1)
        return ct_err_set(err, "fabric '%s': published is %d (accepted: 0 or 1)", fab->name,
                          fab->published);
    if (check_fields(fab, "p2p.", p2p_fields, NF(p2p_fields), err) < 0 ||
        check_fields(fab, "", fabric_fields, NF(fabric_fields), err) < 0 ||
        check_fields(fab, "p2p.plogp.", plogp_fields, NF(plogp_fields), err) < 0)
        return -1;
    if ((fab->intra_alpha > 0) && !(fab->intra_line_bw > 0))
        return ct_err_set(err,
                          "fabric '%s': intra_node_latency_us %g without intra_node_line_MBps "
                          "(accepted: a latency with its line's rate)",
                          fab->name, fab->intra_alpha * 1e6);
    if ((fab->intra_shared_alpha > 0 && !(fab->intra_shared_line_bw > 0)) ||
        (fab->intra_shared_line_bw > 0 && !(fab->intra_shared_bw > 0)))
        return ct_err_set(err,
                          "fabric '%s': the shared intra-node line (latency %g us, %g MB/s) "
                          "needs intra_node_shared_MBps and intra_node_shared_line_MBps > 0",
                          fab->name, fab->intra_shared_alpha * 1e6,
                          fab->intra_shared_line_bw / 1e6);
    if (fab->p2p_segments.nseg > 0) {
        char what[CT_NAME_MAX + 32];
        snprintf(what, sizeof what, "fabric '%s': p2p.segments", fab->name);
        if (ct_p2p_check(&fab->p2p_segments, what, err) < 0)
            return -1;
    }
    if (fab->ngap > CT_GAP_MAX)
        return ct_err_set(err, "fabric '%s': %zu pLogP gap entries (accepted: at most %d)",
                          fab->name, fab->ngap, CT_GAP_MAX);
    for (size_t i = 0; i < fab->ngap; i++) {
        if (!isfinite(fab->gap_m[i]) || fab->gap_m[i] < 0 ||
            (i > 0 && !(fab->gap_m[i] > fab->gap_m[i - 1])))
            return ct_err_set(err,
                              "fabric '%s': gap entry %zu has m = %g (accepted: finite, "
                              ">= 0, ascending)",
                              fab->name, i, fab->gap_m[i]);
        if (!isfinite(fab->gap_g[i]) || fab->gap_g[i] < 0)
            return ct_err_set(err,
                              "fabric '%s': gap entry %zu has g = %g s (accepted: finite, "
                              ">= 0)",
                              fab->name, i, fab->gap_g[i]);
    }
    if (fab->has_alltoall) {
        if (check_fields(fab, "alltoall.", a2a_fields, NF(a2a_fields), err) < 0)
            return -1;
        if (fab->a2a_date[0] && !date_ok(fab->a2a_date))
            return ct_err_set(err, "fabric '%s': alltoall.date '%s' (accepted: YYYY-MM-DD)",
                              fab->name, fab->a2a_date);
        if (!ct_a2a_loss_bounds_ok(&fab->alltoall))
            return ct_err_set(err,
                              "fabric '%s': alltoall.gamma_loss = %g with loss_min_f = %g, "
                              "loss_max_f = %g (accepted: loss_min_f < loss_max_f)",
                              fab->name, fab->alltoall.gamma_loss, fab->alltoall.loss_min_f,
                              fab->alltoall.loss_max_f);
        if (fab->a2a_fitted_n != 0 && fab->a2a_fitted_n < 2)
            return ct_err_set(err,
                              "fabric '%s': alltoall.fitted_n is %d (accepted: >= 2, or 0 "
                              "for unknown)",
                              fab->name, fab->a2a_fitted_n);
    }
    const ct_model_info *mi = ct_model_info_of(fab->penalty.kind);
    if (!mi)
        return ct_err_set(err, "fabric '%s': penalty model %d (accepted: %s)", fab->name,
                          (int)fab->penalty.kind, ct_model_names());
    numfield rf[CT_MODEL_MAX_REAL];
    size_t nrf = model_real_fields(fab->penalty.kind, rf);
    if (check_fields(fab, "penalty.", rf, nrf, err) < 0)
        return -1;
    if (fab->topology) {
        ct_topology tc;
        ct_err e2;
        if (ct_topology_copy(&tc, fab->topology, err) < 0)
            return -1;
        int rc = ct_topology_resolve(&tc, 1.0 / fab->beta, NULL, &e2);
        ct_topology_free(&tc);
        if (rc < 0)
            return ct_err_set(err, "fabric '%s': topology: %s", fab->name, e2.msg);
        for (int32_t s = 0; s < fab->topology->nswitches; s++)
            if (!name_ok(fab->topology->sw[s].name))
                return ct_err_set(err, "fabric '%s': switch name '%.64s' is not valid", fab->name,
                                  fab->topology->sw[s].name);
        for (int32_t v = 0; v < fab->topology->nnodes; v++)
            if (!name_ok(fab->topology->node[v]))
                return ct_err_set(err, "fabric '%s': node name '%.64s' is not valid", fab->name,
                                  fab->topology->node[v]);
    }
    /* the other keys and the model's own rules */
    if (ct_model_check(&fab->penalty, err) < 0)
        return ct_err_prefix(err, "fabric '%s': penalty: ", fab->name);
    return 0;
}

typedef struct diffbuf {
    char *buf;
    size_t sz, used;
    size_t count;
} diffbuf;

static void diff_add(diffbuf *d, const char *key)
{
    d->count++;
    if (!d->buf || d->sz == 0)
        return;
    int w = snprintf(d->buf + d->used, d->sz - d->used, "%s%s", d->count > 1 ? ", " : "", key);
    if (w > 0)
        d->used = (size_t)w >= d->sz - d->used ? d->sz - 1 : d->used + (size_t)w;
}

static void diff_fields(diffbuf *d, const ct_fabric *a, const ct_fabric *b, const char *section,
                        const numfield *fs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!fields_equal(a, b, &fs[i])) {
            char key[96];
            snprintf(key, sizeof key, "%s%s", section, fs[i].key);
            diff_add(d, key);
        }
    }
}

size_t ct_fabric_diff(const ct_fabric *a, const ct_fabric *b, char *buf, size_t bufsz)
{
    diffbuf d = {buf, bufsz, 0, 0};
    if (buf && bufsz)
        buf[0] = '\0';
    if (strcmp(a->description, b->description))
        diff_add(&d, "description");
    if (a->published != b->published)
        diff_add(&d, "published");
    if (strcmp(a->source, b->source))
        diff_add(&d, "source");
    if (strcmp(a->tcp_cc, b->tcp_cc))
        diff_add(&d, "tcp_congestion_control");
    diff_fields(&d, a, b, "p2p.", p2p_fields, NF(p2p_fields));
    if (strcmp(a->p2p_source, b->p2p_source))
        diff_add(&d, "p2p.source");
    diff_fields(&d, a, b, "p2p.plogp.", plogp_fields, NF(plogp_fields));
    int gap_same = a->ngap == b->ngap;
    for (size_t i = 0; gap_same && i < a->ngap && i < CT_GAP_MAX; i++)
        gap_same = a->gap_m[i] == b->gap_m[i] && a->gap_g[i] == b->gap_g[i];
    if (!gap_same)
        diff_add(&d, "p2p.plogp.gap");
    int seg_same = a->p2p_segments.nseg == b->p2p_segments.nseg;
    for (size_t i = 0; seg_same && i < a->p2p_segments.nseg && i < CT_P2P_MAX_SEG; i++)
        seg_same = a->p2p_segments.seg[i].from == b->p2p_segments.seg[i].from &&
                   a->p2p_segments.seg[i].alpha == b->p2p_segments.seg[i].alpha &&
                   a->p2p_segments.seg[i].beta == b->p2p_segments.seg[i].beta;
    if (!seg_same)
        diff_add(&d, "p2p.segments");
    if (a->has_alltoall != b->has_alltoall) {
        diff_add(&d, "alltoall");
    } else if (a->has_alltoall) {
        diff_fields(&d, a, b, "alltoall.", a2a_fields, NF(a2a_fields));
        if (strcmp(a->a2a_date, b->a2a_date))
            diff_add(&d, "alltoall.date");
        if (a->a2a_fitted_n != b->a2a_fitted_n)
            diff_add(&d, "alltoall.fitted_n");
    }
    if (a->penalty.kind != b->penalty.kind) {
        diff_add(&d, "penalty.model");
    } else {
        const ct_model_info *mi = ct_model_info_of(a->penalty.kind);
        for (size_t i = 0; mi && i < mi->nkeys; i++) {
            const ct_model_key *k = &mi->keys[i];
            int same = k->type == CT_PARAM_REAL
                           ? a->penalty.real[k->slot] == b->penalty.real[k->slot]
                           : a->penalty.integer[k->slot] == b->penalty.integer[k->slot];
            if (!same) {
                char key[96];
                snprintf(key, sizeof key, "penalty.%s", k->key);
                diff_add(&d, key);
            }
        }
    }
    if (strcmp(a->penalty_source, b->penalty_source))
        diff_add(&d, "penalty.source");
    diff_fields(&d, a, b, "", fabric_fields, NF(fabric_fields));
    if ((a->topology == NULL) != (b->topology == NULL) ||
        (a->topology && !ct_topology_equal(a->topology, b->topology)))
        diff_add(&d, "topology");
    return d.count;
}

int ct_sigfile_equal(const ct_sigfile *a, const ct_sigfile *b)
{
    if (a->version != b->version || a->nfabrics != b->nfabrics || a->nparts != b->nparts ||
        a->default_fabric != b->default_fabric)
        return 0;
    for (size_t i = 0; i < a->nfabrics; i++)
        if (strcmp(a->fabrics[i].name, b->fabrics[i].name) ||
            ct_fabric_diff(&a->fabrics[i], &b->fabrics[i], NULL, 0))
            return 0;
    for (size_t i = 0; i < a->nparts; i++)
        if (strcmp(a->parts[i].partition, b->parts[i].partition) ||
            a->parts[i].fabric != b->parts[i].fabric)
            return 0;
    return 1;
}

/* ---- writing ------------------------------------------------------------ */

/* Print v times 10^k as the shortest decimal that reads back (through
 * strtod_shift with -k) as exactly v: the digits are those of the shortest
 * round-tripping %e form of v, only the decimal point moves. */
static void write_shifted(FILE *f, double v, int k)
{
    if (v == 0) {
        fputs("0", f);
        return;
    }
    char s[40];
    for (int prec = 0; prec <= 16; prec++) {
        snprintf(s, sizeof s, "%.*e", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    /* s = [-]D[.DDD]e[+-]XX */
    const char *p = s;
    if (*p == '-') {
        fputc('-', f);
        p++;
    }
    char digits[24];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p) && nd < sizeof digits - 1)
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    long ex = strtol(p + 1, NULL, 10) + k; /* value = D.DDD x 10^ex */
    if (ex >= 0 && ex < 16) {
        for (long i = 0; i <= ex || i < (long)nd; i++) {
            if (i == ex + 1)
                fputc('.', f);
            fputc(i < (long)nd ? digits[i] : '0', f);
        }
    } else if (ex < 0 && ex >= -6) {
        fputs("0.", f);
        for (long i = -1; i > ex; i--)
            fputc('0', f);
        fputs(digits, f);
    } else {
        fputc(digits[0], f);
        if (nd > 1)
            fprintf(f, ".%s", digits + 1);
        fprintf(f, "e%ld", ex);
    }
}

/* A bandwidth x (bytes/s) with 1/x == beta exactly. Loading computes
 * beta = 1/x, and that map skips some doubles, so a beta computed elsewhere
 * (a fit) may have no exact preimage: then the nearest one is used and the
 * written file holds beta to within an ulp; values loaded from a file always
 * have one and round-trip bit for bit. */
static double bandwidth_of(double beta)
{
    double x0 = 1.0 / beta, up = x0, down = x0;
    if (1.0 / x0 == beta)
        return x0;
    for (int i = 0; i < 64; i++) {
        up = nextafter(up, INFINITY);
        down = nextafter(down, 0);
        if (1.0 / up == beta)
            return up;
        if (1.0 / down == beta)
            return down;
    }
    return x0;
}

static void write_value(FILE *f, conv c, double si)
{
    switch (c) {
    case CONV_US:
        write_shifted(f, si, 6);
        return;
    case CONV_MBPS:
        write_shifted(f, si, -6);
        return;
    case CONV_INV_MBPS:
        write_shifted(f, bandwidth_of(si), -6);
        return;
    case CONV_PLAIN:
        break;
    }
    write_shifted(f, si, 0);
}

static void write_fields(FILE *f, const ct_fabric *fab, const char *indent, const numfield *fs,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const numfield *d = &fs[i];
        double si = field_get(fab, d);
        if (!d->required && (si == d->absent || (d->absent < 0 && si < 0)))
            continue;
        fprintf(f, "%s%s: ", indent, d->key);
        write_value(f, d->conv, si);
        fputc('\n', f);
    }
}

static void write_text(FILE *f, const char *indent, const char *key, const char *s)
{
    if (!s[0])
        return;
    fprintf(f, "%s%s: ", indent, key);
    y_write_string(f, s);
    fputc('\n', f);
}


static void write_name_list(FILE *f, const char *indent, const char *key, const char *first,
                            size_t stride, const int32_t *sel, int32_t want, int32_t n)
{
    int any = 0;
    for (int32_t i = 0; i < n; i++) {
        if (sel[i] != want)
            continue;
        fprintf(f, any ? ", " : "%s%s: [", indent, key);
        y_write_string(f, first + (size_t)i * stride);
        any = 1;
    }
    if (any)
        fputs("]\n", f);
}

static void write_topology(FILE *f, const ct_topology *t)
{
    fputs("    topology:\n", f);
    write_text(f, "      ", "source", t->source);
    fputs("      switches:\n", f);
    int32_t *parent = malloc((t->nswitches > 0 ? (size_t)t->nswitches : 1) * sizeof *parent);
    for (int32_t s = 0; parent && s < t->nswitches; s++)
        parent[s] = t->sw[s].parent;
    for (int32_t s = 0; s < t->nswitches; s++) {
        fputs("        ", f);
        y_write_string(f, t->sw[s].name);
        fputs(":", f);
        int empty = 1;
        for (int32_t x = 0; x < t->nswitches && empty; x++)
            empty = t->sw[x].parent != s;
        for (int32_t v = 0; v < t->nnodes && empty; v++)
            empty = t->node_switch[v] != s;
        if (empty && t->sw[s].uplink_bw == 0 && t->sw[s].oversub == 0 &&
            t->sw[s].duplex == 0) {
            fputs(" {}\n", f);
            continue;
        }
        fputc('\n', f);
        if (parent)
            write_name_list(f, "          ", "switches", t->sw[0].name, sizeof t->sw[0], parent, s,
                            t->nswitches);
        write_name_list(f, "          ", "nodes", t->node[0], sizeof t->node[0], t->node_switch, s,
                        t->nnodes);
        if (t->sw[s].uplink_bw > 0) {
            fputs("          uplink_MBps: ", f);
            write_value(f, CONV_MBPS, t->sw[s].uplink_bw);
            fputc('\n', f);
        }
        if (t->sw[s].oversub > 0) {
            fputs("          uplink_oversubscription: ", f);
            write_value(f, CONV_PLAIN, t->sw[s].oversub);
            fputc('\n', f);
        }
        if (t->sw[s].duplex > 0) {
            fputs("          uplink_duplex: ", f);
            write_value(f, CONV_PLAIN, t->sw[s].duplex);
            fputc('\n', f);
        }
    }
    free(parent);
}

static void write_fabric(FILE *f, const ct_fabric *fab)
{
    fprintf(f, "  %s:\n", fab->name);
    write_text(f, "    ", "description", fab->description);
    fprintf(f, "    published: %s\n", fab->published ? "true" : "false");
    write_text(f, "    ", "source", fab->source);
    write_text(f, "    ", "tcp_congestion_control", fab->tcp_cc);
    fputs("    p2p:\n", f);
    write_fields(f, fab, "      ", p2p_fields, NF(p2p_fields));
    write_text(f, "      ", "source", fab->p2p_source);
    if (fab->p2p_segments.nseg > 0) {
        fputs("      segments:\n", f);
        for (size_t i = 0; i < fab->p2p_segments.nseg && i < CT_P2P_MAX_SEG; i++) {
            const ct_p2p_seg *sg = &fab->p2p_segments.seg[i];
            fputs("        - {from_bytes: ", f);
            write_value(f, CONV_PLAIN, sg->from);
            fputs(", alpha_us: ", f);
            write_value(f, CONV_US, sg->alpha);
            fputs(", bandwidth_MBps: ", f);
            write_value(f, CONV_INV_MBPS, sg->beta);
            fputs("}\n", f);
        }
    }
    if (fab->ngap > 0 || fab->plogp_L != 0) {
        fputs("      plogp:\n", f);
        write_fields(f, fab, "        ", plogp_fields, NF(plogp_fields));
        if (fab->ngap > 0) {
            fputs("        gap:\n", f);
            for (size_t i = 0; i < fab->ngap; i++) {
                fputs("          - {m_bytes: ", f);
                write_value(f, CONV_PLAIN, fab->gap_m[i]);
                fputs(", g_us: ", f);
                write_value(f, CONV_US, fab->gap_g[i]);
                fputs("}\n", f);
            }
        }
    }
    if (fab->has_alltoall) {
        fputs("    alltoall:\n", f);
        write_fields(f, fab, "      ", a2a_fields, NF(a2a_fields));
        write_text(f, "      ", "date", fab->a2a_date);
        if (fab->a2a_fitted_n > 0)
            fprintf(f, "      fitted_n: %d\n", fab->a2a_fitted_n);
    }
    fputs("    penalty:\n", f);
    const ct_model_info *mi = ct_model_info_of(fab->penalty.kind);
    fprintf(f, "      model: %s\n", mi->name);
    /* required keys and choices always, optional numbers when not 0 */
    for (size_t i = 0; i < mi->nkeys; i++) {
        const ct_model_key *k = &mi->keys[i];
        if (!k->required && k->type != CT_PARAM_CHOICE && ct_model_key_get(&fab->penalty, k) == 0)
            continue;
        fprintf(f, "      %s: ", k->key);
        if (k->type == CT_PARAM_REAL) {
            write_value(f, CONV_PLAIN, fab->penalty.real[k->slot]);
        } else {
            char v[64];
            ct_model_key_format(&fab->penalty, k, v, sizeof v);
            fputs(v, f);
        }
        fputc('\n', f);
    }
    write_text(f, "      ", "source", fab->penalty_source);
    write_fields(f, fab, "    ", fabric_fields, NF(fabric_fields));
    if (fab->topology)
        write_topology(f, fab->topology);
}

int ct_fabric_write(FILE *f, const ct_fabric *fab, ct_err *err)
{
    if (ct_fabric_validate(fab, err) < 0)
        return -1;
    write_fabric(f, fab);
    if (ferror(f))
        return ct_err_set(err, "fabric '%s': write error", fab->name);
    return 0;
}

int ct_sigfile_write(FILE *f, const ct_sigfile *sf, ct_err *err)
{
    if (sf->nfabrics == 0 || !sf->fabrics)
        return ct_err_set(err, "no fabrics to write (accepted: at least one)");
    for (size_t i = 0; i < sf->nfabrics; i++) {
        if (ct_fabric_validate(&sf->fabrics[i], err) < 0)
            return -1;
        for (size_t j = 0; j < i; j++)
            if (strcmp(sf->fabrics[i].name, sf->fabrics[j].name) == 0)
                return ct_err_set(err, "fabric name '%s' appears twice (accepted: unique names)",
                                  sf->fabrics[i].name);
    }
    for (size_t i = 0; i < sf->nparts; i++) {
        if (!text_ok(sf->parts[i].partition, CT_NAME_MAX) || !name_ok(sf->parts[i].partition))
            return ct_err_set(err, "partition name '%.*s' is not valid", CT_NAME_MAX - 1,
                              sf->parts[i].partition);
        if (sf->parts[i].fabric >= sf->nfabrics)
            return ct_err_set(err, "partition '%s' maps to fabric index %zu (accepted: < %zu)",
                              sf->parts[i].partition, sf->parts[i].fabric, sf->nfabrics);
    }
    if (sf->default_fabric >= (long)sf->nfabrics || sf->default_fabric < -1)
        return ct_err_set(err, "default fabric index %ld (accepted: -1 or < %zu)",
                          sf->default_fabric, sf->nfabrics);
    fprintf(f, "# slurm-contention signatures (schema: conf/README.md)\n");
    fprintf(f, "version: %d\n", CT_SIG_VERSION);
    fputs("fabrics:\n", f);
    for (size_t i = 0; i < sf->nfabrics; i++)
        write_fabric(f, &sf->fabrics[i]);
    if (sf->nparts) {
        fputs("partitions:\n", f);
        for (size_t i = 0; i < sf->nparts; i++)
            fprintf(f, "  %s: %s\n", sf->parts[i].partition, sf->fabrics[sf->parts[i].fabric].name);
    }
    if (sf->default_fabric >= 0)
        fprintf(f, "default: %s\n", sf->fabrics[sf->default_fabric].name);
    if (ferror(f))
        return ct_err_set(err, "write error");
    return 0;
}
