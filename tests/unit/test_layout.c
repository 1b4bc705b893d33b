/* layout.c: the task layouts Slurm 22.05 builds (the geometry strings are
 * parsed by libctslurm, tested in test_slurmfmt.c).
 * The expected layouts in tests/fixtures/layouts/ were printed by real
 * `srun -l` (see the fixture's header); they are compared exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "contention/layout.h"
#include "ctslurm/slurmfmt.h"

static void test_alloc_uniform_cap(void **state)
{
    (void)state;
    ct_alloc a, c;
    ct_err err = {{0}};
    assert_int_equal(ctslurm_parse_cpus_per_node("4(x2),3,1", &a, &err), 0);
    assert_int_equal(ct_alloc_cap(&a, 2, &c, &err), 0);
    assert_int_equal(c.nnodes, 4);
    assert_int_equal(c.cpus[0], 2);
    assert_int_equal(c.cpus[2], 2);
    assert_int_equal(c.cpus[3], 1);
    ct_alloc_free(&c);
    assert_int_equal(ct_alloc_cap(&a, 0, &c, &err), -1);
    ct_alloc_free(&a);

    assert_int_equal(ct_alloc_uniform(3, 8, &a, &err), 0);
    assert_int_equal(ct_alloc_total(&a), 24);
    ct_alloc_free(&a);
    assert_int_equal(ct_alloc_uniform(0, 8, &a, &err), -1);
    assert_int_equal(ct_alloc_uniform(2, 0, &a, &err), -1);
}

/* One fixture case per line: CPUS NTASKS CPT DIST : node node ... */
static void test_layouts_match_real_srun(void **state)
{
    (void)state;
    const char *path = CT_FIXTURES "/layouts/srun_22.05.8.txt";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    int cases = 0, uneven = 0, with_cpt = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char cpus[256], dist_s[64];
        int ntasks, cpt, used;
        if (sscanf(line, "%255s %d %d %63s : %n", cpus, &ntasks, &cpt, dist_s, &used) != 4)
            fail_msg("%s: unreadable line '%s'", path, line);
        ct_dist dist;
        int32_t plane = 0;
        ct_err err = {{0}};
        if (strcmp(dist_s, "default") == 0)
            dist = CT_DIST_BLOCK; /* Slurm's default distribution */
        else if (ct_dist_parse(dist_s, &dist, &plane, &err) != 0)
            fail_msg("%s: %s", path, err.msg);
        int32_t want[1024];
        int nwant = 0;
        char *p = line + used;
        for (;;) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            want[nwant++] = (int32_t)v;
            p = end;
        }
        assert_int_equal(nwant, ntasks);
        ct_alloc a;
        if (ctslurm_parse_cpus_per_node(cpus, &a, &err) != 0)
            fail_msg("%s: %s", path, err.msg);
        for (int32_t i = 1; i < a.nnodes; i++)
            if (a.cpus[i] != a.cpus[0]) {
                uneven++;
                break;
            }
        if (cpt > 1)
            with_cpt++;
        ct_layout l;
        if (ct_layout_build(&a, ntasks, cpt, dist, plane, 0, &l, &err) != 0)
            fail_msg("%s: %s %d %d %s: %s", path, cpus, ntasks, cpt, dist_s, err.msg);
        for (int t = 0; t < ntasks; t++)
            if (l.node_of[t] != want[t])
                fail_msg("%s %d tasks cpt %d %s: task %d on node %d, srun put it on %d", cpus,
                         ntasks, cpt, dist_s, t, l.node_of[t], want[t]);
        assert_int_equal(l.nnodes, a.nnodes);
        ct_layout_free(&l);
        ct_alloc_free(&a);
        cases++;
    }
    fclose(f);
    /* the fixture must keep covering uneven allocations and -c */
    assert_true(cases >= 40);
    assert_true(uneven >= 20);
    assert_true(with_cpt >= 3);
}

static void test_cpus_per_task_and_overflow(void **state)
{
    (void)state;
    ct_alloc a;
    ct_layout l;
    ct_err err = {{0}};
    assert_int_equal(ctslurm_parse_cpus_per_node("4(x2),2(x2)", &a, &err), 0);
    /* cpus_per_task 2 leaves 2,2,1,1 slots: 6 tasks fit, 7 do not */
    assert_int_equal(ct_layout_build(&a, 6, 2, CT_DIST_CYCLIC, 0, 0, &l, &err), 0);
    int32_t cnt[4];
    ct_layout_counts(&l, cnt);
    assert_int_equal(cnt[0], 2);
    assert_int_equal(cnt[1], 2);
    assert_int_equal(cnt[2], 1);
    assert_int_equal(cnt[3], 1);
    ct_layout_free(&l);
    assert_int_equal(ct_layout_build(&a, 7, 2, CT_DIST_BLOCK, 0, 0, &l, &err), -1);
    assert_non_null(strstr(err.msg, "7 tasks"));
    assert_non_null(strstr(err.msg, "6 task slots"));
    assert_null(l.node_of);
    /* a node with fewer CPUs than a task needs still takes one task */
    assert_int_equal(ct_layout_build(&a, 4, 3, CT_DIST_BLOCK, 0, 0, &l, &err), 0);
    ct_layout_counts(&l, cnt);
    for (int i = 0; i < 4; i++)
        assert_int_equal(cnt[i], 1);
    ct_layout_free(&l);
    /* bad arguments */
    assert_int_equal(ct_layout_build(&a, 0, 1, CT_DIST_BLOCK, 0, 0, &l, &err), -1);
    assert_int_equal(ct_layout_build(&a, 4, 0, CT_DIST_BLOCK, 0, 0, &l, &err), -1);
    assert_int_equal(ct_layout_build(&a, 4, 1, CT_DIST_PLANE, 0, 0, &l, &err), -1);
    assert_non_null(strstr(err.msg, "plane size 0"));
    assert_int_equal(ct_layout_build(&a, 4, 1, CT_DIST_EXPLICIT, 0, 0, &l, &err), -1);
    assert_int_equal(ct_layout_build(NULL, 4, 1, CT_DIST_BLOCK, 0, 0, &l, &err), -1);
    ct_alloc_free(&a);
}

static void test_even_properties_large(void **state)
{
    (void)state;
    ct_alloc a;
    ct_layout b, c, p;
    ct_err err = {{0}};
    const int32_t N = 1024, T = 64;
    assert_int_equal(ct_alloc_uniform(N, T, &a, &err), 0);
    assert_int_equal(ct_layout_build(&a, N * T, 1, CT_DIST_BLOCK, 0, 0, &b, &err), 0);
    assert_int_equal(ct_layout_build(&a, N * T, 1, CT_DIST_CYCLIC, 0, 0, &c, &err), 0);
    assert_int_equal(ct_layout_build(&a, N * T, 1, CT_DIST_PLANE, 8, 0, &p, &err), 0);
    for (int32_t t = 0; t < N * T; t++) {
        /* RRP: T consecutive tasks per node; RRN: one per node in turn */
        assert_int_equal(b.node_of[t], t / T);
        assert_int_equal(c.node_of[t], t % N);
        assert_int_equal(p.node_of[t], (t / 8) % N);
    }
    ct_layout_free(&b);
    ct_layout_free(&c);
    ct_layout_free(&p);
    ct_alloc_free(&a);
}

static void test_random_layout(void **state)
{
    (void)state;
    ct_alloc a;
    ct_layout r1, r2, r3;
    ct_err err = {{0}};
    assert_int_equal(ctslurm_parse_cpus_per_node("4(x2),3,1(x5)", &a, &err), 0);
    assert_int_equal(ct_layout_build(&a, 14, 1, CT_DIST_RANDOM, 0, 42, &r1, &err), 0);
    assert_int_equal(ct_layout_build(&a, 14, 1, CT_DIST_RANDOM, 0, 42, &r2, &err), 0);
    assert_int_equal(ct_layout_build(&a, 14, 1, CT_DIST_RANDOM, 0, 7, &r3, &err), 0);
    assert_int_equal(r1.dist, CT_DIST_RANDOM);
    assert_memory_equal(r1.node_of, r2.node_of, 14 * sizeof(int32_t)); /* seeded */
    int differs = memcmp(r1.node_of, r3.node_of, 14 * sizeof(int32_t)) != 0;
    assert_true(differs);
    int32_t cnt[8];
    ct_layout_counts(&r1, cnt);
    int total = 0;
    for (int i = 0; i < 8; i++) {
        assert_true(cnt[i] <= a.cpus[i]); /* within CPU limits */
        total += cnt[i];
    }
    assert_int_equal(total, 14);
    ct_layout_free(&r1);
    ct_layout_free(&r2);
    ct_layout_free(&r3);
    /* a full allocation: every slot used exactly once, whatever the seed */
    assert_int_equal(ct_layout_build(&a, 16, 1, CT_DIST_RANDOM, 0, 99, &r1, &err), 0);
    ct_layout_counts(&r1, cnt);
    for (int i = 0; i < 8; i++)
        assert_int_equal(cnt[i], a.cpus[i]);
    ct_layout_free(&r1);
    ct_alloc_free(&a);
}

static void test_dist_names(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(ct_dist_name(CT_DIST_BLOCK), "block");
    assert_string_equal(ct_dist_name(CT_DIST_CYCLIC), "cyclic");
    assert_string_equal(ct_dist_label(CT_DIST_PLANE, 4, buf, sizeof buf), "plane=4");
    assert_string_equal(ct_dist_label(CT_DIST_RANDOM, 0, buf, sizeof buf), "random");
    ct_dist d;
    int32_t plane = -1;
    ct_err err = {{0}};
    assert_int_equal(ct_dist_parse("plane=3", &d, &plane, &err), 0);
    assert_int_equal(d, CT_DIST_PLANE);
    assert_int_equal(plane, 3);
    assert_int_equal(ct_dist_parse("cyclic", &d, &plane, &err), 0);
    assert_int_equal(d, CT_DIST_CYCLIC);
    assert_int_equal(ct_dist_parse("plane=65535", &d, &plane, &err), 0);
    assert_int_equal(plane, 65535);
    static const char *const bad[] = {"",         "plane=0",     "plane=",    "block:cyclic",
                                      "arbitrary", "plane=4x",   "plane=-1",  "plane=+4",
                                      "plane= 4",  "plane=65536", "plane=99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ct_dist_parse(bad[i], &d, &plane, &err), -1);
        assert_non_null(strstr(err.msg, "accepted: block, cyclic"));
    }
}

static void test_explicit(void **state)
{
    (void)state;
    ct_layout l;
    ct_err err = {{0}};
    const int32_t nodes[] = {2, 0, 1, 2};
    assert_int_equal(ct_layout_explicit(3, 4, nodes, &l, &err), 0);
    assert_int_equal(l.dist, CT_DIST_EXPLICIT);
    int32_t cnt[3];
    ct_layout_counts(&l, cnt);
    assert_int_equal(cnt[2], 2);
    ct_layout_free(&l);
    const int32_t bad[] = {0, 3};
    assert_int_equal(ct_layout_explicit(3, 2, bad, &l, &err), -1);
    assert_non_null(strstr(err.msg, "task 1 placed on node 3"));
}

static void expect_layout(const ct_layout *l, const char *want)
{
    char got[512] = "";
    size_t len = 0;
    for (int32_t t = 0; t < l->ntasks && len < sizeof got - 16; t++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%d", t ? " " : "",
                                (int)l->node_of[t]);
    assert_string_equal(got, want);
}

/* A job's steps in order on 4(x2),3,1(x5) (salloc -N8 -n16), with the node
 * each step starts at carried from step to step. Real srun -l (Slurm
 * 24.11.5 trixie and 26.05.5 sid, slurm-matrix, test_localcluster_layouts)
 * ran "-n5 -m block" after "-n5 -m cyclic" on nodes 0 1 5 6 7; 22.05.8
 * on 0 1 2 3 4. The third partial step is where 24.11 (next start one past
 * the highest node taken: 0) and 26.05 (one past the last node examined:
 * 2) part; real srun -l ran it on 0 1 2 on 24.11.5 and on 2 3 4 on
 * 26.05.5 (slurm-matrix, 2026-11-23). */
static void test_step_nodes_per_release(void **state)
{
    (void)state;
    struct {
        const char *ver;
        const char *want[4];
    } rel[] = {
        {"22.05.8", {"0 0 0 0 1 1 1 1 2 2 2 3 4 5 6 7", "0 1 2 3 4", "0 1 2 3 4", "0 1 2"}},
        {"24.11.5", {"0 0 0 0 1 1 1 1 2 2 2 3 4 5 6 7", "0 1 2 3 4", "0 1 5 6 7", "0 1 2"}},
        {"26.05.5", {"0 0 0 0 1 1 1 1 2 2 2 3 4 5 6 7", "0 1 2 3 4", "0 1 5 6 7", "2 3 4"}},
    };
    const int32_t nt[4] = {16, 5, 5, 3};
    const ct_dist d[4] = {CT_DIST_BLOCK, CT_DIST_CYCLIC, CT_DIST_BLOCK, CT_DIST_CYCLIC};
    ct_alloc a;
    ct_err err = {{0}};
    assert_int_equal(ctslurm_parse_cpus_per_node("4(x2),3,1(x5)", &a, &err), 0);
    for (size_t r = 0; r < sizeof rel / sizeof rel[0]; r++) {
        ct_step_rules rules = {.first_node = 0};
        assert_int_equal(ct_slurm_version_parse(rel[r].ver, &rules.slurm_version, &err), 0);
        for (int s = 0; s < 4; s++) {
            ct_layout l;
            int32_t next = -2;
            assert_int_equal(
                ct_layout_build_step(&a, nt[s], 1, d[s], 0, 1, &rules, &l, &next, &err), 0);
            expect_layout(&l, rel[r].want[s]);
            assert_int_equal(l.nnodes, 8);
            assert_true(next >= 0 && next < 8);
            rules.first_node = next;
            ct_layout_free(&l);
        }
    }

    /* the start not known: a partial step is "not modelled" from 24.05.5,
     * a step on every node is built as before; 22.05 never needs it */
    ct_step_rules unknown = {.slurm_version = CT_SLURM_VERSION(24, 11, 5), .first_node = -1};
    ct_layout l;
    int32_t next = 0;
    assert_int_equal(ct_layout_build_step(&a, 5, 1, CT_DIST_BLOCK, 0, 1, &unknown, &l, &next, &err),
                     -1);
    assert_non_null(strstr(err.msg, "not modelled"));
    assert_int_equal(next, -1);
    assert_int_equal(ct_layout_build_step(&a, 16, 1, CT_DIST_CYCLIC, 0, 1, &unknown, &l, &next, &err),
                     0);
    expect_layout(&l, "0 1 2 3 4 5 6 7 0 1 2 0 1 2 0 1");
    assert_int_equal(next, 0); /* 24.11: one past node 7 */
    ct_layout_free(&l);
    unknown.slurm_version = CT_SLURM_VERSION(24, 5, 4);
    assert_int_equal(ct_layout_build_step(&a, 5, 1, CT_DIST_BLOCK, 0, 1, &unknown, &l, &next, &err),
                     0);
    expect_layout(&l, "0 1 2 3 4");
    ct_layout_free(&l);

    /* cpus per task 2 on fewer nodes: only nodes with 2 CPUs qualify; from
     * start 1: nodes 1 and 2 (c = 4 > k = 2, target 2) */
    ct_step_rules r24 = {.slurm_version = CT_SLURM_VERSION(24, 11, 0), .first_node = 1};
    assert_int_equal(ct_layout_build_step(&a, 2, 2, CT_DIST_BLOCK, 0, 1, &r24, &l, &next, &err), 0);
    expect_layout(&l, "1 2");
    assert_int_equal(next, 3);
    ct_layout_free(&l);
    /* 3 tasks of 4 CPUs on 3 nodes: 4 + 4 + 3 CPUs at most, Slurm finds no
     * node set (_pick_step_nodes_cpus returns none) */
    assert_int_equal(ct_layout_build_step(&a, 3, 4, CT_DIST_BLOCK, 0, 1, &r24, &l, &next, &err),
                     -1);
    assert_non_null(strstr(err.msg, "not modelled"));
    ct_alloc_free(&a);

    uint32_t v;
    assert_int_equal(ct_slurm_version_parse("26.05", &v, &err), 0);
    assert_int_equal(v, CT_SLURM_VERSION(26, 5, 0));
    assert_int_equal(ct_slurm_version_parse("22.05.8-1", &v, &err), 0);
    assert_int_equal(v, CT_SLURM_VERSION(22, 5, 8));
    assert_int_equal(ct_slurm_version_parse("24", &v, &err), -1);
    assert_int_equal(ct_slurm_version_parse("24.", &v, &err), -1);
    assert_int_equal(ct_slurm_version_parse("24.300", &v, &err), -1);
    assert_int_equal(ct_slurm_version_parse("x", &v, &err), -1);
    assert_non_null(strstr(err.msg, "'x'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_uniform_cap),
        cmocka_unit_test(test_layouts_match_real_srun),
        cmocka_unit_test(test_cpus_per_task_and_overflow),
        cmocka_unit_test(test_even_properties_large),
        cmocka_unit_test(test_random_layout),
        cmocka_unit_test(test_dist_names),
        cmocka_unit_test(test_explicit),
        cmocka_unit_test(test_step_nodes_per_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
