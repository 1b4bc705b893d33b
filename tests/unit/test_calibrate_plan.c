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
#include <unistd.h>

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

/* 1 when argv holds the two words a, b in a row */
static int has_args(const step *s, const char *a, const char *b)
{
    for (int i = 0; i + 1 < s->argc; i++)
        if (strcmp(s->argv[i], a) == 0 && strcmp(s->argv[i + 1], b) == 0)
            return 1;
    return 0;
}

/* The incast many-flow step's tasks per node (calib_incast_tasks): about the
 * largest configuration's flows from two nodes, T = ceil(C sqrt((N-1)/2));
 * on 3 nodes (session 59) C + 1, beyond the largest configuration 3 x C
 * that the fit holds back; none without the many-flow step, on 2 nodes, or
 * where the nodes' CPUs cap T at C. */
static void test_incast_tasks(void **state)
{
    (void)state;
    assert_int_equal(calib_incast_tasks(7, 4, 4, 8), 5);  /* 2 x 25 >= 3 x 16 */
    assert_int_equal(calib_incast_tasks(6, 5, 4, 8), 6);  /* 2 x 36 >= 4 x 16 */
    assert_int_equal(calib_incast_tasks(6, 3, 4, 8), 5);  /* 3 nodes: C + 1 */
    assert_int_equal(calib_incast_tasks(3, 3, 2, 3), 3);  /* the integration test's cluster */
    assert_int_equal(calib_incast_tasks(6, 3, 4, 4), 0);  /* capped at C: nothing to add */
    assert_int_equal(calib_incast_tasks(6, 3, 4, 0), 5);  /* CPUs unknown: not capped */
    assert_int_equal(calib_incast_tasks(4, 2, 4, 8), 0);  /* 2 nodes: no incast */
    assert_int_equal(calib_incast_tasks(4, 3, 4, 8), 0);  /* no many-flow step */
    assert_int_equal(calib_incast_tasks(0, 4, 4, 8), 0);
}

/* The step in the plan: 3 nodes x T into alltoall-3xT.csv, marked for the fit
 * (--step incast: ct-mpibench's '# step: incast' line), optional, on 3 nodes
 * beside the configuration 3 x C; the configurations are not marked. */
static void test_plan_marks_the_incast_step(void **state)
{
    (void)state;
    for (int N = 3; N <= 4; N++) {
        plan *p = new_plan("64K,256K");
        p->flow_tasks = calib_flow_tasks(-1, N, 4, 8);
        p->incast_tasks = calib_incast_tasks(p->flow_tasks, N, 4, 8);
        calib_build_plan(p, N, 4, "123", 0);
        const step *s = find(p, "alltoall-3x5.csv");
        assert_non_null(s);
        assert_true(has_args(s, "--step", "incast"));
        assert_true(s->optional);
        assert_int_equal(s->nodes, 3);
        assert_int_equal(s->tpn, 5);
        assert_string_equal(s->label, "Alltoall, 3 nodes x 5 tasks (50 flows a port from 2 nodes), 2 sizes");
        int marked = 0;
        for (int i = 0; i < p->n; i++)
            marked += p->steps[i].kind == ST_ALLTOALL && has_args(&p->steps[i], "--step", "incast");
        assert_int_equal(marked, 1);
        const step *c = find(p, N == 3 ? "alltoall-3x4.csv" : "alltoall-4x4.csv");
        assert_non_null(c);
        assert_false(has_args(c, "--step", "incast"));
        free(p);
    }
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

/* The exchange the duplex terms are read off (session 53): the 2 x 1 exchange
 * posted as the patterns post theirs (alltoall --p2p), back to back (no
 * --idle), at the 2 x 1 Alltoall's sizes, just after it, into
 * exchange-p2p-2x1.csv; optional; its work is the 2 x 1's. */
static void test_plan_measures_the_posted_exchange(void **state)
{
    (void)state;
    plan *p = new_plan("32K,64K,128K,256K,512K");
    calib_build_plan(p, 4, 4, "123", 0);
    const step *x = find(p, "alltoall-2x1.csv"), *e = find(p, "exchange-p2p-2x1.csv");
    assert_non_null(x);
    assert_non_null(e);
    assert_true(e == x + 1);
    assert_int_equal(e->kind, ST_EXCHANGE);
    assert_int_equal(e->nodes, 2);
    assert_int_equal(e->tpn, 1);
    assert_true(e->optional);
    assert_string_equal(sizes_of(e), "32K,64K,128K,256K,512K,1M,2M");
    assert_true(e->work == x->work && e->idle == 0);
    int posted = 0, idle = 0, reps = 0;
    for (int i = 0; i < e->argc; i++) {
        posted += strcmp(e->argv[i], "--p2p") == 0;
        idle += strcmp(e->argv[i], "--idle") == 0;
        reps += i + 1 < e->argc && strcmp(e->argv[i], "--reps") == 0 &&
                atoi(e->argv[i + 1]) == p->reps;
    }
    assert_int_equal(posted, 1);
    assert_int_equal(idle, 0);
    assert_int_equal(reps, 1);
    assert_string_equal(e->label, "Isend/Irecv exchange, 2 nodes x 1 task, back to back, 7 sizes");
    int n = 0;
    for (int i = 0; i < p->n; i++)
        n += p->steps[i].kind == ST_EXCHANGE;
    assert_int_equal(n, 1);
    free(p);
    /* --quick and sizes asked for: the 2 x 1's */
    p = new_plan("64K,256K");
    calib_build_plan(p, 2, 1, "123", 1);
    e = find(p, "exchange-p2p-2x1.csv");
    assert_non_null(e);
    assert_string_equal(sizes_of(e), "64K,256K,1M,2M");
    assert_string_equal(e->label, "Isend/Irecv exchange, 2 nodes x 1 task, back to back, 4 sizes");
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
    /* session 36: the same exchange after the same idle, posted as the
     * patterns post theirs (alltoall --p2p), into its own file, just before */
    const step *q = find(p, "refill-p2p-2x1.csv");
    assert_non_null(q);
    assert_true(q + 1 == r);
    assert_int_equal(q->kind, ST_REFILL);
    assert_int_equal(q->nodes, 2);
    assert_int_equal(q->tpn, 1);
    assert_true(q->optional);
    assert_string_equal(sizes_of(q), "256K,512K,1M");
    int posted = 0;
    idle = 0;
    for (int i = 0; i < q->argc; i++) {
        posted += strcmp(q->argv[i], "--p2p") == 0;
        idle |= i + 1 < q->argc && strcmp(q->argv[i], "--idle") == 0 &&
                strcmp(q->argv[i + 1], "0.1") == 0;
    }
    for (int i = 0; i < r->argc; i++)
        assert_true(strcmp(r->argv[i], "--p2p") != 0);
    assert_int_equal(posted, 1);
    assert_int_equal(idle, 1);
    assert_true(q->idle == r->idle && q->work == r->work);
    assert_string_equal(q->label, "Isend/Irecv exchange, 2 nodes x 1 task, after 100 ms idle, 3 sizes");
    free(p);
}

/* --wait (session 34): every step's ct-mpibench gets it, after its mode,
 * once, with the word given; the flow steps and the refill step too */
static void test_plan_wait_reaches_every_step(void **state)
{
    (void)state;
    plan *p = new_plan("32K,64K,128K,256K,512K");
    p->flow_tasks = 7;
    p->incast_tasks = 5;
    calib_build_plan(p, 4, 4, "123", 0);
    assert_true(p->n >= 12);
    calib_plan_wait(p, "busy");
    for (int i = 0; i < p->n; i++) {
        const step *s = &p->steps[i];
        int bench = -1, n = 0;
        for (int k = 0; k < s->argc; k++) {
            if (strcmp(s->argv[k], "ct-mpibench") == 0)
                bench = k;
            if (strcmp(s->argv[k], "--wait") == 0) {
                n++;
                assert_true(bench >= 0 && k > bench + 1); /* after the benchmark's mode */
                assert_true(k + 1 < s->argc);
                assert_string_equal(s->argv[k + 1], "busy");
            }
        }
        if (n != 1)
            fail_msg("step %s: --wait %d times", s->file, n);
        assert_null(s->argv[s->argc]);
    }
    free(p);
}

/* the word after --wait in a step's argv, NULL when none */
static const char *wait_of(const step *s)
{
    for (int i = 0; i + 1 < s->argc; i++)
        if (strcmp(s->argv[i], "--wait") == 0)
            return s->argv[i + 1];
    return NULL;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* --wait auto: the ping-pong (2 nodes, the first step) decides for the
 * rest when it waited polled (a one-node step cannot see that nodes share
 * its machine); busy leaves each step its own auto; an asked-for wait is
 * never changed */
static void test_wait_follows_the_pingpong(void **state)
{
    (void)state;
    char dir[] = "/tmp/ct-waitplan-XXXXXX", out[64], why[128];
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/pingpong.csv", dir);
    plan *p = new_plan("32K,64K,128K,256K,512K");
    calib_build_plan(p, 4, 4, "123", 0);
    calib_plan_wait(p, "auto");
    assert_string_equal(p->steps[0].file, "pingpong.csv");
    write_text(out, "benchmark,tasks,size_bytes,t_avg_s,t_min_s,nodes,tasks_per_node\n"
                    "# wait: busy (MPI_Waitall, MPI_Alltoall): auto: one node per machine, at "
                    "most 1 rank on 64 CPUs\n");
    assert_int_equal(calib_wait_follow(p, 0, out, why, sizeof why), 0);
    for (int i = 0; i < p->n; i++)
        assert_string_equal(wait_of(&p->steps[i]), "auto");
    write_text(out, "benchmark,tasks,size_bytes,t_avg_s,t_min_s,nodes,tasks_per_node\n"
                    "# wait: polled (MPI_Test, naps from 10 to 500 us): auto: 2 nodes share one "
                    "machine\n");
    assert_int_equal(calib_wait_follow(p, 0, out, why, sizeof why), 1);
    assert_string_equal(why, "auto: 2 nodes share one machine");
    assert_string_equal(wait_of(&p->steps[0]), "auto");
    for (int i = 1; i < p->n; i++)
        assert_string_equal(wait_of(&p->steps[i]), "polled");
    free(p);
    /* asked for busy: a polled line changes nothing */
    p = new_plan("32K,64K,128K,256K,512K");
    calib_build_plan(p, 4, 4, "123", 0);
    calib_plan_wait(p, "busy");
    assert_int_equal(calib_wait_follow(p, 0, out, why, sizeof why), 0);
    for (int i = 0; i < p->n; i++)
        assert_string_equal(wait_of(&p->steps[i]), "busy");
    free(p);
    unlink(out);
    rmdir(dir);
}

/* The nodes' TCP congestion control (session 61): each output's '# tcp:'
 * line, after its wait line, read by calib_load_dir and summed up by
 * calib_tcp: one name said by every output, two names across outputs (a
 * warning), an output whose ranks differed ("mixed"), none said (outputs of
 * an older ct-mpibench) */
static void load_tcp(const char *dir, const char *cc1, const char *cc2, data *d, char *out,
                     size_t sz, const char **name, int *rc)
{
    static const char *const files[] = {"pingpong.csv", "pingpong-wide.csv"};
    const char *ccs[] = {cc1, cc2};
    for (int i = 0; i < 2; i++) {
        char path[128], text[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        snprintf(text, sizeof text,
                 "benchmark,tasks,size_bytes,t_avg_s,t_min_s,nodes,tasks_per_node\n"
                 "# wait: polled (MPI_Test, naps from 10 to 500 us): --wait polled\n"
                 "%s%s%s"
                 "pingpong,2,0,0.0001,0.0001,2,1\npingpong,2,1048576,0.09,0.089,2,1\n",
                 ccs[i] ? "# tcp: " : "", ccs[i] ? ccs[i] : "", ccs[i] ? "\n" : "");
        write_text(path, text);
    }
    memset(d, 0, sizeof *d);
    assert_int_equal(calib_load_dir(dir, d), ADMIN_OK);
    *rc = calib_tcp(d, out, sz, name);
    ct_bench_free(&d->bench);
    for (int i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
}

static void test_tcp_congestion_control(void **state)
{
    (void)state;
    char dir[] = "/tmp/ct-tcpcc-XXXXXX", out[256];
    assert_non_null(mkdtemp(dir));
    static data d;
    const char *name;
    int rc;
    load_tcp(dir, "cubic (net.ipv4.tcp_congestion_control of every rank's node)",
             "cubic (net.ipv4.tcp_congestion_control of every rank's node)", &d, out, sizeof out,
             &name, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(out, "cubic (said by 2 of 2 outputs)");
    assert_non_null(name);
    assert_string_equal(name, "cubic");
    assert_int_equal(d.nwait[CALIB_WAIT_POLLED], 2); /* the wait line is still read */
    /* read in the order of the files' names: pingpong-wide.csv (cubic) first */
    load_tcp(dir, "bbr (x)", "cubic (x)", &d, out, sizeof out, &name, &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(out, "cubic in one output, bbr in another (2 of 2 outputs said one)");
    assert_null(name);
    load_tcp(dir, "mixed (cubic on 2 ranks, bbr on 2)", "cubic (x)", &d, out, sizeof out, &name,
             &rc);
    assert_int_equal(rc, 1);
    assert_null(name);
    load_tcp(dir, "mixed (cubic on 2 ranks, bbr on 2)", NULL, &d, out, sizeof out, &name, &rc);
    assert_int_equal(rc, 1);
    assert_string_equal(out, "mixed: the ranks' nodes ran different ones (1 of 2 outputs said; "
                             "ct-mpibench's '# tcp:' lines name them)");
    load_tcp(dir, NULL, NULL, &d, out, sizeof out, &name, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(out, "not recorded in the 2 outputs (written by a ct-mpibench from before "
                             "session 61)");
    assert_null(name);
    rmdir(dir);
}

/* Sizes chosen by the link (session 52): after the 2 x 1 Alltoall, where
 * its 128 KiB took no more than 1.10 x its 32 KiB (the call's floor), every
 * Alltoall step from the 2 x 1 on moves to the plan's floor sizes (their
 * --sizes, work and labels) and the 2 x 1 is measured again; where 128 KiB
 * took longer, where the sizes were asked for, or once moved, nothing
 * changes. */
static void write_2x1(const char *path, double t32, double t128)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "benchmark,tasks,size_bytes,t_avg_s,t_min_s,nodes,tasks_per_node\n");
    const double m[] = {32768, 65536, 131072, 262144, 524288};
    const double t[] = {t32, t32, t128, 2 * t128, 4 * t128};
    for (int i = 0; i < 5; i++)
        fprintf(f, "alltoall,2,%.0f,%.9f,%.9f,2,1\n", m[i], t[i], 0.9 * t[i]);
    fclose(f);
}

static void test_floor_moves_the_sizes(void **state)
{
    (void)state;
    char path[] = "/tmp/ct-test-floor.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    plan *p = new_plan("32K,64K,128K,256K,512K");
    p->flow_tasks = 7;
    p->incast_tasks = 5;
    calib_build_plan(p, 4, 4, "123", 0);
    int i2 = -1;
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->steps[i].file, "alltoall-2x1.csv") == 0)
            i2 = i;
    assert_true(i2 > 0);
    const step *x = &p->steps[i2], *o = find(p, "alltoall-4x2.csv"), *fl = find(p, "alltoall-2x7.csv");
    assert_non_null(o);
    assert_non_null(fl);
    ct_a2a_call_floor f;

    /* sizes asked for (--sizes): never moved */
    write_2x1(path, 2.5e-3, 2.6e-3);
    assert_int_equal(calib_floor_check(p, i2, path, 131072, &f), 0);
    p->floor_sizes = CALIB_FLOOR_SIZES;
    /* 128 KiB took the link's time (1.2 x 32 KiB): nothing moves */
    write_2x1(path, 2.5e-3, 3.0e-3);
    assert_int_equal(calib_floor_check(p, i2, path, 131072, &f), 0);
    assert_string_equal(sizes_of(o), "32K,64K,128K,256K,512K");
    /* not the 2 x 1: nothing moves */
    write_2x1(path, 2.5e-3, 2.6e-3);
    assert_int_equal(calib_floor_check(p, i2 + 1, path, 131072, &f), 0);
    /* an output that cannot be read: nothing moves */
    assert_int_equal(calib_floor_check(p, i2, "/nonexistent/ct-2x1.csv", 131072, &f), 0);

    /* on the floor (2.6 ms after 2.5 ms): every Alltoall step moves */
    assert_int_equal(calib_floor_check(p, i2, path, 131072, &f), 1);
    assert_true(f.m == 131072 && f.m0 == 32768);
    assert_true(f.t > 2.59e-3 && f.t < 2.61e-3 && f.t0 > 2.49e-3 && f.t0 < 2.51e-3);
    assert_int_equal(p->resized, 1);
    assert_int_equal(p->nsizes, 5);
    assert_string_equal(p->sizes_arg, "32K,64K,512K,1M,2M");
    /* the 2 x 1 has no sizes above 2 MiB to add */
    assert_string_equal(sizes_of(x), "32K,64K,512K,1M,2M");
    assert_string_equal(x->label, "Alltoall, 2 nodes x 1 task, 5 sizes");
    assert_string_equal(sizes_of(o), "32K,64K,512K,1M,2M");
    assert_string_equal(o->label, "Alltoall, 4 nodes x 2 tasks, 5 sizes");
    assert_string_equal(sizes_of(fl), "32K,64K,512K,1M,2M");
    assert_string_equal(fl->label, "Alltoall, 2 nodes x 7 tasks (49 flows a port), 5 sizes");
    double msum = (32 + 64 + 512 + 1024 + 2048) * 1024.0;
    assert_true(x->work == msum * (p->reps + 1));
    assert_true(o->work == 2 * (8 - 2) * msum * (p->reps + 1));
    /* the posted exchange keeps the 2 x 1's sizes as planned (session 53:
     * the duplex terms' line from 128 KiB) */
    assert_string_equal(sizes_of(find(p, "exchange-p2p-2x1.csv")), "32K,64K,128K,256K,512K,1M,2M");
    /* the steps before the 2 x 1 keep theirs; the argv still ends in NULL */
    assert_string_equal(sizes_of(&p->steps[0]), "0,128K,256K,512K,1M,2M");
    assert_null(x->argv[x->argc]);
    /* once moved, never again */
    assert_int_equal(calib_floor_check(p, i2, path, 131072, &f), 0);
    free(p);

    /* --quick: its own, shorter list; the 2 x 1 still reaches 2 MiB */
    p = new_plan("32K,64K,128K,256K");
    calib_build_plan(p, 3, 1, "123", 1);
    p->floor_sizes = CALIB_FLOOR_SIZES_QUICK;
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->steps[i].file, "alltoall-2x1.csv") == 0)
            i2 = i;
    assert_int_equal(calib_floor_check(p, i2, path, 131072, &f), 1);
    assert_string_equal(sizes_of(find(p, "alltoall-2x1.csv")), "32K,64K,512K,1M,2M");
    assert_string_equal(sizes_of(find(p, "alltoall-3x1.csv")), "32K,64K,512K,1M");
    free(p);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incast_tasks),
        cmocka_unit_test(test_plan_marks_the_incast_step),
        cmocka_unit_test(test_exchange_sizes),
        cmocka_unit_test(test_plan_measures_the_exchange_at_2x1_only),
        cmocka_unit_test(test_plan_measures_the_refill),
        cmocka_unit_test(test_plan_wait_reaches_every_step),
        cmocka_unit_test(test_wait_follows_the_pingpong),
        cmocka_unit_test(test_floor_moves_the_sizes),
        cmocka_unit_test(test_plan_measures_the_posted_exchange),
        cmocka_unit_test(test_tcp_congestion_control),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
