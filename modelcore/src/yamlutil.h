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

#define Y_MAX_DEPTH 32
#define Y_MAX_NODES 200000

typedef enum ykind { Y_SCALAR, Y_SEQ, Y_MAP } ykind;

typedef struct ynode {
    ykind kind;
    unsigned long line, col; /* 1-based position of the node's start */
    /* scalars */
    char *str; /* NUL-terminated (embedded NULs are rejected) */
    size_t len;
    int plain; /* 1: unquoted (plain style); numbers must be plain */
    /* sequences: items[i]; mappings: items[2i] key (a scalar), items[2i+1] value */
    struct ynode **items;
    size_t nitems;
    size_t cap;
    struct ynode *parent;
} ynode;

/* Parse buf into a tree. An empty stream gives *root = NULL and returns 0.
 * On error returns -1 with "NAME:LINE:COL: ..." in err. */
int ytree_parse(const char *name, const char *buf, size_t len, ynode **root, ct_err *err);
/* Free a tree (iterative: depth never costs stack). NULL is fine. */
void ynode_free(ynode *n);

/* Human name of a node's kind for messages ("a mapping", "a list", "a string"). */
const char *ykind_name(const ynode *n);
/* Mapping entries: number of pairs, key string and value of pair i. */
size_t ymap_size(const ynode *map);
const ynode *ymap_key(const ynode *map, size_t i);
const ynode *ymap_value(const ynode *map, size_t i);
/* Value for key, or NULL. */
const ynode *ymap_get(const ynode *map, const char *key);

/* Check that every key of map is one of `allowed` (NULL-terminated) and
 * appears once. `what` names the mapping in messages ("fabric 'x'"). */
int ymap_check_keys(const char *name, const ynode *map, const char *what,
                       const char *const *allowed, ct_err *err);

/* Node must be a mapping / a list / a scalar; `what` names it in messages. */
int y_expect(const char *name, const ynode *n, ykind kind, const char *what, ct_err *err);
/* Empty plain scalars, `~` and `null` are YAML's null. */
int y_is_null(const ynode *n);
/* Convert a scalar. Numbers must be plain, decimal and finite; integers fit
 * the given range; booleans are true/false; strings at most maxlen bytes
 * (excluding the NUL) and free of control characters other than tab and newline. */
int y_number(const char *name, const ynode *n, const char *what, double *out, ct_err *err);
int y_integer(const char *name, const ynode *n, const char *what, long long lo, long long hi,
                 long long *out, ct_err *err);
int y_bool(const char *name, const ynode *n, const char *what, int *out, ct_err *err);
int y_string(const char *name, const ynode *n, const char *what, char *out, size_t outsz,
                ct_err *err);

/* Error at a node: "NAME:LINE:COL: <fmt>". Returns -1. */
int y_err(ct_err *err, const char *name, const ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Write s as a YAML double-quoted scalar (escapes quotes, backslashes and
 * control characters) so that the parser reads back the same bytes. */
void y_write_string(FILE *f, const char *s);

#endif
