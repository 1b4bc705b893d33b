/* A small, strict YAML tree on top of libyaml's event parser (internal to
 * libcontention; used by the signature loader).
 *
 * Why not libyaml's document loader: it resolves aliases, so `&a [*a]`
 * builds a cycle and nested aliases blow up exponentially; a file an admin
 * writes by hand never needs them. This builder rejects aliases and explicit
 * tags, allows one document, bounds nesting depth and node count, and keeps
 * every node's 1-based line and column so messages read FILE:LINE:COL.
 */
#ifndef CONTENTION_YAMLUTIL_H
#define CONTENTION_YAMLUTIL_H

#include <stddef.h>
#include <stdio.h>

#include "contention/error.h"

#define CT_Y_MAX_DEPTH 32
#define CT_Y_MAX_NODES 200000

typedef enum ct_ykind { CT_Y_SCALAR, CT_Y_SEQ, CT_Y_MAP } ct_ykind;

typedef struct ct_ynode {
    ct_ykind kind;
    unsigned long line, col; /* 1-based position of the node's start */
    /* scalars */
    char *str; /* NUL-terminated (embedded NULs are rejected) */
    size_t len;
    int plain; /* 1: unquoted (plain style); numbers must be plain */
    /* sequences: items[i]; mappings: items[2i] key (a scalar), items[2i+1] value */
    struct ct_ynode **items;
    size_t nitems;
    size_t cap;
    struct ct_ynode *parent;
} ct_ynode;

/* Parse buf into a tree. An empty stream gives *root = NULL and returns 0.
 * On error returns -1 with "NAME:LINE:COL: ..." in err. */
int ct_yaml_parse(const char *name, const char *buf, size_t len, ct_ynode **root, ct_err *err);
/* Free a tree (iterative: depth never costs stack). NULL is fine. */
void ct_ynode_free(ct_ynode *n);

/* Human name of a node's kind for messages ("a mapping", "a list", "a string"). */
const char *ct_ykind_name(const ct_ynode *n);
/* Mapping entries: number of pairs, key string and value of pair i. */
size_t ct_ymap_size(const ct_ynode *map);
const ct_ynode *ct_ymap_key(const ct_ynode *map, size_t i);
const ct_ynode *ct_ymap_value(const ct_ynode *map, size_t i);
/* Value for key, or NULL. */
const ct_ynode *ct_ymap_get(const ct_ynode *map, const char *key);

/* Check that every key of map is one of `allowed` (NULL-terminated) and
 * appears once. `what` names the mapping in messages ("fabric 'x'"). */
int ct_ymap_check_keys(const char *name, const ct_ynode *map, const char *what,
                       const char *const *allowed, ct_err *err);

/* Node must be a mapping / a list / a scalar; `what` names it in messages. */
int ct_y_expect(const char *name, const ct_ynode *n, ct_ykind kind, const char *what, ct_err *err);
/* Empty plain scalars, `~` and `null` are YAML's null. */
int ct_y_is_null(const ct_ynode *n);
/* Convert a scalar. Numbers must be plain, decimal and finite; integers fit
 * the given range; booleans are true/false; strings at most maxlen bytes
 * (excluding the NUL) and free of control characters other than tab and newline. */
int ct_y_number(const char *name, const ct_ynode *n, const char *what, double *out, ct_err *err);
int ct_y_integer(const char *name, const ct_ynode *n, const char *what, long long lo, long long hi,
                 long long *out, ct_err *err);
int ct_y_bool(const char *name, const ct_ynode *n, const char *what, int *out, ct_err *err);
int ct_y_string(const char *name, const ct_ynode *n, const char *what, char *out, size_t outsz,
                ct_err *err);

/* Error at a node: "NAME:LINE:COL: <fmt>". Returns -1. */
int ct_y_err(ct_err *err, const char *name, const ct_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Write s as a YAML double-quoted scalar (escapes quotes, backslashes and
 * control characters) so that the parser reads back the same bytes. */
void ct_y_write_string(FILE *f, const char *s);

#endif
