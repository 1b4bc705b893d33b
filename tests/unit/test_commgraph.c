/* Node-level communication graph with multiplicities (paper 001 §IV-A). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "contention/commgraph.h"

static void test_add_and_degrees(void **state)
{
    (void)state;
    ct_graph g;
    ct_err err = {{0}};
    assert_int_equal(ct_graph_init(&g, 4, &err), 0);
    assert_int_equal(ct_graph_add(&g, 0, 1, 3, 1024.0, &err), 0);
    assert_int_equal(ct_graph_add(&g, 0, 2, 1, 1024.0, &err), 0);
    assert_int_equal(ct_graph_add(&g, 3, 1, 2, 512.0, &err), 0);
    assert_int_equal(g.ncomm, 3);
    assert_int_equal(ct_graph_total(&g), 6);
    int64_t out[4], in[4];
    ct_graph_degrees(&g, out, in);
    /* Δo / Δi count communications (sum of mult), 001 §V-A */
    int64_t eo[4] = {4, 0, 0, 2}, ei[4] = {0, 5, 1, 0};
    assert_memory_equal(out, eo, sizeof eo);
    assert_memory_equal(in, ei, sizeof ei);
    unsigned char act[3] = {0, 1, 1};
    ct_graph_degrees_active(&g, act, out, in);
    int64_t ao[4] = {1, 0, 0, 2}, ai[4] = {0, 2, 1, 0};
    assert_memory_equal(out, ao, sizeof ao);
    assert_memory_equal(in, ai, sizeof ai);
    ct_graph_free(&g);
    assert_null(g.comm);
}

static void test_growth(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 100, NULL);
    for (int u = 0; u < 100; u++)
        for (int v = 0; v < 100; v++)
            if (u != v)
                assert_int_equal(ct_graph_add(&g, u, v, 1, 1.0, NULL), 0);
    assert_int_equal(g.ncomm, 9900);
    assert_int_equal(g.comm[9899].src, 99);
    assert_int_equal(g.comm[9899].dst, 98);
    ct_graph_free(&g);
}

static void test_coalesce(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 3, NULL);
    ct_graph_add(&g, 2, 0, 1, 8.0, NULL);
    ct_graph_add(&g, 0, 1, 2, 8.0, NULL);
    ct_graph_add(&g, 0, 1, 5, 8.0, NULL);
    ct_graph_add(&g, 0, 1, 1, 16.0, NULL); /* other size: kept apart */
    ct_graph_add(&g, 2, 0, 4, 8.0, NULL);
    ct_graph_coalesce(&g);
    assert_int_equal(g.ncomm, 3);
    assert_int_equal(g.comm[0].src, 0);
    assert_int_equal(g.comm[0].mult, 7);
    assert_true(g.comm[0].bytes == 8.0);
    assert_int_equal(g.comm[1].mult, 1);
    assert_true(g.comm[1].bytes == 16.0);
    assert_int_equal(g.comm[2].src, 2);
    assert_int_equal(g.comm[2].mult, 5);
    assert_int_equal(ct_graph_total(&g), 13);
    ct_graph_free(&g);
}

static void test_rejects(void **state)
{
    (void)state;
    ct_graph g;
    ct_err err = {{0}};
    assert_int_equal(ct_graph_init(&g, 0, &err), -1);
    assert_non_null(strstr(err.msg, ">= 1"));
    ct_graph_init(&g, 3, NULL);
    assert_int_equal(ct_graph_add(&g, 1, 1, 1, 1.0, &err), -1);
    assert_non_null(strstr(err.msg, "intra-node"));
    assert_int_equal(ct_graph_add(&g, 0, 3, 1, 1.0, &err), -1);
    assert_non_null(strstr(err.msg, "0..2"));
    assert_int_equal(ct_graph_add(&g, -1, 2, 1, 1.0, &err), -1);
    assert_int_equal(ct_graph_add(&g, 0, 1, 0, 1.0, &err), -1);
    assert_non_null(strstr(err.msg, "multiplicity"));
    assert_int_equal(ct_graph_add(&g, 0, 1, 1, NAN, &err), -1);
    assert_int_equal(ct_graph_add(&g, 0, 1, 1, -5.0, &err), -1);
    assert_int_equal(g.ncomm, 0);
    ct_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_and_degrees),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_coalesce),
        cmocka_unit_test(test_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
