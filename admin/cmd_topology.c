/* contention-admin topology import: Slurm's topology.conf (topology/tree)
 * or topology.yaml (Slurm 25.05+, a `tree` topology) -> the `topology`
 * section of a fabric in a signature file (conf/README.md, issue 14).
 *
 * Slurm's host ranges ("tux[0-3,12]") are expanded by libslurm's own
 * hostlist functions (admin_expand_hosts, admin/hostfile.c). LinkSpeed has no unit in Slurm ("arbitrary", and
 * unused by Slurm), so it is only used with --linkspeed-unit; otherwise
 * every uplink takes --oversubscription or --uplink-MBps. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

#include "admin.h"

#define CMD "topology"
#define MAX_FILE_BYTES (16u << 20)
#define YAML_MAX_DEPTH 16

static void help(void)
{
    printf("Usage: contention-admin topology import [OPTIONS] FILE\n\n"
           "Read Slurm's topology.conf (SwitchName=... Switches=... Nodes=... LinkSpeed=...)\n"
           "or topology.yaml (a `tree` topology) and write the signature file with that\n"
           "tree as the fabric's `topology` section (conf/README.md).\n\n"
           "Options:\n"
           "  --config PATH          signature file to start from (default %s)\n"
           "  --fabric NAME          fabric that gets the tree (default: the file's default)\n"
           "  --out PATH             write there (temp file + rename); default stdout\n"
           "  --oversubscription R   every uplink carries (capacity below)/R, e.g. 2 for 2:1\n"
           "  --uplink-MBps X        every uplink carries X MB/s\n"
           "  --linkspeed-unit U     take each switch's LinkSpeed as its uplink, in U:\n"
           "                         MBps, Mbps or Gbps (Slurm gives LinkSpeed no unit)\n"
           "  --topology NAME        topology.yaml: which topology (default: the\n"
           "                         cluster_default one, else the first tree)\n"
           "  --help\n\n"
           "Exactly one of --oversubscription, --uplink-MBps, --linkspeed-unit is required.\n"
           "Errors name FILE:LINE:COL and the value at fault.\n",
           CT_DEFAULT_SIGNATURES);
}

/* ---- the tree being built ---------------------------------------------- */

typedef struct pending_sw {
    char name[CT_TOPO_NAME_MAX];
    unsigned long line, col;       /* of the switch's name */
    double linkspeed;              /* 0: not given */
    char *children;                /* host list of child switches, or NULL */
    unsigned long ch_line, ch_col; /* of the children value */
    char *nodes;                   /* host list of nodes, or NULL */
    unsigned long nd_line, nd_col;
} pending_sw;

typedef struct builder {
    const char *file;
    int scontrol; /* `scontrol show topology`: Level= keys; a switch with
                   * Switches= lists every node below it in Nodes= */
    pending_sw *sw;
    size_t n, cap;
} builder;

static void builder_free(builder *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->sw[i].children);
        free(b->sw[i].nodes);
    }
    free(b->sw);
    memset(b, 0, sizeof *b);
}

/* The characters the signature file accepts in a name (conf/README.md). */
static int name_chars_ok(const char *s)
{
    if (!s[0] || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
                   (s[0] >= '0' && s[0] <= '9')))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return 0;
    return 1;
}

static pending_sw *builder_add(builder *b, const char *name, size_t len, unsigned long line,
                               unsigned long col)
{
    char tmp[CT_TOPO_NAME_MAX];
    if (len > 0 && len < CT_TOPO_NAME_MAX) {
        memcpy(tmp, name, len);
        tmp[len] = '\0';
    }
    if (len == 0 || len >= CT_TOPO_NAME_MAX || !name_chars_ok(tmp)) {
        admin_fail(CMD,
                   "%s:%lu:%lu: switch name '%.*s' (accepted: 1 to %d characters of A-Z a-z "
                   "0-9 _ - .)",
                   b->file, line, col, (int)(len > 80 ? 80 : len), name, CT_TOPO_NAME_MAX - 1);
        return NULL;
    }
    for (size_t i = 0; i < b->n; i++)
        if (strlen(b->sw[i].name) == len && memcmp(b->sw[i].name, name, len) == 0) {
            admin_fail(CMD,
                       "%s:%lu:%lu: switch '%s' is defined twice, first at line %lu (accepted: "
                       "one line per switch)",
                       b->file, line, col, b->sw[i].name, b->sw[i].line);
            return NULL;
        }
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        pending_sw *p = realloc(b->sw, cap * sizeof *p);
        if (!p) {
            admin_fail(CMD, "out of memory");
            return NULL;
        }
        b->sw = p;
        b->cap = cap;
    }
    pending_sw *w = &b->sw[b->n++];
    memset(w, 0, sizeof *w);
    memcpy(w->name, name, len);
    w->line = line;
    w->col = col;
    return w;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* Expand a Slurm host list (admin_expand_hosts: libslurm's own parser);
 * calls fn(name) for each host. */
static int each_host(const builder *b, const char *list, unsigned long line, unsigned long col,
                     const char *what, int (*fn)(void *, const char *, unsigned long,
                                                 unsigned long),
                     void *arg)
{
    char **v = NULL, msg[200];
    int64_t n = 0;
    if (admin_expand_hosts(list, CT_TOPO_MAX_NODES, &v, &n, msg, sizeof msg) < 0)
        return admin_fail(CMD, "%s:%lu:%lu: %s '%.200s': %s", b->file, line, col, what, list,
                          msg);
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; i++)
        rc = fn(arg, v[i], line, col);
    admin_hosts_free(v, n);
    return rc;
}

typedef struct resolve_ctx {
    builder *b;
    ct_topology *t;
    int32_t parent;
    size_t ncap;
} resolve_ctx;

static int add_child(void *arg, const char *name, unsigned long line, unsigned long col)
{
    resolve_ctx *r = arg;
    if (!name_chars_ok(name))
        return admin_fail(CMD,
                          "%s:%lu:%lu: the host list gives switch name '%.80s' (accepted: "
                          "well-formed ranges; names of A-Z a-z 0-9 _ - .)",
                          r->b->file, line, col, name);
    int32_t ch = ct_topology_switch(r->t, name);
    if (ch < 0)
        return admin_fail(CMD,
                          "%s:%lu:%lu: switch '%s' lists child switch '%s', which has no "
                          "SwitchName line (accepted: switches the file defines)",
                          r->b->file, line, col, r->t->sw[r->parent].name, name);
    if (ch == r->parent || r->t->sw[ch].parent >= 0)
        return admin_fail(CMD,
                          "%s:%lu:%lu: switch '%s' is listed under '%s' but already hangs under "
                          "'%s' (accepted: a tree, each switch under one parent)",
                          r->b->file, line, col, name, r->t->sw[r->parent].name,
                          ch == r->parent ? name : r->t->sw[r->t->sw[ch].parent].name);
    r->t->sw[ch].parent = r->parent;
    return 0;
}

static int add_node(void *arg, const char *name, unsigned long line, unsigned long col)
{
    resolve_ctx *r = arg;
    size_t len = strlen(name);
    if (!name_chars_ok(name))
        return admin_fail(CMD,
                          "%s:%lu:%lu: the host list gives node name '%.80s' (accepted: "
                          "well-formed ranges; names of A-Z a-z 0-9 _ - .)",
                          r->b->file, line, col, name);
    if (len == 0 || len >= CT_TOPO_NAME_MAX)
        return admin_fail(CMD, "%s:%lu:%lu: node name '%.80s' (accepted: 1 to %d characters)",
                          r->b->file, line, col, name, CT_TOPO_NAME_MAX - 1);
    if ((size_t)r->t->nnodes == r->ncap) {
        size_t cap = r->ncap ? 2 * r->ncap : 64;
        if (cap > CT_TOPO_MAX_NODES)
            return admin_fail(CMD, "%s: more than %d nodes", r->b->file, CT_TOPO_MAX_NODES);
        void *a = realloc(r->t->node, cap * sizeof *r->t->node);
        if (a)
            r->t->node = a;
        void *c = realloc(r->t->node_switch, cap * sizeof *r->t->node_switch);
        if (c)
            r->t->node_switch = c;
        if (!a || !c)
            return admin_fail(CMD, "out of memory");
        r->ncap = cap;
    }
    memcpy(r->t->node[r->t->nnodes], name, len + 1);
    r->t->node_switch[r->t->nnodes++] = r->parent;
    return 0;
}

typedef struct capacity {
    double oversub;    /* > 0: every uplink this ratio */
    double uplink_bw;  /* > 0: every uplink this many bytes/s */
    double unit;       /* > 0: LinkSpeed times this = bytes/s */
} capacity;

/* The pending switches -> a resolved ct_topology. */
static int build_tree(builder *b, const capacity *cap, double nic_bw, ct_topology *t)
{
    memset(t, 0, sizeof *t);
    if (b->n == 0)
        return admin_fail(CMD, "%s: no switch defined (accepted: SwitchName=... lines, or a "
                               "tree topology's switches)",
                          b->file);
    t->sw = calloc(b->n, sizeof *t->sw);
    if (!t->sw)
        return admin_fail(CMD, "out of memory");
    t->nswitches = (int32_t)b->n;
    snprintf(t->source, sizeof t->source, "contention-admin topology import %.200s", b->file);
    for (size_t i = 0; i < b->n; i++) {
        memcpy(t->sw[i].name, b->sw[i].name, sizeof t->sw[i].name);
        t->sw[i].parent = -1;
    }
    resolve_ctx r = {b, t, 0, 0};
    for (size_t i = 0; i < b->n; i++) {
        r.parent = (int32_t)i;
        if (b->sw[i].children &&
            each_host(b, b->sw[i].children, b->sw[i].ch_line, b->sw[i].ch_col, "Switches",
                      add_child, &r))
            return ADMIN_INVALID;
        if (b->sw[i].nodes &&
            each_host(b, b->sw[i].nodes, b->sw[i].nd_line, b->sw[i].nd_col, "Nodes", add_node,
                      &r))
            return ADMIN_INVALID;
    }
    if (t->nnodes == 0)
        return admin_fail(CMD, "%s: no switch lists Nodes= (accepted: nodes under the leaves)",
                          b->file);
    for (size_t i = 0; i < b->n; i++) {
        if (t->sw[i].parent < 0)
            continue;
        if (cap->oversub > 0)
            t->sw[i].oversub = cap->oversub;
        else if (cap->uplink_bw > 0)
            t->sw[i].uplink_bw = cap->uplink_bw;
        else if (b->sw[i].linkspeed > 0)
            t->sw[i].uplink_bw = b->sw[i].linkspeed * cap->unit;
        else
            return admin_fail(CMD,
                              "%s:%lu:%lu: switch '%s' has no LinkSpeed (accepted: LinkSpeed= "
                              "on every switch below the top with --linkspeed-unit, or "
                              "--oversubscription / --uplink-MBps)",
                              b->file, b->sw[i].line, b->sw[i].col, b->sw[i].name);
    }
    ct_err err;
    int32_t at;
    if (ct_topology_resolve(t, nic_bw, &at, &err) < 0) {
        if (at >= 0)
            return admin_fail(CMD, "%s:%lu:%lu: %s", b->file, b->sw[at].line, b->sw[at].col,
                              err.msg);
        return admin_fail(CMD, "%s: %s", b->file, err.msg);
    }
    return ADMIN_OK;
}

/* ---- topology.conf ------------------------------------------------------ */

static int parse_number(const char *s, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || errno || !isfinite(v) || !(v > 0))
        return -1;
    *out = v;
    return 0;
}

static int parse_conf(builder *b, const char *text)
{
    unsigned long line = 0;
    const char *p = text;
    while (*p) {
        line++;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *hash = memchr(p, '#', len);
        size_t use = hash ? (size_t)(hash - p) : len;
        pending_sw *w = NULL;
        const char *q = p, *end = p + use;
        while (q < end) {
            while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
                q++;
            if (q >= end)
                break;
            const char *tok = q;
            while (q < end && *q != ' ' && *q != '\t' && *q != '\r')
                q++;
            size_t tl = (size_t)(q - tok);
            unsigned long col = (unsigned long)(tok - p) + 1;
            const char *eq = memchr(tok, '=', tl);
            if (!eq)
                return admin_fail(CMD, "%s:%lu:%lu: '%.*s' is not KEY=VALUE (accepted: "
                                       "SwitchName=, Switches=, Nodes=, LinkSpeed=)",
                                  b->file, line, col, (int)(tl > 80 ? 80 : tl), tok);
            size_t kl = (size_t)(eq - tok);
            const char *val = eq + 1;
            size_t vl = tl - kl - 1;
            unsigned long vcol = col + (unsigned long)kl + 1;
            if (kl == 10 && strncasecmp(tok, "SwitchName", 10) == 0) {
                if (w)
                    return admin_fail(CMD, "%s:%lu:%lu: a second SwitchName on one line "
                                           "(accepted: one switch per line)",
                                      b->file, line, col);
                if (!(w = builder_add(b, val, vl, line, vcol)))
                    return ADMIN_INVALID;
                continue;
            }
            if (b->scontrol && kl == 5 && strncasecmp(tok, "Level", 5) == 0)
                continue; /* scontrol's depth from the leaves: the tree gives it */
            if (kl == 9 && strncasecmp(tok, "BlockName", 9) == 0)
                return admin_fail(CMD,
                                  "%s:%lu:%lu: BlockName is topology/block (accepted: "
                                  "topology/tree's SwitchName lines)",
                                  b->file, line, col);
            if (!w)
                return admin_fail(CMD, "%s:%lu:%lu: '%.*s' before SwitchName= (accepted: lines "
                                       "that start with SwitchName=)",
                                  b->file, line, col, (int)(kl > 40 ? 40 : kl), tok);
            if (vl == 0)
                return admin_fail(CMD, "%s:%lu:%lu: %.*s has no value", b->file, line, vcol,
                                  (int)kl, tok);
            if (kl == 8 && strncasecmp(tok, "Switches", 8) == 0 && !w->children) {
                if (!(w->children = dup_n(val, vl)))
                    return admin_fail(CMD, "out of memory");
                w->ch_line = line, w->ch_col = vcol;
            } else if (kl == 5 && strncasecmp(tok, "Nodes", 5) == 0 && !w->nodes) {
                if (!(w->nodes = dup_n(val, vl)))
                    return admin_fail(CMD, "out of memory");
                w->nd_line = line, w->nd_col = vcol;
            } else if (kl == 9 && strncasecmp(tok, "LinkSpeed", 9) == 0) {
                /* Slurm's parser takes an integer ("not a valid number" otherwise) */
                size_t d = 0;
                while (d < vl && val[d] >= '0' && val[d] <= '9')
                    d++;
                if (d != vl || parse_number(val, vl, &w->linkspeed) < 0)
                    return admin_fail(CMD,
                                      "%s:%lu:%lu: LinkSpeed '%.*s' (accepted: an integer > 0, "
                                      "as Slurm reads it)",
                                      b->file, line, vcol, (int)(vl > 40 ? 40 : vl), val);
            } else {
                return admin_fail(CMD,
                                  "%s:%lu:%lu: unknown or repeated key '%.*s' (accepted: "
                                  "SwitchName, Switches, Nodes, LinkSpeed, once per line)",
                                  b->file, line, col, (int)(kl > 40 ? 40 : kl), tok);
            }
        }
        p = eol ? eol + 1 : p + len;
    }
    return ADMIN_OK;
}

/* `scontrol show topology` (topology/tree): the lines of topology.conf
 * plus Level=, and an upper switch's Nodes= repeats every node below it,
 * so only leaves (switches without Switches=) keep their Nodes=. Every
 * uplink starts as wide as what hangs below it (oversubscription 1): the
 * caller (calibrate) replaces them with measured capacities. */
int admin_topology_from_scontrol(const char *label, const char *text, double nic_bw,
                                 ct_topology *t)
{
    builder b = {.file = label, .scontrol = 1};
    capacity cap = {.oversub = 1};
    int rc = parse_conf(&b, text);
    for (size_t i = 0; rc == ADMIN_OK && i < b.n; i++)
        if (b.sw[i].children && b.sw[i].nodes) {
            free(b.sw[i].nodes);
            b.sw[i].nodes = NULL;
        }
    if (rc == ADMIN_OK && (rc = build_tree(&b, &cap, nic_bw, t)) == ADMIN_OK)
        snprintf(t->source, sizeof t->source, "%.200s", label);
    else
        ct_topology_free(t);
    builder_free(&b);
    return rc;
}

/* ---- topology.yaml ------------------------------------------------------ */

static const yaml_node_t *ymap_get(yaml_document_t *d, const yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        const yaml_node_t *k = yaml_document_get_node(d, pr->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
            return yaml_document_get_node(d, pr->value);
    }
    return NULL;
}

static unsigned long yl(const yaml_node_t *n)
{
    return (unsigned long)n->start_mark.line + 1;
}
static unsigned long yc(const yaml_node_t *n)
{
    return (unsigned long)n->start_mark.column + 1;
}

/* A host list given as a scalar ("n[1-4]") or a list of scalars: joined
 * with commas, which is a host list too. */
static int yaml_hosts(builder *b, yaml_document_t *d, const yaml_node_t *n, const char *what,
                      char **out)
{
    if (n->type == YAML_SCALAR_NODE) {
        *out = dup_n((const char *)n->data.scalar.value, n->data.scalar.length);
        return *out ? 0 : admin_fail(CMD, "out of memory");
    }
    if (n->type != YAML_SEQUENCE_NODE)
        return admin_fail(CMD, "%s:%lu:%lu: %s is a mapping (accepted: a host list or a list of "
                               "names)",
                          b->file, yl(n), yc(n), what);
    size_t total = 1;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        const yaml_node_t *e = yaml_document_get_node(d, *it);
        if (!e || e->type != YAML_SCALAR_NODE)
            return admin_fail(CMD, "%s:%lu:%lu: %s holds a non-name (accepted: names)", b->file,
                              e ? yl(e) : yl(n), e ? yc(e) : yc(n), what);
        total += e->data.scalar.length + 1;
    }
    char *s = malloc(total);
    if (!s)
        return admin_fail(CMD, "out of memory");
    size_t used = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        const yaml_node_t *e = yaml_document_get_node(d, *it);
        if (used)
            s[used++] = ',';
        memcpy(s + used, e->data.scalar.value, e->data.scalar.length);
        used += e->data.scalar.length;
    }
    s[used] = '\0';
    *out = s;
    return 0;
}

static int parse_yaml(builder *b, const char *text, size_t len, const char *want)
{
    yaml_parser_t ps;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&ps))
        return admin_fail(CMD, "out of memory");
    yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
    if (!yaml_parser_load(&ps, &doc)) {
        int rc = admin_fail(CMD, "%s:%lu:%lu: YAML syntax error: %s", b->file,
                            (unsigned long)ps.problem_mark.line + 1,
                            (unsigned long)ps.problem_mark.column + 1,
                            ps.problem ? ps.problem : "unknown");
        yaml_parser_delete(&ps);
        return rc;
    }
    yaml_parser_delete(&ps);
    int rc = ADMIN_INVALID;
    const yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || root->type != YAML_SEQUENCE_NODE) {
        admin_fail(CMD, "%s:1:1: the top level is not a list (accepted: topology.yaml's list "
                        "of topologies)",
                   b->file);
        goto out;
    }
    const yaml_node_t *pick = NULL, *first_tree = NULL, *dflt = NULL;
    for (yaml_node_item_t *it = root->data.sequence.items.start;
         it < root->data.sequence.items.top; it++) {
        const yaml_node_t *t = yaml_document_get_node(&doc, *it);
        if (!t || t->type != YAML_MAPPING_NODE)
            continue;
        const yaml_node_t *name = ymap_get(&doc, t, "topology"), *tree = ymap_get(&doc, t, "tree");
        const yaml_node_t *cd = ymap_get(&doc, t, "cluster_default");
        if (want) {
            if (name && name->type == YAML_SCALAR_NODE &&
                strcmp((const char *)name->data.scalar.value, want) == 0)
                pick = t;
            continue;
        }
        if (tree && !first_tree)
            first_tree = t;
        if (tree && cd && cd->type == YAML_SCALAR_NODE &&
            strcmp((const char *)cd->data.scalar.value, "true") == 0 && !dflt)
            dflt = t;
    }
    if (!want)
        pick = dflt ? dflt : first_tree;
    if (!pick) {
        admin_fail(CMD, "%s: no %s%s%s (accepted: a topology with a `tree:` entry)", b->file,
                   want ? "topology named '" : "tree topology", want ? want : "",
                   want ? "'" : "");
        goto out;
    }
    const yaml_node_t *tree = ymap_get(&doc, pick, "tree");
    if (!tree || tree->type != YAML_MAPPING_NODE) {
        admin_fail(CMD, "%s:%lu:%lu: topology '%s' is not a tree (accepted: tree topologies; "
                        "block and flat have no switches)",
                   b->file, yl(pick), yc(pick), want ? want : "?");
        goto out;
    }
    const yaml_node_t *sws = ymap_get(&doc, tree, "switches");
    if (!sws || sws->type != YAML_SEQUENCE_NODE) {
        admin_fail(CMD, "%s:%lu:%lu: tree has no `switches:` list", b->file, yl(tree), yc(tree));
        goto out;
    }
    for (yaml_node_item_t *it = sws->data.sequence.items.start; it < sws->data.sequence.items.top;
         it++) {
        const yaml_node_t *s = yaml_document_get_node(&doc, *it);
        if (!s || s->type != YAML_MAPPING_NODE) {
            admin_fail(CMD, "%s:%lu:%lu: a switch entry is not a mapping (accepted: switch:, "
                            "children:, nodes:, link_speed:)",
                       b->file, s ? yl(s) : yl(sws), s ? yc(s) : yc(sws));
            goto out;
        }
        for (yaml_node_pair_t *pr = s->data.mapping.pairs.start; pr < s->data.mapping.pairs.top;
             pr++) {
            const yaml_node_t *k = yaml_document_get_node(&doc, pr->key);
            const char *ks = k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value
                                                              : "";
            if (strcmp(ks, "switch") && strcmp(ks, "children") && strcmp(ks, "nodes") &&
                strcmp(ks, "link_speed")) {
                admin_fail(CMD, "%s:%lu:%lu: unknown key '%.40s' in a switch (accepted: switch, "
                                "children, nodes, link_speed)",
                           b->file, k ? yl(k) : yl(s), k ? yc(k) : yc(s), ks);
                goto out;
            }
        }
        const yaml_node_t *nm = ymap_get(&doc, s, "switch");
        if (!nm || nm->type != YAML_SCALAR_NODE) {
            admin_fail(CMD, "%s:%lu:%lu: switch entry without a `switch:` name", b->file, yl(s),
                       yc(s));
            goto out;
        }
        pending_sw *w = builder_add(b, (const char *)nm->data.scalar.value,
                                    nm->data.scalar.length, yl(nm), yc(nm));
        if (!w)
            goto out;
        const yaml_node_t *x;
        if ((x = ymap_get(&doc, s, "children"))) {
            if (yaml_hosts(b, &doc, x, "children", &w->children))
                goto out;
            w->ch_line = yl(x), w->ch_col = yc(x);
        }
        if ((x = ymap_get(&doc, s, "nodes"))) {
            if (yaml_hosts(b, &doc, x, "nodes", &w->nodes))
                goto out;
            w->nd_line = yl(x), w->nd_col = yc(x);
        }
        if ((x = ymap_get(&doc, s, "link_speed"))) {
            if (x->type != YAML_SCALAR_NODE ||
                parse_number((const char *)x->data.scalar.value, x->data.scalar.length,
                             &w->linkspeed) < 0) {
                admin_fail(CMD, "%s:%lu:%lu: link_speed is not a number > 0", b->file, yl(x),
                           yc(x));
                goto out;
            }
        }
    }
    rc = ADMIN_OK;
out:
    yaml_document_delete(&doc);
    return rc;
}

/* ---- the command -------------------------------------------------------- */

static int write_file(const char *out, const ct_sigfile *sf)
{
    ct_err err;
    if (!out) {
        if (ct_sigfile_write(stdout, sf, &err) < 0)
            return admin_fail(CMD, "%s", err.msg);
        return fflush(stdout) == 0 ? ADMIN_OK : admin_fail(CMD, "stdout: write error");
    }
    admin_atomic w;
    if (admin_atomic_open(&w, out, 0644) < 0)
        return admin_fail(CMD, "%s: cannot create a temporary file: %s", out, strerror(errno));
    if (ct_sigfile_write(w.f, sf, &err) < 0) {
        admin_atomic_abort(&w);
        return admin_fail(CMD, "%s: %s", out, err.msg);
    }
    if (admin_atomic_commit(&w, NULL) < 0 && !w.renamed)
        return admin_fail(CMD, "%s: write error: %s", out, strerror(errno));
    return ADMIN_OK;
}

int admin_topology_read(const char *file, const char *text, size_t len, int is_yaml,
                        const char *want, double oversub, double uplink_bw, double unit,
                        double nic_bw, ct_topology *t)
{
    builder b = {.file = file};
    capacity cap = {.oversub = oversub, .uplink_bw = uplink_bw, .unit = unit};
    int rc = is_yaml ? parse_yaml(&b, text, len, want) : parse_conf(&b, text);
    if (rc == ADMIN_OK)
        rc = build_tree(&b, &cap, nic_bw, t);
    builder_free(&b);
    return rc;
}

static int parse_pos(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || !(v > 0))
        return admin_usage(CMD, "%s '%s' (accepted: a number > 0)", opt, s);
    *out = v;
    return ADMIN_OK;
}

int cmd_topology(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"config", required_argument, NULL, 'c'},
        {"fabric", required_argument, NULL, 'f'},
        {"out", required_argument, NULL, 'o'},
        {"oversubscription", required_argument, NULL, 'r'},
        {"uplink-MBps", required_argument, NULL, 'u'},
        {"linkspeed-unit", required_argument, NULL, 'l'},
        {"topology", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    if (argc < 2 || (strcmp(argv[1], "import") != 0 && argv[1][0] != '-'))
        return argc < 2 ? admin_usage(CMD, "missing action (accepted: import)")
                        : admin_usage(CMD, "unknown action '%s' (accepted: import)", argv[1]);
    int sub = strcmp(argv[1], "import") == 0;
    admin_opts o = {.cmd = CMD,
                    .shortopts = "h",
                    .longopts = longopts,
                    .accepted = "--config, --fabric, --out, --oversubscription, --uplink-MBps, "
                                "--linkspeed-unit, --topology, --help",
                    .help = help,
                    .config = CT_DEFAULT_SIGNATURES};
    const char *out = NULL, *want = NULL;
    capacity cap = {0};
    int ncap = 0, c;
    while ((c = admin_next_opt(&o, argc - sub, argv + sub)) > 0) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 't':
            want = optarg;
            break;
        case 'r':
            if (parse_pos("--oversubscription", optarg, &cap.oversub))
                return ADMIN_USAGE;
            ncap++;
            break;
        case 'u':
            if (parse_pos("--uplink-MBps", optarg, &cap.uplink_bw))
                return ADMIN_USAGE;
            cap.uplink_bw *= 1e6;
            ncap++;
            break;
        case 'l':
            if (strcmp(optarg, "MBps") == 0)
                cap.unit = 1e6;
            else if (strcmp(optarg, "Mbps") == 0)
                cap.unit = 1e6 / 8;
            else if (strcmp(optarg, "Gbps") == 0)
                cap.unit = 1e9 / 8;
            else
                return admin_usage(CMD, "--linkspeed-unit '%s' (accepted: MBps, Mbps, Gbps)",
                                   optarg);
            ncap++;
            break;
        }
    }
    if (c < 0)
        return o.status;
    if (!sub)
        return admin_usage(CMD, "missing action (accepted: import)");
    if (optind != argc - sub - 1)
        return admin_usage(CMD, "expected one FILE (topology.conf or topology.yaml)");
    if (ncap != 1)
        return admin_usage(CMD, "give exactly one of --oversubscription, --uplink-MBps, "
                                "--linkspeed-unit (%d given)",
                           ncap);
    const char *file = argv[optind + sub];

    ct_sigfile sf;
    const ct_fabric *cf = admin_load_fabric(CMD, o.config, o.fabric, &sf);
    if (!cf)
        return ADMIN_INVALID;
    ct_fabric *fab = &sf.fabrics[cf - sf.fabrics];

    int rc = ADMIN_INVALID;
    char *text = NULL;
    ct_topology *t = calloc(1, sizeof *t);
    if (!t) {
        admin_fail(CMD, "out of memory");
        goto out;
    }
    size_t len;
    if (admin_read_file(CMD, file, MAX_FILE_BYTES, "a topology.conf or a YAML switch tree", &text,
                        &len) != ADMIN_OK)
        goto out;
    if (memchr(text, '\0', len)) {
        admin_fail(CMD, "%s: holds a NUL byte (accepted: a text file)", file);
        goto out;
    }
    size_t fl = strlen(file);
    int is_yaml = (fl > 5 && strcmp(file + fl - 5, ".yaml") == 0) ||
                  (fl > 4 && strcmp(file + fl - 4, ".yml") == 0);
    if (admin_topology_read(file, text, len, is_yaml, want, cap.oversub, cap.uplink_bw, cap.unit,
                            1.0 / fab->beta, t) != ADMIN_OK)
        goto out;
    ct_topology_free(fab->topology);
    free(fab->topology);
    fab->topology = t;
    t = NULL;
    int32_t leaves = 0;
    for (int32_t s = 0; s < fab->topology->nswitches; s++) {
        int has = 0;
        for (int32_t v = 0; v < fab->topology->nnodes && !has; v++)
            has = fab->topology->node_switch[v] == s;
        leaves += has;
    }
    rc = write_file(out, &sf);
    if (rc == ADMIN_OK)
        fprintf(stderr,
                "contention-admin topology: fabric %s: %d switches, %d with nodes, %d nodes "
                "from %s%s%s\n",
                fab->name, (int)fab->topology->nswitches, (int)leaves,
                (int)fab->topology->nnodes, file, out ? " -> " : "", out ? out : "");
out:
    if (t) {
        ct_topology_free(t);
        free(t);
    }
    free(text);
    ct_sigfile_free(&sf);
    return rc;
}
