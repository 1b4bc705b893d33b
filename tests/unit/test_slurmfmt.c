/* slurmfmt.c (libctslurm): Slurm's environment strings, the compressed CPU
 * list of SLURM_JOB_CPUS_PER_NODE and the host list of SLURM_JOB_NODELIST. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctslurm/slurmfmt.h"

static void test_alloc_parse_compressed(void **state)
{
    (void)state;
    ct_alloc a;
    ct_err err = {{0}};
    assert_int_equal(ctslurm_parse_cpus_per_node("4(x2),3,1(x5)", &a, &err), 0);
    assert_int_equal(a.nnodes, 8);
    const int32_t want[] = {4, 4, 3, 1, 1, 1, 1, 1};
    for (int i = 0; i < 8; i++)
        assert_int_equal(a.cpus[i], want[i]);
    assert_int_equal(ct_alloc_total(&a), 16);
    assert_int_equal(ct_alloc_slots(&a, 1), 16);
    /* cpus_per_task 2: 2,2,1,1 and at least one slot on the 1-CPU nodes */
    assert_int_equal(ct_alloc_slots(&a, 2), 2 + 2 + 1 + 5);
    ct_alloc_free(&a);
    assert_int_equal(a.nnodes, 0);

    assert_int_equal(ctslurm_parse_cpus_per_node("64(x1024)", &a, &err), 0);
    assert_int_equal(a.nnodes, 1024);
    assert_int_equal(ct_alloc_total(&a), 65536);
    ct_alloc_free(&a);

    assert_int_equal(ctslurm_parse_cpus_per_node("2", &a, &err), 0);
    assert_int_equal(a.nnodes, 1);
    assert_int_equal(a.cpus[0], 2);
    ct_alloc_free(&a);
}

static void test_alloc_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        const char *needle; /* must appear in the message */
    } bad[] = {
        {"", "empty"},         {"4(x0)", "column 2"}, {"4(2)", "'(x'"},   {"0", "column 1"},
        {"4,", "column 3"},    {"4(x2", "column 2"},  {"a", "'a'"},       {"4,,3", "column 3"},
        {"70000", "1..65535"}, {"4;3", "';'"},        {"-4", "column 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ct_alloc a = {5, (int32_t *)&a};
        ct_err err = {{0}};
        assert_int_equal(ctslurm_parse_cpus_per_node(bad[i].in, &a, &err), -1);
        assert_int_equal(a.nnodes, 0);
        assert_null(a.cpus);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("'%s': message '%s' lacks '%s'", bad[i].in, err.msg, bad[i].needle);
        /* every message shows what is accepted */
        assert_non_null(strstr(err.msg, bad[i].in[0] ? bad[i].in : "expected"));
    }
    ct_err err = {{0}};
    ct_alloc a;
    assert_int_equal(ctslurm_parse_cpus_per_node(NULL, &a, &err), -1);
}

static void test_nodelist_count(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int64_t n;
    } good[] = {
        {"n1", 1},    {"n[1-4]", 4},         {"n[1-4,7],login2", 6}, {"rack[1-2]-n[01-16]", 32},
        {"a,b,c", 3}, {"gpu[001-128]", 128},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t n = -1;
        ct_err err = {{0}};
        if (ctslurm_count_hosts(good[i].in, &n, &err) != 0)
            fail_msg("'%s': %s", good[i].in, err.msg);
        assert_int_equal(n, good[i].n);
    }
    /* found by fuzzing (tests/fuzz/fuzz_cpulist.c): a 19-digit bound
     * overflowed while being read (UBSan: signed overflow in read_uint) */
    static const char *const bad[] = {"", "n[4-1]", "n[1-", "a,,b", "n]", "n[1-4", "a,", "n[x]",
                                      "n[1-2122222222222222222]", "n[92233720368547758070]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t n = -1;
        ct_err err = {{0}};
        assert_int_equal(ctslurm_count_hosts(bad[i], &n, &err), -1);
        assert_true(strlen(err.msg) > 0);
        assert_int_equal(n, -1);
    }
}


/* Expansion in Slurm's order, zero padding as written, ranges multiply left
 * to right; the count agrees with ctslurm_count_hosts; errors allocate nothing. */
static void test_nodelist_expand(void **state)
{
    (void)state;
    static const struct {
        const char *list, *want;
    } ok[] = {
        {"n1", "n1"},
        {"n[1-3],x", "n1 n2 n3 x"},
        {"n[08-11]", "n08 n09 n10 n11"},
        {"rack[1-2]-n[01-02]", "rack1-n01 rack1-n02 rack2-n01 rack2-n02"},
        {"a[1,3-4]b,c[7]", "a1b a3b a4b c7"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char **v;
        int64_t n, cnt;
        ct_err err;
        assert_int_equal(ctslurm_expand_hosts(ok[i].list, 100, &v, &n, &err), 0);
        assert_int_equal(ctslurm_count_hosts(ok[i].list, &cnt, &err), 0);
        assert_int_equal(n, cnt);
        char buf[256] = "";
        for (int64_t k = 0; k < n; k++) {
            strcat(buf, k ? " " : "");
            strcat(buf, v[k]);
        }
        assert_string_equal(buf, ok[i].want);
        ctslurm_hosts_free(v, n);
    }
    char **v = (char **)1;
    int64_t n = 7;
    ct_err err;
    assert_int_equal(ctslurm_expand_hosts("n[1-3", 100, &v, &n, &err), -1);
    assert_null(v);
    assert_int_equal(n, 0);
    assert_int_equal(ctslurm_expand_hosts("n[1-300]", 10, &v, &n, &err), -1);
    assert_non_null(strstr(err.msg, "names 300 hosts (accepted: at most 10)"));
    /* found by fuzzing (session 9, fuzz_cpulist): a range number zero-padded
     * past 31 digits was counted but could not be expanded; both refuse it
     * now, and 31 digits expand as written */
    char pad[80];
    snprintf(pad, sizeof pad, "g[%032d,3]7", 0);
    int64_t cnt = -1;
    assert_int_equal(ctslurm_count_hosts(pad, &cnt, &err), -1);
    assert_non_null(strstr(err.msg, "column 3: a range number of more than 31 digits"));
    assert_int_equal(cnt, -1);
    assert_int_equal(ctslurm_expand_hosts(pad, 100, &v, &n, &err), -1);
    snprintf(pad, sizeof pad, "g[%031d-%031d]", 8, 9);
    assert_int_equal(ctslurm_count_hosts(pad, &cnt, &err), 0);
    assert_int_equal(cnt, 2);
    assert_int_equal(ctslurm_expand_hosts(pad, 100, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    char want[64];
    snprintf(want, sizeof want, "g%031d", 9);
    assert_string_equal(v[1], want);
    ctslurm_hosts_free(v, n);
}

/* SLURM_HOSTFILE as srun -m arbitrary reads it: comments, blank lines,
 * comma-separated names, NAME*COUNT, reading stops at the job's tasks;
 * errors name the file, the line and the value. */
static int hf(const char *text, size_t len, int32_t ntasks, int32_t *node_of, int32_t *nread,
              ct_err *err)
{
    static char *const hosts[] = {"n10", "n1", "n2", "tux-3"};
    return ctslurm_parse_hostfile("hosts.txt", text, len, hosts, 4, ntasks, node_of, nread, err);
}

static void test_hostfile(void **state)
{
    (void)state;
    int32_t v[8], n;
    ct_err err;
    const char *ok = "# the layout\nn2\r\n n1 \n\nn2*2, n10 # two more\n,tux-3*1,,\n";
    assert_int_equal(hf(ok, strlen(ok), 6, v, &n, &err), 0);
    assert_int_equal(n, 6);
    const int32_t want[] = {2, 1, 2, 2, 0, 3};
    assert_memory_equal(v, want, sizeof want);
    /* the same as a layout over the 4 nodes; a file naming no task is none */
    static char *const hosts[] = {"n10", "n1", "n2", "tux-3"};
    ct_layout l;
    assert_int_equal(ctslurm_hostfile_layout("hosts.txt", ok, strlen(ok), hosts, 4, 6, &l, &err), 0);
    assert_int_equal(l.ntasks, 6);
    assert_int_equal(l.nnodes, 4);
    assert_memory_equal(l.node_of, want, sizeof want);
    ct_layout_free(&l);
    assert_int_equal(ctslurm_hostfile_layout("hosts.txt", "# none\n", 7, hosts, 4, 6, &l, &err), -1);
    assert_non_null(strstr(err.msg, "hosts.txt: task count 0 out of range"));
    assert_null(l.node_of);
    /* as srun: the first ntasks names; fewer is reported through nread */
    assert_int_equal(hf("n1*10\nbogus\n", 12, 3, v, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(v[2], 1);
    assert_int_equal(hf("n1\n", 3, 2, v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(hf("", 0, 2, v, &n, &err), 0);
    assert_int_equal(n, 0);
    struct {
        const char *text, *msg;
    } bad[] = {
        {"n1\nx9\n", "hosts.txt: line 2: 'x9' is not a node of the allocation (its 4 nodes: n10 n1 n2 tux-3)"},
        {"n1*0\n", "hosts.txt: line 1: bad count in 'n1*0' (accepted: NAME*COUNT, COUNT 1..2147483647)"},
        {"n1*\n", "hosts.txt: line 1: bad count in 'n1*'"},
        {"n1*2x\n", "hosts.txt: line 1: bad count in 'n1*2x'"},
        {"n1*99999999999\n", "hosts.txt: line 1: bad count in 'n1*99999999999'"},
        {"\n\n*3\n", "hosts.txt: line 3: no node name before '*' in '*3'"},
        {"n\n", "hosts.txt: line 1: 'n' is not a node of the allocation"},
        {"n100\n", "hosts.txt: line 1: 'n100' is not a node of the allocation"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (hf(bad[i].text, strlen(bad[i].text), 8, v, &n, &err) != -1)
            fail_msg("accepted %s", bad[i].text);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("%s: got '%s'", bad[i].text, err.msg);
        assert_int_equal(n, 0);
    }
    const char nul[] = "n1\nn2\0\n";
    assert_int_equal(hf(nul, sizeof nul - 1, 8, v, &n, &err), -1);
    assert_non_null(strstr(err.msg, "hosts.txt: line 2: contains a NUL byte"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_parse_compressed),
        cmocka_unit_test(test_alloc_parse_errors),
        cmocka_unit_test(test_nodelist_count),
        cmocka_unit_test(test_nodelist_expand),
        cmocka_unit_test(test_hostfile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
