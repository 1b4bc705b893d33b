/* contention-admin show: the installed signatures, as text or JSON. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "admin.h"
#include "contention/models.h"

static void help(void)
{
    printf("Usage: contention-admin show [--config PATH] [--fabric NAME] [--json]\n\n"
           "Print the signature file (default %s):\n"
           "every fabric, or only NAME, with partitions and the default.\n\n"
           "  --config PATH   read PATH instead of the installed file\n"
           "  --fabric NAME   only this fabric\n"
           "  --json          JSON in SI units (s, s/byte, bytes, bytes/s)\n\n"
           "Exit status: 0 ok, 1 unreadable/invalid file or unknown fabric, 2 usage error.\n",
           CT_DEFAULT_SIGNATURES);
}

static void text_fabric(const ct_fabric *f)
{
    char t1[32], t2[32], b1[32];
    printf("\nfabric %s  [%s]\n", f->name,
           f->published ? "published values, not measured here" : "measured");
    if (f->description[0])
        printf("  %s\n", f->description);
    if (f->source[0])
        printf("  source:      %s\n", f->source);
    if (f->tcp_cc[0]) /* signatures.h: our extension, session 62 */
        printf("  TCP:         %s on the nodes when calibrated (a signature prices the "
               "congestion control it was measured with)\n",
               f->tcp_cc);
    printf("  p2p:         alpha %s, bandwidth %.6g MB/s (beta %.6g s/byte)\n",
           admin_fmt_time(f->alpha, t1, sizeof t1), 1.0 / f->beta / 1e6, f->beta);
    if (f->p2p_source[0])
        printf("               %s\n", f->p2p_source);
    if (f->exchange != 0) /* signatures.h: our extension, session 15 */
        printf("  exchange:    %s a pattern step (%s; our extension)\n",
               admin_fmt_time(f->exchange, t1, sizeof t1), admin_exchange_what(f->exchange));
    if (f->bucket > 0 && f->bucket_pause > 0) /* signatures.h: our extension, session 29 */
        printf("  bucket:      %s refilled at the sustained rate while a link is idle; the "
               "exchange step holds a pause of %s (a pattern scored with --pause gets the "
               "difference; our extension)\n",
               admin_fmt_bytes(f->bucket, b1, sizeof b1),
               admin_fmt_time(f->bucket_pause, t1, sizeof t1));
    if (f->ngap || f->plogp_L != 0) {
        printf("  pLogP:       L %s, %zu gap entries", admin_fmt_time(f->plogp_L, t1, sizeof t1),
               f->ngap);
        for (size_t i = 0; i < f->ngap; i++)
            printf("%s g(%s) = %s", i ? "," : ":", admin_fmt_bytes(f->gap_m[i], b1, sizeof b1),
                   admin_fmt_time(f->gap_g[i], t2, sizeof t2));
        putchar('\n');
    }
    if (f->has_alltoall) {
        printf("  alltoall:    gamma %.6g, delta %s for m >= %s (000 eq. 5)\n", f->alltoall.gamma,
               admin_fmt_time(f->alltoall.delta, t1, sizeof t1),
               admin_fmt_bytes(f->alltoall.M, b1, sizeof b1));
        if (f->alltoall.gamma_incast != 0 || f->alltoall.gamma_flows != 0) {
            printf("               gamma(k, f) = %.6g + %.6g (k-1) + %.6g %s at a port with k "
                   "peer nodes and f flows (our extension)",
                   f->alltoall.gamma, f->alltoall.gamma_incast, f->alltoall.gamma_flows,
                   admin_flows_g(f->alltoall.flows_exp, b1, sizeof b1));
            if (f->alltoall.k_max > 0 || f->alltoall.f_max > 0) /* alltoall.h */
                printf(", held beyond the fit's %s", admin_fit_range(&f->alltoall, b1, sizeof b1));
            putchar('\n');
        }
        if (f->alltoall.gamma_loss != 0) /* alltoall.h: our extension, session 24 */
            printf("               incast loss: + %.6g 2(k-1)/k at a port with k >= 2 peer nodes "
                   "and >= %.0f flows, none at <= %.0f flows, linear between (our extension)\n",
                   f->alltoall.gamma_loss, f->alltoall.loss_max_f, f->alltoall.loss_min_f);
        if (f->alltoall.call != 0) /* alltoall.h: our extension, session 16 */
            printf("               call step %s once a call (%s; our extension)\n",
                   admin_fmt_time(f->alltoall.call, t1, sizeof t1), admin_call_what(f->alltoall.call));
        if (f->alltoall.call_incast != 0) /* alltoall.h: our extension, session 69 */
            printf("               incast intercept: + %s once a call x (k-2) at a port with k >= 3 "
                   "peer nodes%s (our extension)\n",
                   admin_fmt_time(f->alltoall.call_incast, t1, sizeof t1),
                   f->alltoall.k_max > 0 ? ", k held at the fit's largest" : "");
        if (f->a2a_date[0] || f->a2a_fitted_n || f->a2a_fit_error >= 0) {
            printf("               fitted");
            if (f->a2a_date[0])
                printf(" on %s", f->a2a_date);
            if (f->a2a_fitted_n)
                printf(" with n = %d", f->a2a_fitted_n);
            if (f->a2a_fit_error >= 0)
                printf(", max relative error %.1f%%", 100 * f->a2a_fit_error);
            putchar('\n');
        }
    } else {
        printf("  alltoall:    no signature (Alltoall predictions use the penalty model)\n");
    }
    /* any registered model: its keys (optional numbers when set), then its paper */
    const ct_model_info *mi = ct_model_info_of(f->penalty.kind);
    printf("  penalty:     %s", mi->name);
    size_t shown = 0;
    for (size_t i = 0; i < mi->nkeys; i++) {
        const ct_model_key *k = &mi->keys[i];
        double v = ct_model_key_get(&f->penalty, k);
        if (!k->required && k->type != CT_PARAM_CHOICE && v == 0)
            continue;
        char text[64];
        if (k->type == CT_PARAM_REAL)
            snprintf(text, sizeof text, "%.6g", v);
        else
            ct_model_key_format(&f->penalty, k, text, sizeof text);
        printf("%s%s %s", shown++ ? ", " : " (", k->key, text);
    }
    if (shown)
        printf("; %s)", mi->cite);
    putchar('\n');
    if (f->penalty_source[0])
        printf("               %s\n", f->penalty_source);
    if (f->penalty.kind != CT_MODEL_NONE) /* session 56: models.h latency_once */
        printf("               %s\n",
               ct_model_latency_once(f->penalty.kind)
                   ? "a message's latency taken once, outside the penalty: T = alpha + p m beta "
                     "(our extension)"
                   : "the penalty stretches the latency too: T = p (alpha + m beta) (001 §IV-B)");
    if (f->intra_bw > 0 && f->intra_shared_bw > 0)
        printf("  intra-node:  %.6g MB/s a node; %.6g MB/s all nodes together (they share one "
               "host)\n",
               f->intra_bw / 1e6, f->intra_shared_bw / 1e6);
    else if (f->intra_bw > 0)
        printf("  intra-node:  %.6g MB/s\n", f->intra_bw / 1e6);
    else
        printf("  intra-node:  not modelled (time through shared memory ignored)\n");
    if (f->intra_bw > 0 && f->intra_line_bw > 0) /* session 57 */
        printf("               a step's intra-node bytes: %.6g us + bytes at %.6g MB/s a node\n",
               f->intra_alpha * 1e6, f->intra_line_bw / 1e6);
    if (f->intra_shared_bw > 0 && f->intra_shared_line_bw > 0)
        printf("               all nodes together: %.6g us + bytes at %.6g MB/s\n",
               f->intra_shared_alpha * 1e6, f->intra_shared_line_bw / 1e6);
    if (!f->topology) {
        printf("  switches:    one (no topology section)\n");
        return;
    }
    const ct_topology *t = f->topology;
    printf("  switches:    %d, %d nodes (topology/tree)%s%s\n", (int)t->nswitches, (int)t->nnodes,
           t->source[0] ? "; " : "", t->source);
    for (int32_t s = 0; s < t->nswitches; s++) {
        int32_t nodes = 0, kids = 0;
        for (int32_t v = 0; v < t->nnodes; v++)
            nodes += t->node_switch[v] == s;
        for (int32_t x = 0; x < t->nswitches; x++)
            kids += t->sw[x].parent == s;
        printf("    %-12s %d nodes, %d switches below", t->sw[s].name, (int)nodes, (int)kids);
        if (t->sw[s].parent >= 0)
            printf(", uplink to %s %.6g MB/s%s", t->sw[t->sw[s].parent].name,
                   t->sw[s].up_cap / 1e6, t->sw[s].oversub > 0 ? " (oversubscribed" : "");
        if (t->sw[s].parent >= 0 && t->sw[s].oversub > 0)
            printf(" %g:1)", t->sw[s].oversub);
        if (t->sw[s].parent >= 0 && t->sw[s].duplex > 0)
            printf(", duplex %.3g (each direction takes %.3g of the other's traffic)",
                   t->sw[s].duplex, t->sw[s].duplex);
        putchar('\n');
    }
}

static void json_key(const char *k, int *first)
{
    printf("%s", *first ? "" : ", ");
    *first = 0;
    admin_json_string(stdout, k);
    fputs(": ", stdout);
}

static void json_num(const char *k, double v, int *first)
{
    json_key(k, first);
    admin_json_number(stdout, v);
}

static void json_str(const char *k, const char *v, int *first)
{
    json_key(k, first);
    admin_json_string(stdout, v);
}

static void json_fabric(const ct_fabric *f)
{
    int first = 1;
    putchar('{');
    json_str("name", f->name, &first);
    json_str("description", f->description, &first);
    json_key("published", &first);
    fputs(f->published ? "true" : "false", stdout);
    json_str("source", f->source, &first);
    if (f->tcp_cc[0])
        json_str("tcp_congestion_control", f->tcp_cc, &first);
    json_key("p2p", &first);
    {
        int fi = 1;
        putchar('{');
        json_num("alpha_s", f->alpha, &fi);
        json_num("beta_s_per_byte", f->beta, &fi);
        json_num("bandwidth_bytes_per_s", 1.0 / f->beta, &fi);
        json_num("exchange_s", f->exchange, &fi); /* 0: none (signatures.h) */
        json_num("bucket_bytes", f->bucket, &fi); /* 0: none (signatures.h, session 29) */
        json_num("bucket_pause_s", f->bucket_pause, &fi);
        json_str("source", f->p2p_source, &fi);
        json_key("plogp", &fi);
        if (f->ngap || f->plogp_L != 0) {
            int fp = 1;
            putchar('{');
            json_num("L_s", f->plogp_L, &fp);
            json_key("gap", &fp);
            putchar('[');
            for (size_t i = 0; i < f->ngap; i++) {
                int fg = 1;
                printf("%s{", i ? ", " : "");
                json_num("m_bytes", f->gap_m[i], &fg);
                json_num("g_s", f->gap_g[i], &fg);
                putchar('}');
            }
            fputs("]}", stdout);
        } else {
            fputs("null", stdout);
        }
        putchar('}');
    }
    json_key("alltoall", &first);
    if (f->has_alltoall) {
        int fa = 1;
        putchar('{');
        json_num("gamma", f->alltoall.gamma, &fa);
        json_num("delta_s", f->alltoall.delta, &fa);
        json_num("M_bytes", f->alltoall.M, &fa);
        json_num("gamma_incast", f->alltoall.gamma_incast, &fa); /* 0: eq. 5's one gamma */
        json_num("gamma_flows", f->alltoall.gamma_flows, &fa);
        json_num("call_s", f->alltoall.call, &fa); /* 0: none (alltoall.h) */
        json_num("incast_max_k", f->alltoall.k_max, &fa); /* 0: no limit */
        json_num("flows_max_f", f->alltoall.f_max, &fa);
        json_num("flows_exponent", f->alltoall.flows_exp, &fa); /* 0: the line f - 1 */
        json_num("gamma_loss", f->alltoall.gamma_loss, &fa); /* 0: none (alltoall.h) */
        json_num("loss_min_f", f->alltoall.loss_min_f, &fa);
        json_num("loss_max_f", f->alltoall.loss_max_f, &fa);
        json_num("call_incast_s", f->alltoall.call_incast, &fa); /* 0: none (alltoall.h) */
        json_key("date", &fa);
        if (f->a2a_date[0])
            admin_json_string(stdout, f->a2a_date);
        else
            fputs("null", stdout);
        json_key("fitted_n", &fa);
        if (f->a2a_fitted_n)
            printf("%d", f->a2a_fitted_n);
        else
            fputs("null", stdout);
        json_key("fit_max_rel_err", &fa);
        if (f->a2a_fit_error >= 0)
            admin_json_number(stdout, f->a2a_fit_error);
        else
            fputs("null", stdout);
        putchar('}');
    } else {
        fputs("null", stdout);
    }
    json_key("penalty", &first);
    {
        int fp = 1;
        putchar('{');
        const ct_model_info *mi = ct_model_info_of(f->penalty.kind);
        json_str("model", mi->name, &fp);
        for (size_t i = 0; i < mi->nkeys; i++) {
            const ct_model_key *k = &mi->keys[i];
            char text[64];
            ct_model_key_format(&f->penalty, k, text, sizeof text);
            if (k->type == CT_PARAM_REAL) {
                json_num(k->key, f->penalty.real[k->slot], &fp);
            } else if (k->type == CT_PARAM_CHOICE) {
                json_str(k->key, text, &fp);
            } else {
                json_key(k->key, &fp);
                fputs(text, stdout);
            }
        }
        json_str("source", f->penalty_source, &fp);
        json_key("latency_once", &fp); /* session 56: T = alpha + p m beta */
        fputs(ct_model_latency_once(f->penalty.kind) ? "true" : "false", stdout);
        putchar('}');
    }
    json_num("intra_node_bandwidth_bytes_per_s", f->intra_bw, &first);
    json_num("intra_node_shared_bytes_per_s", f->intra_shared_bw, &first); /* 0: none */
    /* the intra-node lines (session 57); rate 0: none */
    json_num("intra_node_latency_s", f->intra_alpha, &first);
    json_num("intra_node_line_bytes_per_s", f->intra_line_bw, &first);
    json_num("intra_node_shared_latency_s", f->intra_shared_alpha, &first);
    json_num("intra_node_shared_line_bytes_per_s", f->intra_shared_line_bw, &first);
    if (f->topology) {
        const ct_topology *t = f->topology;
        json_key("topology", &first);
        printf("{\"switches\": [");
        for (int32_t s = 0; s < t->nswitches; s++) {
            int sf = 1;
            printf("%s{", s ? ", " : "");
            json_str("name", t->sw[s].name, &sf);
            json_str("parent", t->sw[s].parent >= 0 ? t->sw[t->sw[s].parent].name : "", &sf);
            json_num("uplink_bytes_per_s", t->sw[s].up_cap, &sf);
            json_num("uplink_duplex", t->sw[s].duplex, &sf);
            json_key("nodes", &sf);
            putchar('[');
            int nf = 1;
            for (int32_t v = 0; v < t->nnodes; v++)
                if (t->node_switch[v] == s) {
                    printf("%s", nf ? "" : ", ");
                    nf = 0;
                    admin_json_string(stdout, t->node[v]);
                }
            printf("]}");
        }
        printf("]}");
    }
    putchar('}');
}

int cmd_show(int argc, char **argv)
{
    static const struct option opts[] = {{"config", required_argument, NULL, 'c'},
                                         {"fabric", required_argument, NULL, 'f'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = "show",
                      .shortopts = "c:f:jh",
                      .longopts = opts,
                      .accepted = "--config PATH, --fabric NAME, --json, --help",
                      .help = help,
                      .config = CT_DEFAULT_SIGNATURES};
    if (admin_next_opt(&opt, argc, argv) < 0)
        return opt.status;
    const char *config = opt.config, *only = opt.fabric;
    if (optind < argc)
        return admin_usage("show", "unexpected argument '%s' (accepted: options only)",
                           argv[optind]);
    ct_sigfile sf;
    if (admin_load("show", config, &sf) < 0)
        return ADMIN_INVALID;
    if (only && !admin_pick_fabric("show", &sf, config, only)) {
        ct_sigfile_free(&sf);
        return ADMIN_INVALID;
    }
    const ct_fabric *def = ct_sigfile_for_partition(&sf, NULL);
    if (opt.json) {
        int first = 1;
        putchar('{');
        json_str("path", config, &first);
        json_key("version", &first);
        printf("%d", sf.version);
        json_key("default", &first);
        if (def)
            admin_json_string(stdout, def->name);
        else
            fputs("null", stdout);
        json_key("partitions", &first);
        putchar('{');
        for (size_t i = 0; i < sf.nparts; i++) {
            int fp = i == 0;
            json_str(sf.parts[i].partition, sf.fabrics[sf.parts[i].fabric].name, &fp);
        }
        putchar('}');
        json_key("fabrics", &first);
        putchar('[');
        int nf = 0;
        for (size_t i = 0; i < sf.nfabrics; i++) {
            if (only && strcmp(only, sf.fabrics[i].name) != 0)
                continue;
            if (nf++)
                fputs(", ", stdout);
            json_fabric(&sf.fabrics[i]);
        }
        fputs("]}\n", stdout);
    } else {
        printf("%s: version %d, %zu fabric%s\n", config, sf.version, sf.nfabrics,
               sf.nfabrics == 1 ? "" : "s");
        printf("default fabric: %s\n", def ? def->name : "(none)");
        if (sf.nparts == 0)
            printf("partitions: none mapped\n");
        for (size_t i = 0; i < sf.nparts; i++)
            printf("partition %s -> %s\n", sf.parts[i].partition,
                   sf.fabrics[sf.parts[i].fabric].name);
        for (size_t i = 0; i < sf.nfabrics; i++)
            if (!only || strcmp(only, sf.fabrics[i].name) == 0)
                text_fabric(&sf.fabrics[i]);
    }
    ct_sigfile_free(&sf);
    return ADMIN_OK;
}
