#include "yamlutil.h"
#include "grow.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

int y_err(ct_err *err, const char *name, const ynode *n, const char *fmt, ...)
{
    if (err) {
        char body[CT_ERR_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(body, sizeof body, fmt, ap);
        va_end(ap);
        if (n)
            ct_err_set(err, "%s:%lu:%lu: %s", name, n->line, n->col, body);
        else
            ct_err_set(err, "%s: %s", name, body);
    }
    return -1;
}

void ynode_free(ynode *n)
{
    /* post-order walk through parent links: no recursion, so a deep tree
     * cannot exhaust the stack */
    while (n) {
        if (n->nitems > 0) {
            n = n->items[--n->nitems];
            continue;
        }
        ynode *up = n->parent;
        free(n->str);
        free(n->items);
        free(n);
        n = up;
    }
}

const char *ykind_name(const ynode *n)
{
    if (!n)
        return "nothing";
    switch (n->kind) {
    case Y_MAP:
        return "a mapping";
    case Y_SEQ:
        return "a list";
    case Y_SCALAR:
        return y_is_null(n) ? "an empty value" : "a scalar";
    }
    return "?";
}

static int add_child(ynode *parent, ynode *child)
{
    if (grow_array((void **)&parent->items, &parent->cap, parent->nitems + 1,
                      sizeof *parent->items, 8) < 0)
        return -1;
    parent->items[parent->nitems++] = child;
    child->parent = parent;
    return 0;
}

/* Line and column (1-based) of a byte offset, for reader errors, which
 * carry an offset but no mark. */
static void offset_position(const char *buf, size_t len, size_t off, unsigned long *line,
                            unsigned long *col)
{
    unsigned long l = 1, c = 1;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static int parser_error(const yaml_parser_t *p, const char *name, const char *buf, size_t len,
                        ct_err *err)
{
    unsigned long line, col;
    if (p->error == YAML_READER_ERROR) {
        offset_position(buf, len, p->problem_offset, &line, &col);
    } else {
        line = (unsigned long)p->problem_mark.line + 1;
        col = (unsigned long)p->problem_mark.column + 1;
    }
    const char *problem = p->problem ? p->problem : "unknown problem";
    if (p->error == YAML_MEMORY_ERROR)
        return ct_err_set(err, "%s: out of memory while parsing YAML", name);
    if (p->context)
        return ct_err_set(err,
                          "%s:%lu:%lu: YAML syntax error: %s (%s started at %lu:%lu; the "
                          "file must be valid YAML)",
                          name, line, col, problem, p->context,
                          (unsigned long)p->context_mark.line + 1,
                          (unsigned long)p->context_mark.column + 1);
    return ct_err_set(err, "%s:%lu:%lu: YAML syntax error: %s (the file must be valid YAML)", name,
                      line, col, problem);
}

int ytree_parse(const char *name, const char *buf, size_t len, ynode **root, ct_err *err)
{
    *root = NULL;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return ct_err_set(err, "%s: out of memory while parsing YAML", name);
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);

    ynode *top = NULL, *cur = NULL;
    size_t nodes = 0, depth = 0;
    int ndocs = 0, rc = -1, done = 0;
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            parser_error(&p, name, buf, len, err);
            goto out;
        }
        ynode where = {.line = (unsigned long)ev.start_mark.line + 1,
                          .col = (unsigned long)ev.start_mark.column + 1};
        ynode *n = NULL;
        int fail = 0;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++ndocs > 1) {
                y_err(err, name, &where,
                         "a second YAML document (accepted: a single document; remove the '---')");
                fail = 1;
            }
            break;
        case YAML_ALIAS_EVENT:
            y_err(
                err, name, &where,
                "YAML alias '*%s' (aliases and anchors are not accepted here; write the value out)",
                ev.data.alias.anchor ? (const char *)ev.data.alias.anchor : "");
            fail = 1;
            break;
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            const yaml_char_t *tag = ev.type == YAML_SCALAR_EVENT ? ev.data.scalar.tag
                                     : ev.type == YAML_SEQUENCE_START_EVENT
                                         ? ev.data.sequence_start.tag
                                         : ev.data.mapping_start.tag;
            if (tag) {
                y_err(err, name, &where,
                         "explicit YAML tag '%s' (tags are not accepted; write a plain value)",
                         (const char *)tag);
                fail = 1;
                break;
            }
            if (++nodes > Y_MAX_NODES) {
                y_err(err, name, &where,
                         "more than %d YAML nodes (a signature file is far "
                         "smaller; is this the right file?)",
                         Y_MAX_NODES);
                fail = 1;
                break;
            }
            if (ev.type != YAML_SCALAR_EVENT && depth >= Y_MAX_DEPTH) {
                y_err(err, name, &where,
                         "nesting deeper than %d levels (accepted: the "
                         "schema of conf/README.md, a few levels deep)",
                         Y_MAX_DEPTH);
                fail = 1;
                break;
            }
            if (cur && cur->kind == Y_MAP && cur->nitems % 2 == 0 &&
                ev.type != YAML_SCALAR_EVENT) {
                y_err(err, name, &where,
                         "a %s used as a mapping key (accepted: a plain name as key)",
                         ev.type == YAML_SEQUENCE_START_EVENT ? "list" : "mapping");
                fail = 1;
                break;
            }
            n = calloc(1, sizeof *n);
            if (!n) {
                ct_err_set(err, "%s: out of memory while parsing YAML", name);
                fail = 1;
                break;
            }
            n->line = where.line;
            n->col = where.col;
            if (ev.type == YAML_SCALAR_EVENT) {
                n->kind = Y_SCALAR;
                n->len = ev.data.scalar.length;
                n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
                n->str = malloc(n->len + 1);
                if (!n->str) {
                    free(n);
                    ct_err_set(err, "%s: out of memory while parsing YAML", name);
                    fail = 1;
                    break;
                }
                memcpy(n->str, ev.data.scalar.value, n->len);
                n->str[n->len] = '\0';
            } else {
                n->kind = ev.type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP;
            }
            if (cur) {
                if (add_child(cur, n) < 0) {
                    ynode_free(n);
                    ct_err_set(err, "%s: out of memory while parsing YAML", name);
                    fail = 1;
                    break;
                }
            } else {
                top = n;
            }
            if (n->kind != Y_SCALAR) {
                cur = n;
                depth++;
            }
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (cur) {
                cur = cur->parent;
                depth--;
            }
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
        if (fail)
            goto out;
    }
    rc = 0;
out:
    yaml_parser_delete(&p);
    if (rc < 0) {
        ynode_free(top);
        return -1;
    }
    *root = top;
    return 0;
}

size_t ymap_size(const ynode *map)
{
    return map && map->kind == Y_MAP ? map->nitems / 2 : 0;
}

const ynode *ymap_key(const ynode *map, size_t i)
{
    return map->items[2 * i];
}

const ynode *ymap_value(const ynode *map, size_t i)
{
    return map->items[2 * i + 1];
}

const ynode *ymap_get(const ynode *map, const char *key)
{
    size_t n = ymap_size(map);
    for (size_t i = 0; i < n; i++) {
        const ynode *k = ymap_key(map, i);
        if (k->kind == Y_SCALAR && strcmp(k->str, key) == 0)
            return ymap_value(map, i);
    }
    return NULL;
}

typedef struct keyref {
    const ynode *key;
    size_t index;
} keyref;

static int keyref_cmp(const void *a, const void *b)
{
    const keyref *x = a, *y = b;
    int c = strcmp(x->key->str, y->key->str);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

int ymap_check_keys(const char *name, const ynode *map, const char *what,
                       const char *const *allowed, ct_err *err)
{
    size_t n = ymap_size(map);
    if (allowed) {
        for (size_t i = 0; i < n; i++) {
            const ynode *k = ymap_key(map, i);
            int ok = 0;
            for (const char *const *a = allowed; *a && !ok; a++)
                ok = strcmp(k->str, *a) == 0;
            if (!ok) {
                char list[CT_ERR_MAX / 2];
                size_t used = 0;
                list[0] = '\0';
                for (const char *const *a = allowed; *a; a++) {
                    int w = snprintf(list + used, sizeof list - used, "%s%s",
                                     a == allowed ? "" : ", ", *a);
                    if (w < 0 || (size_t)w >= sizeof list - used)
                        break;
                    used += (size_t)w;
                }
                return y_err(err, name, k, "unknown key '%.64s' in %s (accepted: %s)", k->str,
                                what, list);
            }
        }
    }
    if (n < 2)
        return 0;
    /* sort so that duplicate detection stays O(n log n) on big inputs */
    keyref *refs = malloc(n * sizeof *refs);
    if (!refs)
        return ct_err_set(err, "%s: out of memory", name);
    for (size_t i = 0; i < n; i++) {
        refs[i].key = ymap_key(map, i);
        refs[i].index = i;
    }
    qsort(refs, n, sizeof *refs, keyref_cmp);
    const keyref *dup = NULL, *first = NULL;
    for (size_t i = 1; i < n; i++) {
        if (strcmp(refs[i].key->str, refs[i - 1].key->str) == 0 &&
            (!dup || refs[i].index < dup->index)) {
            /* the earliest repeat in file order; its first occurrence precedes it */
            size_t j = i - 1;
            while (j > 0 && strcmp(refs[j - 1].key->str, refs[i].key->str) == 0)
                j--;
            dup = &refs[i];
            first = &refs[j];
        }
    }
    int rc = 0;
    if (dup)
        rc = y_err(err, name, dup->key,
                      "duplicate %s '%.64s' in %s, first at line %lu (accepted: each %s once)",
                      allowed ? "key" : "name", dup->key->str, what, first->key->line,
                      allowed ? "key" : "name");
    free(refs);
    return rc;
}

int y_is_null(const ynode *n)
{
    return n && n->kind == Y_SCALAR && n->plain &&
           (n->len == 0 || strcmp(n->str, "~") == 0 || strcmp(n->str, "null") == 0 ||
            strcmp(n->str, "Null") == 0 || strcmp(n->str, "NULL") == 0);
}

int y_expect(const char *name, const ynode *n, ykind kind, const char *what, ct_err *err)
{
    if (n && n->kind == kind && !(kind == Y_SCALAR && y_is_null(n)))
        return 0;
    const char *want = kind == Y_MAP   ? "a mapping (key: value lines)"
                       : kind == Y_SEQ ? "a list"
                                          : "a value";
    return y_err(err, name, n, "%s is %s (accepted: %s)", what, ykind_name(n), want);
}

static int scalar_value(const char *name, const ynode *n, const char *what, ct_err *err)
{
    if (!n || n->kind != Y_SCALAR)
        return y_err(err, name, n, "%s is %s (accepted: a single value)", what,
                        ykind_name(n));
    if (y_is_null(n))
        return y_err(err, name, n, "%s has no value (accepted: a value after the colon)", what);
    return 0;
}

/* YAML 1.2 decimal float/int syntax, no hex, no leading/trailing junk. */
static int is_decimal(const char *s)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        p++;
        digits++;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            p++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return *p == '\0';
}

static int looks_nonfinite(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    if (*s == '.')
        s++;
    return strcasecmp(s, "inf") == 0 || strcasecmp(s, "nan") == 0 || strcasecmp(s, "infinity") == 0;
}

int y_number(const char *name, const ynode *n, const char *what, double *out, ct_err *err)
{
    if (scalar_value(name, n, what, err) < 0)
        return -1;
    if (looks_nonfinite(n->str))
        return y_err(err, name, n,
                        "%s is '%.40s', not finite (accepted: a finite decimal number)", what,
                        n->str);
    if (!n->plain || !is_decimal(n->str))
        return y_err(err, name, n,
                        "%s is %s'%.40s', not a number (accepted: an unquoted decimal number such "
                        "as 60 or 1.5e-3)",
                        what, n->plain ? "" : "the quoted string ", n->str);
    errno = 0;
    double v = strtod(n->str, NULL);
    if (errno == ERANGE || !isfinite(v))
        return y_err(err, name, n,
                        "%s is '%.40s', out of range (accepted: a finite decimal "
                        "number of ordinary magnitude)",
                        what, n->str);
    *out = v;
    return 0;
}

int y_integer(const char *name, const ynode *n, const char *what, long long lo, long long hi,
                 long long *out, ct_err *err)
{
    if (scalar_value(name, n, what, err) < 0)
        return -1;
    const char *p = n->str;
    if (*p == '+' || *p == '-')
        p++;
    int ok = n->plain && *p;
    for (; ok && *p; p++)
        ok = isdigit((unsigned char)*p);
    errno = 0;
    long long v = ok ? strtoll(n->str, NULL, 10) : 0;
    if (!ok || errno == ERANGE || v < lo || v > hi)
        return y_err(err, name, n,
                        "%s is '%.40s' (accepted: an unquoted integer from %lld to %lld)", what,
                        n->str, lo, hi);
    *out = v;
    return 0;
}

int y_bool(const char *name, const ynode *n, const char *what, int *out, ct_err *err)
{
    if (scalar_value(name, n, what, err) < 0)
        return -1;
    if (n->plain && strcasecmp(n->str, "true") == 0) {
        *out = 1;
        return 0;
    }
    if (n->plain && strcasecmp(n->str, "false") == 0) {
        *out = 0;
        return 0;
    }
    return y_err(err, name, n, "%s is '%.40s' (accepted: true or false, unquoted)", what,
                    n->str);
}

/* Decode one UTF-8 code point; returns its length or 0 when malformed. */
static size_t utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
    if (len == 0)
        return 0;
    unsigned char c = s[0];
    size_t n;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2;
        v = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        v = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    *cp = v;
    return n;
}

/* Characters libyaml reads back raw from a file (its reader's printable
 * set), plus tab and newline, which the writer escapes. */
static int string_char_ok(uint32_t c)
{
    return c == 0x09 || c == 0x0A || (c >= 0x20 && c <= 0x7E) || c == 0x85 ||
           (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0x10FFFF);
}

int y_string(const char *name, const ynode *n, const char *what, char *out, size_t outsz,
                ct_err *err)
{
    if (scalar_value(name, n, what, err) < 0)
        return -1;
    if (n->len + 1 > outsz)
        return y_err(err, name, n, "%s is %zu bytes long (accepted: at most %zu bytes)", what,
                        n->len, outsz - 1);
    const unsigned char *s = (const unsigned char *)n->str;
    for (size_t i = 0; i < n->len;) {
        uint32_t cp = 0;
        size_t k = utf8_next(s + i, n->len - i, &cp);
        if (!k || !string_char_ok(cp))
            return y_err(err, name, n,
                            "%s contains character U+%04X at byte %zu (accepted: "
                            "printable text, tabs and newlines)",
                            what, (unsigned)cp, i);
        i += k;
    }
    memcpy(out, n->str, n->len + 1);
    return 0;
}

void y_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        size_t k = utf8_next(p + i, len - i, &cp);
        if (!k) {
            /* not UTF-8: keep the byte readable; the loader never yields this */
            fprintf(f, "\\x%02X", p[i]);
            i++;
            continue;
        }
        switch (cp) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        /* YAML line breaks that a quoted scalar would fold */
        case 0x85:
            fputs("\\N", f);
            break;
        case 0x2028:
            fputs("\\L", f);
            break;
        case 0x2029:
            fputs("\\P", f);
            break;
        case 0xFEFF:
            fputs("\\uFEFF", f);
            break;
        default:
            if (cp < 0x20 || cp == 0x7F)
                fprintf(f, "\\x%02X", (unsigned)cp);
            else
                fwrite(p + i, 1, k, f);
        }
        i += k;
    }
    fputc('"', f);
}
