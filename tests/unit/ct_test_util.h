/* Helpers shared by the unit tests: a relative-tolerance check and readers
 * of the published vectors (tests/fixtures/vectors/). Include after
 * <cmocka.h>; every function is static inline so a test takes what it uses. */
#ifndef CT_TEST_UTIL_H
#define CT_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/alltoall.h"
#include "contention/signatures.h"
#include "contention/topology.h"

/* Fails the test unless |got - want| <= rtol |want| (NaN fails). */
static inline void close_rel(double got, double want, double rtol, const char *what)
{
    if (!(fabs(got - want) <= rtol * fabs(want))) {
        print_error("%s: got %.17g, want %.17g (relative tolerance %g)\n", what, got, want, rtol);
        fail();
    }
}

/* The fabric the scorer and placement tests score on: nominal GigE links
 * (α 50 µs, 125 MB/s), the Alltoall signature of 000 §6.2, paper 001
 * §V-A's penalty parameters, 5 GB/s intra-node. */
static inline void ct_test_gige_fabric(ct_fabric *f)
{
    ct_fabric_init(f);
    snprintf(f->name, sizeof f->name, "gige_test");
    f->alpha = 50e-6;
    f->beta = 1.0 / 125e6;
    f->has_alltoall = 1;
    f->alltoall = (ct_a2a_sig){.gamma = 4.3628, .delta = 4.93e-3, .M = 8192};
    f->penalty = CT_GIGE_MODEL(0.75, 0.036, 0.115);
    f->intra_bw = 5e9;
}

/* A switch tree by hand: switch 0 the top ("spine"), 1 and 2 leaves
 * ("leaf1", "leaf2"), nodes 0..n-1 under leaf[i], uplinks of `cap` NICs. */
static inline void ct_test_two_leaf_map(ct_tree_map *m, int32_t n, const int32_t *leaf, double cap)
{
    memset(m, 0, sizeof *m);
    m->nswitches = 3;
    m->parent = malloc(3 * sizeof *m->parent);
    m->depth = malloc(3 * sizeof *m->depth);
    m->up_cap = malloc(3 * sizeof *m->up_cap);
    m->name = calloc(3, sizeof *m->name);
    m->leaf = malloc((size_t)n * sizeof *m->leaf);
    assert_true(m->parent && m->depth && m->up_cap && m->name && m->leaf);
    const char *names[] = {"spine", "leaf1", "leaf2"};
    for (int s = 0; s < 3; s++) {
        m->parent[s] = s ? 0 : -1;
        m->depth[s] = s ? 1 : 0;
        m->up_cap[s] = s ? cap : 0;
        snprintf(m->name[s], sizeof m->name[s], "%s", names[s]);
    }
    m->nnodes = n;
    for (int32_t i = 0; i < n; i++)
        m->leaf[i] = leaf[i];
}

/* A published signature (vectors/signatures.txt). alpha and beta were not
 * printed by the authors: the tests choose them per fabric (table below). */
typedef struct pub_sig {
    char name[64];
    ct_a2a_sig sig;
    double alpha, beta;
} pub_sig;

static const struct {
    const char *name;
    double alpha, beta;
} pub_sig_chosen[] = {
    {"fast_ethernet", 60e-6, 1.0 / 12.5e6},   /* 000 §6.1: ~60 us; 100 Mbit/s */
    {"gigabit_ethernet", 50e-6, 1.0 / 125e6}, /* 1 Gbit/s */
    {"myrinet_gm", 7e-6, 1.0 / 250e6},        /* Myrinet 2000, 2 Gbit/s */
    {"grid_local_gige", 50e-6, 1.0 / 125e6},  /* 002 §VI-E: GigE clusters */
};

/* Reads vectors/signatures.txt into out (at most cap rows); returns the count. */
static inline size_t load_sigs(pub_sig *out, size_t cap)
{
    FILE *f = fopen(CT_FIXTURES "/vectors/signatures.txt", "r");
    assert_non_null(f);
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        assert_true(n < cap);
        pub_sig *p = &out[n];
        memset(p, 0, sizeof *p); /* the papers' fields only: every extension 0 */
        assert_int_equal(
            sscanf(line, "%63s %lf %lf %lf", p->name, &p->sig.gamma, &p->sig.delta, &p->sig.M), 4);
        int found = 0;
        for (size_t k = 0; k < sizeof pub_sig_chosen / sizeof pub_sig_chosen[0]; k++)
            if (strcmp(pub_sig_chosen[k].name, p->name) == 0) {
                p->alpha = pub_sig_chosen[k].alpha;
                p->beta = pub_sig_chosen[k].beta;
                found = 1;
            }
        if (!found) {
            print_error("signatures.txt: no alpha/beta chosen for '%s'\n", p->name);
            fail();
        }
        n++;
    }
    fclose(f);
    return n;
}

/* One row of 001 Fig. 2 (vectors/fig2_simple.txt): the penalty of each of
 * k outgoing communications of one node on GigE, Myrinet and InfiniBand. */
typedef struct fig2_row {
    int k;
    double gige, myri, ib;
} fig2_row;

/* Reads vectors/fig2_simple.txt into rows (at most cap); returns the count. */
static inline size_t load_fig2(fig2_row *rows, size_t cap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vectors/fig2_simple.txt", CT_FIXTURES);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        fig2_row r;
        if (line[0] == '#' || sscanf(line, "%d %lf %lf %lf", &r.k, &r.gige, &r.myri, &r.ib) != 4)
            continue;
        assert_true(n < cap);
        rows[n++] = r;
    }
    fclose(f);
    return n;
}

#endif
