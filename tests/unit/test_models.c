/* Every registered penalty model (contention/models.def), checked the same
 * way: its YAML keys round-trip through the signature writer and loader,
 * its parameter check refuses bad values naming the key, its penalties are
 * >= 1 when it promises so, and the engines' update path -- its incremental
 * hooks, or the re-evaluation of the components a change touched -- equals
 * a full recomputation after any sequence of changes; on a switch tree it
 * is the node-level model bit for bit when every node hangs under one
 * switch, a shared switch link never speeds a flow up and slows it more as
 * the link gets busier. A new model gets all
 * of this by being registered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/models.h"
#include "contention/signatures.h"

#include "model.h" /* internal: the ops table and the engines' network state */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; /* xorshift64 */
    return (double)(rng >> 11) / 9007199254740992.0;
}

static size_t nchoices(const ct_model_key *k)
{
    size_t n = 0;
    while (k->choices && k->choices[n])
        n++;
    return n;
}

/* A random value every key of the model accepts. */
static void random_params(ct_penalty_model *m)
{
    const ct_model_info *mi = ct_model_info_of(m->kind);
    for (size_t i = 0; i < mi->nkeys; i++) {
        const ct_model_key *k = &mi->keys[i];
        if (k->type == CT_PARAM_CHOICE) {
            m->integer[k->slot] = (int64_t)(urand() * (double)nchoices(k));
        } else if (k->type == CT_PARAM_INT) {
            double hi = isfinite(k->hi) && k->hi < 1e9 ? k->hi : k->lo + 1e9;
            m->integer[k->slot] = (int64_t)(k->lo + floor(urand() * (hi - k->lo + 1)));
        } else {
            double lo = k->lo, hi = isfinite(k->hi) ? k->hi : k->lo + 10;
            double v = lo + (0.001 + 0.998 * urand()) * (hi - lo);
            m->real[k->slot] = v;
        }
        assert_true(ct_model_key_ok(k, ct_model_key_get(m, k)));
    }
    assert_int_equal(ct_model_check(m, NULL), 0);
}

static void test_registry(void **state)
{
    (void)state;
    assert_true(ct_model_count() >= 4);
    assert_int_equal(CT_MODEL_COUNT, (int)ct_model_count());
    assert_int_equal(CT_MODEL_NONE, 0); /* a zeroed model means no contention */
    char names[256] = "";
    for (size_t k = 0; k < ct_model_count(); k++) {
        const ct_model_info *mi = ct_model_info_of((ct_model_kind)k);
        const model_ops *o = model_ops_of((ct_model_kind)k);
        assert_non_null(mi);
        assert_ptr_equal(mi, &o->info);
        assert_non_null(o->penalties);
        assert_true(mi->name && mi->name[0] && mi->label && mi->cite && mi->summary);
        assert_int_equal(mi->incremental, o->inc_commit != NULL);
        assert_true(o->inc_init == NULL || o->inc_commit != NULL);
        /* every model says how it behaves on a switch link, one way */
        assert_true((o->link_penalty != NULL) != (o->tree_penalties != NULL));
        /* a model that takes the latency once (session 56: alpha + p m beta)
         * prices no message below its time alone only with penalties >= 1 */
        assert_true(!mi->latency_once || mi->penalty_ge1);
        assert_int_equal(ct_model_latency_once((ct_model_kind)k), mi->latency_once);
        ct_model_kind back;
        assert_int_equal(ct_model_from_name(mi->name, &back), 0);
        assert_int_equal(back, (ct_model_kind)k);
        assert_string_equal(ct_model_name((ct_model_kind)k), mi->name);
        for (size_t i = 0; i < mi->nkeys; i++) {
            const ct_model_key *key = &mi->keys[i];
            assert_true(key->key && key->unit && key->meaning && key->meaning[0]);
            assert_true(key->slot >= 0);
            assert_true(key->slot < (key->type == CT_PARAM_REAL ? CT_MODEL_MAX_REAL
                                                                : CT_MODEL_MAX_INT));
            assert_true(key->type != CT_PARAM_CHOICE || nchoices(key) > 0);
            for (size_t j = 0; j < i; j++) { /* distinct keys and slots */
                assert_true(strcmp(mi->keys[j].key, key->key) != 0);
                assert_false((mi->keys[j].type == CT_PARAM_REAL) == (key->type == CT_PARAM_REAL) &&
                             mi->keys[j].slot == key->slot);
            }
            /* keys the signature section itself uses */
            assert_true(strcmp(key->key, "model") && strcmp(key->key, "source"));
        }
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                 mi->name);
    }
    assert_string_equal(ct_model_names(), names);
    assert_null(ct_model_info_of(CT_MODEL_COUNT));
    ct_err err = {{0}};
    ct_penalty_model bad = {.kind = CT_MODEL_COUNT};
    assert_int_equal(ct_model_check(&bad, &err), -1);
    assert_non_null(strstr(err.msg, names));
}

/* Write a fabric with the model's random parameters, load it back: same
 * values bit for bit, no difference reported. */
static void test_yaml_roundtrip(void **state)
{
    (void)state;
    for (size_t k = 0; k < ct_model_count(); k++) {
        for (int trial = 0; trial < 50; trial++) {
            ct_fabric f;
            ct_fabric_init(&f);
            snprintf(f.name, sizeof f.name, "f%zu", k);
            f.alpha = 50e-6;
            f.beta = 1.0 / 125e6;
            f.penalty.kind = (ct_model_kind)k;
            random_params(&f.penalty);
            snprintf(f.penalty_source, sizeof f.penalty_source, "test_models trial %d", trial);
            ct_sigfile sf = {.version = 1, .nfabrics = 1, .fabrics = &f, .default_fabric = -1};
            char *buf = NULL;
            size_t len = 0;
            FILE *mem = open_memstream(&buf, &len);
            assert_non_null(mem);
            ct_err err = {{0}};
            if (ct_sigfile_write(mem, &sf, &err)) {
                print_error("%s: %s\n", ct_model_name(f.penalty.kind), err.msg);
                fail();
            }
            fclose(mem);
            ct_sigfile back;
            if (ct_sigfile_load_buffer("roundtrip", buf, len, &back, &err)) {
                print_error("%s: %s\n%s", ct_model_name(f.penalty.kind), err.msg, buf);
                fail();
            }
            const ct_fabric *g = &back.fabrics[0];
            assert_int_equal(g->penalty.kind, f.penalty.kind);
            const ct_model_info *mi = ct_model_info_of(f.penalty.kind);
            for (size_t i = 0; i < mi->nkeys; i++) {
                const ct_model_key *key = &mi->keys[i];
                if (key->type == CT_PARAM_REAL)
                    assert_memory_equal(&g->penalty.real[key->slot], &f.penalty.real[key->slot],
                                        sizeof(double));
                else
                    assert_int_equal(g->penalty.integer[key->slot], f.penalty.integer[key->slot]);
            }
            char diff[256];
            assert_int_equal(ct_fabric_diff(&f, g, diff, sizeof diff), 0);
            ct_sigfile_free(&back);
            free(buf);
        }
    }
}

/* Each key refuses a value outside its range, in memory (ct_model_check) and
 * in a file (the loader, at the value's position), naming the key. */
static void test_check_names_the_key(void **state)
{
    (void)state;
    for (size_t k = 0; k < ct_model_count(); k++) {
        const ct_model_info *mi = ct_model_info_of((ct_model_kind)k);
        for (size_t i = 0; i < mi->nkeys; i++) {
            const ct_model_key *key = &mi->keys[i];
            double bad[3];
            size_t nbad = 0;
            if (key->type == CT_PARAM_CHOICE) {
                bad[nbad++] = (double)nchoices(key);
                bad[nbad++] = -1;
            } else {
                bad[nbad++] = key->lo_open ? key->lo : key->lo - 1;
                if (isfinite(key->hi) && key->hi < 0x1p53) /* above: not representable */
                    bad[nbad++] = key->hi_open ? key->hi : key->hi + 1;
                if (key->type == CT_PARAM_REAL)
                    bad[nbad++] = NAN;
            }
            for (size_t b = 0; b < nbad; b++) {
                ct_penalty_model m = {.kind = (ct_model_kind)k};
                random_params(&m);
                assert_false(ct_model_key_ok(key, bad[b]));
                if (key->type == CT_PARAM_REAL)
                    m.real[key->slot] = bad[b];
                else
                    m.integer[key->slot] = (int64_t)bad[b];
                ct_err err = {{0}};
                assert_int_equal(ct_model_check(&m, &err), -1);
                char want[64];
                snprintf(want, sizeof want, "%s = ", key->key);
                if (!strstr(err.msg, want) || !strstr(err.msg, "accepted")) {
                    print_error("%s.%s: message '%s'\n", mi->name, key->key, err.msg);
                    fail();
                }
                /* the same value in a signature file */
                if (isnan(bad[b]))
                    continue;
                char yaml[512], val[64];
                if (key->type == CT_PARAM_CHOICE)
                    snprintf(val, sizeof val, "no_such_%s", key->key);
                else
                    snprintf(val, sizeof val, "%.17g", bad[b]);
                int w = snprintf(yaml, sizeof yaml,
                                 "version: 1\nfabrics:\n  f:\n    p2p: {alpha_us: 1, "
                                 "bandwidth_MBps: 100}\n    penalty:\n      model: %s\n",
                                 mi->name);
                for (size_t j = 0; j < mi->nkeys; j++) {
                    char v[64];
                    if (j == i)
                        snprintf(v, sizeof v, "%s", val);
                    else
                        ct_model_key_format(&m, &mi->keys[j], v, sizeof v);
                    w += snprintf(yaml + w, sizeof yaml - (size_t)w, "      %s: %s\n",
                                  mi->keys[j].key, v);
                }
                ct_sigfile sf;
                assert_int_equal(ct_sigfile_load_buffer("bad", yaml, strlen(yaml), &sf, &err), -1);
                snprintf(want, sizeof want, "penalty.%s", key->key);
                if (!strstr(err.msg, want) || strncmp(err.msg, "bad:", 4) != 0) {
                    print_error("%s: loader message '%s'\n%s", mi->name, err.msg, yaml);
                    fail();
                }
            }
        }
    }
}

/* A random graph of at most 7 nodes (small enough for every model to be
 * exact), arcs with multiplicities 1..3, no self arc. */
static void random_graph(ct_graph *g)
{
    int32_t nn = 2 + (int32_t)(urand() * 6);
    ct_graph_init(g, nn, NULL);
    int narcs = 1 + (int)(urand() * 12);
    for (int a = 0; a < narcs; a++) {
        int32_t s = (int32_t)(urand() * nn), d = (int32_t)(urand() * nn);
        if (s != d)
            ct_graph_add(g, s, d, 1 + (int64_t)(urand() * 3), 1.0, NULL);
    }
}

static void test_penalties_at_least_one_when_promised(void **state)
{
    (void)state;
    for (size_t k = 0; k < ct_model_count(); k++) {
        const ct_model_info *mi = ct_model_info_of((ct_model_kind)k);
        for (int trial = 0; trial < 200; trial++) {
            ct_penalty_model m = {.kind = (ct_model_kind)k};
            random_params(&m);
            ct_graph g;
            random_graph(&g);
            unsigned char act[64];
            for (size_t i = 0; i < g.ncomm; i++)
                act[i] = urand() < 0.7;
            double p[64];
            ct_err err = {{0}};
            if (ct_penalties_active(&m, &g, act, p, &err)) {
                print_error("%s: %s\n", mi->name, err.msg);
                fail();
            }
            for (size_t i = 0; i < g.ncomm; i++) {
                if (!act[i]) {
                    assert_true(p[i] == 0.0); /* every model: inactive arcs get 0 */
                    continue;
                }
                assert_true(isfinite(p[i]) && p[i] > 0);
                if (mi->penalty_ge1 && !(p[i] >= 1.0 - 1e-12)) {
                    print_error("%s: arc %zu penalty %.17g < 1\n", mi->name, i, p[i]);
                    fail();
                }
            }
            ct_graph_free(&g);
        }
    }
}

/* A switch tree by hand: switch s under parent[s] with uplink capacity
 * cap[s] (NIC units), graph node i under leaf[i]. */
static void make_tree(ct_tree_map *t, int32_t nsw, const int32_t *parent, const double *cap,
                      int32_t nn, const int32_t *leaf)
{
    memset(t, 0, sizeof *t);
    t->nswitches = nsw;
    t->parent = calloc((size_t)nsw, sizeof *t->parent);
    t->depth = calloc((size_t)nsw, sizeof *t->depth);
    t->up_cap = calloc((size_t)nsw, sizeof *t->up_cap);
    t->name = calloc((size_t)nsw, sizeof *t->name);
    t->leaf = calloc((size_t)nn, sizeof *t->leaf);
    assert_true(t->parent && t->depth && t->up_cap && t->name && t->leaf);
    for (int32_t s = 0; s < nsw; s++) {
        t->parent[s] = parent[s];
        t->up_cap[s] = cap[s];
        t->depth[s] = parent[s] < 0 ? 0 : t->depth[parent[s]] + 1; /* parents first */
        snprintf(t->name[s], sizeof t->name[s], "s%d", (int)s);
    }
    t->nnodes = nn;
    for (int32_t i = 0; i < nn; i++)
        t->leaf[i] = leaf[i];
}

/* Every node under one switch -- the flat map, or one leaf of a three-level
 * tree whose other switches carry nothing -- gives the node-level penalties
 * bit for bit, for every model and random accepted parameters. */
static void test_one_switch_tree_is_the_node_model(void **state)
{
    (void)state;
    for (size_t k = 0; k < ct_model_count(); k++) {
        const ct_model_info *mi = ct_model_info_of((ct_model_kind)k);
        for (int trial = 0; trial < 100; trial++) {
            ct_penalty_model m = {.kind = (ct_model_kind)k};
            random_params(&m);
            ct_graph g;
            random_graph(&g);
            unsigned char act[64];
            for (size_t i = 0; i < g.ncomm; i++)
                act[i] = urand() < 0.7;
            const unsigned char *mask = trial % 3 ? act : NULL;
            double want[64], got[64];
            ct_err err = {{0}};
            assert_int_equal(ct_penalties_active(&m, &g, mask, want, &err), 0);
            ct_tree_map flat, deep;
            assert_int_equal(ct_tree_map_flat(g.nnodes, &flat, &err), 0);
            const int32_t parent[4] = {-1, 0, 0, 1};
            const double cap[4] = {0, 0.5, 2.0, 0.25};
            int32_t leaf[8];
            for (int32_t i = 0; i < g.nnodes; i++)
                leaf[i] = 3; /* the deepest leaf: its uplink carries nothing */
            make_tree(&deep, 4, parent, cap, g.nnodes, leaf);
            const ct_tree_map *trees[2] = {&flat, &deep};
            for (int w = 0; w < 2; w++) {
                m.tree = trees[w];
                memset(got, 0xff, sizeof got);
                if (ct_penalties_active(&m, &g, mask, got, &err)) {
                    print_error("%s: %s\n", mi->name, err.msg);
                    fail();
                }
                m.tree = NULL;
                if (g.ncomm && memcmp(want, got, g.ncomm * sizeof *got) != 0) {
                    print_error("%s: one-switch tree %d differs from the node model\n",
                                mi->name, w);
                    fail();
                }
            }
            ct_tree_map_free(&flat);
            ct_tree_map_free(&deep);
            ct_graph_free(&g);
        }
    }
}

/* k flows on distinct NICs cross one uplink of capacity C (two leaves under
 * a root, flow i: node i under leaf A -> node k + i under leaf B). For every
 * model: each flow's penalty is at least its one-switch penalty (the link
 * never speeds a flow up), does not fall as k grows with C fixed, is >= 1
 * when the model promises so, and the flows are treated alike. */
static void test_shared_switch_link(void **state)
{
    (void)state;
    enum { KMAX = 12 };
    for (size_t kind = 0; kind < ct_model_count(); kind++) {
        const ct_model_info *mi = ct_model_info_of((ct_model_kind)kind);
        for (int trial = 0; trial < 20; trial++) {
            ct_penalty_model m = {.kind = (ct_model_kind)kind};
            random_params(&m);
            const double C = 0.5 + 3.5 * urand();
            double prev = 0;
            for (int32_t k = 1; k <= KMAX; k++) {
                ct_graph g;
                assert_int_equal(ct_graph_init(&g, 2 * k, NULL), 0);
                for (int32_t i = 0; i < k; i++)
                    assert_int_equal(ct_graph_add(&g, i, k + i, 1, 1.0, NULL), 0);
                const int32_t parent[3] = {-1, 0, 0};
                const double cap[3] = {0, C, C};
                int32_t leaf[2 * KMAX];
                for (int32_t i = 0; i < 2 * k; i++)
                    leaf[i] = i < k ? 1 : 2;
                ct_tree_map t;
                make_tree(&t, 3, parent, cap, 2 * k, leaf);
                double node[KMAX], link[KMAX];
                ct_err err = {{0}};
                assert_int_equal(ct_penalties(&m, &g, node, &err), 0);
                m.tree = &t;
                if (ct_penalties(&m, &g, link, &err)) {
                    print_error("%s: %s\n", mi->name, err.msg);
                    fail();
                }
                m.tree = NULL;
                for (int32_t i = 0; i < k; i++) {
                    assert_true(isfinite(link[i]) && link[i] > 0);
                    assert_true(link[i] == link[0]); /* symmetric flows, same penalty */
                    if (!(link[i] >= node[i])) {
                        print_error("%s: k = %d, C = %g: link penalty %.17g < one-switch %.17g\n",
                                    mi->name, (int)k, C, link[i], node[i]);
                        fail();
                    }
                    if (mi->penalty_ge1)
                        assert_true(link[i] >= 1.0 - 1e-12);
                }
                if (!(link[0] >= prev * (1 - 1e-12))) {
                    print_error("%s: C = %g: penalty fell from %.17g to %.17g at k = %d\n",
                                mi->name, C, prev, link[0], (int)k);
                    fail();
                }
                prev = link[0];
                ct_tree_map_free(&t);
                ct_graph_free(&g);
            }
        }
    }
}

/* The engines' view of a changing network, as simulate.c keeps it: with
 * incremental hooks, the penalties the hooks report; without, the model
 * re-applied to each connected component holding a changed node. Either way
 * it must equal the model on the whole live graph. */
#define MAXL 48

typedef struct live {
    int32_t src, dst;
    int64_t mult;
    int on;
    double p; /* the engine's current penalty */
} live;

static void full_penalties(const ct_penalty_model *m, int32_t nn, const live *L, double *want)
{
    ct_graph g;
    ct_graph_init(&g, nn, NULL);
    size_t map[MAXL];
    for (int h = 0; h < MAXL; h++)
        if (L[h].on) {
            map[g.ncomm] = (size_t)h;
            ct_graph_add(&g, L[h].src, L[h].dst, L[h].mult, 1.0, NULL);
        }
    double p[MAXL];
    assert_int_equal(ct_penalties(m, &g, p, NULL), 0);
    for (size_t i = 0; i < g.ncomm; i++)
        want[map[i]] = p[i];
    ct_graph_free(&g);
}

/* Re-apply the model to the components (over live links) of the marked nodes. */
static void component_update(const ct_penalty_model *m, int32_t nn, live *L, const int *changed)
{
    int comp[16];
    for (int32_t v = 0; v < nn; v++)
        comp[v] = -1;
    int nc = 0;
    for (int32_t r = 0; r < nn; r++) {
        if (!changed[r] || comp[r] >= 0)
            continue;
        comp[r] = nc;
        for (int grew = 1; grew;) { /* closure over live links */
            grew = 0;
            for (int h = 0; h < MAXL; h++)
                if (L[h].on && (comp[L[h].src] == nc) != (comp[L[h].dst] == nc)) {
                    comp[L[h].src] = comp[L[h].dst] = nc;
                    grew = 1;
                }
        }
        int32_t local[16], k = 0;
        for (int32_t v = 0; v < nn; v++)
            local[v] = comp[v] == nc ? k++ : -1;
        ct_graph g;
        ct_graph_init(&g, k, NULL);
        int hs[MAXL];
        for (int h = 0; h < MAXL; h++)
            if (L[h].on && comp[L[h].src] == nc) {
                hs[g.ncomm] = h;
                ct_graph_add(&g, local[L[h].src], local[L[h].dst], L[h].mult, 1.0, NULL);
            }
        double p[MAXL];
        assert_int_equal(ct_penalties(m, &g, p, NULL), 0);
        for (size_t i = 0; i < g.ncomm; i++)
            L[hs[i]].p = p[i];
        ct_graph_free(&g);
        nc++;
    }
}

static void test_update_equals_full_recomputation(void **state)
{
    (void)state;
    for (size_t k = 0; k < ct_model_count(); k++) {
        const model_ops *o = model_ops_of((ct_model_kind)k);
        for (int trial = 0; trial < 40; trial++) {
            ct_penalty_model m = {.kind = (ct_model_kind)k};
            random_params(&m);
            if (trial & 1 && k == CT_MODEL_GIGE)
                m.integer[CT_GIGE_FLAGS] = CT_GIGE_LITERAL_PI; /* both readings */
            int32_t nn = 2 + (int32_t)(urand() * 7);
            live L[MAXL];
            memset(L, 0, sizeof L);
            gnet net;
            if (o->inc_commit) {
                assert_int_equal(gnet_init(&net, nn, NULL), 0);
                if (o->inc_init)
                    assert_int_equal(o->inc_init(&net, &m), 0);
                assert_int_equal(gnet_reserve(&net, MAXL), 0);
            }
            for (int step = 0; step < 60; step++) {
                int changed[16] = {0};
                int nchanges = 1 + (int)(urand() * 4); /* a batch, as at one instant */
                for (int c = 0; c < nchanges; c++) {
                    int h = (int)(urand() * MAXL);
                    if (L[h].on) {
                        L[h].on = 0;
                        if (o->inc_commit)
                            assert_int_equal(gnet_unlink(&net, h), 0);
                    } else {
                        int32_t s = (int32_t)(urand() * nn), d = (int32_t)(urand() * (nn - 1));
                        d += d >= s;
                        L[h] = (live){s, d, 1 + (int64_t)(urand() * 3), 1, 0};
                        if (o->inc_commit)
                            assert_int_equal(gnet_link(&net, h, s, d, L[h].mult), 0);
                    }
                    changed[L[h].src] = changed[L[h].dst] = 1;
                }
                if (o->inc_commit) {
                    assert_int_equal(o->inc_commit(&net), 0);
                    for (size_t i = 0; i < net.ntouched; i++)
                        L[net.touched[i]].p = net.tpen[i];
                } else {
                    component_update(&m, nn, L, changed);
                }
                double want[MAXL];
                full_penalties(&m, nn, L, want);
                for (int h = 0; h < MAXL; h++) {
                    if (!L[h].on)
                        continue;
                    if (!(fabs(L[h].p - want[h]) <= 1e-9 * fabs(want[h]))) {
                        print_error("%s (%s): step %d link %d (%d->%d x%lld): engine %.17g, "
                                    "full recomputation %.17g\n",
                                    o->info.name, o->inc_commit ? "incremental" : "components",
                                    step, h, (int)L[h].src, (int)L[h].dst, (long long)L[h].mult,
                                    L[h].p, want[h]);
                        fail();
                    }
                }
            }
            if (o->inc_commit)
                gnet_free(&net);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_yaml_roundtrip),
        cmocka_unit_test(test_check_names_the_key),
        cmocka_unit_test(test_penalties_at_least_one_when_promised),
        cmocka_unit_test(test_update_equals_full_recomputation),
        cmocka_unit_test(test_one_switch_tree_is_the_node_model),
        cmocka_unit_test(test_shared_switch_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
