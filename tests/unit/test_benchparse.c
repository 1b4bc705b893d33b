/* Benchmark output parsers (modelcore/src/benchparse.c): the project's CSV
 * (ct-mpibench), OSU osu_latency / osu_bw / osu_alltoall and IMB-MPI1
 * PingPong / Alltoall, on fixtures written in those formats
 * (tests/fixtures/bench/, see gen_*.py there); line-numbered refusals; and a
 * fit on the recorded CSV recovering the parameters it was written with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/benchparse.h"
#include "contention/fit.h"
#include "ct_test_util.h"

#define BENCH CT_FIXTURES "/bench/"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static ct_bench_format detect_file(const char *path)
{
    size_t len;
    char *buf = slurp(path, &len);
    ct_bench_format f = ct_bench_detect(buf, len);
    free(buf);
    return f;
}

static void test_detect(void **state)
{
    (void)state;
    assert_int_equal(detect_file(BENCH "osu_latency.txt"), CT_BENCH_OSU_LATENCY);
    assert_int_equal(detect_file(BENCH "osu_bw.txt"), CT_BENCH_OSU_BW);
    assert_int_equal(detect_file(BENCH "osu_alltoall.txt"), CT_BENCH_OSU_ALLTOALL);
    assert_int_equal(detect_file(BENCH "osu_alltoall_full_notasks.txt"), CT_BENCH_OSU_ALLTOALL);
    assert_int_equal(detect_file(BENCH "imb.txt"), CT_BENCH_IMB);
    assert_int_equal(detect_file(BENCH "recorded_one_per_node.csv"), CT_BENCH_CSV);
    assert_int_equal(ct_bench_detect("hello\nworld\n", 12), CT_BENCH_UNKNOWN);
    assert_int_equal(ct_bench_detect("# OSU MPI Bi-Directional Bandwidth Test v5.9\n", 45),
                     CT_BENCH_UNKNOWN);
    assert_int_equal(ct_bench_detect("", 0), CT_BENCH_UNKNOWN);
    assert_string_equal(ct_bench_format_name(CT_BENCH_IMB), "imb");
    assert_string_equal(ct_bench_format_name(CT_BENCH_OSU_BW), "osu_bw");
}

/* Reference reading of a two-column OSU-style file, independent of the
 * parser: every line starting with a digit gives (size, value). */
static size_t read_pairs(const char *path, double *m, double *v, size_t max)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    size_t n = 0;
    while (fgets(line, sizeof line, f) && n < max)
        if (line[0] >= '0' && line[0] <= '9' && sscanf(line, "%lf %lf", &m[n], &v[n]) == 2)
            n++;
    fclose(f);
    return n;
}

static void parse_ok(const char *path, const ct_bench_defaults *def, ct_bench_data *d,
                     ct_bench_format want)
{
    ct_err err;
    ct_bench_format got;
    int rc = ct_bench_parse_file(path, def, d, &got, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(got, want);
}

/* osu_latency: one-way latency in us -> s. */
static void test_osu_latency(void **state)
{
    (void)state;
    double m[64], v[64];
    size_t n = read_pairs(BENCH "osu_latency.txt", m, v, 64);
    assert_int_equal(n, 24);
    ct_bench_data d = {0};
    parse_ok(BENCH "osu_latency.txt", NULL, &d, CT_BENCH_OSU_LATENCY);
    assert_int_equal(d.np2p, n);
    assert_int_equal(d.na2a + d.nbw, 0);
    for (size_t i = 0; i < n; i++) {
        assert_true(d.p2p[i].m == m[i]);
        close_rel(d.p2p[i].t, v[i] * 1e-6, 1e-15, "latency");
    }
    ct_bench_free(&d);
    assert_null(d.p2p);
}

/* osu_bw: MB/s with MB = 10^6 bytes (OSU's definition) -> bytes/s. */
static void test_osu_bw(void **state)
{
    (void)state;
    double m[64], v[64];
    size_t n = read_pairs(BENCH "osu_bw.txt", m, v, 64);
    ct_bench_data d = {0};
    parse_ok(BENCH "osu_bw.txt", NULL, &d, CT_BENCH_OSU_BW);
    assert_int_equal(d.nbw, n);
    for (size_t i = 0; i < n; i++) {
        assert_true(d.bw[i].m == m[i]);
        close_rel(d.bw[i].bw, v[i] * 1e6, 1e-15, "bandwidth");
    }
    ct_bench_free(&d);
}

/* osu_alltoall: the process count comes from '# tasks: N' (OSU does not print
 * it); tasks per node from the caller's default, else 1. */
static void test_osu_alltoall(void **state)
{
    (void)state;
    double m[64], v[64];
    size_t n = read_pairs(BENCH "osu_alltoall.txt", m, v, 64);
    assert_int_equal(n, 21);
    ct_bench_data d = {0};
    parse_ok(BENCH "osu_alltoall.txt", NULL, &d, CT_BENCH_OSU_ALLTOALL);
    assert_int_equal(d.na2a, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(d.a2a[i].nodes, 16);
        assert_int_equal(d.a2a[i].tasks_per_node, 1);
        assert_true(d.a2a[i].m == m[i]);
        close_rel(d.a2a[i].t, v[i] * 1e-6, 1e-15, "alltoall");
    }
    ct_bench_free(&d);

    ct_bench_defaults def = {0, 2};
    parse_ok(BENCH "osu_alltoall.txt", &def, &d, CT_BENCH_OSU_ALLTOALL);
    assert_int_equal(d.a2a[0].nodes, 8);
    assert_int_equal(d.a2a[0].tasks_per_node, 2);
    ct_bench_free(&d);
}

/* OSU 7 with -f prints Avg, Min, Max, Iterations: the average is used. */
static void test_osu_alltoall_full_needs_tasks(void **state)
{
    (void)state;
    ct_bench_data d = {0};
    ct_err err;
    assert_int_equal(
        ct_bench_parse_file(BENCH "osu_alltoall_full_notasks.txt", NULL, &d, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "osu_alltoall_full_notasks.txt: osu_alltoall output does not "
                                    "say how many processes ran (accepted: a line '# tasks: N'"));
    assert_int_equal(d.na2a, 0);
    double m[64], v[64];
    size_t n = read_pairs(BENCH "osu_alltoall_full_notasks.txt", m, v, 64);
    ct_bench_defaults def = {8, 0};
    parse_ok(BENCH "osu_alltoall_full_notasks.txt", &def, &d, CT_BENCH_OSU_ALLTOALL);
    assert_int_equal(d.na2a, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(d.a2a[i].nodes * d.a2a[i].tasks_per_node, 8);
        close_rel(d.a2a[i].t, v[i] * 1e-6, 1e-15, "avg column");
    }
    ct_bench_free(&d);
}

/* IMB: PingPong t[usec] (half the round trip), Alltoall t_avg[usec] per
 * '# #processes = N' block; the PingPing block is skipped. */
static void test_imb(void **state)
{
    (void)state;
    ct_bench_data d = {0};
    parse_ok(BENCH "imb.txt", NULL, &d, CT_BENCH_IMB);
    assert_int_equal(d.np2p, 24);
    assert_int_equal(d.na2a, 3 * 24);
    assert_int_equal(d.nbw, 0);
    /* reference: walk the file by hand */
    FILE *f = fopen(BENCH "imb.txt", "r");
    assert_non_null(f);
    char line[256], bench[32] = "";
    int nprocs = 0;
    size_t ip = 0, ia = 0;
    while (fgets(line, sizeof line, f)) {
        int np;
        if (sscanf(line, "# Benchmarking %31s", bench) == 1)
            continue;
        if (sscanf(line, "# #processes = %d", &np) == 1) {
            nprocs = np;
            continue;
        }
        double b, r, c3, c4, c5;
        int k = sscanf(line, "%lf %lf %lf %lf %lf", &b, &r, &c3, &c4, &c5);
        if (strcmp(bench, "PingPong") == 0 && k == 4) {
            assert_true(d.p2p[ip].m == b);
            close_rel(d.p2p[ip].t, c3 * 1e-6, 1e-15, "PingPong t");
            ip++;
        } else if (strcmp(bench, "Alltoall") == 0 && k == 5) {
            assert_int_equal(d.a2a[ia].nodes, nprocs);
            assert_int_equal(d.a2a[ia].tasks_per_node, 1);
            assert_true(d.a2a[ia].m == b);
            close_rel(d.a2a[ia].t, c5 * 1e-6, 1e-15, "Alltoall t_avg");
            ia++;
        }
    }
    fclose(f);
    assert_int_equal(ip, d.np2p);
    assert_int_equal(ia, d.na2a);
    ct_bench_free(&d);
}

/* ct-mpibench CSV: nodes and tasks_per_node columns, a conflict row to skip,
 * '#' comments between rows. */
static void test_csv_recorded(void **state)
{
    (void)state;
    ct_bench_data d = {0};
    parse_ok(BENCH "recorded_one_per_node.csv", NULL, &d, CT_BENCH_CSV);
    assert_int_equal(d.np2p, 13);
    assert_int_equal(d.na2a, 4 * 11);
    assert_true(d.p2p[0].m == 0 && d.p2p[0].t == 6.0e-05);
    assert_int_equal(d.a2a[0].nodes, 4);
    assert_int_equal(d.a2a[0].tasks_per_node, 1);
    assert_true(d.a2a[0].m == 1024);
    /* appending a second file keeps the first */
    parse_ok(BENCH "recorded_two_per_node.csv", NULL, &d, CT_BENCH_CSV);
    assert_int_equal(d.np2p, 26);
    assert_int_equal(d.na2a, 44 + 33);
    assert_int_equal(d.a2a[44].nodes, 4);
    assert_int_equal(d.a2a[44].tasks_per_node, 2);
    /* a failed parse leaves the data as it was */
    ct_err err;
    assert_int_equal(
        ct_bench_parse_file(BENCH "osu_alltoall_full_notasks.txt", NULL, &d, NULL, &err), -1);
    assert_int_equal(d.np2p, 26);
    assert_int_equal(d.na2a, 77);
    ct_bench_free(&d);
}

static void parse_buf_ok(const char *text, const ct_bench_defaults *def, ct_bench_data *d)
{
    ct_err err;
    int rc = ct_bench_parse("mem.csv", text, strlen(text), def, d, NULL, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, 0);
}

/* Tasks per node: row columns, then '# tasks_per_node: K', then the default,
 * then one per node. Columns may come in any order. */
static void test_csv_tasks_per_node_sources(void **state)
{
    (void)state;
    ct_bench_data d = {0};
    ct_bench_defaults def4 = {0, 4};
    parse_buf_ok("t_avg_s,size_bytes,benchmark,tasks\n0.5,1024,alltoall,16\n", NULL, &d);
    assert_int_equal(d.a2a[0].nodes, 16);
    assert_int_equal(d.a2a[0].tasks_per_node, 1);
    assert_true(d.a2a[0].t == 0.5 && d.a2a[0].m == 1024);
    parse_buf_ok("benchmark,tasks,size_bytes,t_avg_s\nalltoall,16,1024,0.5\n", &def4, &d);
    assert_int_equal(d.a2a[1].tasks_per_node, 4);
    parse_buf_ok("# tasks_per_node: 2\nbenchmark,tasks,size_bytes,t_avg_s\nalltoall,16,1024,0.5\n",
                 &def4, &d);
    assert_int_equal(d.a2a[2].tasks_per_node, 2);
    parse_buf_ok("benchmark,tasks,size_bytes,t_avg_s,nodes\nalltoall,16,1024,0.5,2\n", &def4, &d);
    assert_int_equal(d.a2a[3].nodes, 2);
    assert_int_equal(d.a2a[3].tasks_per_node, 8);
    parse_buf_ok("benchmark,tasks,size_bytes,t_avg_s,tasks_per_node\r\nalltoall,16,1024,0.5,\r\n",
                 NULL, &d);
    assert_int_equal(d.a2a[4].tasks_per_node, 1);
    assert_int_equal(d.na2a, 5);
    ct_bench_free(&d);
}

static void expect_error(const char *text, const ct_bench_defaults *def, const char *what)
{
    ct_bench_data d = {0};
    ct_err err;
    err.msg[0] = '\0';
    int rc = ct_bench_parse("in", text, strlen(text), def, &d, NULL, &err);
    if (rc != -1 || !strstr(err.msg, what)) {
        print_error("input:\n%s\nrc %d, message '%s', wanted '%s'\n", text, rc, err.msg, what);
        fail();
    }
    assert_int_equal(d.np2p + d.na2a + d.nbw, 0);
    ct_bench_free(&d);
}

/* ct-mpibench's "# pause m=M: median P s ..." line (session 29): the
 * nodes' idle time before each call, kept on the Alltoall row after it when
 * the sizes agree; a malformed one is refused with its line. */
static void test_csv_pause_lines(void **state)
{
    (void)state;
    const char *text =
        "benchmark,tasks,size_bytes,t_avg_s,t_min_s,nodes,tasks_per_node\n"
        "# pause m=131072: median 0.00325 s, min 0.003 s, max 0.004 s over 5 repetitions "
        "(each the least over the nodes of a node's last end to its first start)\n"
        "# alltoall m=131072: 5 repetitions, block layout, MPI_Ialltoall polled\n"
        "# times: 0.012 0.012 0.013 0.012 0.012\n"
        "alltoall,2,131072,0.0122,0.012,2,1\n"
        "alltoall,2,262144,0.024,0.023,2,1\n"          /* no pause line: 0 */
        "# pause m=1048576: median 0.002 s, min 0.002 s, max 0.002 s over 5 repetitions\n"
        "alltoall,2,524288,0.048,0.047,2,1\n"          /* another size's: 0 */
        "# pause m=65536: median 0.001 s\n"
        "pingpong,2,65536,0.006,0.0055,2,1\n"          /* not an Alltoall: dropped */
        "alltoall,2,65536,0.007,0.006,2,1\n";
    ct_bench_data d = {0};
    ct_err err = {{0}};
    assert_int_equal(ct_bench_parse("in", text, strlen(text), NULL, &d, NULL, &err), 0);
    assert_int_equal(d.na2a, 4);
    assert_true(d.a2a[0].m == 131072 && d.a2a[0].pause == 0.00325);
    assert_true(d.a2a[1].pause == 0);
    assert_true(d.a2a[2].pause == 0);
    assert_true(d.a2a[3].m == 65536 && d.a2a[3].pause == 0);
    ct_bench_free(&d);
    const char *H = "benchmark,tasks,size_bytes,t_avg_s\n";
    char buf[256];
    snprintf(buf, sizeof buf, "%s# pause m=4096: median -1 s\nalltoall,2,4096,0.01\n", H);
    expect_error(buf, NULL, "in:2: pause line 'pause m=4096: median -1 s' (accepted:");
    snprintf(buf, sizeof buf, "%s# pause m=4096: mean 0.1 s\n", H);
    expect_error(buf, NULL, "in:2: pause line 'pause m=4096: mean 0.1 s'");
}

/* ct-mpibench's "# step: incast" line (session 59, --step incast): every
 * Alltoall row of its file is calibrate's incast many-flow step, also rows
 * above the line; another file's rows are not; another step's name is
 * refused with its line. */
static void test_csv_step_line(void **state)
{
    (void)state;
    const char *step =
        "benchmark,tasks,size_bytes,t_avg_s,t_min_s,nodes,tasks_per_node\n"
        "alltoall,15,131072,0.30,0.29,3,5\n"
        "# step: incast (calibrate's incast many-flow step: flows into each port from 2 nodes or "
        "more at once)\n"
        "alltoall,15,262144,0.61,0.60,3,5\n";
    const char *config = "benchmark,tasks,size_bytes,t_avg_s,t_min_s,nodes,tasks_per_node\n"
                         "# step taken: 3 nodes\n" /* another comment: ignored */
                         "alltoall,12,262144,0.50,0.49,3,4\n";
    ct_bench_data d = {0};
    ct_err err = {{0}};
    assert_int_equal(ct_bench_parse("cfg", config, strlen(config), NULL, &d, NULL, &err), 0);
    assert_int_equal(ct_bench_parse("step", step, strlen(step), NULL, &d, NULL, &err), 0);
    assert_int_equal(ct_bench_parse("cfg", config, strlen(config), NULL, &d, NULL, &err), 0);
    assert_int_equal(d.na2a, 4);
    assert_true(d.a2a[0].tasks_per_node == 4 && d.a2a[0].incast_step == 0);
    assert_true(d.a2a[1].tasks_per_node == 5 && d.a2a[1].incast_step == 1); /* above the line */
    assert_true(d.a2a[2].tasks_per_node == 5 && d.a2a[2].incast_step == 1);
    assert_true(d.a2a[3].tasks_per_node == 4 && d.a2a[3].incast_step == 0);
    ct_bench_free(&d);
    const char *H = "benchmark,tasks,size_bytes,t_avg_s\n";
    char buf[256];
    snprintf(buf, sizeof buf, "%salltoall,4,4096,0.01\n# step: flow\n", H);
    expect_error(buf, NULL, "in:3: step line 'step: flow' (accepted: '# step: incast ...'");
    snprintf(buf, sizeof buf, "%s#step:incastx\n", H);
    expect_error(buf, NULL, "in:2: step line 'step:incastx'");
}

static void test_refusals_name_the_line(void **state)
{
    (void)state;
    const char *H = "benchmark,tasks,size_bytes,t_avg_s\n";
    char buf[512];
    expect_error("hello\n", NULL, "in: unrecognised benchmark output (accepted: the project's CSV");
    expect_error("benchmark,tasks,size,t_avg_s\n", NULL,
                 "in:1: unknown column 'size' (accepted: benchmark,tasks,size_bytes,t_avg_s");
    expect_error("benchmark,tasks,size_bytes\n", NULL, "in:1: header lacks column 't_avg_s'");
    expect_error("benchmark,tasks,tasks,size_bytes,t_avg_s\n", NULL,
                 "in:1: column 'tasks' appears twice");
    snprintf(buf, sizeof buf, "%s# c\nalltoall,4,1024,0.1\nalltoall,4,1024\n", H);
    expect_error(buf, NULL, "in:4: 3 fields where the header has 4");
    snprintf(buf, sizeof buf, "%sbcast,4,1024,0.1\n", H);
    expect_error(buf, NULL, "in:2: benchmark 'bcast' (accepted: pingpong, alltoall");
    snprintf(buf, sizeof buf, "%salltoall,4,1024,-0.1\n", H);
    expect_error(buf, NULL, "in:2: t_avg_s '-0.1' (accepted: a time in seconds > 0)");
    snprintf(buf, sizeof buf, "%salltoall,4,1024,nan\n", H);
    expect_error(buf, NULL, "in:2: t_avg_s 'nan'");
    snprintf(buf, sizeof buf, "%salltoall,1,1024,0.1\n", H);
    expect_error(buf, NULL, "in:2: tasks '1' (accepted: an integer >= 2)");
    snprintf(buf, sizeof buf, "%salltoall,4,1e3x,0.1\n", H);
    expect_error(buf, NULL, "in:2: size_bytes '1e3x'");
    expect_error("benchmark,tasks,size_bytes,t_avg_s,t_min_s\nalltoall,4,8,0.1,0.2\n", NULL,
                 "in:2: t_min_s '0.2' (accepted: a time in seconds > 0 and <= t_avg_s");
    snprintf(buf, sizeof buf, "%spingpong,4,8,0.1\n", H);
    expect_error(buf, NULL, "in:2: pingpong row with 4 tasks (accepted: 2 tasks on 2 nodes");
    expect_error("benchmark,tasks,size_bytes,t_avg_s,nodes\npingpong,2,8,0.1,1\n", NULL,
                 "pingpong row with 2 tasks on one node");
    expect_error("benchmark,tasks,size_bytes,t_avg_s,tasks_per_node\nalltoall,6,8,0.1,4\n", NULL,
                 "in:2: 6 tasks are not a multiple of tasks_per_node 4");
    expect_error("benchmark,tasks,size_bytes,t_avg_s,nodes\nalltoall,6,8,0.1,4\n", NULL,
                 "in:2: 6 tasks do not spread evenly over 4 nodes");
    expect_error("benchmark,tasks,size_bytes,t_avg_s,nodes,tasks_per_node\nalltoall,8,8,0.1,4,4\n",
                 NULL, "in:2: tasks_per_node 4 disagrees with 8 tasks on 4 nodes");
    expect_error("# tasks_per_node: 2\n# tasks_per_node: 4\nbenchmark,tasks,size_bytes,t_avg_s\n",
                 NULL, "in:2: '# tasks_per_node: 4' contradicts an earlier '# tasks_per_node: 2'");
    expect_error("# tasks: many\nbenchmark,tasks,size_bytes,t_avg_s\n", NULL,
                 "in:1: '# tasks:' is followed by 'many' (accepted: a positive integer)");
    snprintf(buf, sizeof buf, "%s", H);
    expect_error(buf, NULL, "in: no measurements found in this csv output");
    expect_error("# only comments\nbenchmark,x\n", NULL, "in:2: unknown column 'x'");

    expect_error(
        "# OSU MPI Latency Test v5.9\n# Size          Latency (us)\n0 1.5\n1 oops\n", NULL,
        "in:4: unexpected line '1 oops' (accepted: '# ...' comments and 'SIZE VALUE' rows)");
    expect_error("# OSU MPI Latency Test v5.9\n0 1.5\n", NULL,
                 "in:2: data row before the '# Size ...' header line");
    expect_error("# OSU MPI Bandwidth Test v5.9\n# Size  Bandwidth (MB/s)\n1 0\n", NULL,
                 "in:3: value 0 for size 1 (accepted: > 0)");
    /* found by fuzzing: finite in MB/s, infinite in bytes/s */
    expect_error("# OSU MPI Bandwidth Test v5.9\n# Size  Bandwidth (MB/s)\n2 1e308\n", NULL,
                 "in:3: bandwidth inf for size 2 is out of range once converted to SI");
    expect_error("# OSU MPI Latency Test v5.9\n# Size  Latency (us)\n-1 5\n", NULL,
                 "in:3: unexpected line '-1 5'");

    const char *imb_head = "# Benchmarking PingPong\n# #processes = 4\n"
                           "       #bytes #repetitions      t[usec]   Mbytes/sec\n";
    snprintf(buf, sizeof buf, "%s            0         1000        52.10         0.00\n", imb_head);
    expect_error(buf, NULL, "in:4: PingPong with 4 processes (accepted: 2)");
    expect_error(
        "# Benchmarking Alltoall\n# #processes = 4\n"
        "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n"
        "            0         1000         0.05\n",
        NULL, "in:4: unexpected line '0         1000         0.05' (accepted: 5 numbers per row");
    expect_error("# Benchmarking Alltoall\n# #processes = 4\n"
                 "       #bytes #repetitions  t_min[usec]  t_max[usec]\n",
                 NULL, "in:3: Alltoall column header lacks 't_avg[usec]'");

    /* a line longer than the parser's limit, and a NUL byte */
    size_t big = 10000;
    char *lng = malloc(big + 64);
    assert_non_null(lng);
    strcpy(lng, "benchmark,tasks,size_bytes,t_avg_s\n");
    size_t l = strlen(lng);
    memset(lng + l, '1', big);
    lng[l + big] = '\0';
    expect_error(lng, NULL, "in:2: line longer than 4095 bytes or holding a NUL byte");
    free(lng);
    ct_bench_data d = {0};
    ct_err err;
    static const char nul[] = "benchmark,tasks,size_bytes,t_avg_s\nalltoall,4,8,\0.1\n";
    assert_int_equal(ct_bench_parse("in", nul, sizeof nul - 1, NULL, &d, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "in:2: line longer than 4095 bytes or holding a NUL byte"));
    assert_int_equal(ct_bench_parse_file(BENCH "missing.csv", NULL, &d, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "missing.csv: cannot open"));
}

/* The recorded CSV was written (gen_synthetic.py) from alpha = 60 us,
 * 110 MB/s, gamma = 3.2, delta = 2.5 ms, M = 8192 with +-1% (ping-pong) and
 * +-2% (Alltoall) deterministic noise; the fit must find them within
 * tolerances a little wider than that noise. */
static void test_fit_recovers_recorded_parameters(void **state)
{
    (void)state;
    const char *files[] = {BENCH "recorded_one_per_node.csv", BENCH "recorded_two_per_node.csv"};
    for (size_t f = 0; f < 2; f++) {
        ct_bench_data d = {0};
        parse_ok(files[f], NULL, &d, CT_BENCH_CSV);
        double alpha, beta;
        ct_fit_diag diag;
        ct_err err;
        int rc = ct_fit_hockney(d.p2p, d.np2p, &alpha, &beta, &diag, &err);
        if (rc)
            print_error("%s\n", err.msg);
        assert_int_equal(rc, 0);
        close_rel(alpha, 60e-6, 0.05, "alpha");
        close_rel(1.0 / beta, 110e6, 0.02, "bandwidth");
        ct_a2a_sig sig;
        rc = ct_fit_signature(d.a2a, d.na2a, alpha, beta, 0, NULL, 0, &sig, &diag, &err);
        if (rc)
            print_error("%s\n", err.msg);
        assert_int_equal(rc, 0);
        close_rel(sig.gamma, 3.2, 0.04, "gamma");
        close_rel(sig.delta, 2.5e-3, 0.15, "delta");
        assert_true(sig.M == 8192);
        assert_true(diag.max_rel_err < 0.06);
        ct_bench_free(&d);
    }
}

/* ct-mpibench's '# wait:' line (session 34), as calibrate reads it */
static void test_wait_line(void **state)
{
    (void)state;
    char why[64];
    assert_int_equal(ct_bench_wait_line("# wait: busy (MPI_Waitall, MPI_Alltoall): auto: one node "
                                        "per machine, at most 4 ranks on 64 CPUs\n",
                                        why, sizeof why),
                     CT_WAIT_BUSY);
    assert_string_equal(why, "auto: one node per machine, at most 4 ranks on 64 CPUs");
    assert_int_equal(ct_bench_wait_line("# wait: polled (MPI_Test, naps from 10 to 500 us): "
                                        "auto: 4 nodes share one machine\r\n",
                                        why, sizeof why),
                     CT_WAIT_POLLED);
    assert_string_equal(why, "auto: 4 nodes share one machine");
    assert_int_equal(ct_bench_wait_line("# wait: simulated (MPI_Waitall)", why, sizeof why),
                     CT_WAIT_OTHER);
    assert_string_equal(why, "");
    /* not a wait line: nothing said */
    assert_int_equal(ct_bench_wait_line("# pause m=1024: median 0.002 s", why, sizeof why), -1);
    assert_int_equal(ct_bench_wait_line("#wait: busy", why, sizeof why), -1);
    assert_string_equal(why, "");
    /* cut to fit, non-printable bytes shown as '?' */
    char small[8];
    assert_int_equal(ct_bench_wait_line("# wait: busy (x): ab\001cdefghij", small, sizeof small),
                     CT_WAIT_BUSY);
    assert_string_equal(small, "ab?cdef");
}

/* ct-mpibench's '# tcp:' line (session 61), as calibrate reads it */
static void test_tcp_line(void **state)
{
    (void)state;
    char cc[16];
    assert_int_equal(ct_bench_tcp_line("# tcp: cubic (net.ipv4.tcp_congestion_control of every "
                                       "rank's node)\n",
                                       cc, sizeof cc),
                     0);
    assert_string_equal(cc, "cubic");
    assert_int_equal(ct_bench_tcp_line("# tcp: mixed (cubic on 4 ranks, bbr on 4)", cc, sizeof cc),
                     0);
    assert_string_equal(cc, "mixed");
    assert_int_equal(ct_bench_tcp_line("# tcp: bbr\r\n", cc, sizeof cc), 0);
    assert_string_equal(cc, "bbr");
    /* a name of other bytes: nothing kept */
    assert_int_equal(ct_bench_tcp_line("# tcp: Cubic", cc, sizeof cc), 0);
    assert_string_equal(cc, "");
    /* not a tcp line */
    assert_int_equal(ct_bench_tcp_line("# wait: busy (x): y", cc, sizeof cc), -1);
    assert_string_equal(cc, "");
    assert_int_equal(ct_bench_tcp_line("#tcp: cubic", cc, sizeof cc), -1);
    /* cut to fit */
    char small[4];
    assert_int_equal(ct_bench_tcp_line("# tcp: highspeed", small, sizeof small), 0);
    assert_string_equal(small, "hig");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_osu_latency),
        cmocka_unit_test(test_osu_bw),
        cmocka_unit_test(test_osu_alltoall),
        cmocka_unit_test(test_osu_alltoall_full_needs_tasks),
        cmocka_unit_test(test_imb),
        cmocka_unit_test(test_csv_recorded),
        cmocka_unit_test(test_csv_tasks_per_node_sources),
        cmocka_unit_test(test_csv_pause_lines),
        cmocka_unit_test(test_csv_step_line),
        cmocka_unit_test(test_refusals_name_the_line),
        cmocka_unit_test(test_fit_recovers_recorded_parameters),
        cmocka_unit_test(test_wait_line),
        cmocka_unit_test(test_tcp_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
