/* collective.c: collective events of a trace expanded into point-to-point
 * events (doc/trace-format.md, "How collectives are replayed"). Times are
 * checked on hand-computable cases: with alpha = 1 s, beta = 0 and no
 * penalty, a replay lasts as many seconds as the algorithm has sequential
 * message steps. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "contention/collective.h"
#include "contention/layout.h"
#include "contention/simulate.h"
#include "contention/trace.h"

static void parse(const char *text, ct_trace *tr)
{
    ct_err err = {{0}};
    if (ct_trace_parse_buffer("t.trace", text, strlen(text), tr, &err))
        fail_msg("%s", err.msg);
}

static void expand(const char *text, const ct_coll_params *p, ct_trace *out)
{
    ct_trace in;
    parse(text, &in);
    ct_err err = {{0}};
    if (ct_trace_expand(&in, p, out, NULL, &err))
        fail_msg("%s", err.msg);
    ct_trace_free(&in);
}

/* makespan with one task per node, Hockney alpha/beta, no penalty */
static double makespan(const ct_trace *tr, double alpha, double beta)
{
    ct_layout l;
    ct_err err = {{0}};
    int32_t *map = malloc((size_t)tr->ntasks * sizeof *map);
    for (int32_t i = 0; i < tr->ntasks; i++)
        map[i] = i;
    assert_int_equal(ct_layout_explicit(tr->ntasks, tr->ntasks, map, &l, &err), 0);
    free(map);
    ct_sim_params sp;
    memset(&sp, 0, sizeof sp);
    sp.model.kind = CT_MODEL_NONE;
    sp.alpha = alpha;
    sp.beta = beta;
    ct_sim_result r;
    if (ct_simulate(tr, &l, &sp, &r, &err))
        fail_msg("%s", err.msg);
    double m = r.makespan;
    ct_sim_result_free(&r);
    ct_layout_free(&l);
    return m;
}

/* sends of a task, in program order: destinations and bytes */
static int sends_of(const ct_trace *tr, int32_t t, int32_t *dst, double *bytes, int max)
{
    int n = 0;
    for (size_t i = tr->task_first[t]; i < tr->task_first[t + 1]; i++) {
        const ct_event *e = &tr->ev[i];
        if (e->kind != CT_EV_SEND && e->kind != CT_EV_ISEND)
            continue;
        if (n < max) {
            dst[n] = e->peer;
            bytes[n] = e->value;
        }
        n++;
    }
    return n;
}

static void test_comm_members(void **state)
{
    (void)state;
    ct_trace tr;
    parse("tasks 8\n"
          "comm r 0-6/2,7\n"
          "comm r 0-6/2,7   # the same again (concatenated per-rank recordings)\n"
          "barrier 6 r\n"
          "allreduce 1 world 8\n",
          &tr);
    assert_int_equal(tr.ncomms, 2);
    assert_int_equal(tr.comms[1].size, 5);
    int32_t want[] = {0, 2, 4, 6, 7};
    for (int32_t i = 0; i < 5; i++) {
        assert_int_equal(ct_trace_comm_task(&tr, 1, i), want[i]);
        assert_int_equal(ct_trace_comm_rank(&tr, 1, want[i]), i);
    }
    assert_int_equal(ct_trace_comm_rank(&tr, 1, 1), -1);
    assert_int_equal(ct_trace_comm_rank(&tr, 0, 5), 5);
    assert_int_equal(ct_trace_comm_rank(&tr, 0, 8), -1);
    assert_int_equal(tr.ncoll, 2);
    assert_int_equal(tr.ncomm, 0);
    const ct_event *e = &tr.ev[tr.task_first[6]];
    assert_int_equal(e->kind, CT_EV_BARRIER);
    assert_int_equal(e->comm, 1);
    assert_string_equal(ct_ev_kind_name(CT_EV_ALLTOALLV), "alltoallv");
    ct_trace_free(&tr);
    /* a stride past the range's end: its first member only. Near LLONG_MAX
     * the expansion's x += stride overflowed and wrote past the members
     * counted (session 71, clang's analyzer): size 2, not 2 + about 2 x 9 */
    parse("tasks 64\n"
          "comm c 3,9-62/9223372036854775807\n"
          "comm d 9-62/100\n",
          &tr);
    assert_int_equal(tr.ncomms, 3);
    assert_int_equal(tr.comms[1].size, 2);
    assert_int_equal(ct_trace_comm_task(&tr, 1, 0), 3);
    assert_int_equal(ct_trace_comm_task(&tr, 1, 1), 9);
    assert_int_equal(tr.comms[2].size, 1);
    assert_int_equal(ct_trace_comm_task(&tr, 2, 0), 9);
    ct_trace_free(&tr);
}

static void test_barrier_dissemination(void **state)
{
    (void)state;
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    ct_trace tr;
    /* 5 tasks: ceil(log2 5) = 3 rounds at distances 1, 2, 4 */
    expand("barrier 0 world\nbarrier 1 world\nbarrier 2 world\nbarrier 3 world\n"
           "barrier 4 world\n",
           &p, &tr);
    int32_t dst[8];
    double b[8];
    assert_int_equal(sends_of(&tr, 3, dst, b, 8), 3);
    assert_int_equal(dst[0], 4);
    assert_int_equal(dst[1], 0);
    assert_int_equal(dst[2], 2);
    assert_true(b[0] == 0);
    assert_true(fabs(makespan(&tr, 1, 0) - 3) < 1e-9);
    ct_trace_free(&tr);
}

static void test_allreduce_choice(void **state)
{
    (void)state;
    ct_coll_params p;
    /* P = 4: recursive doubling 2 (a + m b), ring 6 (a + m b / 4): ring is
     * cheaper when m > 8 a / b = 8000 bytes */
    ct_coll_params_hockney(1e-5, 1e-8, &p);
    assert_int_equal(ct_coll_allreduce_alg(&p, 4, 4000), CT_ALLREDUCE_RECDOUBLING);
    assert_int_equal(ct_coll_allreduce_alg(&p, 4, 16000), CT_ALLREDUCE_RING);
    ct_trace tr;
    expand("allreduce 0 world 16000\nallreduce 1 world 16000\nallreduce 2 world 16000\n"
           "allreduce 3 world 16000\n",
           &p, &tr);
    int32_t dst[8];
    double b[8];
    assert_int_equal(sends_of(&tr, 2, dst, b, 8), 6); /* 2 (P - 1) ring steps */
    assert_int_equal(dst[0], 3);
    assert_true(b[0] == 4000);
    ct_trace_free(&tr);
    expand("allreduce 0 world 4000\nallreduce 1 world 4000\nallreduce 2 world 4000\n"
           "allreduce 3 world 4000\n",
           &p, &tr);
    assert_int_equal(sends_of(&tr, 2, dst, b, 8), 2); /* partners 2^1, 2^2 */
    assert_int_equal(dst[0], 3);
    assert_int_equal(dst[1], 0);
    assert_true(b[1] == 4000);
    ct_trace_free(&tr);
}

static void test_allreduce_three_tasks(void **state)
{
    (void)state;
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    ct_trace tr;
    /* 3 = 2 + 1: task 0 folds into task 1, 1 and 2 exchange, 1 returns the
     * result to 0: three steps */
    expand("allreduce 0 world 8\nallreduce 1 world 8\nallreduce 2 world 8\n", &p, &tr);
    int32_t dst[4];
    double b[4];
    assert_int_equal(sends_of(&tr, 1, dst, b, 4), 2);
    assert_int_equal(dst[0], 2);
    assert_int_equal(dst[1], 0);
    assert_true(fabs(makespan(&tr, 1, 0) - 3) < 1e-9);
    ct_trace_free(&tr);
}

static void test_bcast_binomial(void **state)
{
    (void)state;
    ct_coll_params p;
    /* L = 1/2, g(m) = 1/2 + m * 0: for P = 8 flat costs 7 g + L = 4,
     * binomial 3 g + 3 L = 3, chain 7 (g + L) = 7, binary 3 (2 g + L) = 4.5
     * (003 Table 1): binomial wins */
    ct_coll_params_hockney(1, 0, &p);
    ct_plogp_choice ch;
    ct_err err = {{0}};
    assert_int_equal(ct_coll_bcast_choice(&p, 8, 1, &ch, &err), 0);
    assert_int_equal(ch.strategy, CT_BCAST_BINOMIAL);
    assert_true(fabs(ch.time - 3) < 1e-9);
    /* root 3: virtual ranks are (rank - 3) mod 8; the root serves 4, 2, 1
     * virtual, i.e. tasks 7, 5, 4; virtual 4 (task 7) serves 6 and 5 */
    char text[1024] = "";
    for (int t = 0; t < 8; t++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "bcast %d world 3 1\n", t);
    ct_trace tr;
    expand(text, &p, &tr);
    int32_t dst[8];
    double b[8];
    assert_int_equal(sends_of(&tr, 3, dst, b, 8), 3);
    assert_int_equal(dst[0], 7);
    assert_int_equal(dst[1], 5);
    assert_int_equal(dst[2], 4);
    assert_int_equal(sends_of(&tr, 7, dst, b, 8), 2);
    assert_int_equal(dst[0], 1);
    assert_int_equal(dst[1], 0);
    /* the replay takes the model's 3 steps */
    assert_true(fabs(makespan(&tr, 1, 0) - 3) < 1e-9);
    ct_trace_free(&tr);
}

static void test_bcast_large_segmented(void **state)
{
    (void)state;
    ct_coll_params p;
    /* a large message on few tasks: 003's model pipelines it (a segmented
     * strategy), with at most CT_COLL_MAX_SEGMENTS segments */
    ct_coll_params_hockney(50e-6, 8e-9, &p);
    ct_plogp_choice ch;
    ct_err err = {{0}};
    assert_int_equal(ct_coll_bcast_choice(&p, 8, 4194304, &ch, &err), 0);
    assert_true(ct_bcast_is_segmented((ct_bcast_strategy)ch.strategy));
    assert_true(ch.segment >= 4194304.0 / CT_COLL_MAX_SEGMENTS);
    char text[1024] = "";
    for (int t = 0; t < 8; t++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "bcast %d world 0 4M\n", t);
    ct_trace tr;
    expand(text, &p, &tr);
    /* every task receives the whole message */
    for (int32_t t = 1; t < 8; t++) {
        double got = 0;
        for (size_t c = 0; c < tr.ncomm; c++)
            if (ct_trace_comm_event(&tr, c)->peer == t)
                got += ct_trace_comm_event(&tr, c)->value;
        assert_true(fabs(got - 4194304) < 1e-6);
    }
    ct_trace_free(&tr);
}

static void test_scatter_gather(void **state)
{
    (void)state;
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    /* scatterv from root 0 of 4 tasks: each member receives its own block */
    ct_trace tr;
    expand("scatterv 0 world 0 10\nscatterv 1 world 0 100\nscatterv 2 world 0 200\n"
           "scatterv 3 world 0 300\n"
           "gatherv 0 world 2 1\ngatherv 1 world 2 2\ngatherv 2 world 2 3\ngatherv 3 world 2 4\n",
           &p, &tr);
    double in[4] = {0};
    for (size_t c = 0; c < tr.ncomm; c++) {
        const ct_event *e = ct_trace_comm_event(&tr, c);
        if (e->value >= 10) /* the scatter's messages (the gather's are 1 to 4 bytes) */
            in[e->peer] += e->value;
    }
    /* whichever tree 003 selects, the bytes forwarded to task k cover the
     * blocks of its subtree, at least its own */
    assert_true(in[1] >= 100 && in[2] >= 200 && in[3] >= 300);
    /* gatherv is linear: tasks 0, 1, 3 each send their block to root 2 */
    int32_t dst[8];
    double b[8];
    int n = sends_of(&tr, 3, dst, b, 8);
    assert_true(n >= 1);
    assert_int_equal(dst[n - 1], 2);
    assert_true(b[n - 1] == 4);
    ct_trace_free(&tr);
}

static void test_alltoall_pairwise_subcomm(void **state)
{
    (void)state;
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    ct_trace tr;
    /* alltoall among tasks 1, 3, 5 of 6, after a compute phase of 2 s on 1:
     * P - 1 = 2 rounds; task 1 sends to 3 then 5 */
    expand("tasks 6\ncomm odd 1-5/2\ncompute 1 2\n"
           "alltoall 1 odd 1K\nalltoall 3 odd 1K\nalltoall 5 odd 1K\n",
           &p, &tr);
    int32_t dst[4];
    double b[4];
    assert_int_equal(sends_of(&tr, 1, dst, b, 4), 2);
    assert_int_equal(dst[0], 3);
    assert_int_equal(dst[1], 5);
    assert_true(b[0] == 1024);
    assert_int_equal(sends_of(&tr, 0, dst, b, 4), 0);
    /* compute kept: 2 s, then two rounds of 1 s */
    assert_true(fabs(makespan(&tr, 1, 0) - 4) < 1e-9);
    ct_trace_free(&tr);
}

static void test_allgatherv_ring(void **state)
{
    (void)state;
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    ct_trace tr;
    /* 3 tasks (not a power of two): ring; task 0 passes its block (5) then
     * the block of task 2 (7) to task 1 */
    expand("allgatherv 0 world 5\nallgatherv 1 world 6\nallgatherv 2 world 7\n", &p, &tr);
    int32_t dst[4];
    double b[4];
    assert_int_equal(sends_of(&tr, 0, dst, b, 4), 2);
    assert_int_equal(dst[0], 1);
    assert_true(b[0] == 5 && b[1] == 7);
    assert_true(fabs(makespan(&tr, 1, 0) - 2) < 1e-9);
    ct_trace_free(&tr);
}

static void test_scan_chain(void **state)
{
    (void)state;
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    ct_trace tr;
    /* 4 tasks on a sub-communicator in rank order 3, 1, 0, 2: a chain from
     * rank 0 to rank 3, the whole vector on each edge, one step after the
     * other (3 s with alpha 1 s); the last rank sends nothing */
    expand("comm c 3,1,0,2\n"
           "scan 0 c 100\nscan 1 c 100\nscan 2 c 100\nscan 3 c 100\n"
           "exscan 0 c 8\nexscan 1 c 8\nexscan 2 c 8\nexscan 3 c 8\n",
           &p, &tr);
    int32_t dst[4];
    double b[4];
    assert_int_equal(sends_of(&tr, 3, dst, b, 4), 2); /* rank 0 */
    assert_int_equal(dst[0], 1);
    assert_true(b[0] == 100 && b[1] == 8);
    assert_int_equal(sends_of(&tr, 1, dst, b, 4), 2); /* rank 1 */
    assert_int_equal(dst[0], 0);
    assert_int_equal(sends_of(&tr, 0, dst, b, 4), 2); /* rank 2 */
    assert_int_equal(dst[0], 2);
    assert_int_equal(sends_of(&tr, 2, dst, b, 4), 0); /* rank 3, the last */
    /* the scan's chain ends at 3 s; the exscan's first message starts when
     * rank 1, done passing the scan on at 2 s, posts its receive (every send
     * a rendez-vous, doc/simulator.md), and each step after it waits for
     * the one before: 2 more steps after 3 s */
    assert_true(fabs(makespan(&tr, 1, 0) - 5) < 1e-9);
    ct_trace_free(&tr);
}

static void expect_error(const char *text, const char *want)
{
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    ct_trace in, out;
    parse(text, &in);
    ct_err err = {{0}};
    assert_int_equal(ct_trace_expand(&in, &p, &out, NULL, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("got '%s', want '%s'", err.msg, want);
    ct_trace_free(&in);
}

static void test_mismatches(void **state)
{
    (void)state;
    expect_error("bcast 0 world 0 1K\nbcast 1 world 1 1K\n",
                 "t.trace:2: bcast of task 1 does not match call 1 on communicator 'world' "
                 "(line 1: bcast root 0");
    expect_error("allreduce 0 world 8\nallreduce 1 world 16\n",
                 "t.trace:2: allreduce of task 1 does not match");
    expect_error("barrier 0 world\nbarrier 1 world\nbarrier 0 world\n",
                 "communicator 'world': task 1 makes 1 collective calls, another member 2");
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    p.max_events = 10;
    ct_trace in, out;
    parse("alltoall 0 world 1\nalltoall 1 world 1\nalltoall 2 world 1\nalltoall 3 world 1\n",
          &in);
    ct_err err = {{0}};
    assert_int_equal(ct_trace_expand(&in, &p, &out, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "more than 10 point-to-point events"));
    ct_trace_free(&in);
}

static void test_no_collectives_copied(void **state)
{
    (void)state;
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    ct_trace tr;
    expand("send 0 1 4M a\nrecv 1 0\ncompute 1 1ms\nisend 1 0 1K\nirecv 0 1\nwaitall 0\n"
           "waitall 1\n",
           &p, &tr);
    assert_int_equal(tr.nevents, 7);
    char buf[CT_LABEL_MAX];
    assert_string_equal(ct_trace_label(&tr, 0, buf, sizeof buf), "a");
    assert_true(fabs(makespan(&tr, 1, 0) - 2.001) < 1e-9);
    ct_trace_free(&tr);
}

/* A collective's messages never match the program's receives (trace.h
 * CT_CTX_COLL; MPI 4.1 §7.1.2). Task 0 posts a receive from any source and
 * enters a barrier; task 2 reaches the barrier at once, task 1 sends only
 * after 5 s of compute. Matched to task 2's barrier message, the receive left
 * task 1's send unmatched: the replay stopped in a deadlock (found recording
 * ct-record-app's cancel mode on 3 ranks, session 67). */
static void test_any_source_not_a_collective(void **state)
{
    (void)state;
    ct_coll_params p;
    ct_coll_params_hockney(1, 0, &p);
    ct_trace tr;
    expand("tasks 3\nirecv 0 any 8\nwaitall 0\nbarrier 0 world\n"
           "compute 1 5\nsend 1 0 8\nbarrier 1 world\nbarrier 2 world\n",
           &p, &tr);
    size_t ncoll = 0, nuser = 0;
    for (size_t i = 0; i < tr.nevents; i++) {
        const ct_event *e = &tr.ev[i];
        if (e->kind == CT_EV_COMPUTE || e->kind == CT_EV_WAITALL)
            continue;
        if (e->ctx == CT_CTX_COLL)
            ncoll++;
        else
            nuser++;
    }
    assert_int_equal(nuser, 2); /* the irecv and the send */
    assert_true(ncoll > 0);
    /* task 1 sends at 5 s (alpha 1 s: received at 6), then the barrier's
     * dissemination, 2 rounds of 1 s each: 8 s */
    assert_true(fabs(makespan(&tr, 1, 0) - 8) < 1e-9);
    ct_trace_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comm_members),
        cmocka_unit_test(test_barrier_dissemination),
        cmocka_unit_test(test_allreduce_choice),
        cmocka_unit_test(test_allreduce_three_tasks),
        cmocka_unit_test(test_bcast_binomial),
        cmocka_unit_test(test_bcast_large_segmented),
        cmocka_unit_test(test_scatter_gather),
        cmocka_unit_test(test_alltoall_pairwise_subcomm),
        cmocka_unit_test(test_allgatherv_ring),
        cmocka_unit_test(test_scan_chain),
        cmocka_unit_test(test_mismatches),
        cmocka_unit_test(test_no_collectives_copied),
        cmocka_unit_test(test_any_source_not_a_collective),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
