/* pLogP collective models (paper 003, Barchet-Estefanel and Mounié 2004):
 * broadcast (Table 1), scatter (Table 2), All-to-All bounds (Table 3), and
 * the segment-size search of §3. */
#include "contention/plogp.h"

#include <math.h>

#include "contention/alltoall.h"

int ct_gap_check(const ct_gap_table *t, ct_err *err)
{
    if (!t || t->n == 0 || !t->m || !t->g)
        return ct_err_set(err, "pLogP gap table is empty (accepted: at least one point m, g(m))");
    for (size_t i = 0; i < t->n; i++) {
        if (!isfinite(t->m[i]) || t->m[i] < 0)
            return ct_err_set(err,
                              "pLogP gap table point %zu: m = %g (accepted: a finite size "
                              ">= 0 in bytes)",
                              i, t->m[i]);
        if (!isfinite(t->g[i]) || t->g[i] < 0)
            return ct_err_set(err,
                              "pLogP gap table point %zu: g = %g (accepted: a finite gap "
                              ">= 0 in seconds)",
                              i, t->g[i]);
        if (i > 0 && !(t->m[i] > t->m[i - 1]))
            return ct_err_set(err,
                              "pLogP gap table point %zu: m = %g after m = %g (accepted: "
                              "sizes strictly ascending)",
                              i, t->m[i], t->m[i - 1]);
    }
    return 0;
}

static double seg_slope(const ct_gap_table *t, size_t a)
{
    double sl = (t->g[a + 1] - t->g[a]) / (t->m[a + 1] - t->m[a]);
    return sl > 0 ? sl : 0.0;
}

double ct_gap_eval(const ct_gap_table *t, double m)
{
    size_t n = t->n;
    if (n == 1)
        return t->g[0];
    double g;
    if (m <= t->m[0]) {
        g = t->g[0] + seg_slope(t, 0) * (m - t->m[0]);
    } else if (m >= t->m[n - 1]) {
        g = t->g[n - 1] + seg_slope(t, n - 2) * (m - t->m[n - 1]);
    } else {
        size_t lo = 0, hi = n - 1; /* m[lo] < m < m[hi] */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (t->m[mid] <= m)
                lo = mid;
            else
                hi = mid;
        }
        double f = (m - t->m[lo]) / (t->m[hi] - t->m[lo]);
        g = t->g[lo] + f * (t->g[hi] - t->g[lo]);
    }
    return g > 0 ? g : 0.0;
}

static const char *const bcast_names[CT_BCAST_COUNT] = {
    "flat",         "flat-rendezvous",  "seg-flat",
    "chain",        "chain-rendezvous", "seg-chain",
    "binary",       "binomial",         "binomial-rendezvous",
    "seg-binomial",
};
static const char *const scatter_names[CT_SCATTER_COUNT] = {
    "flat",
    "chain",
    "pipelined-chain",
    "binomial",
};

const char *ct_bcast_name(ct_bcast_strategy st)
{
    return (unsigned)st < CT_BCAST_COUNT ? bcast_names[st] : NULL;
}

const char *ct_scatter_name(ct_scatter_strategy st)
{
    return (unsigned)st < CT_SCATTER_COUNT ? scatter_names[st] : NULL;
}

int ct_bcast_is_segmented(ct_bcast_strategy st)
{
    return st == CT_BCAST_SEG_FLAT || st == CT_BCAST_SEG_CHAIN || st == CT_BCAST_SEG_BINOMIAL;
}

int ct_bcast_is_upper_bound(ct_bcast_strategy st)
{
    return st == CT_BCAST_BINARY;
}

static int64_t floor_log2(int64_t P)
{
    int64_t r = 0;
    while (P > 1) {
        P >>= 1;
        r++;
    }
    return r;
}

static int64_t ceil_log2(int64_t P)
{
    int64_t r = floor_log2(P);
    return ((int64_t)1 << r) < P ? r + 1 : r;
}

static int check_common(const ct_plogp *p, int64_t P, double m, ct_err *err)
{
    if (!p)
        return ct_err_set(err, "pLogP: no parameters given");
    if (ct_gap_check(&p->gap, err) < 0)
        return -1;
    if (!isfinite(p->L) || p->L < 0)
        return ct_err_set(err, "pLogP latency L = %g (accepted: a finite time >= 0 in seconds)",
                          p->L);
    if (P < 2 || P > CT_PLOGP_MAX_P)
        return ct_err_set(err,
                          "pLogP: P = %lld processes (accepted: 2 <= P <= %lld; one "
                          "process sends nothing)",
                          (long long)P, (long long)CT_PLOGP_MAX_P);
    if (!isfinite(m) || m <= 0)
        return ct_err_set(err,
                          "pLogP: message size m = %g (accepted: a finite size > 0 in "
                          "bytes)",
                          m);
    return 0;
}

/* k = ceil(m / s), guarded against a quotient that rounds just above an integer. */
static double segments(double m, double s)
{
    double k = ceil(m / s);
    if (k > 1 && (k - 1) * s >= m)
        k -= 1;
    return k;
}

static double bcast_time(const ct_plogp *p, ct_bcast_strategy st, int64_t P, double m, double s)
{
    const ct_gap_table *t = &p->gap;
    double L = p->L, P1 = (double)(P - 1);
    double fl = (double)floor_log2(P), cl = (double)ceil_log2(P);
    double gm = ct_gap_eval(t, m);
    switch (st) {
    case CT_BCAST_FLAT:
        return P1 * gm + L; /* 003 Table 1, Flat Tree */
    case CT_BCAST_FLAT_RDV:
        return P1 * gm + 2 * ct_gap_eval(t, 1) + 3 * L; /* 003 Table 1, Flat Tree Rendezvous */
    case CT_BCAST_SEG_FLAT:
        return P1 * (ct_gap_eval(t, s) * segments(m, s)) + L; /* 003 Table 1, Segmented Flat */
    case CT_BCAST_CHAIN:
        return P1 * (gm + L); /* 003 Table 1, Chain */
    case CT_BCAST_CHAIN_RDV:
        return P1 * (gm + 2 * ct_gap_eval(t, 1) + 3 * L); /* 003 Table 1, Chain Rendezvous */
    case CT_BCAST_SEG_CHAIN: {
        double gs = ct_gap_eval(t, s);
        return P1 * (gs + L) + gs * (segments(m, s) - 1); /* 003 Table 1, Seg. Chain */
    }
    case CT_BCAST_BINARY:
        return cl * (2 * gm + L); /* 003 Table 1, Binary Tree (an upper bound, <=) */
    case CT_BCAST_BINOMIAL:
        return fl * gm + cl * L; /* 003 Table 1, Binomial Tree */
    case CT_BCAST_BINOMIAL_RDV:
        return fl * gm + cl * (2 * ct_gap_eval(t, 1) + 3 * L); /* 003 Table 1, Binomial Rdv */
    case CT_BCAST_SEG_BINOMIAL:
        return fl * ct_gap_eval(t, s) * segments(m, s) + cl * L; /* 003 Table 1, Seg. Binomial */
    default:
        return NAN;
    }
}

int ct_plogp_bcast(const ct_plogp *p, ct_bcast_strategy st, int64_t P, double m, double s,
                   double *T, ct_err *err)
{
    if ((unsigned)st >= CT_BCAST_COUNT)
        return ct_err_set(err, "pLogP broadcast strategy %d (accepted: 0..%d)", (int)st,
                          CT_BCAST_COUNT - 1);
    if (check_common(p, P, m, err) < 0)
        return -1;
    if (ct_bcast_is_segmented(st) && (!isfinite(s) || s <= 0 || s > m))
        return ct_err_set(err,
                          "pLogP %s broadcast: segment size s = %g for m = %g (accepted: "
                          "0 < s <= m)",
                          bcast_names[st], s, m);
    *T = bcast_time(p, st, P, m, s);
    return 0;
}

static double scatter_time(const ct_plogp *p, ct_scatter_strategy st, int64_t P, double m)
{
    const ct_gap_table *t = &p->gap;
    double L = p->L, P1 = (double)(P - 1);
    int64_t cl = ceil_log2(P);
    switch (st) {
    case CT_SCATTER_FLAT:
        return P1 * ct_gap_eval(t, m) + L; /* 003 Table 2, Flat Tree */
    case CT_SCATTER_CHAIN: {
        double sum = 0;
        for (int64_t j = 1; j <= P - 1; j++)
            sum += ct_gap_eval(t, (double)j * m);
        return sum + P1 * L; /* 003 Table 2, Chain: sum_{j=1}^{P-1} g(j m) + (P-1) L */
    }
    case CT_SCATTER_PIPELINED_CHAIN:
        return P1 * (ct_gap_eval(t, m) + L); /* 003 Table 2, Pipelined Chain */
    case CT_SCATTER_BINOMIAL: {
        double sum = 0;
        for (int64_t j = 0; j < cl; j++)
            sum += ct_gap_eval(t, ldexp(m, (int)j));
        /* 003 Table 2, Binomial: sum_{j=0}^{ceil(log2 P)-1} g(2^j m) + ceil(log2 P) L */
        return sum + (double)cl * L;
    }
    default:
        return NAN;
    }
}

int ct_plogp_scatter(const ct_plogp *p, ct_scatter_strategy st, int64_t P, double m, double *T,
                     ct_err *err)
{
    if ((unsigned)st >= CT_SCATTER_COUNT)
        return ct_err_set(err, "pLogP scatter strategy %d (accepted: 0..%d)", (int)st,
                          CT_SCATTER_COUNT - 1);
    if (check_common(p, P, m, err) < 0)
        return -1;
    *T = scatter_time(p, st, P, m);
    return 0;
}

/* 003 §3: try s = m / 2^i, i in [0 .. log2 m], rounded up to whole bytes. */
static void best_segment(const ct_plogp *p, ct_bcast_strategy st, int64_t P, double m,
                         double *s_best, double *T)
{
    double bs = m, bt = bcast_time(p, st, P, m, m);
    for (int i = 1; ldexp(1.0, i) <= m; i++) {
        double s = ceil(ldexp(m, -i));
        if (s > m)
            s = m;
        double t = bcast_time(p, st, P, m, s);
        if (t < bt) {
            bt = t;
            bs = s;
        }
    }
    *s_best = bs;
    *T = bt;
}

int ct_plogp_best_segment(const ct_plogp *p, ct_bcast_strategy st, int64_t P, double m,
                          double *s_best, double *T, ct_err *err)
{
    if ((unsigned)st >= CT_BCAST_COUNT || !ct_bcast_is_segmented(st))
        return ct_err_set(err,
                          "pLogP segment search: strategy %d is not segmented (accepted: "
                          "seg-flat, seg-chain, seg-binomial)",
                          (int)st);
    if (check_common(p, P, m, err) < 0)
        return -1;
    best_segment(p, st, P, m, s_best, T);
    return 0;
}

int ct_plogp_bcast_best(const ct_plogp *p, int64_t P, double m, ct_plogp_choice *out, ct_err *err)
{
    if (check_common(p, P, m, err) < 0)
        return -1;
    ct_plogp_choice best = {.strategy = -1, .time = INFINITY};
    for (int st = 0; st < CT_BCAST_COUNT; st++) {
        double s = 0, t;
        if (ct_bcast_is_segmented((ct_bcast_strategy)st))
            best_segment(p, (ct_bcast_strategy)st, P, m, &s, &t);
        else
            t = bcast_time(p, (ct_bcast_strategy)st, P, m, m);
        if (t < best.time) {
            best.strategy = st;
            best.time = t;
            best.segment = s;
            best.upper_bound = ct_bcast_is_upper_bound((ct_bcast_strategy)st);
        }
    }
    *out = best;
    return 0;
}

int ct_plogp_scatter_best(const ct_plogp *p, int64_t P, double m, ct_plogp_choice *out, ct_err *err)
{
    if (check_common(p, P, m, err) < 0)
        return -1;
    ct_plogp_choice best = {.strategy = -1, .time = INFINITY};
    for (int st = 0; st < CT_SCATTER_COUNT; st++) {
        double t = scatter_time(p, (ct_scatter_strategy)st, P, m);
        if (t < best.time) {
            best.strategy = st;
            best.time = t;
            best.segment = 0;
            best.upper_bound = 0;
        }
    }
    *out = best;
    return 0;
}

double ct_plogp_a2a_upper(int64_t P, double g_m, double or_m, double L)
{
    if (P <= 1)
        return 0.0;
    double P1 = (double)(P - 1);
    return P1 * g_m + P1 * or_m + L; /* 003 Table 3, Upper Bound */
}

double ct_plogp_a2a_lower(int64_t P, double os_m, double or_m, double L)
{
    if (P <= 1)
        return 0.0;
    double P1 = (double)(P - 1);
    return P1 * os_m + P1 * or_m + L; /* 003 Table 3, Lower Bound */
}

double ct_plogp_a2a(int64_t P, double g_m, double os_m, double or_m, double L,
                    double upper_frac)
{
    double lo = ct_plogp_a2a_lower(P, os_m, or_m, L);
    double up = ct_plogp_a2a_upper(P, g_m, or_m, L);
    return lo + (up - lo) * upper_frac; /* 003 §5.1: T = Lower + (Upper - Lower) * γ */
}
