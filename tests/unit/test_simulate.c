/* simulate.c: the trace-replay engine of paper 001 §VI-A and the errors of
 * §VI-B. Published numbers come from tests/fixtures/vectors/ (paper 001
 * Fig. 2, Fig. 4, Fig. 6); every tolerance is stated beside its assertion. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "../../admin/admin.h"
#include "contention/layout.h"
#include "contention/penalty.h"
#include "contention/simulate.h"
#include "contention/trace.h"

#include "engine.h"       /* internal: the event engine and its incremental state */
#include "simulate_ref.h" /* internal: the simulator without incremental hooks */

#define TRACES CT_FIXTURES "/traces"
#define VECTORS CT_FIXTURES "/vectors"

/* paper 001 §V-A published GigE parameters */
static const double BETA = 0.75, GAMMA_I = 0.036, GAMMA_O = 0.115;

static ct_sim_params gige_params(double alpha, double beta_s_per_byte)
{
    ct_sim_params p;
    memset(&p, 0, sizeof p);
    p.model.kind = CT_MODEL_GIGE;
    p.model.real[CT_GIGE_SHARE] = BETA;
    p.model.real[CT_GIGE_SKEW_IN] = GAMMA_I;
    p.model.real[CT_GIGE_SKEW_OUT] = GAMMA_O;
    p.alpha = alpha;
    p.beta = beta_s_per_byte;
    p.keep_comms = 1;
    return p;
}

/* One task per node. */
static void one_per_node(ct_layout *l, int32_t n)
{
    int32_t *map = malloc((size_t)n * sizeof *map);
    for (int32_t i = 0; i < n; i++)
        map[i] = i;
    ct_err err = {{0}};
    assert_int_equal(ct_layout_explicit(n, n, map, l, &err), 0);
    free(map);
}

static void parse(const char *text, ct_trace *tr)
{
    ct_err err = {{0}};
    if (ct_trace_parse_buffer("t.trace", text, strlen(text), tr, &err))
        fail_msg("%s", err.msg);
}

static void simulate_ok_as(const ct_trace *tr, const ct_layout *l, const ct_sim_params *p,
                           int reference, ct_sim_result *r)
{
    ct_err err = {{0}};
    if ((reference ? simulate_reference : ct_simulate)(tr, l, p, r, &err))
        fail_msg("%s", err.msg);
}

static void simulate_ok(const ct_trace *tr, const ct_layout *l, const ct_sim_params *p,
                        ct_sim_result *r)
{
    simulate_ok_as(tr, l, p, 0, r);
}

#define REL_EQ(a, b, tol) assert_true(fabs((a) - (b)) <= (tol)*fabs(b))

/* A single communication takes Hockney's alpha + m*beta (000 §3). */
static void test_single_comm_is_hockney(void **state)
{
    (void)state;
    ct_trace tr;
    parse("send 0 1 1M\nrecv 1 0\n", &tr);
    ct_layout l;
    one_per_node(&l, 2);
    const double alpha = 50e-6, beta = 1.0 / 117e6; /* a GigE-like link */
    ct_sim_params p = gige_params(alpha, beta);
    ct_sim_result r;
    simulate_ok(&tr, &l, &p, &r);
    double want = alpha + 1048576.0 * beta;
    REL_EQ(r.comm[0].end, want, 1e-12); /* tolerance: rounding only */
    assert_true(r.comm[0].start == 0.0);
    assert_true(r.comm[0].p_start == 1.0);
    REL_EQ(r.comm[0].p_eff, 1.0, 1e-12);
    assert_int_equal(r.comm[0].conflict, 0);
    REL_EQ(r.task[0].comm, want, 1e-12);
    REL_EQ(r.task[1].total, want, 1e-12);
    REL_EQ(r.makespan, want, 1e-12);
    assert_int_equal(r.nremote, 1);
    assert_int_equal(r.n_conflict[0], 1);
    ct_sim_result_free(&r);

    /* every model leaves a lone communication alone */
    ct_model_kind kinds[] = {CT_MODEL_NONE, CT_MODEL_STOPGO, CT_MODEL_FAIRSHARE};
    for (size_t i = 0; i < 3; i++) {
        p.model.kind = kinds[i];
        simulate_ok(&tr, &l, &p, &r);
        REL_EQ(r.comm[0].end, want, 1e-12);
        ct_sim_result_free(&r);
    }
    ct_layout_free(&l);
    ct_trace_free(&tr);
}

/* Two outgoing communications from one node: GigE penalty 2*beta = 1.5
 * (001 §V-A, both in C_o^m with card 2; Fig. 2 row 2 measured 1.5). */
static void test_two_outgoing_gige(void **state)
{
    (void)state;
    ct_trace tr;
    parse("isend 0 1 20M a\nisend 0 2 20M b\nwaitall 0\nrecv 1 0\nrecv 2 0\n", &tr);
    ct_layout l;
    one_per_node(&l, 3);
    const double alpha = 60e-6, beta = 8.5e-9;
    ct_sim_params p = gige_params(alpha, beta);
    ct_sim_result r;
    simulate_ok(&tr, &l, &p, &r);
    double alone = alpha + 20971520.0 * beta;
    for (int c = 0; c < 2; c++) {
        REL_EQ(r.comm[c].alone, alone, 1e-12);
        REL_EQ(r.comm[c].end, 1.5 * alone, 1e-12); /* tolerance: rounding only */
        REL_EQ(r.comm[c].p_start, 2 * BETA, 1e-12);
        REL_EQ(r.comm[c].p_eff, 2 * BETA, 1e-12);
        assert_int_equal(r.comm[c].conflict, CT_CONFLICT_OUT);
    }
    assert_int_equal(r.n_conflict[1], 2);
    REL_EQ(r.mean_p_eff, 1.5, 1e-12);
    ct_sim_result_free(&r);

    /* the max-min baseline halves the NIC: penalty 2 on the bytes' time, the
     * latency once beside it (session 56: models.h latency_once) */
    p.model.kind = CT_MODEL_FAIRSHARE;
    simulate_ok(&tr, &l, &p, &r);
    REL_EQ(r.comm[0].end, alpha + 2 * 20971520.0 * beta, 1e-12);
    REL_EQ(r.comm[0].alone, alone, 1e-12); /* reported with its alpha */
    REL_EQ(r.comm[0].p_eff, (alpha + 2 * 20971520.0 * beta) / alone, 1e-12);
    ct_sim_result_free(&r);
    /* asked for 001's T = p T_alone: the latency stretched too */
    p.latency_in_penalty = 1;
    simulate_ok(&tr, &l, &p, &r);
    REL_EQ(r.comm[0].end, 2 * alone, 1e-12);
    ct_sim_result_free(&r);
    p.latency_in_penalty = 0;
    ct_layout_free(&l);
    ct_trace_free(&tr);
}

/* Fig. 2 rows 1-3 (fan-out 1, 2, 3 from node 0): the GigE model predicts the
 * measured 1, 1.5, 2.25 exactly (beta = 0.75 is fitted on them). */
static void test_fig2_fanout(void **state)
{
    (void)state;
    FILE *f = fopen(VECTORS "/fig2_simple.txt", "r");
    assert_non_null(f);
    char line[256];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        int k;
        double gige, myri, ib;
        if (line[0] == '#' || sscanf(line, "%d %lf %lf %lf", &k, &gige, &myri, &ib) != 4)
            continue;
        char text[1024] = "";
        for (int d = 1; d <= k; d++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "isend 0 %d 20M\n", d);
        snprintf(text + strlen(text), sizeof text - strlen(text), "waitall 0\n");
        for (int d = 1; d <= k; d++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "recv %d 0\n", d);
        ct_trace tr;
        parse(text, &tr);
        ct_layout l;
        one_per_node(&l, k + 1);
        ct_sim_params p = gige_params(0, 1e-9);
        ct_sim_result r;
        simulate_ok(&tr, &l, &p, &r);
        for (int c = 0; c < k; c++)
            REL_EQ(r.comm[c].p_eff, gige, 1e-9); /* published to 3 digits, exact here */
        ct_sim_result_free(&r);
        ct_layout_free(&l);
        ct_trace_free(&tr);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 3);
}

typedef struct fig4_row {
    char name[8];
    double measured, printed, completion, stat;
} fig4_row;

static int load_fig4(fig4_row *rows, double *t_ref)
{
    FILE *f = fopen(VECTORS "/fig4_gige.txt", "r");
    assert_non_null(f);
    char line[256];
    int n = 0;
    *t_ref = 0;
    while (fgets(line, sizeof line, f)) {
        int s, d;
        fig4_row *w = &rows[n];
        if (sscanf(line, "# t_ref (fitted) = %lf", t_ref) == 1)
            continue;
        if (line[0] == '#')
            continue;
        if (sscanf(line, "%7s %d %d %lf %lf %lf %lf", w->name, &s, &d, &w->measured, &w->printed,
                   &w->completion, &w->stat) == 7)
            n++;
    }
    fclose(f);
    return n;
}

/* Paper 001 Fig. 4: with penalties re-applied as communications finish, the
 * simulator reproduces the recomputed completion times of the vectors and
 * the printed predicted times (3 decimals) with t_ref = 0.047517 s. */
static void test_fig4_gige(void **state)
{
    (void)state;
    fig4_row rows[8];
    double t_ref;
    assert_int_equal(load_fig4(rows, &t_ref), 6);
    assert_true(t_ref > 0.047 && t_ref < 0.048);
    ct_trace tr;
    ct_err err = {{0}};
    assert_int_equal(ct_trace_load(TRACES "/fig4_gige.trace", &tr, &err), 0);
    ct_layout l;
    one_per_node(&l, 7);
    /* alpha = 0 and beta = t_ref / 4 MiB: every communication alone takes t_ref */
    ct_sim_params p = gige_params(0, t_ref / 4194304.0);
    for (int ref = 0; ref < 2; ref++) {
        /* incremental evaluation, then the model re-applied per component */
        ct_sim_result r;
        simulate_ok_as(&tr, &l, &p, ref, &r);
        for (size_t c = 0; c < 6; c++) {
            char lab[CT_LABEL_MAX];
            ct_trace_label(&tr, c, lab, sizeof lab);
            assert_string_equal(lab, rows[c].name);
            double tp = ct_sim_comm_time(&r.comm[c]);
            /* vectors give 6 significant digits */
            assert_true(fabs(tp / t_ref - rows[c].completion) < 6e-6 * rows[c].completion);
            /* the paper prints 3 decimals */
            assert_true(fabs(tp - rows[c].printed) <= 0.0005 + 1e-12);
            /* the penalties of the first instant are the static ones */
            assert_true(fabs(r.comm[c].p_start - rows[c].stat) < 1e-9 * rows[c].stat);
        }
        /* §IV-A kinds: a is only in node 0's outgoing conflict; b and c also
         * meet incoming conflicts at nodes 2 and 3; d, e, f only incoming */
        assert_int_equal(r.comm[0].conflict, CT_CONFLICT_OUT);
        assert_int_equal(r.comm[1].conflict, CT_CONFLICT_OUT | CT_CONFLICT_IN);
        assert_int_equal(r.comm[2].conflict, CT_CONFLICT_OUT | CT_CONFLICT_IN);
        for (int c = 3; c < 6; c++)
            assert_int_equal(r.comm[c].conflict, CT_CONFLICT_IN);

        /* 001 §VI-B errors against the measured column, computed here from
         * the vectors' own columns */
        double meas[6];
        assert_int_equal(ct_measured_load(TRACES "/fig4_gige.measured", &tr, meas, &err), 0);
        ct_sim_eval ev;
        assert_int_equal(ct_sim_evaluate(&r, meas, &ev, &err), 0);
        assert_int_equal(ev.n, 6);
        double sum = 0;
        for (int c = 0; c < 6; c++) {
            assert_true(meas[c] == rows[c].measured);
            double want = (rows[c].completion * t_ref - rows[c].measured) / rows[c].measured * 100;
            assert_true(fabs(ev.e_rel[c] - want) < 0.01); /* % points; vector rounding */
            sum += fabs(want);
        }
        assert_true(fabs(ev.e_abs_graph - sum / 6) < 0.01);
        /* node 0 sends a, b, c: E_abs(t_0) from summed times */
        double sp = (rows[0].completion + rows[1].completion + rows[2].completion) * t_ref;
        double sm = rows[0].measured + rows[1].measured + rows[2].measured;
        assert_true(fabs(ev.e_abs_task[0] - fabs((sp - sm) / sm * 100)) < 0.01);
        assert_true(isnan(ev.e_abs_task[1])); /* task 1 sends nothing */
        ct_sim_eval_free(&ev);
        ct_sim_result_free(&r);
    }
    ct_layout_free(&l);
    ct_trace_free(&tr);
}

/* Paper 001 Fig. 5/6 under the Stop & Go model: all six start together, so
 * the penalties of the first instant are Fig. 6's a5 b5 c5 d2.5 e2.5 f2.5. */
static void test_fig6_stopgo_first_instant(void **state)
{
    (void)state;
    ct_trace tr;
    /* a:0->1 b:0->2 c:0->3 d:4->1 e:5->1 f:4->6 (tests/fixtures/vectors/fig6_stopgo.txt) */
    parse("tasks 7\n"
          "isend 0 1 1M a\nisend 0 2 1M b\nisend 0 3 1M c\nwaitall 0\n"
          "isend 4 1 1M d\nisend 4 6 1M f\nwaitall 4\n"
          "send 5 1 1M e\n"
          "irecv 1 0\nirecv 1 4\nirecv 1 5\nwaitall 1\n"
          "recv 2 0\nrecv 3 0\nrecv 6 4\n",
          &tr);
    ct_layout l;
    one_per_node(&l, 7);
    ct_sim_params p = gige_params(0, 1e-9);
    p.model.kind = CT_MODEL_STOPGO;
    p.model.integer[CT_STOPGO_METHOD] = CT_STOPGO_EXACT;
    ct_sim_result r;
    simulate_ok(&tr, &l, &p, &r);
    const double want[6] = {5, 5, 5, 2.5, 2.5, 2.5}; /* comms in file order a b c d f e */
    const int order[6] = {0, 1, 2, 3, 5, 4};
    for (int i = 0; i < 6; i++)
        assert_true(fabs(r.comm[order[i]].p_start - want[i]) < 1e-12);
    ct_sim_result_free(&r);
    ct_layout_free(&l);
    ct_trace_free(&tr);
}

/* Compute events, rendez-vous and the accounting total = compute + comm. */
static void test_compute_and_blocking(void **state)
{
    (void)state;
    ct_layout l;
    one_per_node(&l, 2);
    ct_sim_params p = gige_params(0, 1e-6); /* 1 MB/s: 1000 bytes take 1 ms */
    ct_sim_result r;
    ct_trace tr;

    /* the sender computes first: the receiver waits in recv */
    parse("compute 0 1\nsend 0 1 1000\nrecv 1 0\n", &tr);
    simulate_ok(&tr, &l, &p, &r);
    assert_true(r.comm[0].send_post == 1.0 && r.comm[0].recv_post == 0.0);
    assert_true(r.comm[0].start == 1.0);
    REL_EQ(r.comm[0].end, 1.001, 1e-12);
    REL_EQ(r.task[0].compute, 1.0, 1e-15);
    REL_EQ(r.task[0].comm, 0.001, 1e-9);
    REL_EQ(r.task[1].comm, 1.001, 1e-12);
    assert_true(r.task[1].compute == 0.0);
    REL_EQ(ct_sim_comm_time(&r.comm[0]), 0.001, 1e-9);
    ct_sim_result_free(&r);
    ct_trace_free(&tr);

    /* rendez-vous: a blocking send waits for the receive to be posted */
    parse("send 0 1 1000\ncompute 1 2\nrecv 1 0\ncompute 0 0.5\n", &tr);
    simulate_ok(&tr, &l, &p, &r);
    assert_true(r.comm[0].start == 2.0);
    REL_EQ(ct_sim_comm_time(&r.comm[0]), 2.001, 1e-12); /* as measured at the source */
    REL_EQ(r.task[0].comm, 2.001, 1e-12);
    REL_EQ(r.task[0].total, 2.501, 1e-12);
    REL_EQ(r.task[0].total, r.task[0].compute + r.task[0].comm, 1e-12);
    ct_sim_result_free(&r);
    ct_trace_free(&tr);

    /* isend overlaps computation; waitall returns when both are done */
    parse("isend 0 1 1000\ncompute 0 0.0004\nwaitall 0\ncompute 0 1\nrecv 1 0\n", &tr);
    simulate_ok(&tr, &l, &p, &r);
    REL_EQ(r.comm[0].end, 0.001, 1e-12);
    REL_EQ(r.task[0].comm, 0.0006, 1e-9);
    REL_EQ(r.task[0].total, 1.001, 1e-12);
    ct_sim_result_free(&r);
    ct_trace_free(&tr);

    /* an isend never waited for completes at the task's end (MPI_Finalize) */
    parse("isend 0 1 1000\ncompute 1 3\nrecv 1 0\n", &tr);
    simulate_ok(&tr, &l, &p, &r);
    REL_EQ(r.task[0].total, 3.001, 1e-12);
    REL_EQ(r.task[0].comm, 3.001, 1e-12);
    ct_sim_result_free(&r);
    ct_trace_free(&tr);
    ct_layout_free(&l);
}

/* MPI matching: sends from one task are not overtaken; `any` takes the
 * oldest pending send. */
static void test_matching_order(void **state)
{
    (void)state;
    ct_layout l;
    one_per_node(&l, 3);
    ct_sim_params p = gige_params(0, 1e-6);
    ct_sim_result r;
    ct_trace tr;
    /* two messages 0 -> 1 of different sizes; the first recv gets the first */
    parse("tasks 3\nisend 0 1 1000 big\nisend 0 1 10 small\nwaitall 0\n"
          "compute 1 1\nrecv 1 0 1000\nrecv 1 0 10\n",
          &tr);
    simulate_ok(&tr, &l, &p, &r);
    assert_true(r.comm[0].start == 1.0);
    REL_EQ(r.comm[0].end, 1.001, 1e-12);
    assert_true(r.comm[1].start == r.comm[0].end); /* second recv posted after the first */
    ct_sim_result_free(&r);
    ct_trace_free(&tr);

    /* any-source: task 2's send is posted first (t=0), task 0's at t=1 */
    parse("compute 0 1\nsend 0 1 100 late\nsend 2 1 100 early\n"
          "compute 1 2\nrecv 1 any\nrecv 1 any\n",
          &tr);
    simulate_ok(&tr, &l, &p, &r);
    assert_true(r.comm[1].start == 2.0);
    assert_true(r.comm[0].start == r.comm[1].end);
    ct_sim_result_free(&r);
    ct_trace_free(&tr);

    /* a receive buffer smaller than the send is MPI_ERR_TRUNCATE */
    ct_err err = {{0}};
    parse("tasks 3\nsend 0 1 2K\nrecv 1 0 1K\n", &tr);
    assert_int_equal(ct_simulate(&tr, &l, &p, &r, &err), -1);
    assert_non_null(strstr(err.msg, "t.trace:2: send of 2048 bytes from task 0 matches the "
                                    "receive of task 1 on line 3 whose buffer holds 1024 bytes"));
    ct_trace_free(&tr);
    ct_layout_free(&l);
}

/* Replay text on l; its makespan and (when buffered is not NULL) its
 * buffered sends. Fails the test where the replay fails. */
static double replay_ok(const char *text, const ct_layout *l, const ct_sim_params *p,
                        size_t *buffered)
{
    ct_trace tr;
    ct_sim_result r;
    ct_err err = {{0}};
    parse(text, &tr);
    if (ct_simulate(&tr, l, p, &r, &err))
        fail_msg("%s", err.msg);
    double m = r.makespan;
    if (buffered)
        *buffered = r.buffered_sends;
    ct_sim_result_free(&r);
    ct_trace_free(&tr);
    return m;
}

/* Replay text on l, which must fail with a message holding want. */
static void replay_fails(const char *text, const ct_layout *l, const ct_sim_params *p,
                         const char *want)
{
    ct_trace tr;
    ct_sim_result r;
    ct_err err = {{0}};
    parse(text, &tr);
    assert_int_equal(ct_simulate(&tr, l, p, &r, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("got '%s', want '%s'", err.msg, want);
    ct_trace_free(&tr);
}

/* Blocking sends that would deadlock are buffered, as MPI buffers a
 * standard-mode send (simulate.c buffer_blocked_sends): two tasks that send
 * to each other before receiving both go on; a buffered send nobody receives
 * is an error naming it */
static void test_blocking_sends_buffered(void **state)
{
    (void)state;
    ct_layout l;
    one_per_node(&l, 2);
    ct_sim_params p = gige_params(0, 1e-6);
    size_t nb = 0;
    /* buffered at t = 0, then the two transfers share nothing (full duplex):
     * 1 ms each at 1 us a byte */
    double m = replay_ok("send 0 1 1000\nrecv 0 1\nsend 1 0 1000\nrecv 1 0\n", &l, &p, &nb);
    assert_int_equal(nb, 2);
    assert_true(fabs(m - 1e-3) < 1e-12);
    /* each isends to the other and waits for it before receiving */
    m = replay_ok("isend 0 1 1000\nwaitall 0\nrecv 0 1\nisend 1 0 1000\nwaitall 1\nrecv 1 0\n",
                  &l, &p, &nb);
    assert_int_equal(nb, 2);
    assert_true(fabs(m - 1e-3) < 1e-12);
    replay_fails("send 0 1 8\ncompute 1 1\n", &l, &p,
                 "t.trace:1: the send of 8 bytes from task 0 to task 1 is never received");
    ct_layout_free(&l);
}

/* MPI's matching key (trace-format.md "Tags and communicators"): messages
 * received by tag out of their send order pair as tagged; one line per pair
 * without tags would put 200 bytes into the 100-byte receive */
static void test_tags_match(void **state)
{
    (void)state;
    ct_layout l;
    one_per_node(&l, 2);
    ct_sim_params p = gige_params(0, 1e-6);
    double m = replay_ok("isend 0 1 100 tag=1\nisend 0 1 200 tag=2\nwaitall 0\n"
                         "recv 1 0 200 tag=2\nrecv 1 0 100 tag=1\n",
                         &l, &p, NULL);
    assert_true(fabs(m - 300e-6) < 1e-12); /* 300 bytes in a row at 1 us a byte */
    replay_fails("isend 0 1 100\nisend 0 1 200\nwaitall 0\nrecv 1 0 200\nrecv 1 0 100\n", &l, &p,
                 "whose buffer holds 100 bytes (MPI_ERR_TRUNCATE");
    /* any tag takes the first; another communicator's message is not matched
     * (buffered past the deadlock, it is never received) */
    replay_fails("comm pair 0-1\nisend 0 1 100 tag=1@pair\nwaitall 0\nrecv 1 0 tag=any\n", &l,
                 &p, "deadlock");
    replay_ok("comm pair 0-1\nisend 0 1 100 tag=1@pair\nwaitall 0\nrecv 1 0 tag=any@pair\n", &l,
              &p, NULL);
    ct_layout_free(&l);
}

static void test_deadlock_reported(void **state)
{
    (void)state;
    ct_layout l;
    one_per_node(&l, 3);
    ct_sim_params p = gige_params(0, 1e-6);
    ct_sim_result r;
    ct_trace tr;
    ct_err err = {{0}};
    /* (task 2 computes until t=1, when the last event runs out) */
    parse("recv 0 1\nsend 0 1 8\nrecv 1 0\nsend 1 0 8\ncompute 2 1\n", &tr);
    assert_int_equal(ct_simulate(&tr, &l, &p, &r, &err), -1);
    assert_non_null(strstr(err.msg, "t.trace: deadlock at t=1 s: 2 tasks blocked forever: "
                                    "task 0 in recv from 1 (line 1); task 1 in recv from 0 "
                                    "(line 3)"));
    assert_null(r.task);
    ct_trace_free(&tr);
    /* a send nobody receives: buffered past the deadlock, then reported */
    parse("isend 0 2 8\nwaitall 0\n", &tr);
    assert_int_equal(ct_simulate(&tr, &l, &p, &r, &err), -1);
    assert_non_null(strstr(err.msg, "t.trace:1: the send of 8 bytes from task 0 to task 2 is "
                                    "never received"));
    ct_trace_free(&tr);
    /* a receive nobody sends to is still a deadlock */
    parse("irecv 0 2\nwaitall 0\n", &tr);
    assert_int_equal(ct_simulate(&tr, &l, &p, &r, &err), -1);
    assert_non_null(strstr(err.msg, "task 0 in waitall with 1 unmatched requests (line 2)"));
    ct_trace_free(&tr);
    ct_layout_free(&l);
}

/* Intra-node communications run at intra_bw and stay off the network. */
static void test_intra_node(void **state)
{
    (void)state;
    ct_trace tr;
    /* tasks 0, 1 on node 0; task 2 on node 1 */
    parse("isend 0 1 1M local\nisend 0 2 1M remote\nwaitall 0\nrecv 1 0\nrecv 2 0\n", &tr);
    int32_t map[3] = {0, 0, 1};
    ct_layout l;
    ct_err err = {{0}};
    assert_int_equal(ct_layout_explicit(2, 3, map, &l, &err), 0);
    ct_sim_params p = gige_params(10e-6, 1e-8);
    p.intra_bw = 2e9;
    ct_sim_result r;
    simulate_ok(&tr, &l, &p, &r);
    REL_EQ(r.comm[0].end, 1048576.0 / 2e9, 1e-12);
    REL_EQ(r.comm[1].end, 10e-6 + 1048576.0 * 1e-8, 1e-12); /* penalty 1: alone on the NIC */
    assert_int_equal(r.nintra, 1);
    assert_int_equal(r.nremote, 1);
    assert_int_equal(r.comm[0].src_node, r.comm[0].dst_node);
    ct_sim_result_free(&r);
    p.intra_bw = 0; /* <= 0: intra-node time ignored */
    simulate_ok(&tr, &l, &p, &r);
    assert_true(r.comm[0].end == 0.0);
    ct_sim_result_free(&r);
    ct_layout_free(&l);
    ct_trace_free(&tr);
}

/* ------------------------------------------------------------ random */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double rnd01(void)
{
    return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* Rounds of: shifted-ring isend/irecv + random compute + waitall, then a
 * random set of blocking pairs. Deadlock-free by construction. Integer byte
 * counts keep every sum exact. */
static void random_trace(uint64_t seed, int32_t ntasks, int rounds, ct_trace *tr)
{
    ct_err err = {{0}};
    rng_state = seed;
    assert_int_equal(ct_trace_init(tr, "random", &err), 0);
    assert_int_equal(ct_trace_set_ntasks(tr, ntasks, 0, &err), 0);
    int32_t *perm = malloc((size_t)ntasks * sizeof *perm);
    for (int k = 0; k < rounds; k++) {
        int32_t shift = 1 + (int32_t)(rnd() % (uint64_t)(ntasks - 1));
        for (int32_t t = 0; t < ntasks; t++) {
            double bytes = (double)(1 + rnd() % 2000000);
            assert_int_equal(
                ct_trace_add_send(tr, t, (t + shift) % ntasks, bytes, 0, NULL, 0, &err), 0);
            assert_int_equal(
                ct_trace_add_recv(tr, t, (t - shift + ntasks) % ntasks, -1, 0, 0, &err), 0);
            if (rnd() % 2)
                assert_int_equal(ct_trace_add_compute(tr, t, rnd01() * 0.01, 0, &err), 0);
            assert_int_equal(ct_trace_add_waitall(tr, t, 0, &err), 0);
        }
        for (int32_t t = 0; t < ntasks; t++)
            perm[t] = t;
        for (int32_t t = ntasks - 1; t > 0; t--) {
            int32_t j = (int32_t)(rnd() % (uint64_t)(t + 1)), x = perm[t];
            perm[t] = perm[j];
            perm[j] = x;
        }
        for (int32_t i = 0; i + 1 < ntasks; i += 2) {
            if (rnd() % 3 == 0)
                continue;
            double bytes = (double)(rnd() % 500000);
            assert_int_equal(ct_trace_add_send(tr, perm[i], perm[i + 1], bytes, 1, NULL, 0, &err),
                             0);
            assert_int_equal(ct_trace_add_recv(tr, perm[i + 1], perm[i], -1, 1, 0, &err), 0);
        }
    }
    free(perm);
    assert_int_equal(ct_trace_finish(tr, &err), 0);
}

static void check_conservation(const ct_trace *tr, const ct_sim_result *r)
{
    assert_int_equal(r->events, tr->nevents);           /* no event lost */
    assert_true(r->bytes_delivered == tr->total_bytes); /* exact: integer bytes < 2^53 */
    assert_int_equal(r->nremote + r->nintra, tr->ncomm);
    int64_t sends = 0, recvs = 0;
    double makespan = 0;
    for (int32_t t = 0; t < r->ntasks; t++) {
        const ct_sim_task *k = &r->task[t];
        sends += k->sends;
        recvs += k->recvs;
        assert_true(fabs(k->total - (k->compute + k->comm)) <= 1e-9 * (1 + k->total));
        if (k->total > makespan)
            makespan = k->total;
    }
    assert_int_equal(sends, (int64_t)tr->ncomm);
    assert_int_equal(recvs, (int64_t)tr->ncomm);
    assert_true(r->makespan == makespan);
    for (size_t c = 0; c < tr->ncomm; c++) {
        const ct_sim_comm *x = &r->comm[c];
        const ct_event *e = ct_trace_comm_event(tr, c);
        assert_int_equal(x->src, tr->comm_src[c]);
        assert_int_equal(x->dst, e->peer);
        assert_true(x->bytes == e->value);
        assert_true(x->start == fmax(x->send_post, x->recv_post));
        assert_true(x->end >= x->start);
        /* a penalised transfer is never faster than alone */
        if (x->src_node != x->dst_node)
            assert_true(x->end - x->start >= x->alone * (1 - 1e-9));
    }
}

/* Conservation: every byte delivered, every event run, accounting consistent,
 * on random traces (fixed seeds) under every model and placement. */
static void test_conservation_random(void **state)
{
    (void)state;
    const uint64_t seeds[] = {1, 42, 20081001};
    const ct_model_kind kinds[] = {CT_MODEL_GIGE, CT_MODEL_FAIRSHARE, CT_MODEL_STOPGO,
                                   CT_MODEL_NONE};
    for (size_t s = 0; s < 3; s++) {
        ct_trace tr;
        random_trace(seeds[s], 24, 12, &tr);
        ct_alloc a;
        ct_err err = {{0}};
        assert_int_equal(ct_alloc_uniform(8, 4, &a, &err), 0);
        ct_layout l;
        ct_dist dist = s == 0 ? CT_DIST_BLOCK : s == 1 ? CT_DIST_CYCLIC : CT_DIST_RANDOM;
        assert_int_equal(ct_layout_build(&a, 24, 1, dist, 1, seeds[s], &l, &err), 0);
        for (size_t k = 0; k < 4; k++) {
            ct_sim_params p = gige_params(20e-6, 1e-8);
            p.intra_bw = 3e9;
            p.model.kind = kinds[k];
            ct_sim_result r;
            simulate_ok(&tr, &l, &p, &r);
            check_conservation(&tr, &r);
            assert_true(r.peak_inflight > 1);
            ct_sim_result_free(&r);
        }
        ct_layout_free(&l);
        ct_alloc_free(&a);
        ct_trace_free(&tr);
    }
}

/* The incremental GigE engine gives the same replay as re-evaluating each
 * changed component with ct_gige_penalties (both p_i readings). */
static void test_incremental_replay_equals_reference(void **state)
{
    (void)state;
    ct_trace tr;
    random_trace(7, 32, 15, &tr);
    ct_alloc a;
    ct_err err = {{0}};
    assert_int_equal(ct_alloc_uniform(8, 4, &a, &err), 0);
    ct_layout l;
    assert_int_equal(ct_layout_build(&a, 32, 1, CT_DIST_RANDOM, 1, 99, &l, &err), 0);
    for (unsigned flags = 0; flags <= CT_GIGE_LITERAL_PI; flags += CT_GIGE_LITERAL_PI) {
        ct_sim_params p = gige_params(20e-6, 1e-8);
        p.model.integer[CT_GIGE_FLAGS] = flags;
        ct_sim_result inc, ref;
        simulate_ok(&tr, &l, &p, &inc);
        simulate_ok_as(&tr, &l, &p, 1, &ref);
        for (size_t c = 0; c < tr.ncomm; c++) {
            /* same arithmetic on the same penalties: agreement to rounding */
            assert_true(fabs(inc.comm[c].end - ref.comm[c].end) <= 1e-9 * ref.comm[c].end);
            assert_true(fabs(inc.comm[c].p_start - ref.comm[c].p_start) <= 1e-12);
            assert_int_equal(inc.comm[c].conflict, ref.comm[c].conflict);
        }
        assert_true(inc.penalty_evals <= ref.penalty_evals);
        ct_sim_result_free(&inc);
        ct_sim_result_free(&ref);
    }
    ct_layout_free(&l);
    ct_alloc_free(&a);
    ct_trace_free(&tr);
}

/* The engine's incremental GigE state (engine.h, through the model's hooks,
 * model.h) == ct_gige_penalties on random snapshots: random additions and
 * removals on a few nodes (many conflicts), compared after every change. */
static void test_incremental_gige_snapshots(void **state)
{
    (void)state;
    rng_state = 12345;
    for (unsigned flags = 0; flags <= CT_GIGE_LITERAL_PI; flags += CT_GIGE_LITERAL_PI) {
        ct_penalty_model m = CT_GIGE_MODEL(BETA, GAMMA_I, GAMMA_O);
        m.integer[CT_GIGE_FLAGS] = flags;
        const model_ops *ops = model_ops_of(CT_MODEL_GIGE);
        for (int trial = 0; trial < 20; trial++) {
            int32_t nn = 2 + (int32_t)(rnd() % 9);
            eng e;
            assert_int_equal(eng_init(&e, nn, &m, 0), 0);
            assert_true(e.incremental && ops->inc_commit);
            int32_t live[64], src[64], dst[64];
            double p[64]; /* by handle: the penalty the engine applied */
            int nlive = 0, next = 0, freeh[64], nfree = 0;
            for (int step = 0; step < 150; step++) {
                if (nlive > 0 && (nlive == 64 || rnd() % 3 == 0)) {
                    int i = (int)(rnd() % (uint64_t)nlive);
                    assert_int_equal(gnet_unlink(&e.g, live[i]), 0);
                    freeh[nfree++] = live[i];
                    live[i] = live[nlive - 1];
                    src[i] = src[nlive - 1];
                    dst[i] = dst[nlive - 1];
                    nlive--;
                } else {
                    int32_t s = (int32_t)(rnd() % (uint64_t)nn), d;
                    do
                        d = (int32_t)(rnd() % (uint64_t)nn);
                    while (d == s);
                    live[nlive] = nfree ? freeh[--nfree] : next++;
                    assert_int_equal(gnet_reserve(&e.g, (size_t)next), 0);
                    assert_int_equal(gnet_link(&e.g, live[nlive], s, d, 1), 0);
                    src[nlive] = s;
                    dst[nlive] = d;
                    nlive++;
                }
                assert_int_equal(ops->inc_commit(&e.g), 0);
                for (size_t j = 0; j < e.g.ntouched; j++)
                    p[e.g.touched[j]] = e.g.tpen[j];
                ct_comm arcs[64];
                for (int i = 0; i < nlive; i++)
                    arcs[i] = (ct_comm){.src = src[i], .dst = dst[i], .mult = 1, .bytes = 1};
                ct_graph gr = {.nnodes = nn, .ncomm = (size_t)nlive, .cap = 64, .comm = arcs};
                double pen[64];
                ct_err err = {{0}};
                assert_int_equal(
                    ct_gige_penalties_ex(BETA, GAMMA_I, GAMMA_O, flags, &gr, NULL, pen, &err), 0);
                for (int i = 0; i < nlive; i++) {
                    double got = p[live[i]];
                    if (fabs(got - pen[i]) > 1e-12) /* same formula: rounding only */
                        fail_msg("flags %u trial %d step %d comm %d->%d: incremental %.15g, "
                                 "ct_gige_penalties %.15g",
                                 flags, trial, step, src[i], dst[i], got, pen[i]);
                }
            }
            eng_free(&e);
        }
    }
    eng e0;
    assert_true(eng_init(&e0, 0, &(ct_penalty_model){.kind = CT_MODEL_GIGE}, 0) == -1);
}

/* Inputs the engine refuses, with a message naming the value. */
static void test_rejected_inputs(void **state)
{
    (void)state;
    ct_trace tr;
    parse("send 0 1 8\nrecv 1 0\n", &tr);
    ct_layout l;
    one_per_node(&l, 3);
    ct_sim_params p = gige_params(0, 1e-9);
    ct_sim_result r;
    ct_err err = {{0}};
    /* 3-task placement for a 2-task trace */
    assert_int_equal(ct_simulate(&tr, &l, &p, &r, &err), -1);
    assert_non_null(strstr(err.msg, "placement has 3 tasks, the trace 2"));
    ct_layout_free(&l);
    one_per_node(&l, 2);
    p.beta = -1;
    assert_int_equal(ct_simulate(&tr, &l, &p, &r, &err), -1);
    assert_non_null(strstr(err.msg, "beta=-1"));
    p = gige_params(0, 1e-9);
    p.model.real[CT_GIGE_SKEW_OUT] = 1.5;
    assert_int_equal(ct_simulate(&tr, &l, &p, &r, &err), -1);
    assert_non_null(strstr(err.msg, "gamma_o = 1.5"));
    /* the step terms (doc/simulator.md "Steps") */
    p = gige_params(0, 1e-9);
    p.bucket = -1;
    assert_int_equal(ct_simulate(&tr, &l, &p, &r, &err), -1);
    assert_non_null(strstr(err.msg, "bucket=-1 bytes"));
    p.bucket = 1e5;
    p.exchange = NAN;
    assert_int_equal(ct_simulate(&tr, &l, &p, &r, &err), -1);
    assert_non_null(strstr(err.msg, "exchange=nan s"));
    /* evaluation needs per-communication results */
    p = gige_params(0, 1e-9);
    p.keep_comms = 0;
    simulate_ok(&tr, &l, &p, &r);
    assert_null(r.comm);
    double m[1] = {1.0};
    ct_sim_eval ev;
    assert_int_equal(ct_sim_evaluate(&r, m, &ev, &err), -1);
    ct_sim_result_free(&r);
    ct_layout_free(&l);
    ct_trace_free(&tr);
}

/* ------------------------------------------------- contention-admin simulate */

typedef struct cli_out {
    int rc;
    char out[65536];
    char err[4096];
} cli_out;

static void slurp(FILE *f, char *buf, size_t n)
{
    rewind(f);
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
}

/* Run cmd_simulate with stdout and stderr captured. */
static void run_cli(cli_out *o, int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    FILE *fo = tmpfile(), *fe = tmpfile();
    assert_non_null(fo);
    assert_non_null(fe);
    int so = dup(1), se = dup(2);
    dup2(fileno(fo), 1);
    dup2(fileno(fe), 2);
    o->rc = cmd_simulate(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    slurp(fo, o->out, sizeof o->out);
    slurp(fe, o->err, sizeof o->err);
}

/* The number after "key": inside the JSON object that holds "label": "lab". */
static double json_field(const char *json, const char *lab, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"label\": \"%s\"", lab);
    const char *p = strstr(json, pat);
    assert_non_null(p);
    const char *end = strchr(p, '}');
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *q = strstr(p, pat);
    assert_true(q && q < end);
    return strtod(q + strlen(pat), NULL);
}

/* Fig. 4 through the front end, with a fabric whose t_ref is the paper's. */
static void test_cli_fig4(void **state)
{
    (void)state;
    fig4_row rows[8];
    double t_ref;
    assert_int_equal(load_fig4(rows, &t_ref), 6);
    char *argv[] = {"simulate",    TRACES "/fig4_gige.trace",
                    "--config",    TRACES "/paper001_gige.yaml",
                    "--nodes",     "7",
                    "--cores",     "1",
                    "--placement", "rrn",
                    "--measured",  TRACES "/fig4_gige.measured",
                    "--json",      NULL};
    static cli_out o;
    run_cli(&o, 13, argv);
    if (o.rc != 0)
        fail_msg("rc %d: %s", o.rc, o.err);
    for (int c = 0; c < 6; c++) {
        double tp = json_field(o.out, rows[c].name, "time");
        assert_true(fabs(tp - rows[c].printed) <= 0.0005 + 1e-12); /* printed to 3 decimals */
        double e = json_field(o.out, rows[c].name, "e_rel");
        double want = (rows[c].completion * t_ref - rows[c].measured) / rows[c].measured * 100;
        assert_true(fabs(e - want) < 0.01); /* % points; bandwidth given to 9 digits */
    }
    assert_non_null(strstr(o.out, "\"model\": \"gige\""));
    assert_non_null(strstr(o.out, "\"e_abs_graph\": "));

    /* the text form names the §IV-A kinds and the errors */
    char *argv2[] = {"simulate",
                     TRACES "/fig4_gige.trace",
                     "--config",
                     TRACES "/paper001_gige.yaml",
                     "--cpus-per-node",
                     "1(x7)",
                     "--measured",
                     TRACES "/fig4_gige.measured",
                     NULL};
    run_cli(&o, 8, argv2);
    assert_int_equal(o.rc, 0);
    assert_non_null(strstr(o.out, "out+in"));
    assert_non_null(strstr(o.out, "E_abs(G)"));
}

/* A fabric with the step terms (doc/simulator.md "Steps"): the front end
 * says it replays with them, in text and JSON; fig2's three transfers from
 * one node start at once (one step: 20 MiB each, alone 100 us + 20 MiB /
 * 12.5 MB/s, the bytes' time three times under fair share and the latency
 * once (session 56); then the exchange step,
 * -2 ms, and the refill of a 128 KiB bucket idle since ever against
 * calibrate's 2 ms pause: (131072 - 25000) B / 12.5 MB/s = 8.486 ms
 * earlier). */
static void test_cli_steps(void **state)
{
    (void)state;
    static cli_out o;
    char *argv[] = {"simulate", TRACES "/fig2_fanout.trace", "--config",
                    CT_FIXTURES "/signatures/valid_bucket.yaml", "--nodes", "4", "--cores", "1",
                    "--summary", NULL};
    run_cli(&o, 9, argv);
    if (o.rc != 0)
        fail_msg("rc %d: %s", o.rc, o.err);
    if (!strstr(o.out, "steps     exchange step -2 ms, bucket 128 KiB refilled in 2 ms before "
                       "calibrate's calls"))
        fail_msg("no steps line: %s", o.out);
    if (!strstr(o.out, "model fairshare, each transfer's alpha once, outside the penalty\n"))
        fail_msg("the latency once is not said: %s", o.out);
    char *argv2[] = {"simulate", TRACES "/fig2_fanout.trace", "--config",
                     CT_FIXTURES "/signatures/valid_bucket.yaml", "--nodes", "4", "--cores", "1",
                     "--json", NULL};
    run_cli(&o, 9, argv2);
    assert_int_equal(o.rc, 0);
    assert_non_null(strstr(o.out, "\"exchange\": -0.002"));
    assert_non_null(strstr(o.out, "\"bucket\": 131072"));
    const char *m = strstr(o.out, "\"makespan\": ");
    assert_non_null(m);
    /* fairshare: the three share the NIC's bandwidth, their 100 us latency
     * runs once (session 56) */
    double want = 100e-6 + 3 * (20 * 1048576 / 12.5e6) - 2e-3 - (131072 - 25000) / 12.5e6;
    double got = strtod(m + strlen("\"makespan\": "), NULL);
    if (fabs(got - want) > 1e-9)
        fail_msg("makespan %.12g s (expected %.12g)", got, want);
}

/* contention-admin simulate on cross_leaf.trace with the given config, hosts
 * (NULL: no --nodelist) and output form (getopt permutes argv: built anew) */
static void run_tree(cli_out *o, const char *sig, const char *hosts, const char *form)
{
    char *a[16] = {"simulate", TRACES "/cross_leaf.trace", "--config", (char *)sig,
                   "--nodes",  "4", "--cores", "1", "--placement", "rrn", (char *)form};
    int n = 11;
    if (hosts) {
        a[n++] = "--nodelist";
        a[n++] = (char *)hosts;
    }
    a[n] = NULL;
    run_cli(o, n, a);
}

/* --nodelist routes the replay over the fabric's switch tree (issue 14):
 * two 1 MiB transfers from the nodes under leaf1 to those under leaf2 share
 * leaf1's uplink of half a NIC (valid_topology.yaml), max-min fair share:
 * a quarter NIC each, penalty 4 on the bytes' time, alpha + 4 m beta (the
 * latency once: fairshare's latency_once, session 56; 001 prices 4 (alpha +
 * m beta)), an effective penalty of (alpha + 4 m beta) / (alpha + m beta);
 * without the tree, or on a fabric without one, each runs alone. */
static void test_cli_tree(void **state)
{
    (void)state;
    static cli_out o;
    const char *sig = CT_SOURCE_ROOT "/tests/fixtures/signatures/valid_topology.yaml";
    run_tree(&o, sig, "n[1-4]", "--json");
    if (o.rc != 0)
        fail_msg("rc %d: %s", o.rc, o.err);
    const double m = 1048576, alpha = 100e-6, beta = 1 / 12.5e6;
#define PEFF(p) ((alpha + (p) * m * beta) / (alpha + m * beta))
    assert_true(fabs(json_field(o.out, "a", "p_eff") - PEFF(4)) < 1e-9);
    assert_true(fabs(json_field(o.out, "b", "p_eff") - PEFF(4)) < 1e-9);
    assert_true(fabs(json_field(o.out, "a", "time") - (alpha + 4 * m * beta)) < 1e-9);
    assert_non_null(strstr(o.out, "\"leaves\": 2, \"node_leaf\": [{\"host\": \"n1\", \"leaf\": "
                                  "\"leaf1\"}"));
    /* hosts in another order: n3 n4 under leaf2 send, to n1 n2 under leaf1,
     * whose downlink is the same half NIC */
    run_tree(&o, sig, "n3,n4,n1,n2", "--json");
    assert_int_equal(o.rc, 0);
    assert_true(fabs(json_field(o.out, "a", "p_eff") - PEFF(4)) < 1e-9);
    /* n3 -> n4 and n1 -> n2 under one leaf each: no uplink, alone */
    run_tree(&o, sig, "n3,n1,n4,n2", "--json");
    assert_int_equal(o.rc, 0);
    assert_true(fabs(json_field(o.out, "a", "p_eff") - 1) < 1e-9);
    /* n1 -> n3 up leaf1, n4 -> n2 up leaf2 (2:1 of two NICs: one NIC):
     * one flow on each uplink and downlink, leaf1's half NIC holds a at 2 */
    run_tree(&o, sig, "n1,n4,n3,n2", "--json");
    assert_int_equal(o.rc, 0);
    assert_true(fabs(json_field(o.out, "a", "p_eff") - PEFF(2)) < 1e-9);
    assert_true(fabs(json_field(o.out, "b", "p_eff") - PEFF(2)) < 1e-9);
    /* one switch: alone */
    run_tree(&o, sig, NULL, "--json");
    assert_int_equal(o.rc, 0);
    assert_true(fabs(json_field(o.out, "a", "time") - (alpha + m * beta)) < 1e-9);
    assert_null(strstr(o.out, "\"leaves\""));
    /* the text form names each host's leaf */
    run_tree(&o, sig, "n[1-4]", "--summary");
    assert_int_equal(o.rc, 0);
    assert_non_null(strstr(o.out, "tree      2 leaves: n1(leaf1) n2(leaf1) n3(leaf2) n4(leaf2)"));
    /* refusals: a host count that is not the cluster's, a host the tree lacks */
    run_tree(&o, sig, "n[1-3]", "--summary");
    assert_int_equal(o.rc, ADMIN_USAGE);
    assert_non_null(strstr(o.err, "--nodelist 'n[1-3]' names 3 hosts but the cluster has 4 nodes"));
    run_tree(&o, sig, "n[1-3],n7", "--summary");
    assert_int_equal(o.rc, ADMIN_INVALID);
    assert_non_null(strstr(o.err, "node 'n7' is not in the fabric's topology"));
    /* a fabric without a tree: said, and one switch */
    run_tree(&o, CT_SOURCE_ROOT "/conf/signatures.yaml", "n[1-4]", "--summary");
    assert_int_equal(o.rc, 0);
    assert_non_null(strstr(o.out, "tree      none: the fabric has no topology section"));
#undef PEFF
}

static void test_cli_errors(void **state)
{
    (void)state;
    static cli_out o;
    const char *cfg = CT_SOURCE_ROOT "/conf/signatures.yaml";
    /* usage: no cluster */
    char *a1[] = {"simulate", TRACES "/tree.trace", "--config", (char *)cfg, NULL};
    run_cli(&o, 4, a1);
    assert_int_equal(o.rc, ADMIN_USAGE);
    assert_non_null(strstr(o.err, "the cluster is required"));
    /* usage: unknown placement */
    char *a2[] = {"simulate", TRACES "/tree.trace", "--nodes", "9", "--cores",
                  "1",        "--placement",        "zigzag",  NULL};
    run_cli(&o, 8, a2);
    assert_int_equal(o.rc, ADMIN_USAGE);
    assert_non_null(strstr(o.err, "--placement 'zigzag' (accepted: rrp, rrn, random"));
    /* invalid: a malformed trace, reported at its line */
    char *a3[] = {"simulate", TRACES "/bad/unknown_event.trace",
                  "--config", (char *)cfg,
                  "--nodes",  "2",
                  "--cores",  "1",
                  NULL};
    run_cli(&o, 8, a3);
    assert_int_equal(o.rc, ADMIN_INVALID);
    assert_non_null(strstr(o.err, "bad/unknown_event.trace:3:1: unknown event 'sendd'"));
    /* invalid: GigE asked of a Stop & Go fabric */
    char *a4[] = {"simulate", TRACES "/tree.trace",
                  "--config", (char *)cfg,
                  "--fabric", "myrinet_gm",
                  "--model",  "gige",
                  "--nodes",  "9",
                  "--cores",  "1",
                  NULL};
    run_cli(&o, 12, a4);
    assert_int_equal(o.rc, ADMIN_INVALID);
    assert_non_null(strstr(o.err, "fabric 'myrinet_gm' has no GigE parameters"));
    /* invalid: more tasks than CPUs */
    char *a5[] = {
        "simulate", TRACES "/tree.trace", "--config", (char *)cfg, "--nodes", "2", "--cores", "2",
        NULL};
    run_cli(&o, 8, a5);
    assert_int_equal(o.rc, ADMIN_INVALID);
    /* a list placement that overfills a node */
    char list[] = "/tmp/ct-test-simulate-list-XXXXXX";
    int fd = mkstemp(list);
    assert_true(fd >= 0);
    const char *text = "0 0\n1 0\n2 1\n3 1\n4 1\n";
    assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    char place[128];
    snprintf(place, sizeof place, "list:%s", list);
    char *a6[] = {"simulate",    TRACES "/complete.trace",
                  "--config",    (char *)cfg,
                  "--nodes",     "3",
                  "--cores",     "2",
                  "--placement", place,
                  NULL};
    run_cli(&o, 10, a6);
    unlink(list);
    assert_int_equal(o.rc, ADMIN_INVALID);
    assert_non_null(strstr(o.err, "places 3 tasks on node 1, which has 2 CPUs"));
    /* --help */
    char *a7[] = {"simulate", "--help", NULL};
    run_cli(&o, 2, a7);
    assert_int_equal(o.rc, ADMIN_OK);
    assert_non_null(strstr(o.out, "--placement"));
}

/* The shipped synthetic graphs under each model: all bytes through, and the
 * complete graph (every node in every kind of conflict) penalised more than
 * the tree on every model but none. */
static void test_cli_synthetic_graphs(void **state)
{
    (void)state;
    static const char *models[] = {"gige", "stopgo", "fairshare", "none"};
    double mean[2][4];
    for (int g = 0; g < 2; g++) {
        for (int m = 0; m < 4; m++) {
            char *argv[] = {"simulate", g ? TRACES "/complete.trace" : TRACES "/tree.trace",
                            "--config", CT_SOURCE_ROOT "/conf/signatures.yaml",
                            "--fabric", "gigabit_ethernet",
                            "--nodes",  g ? "5" : "9",
                            "--cores",  "1",
                            "--model",  (char *)models[m],
                            "--json",   "--summary",
                            NULL};
            static cli_out o;
            run_cli(&o, 14, argv);
            if (o.rc != 0)
                fail_msg("%s: %s", models[m], o.err);
            const char *p = strstr(o.out, "\"mean_p_eff\": ");
            assert_non_null(p);
            mean[g][m] = strtod(p + 14, NULL);
            assert_null(strstr(o.out, "per_comm"));
        }
    }
    for (int m = 0; m < 3; m++)
        assert_true(mean[1][m] > mean[0][m]);
    assert_true(mean[0][3] == 1.0 && mean[1][3] == 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_comm_is_hockney),
        cmocka_unit_test(test_two_outgoing_gige),
        cmocka_unit_test(test_fig2_fanout),
        cmocka_unit_test(test_fig4_gige),
        cmocka_unit_test(test_fig6_stopgo_first_instant),
        cmocka_unit_test(test_compute_and_blocking),
        cmocka_unit_test(test_matching_order),
        cmocka_unit_test(test_deadlock_reported),
        cmocka_unit_test(test_blocking_sends_buffered),
        cmocka_unit_test(test_tags_match),
        cmocka_unit_test(test_intra_node),
        cmocka_unit_test(test_conservation_random),
        cmocka_unit_test(test_incremental_replay_equals_reference),
        cmocka_unit_test(test_incremental_gige_snapshots),
        cmocka_unit_test(test_rejected_inputs),
        cmocka_unit_test(test_cli_fig4),
        cmocka_unit_test(test_cli_steps),
        cmocka_unit_test(test_cli_errors),
        cmocka_unit_test(test_cli_tree),
        cmocka_unit_test(test_cli_synthetic_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
