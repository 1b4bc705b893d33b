/* The model dispatcher and model names (penalty.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "contention/penalty.h"

static void test_names(void **state)
{
    (void)state;
    ct_model_kind kinds[] = {CT_MODEL_NONE, CT_MODEL_GIGE, CT_MODEL_STOPGO, CT_MODEL_FAIRSHARE};
    const char *names[] = {"none", "gige", "stopgo", "fairshare"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(ct_model_name(kinds[i]), names[i]);
        ct_model_kind k = CT_MODEL_NONE;
        assert_int_equal(ct_model_from_name(names[i], &k), 0);
        assert_int_equal(k, kinds[i]);
    }
    ct_model_kind k;
    assert_int_equal(ct_model_from_name("GigE", &k), 0);
    assert_int_equal(k, CT_MODEL_GIGE);
    assert_int_equal(ct_model_from_name("infiniband", &k), -1);
    assert_int_equal(ct_model_from_name(NULL, &k), -1);
    assert_string_equal(ct_model_name((ct_model_kind)42), "unknown");
}

static void fig4(ct_graph *g)
{
    ct_graph_init(g, 7, NULL);
    int arcs[][2] = {{0, 1}, {0, 2}, {0, 3}, {4, 2}, {5, 3}, {6, 3}};
    for (int i = 0; i < 6; i++)
        ct_graph_add(g, arcs[i][0], arcs[i][1], 1, 1.0, NULL);
}

static void test_dispatch_matches_models(void **state)
{
    (void)state;
    ct_graph g;
    fig4(&g);
    double p[6], q[6];
    ct_penalty_model m = CT_GIGE_MODEL(0.75, 0.036, 0.115);
    assert_int_equal(ct_penalties(&m, &g, p, NULL), 0);
    assert_int_equal(ct_gige_penalties(0.75, 0.036, 0.115, &g, q, NULL), 0);
    assert_memory_equal(p, q, sizeof p);
    assert_true(fabs(p[2] - 2.7675) < 1e-9);
    m = CT_STOPGO_MODEL(CT_STOPGO_EXACT, 0);
    assert_int_equal(ct_penalties(&m, &g, p, NULL), 0);
    assert_int_equal(ct_stopgo_penalties(CT_STOPGO_EXACT, 0, &g, q, NULL), 0);
    assert_memory_equal(p, q, sizeof p);
    m = (ct_penalty_model){.kind = CT_MODEL_FAIRSHARE};
    assert_int_equal(ct_penalties(&m, &g, p, NULL), 0);
    assert_int_equal(ct_fairshare_penalties(&g, q, NULL), 0);
    assert_memory_equal(p, q, sizeof p);
    m = (ct_penalty_model){.kind = CT_MODEL_NONE};
    assert_int_equal(ct_penalties(&m, &g, p, NULL), 0);
    for (int i = 0; i < 6; i++)
        assert_true(p[i] == 1.0);
    ct_graph_free(&g);
}

/* Every model through the active mask: inactive arcs get 0, active ones the
 * penalties of the graph reduced to them. */
static void test_active_every_model(void **state)
{
    (void)state;
    ct_graph g, h;
    fig4(&g);
    unsigned char act[6] = {0, 1, 1, 1, 0, 1};
    ct_graph_init(&h, 7, NULL);
    for (int i = 0; i < 6; i++)
        if (act[i])
            ct_graph_add(&h, g.comm[i].src, g.comm[i].dst, 1, 1.0, NULL);
    ct_penalty_model ms[] = {
        {.kind = CT_MODEL_NONE},
        CT_GIGE_MODEL(0.75, 0.036, 0.115),
        {.kind = CT_MODEL_STOPGO},
        {.kind = CT_MODEL_FAIRSHARE},
    };
    for (int k = 0; k < 4; k++) {
        double p[6], q[4];
        assert_int_equal(ct_penalties_active(&ms[k], &g, act, p, NULL), 0);
        assert_int_equal(ct_penalties(&ms[k], &h, q, NULL), 0);
        for (int i = 0, j = 0; i < 6; i++) {
            if (!act[i]) {
                assert_true(p[i] == 0.0);
                continue;
            }
            assert_true(fabs(p[i] - q[j++]) < 1e-12);
        }
    }
    ct_graph_free(&g);
    ct_graph_free(&h);
}

/* No communication at all: every model answers without touching penalty. */
static void test_empty_graph(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 4, NULL);
    ct_penalty_model ms[] = {
        {.kind = CT_MODEL_NONE},
        CT_GIGE_MODEL(0.75, 0.036, 0.115),
        {.kind = CT_MODEL_STOPGO},
        CT_STOPGO_MODEL(CT_STOPGO_EXACT, 0),
        {.kind = CT_MODEL_FAIRSHARE},
    };
    double sentinel = 42.0;
    for (int k = 0; k < 5; k++)
        assert_int_equal(ct_penalties(&ms[k], &g, &sentinel, NULL), 0);
    assert_true(sentinel == 42.0);
    ct_graph_free(&g);
}

static void test_bad_kind(void **state)
{
    (void)state;
    ct_graph g;
    fig4(&g);
    double p[6];
    ct_err err = {{0}};
    ct_penalty_model m = {.kind = (ct_model_kind)9};
    assert_int_equal(ct_penalties(&m, &g, p, &err), -1);
    assert_non_null(strstr(err.msg, "accepted: none, gige, stopgo, fairshare"));
    ct_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_dispatch_matches_models),
        cmocka_unit_test(test_active_every_model),
        cmocka_unit_test(test_empty_graph),
        cmocka_unit_test(test_bad_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
