/* contention-admin score: the plugin's decision table, offline. Same code
 * path as the plugin (ct_score, and ct_place_search for the optimized
 * candidate), fed from the command line instead of Slurm's environment. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm_version.h>

#include "admin.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/placement.h"
#include "contention/score.h"
#include "contention/trace.h"
#include "contention/topology.h"
#include "ctslurm/slurmfmt.h"

#define CMD "score"

static void help(void)
{
    printf(
        "Usage: contention-admin score --cpus-per-node SPEC --ntasks N --pattern P --size BYTES\n"
        "           [--fabric NAME] [--cpus-per-task C] [--plane K] [--random SEED]\n"
        "           [--seed N] [--hostfile-out FILE] [--layout FILE] [--nodelist HOSTLIST]\n"
        "           [--switch-order] [--slurm-version V] [--min-gain PCT]\n"
        "           [--min-switch PCT] [--config PATH] [--json]\n\n"
        "Score the task mappings the plugin considers (block, cyclic, and plane=K or a\n"
        "seeded random layout when asked) for a job, as the plugin would at launch, and\n"
        "print the predicted communication time of each, best first. Then search an\n"
        "optimized placement (same tasks per node; the plugin's 'optimized' candidate)\n"
        "and print its predicted time and gain over the better of block and cyclic.\n"
        "Last, what --contention=auto launches with the plugin's thresholds.\n\n"
        "  --cpus-per-node SPEC  the allocation in Slurm's compressed form, as in\n"
        "                        SLURM_JOB_CPUS_PER_NODE, e.g. 4(x2),3\n"
        "  --ntasks N            tasks of the step (0: one per CPU / cpus-per-task)\n"
        "  --pattern P           alltoall, ring, halves, halo2d, halo3d, halo2d-phased,\n"
        "                        halo3d-phased or trace:FILE|NAME\n"
        "                        (NAME: a profile recorded with contention-admin record)\n"
        "  --size BYTES          bytes per communication (K, M, G suffixes; not for trace:)\n"
        "  --pause DURATION      the links' idle time before each step of a point-to-point\n"
        "                        pattern (the compute between its exchanges), e.g. 10ms\n"
        "                        (s, ms, us, ns; a plain number is seconds):\n"
        "                        a token bucket refills then (the fabric's bucket_bytes);\n"
        "                        default: unknown, no refill term\n"
        "  --fabric NAME         fabric of the signature file (default: its default fabric)\n"
        "  --cpus-per-task C     CPUs per task (default 1)\n"
        "  --plane K             also score plane=K\n"
        "  --random SEED         also score a random layout drawn with SEED\n"
        "  --seed N              seed of the placement search (default 1)\n"
        "  --hostfile-out FILE   write the optimized placement as a SLURM_HOSTFILE (one\n"
        "                        host name per task, in task order; srun -m arbitrary)\n"
        "  --layout FILE         also price this layout: a SLURM_HOSTFILE (what srun -m\n"
        "                        arbitrary reads: one node name per task, NAME*COUNT,\n"
        "                        '#' comments), with the candidates' evaluation; it is\n"
        "                        reported apart, never the winner\n"
        "  --nodelist HOSTLIST   the allocation's hosts in node order, e.g. n[1-4]\n"
        "                        (default n1 .. nN); on a fabric with a topology\n"
        "                        section, flows are routed through its switches\n"
        "  --switch-order        with --nodelist: order the allocation's nodes by switch\n"
        "                        first (block and cyclic over the switch-sorted list)\n"
        "  --slurm-version V     the Slurm release whose step rules apply (default\n"
        "                        %d.%02d.%d, the one this tool was built against).\n"
        "                        From 24.05.5 a step with fewer tasks than the\n"
        "                        allocation's nodes starts where the job's previous\n"
        "                        step left off: not modelled (an error says so)\n"
        "  --min-gain PCT        the plugin's min_gain=: auto launches the optimized\n"
        "                        placement when predicted PCT %% faster (default 10)\n"
        "  --min-switch PCT      the plugin's min_switch=: auto leaves block, Slurm's\n"
        "                        default, for a candidate predicted PCT %% faster than\n"
        "                        block (default 5)\n"
        "  --config PATH         signature file (default %s)\n"
        "  --json                one JSON object\n\n"
        "Exit status: 0 ok, 1 invalid file or job geometry, 2 usage error.\n",
        SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
        SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER), CT_DEFAULT_SIGNATURES);
}

/* The allocation's hosts under the fabric's switch tree; with
 * switch_order the allocation's nodes, their CPU counts and host names are
 * permuted into switch order first. */
static int load_tree(const ct_fabric *fab, ct_alloc *alloc, char **hosts, int32_t n,
                     int switch_order, ct_tree_map *tree)
{
    ct_err err;
    if (ct_tree_map_build(fab->topology, 1.0 / fab->beta, (const char *const *)hosts, n, tree,
                          &err) < 0)
        return admin_fail(CMD, "--nodelist: %s", err.msg);
    if (!switch_order)
        return ADMIN_OK;
    int32_t *perm = malloc((size_t)n * sizeof *perm), *cpus = malloc((size_t)n * sizeof *cpus),
            *leaf = malloc((size_t)n * sizeof *leaf);
    char **nm = malloc((size_t)n * sizeof *nm);
    int rc = ADMIN_OK;
    if (!perm || !cpus || !leaf || !nm || ct_tree_map_switch_order(tree, perm, &err) < 0) {
        rc = admin_fail(CMD, "switch order: out of memory");
    } else {
        for (int32_t i = 0; i < n; i++) {
            cpus[i] = alloc->cpus[perm[i]];
            leaf[i] = tree->leaf[perm[i]];
            nm[i] = hosts[perm[i]];
        }
        memcpy(alloc->cpus, cpus, (size_t)n * sizeof *cpus);
        memcpy(tree->leaf, leaf, (size_t)n * sizeof *leaf);
        memcpy(hosts, nm, (size_t)n * sizeof *nm);
    }
    free(perm), free(cpus), free(leaf), free(nm);
    return rc;
}

/* One candidate's JSON object. */
static void json_candidate(const ct_candidate_score *s)
{
    printf("{\"name\": ");
    admin_json_string(stdout, s->name);
    printf(", \"predicted_s\": ");
    admin_json_number(stdout, s->predicted_s);
    printf(", \"uncontended_s\": ");
    admin_json_number(stdout, s->uncontended_s);
    printf(", \"slowdown\": ");
    admin_json_number(stdout, s->slowdown);
    printf(", \"remote_comms\": %lld, \"busiest_link\": ", (long long)s->remote_comms);
    admin_json_string(stdout, s->busiest_link);
    printf(", \"busiest_ratio\": ");
    admin_json_number(stdout, s->busiest_ratio);
    printf("}");
}

/* --layout FILE: a SLURM_HOSTFILE a user names, read with bounds (a regular
 * file of at most LAYOUT_MAX_BYTES; the job's tasks, as srun reads it) into
 * an explicit layout over the allocation's hosts (in the order scored). */
#define LAYOUT_MAX_BYTES ((size_t)64 << 20)
static int read_layout(const char *path, const ct_alloc *alloc, long cpt, long ntasks,
                       char *const *hosts, int64_t nhosts, ct_layout *out)
{
    char *text = NULL;
    size_t len = 0;
    if (admin_read_file(CMD, path, LAYOUT_MAX_BYTES,
                        "a SLURM_HOSTFILE: one node name per task", &text, &len) != ADMIN_OK)
        return ADMIN_INVALID;
    int64_t slots = ct_alloc_slots(alloc, (int32_t)cpt);
    int32_t want = ntasks > 0 ? (int32_t)ntasks : (int32_t)(slots < INT32_MAX ? slots : INT32_MAX);
    ct_err err;
    int rc = ADMIN_INVALID;
    if (ctslurm_hostfile_layout(path, text, len, hosts, nhosts, want, out, &err) < 0)
        admin_fail(CMD, "%s", err.msg);
    else if (ntasks > 0 && out->ntasks < want)
        admin_fail(CMD, "%s: names %d tasks, the job runs %ld (srun refuses a hostfile with too "
                        "few names)",
                   path, (int)out->ntasks, ntasks);
    else
        rc = ADMIN_OK;
    free(text);
    return rc;
}

int cmd_score(int argc, char **argv)
{
    static const struct option opts[] = {
        {"fabric", required_argument, NULL, 'f'}, {"cpus-per-node", required_argument, NULL, 'C'},
        {"ntasks", required_argument, NULL, 'n'}, {"pattern", required_argument, NULL, 'p'},
        {"size", required_argument, NULL, 's'},   {"cpus-per-task", required_argument, NULL, 'c'},
        {"plane", required_argument, NULL, 'P'},  {"random", required_argument, NULL, 'r'},
        {"config", required_argument, NULL, 'g'}, {"json", no_argument, NULL, 'j'},
        {"seed", required_argument, NULL, 'S'},   {"hostfile-out", required_argument, NULL, 'H'},
        {"nodelist", required_argument, NULL, 'N'}, {"switch-order", no_argument, NULL, 'O'},
        {"slurm-version", required_argument, NULL, 'V'}, {"help", no_argument, NULL, 'h'},
        {"min-gain", required_argument, NULL, 'G'}, {"min-switch", required_argument, NULL, 'W'},
        {"layout", required_argument, NULL, 'L'}, {"pause", required_argument, NULL, 'Z'},
        {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = CMD,
                      .shortopts = "f:C:n:p:s:c:P:r:g:jS:H:N:OV:G:W:Z:h",
                      .longopts = opts,
                      .accepted = "--cpus-per-node, --ntasks, --pattern, --size, --pause, --fabric, "
                                  "--cpus-per-task, --plane, --random, --seed, --hostfile-out, --layout, "
                                  "--nodelist, --switch-order, --slurm-version, --min-gain, "
                                  "--min-switch, --config, --json, --help",
                      .help = help,
                      .config = CT_DEFAULT_SIGNATURES};
    const char *spec = NULL, *pat = NULL, *hostfile = NULL, *nodelist = NULL, *layout = NULL;
    long ntasks = -1, cpt = 1, plane = 0, seed = -1, pseed = 1;
    int switch_order = 0;
    double min_gain = 0.10, min_switch = 0.05; /* the plugin's defaults */
    uint32_t slurm_version = SLURM_VERSION_NUMBER;
    ct_err verr;
    double size = -1, pause = -1;
    int c;
    while ((c = admin_next_opt(&opt, argc, argv)) > 0) {
        switch (c) {
        case 'C':
            spec = optarg;
            break;
        case 'n':
            if (admin_int_opt(CMD, "--ntasks", optarg, 0, INT32_MAX, &ntasks) < 0)
                return ADMIN_USAGE;
            break;
        case 'p':
            pat = optarg;
            break;
        case 's':
            if (admin_size_opt(CMD, "--size", optarg, &size) < 0)
                return ADMIN_USAGE;
            break;
        case 'Z':
            if (ct_parse_duration(optarg, &pause, &verr) < 0)
                return admin_usage(CMD, "--pause: %s", verr.msg);
            break;
        case 'c':
            if (admin_int_opt(CMD, "--cpus-per-task", optarg, 1, 65535, &cpt) < 0)
                return ADMIN_USAGE;
            break;
        case 'P':
            if (admin_int_opt(CMD, "--plane", optarg, 1, INT32_MAX, &plane) < 0)
                return ADMIN_USAGE;
            break;
        case 'r':
            if (admin_int_opt(CMD, "--random", optarg, 0, INT32_MAX, &seed) < 0)
                return ADMIN_USAGE;
            break;
        case 'S':
            if (admin_int_opt(CMD, "--seed", optarg, 0, INT32_MAX, &pseed) < 0)
                return ADMIN_USAGE;
            break;
        case 'H':
            hostfile = optarg;
            break;
        case 'N':
            nodelist = optarg;
            break;
        case 'L':
            layout = optarg;
            break;
        case 'O':
            switch_order = 1;
            break;
        case 'V':
            if (ct_slurm_version_parse(optarg, &slurm_version, &verr) < 0)
                return admin_usage(CMD, "--slurm-version: %s", verr.msg);
            break;
        case 'G':
        case 'W': {
            double v;
            if (admin_pct_opt(CMD, c == 'G' ? "--min-gain" : "--min-switch", optarg, 100, &v) < 0)
                return ADMIN_USAGE;
            *(c == 'G' ? &min_gain : &min_switch) = v / 100;
            break;
        }
        }
    }
    if (c < 0)
        return opt.status;
    if (optind < argc)
        return admin_usage(CMD, "unexpected argument '%s' (accepted: options only)", argv[optind]);
    if (!spec)
        return admin_usage(CMD, "--cpus-per-node SPEC is required");
    if (ntasks < 0)
        return admin_usage(CMD, "--ntasks N is required");
    if (!pat)
        return admin_usage(CMD, "--pattern P is required");
    if (switch_order && !nodelist)
        return admin_usage(CMD, "--switch-order needs --nodelist HOSTLIST");

    ct_err err;
    ct_pattern pattern;
    memset(&pattern, 0, sizeof pattern);
    char resolved[4096];
    if (admin_resolve_trace_pattern(pat, resolved, sizeof resolved) == 0)
        pat = resolved;
    if (ct_pattern_parse(pat, &pattern, &err) < 0)
        return admin_usage(CMD, "--pattern: %s", err.msg);
    if (size < 0 && pattern.kind == CT_PAT_TRACE)
        size = 0; /* a trace carries its own sizes */
    if (size < 0)
        return admin_usage(CMD, "--size BYTES is required");
    pattern.bytes = size;
    if (pause >= 0) {
        if (pattern.kind == CT_PAT_TRACE || pattern.kind == CT_PAT_ALLTOALL)
            return admin_usage(CMD, "--pause is for ring, halves and the halos (a trace carries "
                                    "its own compute; the Alltoall signature its calls')");
        pattern.has_pause = 1;
        pattern.pause = pause;
    }
    ct_alloc alloc = {0, NULL};
    if (ctslurm_parse_cpus_per_node(spec, &alloc, &err) < 0)
        return admin_usage(CMD, "--cpus-per-node: %s", err.msg);
    char **hosts = NULL;
    int64_t nhosts = 0;
    if (nodelist) {
        char msg[256];
        if (admin_expand_hosts(nodelist, (int64_t)alloc.nnodes + 1, &hosts, &nhosts, msg,
                               sizeof msg) < 0) {
            ct_alloc_free(&alloc);
            return admin_usage(CMD, "--nodelist '%s': %s", nodelist, msg);
        }
        if (nhosts != alloc.nnodes) {
            int32_t nn = alloc.nnodes;
            admin_hosts_free(hosts, nhosts);
            ct_alloc_free(&alloc);
            return admin_usage(CMD,
                               "--nodelist '%s' names %lld hosts but --cpus-per-node '%s' has %d "
                               "nodes (they must match)",
                               nodelist, (long long)nhosts, spec, (int)nn);
        }
    } else if (hostfile || layout) { /* n1 .. nN */
        hosts = calloc((size_t)alloc.nnodes, sizeof *hosts);
        for (int32_t k = 0; hosts && k < alloc.nnodes; k++) {
            char b[24];
            snprintf(b, sizeof b, "n%d", (int)k + 1);
            if (!(hosts[nhosts++] = strdup(b))) {
                admin_hosts_free(hosts, nhosts);
                hosts = NULL;
            }
        }
        if (!hosts) {
            ct_alloc_free(&alloc);
            return admin_fail(CMD, "out of memory for %d host names", (int)alloc.nnodes);
        }
    }

    ct_sigfile sf;
    const ct_fabric *fab = admin_load_fabric(CMD, opt.config, opt.fabric, &sf);
    if (!fab) {
        admin_hosts_free(hosts, nhosts);
        ct_alloc_free(&alloc);
        return ADMIN_INVALID;
    }
    int rc = ADMIN_INVALID, have_pl = 0;
    ct_place_result pl;
    ct_layout given = {0, 0, NULL, CT_DIST_EXPLICIT, 0};
    ct_tree_map tree = {0};
    if (nodelist && fab->topology &&
        load_tree(fab, &alloc, hosts, (int32_t)nhosts, switch_order, &tree) != ADMIN_OK)
        goto out;
    if (switch_order && !fab->topology) {
        admin_fail(CMD, "--switch-order: fabric %s has no topology section (accepted: a fabric "
                        "with one; contention-admin topology import writes it)",
                   fab->name);
        goto out;
    }
    if (layout && read_layout(layout, &alloc, cpt, ntasks, hosts, nhosts, &given) != ADMIN_OK)
        goto out;
    ct_score_request req;
    memset(&req, 0, sizeof req);
    req.alloc = &alloc;
    req.ntasks = (int32_t)ntasks;
    req.cpus_per_task = (int32_t)cpt;
    req.pattern = pattern;
    req.include_plane = plane > 0;
    req.plane_size = (int32_t)plane;
    req.include_random = seed >= 0;
    req.seed = seed >= 0 ? (uint64_t)seed : 0;
    req.tree = tree.nnodes ? &tree : NULL;
    req.slurm_version = slurm_version;
    req.given = layout ? &given : NULL;
    req.given_name = layout;
    ct_score_result res;
    if (ct_score(fab, &req, &res, &err) < 0) {
        admin_fail(CMD, "%s", err.msg);
        goto out;
    }
    ct_place_request preq;
    memset(&preq, 0, sizeof preq);
    preq.alloc = &alloc;
    preq.ntasks = (int32_t)ntasks;
    preq.cpus_per_task = (int32_t)cpt;
    preq.pattern = pattern;
    preq.seed = (uint64_t)pseed;
    preq.tree = req.tree; /* the optimized search prices the same links */
    if (ct_place_search(fab, &preq, &pl, &err) < 0) {
        admin_fail(CMD, "placement search: %s", err.msg);
        goto out;
    }
    have_pl = 1;
    const ct_place_cand *pc = NULL;
    for (int i = 0; i < pl.ncand; i++)
        if (strcmp(pl.cand[i].name, pl.chosen) == 0)
            pc = &pl.cand[i];
    int64_t premote = pc ? pc->remote_comms : -1;
    if (hostfile && admin_write_hostfile(CMD, hostfile, pl.layout.node_of, pl.layout.ntasks,
                                         hosts) != ADMIN_OK)
        goto out;
    /* what --contention=auto launches, as the plugin decides it: the
     * optimized placement past min_gain when it beats the scorer's winner
     * (ct_place_beats), else ct_score_auto_pick's block-or-winner */
    double sw_gain = 0;
    size_t pick = ct_score_auto_pick(&res, min_switch, &sw_gain);
    int auto_opt = res.n && pl.gain >= min_gain &&
                   ct_place_beats(pl.layout.dist == CT_DIST_EXPLICIT, pl.predicted_s,
                                  res.c[res.winner].predicted_s);
    const char *auto_name = auto_opt ? "optimized" : res.n ? res.c[pick].name : "";
    if (opt.json) {
        printf("{\"fabric\": ");
        admin_json_string(stdout, res.fabric);
        printf(", \"model\": ");
        admin_json_string(stdout, res.model);
        printf(", \"pattern\": ");
        admin_json_string(stdout, pat);
        printf(", \"size_bytes\": ");
        admin_json_number(stdout, size);
        printf(", \"cpus_per_node\": ");
        admin_json_string(stdout, spec);
        printf(", \"ntasks\": %ld, \"winner\": ", ntasks);
        admin_json_string(stdout, res.n ? res.c[res.winner].name : "");
        printf(", \"margin\": ");
        admin_json_number(stdout, res.margin);
        printf(", \"note\": ");
        admin_json_string(stdout, res.note); /* what the scorer assumed, or "" */
        printf(", \"aggregated\": %s", res.aggregated ? "true" : "false");
        printf(", \"candidates\": [");
        for (size_t i = 0; i < res.n; i++) {
            printf("%s", i ? ", " : "");
            json_candidate(&res.c[i]);
        }
        printf("], \"layout\": ");
        if (res.have_given)
            json_candidate(&res.given);
        else
            printf("null");
        printf(", \"optimized\": {\"from\": ");
        admin_json_string(stdout, pl.chosen);
        printf(", \"predicted_s\": ");
        admin_json_number(stdout, pl.predicted_s);
        printf(", \"block_s\": ");
        admin_json_number(stdout, pl.block_s);
        printf(", \"cyclic_s\": ");
        admin_json_number(stdout, pl.cyclic_s);
        printf(", \"gain\": ");
        admin_json_number(stdout, pl.gain);
        printf(", \"remote_comms\": %lld, \"swaps\": %d, \"hostfile\": ", (long long)premote,
               (int)pl.swaps);
        if (hostfile)
            admin_json_string(stdout, hostfile);
        else
            printf("null");
        printf(", \"note\": ");
        admin_json_string(stdout, pl.note);
        printf("}, \"auto\": ");
        admin_json_string(stdout, auto_name); /* what --contention=auto launches */
        printf("}\n");
    } else {
        char b[32];
        printf("fabric %s (model %s), pattern %s, %s per communication, %ld tasks on %s\n",
               res.fabric, res.model, pat, admin_fmt_bytes(size, b, sizeof b), ntasks, spec);
        if (req.tree) {
            printf("nodes%s:", switch_order ? " in switch order" : "");
            for (int32_t i = 0; i < tree.nnodes; i++)
                printf(" %s(%s)", hosts[i], tree.name[tree.leaf[i]]);
            printf("\n");
        }
        printf("  %-12s %14s %14s %9s %13s  %s\n", "mapping", "predicted (s)", "no contention",
               "slowdown", "remote comms", "busiest link (comms/capacity)");
        for (size_t i = 0; i < res.n; i++) {
            const ct_candidate_score *s = &res.c[i];
            printf("%c %-12s %14.6g %14.6g %9.3g %13lld  %s (%.3g)\n", i == res.winner ? '*' : ' ',
                   s->name, s->predicted_s, s->uncontended_s, s->slowdown,
                   (long long)s->remote_comms, s->busiest_link[0] ? s->busiest_link : "none",
                   s->busiest_ratio);
        }
        if (res.n)
            printf("winner: %s (next best %.1f%% slower)\n", res.c[res.winner].name,
                   100 * res.margin);
        if (res.have_given) {
            const ct_candidate_score *g = &res.given;
            const double w = res.n ? res.c[res.winner].predicted_s : 0;
            printf("layout %s: %.6g s predicted (no contention %.6g s, slowdown %.3g, %lld "
                   "remote comms, busiest link %s (%.3g))",
                   g->name, g->predicted_s, g->uncontended_s, g->slowdown,
                   (long long)g->remote_comms, g->busiest_link[0] ? g->busiest_link : "none",
                   g->busiest_ratio);
            if (w > 0)
                printf(", %+.1f%% against the winner", 100 * (g->predicted_s - w) / w);
            printf("\n");
        }
        if (res.note[0]) /* e.g. a large trace aggregated per phase, not replayed */
            printf("scorer: %s\n", res.note);
        if (pl.predicted_s < 0) /* alltoall: the counts decide */
            printf("optimized: block kept (%s)\n", pl.note);
        else if (pl.layout.dist == CT_DIST_EXPLICIT)
            printf("optimized: %.6g s predicted, %.1f%% faster than the better of block and "
                   "cyclic (%s start%s, %lld remote comms; searched in %.0f ms, verified in "
                   "%.0f ms)\n",
                   pl.predicted_s, 100 * pl.gain, pl.chosen, pl.swaps ? " + swaps" : "",
                   (long long)premote, 1e3 * pl.search_s, 1e3 * pl.verify_s);
        else
            printf("optimized: no placement predicted faster than %s (%.6g s); %s kept\n",
                   pl.chosen, pl.predicted_s, pl.chosen);
        if (pl.note[0] && pl.predicted_s >= 0)
            printf("note: %s\n", pl.note);
        if (hostfile)
            printf("hostfile: %s (%d lines, the %s placement)\n", hostfile, (int)pl.layout.ntasks,
                   pl.layout.dist == CT_DIST_EXPLICIT ? "optimized" : pl.chosen);
        if (res.n) {
            printf("auto: %s (min_gain %g%%, min_switch %g%%", auto_name, 100 * min_gain,
                   100 * min_switch);
            if (!auto_opt && pick != res.winner)
                printf("; %s predicted %.1f%% faster than block, under min_switch",
                       res.c[res.winner].name, 100 * sw_gain);
            printf(")\n");
        }
    }
    rc = ADMIN_OK;
out:
    ct_layout_free(&given);
    ct_tree_map_free(&tree);
    if (have_pl)
        ct_place_result_free(&pl);
    admin_hosts_free(hosts, nhosts);
    ct_alloc_free(&alloc);
    ct_sigfile_free(&sf);
    return rc;
}
