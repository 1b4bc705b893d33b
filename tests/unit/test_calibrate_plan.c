/* calibrate_jobs.c: the steps `contention-admin calibrate` plans. Here the
 * exchange (session 28, our extension): the 2 x 1 Alltoall is measured up to
 * the wide ping-pong's largest sizes (1 and 2 MiB, --quick too), so that the
 * duplex coupling δ and the long-exchange term are fitted over the sizes the
 * pattern model prices with them; every other Alltoall step keeps the plan's
 * sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../admin/admin.h"
#include "../../admin/calibrate.h"

static plan *new_plan(const char *sizes)
{
    plan *p = calloc(1, sizeof *p);
    assert_non_null(p);
    p->bench = "ct-mpibench";
    p->mpi = "pmix";
    p->reps = 5;
    p->csize = 1048576;
    assert_int_equal(calib_parse_sizes(sizes, p), ADMIN_OK);
    return p;
}

/* the value after --sizes in a step's argv, NULL when none */
static const char *sizes_of(const step *s)
{
    for (int i = 0; i + 1 < s->argc; i++)
        if (strcmp(s->argv[i], "--sizes") == 0)
            return s->argv[i + 1];
    return NULL;
}

static const step *find(const plan *p, const char *file)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->steps[i].file, file) == 0)
            return &p->steps[i];
    return NULL;
}

static void test_exchange_sizes(void **state)
{
    (void)state;
    char x[32];
    double sum;
    plan *p = new_plan("32K,64K,128K,256K,512K");
    assert_int_equal(calib_exchange_sizes(p, x, sizeof x, &sum), 2);
    assert_string_equal(x, "1M,2M");
    assert_true(sum == 3.0 * 1048576);
    free(p);
    p = new_plan("256K,1M"); /* 1M is the plan's own: only 2M beyond it */
    assert_int_equal(calib_exchange_sizes(p, x, sizeof x, &sum), 1);
    assert_string_equal(x, "2M");
    assert_true(sum == 2097152);
    free(p);
    p = new_plan("1M,4M"); /* nothing beyond the plan */
    assert_int_equal(calib_exchange_sizes(p, x, sizeof x, &sum), 0);
    assert_string_equal(x, "");
    /* a buffer too small for the tail: none rather than half a list */
    free(p);
    p = new_plan("32K,64K");
    assert_int_equal(calib_exchange_sizes(p, x, 4, &sum), 0);
    assert_string_equal(x, "");
    assert_true(sum == 0);
    free(p);
}

static void test_plan_measures_the_exchange_at_2x1_only(void **state)
{
    (void)state;
    plan *p = new_plan("32K,64K,128K,256K,512K");
    p->flow_tasks = 7;
    p->incast_tasks = 5;
    calib_build_plan(p, 4, 4, "123", 0);
    const step *x = find(p, "alltoall-2x1.csv");
    assert_non_null(x);
    assert_string_equal(sizes_of(x), "32K,64K,128K,256K,512K,1M,2M");
    assert_string_equal(x->label, "Alltoall, 2 nodes x 1 task, 7 sizes (the exchange up to 2 MiB)");
    const step *o = find(p, "alltoall-4x1.csv");
    assert_non_null(o);
    assert_string_equal(sizes_of(o), "32K,64K,128K,256K,512K");
    /* the exchange's bytes are in its work: 2 x 1 moves one message a size
     * through the busiest NIC, 4 x 1 three */
    double msum = (32 + 64 + 128 + 256 + 512) * 1024.0;
    assert_true(x->work == (msum + 3.0 * 1048576) * (p->reps + 1));
    assert_true(o->work == 3 * msum * (p->reps + 1));
    int alltoalls = 0;
    for (int i = 0; i < p->n; i++) {
        const step *s = &p->steps[i];
        if (s->kind != ST_ALLTOALL)
            continue;
        alltoalls++;
        if (s != x) /* the many-flow steps (2 x 7, 3 x 5) included */
            assert_string_equal(sizes_of(s), "32K,64K,128K,256K,512K");
    }
    assert_int_equal(alltoalls, 3 + 2 + 2 + 2); /* N x 1 for N = 2..4; 2 x 2, 4 x 2; 2 x 4, 4 x 4; 2 x 7, 3 x 5 */
    free(p);
    p = new_plan("32K,64K,128K,256K");
    calib_build_plan(p, 3, 1, "123", 1); /* --quick: the same two, the term needs both */
    x = find(p, "alltoall-2x1.csv");
    assert_non_null(x);
    assert_string_equal(sizes_of(x), "32K,64K,128K,256K,1M,2M");
    assert_string_equal(x->label, "Alltoall, 2 nodes x 1 task, 6 sizes (the exchange up to 2 MiB)");
    free(p);
}

/* The bucket's refill (session 29): the 2 x 1 exchange again after an idle of
 * CALIB_REFILL_IDLE before each call, at 256 KiB-1 MiB, into refill-2x1.csv
 * (a name no "alltoall-*" reader takes for an Alltoall configuration);
 * optional; its sleeps are in its time estimate. */
static void test_plan_measures_the_refill(void **state)
{
    (void)state;
    plan *p = new_plan("32K,64K,128K,256K,512K");
    calib_build_plan(p, 4, 4, "123", 0);
    const step *r = find(p, "refill-2x1.csv");
    assert_non_null(r);
    assert_int_equal(r->kind, ST_REFILL);
    assert_int_equal(r->nodes, 2);
    assert_int_equal(r->tpn, 1);
    assert_true(r->optional);
    assert_string_equal(sizes_of(r), "256K,512K,1M");
    int idle = -1;
    for (int i = 0; i + 1 < r->argc; i++)
        if (strcmp(r->argv[i], "--idle") == 0)
            idle = strcmp(r->argv[i + 1], "0.1") == 0;
    assert_int_equal(idle, 1);
    assert_true(r->idle == 0.1 * 3 * (p->reps + 1));
    assert_string_equal(r->label,
                        "Alltoall, 2 nodes x 1 task, after 100 ms idle (the bucket's refill), 3 sizes");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exchange_sizes),
        cmocka_unit_test(test_plan_measures_the_exchange_at_2x1_only),
        cmocka_unit_test(test_plan_measures_the_refill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
