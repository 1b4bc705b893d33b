#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admin.h"
#include "contention/calibrate.h"
#include "contention/error.h"
#include "contention/fileio.h"
#include "contention/units.h"
#include "contention/penalty.h"
#include "contention/trace.h"
#include "contention/fit_alltoall.h"

int admin_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "contention-admin %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'contention-admin %s --help'.\n", cmd);
    return ADMIN_USAGE;
}

int admin_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "contention-admin %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return ADMIN_INVALID;
}

int admin_bad_option(const char *cmd, int argc, char **argv, const char *accepted)
{
    const char *arg = optind - 1 < argc && optind >= 1 ? argv[optind - 1] : "?";
    if (optopt && arg[0] == '-' && arg[1] != '-')
        return admin_usage(cmd, "option '-%c' is unknown or lacks its value (accepted: %s)", optopt,
                           accepted);
    return admin_usage(cmd, "option '%s' is unknown or lacks its value (accepted: %s)", arg,
                       accepted);
}

int admin_next_opt(admin_opts *o, int argc, char **argv)
{
    if (!o->begun) {
        opterr = 0;
        optind = 1;
        o->begun = 1;
    }
    int c;
    while ((c = getopt_long(argc, argv, o->shortopts, o->longopts, NULL)) != -1) {
        const char *name = NULL;
        for (const struct option *p = o->longopts; p->name && !name; p++)
            if (p->val == c)
                name = p->name;
        if (!name) {
            o->status = admin_bad_option(o->cmd, argc, argv, o->accepted);
            return -1;
        }
        if (strcmp(name, "help") == 0) {
            o->help();
            o->status = ADMIN_OK;
            return -1;
        }
        if (strcmp(name, "config") == 0)
            o->config = optarg;
        else if (strcmp(name, "fabric") == 0)
            o->fabric = optarg;
        else if (strcmp(name, "json") == 0)
            o->json = 1;
        else
            return c;
    }
    return 0;
}

int admin_load(const char *cmd, const char *path, ct_sigfile *sf)
{
    ct_err err;
    if (ct_sigfile_load(path, sf, &err) < 0) {
        fprintf(stderr, "contention-admin %s: %s\n", cmd, err.msg);
        return -1;
    }
    return 0;
}

const ct_fabric *admin_pick_fabric(const char *cmd, const ct_sigfile *sf, const char *path,
                                   const char *name)
{
    const ct_fabric *fab = name ? ct_sigfile_fabric(sf, name) : ct_sigfile_for_partition(sf, NULL);
    if (fab)
        return fab;
    fprintf(stderr, "contention-admin %s: ", cmd);
    if (name)
        fprintf(stderr, "%s defines no fabric '%s' (accepted:", path, name);
    else
        fprintf(stderr, "%s names no default fabric; give --fabric (accepted:", path);
    for (size_t i = 0; i < sf->nfabrics; i++)
        fprintf(stderr, "%s %s", i ? "," : "", sf->fabrics[i].name);
    fputs(")\n", stderr);
    return NULL;
}

const ct_fabric *admin_load_fabric(const char *cmd, const char *path, const char *name,
                                   ct_sigfile *sf)
{
    const ct_fabric *fab = NULL;
    if (admin_load(cmd, path, sf) == 0) {
        fab = admin_pick_fabric(cmd, sf, path, name);
        if (!fab)
            ct_sigfile_free(sf);
    }
    if (!fab)
        memset(sf, 0, sizeof *sf);
    return fab;
}

int admin_new_fabric(const char *cmd, const char *name, ct_fabric *fab)
{
    ct_fabric_init(fab);
    if (strlen(name) >= sizeof fab->name)
        return admin_usage(cmd, "--fabric name longer than %zu characters", sizeof fab->name - 1);
    memcpy(fab->name, name, strlen(name) + 1);
    ct_fabric probe = *fab;
    probe.beta = 1; /* only the name is being checked here */
    ct_err err;
    if (ct_fabric_validate(&probe, &err) < 0)
        return admin_usage(cmd, "--fabric: %s", err.msg);
    return ADMIN_OK;
}

int admin_int_opt(const char *cmd, const char *opt, const char *s, long lo, long hi, long *out)
{
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno == ERANGE || v < lo || v > hi) {
        admin_usage(cmd, "%s '%s' (accepted: an integer from %ld to %ld)", opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int admin_pct_opt(const char *cmd, const char *opt, const char *s, double below, double *pct)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!*s || *end || !isfinite(v) || v < 0 || v >= below) {
        if (isinf(below))
            admin_usage(cmd, "%s '%s' (accepted: a percentage >= 0)", opt, s);
        else
            admin_usage(cmd, "%s '%s' (accepted: a percentage from 0 to below %g)", opt, s,
                        below);
        return -1;
    }
    *pct = v;
    return 0;
}

int admin_size_opt(const char *cmd, const char *opt, const char *s, double *bytes)
{
    ct_err err;
    if (ct_parse_size(s, bytes, &err) < 0) {
        admin_usage(cmd, "%s: %s", opt, err.msg);
        return -1;
    }
    return 0;
}

const char *admin_fmt_time(double s, char *buf, size_t sz)
{
    return ct_format_time(s, 4, buf, sz);
}

const char *admin_exchange_what(double c)
{
    return c < 0 ? "a token bucket's refill between steps" : "host and MPI time per step";
}

const char *admin_fit_range(const ct_a2a_sig *s, char *buf, size_t sz)
{
    if (s->k_max > 0 && s->f_max > 0)
        snprintf(buf, sz, "k = %.6g, f = %.6g", s->k_max, s->f_max);
    else if (s->k_max > 0)
        snprintf(buf, sz, "k = %.6g", s->k_max);
    else
        snprintf(buf, sz, "f = %.6g", s->f_max);
    return buf;
}

const char *admin_scatter_line(const ct_a2a_fit_report *rep, char *buf, size_t sz)
{
    snprintf(buf, sz,
             "model scatter: %.1f %% beyond the repetitions' spread (each point weighed by 1 / "
             "(spread^2 + scatter^2), the fit chosen again)",
             100 * rep->model_scatter);
    return buf;
}

const char *admin_call_what(double c)
{
    return c < 0 ? "a token bucket's refill between calls" : "host and MPI time per call";
}

const char *admin_seg_bw(double beta, char *buf, size_t sz)
{
    if (beta <= CT_P2P_FLAT_BETA)
        snprintf(buf, sz, "none (flat: the latency sets these times)");
    else
        snprintf(buf, sz, "%.4g MB/s", 1.0 / beta / 1e6);
    return buf;
}

const char *admin_flows_g(double a, char *buf, size_t sz)
{
    if (a == 0 || a == 1)
        snprintf(buf, sz, "(f-1)");
    else
        snprintf(buf, sz, "(f^%.4g-1)/%.4g", a, a);
    return buf;
}

const char *admin_jackknife(const ct_a2a_fit_report *rep, const ct_a2a_sig *s, char *buf,
                            size_t sz)
{
    char t1[32], t2[32];
    size_t len = 0;
    buf[0] = '\0';
    if (!rep->jk_n)
        return buf;
#define JK_ADD(...)                                                                                \
    (len += (size_t)snprintf(buf + (len < sz ? len : sz), len < sz ? sz - len : 0, __VA_ARGS__))
    JK_ADD("gamma %.4g +- %.2g", s->gamma, rep->jk_gamma);
    if (s->gamma_incast > 0 || (rep->incast_identified & 1))
        JK_ADD(", gamma_incast %.4g +- %.2g", s->gamma_incast, rep->jk_gamma_incast);
    if (s->gamma_flows > 0 || (rep->incast_identified & 2))
        JK_ADD(", gamma_flows %.4g +- %.2g", s->gamma_flows, rep->jk_gamma_flows);
    if (s->gamma_loss > 0 || (rep->incast_identified & 4))
        JK_ADD(", gamma_loss %.4g +- %.2g", s->gamma_loss, rep->jk_gamma_loss);
    if (s->delta > 0 || rep->jk_delta > 0)
        JK_ADD(", delta %s +- %s", admin_fmt_time(s->delta, t1, sizeof t1),
               admin_fmt_time(rep->jk_delta, t2, sizeof t2));
    if (s->call != 0 || rep->jk_call > 0)
        JK_ADD(", call step %s +- %s", admin_fmt_time(s->call, t1, sizeof t1),
               admin_fmt_time(rep->jk_call, t2, sizeof t2));
    if (s->call_incast > 0 || (rep->incast_identified & 8))
        JK_ADD(", call_incast %s +- %s", admin_fmt_time(s->call_incast, t1, sizeof t1),
               admin_fmt_time(rep->jk_call_incast, t2, sizeof t2));
#undef JK_ADD
    return buf;
}

const char *admin_fmt_bytes(double b, char *buf, size_t sz)
{
    return ct_format_bytes(b, 4, buf, sz);
}

const char *admin_seg_spread(const ct_p2p_seg_diag *d, char *buf, size_t sz)
{
    if (!d || !(d->max_spread > 0))
        snprintf(buf, sz, "%s", "");
    else
        snprintf(buf, sz, ", spread up to %.1f%%, worst miss %.2fx its spread",
                 100 * d->max_spread, d->max_err_spread);
    return buf;
}

void admin_fabric_line(FILE *f, const ct_fabric *fab)
{
    char a[32], d[32], m[32];
    fprintf(f, "  %-20s %-9s alpha %s, %.4g MB/s", fab->name,
            fab->published ? "published" : "measured", admin_fmt_time(fab->alpha, a, sizeof a),
            1.0 / fab->beta / 1e6);
    if (fab->has_alltoall) {
        fprintf(f, "; alltoall gamma %.6g, delta %s, M %s", fab->alltoall.gamma,
                admin_fmt_time(fab->alltoall.delta, d, sizeof d),
                admin_fmt_bytes(fab->alltoall.M, m, sizeof m));
        if (fab->alltoall.call != 0) /* alltoall.h: the per-call step */
            fprintf(f, ", call step %s", admin_fmt_time(fab->alltoall.call, d, sizeof d));
    } else {
        fputs("; no alltoall signature", f);
    }
    fprintf(f, "; penalty %s", ct_model_name(fab->penalty.kind));
    if (fab->exchange != 0) /* signatures.h: a pattern step's fixed time */
        fprintf(f, ", exchange step %s", admin_fmt_time(fab->exchange, a, sizeof a));
    if (fab->bucket > 0 && fab->bucket_pause > 0) /* signatures.h: the bucket's refill */
        fprintf(f, ", bucket %s (refill past a %s pause)", admin_fmt_bytes(fab->bucket, m, sizeof m),
                admin_fmt_time(fab->bucket_pause, a, sizeof a));
    fputc('\n', f);
}

void admin_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        default:
            if (*p < 0x20 || *p == 0x7F)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void admin_json_number(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, f);
}

int admin_resolve_trace_pattern(const char *pat, char *out, size_t n)
{
    if (strncmp(pat, "trace:", 6) != 0)
        return -1;
    ct_err err;
    char path[4096];
    if (ct_trace_resolve(pat + 6, getenv("XDG_DATA_HOME"), getenv("HOME"), path, sizeof path,
                         &err) < 0)
        return -1; /* the loader then names the file it could not open */
    int k = snprintf(out, n, "trace:%s", path);
    return k > 0 && (size_t)k < n ? 0 : -1;
}

int admin_read_file(const char *cmd, const char *path, size_t max, const char *accepted,
                    char **buf, size_t *len)
{
    ct_err err;
    if (ct_read_file(path, max, accepted, buf, len, &err) < 0)
        return admin_fail(cmd, "%s", err.msg);
    return ADMIN_OK;
}

int admin_atomic_open(admin_atomic *a, const char *path, mode_t mode)
{
    a->f = NULL;
    a->tmp[0] = '\0';
    a->renamed = 0;
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path ||
        snprintf(a->tmp, sizeof a->tmp, "%.*s.%s.XXXXXX", dirlen, path, path + dirlen) >=
            (int)sizeof a->tmp) {
        a->tmp[0] = '\0';
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        a->tmp[0] = '\0';
        return -1;
    }
    if (fchmod(fd, mode) < 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(a->tmp);
        a->tmp[0] = '\0';
        errno = e;
        return -1;
    }
    return 0;
}

int admin_atomic_commit(admin_atomic *a, const volatile sig_atomic_t *cancel)
{
    int e = 0;
    if (fflush(a->f) != 0 || fsync(fileno(a->f)) != 0)
        e = errno;
    if (fclose(a->f) != 0 && !e)
        e = errno;
    a->f = NULL;
    if (!e && cancel && *cancel)
        e = EINTR;
    if (!e && rename(a->tmp, a->path) != 0)
        e = errno;
    if (e) {
        admin_atomic_abort(a);
        errno = e;
        return -1;
    }
    a->tmp[0] = '\0';
    a->renamed = 1;
    /* the rename itself is made durable by an fsync of the directory */
    const char *slash = strrchr(a->path, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (slash == a->path ? 1 : (int)(slash - a->path)) : 1,
             slash ? a->path : ".");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) < 0) {
        e = errno;
        if (dfd >= 0)
            close(dfd);
        errno = e;
        return -1;
    }
    close(dfd);
    return 0;
}

void admin_atomic_abort(admin_atomic *a)
{
    if (a->f) {
        fclose(a->f);
        a->f = NULL;
    }
    if (a->tmp[0]) {
        unlink(a->tmp);
        a->tmp[0] = '\0';
    }
}

const char *admin_p2p_bend_note(const ct_p2p_sample *s, size_t n, const ct_p2p_curve *fitted,
                                const ct_p2p_curve *used, double burst, const char *remedy,
                                char *buf, size_t sz)
{
    double rb, rB;
    char b1[32], b2[32];
    buf[0] = '\0';
    if (!fitted || fitted->nseg < 1 || !used || used->nseg < 1 || !(used->seg[0].beta > 0) ||
        ct_p2p_refill_read(s, n, fitted->seg[0].alpha, &rb, &rB) != 1)
        return NULL;
    snprintf(buf, sz,
             "the ping-pong's largest sizes bend as a token bucket of about %s at %.4g MB/s: "
             "each direction refills while the other sends, so a message of up to twice the "
             "bucket takes m/(2r), and the curve read %.4g MB/s and a burst of %s instead, and "
             "the patterns are priced off (doc/calibration.md, \"A bucket above 256 KiB\"); %s",
             admin_fmt_bytes(rB, b1, sizeof b1), 1 / rb / 1e6, 1 / used->seg[0].beta / 1e6,
             admin_fmt_bytes(burst, b2, sizeof b2), remedy);
    return buf;
}

const char *admin_a2a_floor_what(const struct ct_a2a_call_floor *f, char *buf, size_t sz)
{
    char m[32], m0[32], t[32], t0[32];
    snprintf(buf, sz, "the 2x1 Alltoall at %s took %s where %s took %s (not %.2f x more)",
             admin_fmt_bytes(f->m, m, sizeof m), admin_fmt_time(f->t, t, sizeof t),
             admin_fmt_bytes(f->m0, m0, sizeof m0), admin_fmt_time(f->t0, t0, sizeof t0),
             CT_A2A_CALL_FLOOR_RATIO);
    return buf;
}

const char *admin_a2a_floor_note(const ct_a2a_sample *a2a, size_t n, double min_m,
                                 const char *remedy, char *buf, size_t sz)
{
    ct_a2a_call_floor f;
    char what[160];
    buf[0] = '\0';
    if (!ct_a2a_on_call_floor(a2a, n, min_m, CT_A2A_CALL_FLOOR_RATIO, &f))
        return NULL;
    snprintf(buf, sz,
             "%s: a call's fixed time (the host's waits), not the link, sets the smallest "
             "saturated size, so the signature's fit bends there and reads gamma low and the "
             "incast term high; 24 of the 30 kept networks that showed it missed the 8 %% goal "
             "(doc/calibration.md, \"Saturated sizes on the call's "
             "floor\"); %s",
             admin_a2a_floor_what(&f, what, sizeof what), remedy);
    return buf;
}

const char *admin_p2p_miss_note(size_t nseg, size_t max_seg, double miss, double at_m,
                                double threshold_pct, const char *refit, char *buf, size_t n)
{
    char sz[32];
    snprintf(buf, n,
             "the point-to-point curve (%zu segment%s) misses its own ping-pong at %s by %.1f%% "
             "(threshold %.1f%%, over the sizes whose repetitions agree within it): predictions "
             "for messages around that size are off%s%s",
             nseg, nseg == 1 ? "" : "s", admin_fmt_bytes(at_m, sz, sizeof sz), 100 * miss,
             threshold_pct,
             max_seg <= 1 ? "; the curve bends: refit the same data with " : "",
             max_seg <= 1 ? refit : "");
    return buf;
}
