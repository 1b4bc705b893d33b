/* trace.c: the trace format of doc/trace-format.md, the measured-times file
 * and explicit placements. Every malformed fixture in
 * tests/fixtures/traces/bad/ states on its first line the position and the
 * message it must be rejected with ("# expect: LINE:COL: text"). */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "contention/trace.h"
#include "contention/units.h"

#define TRACES CT_FIXTURES "/traces"

static int parse(const char *text, ct_trace *tr, ct_err *err)
{
    return ct_trace_parse_buffer("t.trace", text, strlen(text), tr, err);
}

static void test_parse_all_events(void **state)
{
    (void)state;
    const char *text = "# a comment line\n"
                       "\n"
                       "compute 1 2.5ms   # trailing comment\n"
                       "send 0 1 4M first\n"
                       "recv 1 0 8M\n"
                       "isend 2 0 1K\r\n"
                       "irecv 0 any\n"
                       "  waitall 0\n"
                       "\twaitall\t2\n"
                       "compute 0 1.5\n"
                       "send 1 2 100\n"
                       "recv 2 1\n";
    ct_trace tr;
    ct_err err = {{0}};
    assert_int_equal(parse(text, &tr, &err), 0);
    assert_int_equal(tr.ntasks, 3);
    assert_int_equal(tr.nevents, 10);
    assert_int_equal(tr.ncomm, 3);
    assert_true(fabs(tr.total_bytes - (4194304.0 + 1024.0 + 100.0)) < 1e-9);

    /* task 0 in file order: send, irecv, waitall, compute */
    const ct_event *e = &tr.ev[tr.task_first[0]];
    assert_int_equal(tr.task_first[1] - tr.task_first[0], 4);
    assert_int_equal(e[0].kind, CT_EV_SEND);
    assert_int_equal(e[0].peer, 1);
    assert_int_equal(e[0].comm, 0);
    assert_int_equal(e[0].line, 4);
    assert_true(e[0].value == 4194304.0);
    assert_int_equal(e[1].kind, CT_EV_IRECV);
    assert_int_equal(e[1].peer, CT_ANY_SOURCE);
    assert_true(e[1].value < 0);
    assert_int_equal(e[2].kind, CT_EV_WAITALL);
    assert_int_equal(e[3].kind, CT_EV_COMPUTE);
    assert_true(e[3].value == 1.5);

    /* task 1: compute 2.5 ms, recv with an 8 MiB buffer, send (communication 2) */
    e = &tr.ev[tr.task_first[1]];
    assert_int_equal(tr.task_first[2] - tr.task_first[1], 3);
    assert_int_equal(e[0].kind, CT_EV_COMPUTE);
    assert_true(fabs(e[0].value - 2.5e-3) < 1e-15);
    assert_int_equal(e[1].kind, CT_EV_RECV);
    assert_int_equal(e[1].peer, 0);
    assert_true(e[1].value == 8388608.0);
    assert_int_equal(e[2].comm, 2);

    /* task 2: isend (communication 1, CRLF line), waitall, recv */
    e = &tr.ev[tr.task_first[2]];
    assert_int_equal(e[0].kind, CT_EV_ISEND);
    assert_int_equal(e[0].comm, 1);
    assert_true(e[0].value == 1024.0);
    assert_int_equal(e[1].kind, CT_EV_WAITALL);
    assert_int_equal(e[1].line, 9);

    /* communications are numbered by their send lines, whatever the task */
    assert_int_equal(tr.comm_src[0], 0);
    assert_int_equal(tr.comm_src[1], 2);
    assert_int_equal(tr.comm_src[2], 1);
    assert_int_equal(ct_trace_comm_event(&tr, 1)->line, 6);
    char buf[CT_LABEL_MAX];
    assert_string_equal(ct_trace_label(&tr, 0, buf, sizeof buf), "first");
    assert_string_equal(ct_trace_label(&tr, 1, buf, sizeof buf), "c1");
    assert_string_equal(ct_ev_kind_name(CT_EV_IRECV), "irecv");
    ct_trace_free(&tr);
}

static void test_tasks_header_and_inferred_count(void **state)
{
    (void)state;
    ct_trace tr;
    ct_err err = {{0}};
    /* idle tasks are allowed: the header fixes the count */
    assert_int_equal(parse("tasks 8\ncompute 0 1\n", &tr, &err), 0);
    assert_int_equal(tr.ntasks, 8);
    for (int t = 1; t < 8; t++)
        assert_int_equal(tr.task_first[t + 1] - tr.task_first[t], 0);
    ct_trace_free(&tr);
    /* without it, a peer with no events of its own still counts */
    assert_int_equal(parse("isend 0 5 10\n", &tr, &err), 0);
    assert_int_equal(tr.ntasks, 6);
    ct_trace_free(&tr);
    /* empty trace */
    assert_int_equal(parse("# nothing\n", &tr, &err), 0);
    assert_int_equal(tr.ntasks, 0);
    assert_int_equal(tr.nevents, 0);
    ct_trace_free(&tr);
}

static void test_builder_matches_parser(void **state)
{
    (void)state;
    ct_trace a, b;
    ct_err err = {{0}};
    assert_int_equal(parse("send 0 1 64 x\nrecv 1 0\ncompute 1 1us\n", &a, &err), 0);
    assert_int_equal(ct_trace_init(&b, "mem", &err), 0);
    assert_int_equal(ct_trace_add_send(&b, 0, 1, 64, 1, "x", 0, &err), 0);
    assert_int_equal(ct_trace_add_recv(&b, 1, 0, -1, 1, 0, &err), 0);
    assert_int_equal(ct_trace_add_compute(&b, 1, 1e-6, 0, &err), 0);
    assert_int_equal(ct_trace_finish(&b, &err), 0);
    assert_int_equal(a.nevents, b.nevents);
    for (size_t i = 0; i < a.nevents; i++) {
        assert_int_equal(a.ev[i].kind, b.ev[i].kind);
        assert_int_equal(a.ev[i].peer, b.ev[i].peer);
        assert_int_equal(a.ev[i].comm, b.ev[i].comm);
        assert_true(a.ev[i].value == b.ev[i].value);
    }
    /* builder errors for in-memory traces name the trace without a line */
    ct_trace_free(&b);
    assert_int_equal(ct_trace_init(&b, "mem", &err), 0);
    assert_int_equal(ct_trace_add_compute(&b, 0, NAN, 0, &err), -1);
    assert_non_null(strstr(err.msg, "mem: compute time nan out of range"));
    assert_int_equal(ct_trace_add_send(&b, 0, -3, 1, 1, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "destination task -3 out of range"));
    ct_trace_free(&a);
    ct_trace_free(&b);
}

static void test_file_equals_buffer(void **state)
{
    (void)state;
    ct_trace a, b;
    ct_err err = {{0}};
    const char *path = TRACES "/fig4_gige.trace";
    assert_int_equal(ct_trace_load(path, &a, &err), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(ct_trace_parse_buffer("buf", buf, n, &b, &err), 0);
    assert_int_equal(a.ntasks, 7);
    assert_int_equal(a.ncomm, 6);
    assert_int_equal(a.nevents, b.nevents);
    assert_memory_equal(a.task_first, b.task_first, (a.ntasks + 1) * sizeof *a.task_first);
    char l1[CT_LABEL_MAX];
    assert_string_equal(ct_trace_label(&a, 2, l1, sizeof l1), "c");
    ct_trace_free(&a);
    ct_trace_free(&b);
    assert_int_equal(ct_trace_load(TRACES "/no-such.trace", &a, &err), -1);
    assert_non_null(strstr(err.msg, "no-such.trace: cannot open"));
}

/* Every fixture under bad/ is rejected at the line and column its first
 * line announces, with the announced message. */
static void test_bad_fixtures(void **state)
{
    (void)state;
    DIR *d = opendir(TRACES "/bad");
    assert_non_null(d);
    struct dirent *de;
    int checked = 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 7 || strcmp(de->d_name + len - 6, ".trace") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/bad/%s", TRACES, de->d_name);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char first[512];
        assert_non_null(fgets(first, sizeof first, f));
        fclose(f);
        first[strcspn(first, "\n")] = '\0';
        const char *tag = "# expect: ";
        assert_true(strncmp(first, tag, strlen(tag)) == 0);
        const char *want = first + strlen(tag); /* "LINE:COL: message" */
        const char *colon2 = strchr(strchr(want, ':') + 1, ':');
        char pos[32];
        snprintf(pos, sizeof pos, "%.*s", (int)(colon2 - want), want);
        const char *msg = colon2 + 2;

        ct_trace tr;
        ct_err err = {{0}};
        int rc = ct_trace_load(path, &tr, &err);
        if (rc != -1)
            fail_msg("%s: accepted, expected rejection at %s", de->d_name, pos);
        char prefix[1100];
        snprintf(prefix, sizeof prefix, "%s:%s: ", path, pos);
        if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, msg))
            fail_msg("%s:\n  got  '%s'\n  want '%s%s...'", de->d_name, err.msg, prefix, msg);
        /* the trace is left empty: freeing again is harmless */
        assert_int_equal(tr.nevents, 0);
        ct_trace_free(&tr);
        checked++;
    }
    closedir(d);
    assert_true(checked >= 15);
}

static void test_misc_rejections(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *needle;
    } bad[] = {
        {"waitall\n", "t.trace:1:1: 'waitall' takes 1 argument, got 0"},
        {"recv 0 0\n", "t.trace:1:8: blocking recv of task 0 from itself"},
        {"send 0 1 1K a b\n", "t.trace:1:15: 'send' takes at most 4 arguments, got 5"},
        {"compute 0 1 2 3 4 5 6 7 8\n", "t.trace:1:13: 'compute' takes 2 arguments, got 7 or more"},
        {"compute 0 1\ncompute 268435456 1\n", "t.trace:2:9: invalid task '268435456'"},
        {"compute 0 .\n", "t.trace:1:11: invalid duration '.'"},
        {"compute 0 1e999\n", "t.trace:1:11: invalid duration"},
        {"compute 0 nan\n", "t.trace:1:11: invalid duration 'nan'"},
        {"send 0 1 1K a.b-c_\nrecv 1 0\nsend 0 1 1 x\x01\n", "t.trace:3:12: invalid label"},
        {"tasks 2\nrecv 0 2\n", "t.trace:2:8: source task 2 out of range"},
        {"tasks 2\ncompute 2 1\n", "t.trace:2:9: task 2 out of range"},
        {"send 0 1 8 tag=any\n", "t.trace:1:12: invalid tag in 'tag=any' (accepted: tag=T with T a number 0 to 2147483647, optionally @COMMUNICATOR)"},
        {"recv 1 0 tag=-1\n", "t.trace:1:10: invalid tag in 'tag=-1'"},
        {"recv 1 0 8 tag=2147483648\n", "t.trace:1:12: invalid tag"},
        {"isend 0 1 8 tag=\n", "t.trace:1:13: invalid tag in 'tag='"},
        {"isend 0 1 8 tag=3@c12\n", "t.trace:1:13: unknown communicator 'c12' (accepted: world or a name declared"},
        {"isend 0 1 8 tag=3@\n", "t.trace:1:13: invalid communicator in 'tag=3@'"},
        /* more tokens than the lexer keeps, the last a tag (fuzz_trace) */
        {"send 0 1 8 a b c d e tag=1\n", "'send' takes at most 4 arguments, got 7 or more"},
        {"send 0 1 8 tag=1 lbl\n", "t.trace:1:18: 'send' takes at most 4 arguments, got 5 (expected: send TASK DST BYTES [LABEL] [tag=T[@COMM]])"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ct_trace tr;
        ct_err err = {{0}};
        if (parse(bad[i].text, &tr, &err) != -1)
            fail_msg("accepted: %s", bad[i].text);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("case %zu: got '%s', want '%s'", i, err.msg, bad[i].needle);
    }
    /* an embedded NUL byte */
    ct_trace tr;
    ct_err err = {{0}};
    assert_int_equal(ct_trace_parse_buffer("t.trace", "compute 0 1\nco\0mpute", 21, &tr, &err), -1);
    assert_non_null(strstr(err.msg, "t.trace:2: NUL byte"));
}

/* MPI's matching key on point-to-point lines (trace-format.md "Tags and
 * communicators"): tag=T[@COMM] after the line's other fields, a receive's
 * may be any; without it, tag 0 on world */
static void test_tags(void **state)
{
    (void)state;
    ct_trace tr;
    ct_err err = {{0}};
    if (parse("tasks 3\ncomm half 0,2\nsend 0 1 8 lbl tag=5\nisend 0 2 8 tag=6@half\n"
              "recv 1 0 8 tag=5\nirecv 2 any tag=any@half\nrecv 1 0\nsend 0 1 4\nwaitall 2\n",
              &tr, &err))
        fail_msg("%s", err.msg);
    int32_t tag[8], mc[8];
    int k = 0;
    for (size_t i = 0; i < tr.nevents; i++)
        if (tr.ev[i].kind != CT_EV_WAITALL)
            tag[k] = ct_trace_key(&tr, &tr.ev[i]).tag, mc[k] = ct_trace_key(&tr, &tr.ev[i]).mcomm, k++;
    assert_int_equal(k, 6);
    /* grouped by task: 0's two sends and its untagged one, 1's two receives, 2's */
    assert_int_equal(tag[0], 5);
    assert_int_equal(mc[0], 0);
    assert_int_equal(tag[1], 6);
    assert_int_equal(mc[1], 1);
    assert_int_equal(tag[2], 0);
    assert_int_equal(tag[3], 5);
    assert_int_equal(tag[4], 0);
    assert_int_equal(tag[5], CT_ANY_TAG);
    assert_int_equal(mc[5], 1);
    char buf[CT_LABEL_MAX];
    assert_string_equal(ct_trace_label(&tr, 0, buf, sizeof buf), "lbl");
    /* the distinct pairs, each once: tag 0 on world, 5, 6@half, any@half */
    assert_int_equal(tr.nkeys, 4);
    ct_trace_free(&tr);
    /* at most CT_TRACE_MAX_KEYS - 1 pairs besides tag 0 on world */
    size_t cap = (size_t)CT_TRACE_MAX_KEYS * 24, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int i = 1; i <= CT_TRACE_MAX_KEYS; i++)
        len += (size_t)snprintf(text + len, cap - len, "isend 0 1 1 tag=%d\n", i);
    assert_int_equal(ct_trace_parse_buffer("t.trace", text, len, &tr, &err), -1);
    assert_non_null(strstr(err.msg, "t.trace:65536:13: more than 65535 distinct tag and "
                                    "communicator pairs"));
    free(text);
}

static void test_duration(void **state)
{
    (void)state;
    double s;
    ct_err err = {{0}};
    assert_int_equal(ct_parse_duration("2", &s, &err), 0);
    assert_true(s == 2.0);
    assert_int_equal(ct_parse_duration("3s", &s, &err), 0);
    assert_true(s == 3.0);
    assert_int_equal(ct_parse_duration("250ms", &s, &err), 0);
    assert_true(fabs(s - 0.25) < 1e-15);
    assert_int_equal(ct_parse_duration("40us", &s, &err), 0);
    assert_true(fabs(s - 40e-6) < 1e-18);
    assert_int_equal(ct_parse_duration("7ns", &s, &err), 0);
    assert_true(fabs(s - 7e-9) < 1e-21);
    assert_int_equal(ct_parse_duration("1e-3", &s, &err), 0);
    assert_true(s == 1e-3);
    assert_int_equal(ct_parse_duration("", &s, &err), -1);
    assert_int_equal(ct_parse_duration("-0.5", &s, &err), -1);
    assert_int_equal(ct_parse_duration("inf", &s, &err), -1);
    assert_int_equal(ct_parse_duration("2h", &s, &err), -1);
    assert_non_null(strstr(err.msg, "accepted: s, ms, us, ns"));
}

static void test_measured(void **state)
{
    (void)state;
    ct_trace tr;
    ct_err err = {{0}};
    assert_int_equal(parse("send 0 1 1K a\nrecv 1 0\nsend 1 0 1K\nrecv 0 1\nsend 0 1 2K z\n"
                           "recv 1 0\n",
                           &tr, &err),
                     0);
    double m[3];
    const char *good = "# label seconds\na 0.5\nc1 20ms\n";
    assert_int_equal(ct_measured_parse_buffer("m.txt", good, strlen(good), &tr, m, &err), 0);
    assert_true(m[0] == 0.5);
    assert_true(fabs(m[1] - 0.02) < 1e-15);
    assert_true(isnan(m[2]));
    /* a labelled communication may still be named by its index */
    const char *byidx = "c2 1\n";
    assert_int_equal(ct_measured_parse_buffer("m.txt", byidx, strlen(byidx), &tr, m, &err), 0);
    assert_true(m[2] == 1.0);

    static const struct {
        const char *text;
        const char *needle;
    } bad[] = {
        {"a 1\nq 2\n", "m.txt:2:1: unknown communication 'q' (accepted: a label from t.trace or "
                       "c0 to c2)"},
        {"c3 1\n", "m.txt:1:1: unknown communication 'c3'"},
        {"a 1\nc0 2\n", "m.txt:2:1: communication 'c0' already measured on line 1"},
        {"a 0\n", "m.txt:1:3: measured time '0' must be > 0"},
        {"a\n", "m.txt:1:1: expected 'LABEL SECONDS', got 1 field"},
        {"a 1 2\n", "m.txt:1:5: expected 'LABEL SECONDS', got 3 fields"},
        {"z 1x\n", "m.txt:1:3: invalid duration suffix in '1x'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (ct_measured_parse_buffer("m.txt", bad[i].text, strlen(bad[i].text), &tr, m, &err) != -1)
            fail_msg("accepted: %s", bad[i].text);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("case %zu: got '%s', want '%s'", i, err.msg, bad[i].needle);
    }
    ct_trace_free(&tr);
}

static void test_placement(void **state)
{
    (void)state;
    int32_t node_of[4];
    ct_err err = {{0}};
    const char *good = "# task node\n3 0\n0 1\n1 1\n2 0\n";
    assert_int_equal(ct_placement_parse_buffer("p.txt", good, strlen(good), 4, 2, node_of, &err),
                     0);
    assert_int_equal(node_of[0], 1);
    assert_int_equal(node_of[1], 1);
    assert_int_equal(node_of[2], 0);
    assert_int_equal(node_of[3], 0);
    static const struct {
        const char *text;
        const char *needle;
    } bad[] = {
        {"0 0\n1 0\n2 0\n", "p.txt: task 3 is not placed"},
        {"0 0\n1 2\n", "p.txt:2:3: invalid node '2' for task 1 (expected a node number 0 to 1)"},
        {"0 0\n0 1\n", "p.txt:2:1: task 0 already placed on line 1"},
        {"4 0\n", "p.txt:1:1: invalid task '4' (expected a task number 0 to 3)"},
        {"0\n", "p.txt:1:1: expected 'TASK NODE', got 1 field"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (ct_placement_parse_buffer("p.txt", bad[i].text, strlen(bad[i].text), 4, 2, node_of,
                                      &err) != -1)
            fail_msg("accepted: %s", bad[i].text);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("case %zu: got '%s', want '%s'", i, err.msg, bad[i].needle);
    }
}

/* Shipped traces all parse (the bench and doc rely on them). */
static void test_shipped_traces_parse(void **state)
{
    (void)state;
    static const char *names[] = {"fig4_gige.trace", "fig2_fanout.trace", "tree.trace",
                                  "complete.trace", "hpl_ring_20500.trace"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", TRACES, names[i]);
        ct_trace tr;
        ct_err err = {{0}};
        if (ct_trace_load(path, &tr, &err) != 0)
            fail_msg("%s", err.msg);
        assert_true(tr.ncomm > 0);
        ct_trace_free(&tr);
    }
}

/* trace:NAME profiles: XDG_DATA_HOME first, then HOME/.local/share */
static void test_profiles(void **state)
{
    (void)state;
    char dir[256], tmpl[] = "/tmp/ct-prof-XXXXXX", out[512];
    ct_err err = {{0}};
    assert_non_null(mkdtemp(tmpl));
    assert_int_equal(ct_profile_dir(tmpl, "/home/u", dir, sizeof dir, &err), 0);
    char want[300];
    snprintf(want, sizeof want, "%s/contention/profiles", tmpl);
    assert_string_equal(dir, want);
    assert_int_equal(ct_profile_dir(NULL, "/home/u", dir, sizeof dir, &err), 0);
    assert_string_equal(dir, "/home/u/.local/share/contention/profiles");
    assert_int_equal(ct_profile_dir("", "", dir, sizeof dir, &err), -1);
    /* a profile found by name, with or without .trace */
    char p[400];
    snprintf(p, sizeof p, "%s/contention", tmpl);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/contention/profiles", tmpl);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/contention/profiles/app.trace", tmpl);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("send 0 1 1K\nrecv 1 0\n", f);
    fclose(f);
    assert_int_equal(ct_trace_resolve("app", tmpl, "/nonexistent", out, sizeof out, &err), 0);
    assert_string_equal(out, p);
    /* a path is kept as it is */
    assert_int_equal(ct_trace_resolve(p, NULL, "/x", out, sizeof out, &err), 0);
    assert_string_equal(out, p);
    /* an unknown name names both places */
    assert_int_equal(ct_trace_resolve("nope", tmpl, "/x", out, sizeof out, &err), -1);
    assert_non_null(strstr(err.msg, "trace 'nope' is neither a file nor a profile"));
    assert_non_null(strstr(err.msg, "nope.trace"));
    unlink(p);
    snprintf(p, sizeof p, "%s/contention/profiles", tmpl);
    rmdir(p);
    snprintf(p, sizeof p, "%s/contention", tmpl);
    rmdir(p);
    rmdir(tmpl);
}

/* The bounded reader of the plugin's trace:FILE (issue 10, defect 4): a FIFO,
 * a device, an oversized file and too many events are refused with a
 * message, and the FIFO is refused without blocking. */
static void test_bounded_load(void **state)
{
    (void)state;
    ct_trace tr;
    ct_err err = {{0}};
    ct_trace_limits lim = {1 << 20, 1000, 0};
    /* a shipped trace within bounds loads as without them */
    assert_int_equal(ct_trace_load_bounded(TRACES "/fig4_gige.trace", &lim, &tr, &err), 0);
    size_t n = tr.nevents;
    ct_trace_free(&tr);
    assert_int_equal(ct_trace_load(TRACES "/fig4_gige.trace", &tr, &err), 0);
    assert_int_equal(tr.nevents, n);
    ct_trace_free(&tr);

    char dir[] = "/tmp/ct-trace-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(ct_trace_load_bounded(fifo, &lim, &tr, &err), -1); /* does not hang */
    assert_non_null(strstr(err.msg, "not a regular file"));
    assert_int_equal(tr.nevents, 0);
    unlink(fifo);

    assert_int_equal(ct_trace_load_bounded("/dev/zero", &lim, &tr, &err), -1);
    assert_non_null(strstr(err.msg, "/dev/zero: not a regular file"));
    assert_int_equal(ct_trace_load_bounded(dir, &lim, &tr, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file"));

    /* a file one byte over the size bound */
    char big[64];
    snprintf(big, sizeof big, "%s/big.trace", dir);
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    for (int i = 0; i < 200; i++)
        fprintf(f, "compute 0 1\n"); /* 12 bytes a line: 2400 bytes */
    fclose(f);
    ct_trace_limits small = {2399, 0, 0};
    assert_int_equal(ct_trace_load_bounded(big, &small, &tr, &err), -1);
    assert_non_null(strstr(err.msg, "big.trace: larger than 2399 bytes"));
    small.max_bytes = 2400;
    assert_int_equal(ct_trace_load_bounded(big, &small, &tr, &err), 0);
    assert_int_equal(tr.nevents, 200);
    ct_trace_free(&tr);
    /* the event cap: 200 events, cap 199, refused at line 200 */
    ct_trace_limits few = {0, 199, 0};
    assert_int_equal(ct_trace_load_bounded(big, &few, &tr, &err), -1);
    assert_non_null(strstr(err.msg, "big.trace:200:"));
    assert_non_null(strstr(err.msg, "more than 199 events"));
    few.max_events = 200;
    assert_int_equal(ct_trace_load_bounded(big, &few, &tr, &err), 0);
    ct_trace_free(&tr);
    unlink(big);
    rmdir(dir);

    /* found by fuzzing (tests/fuzz/fuzz_trace.c): one line naming a high
     * task id sized the per-task tables by it (268435455 tasks: 4 GB); the
     * task cap refuses it at the line, before any allocation */
    ct_trace_limits tasks = {0, 0, 16};
    const char *hi = "compute 268435455 1\n";
    assert_int_equal(ct_trace_parse_buffer_bounded("hi.trace", hi, strlen(hi), &tasks, &tr, &err),
                     -1);
    assert_non_null(strstr(err.msg, "hi.trace:1:"));
    assert_non_null(strstr(err.msg, "accepted: 0 to 15"));
    const char *decl = "tasks 17\ncompute 0 1\n";
    assert_int_equal(
        ct_trace_parse_buffer_bounded("decl.trace", decl, strlen(decl), &tasks, &tr, &err), -1);
    assert_non_null(strstr(err.msg, "accepted: 1 to 16"));
    /* also found by fuzzing: a communicator's member range is checked
     * against the cap before it is expanded (0-217647059: 217 M members) */
    const char *comm = "comm ro 50-217647059\n";
    assert_int_equal(
        ct_trace_parse_buffer_bounded("comm.trace", comm, strlen(comm), &tasks, &tr, &err), -1);
    assert_non_null(strstr(err.msg, "comm.trace:1:"));
    assert_non_null(strstr(err.msg, "member task 217647059 out of range (accepted: 0 to 15)"));
    const char *ok = "tasks 16\nsend 0 15 1K\nrecv 15 0\n";
    assert_int_equal(ct_trace_parse_buffer_bounded("ok.trace", ok, strlen(ok), &tasks, &tr, &err),
                     0);
    assert_int_equal(tr.ntasks, 16);
    ct_trace_free(&tr);
}

/* The lexer's shortcuts (digits with K/M or s/ms/us/ns, task ids by hand,
 * comments glued to a token, a communicator declared again word for word)
 * read exactly what the general parsers read: sizes as ct_parse_size,
 * durations as strtod times the suffix, and a repeated declaration is
 * still checked against a later task count. */
static void test_fast_paths_agree(void **state)
{
    (void)state;
    static const char *sizes[] = {"0",     "7",      "000012", "64K",  "64k",   "3M",
                                  "1m",    "1.5K",   "1e3",    "0x10", "2KiB",  "5G",
                                  "999999999999999", "1234567890123456789", "4MB", "12.25"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "tasks 2\nisend 0 1 %s#c\nirecv 1 0\n", sizes[i]);
        ct_trace tr;
        ct_err err = {{0}};
        double want;
        assert_int_equal(ct_parse_size(sizes[i], &want, NULL), 0);
        if (parse(text, &tr, &err) != 0)
            fail_msg("%s: %s", sizes[i], err.msg);
        if (memcmp(&tr.ev[tr.task_first[0]].value, &want, sizeof want) != 0)
            fail_msg("%s: %.17g, ct_parse_size %.17g", sizes[i], tr.ev[0].value, want);
        ct_trace_free(&tr);
    }
    static const struct {
        const char *s;
        double mult;
    } durs[] = {{"3", 1}, {"3s", 1}, {"250ms", 1e-3}, {"673480ns", 1e-9}, {"17us", 1e-6},
                {"0.5ms", 1e-3}, {"1e-3", 1}, {"000123us", 1e-6}};
    for (size_t i = 0; i < sizeof durs / sizeof durs[0]; i++) {
        double v;
        assert_int_equal(ct_parse_duration(durs[i].s, &v, NULL), 0);
        double want = strtod(durs[i].s, NULL) * durs[i].mult;
        if (memcmp(&v, &want, sizeof v) != 0)
            fail_msg("%s: %.17g != %.17g", durs[i].s, v, want);
    }
    ct_err err = {{0}};
    ct_trace tr;
    assert_int_equal(parse("compute 1 1ms\ncompute 0 99999999999999999ms\n", &tr, &err), 0);
    ct_trace_free(&tr);
    assert_int_equal(parse("compute 268435456 1\n", &tr, &err), -1);
    assert_non_null(strstr(err.msg, "invalid task '268435456'"));
    assert_int_equal(parse("compute 00000000000000000001 1\n", &tr, &err), 0);
    assert_int_equal(tr.ntasks, 2);
    ct_trace_free(&tr);
    /* a communicator declared again word for word is accepted once parsed
     * (per-rank recordings), but its members are still checked against a
     * `tasks` line that came in between, and other members are refused */
    assert_int_equal(parse("comm r 0-3\ncomm r 0-3\nbarrier 0 r\nbarrier 1 r\nbarrier 2 r\n"
                           "barrier 3 r\n",
                           &tr, &err),
                     0);
    assert_int_equal(tr.ncomms, 2);
    ct_trace_free(&tr);
    assert_int_equal(parse("comm r 0-3\ntasks 2\ncomm r 0-3\n", &tr, &err), -1);
    assert_non_null(strstr(err.msg, "t.trace:3:"));
    assert_non_null(strstr(err.msg, "out of range"));
    assert_int_equal(parse("comm r 0-3\ncomm r 0-2\n", &tr, &err), -1);
    assert_non_null(strstr(err.msg, "redeclared with other members"));
    /* a NUL byte is refused on its own line (looked for once per buffer) */
    static const char nul[] = "tasks 2\ncompute 0 1\ncompute 1 \0 1\ncompute 0 \0\n";
    assert_int_equal(ct_trace_parse_buffer("t.trace", nul, sizeof nul - 1, &tr, &err), -1);
    assert_string_equal(err.msg, "t.trace:3: NUL byte in text (expected a text file)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_all_events),
        cmocka_unit_test(test_tasks_header_and_inferred_count),
        cmocka_unit_test(test_builder_matches_parser),
        cmocka_unit_test(test_file_equals_buffer),
        cmocka_unit_test(test_bad_fixtures),
        cmocka_unit_test(test_misc_rejections),
        cmocka_unit_test(test_tags),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_measured),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_shipped_traces_parse),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_bounded_load),
        cmocka_unit_test(test_fast_paths_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
