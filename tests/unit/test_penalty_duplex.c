/* Duplex-coupled fair share (penalty_duplex.c, our extension) and the fit of
 * its coupling δ from the 2 x 1 Alltoall (ct_fit_duplex, calibrate.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contention/calibrate.h"
#include "contention/models.h"
#include "contention/penalty.h"

#define TOL 1e-12

/* Two nodes sending to each other: x + δ·x = 1 at both ends -> penalty 1 + δ;
 * a pure sender (node 2 -> 3, 3 receives only) is not slowed by δ. */
static void test_exchange_and_pure_sender(void **state)
{
    (void)state;
    double ds[] = {0, 0.1, 0.5, 1};
    for (int t = 0; t < 4; t++) {
        ct_graph g;
        ct_graph_init(&g, 4, NULL);
        ct_graph_add(&g, 0, 1, 1, 1.0, NULL);
        ct_graph_add(&g, 1, 0, 1, 1.0, NULL);
        ct_graph_add(&g, 2, 3, 2, 1.0, NULL); /* two flows one way: 1/2 each, any δ */
        double p[3];
        assert_int_equal(ct_duplex_penalties_ex(ds[t], &g, NULL, p, NULL), 0);
        assert_true(fabs(p[0] - (1 + ds[t])) < TOL && fabs(p[1] - (1 + ds[t])) < TOL);
        assert_true(fabs(p[2] - 2.0) < TOL);
        ct_graph_free(&g);
    }
}

/* A ring over n nodes (everyone sends one, receives one): 1 + δ; half duplex
 * (δ = 1) with k flows each way between two nodes: 2k, as the 256 KiB-bucket
 * network measured (doc/accuracy.md: 4 x 4 halves as block, 8.0 x T_alone). */
static void test_ring_and_half_duplex(void **state)
{
    (void)state;
    ct_graph g;
    ct_graph_init(&g, 4, NULL);
    for (int v = 0; v < 4; v++)
        ct_graph_add(&g, v, (v + 1) % 4, 1, 1.0, NULL);
    double p[4];
    assert_int_equal(ct_duplex_penalties_ex(0.3, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 4; i++)
        assert_true(fabs(p[i] - 1.3) < TOL);
    ct_graph_free(&g);
    ct_graph_init(&g, 2, NULL);
    ct_graph_add(&g, 0, 1, 4, 1.0, NULL);
    ct_graph_add(&g, 1, 0, 4, 1.0, NULL);
    assert_int_equal(ct_duplex_penalties_ex(1.0, &g, NULL, p, NULL), 0);
    assert_true(fabs(p[0] - 8.0) < TOL && fabs(p[1] - 8.0) < TOL);
    /* inactive arcs get 0 and do not count: one direction alone is 4 */
    unsigned char act[2] = {1, 0};
    assert_int_equal(ct_duplex_penalties_ex(1.0, &g, act, p, NULL), 0);
    assert_true(fabs(p[0] - 4.0) < TOL && p[1] == 0.0);
    ct_graph_free(&g);
}

/* The incast term (our extension): each arc's penalty x (1 + ε (k - 1)), k =
 * the larger of its source's distinct destination nodes and its
 * destination's distinct source nodes, a NIC direction with slack (one of its
 * arcs' other end has a single peer that way) counting 1; ε from the
 * Alltoall's gamma(k) (ct_duplex_incast). */
static void test_incast_term(void **state)
{
    (void)state;
    const double eps = 0.15;
    /* a ring of 4 nodes exchanging both ways (a 2 x 2 halo): every NIC has 2
     * peers, each with 2: every arc pays 1 + ε */
    ct_graph g;
    ct_graph_init(&g, 4, NULL);
    const int ring[4][2] = {{0, 1}, {1, 3}, {3, 2}, {2, 0}};
    for (int e = 0; e < 4; e++) {
        ct_graph_add(&g, ring[e][0], ring[e][1], 1, 1.0, NULL);
        ct_graph_add(&g, ring[e][1], ring[e][0], 1, 1.0, NULL);
    }
    double p0[12], p[12];
    assert_int_equal(ct_duplex_penalties_ex(0.2, &g, NULL, p0, NULL), 0);
    assert_int_equal(ct_duplex_penalties_k(0.2, 0.0, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 8; i++)
        assert_true(p[i] == p0[i]); /* ε = 0: bit for bit */
    assert_int_equal(ct_duplex_penalties_k(0.2, eps, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 8; i++)
        assert_true(fabs(p[i] - p0[i] * (1 + eps)) < TOL * p0[i]);
    /* inactive arcs do not count: without 0 <-> 1, nodes 0 and 1 have one
     * peer each, so every NIC on the remaining path 0 - 2 - 3 - 1 has slack
     * or one peer: no term */
    unsigned char act[8] = {0, 0, 1, 1, 1, 1, 1, 1};
    assert_int_equal(ct_duplex_penalties_ex(0.2, &g, act, p0, NULL), 0);
    assert_int_equal(ct_duplex_penalties_k(0.2, eps, &g, act, p, NULL), 0);
    for (int i = 2; i < 8; i++)
        assert_true(p[i] == p0[i]);
    assert_true(p[0] == 0.0 && p[1] == 0.0);
    ct_graph_free(&g);

    /* a line of 4 nodes exchanging both ways (block's halo across nodes):
     * nodes 1 and 2 have 2 peers, but each has an end node (1 peer) among
     * them, which takes up the slack: no term anywhere (the max rule of
     * session 4 charged every arc of nodes 1 and 2) */
    ct_graph_init(&g, 4, NULL);
    for (int a = 0; a < 3; a++) {
        ct_graph_add(&g, a, a + 1, 1, 1.0, NULL);
        ct_graph_add(&g, a + 1, a, 1, 1.0, NULL);
    }
    assert_int_equal(ct_duplex_penalties_ex(0.2, &g, NULL, p0, NULL), 0);
    assert_int_equal(ct_duplex_penalties_k(0.2, eps, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 6; i++)
        assert_true(p[i] == p0[i]);
    ct_graph_free(&g);

    /* an Alltoall over 4 nodes: 3 peers everywhere, 1 + 2 ε */
    ct_graph_init(&g, 4, NULL);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            if (a != b)
                ct_graph_add(&g, a, b, 1, 1.0, NULL);
    assert_int_equal(ct_duplex_penalties_ex(0.2, &g, NULL, p0, NULL), 0);
    assert_int_equal(ct_duplex_penalties_k(0.2, eps, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 12; i++)
        assert_true(fabs(p[i] - p0[i] * (1 + 2 * eps)) < TOL * p0[i]);

    ct_graph_free(&g);

    /* one sender to 3 nodes that hear from nobody else (a scatter): the
     * receivers have one peer, slack, no term; 3 senders into one node that
     * send nowhere else (a gather): likewise (this network's in-3 conflict
     * scheme runs below its fair share, calibrate's "overlap floor") */
    for (int gather = 0; gather < 2; gather++) {
        ct_graph_init(&g, 4, NULL);
        for (int b = 1; b < 4; b++)
            ct_graph_add(&g, gather ? b : 0, gather ? 0 : b, 1, 1.0, NULL);
        assert_int_equal(ct_duplex_penalties_ex(0.2, &g, NULL, p0, NULL), 0);
        assert_int_equal(ct_duplex_penalties_k(0.2, eps, &g, NULL, p, NULL), 0);
        for (int i = 0; i < 3; i++)
            assert_true(p[i] == p0[i]);
        ct_graph_free(&g);
    }
    ct_graph_init(&g, 4, NULL);
    ct_graph_add(&g, 0, 1, 1, 1.0, NULL);
    /* refusals */
    ct_err err;
    assert_int_equal(ct_duplex_penalties_k(0.2, -0.1, &g, NULL, p, &err), -1);
    assert_non_null(strstr(err.msg, "duplex_incast = -0.1"));
    assert_int_equal(ct_duplex_penalties_k(0.2, NAN, &g, NULL, p, &err), -1);
    ct_graph_free(&g);

    /* an Alltoall on 4 nodes (k = 3) against the 2-node exchange (k = 1) at
     * δ = 0: 3 (1 + 2 ε) / 1 = 3 gamma(3) / gamma(1) of alltoall.h */
    ct_a2a_sig sig = {.gamma = 1.25, .gamma_incast = 0.1, .delta = 0, .M = 0};
    double e = ct_duplex_incast(&sig);
    assert_true(fabs(e - 0.08) < TOL);
    ct_graph_init(&g, 4, NULL);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            if (a != b)
                ct_graph_add(&g, a, b, 1, 1.0, NULL);
    double q[12];
    assert_int_equal(ct_duplex_penalties_k(0.0, e, &g, NULL, q, NULL), 0);
    double g3 = sig.gamma + 2 * sig.gamma_incast, g1 = sig.gamma;
    for (int i = 0; i < 12; i++)
        assert_true(fabs(q[i] - 3 * g3 / g1) < 1e-12);
    ct_graph_free(&g);
    /* no incast fitted, or no gamma: 0 */
    sig.gamma_incast = 0;
    assert_true(ct_duplex_incast(&sig) == 0);
    sig.gamma = 0;
    sig.gamma_incast = 0.1;
    assert_true(ct_duplex_incast(&sig) == 0);
    assert_true(ct_duplex_incast(NULL) == 0);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* δ = 0 is the fair-share baseline bit for bit; for δ > 0 no node's coupled
 * constraint is exceeded, every flow has a full constraint on which it has
 * the highest rate (max-min), and the slowest flow slows as δ grows. */
/* The incast term held beyond the largest degree it was fitted on (our
 * extension, session 17, as alltoall.h's k_max): an Alltoall over 6 nodes
 * (k = 5) priced with k_max = 3 pays 1 + 2 ε, as 4 nodes do; k_max = 0 is
 * no limit (1 + 4 ε); a k_max above every degree changes nothing, one below
 * 1 leaves no term; the
 * registry reads the key duplex_incast_max_k; bad values are refused. */
/* A cyclic ring on 4 nodes x 4 tasks: each node sends 4 messages to the
 * next node and receives 4 from the previous one (one arc, mult 4). */
static void cyclic_ring4(ct_graph *g)
{
    ct_graph_init(g, 4, NULL);
    for (int a = 0; a < 4; a++)
        ct_graph_add(g, a, (a + 1) % 4, 4, 1.0, NULL);
}

/* Through the registry, as a signature file sets it: m passes the model
 * check and prices each of g's n arcs at p0[i] x factor. */
static void registry_prices(const ct_penalty_model *m, const ct_graph *g, const double *p0,
                            size_t n, double factor)
{
    ct_err err;
    double p[64];
    assert_true(n <= 64);
    assert_int_equal(ct_model_check(m, &err), 0);
    assert_int_equal(ct_penalties(m, g, p, &err), 0);
    for (size_t i = 0; i < n; i++)
        assert_true(fabs(p[i] - p0[i] * factor) < TOL * p0[i]);
}

static void test_incast_held_at_kmax(void **state)
{
    (void)state;
    const double eps = 0.15;
    ct_graph g;
    ct_graph_init(&g, 6, NULL);
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            if (a != b)
                ct_graph_add(&g, a, b, 1, 1.0, NULL);
    double p0[30], p[30];
    assert_int_equal(ct_duplex_penalties_ex(0.2, &g, NULL, p0, NULL), 0);
    assert_int_equal(ct_duplex_penalties_kmax(0.2, eps, 0.0, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 30; i++)
        assert_true(fabs(p[i] - p0[i] * (1 + 4 * eps)) < TOL * p0[i]);
    assert_int_equal(ct_duplex_penalties_kmax(0.2, eps, 3.0, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 30; i++)
        assert_true(fabs(p[i] - p0[i] * (1 + 2 * eps)) < TOL * p0[i]);
    assert_int_equal(ct_duplex_penalties_kmax(0.2, eps, 7.0, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 30; i++)
        assert_true(fabs(p[i] - p0[i] * (1 + 4 * eps)) < TOL * p0[i]);
    /* below one peer the term is 0, as ct_a2a_gamma_at's (k - 1) floored at 0 */
    assert_int_equal(ct_duplex_penalties_kmax(0.2, eps, 0.5, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 30; i++)
        assert_true(p[i] == p0[i]);
    /* through the registry, as a signature file sets it */
    ct_penalty_model m = CT_DUPLEX_MODEL(0.2);
    m.real[CT_DUPLEX_INCAST] = eps;
    m.real[CT_DUPLEX_INCAST_MAX_K] = 3.0;
    ct_err err;
    registry_prices(&m, &g, p0, 30, 1 + 2 * eps);
    m.real[CT_DUPLEX_INCAST_MAX_K] = -1;
    assert_int_equal(ct_model_check(&m, &err), -1);
    assert_non_null(strstr(err.msg, "duplex_incast_max_k"));
    assert_int_equal(ct_duplex_penalties_kmax(0.2, eps, NAN, &g, NULL, p, &err), -1);
    assert_non_null(strstr(err.msg, "duplex_incast_max_k = nan"));
    ct_graph_free(&g);
    /* from a signature: k_max only where the term is fitted */
    ct_a2a_sig sig = {.gamma = 1.0, .gamma_incast = 0.1, .k_max = 3};
    assert_true(ct_duplex_incast_max_k(&sig) == 3.0);
    sig.gamma_incast = 0;
    assert_true(ct_duplex_incast_max_k(&sig) == 0.0);
    sig.gamma_incast = 0.1;
    sig.k_max = 0;
    assert_true(ct_duplex_incast_max_k(&sig) == 0.0);
    assert_true(ct_duplex_incast_max_k(NULL) == 0.0);
}

/* The flows term (our extension, session 20): each arc's penalty x
 * (1 + φ (f - 1)), f = the larger of the remote communications leaving its
 * source node and entering its destination node (multiplicities counted),
 * held at f_max; φ = gamma_flows / gamma of the Alltoall signature. */
static void test_flows_term(void **state)
{
    (void)state;
    const double phi = 0.02;
    /* a cyclic ring on 4 nodes x 4 tasks: each node sends 4 messages to the
     * next node and receives 4 from the previous one (one arc, mult 4) */
    ct_graph g;
    cyclic_ring4(&g);
    double p0[4], p[4];
    assert_int_equal(ct_duplex_penalties_kmax(0.2, 0.15, 0.0, &g, NULL, p0, NULL), 0);
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.15, 0.0, 0.0, 0.0, 0.0, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 4; i++)
        assert_true(p[i] == p0[i]); /* φ = 0: bit for bit the incast model */
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.15, 0.0, phi, 0.0, 0.0, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 4; i++) /* one peer each way: no incast term, 4 flows: 1 + 3 φ */
        assert_true(fabs(p[i] - p0[i] * (1 + 3 * phi)) < TOL * p0[i]);
    double fv = 0;
    assert_int_equal(ct_duplex_flows_max(&g, &fv, NULL), 0);
    assert_true(fv == 4.0); /* what the scorer's "beyond the fit" note compares */
    /* held at f_max = 2: 1 + φ; below one flow, nothing */
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.15, 0.0, phi, 2.0, 0.0, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 4; i++)
        assert_true(fabs(p[i] - p0[i] * (1 + phi)) < TOL * p0[i]);
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.15, 0.0, phi, 0.5, 0.0, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 4; i++)
        assert_true(p[i] == p0[i]);
    ct_graph_free(&g);

    /* the larger end counts: node 0 sends 1 message to node 1, which also
     * receives 3 from node 2 (f = 4 at 1's incoming NIC); node 2's 3 go out
     * of a NIC carrying 3; an inactive arc counts nothing */
    ct_graph_init(&g, 3, NULL);
    ct_graph_add(&g, 0, 1, 1, 1.0, NULL);
    ct_graph_add(&g, 2, 1, 3, 1.0, NULL);
    ct_graph_add(&g, 0, 2, 5, 1.0, NULL);
    unsigned char act[3] = {1, 1, 0};
    assert_int_equal(ct_duplex_penalties_kf(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, &g, act, p0, NULL), 0);
    assert_int_equal(ct_duplex_penalties_kf(0.0, 0.0, 0.0, phi, 0.0, 0.0, &g, act, p, NULL), 0);
    assert_true(fabs(p[0] - p0[0] * (1 + 3 * phi)) < TOL * p0[0]);
    assert_true(fabs(p[1] - p0[1] * (1 + 3 * phi)) < TOL * p0[1]);
    assert_true(p[2] == 0.0);
    /* with the arc 0 -> 2 active, node 0 sends 6: the arc 0 -> 1 pays 1 + 5 φ */
    assert_int_equal(ct_duplex_penalties_kf(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, &g, NULL, p0, NULL), 0);
    assert_int_equal(ct_duplex_penalties_kf(0.0, 0.0, 0.0, phi, 0.0, 0.0, &g, NULL, p, NULL), 0);
    assert_true(fabs(p[0] - p0[0] * (1 + 5 * phi)) < TOL * p0[0]);
    assert_int_equal(ct_duplex_flows_max(&g, &fv, NULL), 0);
    assert_true(fv == 6.0); /* node 0 sends 6 */
    ct_graph_free(&g);

    /* through the registry, as a signature file sets it; bad values named */
    cyclic_ring4(&g);
    assert_int_equal(ct_duplex_penalties_kmax(0.2, 0.0, 0.0, &g, NULL, p0, NULL), 0);
    ct_penalty_model m = CT_DUPLEX_MODEL(0.2);
    m.real[CT_DUPLEX_FLOWS] = phi;
    m.real[CT_DUPLEX_FLOWS_MAX_F] = 3.0;
    ct_err err;
    registry_prices(&m, &g, p0, 4, 1 + 2 * phi);
    m.real[CT_DUPLEX_FLOWS] = -0.1;
    assert_int_equal(ct_model_check(&m, &err), -1);
    assert_non_null(strstr(err.msg, "duplex_flows"));
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.0, 0.0, phi, NAN, 0.0, &g, NULL, p, &err), -1);
    assert_non_null(strstr(err.msg, "duplex_flows_max_f = nan"));
    assert_int_equal(
        ct_duplex_penalties_kf(0.2, 0.0, 0.0, INFINITY, 0.0, 0.0, &g, NULL, p, &err), -1);
    assert_non_null(strstr(err.msg, "duplex_flows = inf"));
    ct_graph_free(&g);

    /* from a signature: gamma_flows / gamma, f_max only where it is fitted */
    ct_a2a_sig sig = {.gamma = 0.8, .gamma_flows = 0.016, .f_max = 49};
    assert_true(fabs(ct_duplex_flows(&sig) - 0.02) < 1e-12);
    assert_true(ct_duplex_flows_max_f(&sig) == 49.0);
    sig.gamma_flows = 0;
    assert_true(ct_duplex_flows(&sig) == 0.0 && ct_duplex_flows_max_f(&sig) == 0.0);
    sig.gamma_flows = 0.016;
    sig.gamma = 0;
    assert_true(ct_duplex_flows(&sig) == 0.0);
    assert_true(ct_duplex_flows(NULL) == 0.0 && ct_duplex_flows_max_f(NULL) == 0.0);
    /* all four terms set at once, as calibrate --incast writes them */
    ct_a2a_sig both = {.gamma = 0.8, .gamma_incast = 0.08, .gamma_flows = 0.016, .k_max = 3,
                       .f_max = 49};
    ct_penalty_model dm = CT_DUPLEX_MODEL(0.1);
    ct_duplex_set_terms(&dm, &both);
    assert_true(fabs(dm.real[CT_DUPLEX_INCAST] - 0.1) < 1e-12 &&
                dm.real[CT_DUPLEX_INCAST_MAX_K] == 3.0);
    assert_true(fabs(dm.real[CT_DUPLEX_FLOWS] - 0.02) < 1e-12 &&
                dm.real[CT_DUPLEX_FLOWS_MAX_F] == 49.0);
    assert_true(dm.real[CT_DUPLEX_COUPLING] == 0.1);
    assert_true(dm.real[CT_DUPLEX_FLOWS_EXP] == 0.0); /* a signature of the line f - 1 */
    both.flows_exp = 0.5; /* session 21's shape: carried to the patterns */
    ct_duplex_set_terms(&dm, &both);
    assert_true(dm.real[CT_DUPLEX_FLOWS_EXP] == 0.5);
    both.gamma_flows = 0; /* no flows term: no shape */
    ct_duplex_set_terms(&dm, &both);
    assert_true(dm.real[CT_DUPLEX_FLOWS_EXP] == 0.0);
}

/* The flows term's shape (session 21): 1 + φ (f^a - 1)/a, the Alltoall
 * signature's exponent, so the patterns price a NIC's flows as the
 * Alltoall does; a = 0 or 1 is the line 1 + φ (f - 1). */
static void test_flows_exponent(void **state)
{
    (void)state;
    const double phi = 0.02;
    /* the cyclic ring of 4 nodes x 4 tasks: 4 flows a NIC each way */
    ct_graph g;
    cyclic_ring4(&g);
    double p0[4], p[4], pl[4];
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.0, 0.0, 0.0, 0.0, 0.0, &g, NULL, p0, NULL), 0);
    /* a = 0.5: g(4) = (2 - 1)/0.5 = 2, so 1 + 2 φ instead of the line's 1 + 3 φ */
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.0, 0.0, phi, 0.0, 0.5, &g, NULL, p, NULL), 0);
    for (int i = 0; i < 4; i++)
        assert_true(fabs(p[i] - p0[i] * (1 + 2 * phi)) < TOL * p0[i]);
    /* a = 1 is the line, bit for bit as a = 0 */
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.0, 0.0, phi, 0.0, 1.0, &g, NULL, p, NULL), 0);
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.0, 0.0, phi, 0.0, 0.0, &g, NULL, pl, NULL), 0);
    for (int i = 0; i < 4; i++)
        assert_true(p[i] == pl[i]);
    /* held at f_max = 9 with the shape: never more than g(9) = 4 */
    ct_penalty_model m = CT_DUPLEX_MODEL(0.2);
    m.real[CT_DUPLEX_FLOWS] = phi;
    m.real[CT_DUPLEX_FLOWS_EXP] = 0.5;
    ct_err err;
    registry_prices(&m, &g, p0, 4, 1 + 2 * phi);
    ct_graph_free(&g);
    ct_graph_init(&g, 2, NULL);
    ct_graph_add(&g, 0, 1, 16, 1.0, NULL); /* 2 x 4 tasks' one way: 16 flows */
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.0, 0.0, 0.0, 0.0, 0.0, &g, NULL, p0, NULL), 0);
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.0, 0.0, phi, 9.0, 0.5, &g, NULL, p, NULL), 0);
    assert_true(fabs(p[0] - p0[0] * (1 + 4 * phi)) < TOL * p0[0]);
    /* out of range: named by its key, through the file's check and the call */
    m.real[CT_DUPLEX_FLOWS_EXP] = 1.5;
    assert_int_equal(ct_model_check(&m, &err), -1);
    assert_non_null(strstr(err.msg, "duplex_flows_exponent"));
    assert_int_equal(ct_duplex_penalties_kf(0.2, 0.0, 0.0, phi, 0.0, -0.5, &g, NULL, p, &err), -1);
    assert_non_null(strstr(err.msg, "duplex_flows_exponent = -0.5"));
    ct_graph_free(&g);
}

static void test_random_graphs(void **state)
{
    (void)state;
    uint64_t s = 7;
    for (int t = 0; t < 200; t++) {
        int n = 2 + (int)(lcg(&s) % 10);
        ct_graph g;
        ct_graph_init(&g, n, NULL);
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++)
                if (u != v && lcg(&s) % 3 == 0)
                    ct_graph_add(&g, u, v, 1 + (int64_t)(lcg(&s) % 3), 1.0, NULL);
        if (g.ncomm == 0) {
            ct_graph_free(&g);
            continue;
        }
        size_t m = g.ncomm;
        double *p0 = malloc(m * sizeof *p0), *f = malloc(m * sizeof *f);
        double *p = malloc(m * sizeof *p), *q = malloc(m * sizeof *q);
        assert_int_equal(ct_duplex_penalties_ex(0, &g, NULL, p0, NULL), 0);
        assert_int_equal(ct_fairshare_penalties(&g, f, NULL), 0);
        for (size_t i = 0; i < m; i++)
            assert_true(p0[i] == f[i]);
        double d = (double)(1 + lcg(&s) % 100) / 100.0;
        assert_int_equal(ct_duplex_penalties_ex(d, &g, NULL, p, NULL), 0);
        assert_int_equal(ct_duplex_penalties_ex(d / 2, &g, NULL, q, NULL), 0);
        double *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
        for (size_t i = 0; i < m; i++) {
            assert_true(p[i] >= 1 - 1e-12);
            x[g.comm[i].src] += (double)g.comm[i].mult / p[i];
            y[g.comm[i].dst] += (double)g.comm[i].mult / p[i];
        }
        double maxq = 0, maxp = 0;
        for (size_t i = 0; i < m; i++) {
            maxq = q[i] > maxq ? q[i] : maxq;
            maxp = p[i] > maxp ? p[i] : maxp;
        }
        /* the first water level (the slowest flow) only falls as δ grows */
        assert_true(maxq <= maxp * (1 + 1e-9));
        for (int v = 0; v < n; v++)
            assert_true(x[v] + d * y[v] <= 1 + 1e-9 && y[v] + d * x[v] <= 1 + 1e-9);
        for (size_t i = 0; i < m; i++) {
            int a = g.comm[i].src, b = g.comm[i].dst, bottleneck = 0;
            double r = 1.0 / p[i];
            /* a full constraint through which this flow has the highest rate */
            double lim[4] = {x[a] + d * y[a], y[b] + d * x[b], y[a] + d * x[a], x[b] + d * y[b]};
            for (int c = 0; c < 4 && !bottleneck; c++) {
                if (lim[c] < 1 - 1e-9)
                    continue;
                int ok = 1;
                for (size_t j = 0; j < m && ok; j++) {
                    int on = c == 0 ? (g.comm[j].src == a || (g.comm[j].dst == a)) :
                             c == 1 ? (g.comm[j].dst == b || g.comm[j].src == b) :
                             c == 2 ? (g.comm[j].dst == a || g.comm[j].src == a) :
                                      (g.comm[j].src == b || g.comm[j].dst == b);
                    if (on && 1.0 / p[j] > r + 1e-9)
                        ok = 0;
                }
                bottleneck = ok;
            }
            assert_true(bottleneck);
        }
        free(p0), free(f), free(p), free(q), free(x), free(y);
        ct_graph_free(&g);
    }
}

static void test_model_registry(void **state)
{
    (void)state;
    ct_model_kind k;
    assert_int_equal(ct_model_from_name("duplex", &k), 0);
    assert_int_equal(k, CT_MODEL_DUPLEX);
    ct_err err;
    ct_penalty_model m = CT_DUPLEX_MODEL(0.25);
    assert_int_equal(ct_model_check(&m, &err), 0);
    m = CT_DUPLEX_MODEL(1.5);
    assert_int_equal(ct_model_check(&m, &err), -1);
    assert_non_null(strstr(err.msg, "duplex"));
    ct_graph g;
    ct_graph_init(&g, 2, NULL);
    ct_graph_add(&g, 0, 1, 1, 1.0, NULL);
    ct_graph_add(&g, 1, 0, 1, 1.0, NULL);
    double p[2];
    m = CT_DUPLEX_MODEL(0.25);
    assert_int_equal(ct_penalties(&m, &g, p, &err), 0);
    assert_true(fabs(p[0] - 1.25) < TOL);
    assert_int_equal(ct_duplex_penalties_ex(-0.1, &g, NULL, p, &err), -1);
    assert_non_null(strstr(err.msg, "duplex = -0.1"));
    ct_graph_free(&g);
}

/* δ and the exchange step c from 2 x 1 Alltoall samples, t = c + (1 + δ)
 * T_alone over m >= min_m (session 15): δ from the least-squares slope, c
 * through the centroid; other configurations and small m ignored; δ clamped
 * to [0, 1]; one size only: the median of t / T_alone - 1 and c = 0. */
static void test_fit_duplex(void **state)
{
    (void)state;
    ct_p2p_curve c;
    ct_p2p_single(&c, 1e-4, 8e-8); /* α 100 µs, 12.5 MB/s */
    double ms[] = {131072, 262144, 524288};
    ct_a2a_sample s[6];
    memset(s, 0, sizeof s);
    /* 2 ms a step and δ = 0.10: t = 0.002 + 1.1 (1e-4 + 8e-8 m) */
    for (int i = 0; i < 3; i++)
        s[i] = (ct_a2a_sample){.nodes = 2, .tasks_per_node = 1, .m = ms[i],
                               .t = 0.002 + 1.1 * (1e-4 + 8e-8 * ms[i]), .t_min = 0};
    s[3] = (ct_a2a_sample){.nodes = 2, .tasks_per_node = 1, .m = 32768, .t = 1.0, .t_min = 0};
    /* (measured up to 512 KiB like 2 x 1: no long exchange, test_fit_duplex_long) */
    s[4] = (ct_a2a_sample){.nodes = 4, .tasks_per_node = 1, .m = 524288, .t = 1.0, .t_min = 0};
    s[5] = (ct_a2a_sample){.nodes = 2, .tasks_per_node = 2, .m = 262144, .t = 1.0, .t_min = 0};
    ct_duplex_fit f;
    ct_err err;
    assert_int_equal(ct_fit_duplex(&c, s, 6, 131072, &f, &err), 0);
    assert_int_equal(f.nused, 3);
    assert_int_equal(f.sloped, 1);
    assert_true(fabs(f.delta - 0.10) < 1e-9 && fabs(f.exchange_penalized - 0.002) < 1e-12);
    /* the same line with the latency once, outside the penalty (session 56):
     * 0.002 + 1.1 (α + mβ) = (0.002 + 0.1 α) + α + 1.1 mβ */
    assert_true(f.alpha == 1e-4);
    assert_true(fabs(f.exchange - (0.002 + 0.1 * 1e-4)) < 1e-12);
    /* the per-sample ratios are reported as before: the smallest, at 512 KiB,
     * 0.1 + 0.002 / T_alone (42.04 ms) = 0.1476 */
    assert_true(fabs(f.lo - (0.1 + 0.002 / (1e-4 + 8e-8 * 524288))) < 1e-9);
    /* a token bucket's refill: 5 ms a step come free, no coupling */
    for (int i = 0; i < 3; i++)
        s[i].t = -0.005 + (1e-4 + 8e-8 * ms[i]);
    assert_int_equal(ct_fit_duplex(&c, s, 6, 131072, &f, &err), 0);
    assert_true(fabs(f.delta) < 1e-9 && fabs(f.exchange + 0.005) < 1e-12);
    /* three times the bytes' time: clamped to half duplex, c through the
     * centroid with δ = 1 (t - 2 T_alone at the mean size, 305835 B) */
    for (int i = 0; i < 3; i++)
        s[i].t = 3.0 * (1e-4 + 8e-8 * ms[i]);
    assert_int_equal(ct_fit_duplex(&c, s, 6, 131072, &f, &err), 0);
    assert_true(f.delta == 1.0 && fabs(f.raw - 2.0) < 1e-9);
    double mbar = (131072.0 + 262144 + 524288) / 3;
    assert_true(fabs(f.exchange_penalized - (1e-4 + 8e-8 * mbar)) < 1e-12);
    assert_true(fabs(f.exchange - (1e-4 + 8e-8 * mbar + 1e-4)) < 1e-12); /* + δ α */
    /* slower per byte than alone by less: δ = 0 when the slope is below */
    for (int i = 0; i < 3; i++)
        s[i].t = 0.9 * (1e-4 + 8e-8 * ms[i]);
    assert_int_equal(ct_fit_duplex(&c, s, 6, 131072, &f, &err), 0);
    assert_true(f.delta == 0.0 && f.raw < 0);
    /* one size: the rule before session 15, no exchange step */
    s[0].t = 1.12 * (1e-4 + 8e-8 * ms[0]);
    assert_int_equal(ct_fit_duplex(&c, s, 1, 131072, &f, &err), 0);
    assert_int_equal(f.sloped, 0);
    assert_true(fabs(f.delta - 0.12) < 1e-9 && f.exchange == 0);
    assert_int_equal(ct_fit_duplex(&c, s + 3, 3, 131072, &f, &err), -1);
    assert_non_null(strstr(err.msg, "2 nodes x 1 task"));
}

/* The bucket's refill (session 29): ct_fit_duplex gives the median pause of
 * the line's samples (what its exchange step's refill followed), 0 when
 * one of them has none; the points beyond m_L and other configurations do
 * not count. */
static void test_fit_duplex_pause(void **state)
{
    (void)state;
    ct_p2p_curve c;
    ct_p2p_single(&c, 1e-4, 8e-8);
    double ms[] = {131072, 262144, 524288, 1048576, 2097152};
    double ps[] = {0.004, 0.002, 0.003, 0.05, 0.05};
    ct_a2a_sample s[6];
    memset(s, 0, sizeof s);
    for (int i = 0; i < 5; i++)
        s[i] = (ct_a2a_sample){.nodes = 2, .tasks_per_node = 1, .m = ms[i],
                               .t = 0.002 + 1.05 * (1e-4 + 8e-8 * ms[i]), .pause = ps[i]};
    s[5] = (ct_a2a_sample){.nodes = 4, .tasks_per_node = 1, .m = 524288, .t = 1.0, .pause = 9};
    ct_duplex_fit f;
    ct_err err;
    assert_int_equal(ct_fit_duplex(&c, s, 6, 131072, &f, &err), 0);
    assert_int_equal(f.nused, 3);
    assert_true(f.pause == 0.003); /* the median of 4, 2 and 3 ms */
    /* into a fabric (ct_duplex_set_bucket): the burst and that pause, or no
     * term without a burst */
    ct_fabric fab;
    ct_fabric_init(&fab);
    ct_duplex_set_bucket(&fab, &f, 1.5e5);
    assert_true(fab.bucket == 1.5e5 && fab.bucket_pause == 0.003);
    ct_duplex_set_bucket(&fab, &f, 0);
    assert_true(fab.bucket == 0 && fab.bucket_pause == 0);
    s[1].pause = 0;                /* one of the line's points without: none */
    assert_int_equal(ct_fit_duplex(&c, s, 6, 131072, &f, &err), 0);
    assert_true(f.pause == 0);
    ct_duplex_set_bucket(&fab, &f, 1.5e5);
    assert_true(fab.bucket == 0 && fab.bucket_pause == 0);
}

/* The bucket an exchange gets after a full refill (session 29,
 * ct_fit_refill): B = r (t_n - t_i + p_n) per size measured both ways, over
 * the sizes >= the ping-pong's burst, weighted by 1 / sd^2 with sd the two
 * means' distances from their fastest repetitions in bytes (session 31),
 * clamped to the burst. By hand: r = 12.5 MB/s, an exchange that gets
 * B = 100 kB after an idle and r p_n = 25 kB (p_n = 2 ms) after the
 * benchmark's own pause. */
static void test_fit_refill(void **state)
{
    (void)state;
    const double r = 12.5e6, B = 1e5, pn = 2e-3;
    ct_p2p_curve c; /* the sustained curve: its rate is r */
    ct_p2p_single(&c, 1e-3, 1 / r);
    double ms[] = {262144, 524288, 1048576};
    /* each idle call's error (s) and the distance of each mean from its
     * fastest repetition (s, normal and idle alike): 256 and 512 KiB quiet,
     * 1 MiB as noisy as its error */
    double off[] = {-1e-4, 1e-4, 2e-3}, spr[] = {1e-4, 1e-4, 2e-3};
    ct_a2a_sample nrm[3], idl[3];
    for (int i = 0; i < 3; i++) {
        double line = 1e-3 + ms[i] / r; /* no refill */
        nrm[i] = (ct_a2a_sample){.nodes = 2, .tasks_per_node = 1, .m = ms[i],
                                 .t = line - r * pn / r, .pause = pn};
        nrm[i].t_min = nrm[i].t - spr[i];
        idl[i] = (ct_a2a_sample){.nodes = 2, .tasks_per_node = 1, .m = ms[i],
                                 .t = line - B / r + off[i], .pause = 0.1};
        idl[i].t_min = idl[i].t - spr[i];
    }
    ct_refill_fit f;
    ct_err err;
    /* burst 140 kB: every size; sd r 0.2 ms, r 0.2 ms, r 4 ms: weights
     * 400 : 400 : 1, so B - r (400 (-1e-4) + 400 1e-4 + 2e-3) / 801 */
    assert_int_equal(ct_fit_refill(&c, nrm, 3, idl, 3, 1.4e5, &f, &err), 0);
    assert_int_equal(f.nused, 3);
    double want = B - r * 2e-3 / 801;
    assert_true(fabs(f.bucket - want) < 1e-6);
    assert_true(fabs(f.bucket - B) < 0.004 * B); /* the noisy 1 MiB barely counts */
    assert_true(fabs(f.lo - (B - r * 2e-3)) < 1e-6 && fabs(f.hi - (B + r * 1e-4)) < 1e-6);
    assert_true(f.idle == 0.1);
    /* the same three sizes equally noisy: the plain mean */
    for (int i = 0; i < 3; i++) {
        nrm[i].t_min = nrm[i].t - 1e-3;
        idl[i].t_min = idl[i].t - 1e-3;
    }
    assert_int_equal(ct_fit_refill(&c, nrm, 3, idl, 3, 1.4e5, &f, &err), 0);
    assert_true(fabs(f.bucket - (B - r * 2e-3 / 3)) < 1e-6);
    for (int i = 0; i < 3; i++) {
        nrm[i].t_min = nrm[i].t - spr[i];
        idl[i].t_min = idl[i].t - spr[i];
    }
    /* burst 300 kB: 512 KiB and 1 MiB only (256 KiB would cap the credit) */
    assert_int_equal(ct_fit_refill(&c, nrm, 3, idl, 3, 3e5, &f, &err), 0);
    assert_int_equal(f.nused, 2);
    assert_true(fabs(f.bucket - (B - r * (400 * 1e-4 + 2e-3) / 401)) < 1e-6);
    /* what the exchange lacks of the burst, as the time r takes to refill it */
    assert_true(fabs(f.lack - (3e5 - f.bucket) / r) < 1e-12 && f.lack > 0);
    /* clamped to the ping-pong's burst: it lacks nothing */
    assert_int_equal(ct_fit_refill(&c, nrm, 3, idl, 3, 9e4, &f, &err), 0);
    assert_true(f.bucket == 9e4 && f.raw > 9e4);
    assert_true(f.lack == 0);
    /* a burst of 2 MB: no size >= it, the largest alone */
    assert_int_equal(ct_fit_refill(&c, nrm, 3, idl, 3, 2e6, &f, &err), 0);
    assert_int_equal(f.nused, 1);
    assert_true(fabs(f.bucket - (B - r * 2e-3)) < 1e-6);
    assert_true(f.raw == f.bucket);
    /* a mean equal to its fastest repetition: weighted as 0.1 % of the call */
    idl[0].t_min = idl[0].t;
    nrm[0].t_min = nrm[0].t;
    assert_int_equal(ct_fit_refill(&c, nrm, 3, idl, 3, 1.4e5, &f, &err), 0);
    double sd0 = 1e-3 * r * idl[0].t, w0 = 1 / (sd0 * sd0), w1 = 1 / pow(r * 2e-4, 2),
           w2 = 1 / pow(r * 4e-3, 2);
    want = (w0 * (B + r * 1e-4) + w1 * (B - r * 1e-4) + w2 * (B - r * 2e-3)) / (w0 + w1 + w2);
    assert_true(fabs(f.bucket - want) < 1e-6);
    /* without pauses, or without a size measured both ways: refused */
    nrm[1].pause = nrm[2].pause = 0;
    assert_int_equal(ct_fit_refill(&c, nrm, 3, idl, 3, 1.4e5, &f, &err), 0); /* 256K alone */
    assert_int_equal(f.nused, 1);
    assert_true(fabs(f.bucket - (B + r * 1e-4)) < 1e-6);
    nrm[0].pause = 0;
    assert_int_equal(ct_fit_refill(&c, nrm, 3, idl, 3, 1.4e5, &f, &err), -1);
    assert_non_null(strstr(err.msg, "no 2 x 1 size measured both after an idle"));
    assert_int_equal(ct_fit_refill(&c, nrm, 3, idl, 3, 0, &f, &err), -1);
}

/* The long exchange (session 28): 2 x 1 points beyond m_L, the largest size
 * of every other configuration, are left out of the line and read as a
 * hinge t = c + (1 + δ) T + λ (T - T(m_L)); below m_L the line is the one
 * fitted without them. ct_duplex_long_delta prices a phase with it. */
static void test_fit_duplex_long(void **state)
{
    (void)state;
    ct_p2p_curve c;
    ct_p2p_single(&c, 1e-4, 8e-8); /* α 100 µs, 12.5 MB/s */
#define T_ALONE(m) (1e-4 + 8e-8 * (m))
    double ms[] = {131072, 262144, 524288, 1048576, 2097152};
    ct_a2a_sample s[6];
    memset(s, 0, sizeof s);
    /* the line: 2 ms a step, δ = 0.05; beyond 512 KiB λ = 0.2 */
    for (int i = 0; i < 5; i++) {
        double t = 0.002 + 1.05 * T_ALONE(ms[i]);
        if (ms[i] > 524288)
            t += 0.2 * (T_ALONE(ms[i]) - T_ALONE(524288));
        s[i] = (ct_a2a_sample){.nodes = 2, .tasks_per_node = 1, .m = ms[i], .t = t};
    }
    s[5] = (ct_a2a_sample){.nodes = 4, .tasks_per_node = 1, .m = 524288, .t = 1.0};
    ct_duplex_fit f;
    ct_err err;
    assert_int_equal(ct_fit_duplex(&c, s, 6, 131072, &f, &err), 0);
    assert_int_equal(f.nused, 3);
    assert_int_equal(f.nlong, 2);
    assert_true(fabs(f.delta - 0.05) < 1e-9 && fabs(f.exchange_penalized - 0.002) < 1e-12);
    assert_true(fabs(f.exchange - (0.002 + 0.05 * 1e-4)) < 1e-12); /* α once */
    assert_true(fabs(f.long_delta - 0.2) < 1e-9);
    assert_true(f.long_from == 524288);
    /* at 2 MiB: (t - T) / T = 0.05 + 0.002 / T + 0.2 (1 - T(512K) / T) */
    double t2 = T_ALONE(2097152), tk = T_ALONE(524288);
    assert_true(fabs(f.long_hi - (0.05 + 0.002 / t2 + 0.2 * (1 - tk / t2))) < 1e-9);
    ct_penalty_model m = CT_DUPLEX_MODEL(f.delta);
    ct_duplex_set_long(&m, &f);
    assert_true(m.real[CT_DUPLEX_LONG] == f.long_delta && m.real[CT_DUPLEX_LONG_FROM] == 524288);
    /* the phase's coupling reproduces the hinge: (1 + δ') T = (1 + δ) T + λ (T - T_L) */
    double d1 = ct_duplex_long_delta(&m, T_ALONE(1048576), tk);
    assert_true(fabs((1 + d1) * T_ALONE(1048576) -
                     (1.05 * T_ALONE(1048576) + 0.2 * (T_ALONE(1048576) - tk))) < 1e-12);
    /* up to m_L, and without the term, δ itself */
    assert_true(ct_duplex_long_delta(&m, T_ALONE(262144), tk) == m.real[CT_DUPLEX_COUPLING]);
    assert_true(ct_duplex_long_delta(&m, tk, tk) == m.real[CT_DUPLEX_COUPLING]);
    ct_penalty_model none = CT_DUPLEX_MODEL(0.05);
    assert_true(ct_duplex_long_delta(&none, T_ALONE(2097152), tk) == 0.05);
    /* clamped to [0, 1] */
    m.real[CT_DUPLEX_LONG] = -1;
    assert_true(ct_duplex_long_delta(&m, 100 * tk, tk) == 0.0);
    m.real[CT_DUPLEX_LONG] = 1;
    m.real[CT_DUPLEX_COUPLING] = 0.5;
    assert_true(ct_duplex_long_delta(&m, 100 * tk, tk) == 1.0);
    /* one size beyond m_L (1 MiB, no 2 MiB): no term, since one mean would
     * set it; the point stays out of the line all the same */
    ct_a2a_sample one[5] = {s[0], s[1], s[2], s[3], s[5]};
    assert_int_equal(ct_fit_duplex(&c, one, 5, 131072, &f, &err), 0);
    assert_int_equal(f.nused, 3);
    assert_int_equal(f.nlong, 0);
    assert_true(f.long_delta == 0 && f.long_from == 0);
    assert_true(fabs(f.delta - 0.05) < 1e-9); /* the line without the 1 MiB point */
    /* only 2 x 1 measured: no m_L, every point in one line, no term (the rule before) */
    assert_int_equal(ct_fit_duplex(&c, s, 5, 131072, &f, &err), 0);
    assert_int_equal(f.nused, 5);
    assert_int_equal(f.nlong, 0);
    assert_true(f.long_delta == 0 && f.long_from == 0);
    ct_duplex_set_long(&m, &f);
    assert_true(m.real[CT_DUPLEX_LONG] == 0 && m.real[CT_DUPLEX_LONG_FROM] == 0);
    /* nothing beyond the other configurations' largest size: as before */
    s[5].m = 4194304;
    assert_int_equal(ct_fit_duplex(&c, s, 6, 131072, &f, &err), 0);
    assert_int_equal(f.nused, 5);
    assert_int_equal(f.nlong, 0);
#undef T_ALONE
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_duplex_long),
        cmocka_unit_test(test_fit_duplex_pause),
        cmocka_unit_test(test_fit_refill),
        cmocka_unit_test(test_exchange_and_pure_sender),
        cmocka_unit_test(test_ring_and_half_duplex),
        cmocka_unit_test(test_incast_term),
        cmocka_unit_test(test_incast_held_at_kmax),
        cmocka_unit_test(test_flows_term),
        cmocka_unit_test(test_flows_exponent),
        cmocka_unit_test(test_random_graphs),
        cmocka_unit_test(test_model_registry),
        cmocka_unit_test(test_fit_duplex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
