/* contention-admin simulate: replay a trace (doc/trace-format.md) under a
 * fabric's model with the simulator of paper 001 §VI-A, and, given measured
 * times, report the errors of §VI-B. A translation layer over simulate.h. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "contention/layout.h"
#include "contention/collective.h"
#include "contention/models.h"
#include "contention/simulate.h"
#include "contention/topology.h"
#include "contention/trace.h"
#include "ctslurm/slurmfmt.h"

#define CMD "simulate"

static void help(void)
{
    printf("Usage: contention-admin simulate TRACE --fabric NAME\n"
           "           (--cpus-per-node SPEC | --nodes N --cores C)\n"
           "           [--placement rrn|rrp|random[:SEED]|list:FILE]\n"
           "           [--model MODEL] [--measured FILE]\n"
           "           [--nodelist HOSTLIST]\n"
           "           [--config PATH] [--summary] [--json]\n\n"
           "Replay the application TRACE (format: doc/trace-format.md) on a cluster with\n"
           "the simulator of paper 001 §VI-A: tasks run their compute and communication\n"
           "events in order, sends and receives meet as MPI_Send/MPI_Recv do, and the\n"
           "fabric's bandwidth-sharing model re-prices every transfer in flight each\n"
           "time one starts or ends. Prints per task its total, compute and\n"
           "communication time, per communication its start, end, penalty and conflict\n"
           "kind (001 §IV-A), and averages.\n\n"
           "  --fabric NAME          fabric of the signature file (default: its default)\n"
           "  --config PATH          signature file (default %s)\n"
           "  --cpus-per-node SPEC   the cluster as Slurm writes it, e.g. 2(x16) or 4(x2),3\n"
           "  --nodes N --cores C    or N nodes of C cores each\n"
           "  --placement P          rrp: fill each node first (Slurm block, default);\n"
           "                         rrn: one task per node in turn (Slurm cyclic);\n"
           "                         random[:SEED]: seeded random (SEED default 1);\n"
           "                         list:FILE: 'TASK NODE' lines (doc/trace-format.md)\n"
           "  --model MODEL          override the fabric's penalty model, one of: %s\n"
           "                         (one with parameters, e.g. gige, only where the fabric\n"
           "                         carries them: they come from the signature file)\n"
           "  --nodelist HOSTLIST    the cluster's hosts in node order, e.g. n[1-4]: transfers\n"
           "                         are routed over the fabric's switch tree (its topology\n"
           "                         section) and share its uplinks (doc/multiswitch.md)\n"
           "  --measured FILE        'LABEL SECONDS' per communication: adds E_rel per\n"
           "                         communication and E_abs per graph and per task (001 §VI-B)\n"
           "  --summary              per task and totals only, no per-communication lines\n"
           "  --json                 one JSON object\n\n"
           "Exit status: 0 ok, 1 invalid input (trace, placement, deadlock), 2 usage error.\n",
           CT_DEFAULT_SIGNATURES, ct_model_names());
}

static const char *conflict_name(unsigned k, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!k) {
        snprintf(buf, n, "none");
        return buf;
    }
    static const char *names[] = {"out", "in", "in-out"};
    for (int b = 0; b < 3; b++)
        if (k & (1u << b))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "+" : "", names[b]);
    return buf;
}

typedef struct placement {
    ct_dist dist;
    uint64_t seed;
    const char *list;
    char name[64];
} placement;

static int parse_placement(const char *s, placement *p)
{
    memset(p, 0, sizeof *p);
    p->seed = 1;
    if (strcmp(s, "rrp") == 0 || strcmp(s, "block") == 0) {
        p->dist = CT_DIST_BLOCK;
        snprintf(p->name, sizeof p->name, "rrp (block)");
    } else if (strcmp(s, "rrn") == 0 || strcmp(s, "cyclic") == 0) {
        p->dist = CT_DIST_CYCLIC;
        snprintf(p->name, sizeof p->name, "rrn (cyclic)");
    } else if (strncmp(s, "random", 6) == 0 && (s[6] == '\0' || s[6] == ':')) {
        p->dist = CT_DIST_RANDOM;
        if (s[6] == ':') {
            long v;
            if (admin_int_opt(CMD, "--placement random:SEED", s + 7, 0, INT32_MAX, &v) < 0)
                return -1;
            p->seed = (uint64_t)v;
        }
        snprintf(p->name, sizeof p->name, "random (seed %llu)", (unsigned long long)p->seed);
    } else if (strncmp(s, "list:", 5) == 0 && s[5]) {
        p->dist = CT_DIST_EXPLICIT;
        p->list = s + 5;
        snprintf(p->name, sizeof p->name, "list");
    } else {
        admin_usage(CMD, "--placement '%s' (accepted: rrp, rrn, random, random:SEED, list:FILE)",
                    s);
        return -1;
    }
    return 0;
}

static int build_layout(const ct_trace *tr, const ct_alloc *a, const placement *pl, ct_layout *l)
{
    ct_err err;
    if (pl->dist != CT_DIST_EXPLICIT) {
        if (ct_layout_build(a, tr->ntasks, 1, pl->dist, 1, pl->seed, l, &err) < 0)
            return admin_fail(CMD, "%s: %s", tr->name, err.msg);
        return 0;
    }
    int32_t *node_of = malloc((size_t)tr->ntasks * sizeof *node_of);
    int32_t *count = calloc((size_t)a->nnodes, sizeof *count);
    int rc = ADMIN_INVALID;
    if (!node_of || !count) {
        admin_fail(CMD, "out of memory");
        goto out;
    }
    if (ct_placement_load(pl->list, tr->ntasks, a->nnodes, node_of, &err) < 0) {
        admin_fail(CMD, "%s", err.msg);
        goto out;
    }
    for (int32_t t = 0; t < tr->ntasks; t++) {
        int32_t v = node_of[t];
        if (++count[v] > a->cpus[v]) {
            admin_fail(CMD, "%s places %d tasks on node %d, which has %d CPUs (one task per CPU)",
                       pl->list, (int)count[v], (int)v, (int)a->cpus[v]);
            goto out;
        }
    }
    if (ct_layout_explicit(a->nnodes, tr->ntasks, node_of, l, &err) < 0) {
        admin_fail(CMD, "%s: %s", pl->list, err.msg);
        goto out;
    }
    rc = 0;
out:
    free(node_of);
    free(count);
    return rc;
}

static void print_model(FILE *f, const ct_sim_params *p)
{
    const ct_model_info *mi = ct_model_info_of(p->model.kind);
    fprintf(f, "%s", mi->name);
    size_t shown = 0;
    for (size_t i = 0; i < mi->nkeys; i++) {
        const ct_model_key *k = &mi->keys[i];
        if (k->type == CT_PARAM_REAL)
            fprintf(f, "%s%s %.6g", shown++ ? ", " : " (", k->key, p->model.real[k->slot]);
    }
    if (shown)
        fputc(')', f);
}

static void print_text(const ct_trace *tr, const ct_layout *l, const char *fabric,
                       const ct_sim_params *p, const placement *pl, const ct_sim_result *r,
                       const ct_sim_eval *ev, const double *meas, int summary, char **hosts)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    printf("trace     %s: %d tasks, %zu communications (%zu events), %s\n", tr->name,
           (int)tr->ntasks, tr->ncomm, tr->nevents,
           admin_fmt_bytes(tr->total_bytes, b1, sizeof b1));
    printf("cluster   %d nodes, placement %s\n", (int)l->nnodes, pl->name);
    const ct_tree_map *t = p->model.tree;
    if (t) {
        printf("tree      %d leaves:", (int)ct_tree_map_leaves(t));
        for (int32_t i = 0; i < t->nnodes; i++)
            printf(" %s(%s)", hosts[i], t->name[t->leaf[i]]);
        printf("\n");
    } else if (hosts) {
        printf("tree      none: the fabric has no topology section (one switch)\n");
    }
    char intra[32];
    if (p->intra_bw > 0)
        snprintf(intra, sizeof intra, "%.6g MB/s", p->intra_bw / 1e6);
    else
        snprintf(intra, sizeof intra, "free (not timed)");
    printf("fabric    %s: alpha %s, %.6g MB/s, intra-node %s; model ", fabric,
           admin_fmt_time(p->alpha, b1, sizeof b1), p->beta > 0 ? 1e-6 / p->beta : INFINITY, intra);
    print_model(stdout, p);
    if (!p->latency_in_penalty && ct_model_latency_once(p->model.kind))
        printf(", each transfer's alpha once, outside the penalty"); /* session 56 */
    if (p->exchange != 0 || (p->bucket > 0 && p->bucket_pause > 0)) {
        /* the scorer's phase terms, taken by the replay (doc/simulator.md "Steps") */
        printf("\nsteps     exchange step %s", admin_fmt_time(p->exchange, b1, sizeof b1));
        if (p->bucket > 0 && p->bucket_pause > 0)
            printf(", bucket %.6g KiB refilled in %s before calibrate's calls", p->bucket / 1024,
                   admin_fmt_time(p->bucket_pause, b2, sizeof b2));
    }
    printf("\n\nper task%s\n", ev ? " (E_abs over the communications it sends, 001 §VI-B)" : "");
    printf("  %5s %5s %12s %12s %12s %6s %6s%s\n", "task", "node", "total", "compute", "comm",
           "sends", "recvs", ev ? "     S_p          S_m      E_abs" : "");
    for (int32_t t = 0; t < r->ntasks; t++) {
        const ct_sim_task *k = &r->task[t];
        printf("  %5d %5d %12s %12s %12s %6lld %6lld", (int)t, (int)l->node_of[t],
               admin_fmt_time(k->total, b1, sizeof b1), admin_fmt_time(k->compute, b2, sizeof b2),
               admin_fmt_time(k->comm, b3, sizeof b3), (long long)k->sends, (long long)k->recvs);
        if (ev && !isnan(ev->e_abs_task[t]))
            printf(" %12s %12s %8.2f%%", admin_fmt_time(ev->s_p[t], b4, sizeof b4),
                   admin_fmt_time(ev->s_m[t], b5, sizeof b5), ev->e_abs_task[t]);
        printf("\n");
    }
    if (!summary) {
        printf("\nper communication (time = end - send call, as measured at the source; "
               "p_eff = transfer / alone)\n");
        printf("  %-12s %9s %11s %10s %12s %12s %12s %8s %8s %-14s%s\n", "label", "tasks", "nodes",
               "bytes", "start", "end", "time", "p_start", "p_eff", "conflict",
               ev ? "     measured    E_rel" : "");
        for (size_t c = 0; c < r->ncomm; c++) {
            const ct_sim_comm *x = &r->comm[c];
            char lab[CT_LABEL_MAX], tasks[32], nodes[32], kind[32];
            snprintf(tasks, sizeof tasks, "%d>%d", (int)x->src, (int)x->dst);
            if (x->src_node == x->dst_node)
                snprintf(nodes, sizeof nodes, "%d (intra)", (int)x->src_node);
            else
                snprintf(nodes, sizeof nodes, "%d>%d", (int)x->src_node, (int)x->dst_node);
            printf("  %-12s %9s %11s %10s %12s %12s %12s %8.4g %8.4g %-14s",
                   ct_trace_label(tr, c, lab, sizeof lab), tasks, nodes,
                   admin_fmt_bytes(x->bytes, b1, sizeof b1),
                   admin_fmt_time(x->start, b2, sizeof b2), admin_fmt_time(x->end, b3, sizeof b3),
                   admin_fmt_time(ct_sim_comm_time(x), b4, sizeof b4), x->p_start, x->p_eff,
                   x->src_node == x->dst_node ? "-"
                                              : conflict_name(x->conflict, kind, sizeof kind));
            if (ev && !isnan(meas[c]))
                printf(" %12s %+8.2f%%", admin_fmt_time(meas[c], b5, sizeof b5), ev->e_rel[c]);
            printf("\n");
        }
    }
    printf("\nsummary\n");
    printf("  makespan            %s\n", admin_fmt_time(r->makespan, b1, sizeof b1));
    printf("  communications      %zu over the network, %zu inside a node\n", r->nremote,
           r->nintra);
    printf("  mean penalty        %.4g effective, %.4g at start (network communications)\n",
           r->mean_p_eff, r->mean_p_start);
    printf("  conflicts (§IV-A)   none %zu, outgoing %zu, incoming %zu, in-out %zu\n",
           r->n_conflict[0], r->n_conflict[1], r->n_conflict[2], r->n_conflict[3]);
    if (r->buffered_sends)
        printf("  buffered sends      %zu (sends the program relied on MPI to buffer: "
               "the replay would have deadlocked; doc/trace-format.md)\n",
               r->buffered_sends);
    if (ev) {
        printf("  E_abs(G)            %.2f%% over %zu measured communications\n", ev->e_abs_graph,
               ev->n);
        printf("  mean E_abs(t_i)     %.2f%%\n", ev->e_abs_task_mean);
    }
}

static void json_num(const char *key, double v, int comma)
{
    printf("\"%s\": ", key);
    admin_json_number(stdout, v);
    if (comma)
        printf(", ");
}

static void print_json(const ct_trace *tr, const ct_layout *l, const char *fabric,
                       const ct_sim_params *p, const placement *pl, const ct_sim_result *r,
                       const ct_sim_eval *ev, const double *meas, int summary, char **hosts)
{
    char kind[32];
    printf("{\"trace\": ");
    admin_json_string(stdout, tr->name);
    printf(", \"tasks\": %d, \"communications\": %zu, \"events\": %zu, \"nodes\": %d, "
           "\"placement\": ",
           (int)tr->ntasks, tr->ncomm, tr->nevents, (int)l->nnodes);
    admin_json_string(stdout, pl->name);
    printf(", \"fabric\": ");
    admin_json_string(stdout, fabric);
    printf(", \"model\": ");
    admin_json_string(stdout, ct_model_name(p->model.kind));
    const ct_tree_map *t = p->model.tree;
    if (t) {
        printf(", \"leaves\": %d, \"node_leaf\": [", (int)ct_tree_map_leaves(t));
        for (int32_t i = 0; i < t->nnodes; i++) {
            printf("%s{\"host\": ", i ? ", " : "");
            admin_json_string(stdout, hosts[i]);
            printf(", \"leaf\": ");
            admin_json_string(stdout, t->name[t->leaf[i]]);
            printf("}");
        }
        printf("]");
    }
    printf(", ");
    json_num("alpha", p->alpha, 1);
    json_num("beta", p->beta, 1);
    json_num("intra_bw", p->intra_bw, 1);
    json_num("exchange", p->exchange, 1);
    json_num("bucket", p->bucket, 1);
    json_num("bucket_pause", p->bucket_pause, 1);
    json_num("makespan", r->makespan, 1);
    json_num("mean_p_eff", r->mean_p_eff, 1);
    json_num("mean_p_start", r->mean_p_start, 1);
    printf("\"buffered_sends\": %zu, ", r->buffered_sends);
    printf("\"network\": %zu, \"intra\": %zu, \"conflicts\": {\"none\": %zu, \"out\": %zu, "
           "\"in\": %zu, \"inout\": %zu},\n",
           r->nremote, r->nintra, r->n_conflict[0], r->n_conflict[1], r->n_conflict[2],
           r->n_conflict[3]);
    printf(" \"per_task\": [");
    for (int32_t t = 0; t < r->ntasks; t++) {
        const ct_sim_task *k = &r->task[t];
        printf("%s\n  {\"task\": %d, \"node\": %d, ", t ? "," : "", (int)t, (int)l->node_of[t]);
        json_num("total", k->total, 1);
        json_num("compute", k->compute, 1);
        json_num("comm", k->comm, 1);
        printf("\"sends\": %lld, \"recvs\": %lld", (long long)k->sends, (long long)k->recvs);
        if (ev) {
            printf(", ");
            json_num("s_p", ev->s_p[t], 1);
            json_num("s_m", ev->s_m[t], 1);
            json_num("e_abs", ev->e_abs_task[t], 0);
        }
        printf("}");
    }
    printf("]");
    if (!summary) {
        printf(",\n \"per_comm\": [");
        for (size_t c = 0; c < r->ncomm; c++) {
            const ct_sim_comm *x = &r->comm[c];
            char lab[CT_LABEL_MAX];
            printf("%s\n  {\"label\": ", c ? "," : "");
            admin_json_string(stdout, ct_trace_label(tr, c, lab, sizeof lab));
            printf(", \"src\": %d, \"dst\": %d, \"src_node\": %d, \"dst_node\": %d, ", (int)x->src,
                   (int)x->dst, (int)x->src_node, (int)x->dst_node);
            json_num("bytes", x->bytes, 1);
            json_num("send_post", x->send_post, 1);
            json_num("recv_post", x->recv_post, 1);
            json_num("start", x->start, 1);
            json_num("end", x->end, 1);
            json_num("time", ct_sim_comm_time(x), 1);
            json_num("alone", x->alone, 1);
            json_num("p_start", x->p_start, 1);
            json_num("p_eff", x->p_eff, 1);
            printf("\"conflict\": ");
            admin_json_string(stdout, x->src_node == x->dst_node
                                          ? "intra"
                                          : conflict_name(x->conflict, kind, sizeof kind));
            if (ev) {
                printf(", ");
                json_num("measured", meas[c], 1);
                json_num("e_rel", ev->e_rel[c], 0);
            }
            printf("}");
        }
        printf("]");
    }
    if (ev) {
        printf(",\n \"evaluation\": {\"measured\": %zu, ", ev->n);
        json_num("e_abs_graph", ev->e_abs_graph, 1);
        json_num("e_abs_task_mean", ev->e_abs_task_mean, 0);
        printf("}");
    }
    printf("}\n");
}

int cmd_simulate(int argc, char **argv)
{
    static const struct option opts[] = {{"fabric", required_argument, NULL, 'f'},
                                         {"config", required_argument, NULL, 'g'},
                                         {"cpus-per-node", required_argument, NULL, 'C'},
                                         {"nodes", required_argument, NULL, 'N'},
                                         {"cores", required_argument, NULL, 'c'},
                                         {"placement", required_argument, NULL, 'p'},
                                         {"model", required_argument, NULL, 'm'},
                                         {"measured", required_argument, NULL, 'M'},
                                         {"nodelist", required_argument, NULL, 'L'},
                                         {"summary", no_argument, NULL, 's'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = CMD,
                      .shortopts = "f:g:C:N:c:p:m:M:L:sjh",
                      .longopts = opts,
                      .accepted = "--fabric, --config, --cpus-per-node, --nodes, --cores, "
                                  "--placement, --model, --measured, --nodelist, --summary, "
                                  "--json, --help",
                      .help = help,
                      .config = CT_DEFAULT_SIGNATURES};
    const char *spec = NULL, *model = NULL, *measured = NULL, *place = "rrp", *nodelist = NULL;
    long nodes = -1, cores = -1;
    int summary = 0, c;
    while ((c = admin_next_opt(&opt, argc, argv)) > 0) {
        switch (c) {
        case 'C':
            spec = optarg;
            break;
        case 'N':
            if (admin_int_opt(CMD, "--nodes", optarg, 1, CT_ALLOC_MAX_NODES, &nodes) < 0)
                return ADMIN_USAGE;
            break;
        case 'c':
            if (admin_int_opt(CMD, "--cores", optarg, 1, CT_ALLOC_MAX_CPUS, &cores) < 0)
                return ADMIN_USAGE;
            break;
        case 'p':
            place = optarg;
            break;
        case 'm':
            model = optarg;
            break;
        case 'M':
            measured = optarg;
            break;
        case 'L':
            nodelist = optarg;
            break;
        case 's':
            summary = 1;
            break;
        }
    }
    if (c < 0)
        return opt.status;
    if (optind >= argc)
        return admin_usage(CMD, "no TRACE given");
    if (optind + 1 < argc)
        return admin_usage(CMD, "unexpected argument '%s' (accepted: one TRACE)", argv[optind + 1]);
    const char *trace_path = argv[optind];
    if (spec && (nodes > 0 || cores > 0))
        return admin_usage(CMD, "give either --cpus-per-node or --nodes and --cores, not both");
    if (!spec && (nodes < 0 || cores < 0))
        return admin_usage(CMD, "the cluster is required: --cpus-per-node SPEC, or --nodes N "
                                "and --cores C");
    placement pl;
    if (parse_placement(place, &pl) < 0)
        return ADMIN_USAGE;
    ct_model_kind mk = CT_MODEL_NONE;
    if (model && (ct_model_from_name(model, &mk) < 0))
        return admin_usage(CMD, "--model '%s' (accepted: %s)", model, ct_model_names());

    ct_err err;
    ct_alloc alloc = {0, NULL};
    int rc = spec ? ctslurm_parse_cpus_per_node(spec, &alloc, &err)
                  : ct_alloc_uniform((int32_t)nodes, (int32_t)cores, &alloc, &err);
    if (rc < 0)
        return admin_usage(CMD, "%s%s", spec ? "--cpus-per-node: " : "", err.msg);
    char **hosts = NULL;
    int64_t nhosts = 0;
    if (nodelist) {
        int32_t nn = alloc.nnodes;
        if (ctslurm_expand_hosts(nodelist, (int64_t)nn + 1, &hosts, &nhosts, &err) < 0) {
            ct_alloc_free(&alloc);
            return admin_usage(CMD, "--nodelist '%s': %s", nodelist, err.msg);
        }
        if (nhosts != nn) {
            ctslurm_hosts_free(hosts, nhosts);
            ct_alloc_free(&alloc);
            return admin_usage(CMD,
                               "--nodelist '%s' names %lld hosts but the cluster has %d nodes "
                               "(they must match)",
                               nodelist, (long long)nhosts, (int)nn);
        }
    }

    ct_sigfile sf;
    memset(&sf, 0, sizeof sf);
    ct_trace tr;
    memset(&tr, 0, sizeof tr);
    ct_layout l;
    memset(&l, 0, sizeof l);
    ct_sim_result res;
    memset(&res, 0, sizeof res);
    ct_sim_eval ev;
    memset(&ev, 0, sizeof ev);
    double *meas = NULL;
    ct_tree_map tree;
    memset(&tree, 0, sizeof tree);
    rc = ADMIN_INVALID;
    const ct_fabric *fab = admin_load_fabric(CMD, opt.config, opt.fabric, &sf);
    if (!fab)
        goto out;
    ct_sim_params p;
    ct_sim_params_from_fabric(fab, &p);
    if (model && mk != p.model.kind) {
        /* a model whose parameters a file must give cannot run without them */
        const ct_model_info *mi = ct_model_info_of(mk);
        for (size_t i = 0; i < mi->nkeys; i++)
            if (mi->keys[i].required) {
                char ok[256];
                size_t used = 0;
                ok[0] = '\0';
                for (size_t j = 0; j < ct_model_count(); j++) {
                    const ct_model_info *o = ct_model_info_of((ct_model_kind)j);
                    int needs = 0;
                    for (size_t q = 0; q < o->nkeys; q++)
                        needs |= o->keys[q].required;
                    int w = 0;
                    if (!needs)
                        w = snprintf(ok + used, sizeof ok - used, "%s%s", used ? ", " : "",
                                     o->name);
                    if (w > 0 && (size_t)w < sizeof ok - used)
                        used += (size_t)w;
                }
                admin_fail(CMD,
                           "fabric '%s' has no %s parameters (its penalty model is %s); "
                           "accepted --model for it: %s",
                           fab->name, mi->label, ct_model_name(p.model.kind), ok);
                goto out;
            }
        memset(&p.model, 0, sizeof p.model);
        p.model.kind = mk;
    }
    if (nodelist && fab->topology) {
        /* the simulator's engine re-prices everything in flight over the
         * tree's links (penalty.h: the model's tree) */
        if (ct_tree_map_build(fab->topology, 1.0 / fab->beta, (const char *const *)hosts,
                              (int32_t)nhosts, &tree, &err) < 0) {
            admin_fail(CMD, "--nodelist: %s", err.msg);
            goto out;
        }
        p.model.tree = &tree;
    }
    p.keep_comms = 1;
    ct_coll_params cp; /* collectives: algorithms the fabric's models select */
    ct_coll_params_from_fabric(fab, &cp);
    if (ct_trace_load_expanded(trace_path, &cp, &tr, NULL, &err) < 0) {
        admin_fail(CMD, "%s", err.msg);
        goto out;
    }
    if (tr.ntasks < 1) {
        admin_fail(CMD, "%s: the trace has no task", trace_path);
        goto out;
    }
    if (build_layout(&tr, &alloc, &pl, &l))
        goto out;
    if (ct_simulate(&tr, &l, &p, &res, &err) < 0) {
        admin_fail(CMD, "%s", err.msg);
        goto out;
    }
    if (measured) {
        meas = malloc((tr.ncomm ? tr.ncomm : 1) * sizeof *meas);
        if (!meas) {
            admin_fail(CMD, "out of memory");
            goto out;
        }
        if (ct_measured_load(measured, &tr, meas, &err) < 0 ||
            ct_sim_evaluate(&res, meas, &ev, &err) < 0) {
            admin_fail(CMD, "%s", err.msg);
            goto out;
        }
    }
    if (opt.json)
        print_json(&tr, &l, fab->name, &p, &pl, &res, measured ? &ev : NULL, meas, summary, hosts);
    else
        print_text(&tr, &l, fab->name, &p, &pl, &res, measured ? &ev : NULL, meas, summary, hosts);
    rc = ADMIN_OK;
out:
    free(meas);
    ct_tree_map_free(&tree);
    ctslurm_hosts_free(hosts, nhosts);
    ct_sim_eval_free(&ev);
    ct_sim_result_free(&res);
    ct_layout_free(&l);
    ct_trace_free(&tr);
    if (sf.fabrics || sf.parts)
        ct_sigfile_free(&sf);
    ct_alloc_free(&alloc);
    return rc;
}
