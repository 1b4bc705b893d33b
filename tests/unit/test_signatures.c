/* The signature file loader and writer (modelcore/src/signatures.c, schema
 * in conf/README.md): one fixture per refusal, each checked for its
 * FILE:LINE:COL and message; every field of a full file in SI units; the
 * shipped conf/ files against the papers' published numbers; round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/penalty.h"
#include "contention/signatures.h"

#define SIGDIR CT_FIXTURES "/signatures/"

typedef struct bad_case {
    const char *file;
    int line, col;
    const char *what; /* a substring the message must hold */
} bad_case;

/* Expected positions read off the fixtures by hand (1-based line:col of the
 * offending token; for a missing key, the mapping that lacks it). */
static const bad_case bad_cases[] = {
    {"bad_syntax.yaml", 5, 13, "YAML syntax error: did not find expected ',' or '}'"},
    {"bad_tab.yaml", 4, 1, "YAML syntax error: found character that cannot start any token"},
    {"bad_utf8.yaml", 4, 23, "invalid trailing UTF-8 octet"},
    {"bad_unknown_top.yaml", 2, 1,
     "unknown key 'fabric' in the top level (accepted: version, fabrics, partitions, default)"},
    {"bad_unknown_p2p.yaml", 5, 7,
     "unknown key 'alpha' in fabrics.eth0.p2p (accepted: alpha_us, bandwidth_MBps, exchange_us, bucket_bytes, bucket_pause_us, source, plogp, segments)"},
    {"bad_not_number.yaml", 6, 14, "fabrics.eth0.alltoall.gamma is 'high', not a number"},
    {"bad_quoted_number.yaml", 4, 21,
     "fabrics.eth0.p2p.alpha_us is the quoted string '10', not a number"},
    {"bad_p2p_list.yaml", 5, 7, "fabrics.eth0.p2p is a list (accepted: a mapping"},
    {"bad_negative.yaml", 5, 36, "fabrics.eth0.alltoall.delta_us is -5 (accepted: a number >= 0)"},
    {"bad_inf.yaml", 4, 21, "fabrics.eth0.p2p.alpha_us is '.inf', not finite"},
    {"bad_nan.yaml", 5, 23, "fabrics.eth0.alltoall.gamma is '.nan', not finite"},
    {"bad_overflow.yaml", 4, 21, "fabrics.eth0.p2p.alpha_us is '1e999', out of range"},
    {"bad_zero_bandwidth.yaml", 4, 41,
     "fabrics.eth0.p2p.bandwidth_MBps is 0 (accepted: a number > 0)"},
    {"bad_unknown_model.yaml", 6, 14,
     "unknown penalty model 'infiniband' (accepted: none, gige, stopgo, fairshare, duplex, tcpshare)"},
    {"bad_gige_missing.yaml", 6, 7,
     "fabrics.eth0.penalty: missing required key 'gamma_o' (required here: beta, gamma_i, "
     "gamma_o)"},
    {"bad_duplex_incast_max_k.yaml", 9, 28, "duplex_incast_max_k is -3"},
    {"bad_duplex_long.yaml", 8, 20,
     "fabrics.emu.penalty.duplex_long is 1.5 (accepted: a number >= -1 and <= 1)"},
    {"bad_model_key.yaml", 7, 7,
     "unknown key 'beta' in fabrics.myri.penalty (model stopgo) (accepted: model, method, seed, "
     "source)"},
    {"bad_gamma_i_range.yaml", 5, 49,
     "fabrics.eth0.penalty.gamma_i is 1.5 (accepted: a number >= 0 and < 1)"},
    {"bad_flows_exponent.yaml", 5, 88,
     "fabrics.eth0.alltoall.flows_exponent is 0 (accepted: a number > 0 and <= 1)"},
    {"bad_tcpshare_bias.yaml", 5, 38,
     "fabrics.emu.penalty.bias is 5 (accepted: a number >= 0 and <= 4)"},
    {"bad_stopgo_method.yaml", 5, 38,
     "fabrics.myri.penalty.method 'fastest' is unknown (accepted: auto, exact, scalable)"},
    {"bad_duplicate_fabric.yaml", 7, 3, "duplicate name 'eth0' in fabrics, first at line 3"},
    {"bad_duplicate_key.yaml", 8, 7,
     "duplicate key 'gamma' in fabrics.eth0.alltoall, first at line 6"},
    {"bad_partition_fabric.yaml", 7, 10,
     "partitions.batch names fabric 'ib0', which is not defined (accepted: a fabric of this file: "
     "eth0)"},
    {"bad_default_fabric.yaml", 5, 10, "default names fabric 'gige', which is not defined"},
    {"bad_future_version.yaml", 2, 10,
     "version 2 is newer than this slurm-contention understands (accepted: 1"},
    {"bad_old_version.yaml", 1, 10, "version 0 is not a schema version (accepted: 1)"},
    {"bad_version_string.yaml", 1, 10, "version is '1' (accepted: 1, unquoted)"},
    {"bad_missing_version.yaml", 1, 1, "missing required key 'version'"},
    {"bad_missing_fabrics.yaml", 1, 1, "missing required key 'fabrics'"},
    {"bad_no_fabrics.yaml", 2, 10, "fabrics is empty (accepted: at least one fabric)"},
    {"bad_missing_p2p.yaml", 4, 5, "fabrics.eth0: missing required key 'p2p'"},
    {"bad_missing_bandwidth.yaml", 5, 7, "fabrics.eth0.p2p: missing required key 'bandwidth_MBps'"},
    {"bad_missing_gamma.yaml", 6, 7,
     "fabrics.eth0.alltoall: missing required key 'gamma' (required here: gamma, delta_us, "
     "M_bytes)"},
    {"bad_empty.yaml", 1, 1, "the file is empty"},
    {"bad_top_list.yaml", 1, 1, "the top level is a list"},
    {"bad_alias.yaml", 5, 9, "YAML alias '*eth'"},
    {"bad_two_documents.yaml", 5, 1, "a second YAML document"},
    {"bad_tag.yaml", 4, 21, "explicit YAML tag"},
    {"bad_fabric_name.yaml", 3, 3, "fabric name 'gig ethernet' is not a valid name"},
    {"bad_gap_order.yaml", 10, 23, "fabrics.eth0.p2p.plogp.gap[1].m_bytes is 512"},
    {"bad_date.yaml", 5, 57,
     "fabrics.eth0.alltoall.date is '02/05/2024' (accepted: an ISO date YYYY-MM-DD)"},
    {"bad_fitted_n.yaml", 5, 61,
     "fabrics.eth0.alltoall.fitted_n is '1' (accepted: an unquoted integer from 2"},
    {"bad_published.yaml", 4, 16, "fabrics.eth0.published is 'yes' (accepted: true or false"},
    {"bad_tcp_congestion_control.yaml", 4, 29,
     "fabrics.eth0.tcp_congestion_control 'BBR v2' is not a TCP congestion control's name "
     "(accepted: 1-15 characters from a-z 0-9 _, e.g. cubic or bbr)"},
    {"bad_segment_order.yaml", 10, 24,
     "fabrics.eth0.p2p.segments[2].from_bytes is 1024 (accepted: a size larger than the "
     "previous segment's from_bytes)"},
    {"bad_segment_first.yaml", 8, 24,
     "fabrics.eth0.p2p.segments[0].from_bytes is 64 (accepted: 0 for the first segment)"},
    {"bad_segment_negative_time.yaml", 9, 40,
     "fabrics.eth0.p2p.segments[1].alpha_us is -20: the segment's time at from_bytes is -10 us"},
    {"bad_loss_bounds.yaml", 5, 65,
     "fabrics.eth0.alltoall.gamma_loss is 0.4 with loss_min_f 50 and loss_max_f 12 (accepted: "
     "loss_min_f < loss_max_f, both given)"},
    {"bad_gamma_incast.yaml", 5, 67, "fabrics.eth0.alltoall.gamma_incast is -0.1 (accepted: a "
                                     "number >= 0)"},
    {"bad_call_incast.yaml", 5, 69, "fabrics.eth0.alltoall.call_incast_us is -5 (accepted: a "
                                    "number >= 0"},
    /* topology section (issue 14) */
    {"bad_topology_both_uplinks.yaml", 8, 71,
     "fabrics.emu.topology.switches.leaf1 gives both uplink_MBps and uplink_oversubscription"},
    {"bad_topology_cycle.yaml", 7, 9, "the switches form a cycle: no top switch"},
    {"bad_topology_hostlist.yaml", 8, 24,
     "fabrics.emu.topology.switches.leaf1.nodes is a scalar (accepted: a list)"},
    {"bad_topology_no_uplink.yaml", 8, 9, "switch 'leaf1' gives no uplink capacity"},
    {"bad_topology_node_twice.yaml", 9, 9,
     "node 'n2' hangs under switch 'leaf1' and under 'leaf2'"},
    {"bad_topology_two_tops.yaml", 8, 9, "switches 'leaf1' and 'leaf2' both have no parent"},
    {"bad_topology_unit.yaml", 8, 30, "unknown key 'uplink_Mbps' in fabrics.emu.topology"},
    {"bad_topology_unknown_switch.yaml", 7, 35,
     "fabrics.emu.topology.switches.spine.switches names 'leaf9', which is not a switch"},
    {"bad_topology_duplex.yaml", 10, 26,
     "fabrics.emu.topology.switches.leaf1.uplink_duplex is 1.5 (accepted: a number from 0 to 1"},
    {"bad_topology_duplex_top.yaml", 7, 9,
     "switch 'spine' is the top of the tree but has an uplink (accepted: no uplink_MBps, "
     "uplink_oversubscription or uplink_duplex on the top switch)"},
    {"bad_topology_zero_uplink.yaml", 8, 43,
     "fabrics.emu.topology.switches.leaf1.uplink_MBps is 0 (accepted: a number > 0)"},
};

static void test_every_bad_fixture_is_refused_at_its_position(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        char path[512], prefix[600];
        snprintf(path, sizeof path, SIGDIR "%s", c->file);
        snprintf(prefix, sizeof prefix, "%s:%d:%d: ", path, c->line, c->col);
        ct_sigfile sf;
        ct_err err;
        memset(&sf, 0x5A, sizeof sf);
        strcpy(err.msg, "(not set)");
        int rc = ct_sigfile_load(path, &sf, &err);
        if (rc != -1 || strncmp(err.msg, prefix, strlen(prefix)) != 0 ||
            !strstr(err.msg, c->what) || !strchr(err.msg, '(')) {
            print_error("%s: rc %d, message\n  %s\nwanted prefix\n  %s\nand\n  %s\n", c->file, rc,
                        err.msg, prefix, c->what);
            fail();
        }
        /* on error the output is empty: nothing to free */
        assert_null(sf.fabrics);
        assert_null(sf.parts);
        assert_int_equal(sf.nfabrics, 0);
        assert_int_equal(sf.default_fabric, -1);
    }
}

/* Every fixture named bad_*.yaml has an entry above (no fixture left untested). */
static void test_every_bad_fixture_is_listed(void **state)
{
    (void)state;
    DIR *d = opendir(SIGDIR);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "bad_", 4) != 0)
            continue;
        n++;
        int found = 0;
        for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
            found |= strcmp(bad_cases[i].file, e->d_name) == 0;
        if (!found) {
            print_error("fixture %s has no expected message in bad_cases\n", e->d_name);
            fail();
        }
    }
    closedir(d);
    assert_int_equal(n, (int)(sizeof bad_cases / sizeof bad_cases[0]));
}

static const ct_fabric *must_fabric(const ct_sigfile *sf, const char *name)
{
    const ct_fabric *f = ct_sigfile_fabric(sf, name);
    if (!f) {
        print_error("no fabric %s\n", name);
        fail();
    }
    return f;
}

/* Units: _us -> s, _MBps -> bytes/s (10^6), bandwidth -> beta = 1/bandwidth.
 * Expected values are the fixture's decimal texts, rounded once by the
 * compiler: the loader must round once too (exact equality). */
static void test_full_file_in_si(void **state)
{
    (void)state;
    ct_sigfile sf;
    ct_err err;
    int rc = ct_sigfile_load(SIGDIR "valid_full.yaml", &sf, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(sf.version, 1);
    assert_int_equal(sf.nfabrics, 3);

    const ct_fabric *e = must_fabric(&sf, "eth0");
    assert_string_equal(e->description, "Test \"fabric\" with \\ and a tab\there");
    assert_int_equal(e->published, 0);
    assert_string_equal(e->source, "calibration run 42");
    assert_true(e->alpha == 25.5e-6);
    assert_true(e->beta == 1.0 / 100e6);
    assert_string_equal(e->p2p_source, "fitted");
    assert_true(e->plogp_L == 12e-6);
    assert_int_equal(e->ngap, 3);
    assert_true(e->gap_m[0] == 0 && e->gap_m[1] == 1024 && e->gap_m[2] == 65536);
    assert_true(e->gap_g[0] == 4e-6 && e->gap_g[1] == 20.5e-6 && e->gap_g[2] == 700e-6);
    assert_int_equal(e->has_alltoall, 1);
    assert_true(e->alltoall.gamma == 3.5);
    assert_true(e->alltoall.delta == 1500e-6);
    assert_true(e->alltoall.M == 4096);
    assert_string_equal(e->a2a_date, "2024-02-29");
    assert_int_equal(e->a2a_fitted_n, 32);
    assert_true(e->a2a_fit_error == 0.0625);
    assert_int_equal(e->penalty.kind, CT_MODEL_GIGE);
    assert_true(e->penalty.real[CT_GIGE_SHARE] == 0.8 && e->penalty.real[CT_GIGE_SKEW_IN] == 0.05 &&
                e->penalty.real[CT_GIGE_SKEW_OUT] == 0.1);
    assert_string_equal(e->penalty_source, "measured by hand");
    assert_true(e->intra_bw == 5000e6);

    const ct_fabric *ib = must_fabric(&sf, "ib0");
    assert_true(ib->alpha == 1.5e-6);
    assert_true(ib->beta == 1.0 / 12500e6);
    assert_int_equal(ib->has_alltoall, 0);
    assert_int_equal(ib->penalty.kind, CT_MODEL_STOPGO);
    assert_int_equal(ib->penalty.integer[CT_STOPGO_METHOD], CT_STOPGO_EXACT);
    assert_int_equal(ib->penalty.integer[CT_STOPGO_SEED], 7);
    assert_int_equal(ib->ngap, 0);

    /* absent optional keys take their documented defaults */
    const ct_fabric *p = must_fabric(&sf, "plain");
    assert_true(p->alpha == 0 && p->beta == 1e-6);
    assert_int_equal(p->penalty.kind, CT_MODEL_NONE);
    assert_true(p->a2a_fit_error < 0);
    assert_true(p->intra_bw == 0);
    assert_string_equal(p->description, "");

    assert_int_equal(sf.nparts, 2);
    assert_ptr_equal(ct_sigfile_for_partition(&sf, "debug"), e);
    assert_ptr_equal(ct_sigfile_for_partition(&sf, "big-mem.1"), ib);
    assert_ptr_equal(ct_sigfile_for_partition(&sf, "unlisted"), ib); /* default */
    assert_ptr_equal(ct_sigfile_for_partition(&sf, NULL), ib);
    assert_null(ct_sigfile_fabric(&sf, "nope"));
    ct_sigfile_free(&sf);
    assert_null(sf.fabrics);
    ct_sigfile_free(&sf); /* twice is harmless */
}

static void test_no_default_means_null(void **state)
{
    (void)state;
    static const char y[] =
        "version: 1\nfabrics:\n  a:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2}\n"
        "partitions:\n  p: a\n";
    ct_sigfile sf;
    ct_err err;
    assert_int_equal(ct_sigfile_load_buffer("mem", y, sizeof y - 1, &sf, &err), 0);
    assert_int_equal(sf.default_fabric, -1);
    assert_non_null(ct_sigfile_for_partition(&sf, "p"));
    assert_null(ct_sigfile_for_partition(&sf, "q"));
    assert_null(ct_sigfile_for_partition(&sf, NULL));
    ct_sigfile_free(&sf);
}

/* Bitwise comparison written here, independent of ct_sigfile_equal. */
static void assert_same_fabric(const ct_fabric *a, const ct_fabric *b)
{
    assert_string_equal(a->name, b->name);
    assert_string_equal(a->description, b->description);
    assert_string_equal(a->source, b->source);
    assert_string_equal(a->p2p_source, b->p2p_source);
    assert_string_equal(a->penalty_source, b->penalty_source);
    assert_string_equal(a->a2a_date, b->a2a_date);
    assert_int_equal(a->published, b->published);
    assert_memory_equal(&a->alpha, &b->alpha, sizeof(double));
    assert_memory_equal(&a->beta, &b->beta, sizeof(double));
    assert_int_equal(a->ngap, b->ngap);
    assert_memory_equal(a->gap_m, b->gap_m, a->ngap * sizeof(double));
    assert_memory_equal(a->gap_g, b->gap_g, a->ngap * sizeof(double));
    assert_memory_equal(&a->plogp_L, &b->plogp_L, sizeof(double));
    assert_int_equal(a->p2p_segments.nseg, b->p2p_segments.nseg);
    assert_memory_equal(a->p2p_segments.seg, b->p2p_segments.seg,
                        a->p2p_segments.nseg * sizeof a->p2p_segments.seg[0]);
    assert_int_equal(a->has_alltoall, b->has_alltoall);
    if (a->has_alltoall) {
        assert_memory_equal(&a->alltoall, &b->alltoall, sizeof a->alltoall);
        assert_int_equal(a->a2a_fitted_n, b->a2a_fitted_n);
        assert_true(a->a2a_fit_error == b->a2a_fit_error ||
                    (a->a2a_fit_error < 0 && b->a2a_fit_error < 0));
    }
    assert_int_equal(a->penalty.kind, b->penalty.kind);
    if (a->penalty.kind == CT_MODEL_GIGE) {
        assert_memory_equal(&a->penalty.real[CT_GIGE_SHARE], &b->penalty.real[CT_GIGE_SHARE],
                            sizeof(double));
        assert_memory_equal(&a->penalty.real[CT_GIGE_SKEW_IN], &b->penalty.real[CT_GIGE_SKEW_IN],
                            sizeof(double));
        assert_memory_equal(&a->penalty.real[CT_GIGE_SKEW_OUT], &b->penalty.real[CT_GIGE_SKEW_OUT],
                            sizeof(double));
    }
    if (a->penalty.kind == CT_MODEL_STOPGO) {
        assert_int_equal(a->penalty.integer[CT_STOPGO_METHOD],
                         b->penalty.integer[CT_STOPGO_METHOD]);
        assert_int_equal(a->penalty.integer[CT_STOPGO_SEED], b->penalty.integer[CT_STOPGO_SEED]);
    }
    assert_memory_equal(&a->intra_bw, &b->intra_bw, sizeof(double));
    assert_memory_equal(&a->intra_shared_bw, &b->intra_shared_bw, sizeof(double));
    assert_memory_equal(&a->intra_alpha, &b->intra_alpha, sizeof(double));
    assert_memory_equal(&a->intra_line_bw, &b->intra_line_bw, sizeof(double));
    assert_memory_equal(&a->intra_shared_alpha, &b->intra_shared_alpha, sizeof(double));
    assert_memory_equal(&a->intra_shared_line_bw, &b->intra_shared_line_bw, sizeof(double));
}

static void assert_same_file(const ct_sigfile *a, const ct_sigfile *b)
{
    assert_int_equal(a->version, b->version);
    assert_int_equal(a->nfabrics, b->nfabrics);
    for (size_t i = 0; i < a->nfabrics; i++)
        assert_same_fabric(&a->fabrics[i], &b->fabrics[i]);
    assert_int_equal(a->nparts, b->nparts);
    for (size_t i = 0; i < a->nparts; i++) {
        assert_string_equal(a->parts[i].partition, b->parts[i].partition);
        assert_int_equal(a->parts[i].fabric, b->parts[i].fabric);
    }
    assert_int_equal(a->default_fabric, b->default_fabric);
}

static char *write_mem(const ct_sigfile *sf, size_t *len)
{
    char *buf = NULL;
    FILE *m = open_memstream(&buf, len);
    assert_non_null(m);
    ct_err err;
    int rc = ct_sigfile_write(m, sf, &err);
    if (rc)
        print_error("write: %s\n", err.msg);
    assert_int_equal(rc, 0);
    fclose(m);
    return buf;
}

/* load -> write -> load gives the same structs bit for bit, and a second
 * write gives the same text. */
static void roundtrip_file(const char *path)
{
    ct_sigfile a, b, c;
    ct_err err;
    if (ct_sigfile_load(path, &a, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    size_t l1, l2;
    char *t1 = write_mem(&a, &l1);
    if (ct_sigfile_load_buffer("written", t1, l1, &b, &err)) {
        print_error("%s: written text does not load: %s\n%s\n", path, err.msg, t1);
        fail();
    }
    assert_same_file(&a, &b);
    assert_true(ct_sigfile_equal(&a, &b));
    char *t2 = write_mem(&b, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(t1, t2, l1);
    assert_int_equal(ct_sigfile_load_buffer("again", t2, l2, &c, &err), 0);
    assert_same_file(&a, &c);
    ct_sigfile_free(&a);
    ct_sigfile_free(&b);
    ct_sigfile_free(&c);
    free(t1);
    free(t2);
}


/* The topology section: switches, nodes, capacities in SI (an
 * oversubscription ratio resolved against the NIC bandwidth), the job view,
 * the switch order, write/load round trip, diff. */
static void test_topology_section(void **state)
{
    (void)state;
    ct_sigfile sf;
    ct_err err;
    if (ct_sigfile_load(SIGDIR "valid_topology.yaml", &sf, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    const ct_fabric *f = ct_sigfile_fabric(&sf, "emu");
    assert_non_null(f);
    const ct_topology *t = f->topology;
    assert_non_null(t);
    assert_string_equal(t->source, "imported from topology.conf");
    assert_int_equal(t->nswitches, 3);
    assert_int_equal(t->nnodes, 4);
    int32_t spine = ct_topology_switch(t, "spine"), l1 = ct_topology_switch(t, "leaf1"),
            l2 = ct_topology_switch(t, "leaf2");
    assert_true(spine >= 0 && l1 >= 0 && l2 >= 0);
    assert_int_equal(t->sw[spine].parent, -1);
    assert_int_equal(t->sw[l1].parent, spine);
    assert_int_equal(t->sw[l2].parent, spine);
    assert_int_equal(t->sw[l1].depth, 1);
    assert_float_equal(t->sw[l1].up_cap, 6.25e6, 1e-6);
    assert_float_equal(t->sw[l1].duplex, 0.2, 0);
    assert_float_equal(t->sw[l2].duplex, 0, 0);
    /* 2:1 over two 12.5 MB/s NICs */
    assert_float_equal(t->sw[l2].up_cap, 12.5e6, 1e-6);
    assert_float_equal(t->sw[l2].oversub, 2.0, 0);
    assert_int_equal(t->node_switch[ct_topology_node(t, "n3")], l2);
    assert_int_equal(ct_topology_node(t, "n9"), -1);

    /* the job's view: nodes given out of switch order */
    const char *names[] = {"n3", "n1", "n4", "n2"};
    ct_tree_map m;
    assert_int_equal(ct_tree_map_build(t, 1.0 / f->beta, names, 4, &m, &err), 0);
    assert_int_equal(m.leaf[0], l2);
    assert_int_equal(m.leaf[1], l1);
    assert_float_equal(m.up_cap[l1], 0.5, 1e-12);
    assert_float_equal(m.up_cap[l2], 1.0, 1e-12);
    assert_float_equal(m.up_duplex[l1], 0.2, 0);
    assert_float_equal(m.up_duplex[l2], 0, 0);
    assert_float_equal(m.up_duplex[spine], 0, 0);
    assert_int_equal(ct_tree_map_leaves(&m), 2);
    int32_t perm[4];
    assert_int_equal(ct_tree_map_switch_order(&m, perm, &err), 0);
    /* leaf1 (index 1) is visited before leaf2: n1, n2, then n3, n4 */
    assert_int_equal(perm[0], 1);
    assert_int_equal(perm[1], 3);
    assert_int_equal(perm[2], 0);
    assert_int_equal(perm[3], 2);
    ct_tree_map_free(&m);
    const char *bad[] = {"n1", "n7"};
    assert_int_equal(ct_tree_map_build(t, 1.0 / f->beta, bad, 2, &m, &err), -1);
    assert_non_null(strstr(err.msg, "node 'n7' is not in the fabric's topology"));

    /* round trip, and a changed uplink shows up in the diff */
    roundtrip_file(SIGDIR "valid_topology.yaml");
    ct_topology t2;
    assert_int_equal(ct_topology_copy(&t2, t, &err), 0);
    ct_fabric g = *f;
    g.topology = &t2;
    char buf[200];
    assert_int_equal(ct_fabric_diff(f, &g, buf, sizeof buf), 0);
    t2.sw[l1].uplink_bw = 3e6;
    assert_int_equal(ct_fabric_diff(f, &g, buf, sizeof buf), 1);
    assert_string_equal(buf, "topology");
    g.topology = NULL;
    assert_int_equal(ct_fabric_diff(f, &g, buf, sizeof buf), 1);
    /* validate refuses a tree broken in memory */
    t2.sw[l1].uplink_bw = 0;
    g.topology = &t2;
    assert_int_equal(ct_fabric_validate(&g, &err), -1);
    assert_non_null(strstr(err.msg, "switch 'leaf1' gives no uplink capacity"));
    ct_topology_free(&t2);
    ct_sigfile_free(&sf);
}

typedef double (*fabric_get)(const ct_fabric *);
static double get_exchange(const ct_fabric *f)
{
    return f->exchange;
}
static double get_call(const ct_fabric *f)
{
    return f->alltoall.call;
}

/* An optional step of either sign (our extensions): fabric a of `y` sets it to
 * `want` s (written back as `written`), fabric b leaves it out (0, not
 * written); diff names `key`; `bad` is refused with `bad_msg` and the range. */
static void check_step_key(const char *y, const char *key, const char *written, double want,
                           fabric_get get, const char *bad, const char *bad_msg)
{
    ct_sigfile sf;
    ct_err err;
    assert_int_equal(ct_sigfile_load_buffer("mem", y, strlen(y), &sf, &err), 0);
    assert_true(get(must_fabric(&sf, "a")) == want);
    assert_true(get(must_fabric(&sf, "b")) == 0);
    size_t l = 0;
    char *t = write_mem(&sf, &l);
    const char *at = strstr(t, written);
    assert_non_null(at);
    assert_null(strstr(at + 1, key)); /* b's absent value is not written */
    char buf[256];
    assert_int_equal(ct_fabric_diff(must_fabric(&sf, "a"), must_fabric(&sf, "b"), buf, sizeof buf), 1);
    assert_non_null(strstr(buf, key));
    free(t);
    ct_sigfile_free(&sf);
    assert_int_equal(ct_sigfile_load_buffer("mem", bad, strlen(bad), &sf, &err), -1);
    print_message("%s\n", err.msg);
    assert_non_null(strstr(err.msg, bad_msg));
    assert_non_null(strstr(err.msg, "(accepted: a number >= -1e+06 and <= 1e+06)"));
}

/* p2p.exchange_us (our extension, session 15): optional, absent = 0 and not
 * written back; negative accepted (a token bucket's refill), |v| <= 1 s;
 * diff names it. */
static void test_exchange_step_key(void **state)
{
    (void)state;
    check_step_key(
        "version: 1\nfabrics:\n  a:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2, exchange_us: -2500}\n"
        "  b:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2}\n",
        "p2p.exchange_us", "exchange_us: -2500", -2.5e-3, get_exchange,
        "version: 1\nfabrics:\n  a:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2, exchange_us: 2e6}\n",
        "mem:4:56: fabrics.a.p2p.exchange_us is 2e6");
}

/* p2p.bucket_bytes and p2p.bucket_pause_us (our extension, session 29: a
 * token bucket's refill): optional, absent = 0 and not written back,
 * non-negative; diff names them; a negative one is refused with its place. */
static void test_bucket_keys(void **state)
{
    (void)state;
    const char *y = "version: 1\nfabrics:\n  a:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2, "
                    "exchange_us: -2500, bucket_bytes: 163840, bucket_pause_us: 3250}\n"
                    "  b:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2, exchange_us: -2500}\n";
    ct_sigfile sf;
    ct_err err;
    assert_int_equal(ct_sigfile_load_buffer("mem", y, strlen(y), &sf, &err), 0);
    const ct_fabric *a = must_fabric(&sf, "a"), *b = must_fabric(&sf, "b");
    assert_true(a->bucket == 163840 && fabs(a->bucket_pause - 3.25e-3) < 1e-15);
    assert_true(b->bucket == 0 && b->bucket_pause == 0);
    size_t l = 0;
    char *t = write_mem(&sf, &l);
    const char *at = strstr(t, "bucket_bytes: 163840");
    assert_non_null(at);
    assert_non_null(strstr(at, "bucket_pause_us: 3250"));
    assert_null(strstr(strstr(at, "bucket_pause_us") + 1, "bucket_")); /* not b's */
    char buf[256];
    assert_int_equal(ct_fabric_diff(a, b, buf, sizeof buf), 2);
    assert_non_null(strstr(buf, "p2p.bucket_bytes"));
    assert_non_null(strstr(buf, "p2p.bucket_pause_us"));
    free(t);
    ct_sigfile_free(&sf);
    const char *bad = "version: 1\nfabrics:\n  a:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2, "
                      "bucket_bytes: -5}\n";
    assert_int_equal(ct_sigfile_load_buffer("mem", bad, strlen(bad), &sf, &err), -1);
    print_message("%s\n", err.msg);
    assert_non_null(strstr(err.msg, "mem:4:57: fabrics.a.p2p.bucket_bytes is -5 (accepted: a number >= 0"));
}

/* tcp_congestion_control (our extension, session 62): optional, "" when
 * absent and then not written; written back and read again as it was; diff
 * names it; ct_tcp_cc_ok takes the kernel's names and nothing else; a fabric
 * built in memory with a bad one is refused by ct_fabric_validate. */
static void test_tcp_congestion_control_key(void **state)
{
    (void)state;
    const char *y = "version: 1\nfabrics:\n  a:\n    tcp_congestion_control: cubic\n"
                    "    p2p: {alpha_us: 1, bandwidth_MBps: 2}\n"
                    "  b:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2}\n";
    ct_sigfile sf, back;
    ct_err err;
    assert_int_equal(ct_sigfile_load_buffer("mem", y, strlen(y), &sf, &err), 0);
    const ct_fabric *a = must_fabric(&sf, "a"), *b = must_fabric(&sf, "b");
    assert_string_equal(a->tcp_cc, "cubic");
    assert_string_equal(b->tcp_cc, "");
    size_t l = 0;
    char *t = write_mem(&sf, &l);
    assert_non_null(strstr(t, "    tcp_congestion_control: \"cubic\"\n"));
    assert_int_equal(strstr(strstr(t, "tcp_congestion_control") + 1, "tcp_congestion_control"),
                     NULL); /* b has none */
    assert_int_equal(ct_sigfile_load_buffer("mem2", t, l, &back, &err), 0);
    assert_string_equal(must_fabric(&back, "a")->tcp_cc, "cubic");
    char buf[256];
    assert_int_equal(ct_fabric_diff(a, b, buf, sizeof buf), 1);
    assert_string_equal(buf, "tcp_congestion_control");
    assert_int_equal(ct_fabric_diff(a, must_fabric(&back, "a"), buf, sizeof buf), 0);
    free(t);
    ct_sigfile_free(&back);
    /* the names Linux gives its own (tcp_cong.c's modules) pass; others not */
    const char *good[] = {"cubic", "bbr", "reno", "dctcp", "htcp", "highspeed", "cdg", "bbr2",
                          "westwood", "scalable", "lp", "nv", "vegas", "veno", "yeah",
                          "illinois", "hybla", "bic"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(ct_tcp_cc_ok(good[i]));
    const char *bad[] = {"", "Cubic", "bbr v2", "cubic\n", "a-b", "sixteen_chars_xx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(ct_tcp_cc_ok(bad[i]));
    assert_true(ct_tcp_cc_ok("fifteen_chars_x"));
    ct_fabric f = *a;
    snprintf(f.tcp_cc, sizeof f.tcp_cc, "%s", "Cubic");
    assert_int_equal(ct_fabric_validate(&f, &err), -1);
    assert_non_null(strstr(err.msg, "fabric 'a': tcp_congestion_control 'Cubic' is not"));
    ct_sigfile_free(&sf);
}

/* alltoall.call_us (our extension, session 16): the same rules as
 * exchange_us; the papers' keys beside it unchanged. */
static void test_call_step_key(void **state)
{
    (void)state;
    check_step_key(
        "version: 1\nfabrics:\n  a:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2}\n"
        "    alltoall: {gamma: 1.1, delta_us: 0, M_bytes: 0, call_us: -4821.5}\n"
        "  b:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2}\n"
        "    alltoall: {gamma: 1.1, delta_us: 0, M_bytes: 0}\n",
        "alltoall.call_us", "call_us: -4821.5", -4821.5e-6, get_call,
        "version: 1\nfabrics:\n  a:\n    p2p: {alpha_us: 1, bandwidth_MBps: 2}\n"
        "    alltoall: {gamma: 1.1, delta_us: 0, M_bytes: 0, call_us: -1.5e6}\n",
        "mem:5:62: fabrics.a.alltoall.call_us is -1.5e6");
}

static void test_roundtrip_every_shipped_conf(void **state)
{
    (void)state;
    DIR *d = opendir(CT_SOURCE_ROOT "/conf");
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".yaml") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/conf/%s", CT_SOURCE_ROOT, e->d_name);
        roundtrip_file(path);
        n++;
    }
    closedir(d);
    assert_true(n >= 1);
}

static void test_roundtrip_full_fixture(void **state)
{
    (void)state;
    roundtrip_file(SIGDIR "valid_full.yaml");
}

/* conf/signatures.yaml carries the numbers of tests/fixtures/vectors/
 * signatures.txt (papers 000/002) exactly, each fabric marked published and
 * its alpha/beta declared nominal; the GigE fabrics carry paper 001's
 * penalty parameters, Myrinet the Stop & Go model. */
static void test_shipped_signatures_are_the_published_ones(void **state)
{
    (void)state;
    ct_sigfile sf;
    ct_err err;
    assert_int_equal(ct_sigfile_load(CT_SOURCE_ROOT "/conf/signatures.yaml", &sf, &err), 0);
    FILE *v = fopen(CT_FIXTURES "/vectors/signatures.txt", "r");
    assert_non_null(v);
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, v)) {
        char name[64];
        double gamma, delta, M;
        if (line[0] == '#' || sscanf(line, "%63s %lf %lf %lf", name, &gamma, &delta, &M) != 4)
            continue;
        const ct_fabric *f = must_fabric(&sf, name);
        assert_int_equal(f->has_alltoall, 1);
        /* the YAML writes delta in us: 8230 us must be the double nearest 0.00823 s */
        assert_true(f->alltoall.gamma == gamma);
        assert_true(f->alltoall.delta == delta);
        assert_true(f->alltoall.M == M);
        assert_int_equal(f->published, 1);
        assert_non_null(strstr(f->p2p_source, "nominal"));
        assert_true(f->source[0] != '\0');
        rows++;
    }
    fclose(v);
    assert_int_equal(rows, 4);
    for (size_t i = 0; i < sf.nfabrics; i++) {
        const ct_fabric *f = &sf.fabrics[i];
        if (strstr(f->name, "gige") || strcmp(f->name, "gigabit_ethernet") == 0) {
            assert_int_equal(f->penalty.kind, CT_MODEL_GIGE);
            assert_true(f->penalty.real[CT_GIGE_SHARE] == 0.75); /* 001 §V-A */
            assert_true(f->penalty.real[CT_GIGE_SKEW_IN] == 0.036);
            assert_true(f->penalty.real[CT_GIGE_SKEW_OUT] == 0.115);
            assert_true(f->beta == 1.0 / 125e6); /* nominal 1 Gbit/s */
        }
    }
    assert_int_equal(must_fabric(&sf, "myrinet_gm")->penalty.kind, CT_MODEL_STOPGO);
    assert_true(must_fabric(&sf, "fast_ethernet")->alpha == 60e-6);       /* 000 §6.1 */
    assert_true(must_fabric(&sf, "fast_ethernet")->beta == 1.0 / 12.5e6); /* 100 Mbit/s */
    assert_true(must_fabric(&sf, "myrinet_gm")->beta == 1.0 / 250e6);     /* 2 Gbit/s */
    assert_non_null(ct_sigfile_for_partition(&sf, NULL));
    ct_sigfile_free(&sf);
}

/* Deterministic xorshift64* so the values are the same on every libc. */
static uint64_t rs = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
    rs ^= rs >> 12;
    rs ^= rs << 25;
    rs ^= rs >> 27;
    return (double)((rs * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}
static double logu(double lo, double hi)
{
    return exp(log(lo) + (log(hi) - log(lo)) * urand());
}

/* Values computed in memory (e.g. by a fit): one write/load keeps every
 * field bit for bit except beta, which the file holds as the bandwidth
 * 1/beta and may move by one ulp (relative 2^-52); the second cycle is exact. */
static void test_roundtrip_random_values(void **state)
{
    (void)state;
    for (int it = 0; it < 3000; it++) {
        ct_fabric f;
        ct_fabric_init(&f);
        snprintf(f.name, sizeof f.name, "f%d", it);
        f.alpha = urand() < 0.1 ? 0 : logu(1e-9, 1);
        f.beta = logu(1e-13, 1e-3);
        f.intra_bw = urand() < 0.3 ? 0 : logu(1e5, 1e13);
        f.has_alltoall = urand() < 0.8;
        f.alltoall.gamma = logu(1e-3, 100);
        f.alltoall.delta = urand() < 0.2 ? 0 : logu(1e-9, 10);
        f.alltoall.M = urand() < 0.5 ? floor(logu(1, 1e9)) : logu(1, 1e9);
        f.a2a_fit_error = urand() < 0.5 ? -1 : urand();
        f.a2a_fitted_n = urand() < 0.5 ? 0 : 2 + (int)(urand() * 1000);
        f.ngap = (size_t)(urand() * 5);
        double m = 0;
        for (size_t k = 0; k < f.ngap; k++) {
            f.gap_m[k] = m;
            m += logu(1e-3, 1e6);
            f.gap_g[k] = logu(1e-9, 1);
        }
        f.plogp_L = urand() < 0.5 ? 0 : logu(1e-9, 1e-2);
        f.exchange = urand() < 0.5 ? 0 : (urand() - 0.5) * 0.02;
        f.bucket = urand() < 0.5 ? 0 : logu(1e3, 1e7);
        f.bucket_pause = f.bucket > 0 ? logu(1e-5, 1) : 0;
        int kind = (int)(urand() * 4);
        f.penalty.kind = kind == 0   ? CT_MODEL_NONE
                         : kind == 1 ? CT_MODEL_GIGE
                         : kind == 2 ? CT_MODEL_STOPGO
                                     : CT_MODEL_FAIRSHARE;
        f.penalty.real[CT_GIGE_SHARE] = logu(0.01, 10);
        f.penalty.real[CT_GIGE_SKEW_IN] = urand() * 0.999;
        f.penalty.real[CT_GIGE_SKEW_OUT] = urand() * 0.999;
        if (f.penalty.kind == CT_MODEL_STOPGO) { /* integer slots are per model */
            f.penalty.integer[CT_STOPGO_METHOD] = (ct_stopgo_method)(int)(urand() * 3);
            f.penalty.integer[CT_STOPGO_SEED] = (unsigned long)(urand() * 1e9);
        }
        ct_sigfile one = {1, 1, &f, 0, NULL, 0};
        size_t l1, l2;
        char *t1 = write_mem(&one, &l1);
        ct_sigfile a, b;
        ct_err err;
        if (ct_sigfile_load_buffer("w1", t1, l1, &a, &err)) {
            print_error("%s\n%s\n", err.msg, t1);
            fail();
        }
        ct_fabric fb = f;
        if (a.fabrics[0].beta != f.beta) {
            double rel = fabs(a.fabrics[0].beta - f.beta) / f.beta;
            if (rel > 2.3e-16) {
                print_error("beta %.17g came back %.17g\n", f.beta, a.fabrics[0].beta);
                fail();
            }
            fb.beta = a.fabrics[0].beta;
        }
        if (!f.has_alltoall) /* not written, not compared */
            fb.alltoall = a.fabrics[0].alltoall, fb.a2a_fitted_n = 0, fb.a2a_fit_error = -1;
        if (f.penalty.kind != CT_MODEL_GIGE)
            fb.penalty.real[CT_GIGE_SHARE] = fb.penalty.real[CT_GIGE_SKEW_IN] =
                fb.penalty.real[CT_GIGE_SKEW_OUT] = 0;
        if (f.penalty.kind != CT_MODEL_STOPGO)
            fb.penalty.integer[CT_STOPGO_METHOD] = CT_STOPGO_AUTO,
            fb.penalty.integer[CT_STOPGO_SEED] = 0;
        assert_same_fabric(&fb, &a.fabrics[0]);
        char *t2 = write_mem(&a, &l2);
        assert_int_equal(ct_sigfile_load_buffer("w2", t2, l2, &b, &err), 0);
        assert_same_file(&a, &b);
        char *t3 = write_mem(&b, &l1);
        assert_int_equal(l1, l2);
        assert_memory_equal(t2, t3, l2);
        ct_sigfile_free(&a);
        ct_sigfile_free(&b);
        free(t1);
        free(t2);
        free(t3);
    }
}

/* Strings keep every byte through the writer's escapes, including YAML line
 * breaks that a quoted scalar would otherwise fold (NEL, LS, PS). */
static void test_strings_roundtrip(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "plain",
        "with \"quotes\" and \\backslash\\",
        "line\nbreak and\ttab",
        "  padded  ",
        "caf\xc3\xa9 \xe2\x80\x94 \xce\xb3"
        " = 4.36",
        "NEL\xc2\x85"
        "LS\xe2\x80\xa8"
        "PS\xe2\x80\xa9"
        "end",
        "# not a comment",
        "key: value",
        "- dash",
        "{braces}",
        "",
        "'single'",
        "null",
        "true",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        ct_fabric f;
        ct_fabric_init(&f);
        strcpy(f.name, "s");
        f.beta = 1e-9;
        snprintf(f.description, sizeof f.description, "%s", texts[i]);
        snprintf(f.source, sizeof f.source, "%s", texts[i]);
        snprintf(f.penalty_source, sizeof f.penalty_source, "%s", texts[i]);
        ct_sigfile one = {1, 1, &f, 0, NULL, 0};
        size_t l;
        char *t = write_mem(&one, &l);
        ct_sigfile a;
        ct_err err;
        if (ct_sigfile_load_buffer("s", t, l, &a, &err)) {
            print_error("text %zu: %s\n%s\n", i, err.msg, t);
            fail();
        }
        assert_string_equal(a.fabrics[0].description, texts[i]);
        assert_string_equal(a.fabrics[0].source, texts[i]);
        assert_string_equal(a.fabrics[0].penalty_source, texts[i]);
        ct_sigfile_free(&a);
        free(t);
    }
}

static void expect_write_error(ct_sigfile *sf, const char *what)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ct_err err;
    assert_int_equal(ct_sigfile_write(m, sf, &err), -1);
    fclose(m);
    if (!strstr(err.msg, what)) {
        print_error("message '%s' lacks '%s'\n", err.msg, what);
        fail();
    }
    free(buf);
}

/* The writer refuses what the loader would refuse (never writes a file
 * that does not load). */
static void test_write_refuses_invalid_values(void **state)
{
    (void)state;
    ct_fabric f[2];
    ct_fabric_init(&f[0]);
    strcpy(f[0].name, "a");
    f[0].beta = 1e-9;
    f[1] = f[0];
    strcpy(f[1].name, "b");
    ct_sigfile sf = {1, 2, f, 0, NULL, -1};

    f[0].alpha = -1e-6;
    expect_write_error(&sf, "fabric 'a': p2p.alpha_us is -1 (accepted: a number >= 0)");
    f[0].alpha = NAN;
    expect_write_error(&sf, "p2p.alpha_us");
    f[0].alpha = 0;
    f[0].beta = 0;
    expect_write_error(&sf, "p2p.bandwidth_MBps");
    f[0].beta = 1e-9;
    f[1].has_alltoall = 1;
    f[1].alltoall.gamma = INFINITY;
    expect_write_error(&sf, "fabric 'b': alltoall.gamma");
    f[1].alltoall.gamma = 2;
    f[1].penalty.kind = CT_MODEL_GIGE;
    f[1].penalty.real[CT_GIGE_SHARE] = 0.75;
    f[1].penalty.real[CT_GIGE_SKEW_IN] = 1.0;
    expect_write_error(&sf, "penalty.gamma_i is 1 (accepted: a number >= 0 and < 1)");
    f[1].penalty.real[CT_GIGE_SKEW_IN] = 0.036;
    strcpy(f[1].name, "a");
    expect_write_error(&sf, "fabric name 'a' appears twice");
    strcpy(f[1].name, "bad name");
    expect_write_error(&sf, "fabric name 'bad name' is not valid");
    strcpy(f[1].name, "b");
    ct_partition_map pm = {"p", 5};
    sf.parts = &pm;
    sf.nparts = 1;
    expect_write_error(&sf, "partition 'p' maps to fabric index 5");
    pm.fabric = 1;
    sf.default_fabric = 2;
    expect_write_error(&sf, "default fabric index 2");
    sf.default_fabric = 1;
    size_t l;
    char *t = write_mem(&sf, &l); /* now valid */
    ct_sigfile back;
    ct_err err;
    assert_int_equal(ct_sigfile_load_buffer("ok", t, l, &back, &err), 0);
    assert_ptr_equal(ct_sigfile_for_partition(&back, "p"), &back.fabrics[1]);
    ct_sigfile_free(&back);
    free(t);
}

/* ct_fabric_write emits an entry that sits under `fabrics:`. */
static void test_fabric_entry_pastes_under_fabrics(void **state)
{
    (void)state;
    ct_fabric f;
    ct_fabric_init(&f);
    strcpy(f.name, "fitted");
    f.alpha = 50e-6;
    f.beta = 1.0 / 117e6;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fputs("version: 1\nfabrics:\n", m);
    ct_err err;
    assert_int_equal(ct_fabric_write(m, &f, &err), 0);
    fclose(m);
    ct_sigfile sf;
    assert_int_equal(ct_sigfile_load_buffer("entry", buf, len, &sf, &err), 0);
    assert_true(sf.fabrics[0].alpha == 50e-6);
    assert_true(sf.fabrics[0].beta == 1.0 / 117e6);
    ct_sigfile_free(&sf);
    free(buf);
}

static void test_diff_names_changed_keys(void **state)
{
    (void)state;
    ct_sigfile sf;
    ct_err err;
    assert_int_equal(ct_sigfile_load(SIGDIR "valid_full.yaml", &sf, &err), 0);
    ct_fabric a = sf.fabrics[0], b = a;
    char buf[256];
    assert_int_equal(ct_fabric_diff(&a, &b, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    b.alpha *= 2;
    b.alltoall.gamma = 1;
    b.penalty.real[CT_GIGE_SKEW_OUT] = 0.2;
    strcpy(b.description, "other");
    assert_int_equal(ct_fabric_diff(&a, &b, buf, sizeof buf), 4);
    assert_string_equal(buf, "description, p2p.alpha_us, alltoall.gamma, penalty.gamma_o");
    b = a;
    b.has_alltoall = 0;
    b.penalty.kind = CT_MODEL_FAIRSHARE;
    assert_int_equal(ct_fabric_diff(&a, &b, buf, sizeof buf), 2);
    assert_string_equal(buf, "alltoall, penalty.model");
    /* a tiny buffer truncates the list but still counts */
    assert_int_equal(ct_fabric_diff(&a, &b, buf, 5), 2);
    assert_int_equal(strlen(buf), 4);
    ct_sigfile_free(&sf);
}

static void expect_buffer_error(const char *buf, size_t len, const char *what)
{
    ct_sigfile sf;
    ct_err err;
    err.msg[0] = '\0';
    assert_int_equal(ct_sigfile_load_buffer("buf", buf, len, &sf, &err), -1);
    if (!strstr(err.msg, what)) {
        print_error("message '%s' lacks '%s'\n", err.msg, what);
        fail();
    }
    assert_null(sf.fabrics);
}

/* Limits keep hostile input cheap: size, nesting, node and fabric counts. */
static void test_limits(void **state)
{
    (void)state;
    expect_buffer_error(NULL, 0, "the file is empty");
    expect_buffer_error("", 0, "buf:1:1: the file is empty");
    expect_buffer_error("# only a comment\n", 17, "the file is empty");
    expect_buffer_error("version: 1\x00\n", 12, "YAML syntax error");

    size_t big = CT_SIG_MAX_BYTES + 1;
    char *b = malloc(big);
    assert_non_null(b);
    memset(b, ' ', big);
    expect_buffer_error(b, big, "accepted: at most 4194304 bytes");
    free(b);

    char deep[200];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    expect_buffer_error(deep, sizeof deep, "nesting deeper than 32 levels");

    /* 1100 fabrics: over CT_SIG_MAX_FABRICS */
    char *many = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&many, &len);
    fputs("version: 1\nfabrics:\n", m);
    for (int i = 0; i < 1100; i++)
        fprintf(m, "  f%d: {p2p: {alpha_us: 1, bandwidth_MBps: 1}}\n", i);
    fclose(m);
    expect_buffer_error(many, len, "1100 fabrics (accepted: at most 1024)");
    free(many);

    ct_sigfile sf;
    ct_err err;
    assert_int_equal(ct_sigfile_load(SIGDIR "no_such_file.yaml", &sf, &err), -1);
    assert_non_null(strstr(err.msg, "no_such_file.yaml: cannot open: No such file or directory"));
    assert_null(ct_sigfile_fabric(NULL, "x"));
    assert_null(ct_sigfile_for_partition(NULL, NULL));
}

/* A buffer that must load (its error printed if not). */
static void load_ok(const char *buf, size_t len, ct_sigfile *sf)
{
    ct_err err;
    int rc = ct_sigfile_load_buffer("ok", buf, len, sf, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, 0);
}

/* Values at the edges of what is accepted load; just past them do not. */
static void test_range_edges(void **state)
{
    (void)state;
    static const char ok[] =
        "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 0, bandwidth_MBps: 1e-300}\n"
        "    alltoall: {gamma: 0, delta_us: 0, M_bytes: 0, fit_max_rel_err: 0}\n"
        "    penalty: {model: gige, beta: 1e-300, gamma_i: 0, gamma_o: 0.999999}\n";
    ct_sigfile sf;
    load_ok(ok, sizeof ok - 1, &sf);
    assert_true(sf.fabrics[0].beta == 1.0 / 1e-294);
    ct_sigfile_free(&sf);
    /* finite in MB/s, infinite in bytes/s */
    static const char huge[] =
        "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 0, bandwidth_MBps: 1}\n"
        "    intra_node_bandwidth_MBps: 1e303\n";
    expect_buffer_error(huge, sizeof huge - 1, "out of range once converted to SI");
    /* subnormal: strtod reports a range error */
    static const char tiny[] =
        "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 1e-310, bandwidth_MBps: 1}\n";
    expect_buffer_error(tiny, sizeof tiny - 1, "out of range (accepted: a finite decimal number");
    static const char gam[] =
        "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 0, bandwidth_MBps: 1}\n"
        "    penalty: {model: gige, beta: 0, gamma_i: 0, gamma_o: 0}\n";
    expect_buffer_error(gam, sizeof gam - 1, "penalty.beta is 0 (accepted: a number > 0)");
    static const char hex[] =
        "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 0x10, bandwidth_MBps: 1}\n";
    expect_buffer_error(hex, sizeof hex - 1,
                        "buf:4:21: fabrics.e.p2p.alpha_us is '0x10', not a number");
}

/* The nodes' shared copy rate (session 55): optional, MB/s like the one-node
 * rate, written back only when set, named by the diff, never negative. */
static void test_intra_shared(void **state)
{
    (void)state;
    static const char ok[] = "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 5, bandwidth_MBps: 100}\n"
                             "    intra_node_bandwidth_MBps: 1000\n"
                             "    intra_node_shared_MBps: 1900\n";
    ct_sigfile sf;
    load_ok(ok, sizeof ok - 1, &sf);
    assert_true(sf.fabrics[0].intra_shared_bw == 1900e6);
    size_t len;
    char *text = write_mem(&sf, &len);
    assert_non_null(strstr(text, "    intra_node_shared_MBps: 1900\n"));
    ct_sigfile back;
    load_ok(text, len, &back);
    assert_same_fabric(&sf.fabrics[0], &back.fabrics[0]);
    free(text);
    ct_fabric g = sf.fabrics[0];
    char buf[200];
    g.intra_shared_bw = 0;
    assert_int_equal(ct_fabric_diff(&sf.fabrics[0], &g, buf, sizeof buf), 1);
    assert_string_equal(buf, "intra_node_shared_MBps");
    ct_sigfile_free(&back);
    /* absent: 0, and not written */
    sf.fabrics[0].intra_shared_bw = 0;
    text = write_mem(&sf, &len);
    assert_null(strstr(text, "intra_node_shared_MBps"));
    free(text);
    ct_sigfile_free(&sf);
    static const char neg[] = "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 5, bandwidth_MBps: 100}\n"
                              "    intra_node_shared_MBps: -3\n";
    expect_buffer_error(neg, sizeof neg - 1, "intra_node_shared_MBps");
}

/* The intra-node lines (session 57): optional, µs and MB/s, written back
 * only when set; a latency needs its line's rate, the shared line the shared
 * rate; a rate alone is a line of latency 0 (the writer omits a zero). */
static void test_intra_line(void **state)
{
    (void)state;
    static const char ok[] = "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 5, bandwidth_MBps: 100}\n"
                             "    intra_node_bandwidth_MBps: 1000\n"
                             "    intra_node_shared_MBps: 1900\n"
                             "    intra_node_latency_us: 2000\n"
                             "    intra_node_line_MBps: 5000\n"
                             "    intra_node_shared_latency_us: 1500\n"
                             "    intra_node_shared_line_MBps: 2500\n";
    ct_sigfile sf;
    load_ok(ok, sizeof ok - 1, &sf);
    const ct_fabric *f = &sf.fabrics[0];
    assert_true(fabs(f->intra_alpha - 2e-3) < 1e-15 && f->intra_line_bw == 5000e6);
    assert_true(fabs(f->intra_shared_alpha - 1.5e-3) < 1e-15 && f->intra_shared_line_bw == 2500e6);
    size_t len;
    char *text = write_mem(&sf, &len);
    assert_non_null(strstr(text, "    intra_node_latency_us: 2000\n"));
    assert_non_null(strstr(text, "    intra_node_shared_line_MBps: 2500\n"));
    ct_sigfile back;
    load_ok(text, len, &back);
    assert_same_fabric(&sf.fabrics[0], &back.fabrics[0]);
    free(text);
    ct_sigfile_free(&back);
    ct_fabric g = sf.fabrics[0];
    char buf[200];
    g.intra_alpha = 1e-3;
    assert_int_equal(ct_fabric_diff(&sf.fabrics[0], &g, buf, sizeof buf), 1);
    assert_string_equal(buf, "intra_node_latency_us");
    /* latency 0: the rate alone is written, and reads back as the same line */
    sf.fabrics[0].intra_alpha = 0;
    text = write_mem(&sf, &len);
    assert_null(strstr(text, "intra_node_latency_us"));
    assert_non_null(strstr(text, "intra_node_line_MBps: 5000"));
    load_ok(text, len, &back);
    assert_same_fabric(&sf.fabrics[0], &back.fabrics[0]);
    free(text);
    ct_sigfile_free(&back);
    ct_sigfile_free(&sf);
    static const char lat_only[] =
        "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 5, bandwidth_MBps: 100}\n"
        "    intra_node_bandwidth_MBps: 1000\n"
        "    intra_node_latency_us: 2000\n";
    expect_buffer_error(lat_only, sizeof lat_only - 1,
                        "buf:6:28: fabrics.e.intra_node_latency_us given without "
                        "fabrics.e.intra_node_line_MBps");
    static const char shared_line_only[] =
        "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 5, bandwidth_MBps: 100}\n"
        "    intra_node_shared_line_MBps: 2500\n";
    expect_buffer_error(shared_line_only, sizeof shared_line_only - 1,
                        "buf:5:34: fabrics.e.intra_node_shared_line_MBps given without "
                        "fabrics.e.intra_node_shared_MBps");
    static const char neg[] = "version: 1\nfabrics:\n  e:\n    p2p: {alpha_us: 5, bandwidth_MBps: 100}\n"
                              "    intra_node_line_MBps: 0\n";
    expect_buffer_error(neg, sizeof neg - 1, "intra_node_line_MBps");
    /* the in-memory check: a latency without its rate */
    ct_fabric h;
    ct_fabric_init(&h);
    snprintf(h.name, sizeof h.name, "h");
    h.alpha = 1e-6;
    h.beta = 1e-8;
    h.intra_bw = 1e9;
    h.intra_alpha = 1e-3;
    ct_err err;
    assert_int_equal(ct_fabric_validate(&h, &err), -1);
    assert_non_null(strstr(err.msg, "intra_node_latency_us 1000 without intra_node_line_MBps"));
}

/* The loader's model names are penalty.h's names (ct_model_name), so a
 * model the library knows is a model the file can name. */
/* The extensions: a piecewise p2p curve read through the one accessor, and
 * gamma(k, f); a file without them loads as before (every other test). */
static void test_segments_and_incast(void **state)
{
    (void)state;
    ct_sigfile sf;
    ct_err err;
    int rc = ct_sigfile_load(SIGDIR "valid_segments.yaml", &sf, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, 0);
    const ct_fabric *f = must_fabric(&sf, "bent");
    assert_int_equal(f->p2p_segments.nseg, 2);
    assert_true(f->p2p_segments.seg[1].from == 65536);
    assert_true(f->p2p_segments.seg[1].alpha == -5157.36e-6);
    assert_true(f->p2p_segments.seg[1].beta == 1.0 / 12.5e6);
    double a, b;
    ct_fabric_p2p_at(f, 1024, &a, &b);
    assert_true(a == 20e-6 && b == 1.0 / 1000e6);
    ct_fabric_p2p_at(f, 1 << 20, &a, &b);
    assert_true(a == -5157.36e-6 && b == 1.0 / 12.5e6);
    assert_true(f->alltoall.gamma_incast == 0.15 && f->alltoall.gamma_flows == 0.01);
    assert_true(f->exchange == -4989e-6);
    assert_true(f->alltoall.call == 1830e-6);
    assert_true(f->alltoall.k_max == 3 && f->alltoall.f_max == 12);
    assert_true(f->alltoall.flows_exp == 0.5); /* session 21: the flows term's shape */
    /* session 24: the incast-loss term and its flow bounds */
    assert_true(f->alltoall.gamma_loss == 0.41 && f->alltoall.loss_min_f == 12 &&
                f->alltoall.loss_max_f == 50);
    /* session 69: the incast intercept */
    assert_true(f->alltoall.call_incast == 7250e-6);
    /* without segments the accessor gives the fabric's single alpha, beta */
    ct_fabric g;
    ct_fabric_init(&g);
    g.alpha = 60e-6;
    g.beta = 8e-8;
    ct_fabric_p2p_at(&g, 1 << 20, &a, &b);
    assert_true(a == 60e-6 && b == 8e-8);
    /* diff names the new keys */
    ct_fabric h = *f;
    h.p2p_segments.seg[1].beta *= 1.5;
    h.alltoall.gamma_flows = 0;
    char buf[256];
    assert_int_equal(ct_fabric_diff(f, &h, buf, sizeof buf), 2);
    assert_non_null(strstr(buf, "p2p.segments"));
    assert_non_null(strstr(buf, "alltoall.gamma_flows"));
    /* validate applies the loader's rules to a curve built in memory */
    h = *f;
    h.p2p_segments.seg[1].from = 0;
    assert_int_equal(ct_fabric_validate(&h, &err), -1);
    assert_non_null(strstr(err.msg, "p2p.segments"));
    /* and the incast-loss term's bounds */
    h = *f;
    h.alltoall.loss_max_f = 12;
    assert_int_equal(ct_fabric_validate(&h, &err), -1);
    assert_non_null(strstr(err.msg, "alltoall.gamma_loss = 0.41 with loss_min_f = 12"));
    h = *f;
    h.alltoall.call_incast = -1e-3;
    assert_int_equal(ct_fabric_validate(&h, &err), -1);
    assert_non_null(strstr(err.msg, "alltoall.call_incast_us"));
    ct_sigfile_free(&sf);
    roundtrip_file(SIGDIR "valid_segments.yaml");
}

static void test_model_names_match_penalty_h(void **state)
{
    (void)state;
    const ct_model_kind kinds[] = {CT_MODEL_NONE, CT_MODEL_GIGE, CT_MODEL_STOPGO,
                                   CT_MODEL_FAIRSHARE};
    for (size_t i = 0; i < 4; i++) {
        char y[512];
        int n = snprintf(y, sizeof y,
                         "version: 1\nfabrics:\n  f:\n    p2p: {alpha_us: 1, bandwidth_MBps: 1}\n"
                         "    penalty: {model: %s%s}\n",
                         ct_model_name(kinds[i]),
                         kinds[i] == CT_MODEL_GIGE ? ", beta: 0.75, gamma_i: 0, gamma_o: 0" : "");
        ct_sigfile sf;
        ct_err err;
        int rc = ct_sigfile_load_buffer("m", y, (size_t)n, &sf, &err);
        if (rc)
            print_error("%s\n", err.msg);
        assert_int_equal(rc, 0);
        assert_int_equal(sf.fabrics[0].penalty.kind, kinds[i]);
        ct_sigfile_free(&sf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_bad_fixture_is_refused_at_its_position),
        cmocka_unit_test(test_every_bad_fixture_is_listed),
        cmocka_unit_test(test_full_file_in_si),
        cmocka_unit_test(test_no_default_means_null),
        cmocka_unit_test(test_exchange_step_key),
        cmocka_unit_test(test_bucket_keys),
        cmocka_unit_test(test_call_step_key),
        cmocka_unit_test(test_tcp_congestion_control_key),
        cmocka_unit_test(test_roundtrip_every_shipped_conf),
        cmocka_unit_test(test_roundtrip_full_fixture),
        cmocka_unit_test(test_shipped_signatures_are_the_published_ones),
        cmocka_unit_test(test_roundtrip_random_values),
        cmocka_unit_test(test_strings_roundtrip),
        cmocka_unit_test(test_write_refuses_invalid_values),
        cmocka_unit_test(test_fabric_entry_pastes_under_fabrics),
        cmocka_unit_test(test_diff_names_changed_keys),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_range_edges),
        cmocka_unit_test(test_model_names_match_penalty_h),
        cmocka_unit_test(test_segments_and_incast),
        cmocka_unit_test(test_intra_shared),
        cmocka_unit_test(test_intra_line),
        cmocka_unit_test(test_topology_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
