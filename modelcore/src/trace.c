/* Trace files for the simulator of paper 001 §VI-A, the measured-times file
 * of §VI-B and explicit placements. Formats: doc/trace-format.md. */
#include "contention/trace.h"
#include "contention/fileio.h"
#include "contention/units.h"
#include "grow.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NO_LABEL UINT32_MAX
#define MAX_TOK 8

static const char *ev_name[CT_EV_KIND_COUNT] = {
    "compute", "send",    "isend",    "recv",     "irecv",      "waitall",
    "barrier", "bcast",   "reduce",   "allreduce", "gather",    "gatherv",
    "scatter", "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv", "scan",
    "exscan"};

/* ---------------------------------------------------------------- helpers */

static void copy_name(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "<trace>");
}

static int grow(void **p, size_t *cap, size_t need, size_t elem, ct_err *err)
{
    if (need <= *cap) /* the common case, inlined: called per event */
        return 0;
    if (grow_array(p, cap, need, elem, 64) < 0)
        return ct_err_set(err, "out of memory (%zu elements of %zu bytes)", need, elem);
    return 0;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* Open-addressing set of labels -> communication index. */
typedef struct label_tab {
    size_t cap; /* power of two */
    size_t n;
    int64_t *slot; /* comm index or -1 */
} label_tab;

static const char *label_of(const ct_trace *tr, size_t c)
{
    return tr->label_off[c] == NO_LABEL ? NULL : tr->labels + tr->label_off[c];
}

static int tab_rehash(label_tab *t, const ct_trace *tr, size_t cap, ct_err *err)
{
    int64_t *s = malloc(cap * sizeof *s);
    if (!s)
        return ct_err_set(err, "out of memory (label table of %zu entries)", cap);
    for (size_t i = 0; i < cap; i++)
        s[i] = -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slot[i] < 0)
            continue;
        size_t h = hash_str(label_of(tr, (size_t)t->slot[i])) & (cap - 1);
        while (s[h] >= 0)
            h = (h + 1) & (cap - 1);
        s[h] = t->slot[i];
    }
    free(t->slot);
    t->slot = s;
    t->cap = cap;
    return 0;
}

/* Index of the communication labelled `lab`, or -1. */
static int64_t tab_find(const label_tab *t, const ct_trace *tr, const char *lab)
{
    if (!t->cap)
        return -1;
    size_t h = hash_str(lab) & (t->cap - 1);
    while (t->slot[h] >= 0) {
        if (strcmp(label_of(tr, (size_t)t->slot[h]), lab) == 0)
            return t->slot[h];
        h = (h + 1) & (t->cap - 1);
    }
    return -1;
}

static int tab_insert(label_tab *t, const ct_trace *tr, size_t c, ct_err *err)
{
    if (2 * (t->n + 1) > t->cap && tab_rehash(t, tr, t->cap ? 2 * t->cap : 64, err))
        return -1;
    size_t h = hash_str(label_of(tr, c)) & (t->cap - 1);
    while (t->slot[h] >= 0)
        h = (h + 1) & (t->cap - 1);
    t->slot[h] = (int64_t)c;
    t->n++;
    return 0;
}

static int build_tab(label_tab *t, const ct_trace *tr, ct_err *err)
{
    memset(t, 0, sizeof *t);
    for (size_t c = 0; c < tr->ncomm; c++)
        if (tr->label_off[c] != NO_LABEL && tab_insert(t, tr, c, err))
            return -1;
    return 0;
}

/* "c<digits>" -> index, or -1. */
static int64_t default_label_index(const char *s)
{
    if (s[0] != 'c' || !isdigit((unsigned char)s[1]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s + 1, &end, 10);
    if (*end || errno || v > (unsigned long long)INT64_MAX)
        return -1;
    return (int64_t)v;
}

static int valid_label(const char *s)
{
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    size_t n = 0;
    for (; *s; s++, n++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-'))
            return 0;
    return n < CT_LABEL_MAX;
}

/* ---------------------------------------------------------------- builder */

/* What only building needs (ct_trace.build; freed by ct_trace_finish). */
struct ct_trace_build {
    int32_t *stage_task;     /* task of each event, file order */
    label_tab *stage_labels; /* label -> communication */
    label_tab *stage_comms;  /* name -> communicator */
    size_t ev_cap, comm_cap, labels_cap, comms_cap, members_cap;
    size_t max_events;      /* > 0: adding more events than this is refused */
    int32_t max_tasks;      /* > 0: task ids and `tasks N` at most this many tasks */
    int32_t declared_tasks; /* `tasks N` header, -1 when absent */
    uint8_t ctx;            /* matching context of the events added now */
    uint16_t *key_slot;     /* open addressing on (tag, mcomm): index into keys, 0 empty */
    size_t key_cap;         /* power of two, or 0 */
    size_t keys_cap;        /* room in tr->keys */
    int32_t declared_line;
    /* per communicator (index), the MEMBERS text of its first `comm` line
     * and its largest member: a recording declares each communicator once
     * per member rank, with the same text */
    char **comm_text;
    int32_t *comm_hi;
    size_t comm_text_cap;
};

static const struct ct_trace_build no_build = {.declared_tasks = -1};

/* The builder state for reading (a finished or empty trace has none). */
static const struct ct_trace_build *cbuild(const ct_trace *tr)
{
    return tr->build ? tr->build : &no_build;
}

/* Every entry point that adds to a trace starts here. */
static int need_build(ct_trace *tr, ct_err *err)
{
    if (tr->finished)
        return ct_err_set(err, "%s: trace already finished", tr->name);
    if (tr->build)
        return 0;
    tr->build = calloc(1, sizeof *tr->build);
    if (!tr->build)
        return ct_err_set(err, "%s: out of memory starting a trace", tr->name);
    tr->build->declared_tasks = -1;
    return 0;
}

static void free_build(ct_trace *tr)
{
    struct ct_trace_build *b = tr->build;
    if (!b)
        return;
    free(b->stage_task);
    if (b->stage_labels)
        free(b->stage_labels->slot);
    free(b->stage_labels);
    if (b->stage_comms)
        free(b->stage_comms->slot);
    free(b->stage_comms);
    for (size_t i = 0; i < b->comm_text_cap; i++)
        free(b->comm_text[i]);
    free(b->comm_text);
    free(b->comm_hi);
    free(b->key_slot);
    free(b);
    tr->build = NULL;
}

int ct_trace_init(ct_trace *tr, const char *name, ct_err *err)
{
    (void)err;
    memset(tr, 0, sizeof *tr);
    copy_name(tr->name, sizeof tr->name, name);
    return 0; /* the builder state comes with the first addition (need_build) */
}

void ct_trace_free(ct_trace *tr)
{
    if (!tr)
        return;
    free(tr->ev);
    free(tr->task_first);
    free(tr->comm_src);
    free(tr->comm_event);
    free(tr->label_off);
    free(tr->labels);
    free(tr->comms);
    free(tr->members);
    free(tr->member_order);
    free(tr->keys);
    free_build(tr);
    char name[sizeof tr->name];
    memcpy(name, tr->name, sizeof name);
    memset(tr, 0, sizeof *tr);
    memcpy(tr->name, name, sizeof name);
}

/* Prefix "NAME:LINE: " (or "NAME: " for in-memory events) to err. */
static int at_line(const ct_trace *tr, int32_t line, ct_err *err)
{
    if (line > 0)
        return ct_err_prefix(err, "%s:%d: ", tr->name, (int)line);
    return ct_err_prefix(err, "%s: ", tr->name);
}

int ct_trace_set_ntasks(ct_trace *tr, int32_t ntasks, int32_t line, ct_err *err)
{
    if (need_build(tr, err))
        return -1;
    if (tr->build->declared_tasks >= 0) {
        ct_err_set(err, "second 'tasks' header (the first is on line %d; give it once)",
                   (int)tr->build->declared_line);
        return at_line(tr, line, err);
    }
    if (tr->nevents > 0) {
        ct_err_set(err, "'tasks' header after the first event (put it before any event)");
        return at_line(tr, line, err);
    }
    int32_t top = tr->build->max_tasks > 0 ? tr->build->max_tasks : CT_TRACE_MAX_TASKS;
    if (ntasks < 1 || ntasks > top) {
        ct_err_set(err, "task count %d out of range (accepted: 1 to %d)", (int)ntasks, (int)top);
        return at_line(tr, line, err);
    }
    tr->build->declared_tasks = ntasks;
    tr->build->declared_line = line;
    return 0;
}

static int check_task(ct_trace *tr, int32_t task, const char *what, int32_t line, ct_err *err)
{
    int32_t lim = tr->build->declared_tasks >= 0 ? tr->build->declared_tasks : CT_TRACE_MAX_TASKS;
    if (tr->build->max_tasks > 0 && tr->build->max_tasks < lim)
        lim = tr->build->max_tasks;
    if (task < 0 || task >= lim) {
        ct_err_set(err, "%s %d out of range (accepted: 0 to %d%s)", what, (int)task, (int)lim - 1,
                   tr->build->declared_tasks >= 0 ? ", as declared by 'tasks'" : "");
        return at_line(tr, line, err);
    }
    return 0;
}

static int push_event(ct_trace *tr, int32_t task, ct_ev_kind kind, int32_t peer, double value,
                      int32_t line, ct_err *err)
{
    if (need_build(tr, err))
        return -1;
    if (check_task(tr, task, "task", line, err))
        return -1;
    if (tr->build->max_events && tr->nevents >= tr->build->max_events)
        return ct_err_set(err, "%s:%d: more than %zu events (accepted: at most %zu events)",
                          tr->name, (int)line, tr->build->max_events, tr->build->max_events);
    size_t cap = tr->build->ev_cap;
    if (grow((void **)&tr->ev, &cap, tr->nevents + 1, sizeof *tr->ev, err))
        return -1;
    cap = tr->build->ev_cap;
    if (grow((void **)&tr->build->stage_task, &cap, tr->nevents + 1, sizeof *tr->build->stage_task, err))
        return -1;
    tr->build->ev_cap = cap;
    ct_event *e = &tr->ev[tr->nevents];
    e->value = value;
    e->peer = peer;
    e->comm = -1;
    e->line = line;
    e->kind = (uint8_t)kind;
    e->ctx = tr->build->ctx;
    e->key = 0;
    tr->build->stage_task[tr->nevents] = task;
    tr->nevents++;
    if (task >= tr->ntasks)
        tr->ntasks = task + 1;
    return 0;
}

void ct_trace_set_context(ct_trace *tr, uint8_t ctx)
{
    if (tr && tr->build)
        tr->build->ctx = ctx;
}

/* the send or receive added last, NULL when the last event is another */
static ct_event *last_p2p(ct_trace *tr)
{
    if (!tr || !tr->build || !tr->nevents)
        return NULL;
    ct_event *e = &tr->ev[tr->nevents - 1];
    return e->kind == CT_EV_SEND || e->kind == CT_EV_ISEND || e->kind == CT_EV_RECV ||
                   e->kind == CT_EV_IRECV
               ? e
               : NULL;
}

static int64_t comm_named(ct_trace *tr, const char *comm, int32_t line, ct_err *err);

/* The slot of (tag, mcomm) in the build's key table: where its index is,
 * or the empty slot it would take. */
static size_t key_slot(const ct_trace *tr, int32_t tag, int32_t mcomm)
{
    const struct ct_trace_build *b = tr->build;
    uint64_t h = ((uint64_t)(uint32_t)tag << 32 | (uint32_t)mcomm) * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 32) & (b->key_cap - 1);
    while (b->key_slot[i] &&
           !(tr->keys[b->key_slot[i]].tag == tag && tr->keys[b->key_slot[i]].mcomm == mcomm))
        i = (i + 1) & (b->key_cap - 1);
    return i;
}

/* The index of key (tag, mcomm) in tr->keys, added when new (0 is tag 0 on
 * world); -1 with an error past CT_TRACE_MAX_KEYS. Hashed: a code that
 * counts its tags (an iteration number) holds thousands of keys, and a
 * linear search per event made reading such a trace quadratic. */
static int key_index(ct_trace *tr, int32_t tag, int32_t mcomm, ct_err *err)
{
    if (tag == 0 && mcomm == 0)
        return 0;
    struct ct_trace_build *b = tr->build;
    size_t at = b->key_cap ? key_slot(tr, tag, mcomm) : 0;
    if (b->key_cap && b->key_slot[at])
        return b->key_slot[at];
    if (tr->nkeys >= CT_TRACE_MAX_KEYS) {
        ct_err_set(err, "more than %d distinct tag and communicator pairs (accepted: at most %d)",
                   CT_TRACE_MAX_KEYS - 1, CT_TRACE_MAX_KEYS - 1);
        return -1;
    }
    size_t n = tr->nkeys ? tr->nkeys + 1 : 2;
    if (n > b->keys_cap) {
        size_t cap = b->keys_cap ? 2 * b->keys_cap : 16;
        ct_match_key *k = realloc(tr->keys, cap * sizeof *k);
        if (!k) {
            ct_err_set(err, "out of memory (matching keys)");
            return -1;
        }
        tr->keys = k;
        b->keys_cap = cap;
    }
    tr->keys[0] = (ct_match_key){0, 0};
    tr->keys[n - 1] = (ct_match_key){tag, mcomm};
    tr->nkeys = n;
    if (2 * n > b->key_cap) { /* rehash at half full */
        size_t cap = b->key_cap ? 2 * b->key_cap : 64;
        uint16_t *slot = calloc(cap, sizeof *slot);
        if (!slot) {
            tr->nkeys = n - 1;
            ct_err_set(err, "out of memory (matching keys)");
            return -1;
        }
        free(b->key_slot);
        b->key_slot = slot;
        b->key_cap = cap;
        for (size_t i = 1; i < n - 1; i++)
            slot[key_slot(tr, tr->keys[i].tag, tr->keys[i].mcomm)] = (uint16_t)i;
    }
    b->key_slot[key_slot(tr, tag, mcomm)] = (uint16_t)(n - 1);
    return (int)(n - 1);
}

int ct_trace_set_match(ct_trace *tr, int32_t tag, const char *comm, int32_t line, ct_err *err)
{
    ct_event *e = last_p2p(tr);
    if (!e)
        return ct_err_set(err, "%s:%d: a tag without a send or receive", tr->name, (int)line);
    int recv = e->kind == CT_EV_RECV || e->kind == CT_EV_IRECV;
    if (tag < 0 && !(recv && tag == CT_ANY_TAG)) {
        ct_err_set(err, "tag %d out of range (accepted: 0 or more%s)", (int)tag,
                   recv ? ", or any" : "");
        return at_line(tr, line, err);
    }
    int64_t c = comm_named(tr, comm, line, err);
    if (c < 0)
        return -1;
    int k = key_index(tr, tag, (int32_t)c, err);
    if (k < 0)
        return at_line(tr, line, err);
    e->key = (uint16_t)k;
    return 0;
}

int ct_trace_copy_match(ct_trace *tr, int32_t tag, int32_t mcomm, ct_err *err)
{
    ct_event *e = last_p2p(tr);
    if (!e || (tag == 0 && mcomm == 0))
        return 0;
    int k = key_index(tr, tag, mcomm, err);
    if (k < 0)
        return -1;
    e->key = (uint16_t)k;
    return 0;
}

int ct_trace_add_compute(ct_trace *tr, int32_t task, double seconds, int32_t line, ct_err *err)
{
    if (need_build(tr, err))
        return -1;
    if (!isfinite(seconds) || seconds < 0) {
        ct_err_set(err, "compute time %g out of range (accepted: a finite number >= 0)", seconds);
        return at_line(tr, line, err);
    }
    return push_event(tr, task, CT_EV_COMPUTE, -1, seconds, line, err);
}

int ct_trace_add_send(ct_trace *tr, int32_t task, int32_t dst, double bytes, int blocking,
                      const char *label, int32_t line, ct_err *err)
{
    if (need_build(tr, err))
        return -1;
    if (check_task(tr, dst, "destination task", line, err))
        return -1;
    if (!isfinite(bytes) || bytes < 0) {
        ct_err_set(err, "message size %g out of range (accepted: a finite number of bytes >= 0)",
                   bytes);
        return at_line(tr, line, err);
    }
    if (blocking && dst == task) {
        ct_err_set(err,
                   "blocking send from task %d to itself always deadlocks (use isend, "
                   "irecv and waitall for a self-message)",
                   (int)task);
        return at_line(tr, line, err);
    }
    if (tr->ncomm >= NO_LABEL - 1 || tr->ncomm >= (size_t)INT32_MAX) {
        ct_err_set(err, "more than %d communications", INT32_MAX);
        return at_line(tr, line, err);
    }
    if (label) {
        if (!valid_label(label)) {
            ct_err_set(err,
                       "invalid label '%s' (accepted: a letter or '_' then letters, "
                       "digits, '_', '.' or '-', at most %d characters)",
                       label, CT_LABEL_MAX - 1);
            return at_line(tr, line, err);
        }
        if (!tr->build->stage_labels && !(tr->build->stage_labels = calloc(1, sizeof(label_tab))))
            return ct_err_set(err, "out of memory (label table)");
        int64_t prev = tab_find(tr->build->stage_labels, tr, label);
        if (prev >= 0) {
            ct_err_set(err,
                       "label '%s' already names the communication on line %d (labels "
                       "must be unique)",
                       label, (int)tr->ev[tr->comm_event[prev]].line);
            return at_line(tr, line, err);
        }
        int64_t di = default_label_index(label);
        if (di >= 0 && (size_t)di != tr->ncomm) {
            ct_err_set(err,
                       "label '%s' is the default name of communication %lld (labels "
                       "of the form c<number> may only name their own communication, "
                       "here c%zu)",
                       label, (long long)di, tr->ncomm);
            return at_line(tr, line, err);
        }
    }
    size_t cc = tr->build->comm_cap;
    if (grow((void **)&tr->comm_src, &cc, tr->ncomm + 1, sizeof *tr->comm_src, err))
        return -1;
    cc = tr->build->comm_cap;
    if (grow((void **)&tr->comm_event, &cc, tr->ncomm + 1, sizeof *tr->comm_event, err))
        return -1;
    cc = tr->build->comm_cap;
    if (grow((void **)&tr->label_off, &cc, tr->ncomm + 1, sizeof *tr->label_off, err))
        return -1;
    tr->build->comm_cap = cc;
    size_t len = label ? strlen(label) + 1 : 0;
    if (label && tr->labels_len + len >= NO_LABEL) {
        ct_err_set(err, "labels too long in total (more than %u bytes)", NO_LABEL - 1);
        return at_line(tr, line, err);
    }
    if (label && grow((void **)&tr->labels, &tr->build->labels_cap, tr->labels_len + len, 1, err))
        return -1;
    if (push_event(tr, task, blocking ? CT_EV_SEND : CT_EV_ISEND, dst, bytes, line, err))
        return -1;
    size_t c = tr->ncomm;
    tr->ev[tr->nevents - 1].comm = (int32_t)c;
    tr->comm_src[c] = task;
    tr->comm_event[c] = tr->nevents - 1;
    tr->label_off[c] = NO_LABEL;
    if (label) {
        memcpy(tr->labels + tr->labels_len, label, len);
        tr->label_off[c] = (uint32_t)tr->labels_len;
        tr->labels_len += len;
        if (tab_insert(tr->build->stage_labels, tr, c, err)) {
            /* not added: no event is left pointing at comm c */
            tr->label_off[c] = NO_LABEL;
            tr->labels_len -= len;
            tr->nevents--;
            return at_line(tr, line, err);
        }
    }
    tr->ncomm++;
    tr->total_bytes += bytes;
    return 0;
}

int ct_trace_add_recv(ct_trace *tr, int32_t task, int32_t src, double max_bytes, int blocking,
                      int32_t line, ct_err *err)
{
    if (need_build(tr, err))
        return -1;
    if (src != CT_ANY_SOURCE && check_task(tr, src, "source task", line, err))
        return -1;
    if (isnan(max_bytes) || (max_bytes >= 0 && !isfinite(max_bytes))) {
        ct_err_set(err, "receive size %g out of range (accepted: a finite number of bytes)",
                   max_bytes);
        return at_line(tr, line, err);
    }
    if (blocking && src == task) {
        ct_err_set(err,
                   "blocking recv of task %d from itself always deadlocks (use isend, "
                   "irecv and waitall for a self-message)",
                   (int)task);
        return at_line(tr, line, err);
    }
    return push_event(tr, task, blocking ? CT_EV_RECV : CT_EV_IRECV, src,
                      max_bytes < 0 ? -1.0 : max_bytes, line, err);
}

int ct_trace_add_waitall(ct_trace *tr, int32_t task, int32_t line, ct_err *err)
{
    if (need_build(tr, err))
        return -1;
    return push_event(tr, task, CT_EV_WAITALL, -1, 0.0, line, err);
}

/* ------------------------------------------------------- communicators */

static int ensure_world(ct_trace *tr, ct_err *err)
{
    if (tr->ncomms > 0)
        return 0;
    if (grow((void **)&tr->comms, &tr->build->comms_cap, 1, sizeof *tr->comms, err))
        return -1;
    memset(&tr->comms[0], 0, sizeof tr->comms[0]);
    snprintf(tr->comms[0].name, sizeof tr->comms[0].name, "world");
    tr->comms[0].first = SIZE_MAX;
    tr->ncomms = 1;
    return 0;
}

/* name -> communicator index (open addressing over tr->comms[].name) */
static int64_t comm_find(const ct_trace *tr, const char *name)
{
    if (name[0] == 'w' && strcmp(name, "world") == 0)
        return 0;
    const label_tab *t = cbuild(tr)->stage_comms;
    if (!t || !t->cap)
        return -1;
    size_t h = hash_str(name) & (t->cap - 1);
    while (t->slot[h] >= 0) {
        if (strcmp(tr->comms[t->slot[h]].name, name) == 0)
            return t->slot[h];
        h = (h + 1) & (t->cap - 1);
    }
    return -1;
}

/* The index of communicator `comm` (world or declared), or -1 with an error
 * naming it and the line. */
static int64_t comm_named(ct_trace *tr, const char *comm, int32_t line, ct_err *err)
{
    if (ensure_world(tr, err))
        return -1;
    int64_t c = comm_find(tr, comm);
    if (c < 0) {
        ct_err_set(err,
                   "unknown communicator '%s' (accepted: world or a name declared by an "
                   "earlier 'comm' line)",
                   comm);
        at_line(tr, line, err);
    }
    return c;
}

static int comm_tab_insert(ct_trace *tr, size_t c, ct_err *err)
{
    label_tab *t = tr->build->stage_comms;
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        int64_t *sl = malloc(cap * sizeof *sl);
        if (!sl)
            return ct_err_set(err, "out of memory (communicator table of %zu entries)", cap);
        for (size_t i = 0; i < cap; i++)
            sl[i] = -1;
        for (size_t i = 0; i < t->cap; i++) {
            if (t->slot[i] < 0)
                continue;
            size_t h = hash_str(tr->comms[t->slot[i]].name) & (cap - 1);
            while (sl[h] >= 0)
                h = (h + 1) & (cap - 1);
            sl[h] = t->slot[i];
        }
        free(t->slot);
        t->slot = sl;
        t->cap = cap;
    }
    size_t h = hash_str(tr->comms[c].name) & (t->cap - 1);
    while (t->slot[h] >= 0)
        h = (h + 1) & (t->cap - 1);
    t->slot[h] = (int64_t)c;
    t->n++;
    return 0;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* per communicator, ranks sorted by task (for ct_trace_comm_rank) */
static const int32_t *sort_members;
static int cmp_rank_by_task(const void *a, const void *b)
{
    int32_t x = sort_members[*(const int32_t *)a], y = sort_members[*(const int32_t *)b];
    return (x > y) - (x < y);
}

int32_t ct_trace_comm_rank(const ct_trace *tr, size_t c, int32_t task)
{
    if (c >= tr->ncomms || task < 0)
        return -1;
    if (c == 0) /* world: every task (the count is final once finished) */
        return tr->finished && task >= tr->ntasks ? -1 : task;
    const ct_trace_comm *k = &tr->comms[c];
    const int32_t *mem = tr->members + k->first, *ord = tr->member_order + k->first;
    size_t lo = 0, hi = (size_t)k->size;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mem[ord[mid]] < task)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < (size_t)k->size && mem[ord[lo]] == task ? ord[lo] : -1;
}

int ct_trace_add_comm(ct_trace *tr, const char *name, const int32_t *members, int32_t n,
                      int32_t line, ct_err *err)
{
    if (need_build(tr, err))
        return -1;
    if (ensure_world(tr, err))
        return -1;
    if (!valid_label(name)) {
        ct_err_set(err,
                   "invalid communicator name '%s' (accepted: a letter or '_' then letters, "
                   "digits, '_', '.' or '-', at most %d characters)",
                   name, CT_LABEL_MAX - 1);
        return at_line(tr, line, err);
    }
    if (strcmp(name, "world") == 0) {
        ct_err_set(err, "communicator 'world' is predefined (every task; declare another name)");
        return at_line(tr, line, err);
    }
    if (n < 1) {
        ct_err_set(err, "communicator '%s' has no members (accepted: at least one task)", name);
        return at_line(tr, line, err);
    }
    /* the members' range in one tight pass; check_task (and its message,
     * naming the first member out of range) only when one is */
    int32_t lo = members[0], hi = members[0];
    for (int32_t i = 1; i < n; i++) {
        lo = members[i] < lo ? members[i] : lo;
        hi = members[i] > hi ? members[i] : hi;
    }
    int32_t lim = tr->build->declared_tasks >= 0 ? tr->build->declared_tasks : CT_TRACE_MAX_TASKS;
    if (tr->build->max_tasks > 0 && tr->build->max_tasks < lim)
        lim = tr->build->max_tasks;
    if (lo < 0 || hi >= lim)
        for (int32_t i = 0; i < n; i++)
            if (check_task(tr, members[i], "member task", line, err))
                return -1;
    int64_t prev = comm_find(tr, name);
    if (prev >= 0) {
        const ct_trace_comm *c = &tr->comms[prev];
        if (c->size != n || memcmp(tr->members + c->first, members, (size_t)n * sizeof *members)) {
            ct_err_set(err,
                       "communicator '%s' redeclared with other members (line %d declares "
                       "%d members; a repeated declaration must list the same tasks in the same "
                       "order)",
                       name, (int)c->line, (int)c->size);
            return at_line(tr, line, err);
        }
        return 0;
    }
    int32_t *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted)
        return ct_err_set(err, "out of memory (%d members)", (int)n);
    memcpy(sorted, members, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_i32);
    for (int32_t i = 1; i < n; i++)
        if (sorted[i] == sorted[i - 1]) {
            int32_t dup = sorted[i];
            free(sorted);
            ct_err_set(err, "task %d listed twice in communicator '%s' (members are distinct)",
                       (int)dup, name);
            return at_line(tr, line, err);
        }
    free(sorted);
    size_t mcap = tr->build->members_cap;
    if (tr->nmembers + (size_t)n < tr->nmembers ||
        grow((void **)&tr->members, &mcap, tr->nmembers + (size_t)n, sizeof *tr->members, err))
        return -1;
    mcap = tr->build->members_cap;
    if (grow((void **)&tr->member_order, &mcap, tr->nmembers + (size_t)n,
             sizeof *tr->member_order, err))
        return -1;
    tr->build->members_cap = mcap;
    if (
        grow((void **)&tr->comms, &tr->build->comms_cap, tr->ncomms + 1, sizeof *tr->comms, err))
        return -1;
    if (!tr->build->stage_comms && !(tr->build->stage_comms = calloc(1, sizeof(label_tab))))
        return ct_err_set(err, "out of memory (communicator table)");
    ct_trace_comm *c = &tr->comms[tr->ncomms];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->first = tr->nmembers;
    c->size = n;
    c->line = line;
    memcpy(tr->members + tr->nmembers, members, (size_t)n * sizeof *members);
    for (int32_t i = 0; i < n; i++)
        tr->member_order[tr->nmembers + (size_t)i] = i;
    sort_members = tr->members + tr->nmembers;
    qsort(tr->member_order + tr->nmembers, (size_t)n, sizeof(int32_t), cmp_rank_by_task);
    if (comm_tab_insert(tr, tr->ncomms, err))
        return -1;
    tr->nmembers += (size_t)n;
    tr->ncomms++;
    return 0;
}

static int coll_has_root(int kind)
{
    return kind == CT_EV_BCAST || kind == CT_EV_REDUCE || kind == CT_EV_GATHER ||
           kind == CT_EV_GATHERV || kind == CT_EV_SCATTER || kind == CT_EV_SCATTERV;
}

int ct_trace_add_coll(ct_trace *tr, int32_t task, ct_ev_kind kind, const char *comm, int32_t root,
                      double bytes, int32_t line, ct_err *err)
{
    if (need_build(tr, err))
        return -1;
    if (!CT_EV_IS_COLL(kind))
        return ct_err_set(err, "%s: event kind %d is not a collective", tr->name, (int)kind);
    int64_t c = comm_named(tr, comm, line, err);
    if (c < 0)
        return -1;
    if (coll_has_root(kind)) {
        if (check_task(tr, root, "root task", line, err))
            return -1;
    } else {
        root = -1;
    }
    for (int j = 0; j < 2; j++) {
        int32_t who = j ? root : task;
        if ((j == 0 || root >= 0) && ct_trace_comm_rank(tr, (size_t)c, who) < 0) {
            const ct_trace_comm *k = &tr->comms[c];
            ct_err_set(err,
                       "%s%s %d is not a member of communicator '%s' (declared on line %d "
                       "with %d members)",
                       ct_ev_kind_name(kind), j ? " root task" : ": task", (int)who, k->name,
                       (int)k->line, (int)k->size);
            return at_line(tr, line, err);
        }
    }
    if (!isfinite(bytes) || bytes < 0) {
        ct_err_set(err, "message size %g out of range (accepted: a finite number of bytes >= 0)",
                   bytes);
        return at_line(tr, line, err);
    }
    if (push_event(tr, task, kind, root, kind == CT_EV_BARRIER ? 0.0 : bytes, line, err))
        return -1;
    tr->ev[tr->nevents - 1].comm = (int32_t)c;
    tr->ncoll++;
    return 0;
}

static int finish_comms(ct_trace *tr, ct_err *err)
{
    if (ensure_world(tr, err))
        return -1;
    tr->comms[0].size = tr->ntasks;
    if (tr->build->stage_comms) {
        free(((label_tab *)tr->build->stage_comms)->slot);
        free(tr->build->stage_comms);
        tr->build->stage_comms = NULL;
    }
    return 0;
}

int ct_trace_finish(ct_trace *tr, ct_err *err)
{
    if (tr->finished)
        return 0;
    if (need_build(tr, err))
        return -1;
    if (tr->build->declared_tasks >= 0)
        tr->ntasks = tr->build->declared_tasks;
    /* peers were checked against the declared count when there is one; without
     * a header a peer may name a task that has no events of its own */
    for (size_t i = 0; i < tr->nevents; i++)
        if (tr->ev[i].peer >= tr->ntasks)
            tr->ntasks = tr->ev[i].peer + 1;
    for (size_t i = 0; i < tr->nmembers; i++)
        if (tr->members[i] >= tr->ntasks)
            tr->ntasks = tr->members[i] + 1;
    if (finish_comms(tr, err))
        return -1;
    if (tr->build->stage_labels) {
        free(((label_tab *)tr->build->stage_labels)->slot);
        free(tr->build->stage_labels);
        tr->build->stage_labels = NULL;
    }
    size_t nt = (size_t)tr->ntasks;
    size_t *first = calloc(nt + 1, sizeof *first);
    ct_event *ev = malloc((tr->nevents ? tr->nevents : 1) * sizeof *ev);
    if (!first || !ev) {
        free(first);
        free(ev);
        return ct_err_set(err, "out of memory grouping %zu events", tr->nevents);
    }
    for (size_t i = 0; i < tr->nevents; i++)
        first[tr->build->stage_task[i] + 1]++;
    for (size_t t2 = 0; t2 < nt; t2++)
        first[t2 + 1] += first[t2];
    /* counting sort by task keeps file order within a task */
    size_t *pos = malloc((nt ? nt : 1) * sizeof *pos);
    if (!pos) {
        free(first);
        free(ev);
        return ct_err_set(err, "out of memory grouping %zu events", tr->nevents);
    }
    int grouped = 1; /* a recording writes each task's events together */
    for (size_t i = 1; i < tr->nevents && grouped; i++)
        grouped = tr->build->stage_task[i - 1] <= tr->build->stage_task[i];
    if (grouped) { /* already in the order the counting sort would give */
        free(ev);
        ev = tr->ev;
    } else {
        memcpy(pos, first, nt * sizeof *pos);
        for (size_t i = 0; i < tr->nevents; i++) {
            size_t k = pos[tr->build->stage_task[i]]++;
            ev[k] = tr->ev[i];
            if ((ev[k].kind == CT_EV_SEND || ev[k].kind == CT_EV_ISEND) && ev[k].comm >= 0)
                tr->comm_event[ev[k].comm] = k;
        }
        free(tr->ev);
    }
    free(pos);
    tr->ev = ev;
    tr->task_first = first;
    free_build(tr);
    tr->finished = 1;
    return 0;
}

const char *ct_trace_label(const ct_trace *tr, size_t c, char *buf, size_t n)
{
    const char *lab = c < tr->ncomm ? label_of(tr, c) : NULL;
    if (lab)
        snprintf(buf, n, "%s", lab);
    else
        snprintf(buf, n, "c%zu", c);
    return buf;
}

const ct_event *ct_trace_comm_event(const ct_trace *tr, size_t c)
{
    return &tr->ev[tr->comm_event[c]];
}

/* ---------------------------------------------------------------- lexing */

typedef struct tok {
    char *s;
    int col;
} tok;

/* Split a line (modified in place) into at most MAX_TOK tokens after removing
 * a '#' comment. Returns the token count, MAX_TOK + 1 when there are more. */
/* character classes of the lexer: 1 = blank (isspace in the C locale),
 * 2 = end of a token ('\0' or '#') */
static const unsigned char lex_class[256] = {
    [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\0'] = 2, ['#'] = 2,
};

static int is_blank(char c) { return lex_class[(unsigned char)c] == 1; }

static int tokenize(char *line, tok *t)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p || *p == '#')
            break;
        if (n == MAX_TOK)
            return MAX_TOK + 1;
        t[n].s = p;
        t[n].col = (int)(p - line) + 1;
        n++;
        while (!lex_class[(unsigned char)*p])
            p++;
        if (*p == '#') { /* a comment right after a token ends it and the line */
            *p = '\0';
            break;
        }
        if (*p)
            *p++ = '\0';
    }
    return n;
}

static int parse_task_id(const char *s, int32_t *out)
{
    /* digits only, below CT_TRACE_MAX_TASKS (what strtoll with an isdigit
     * first character and nothing after accepted, without its cost: this
     * runs for every field of every line) */
    if (!isdigit((unsigned char)s[0]))
        return -1;
    int64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v >= CT_TRACE_MAX_TASKS)
            return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* Digits then a suffix: the value when it is an integer of at most 15
 * digits (exact in a double, so strtod would give the same), the suffix in
 * *rest; -1 when the number has another form (the caller's full parser
 * decides). */
static int fast_uint(const char *s, double *v, const char **rest)
{
    int64_t x = 0;
    int n = 0;
    for (; *s >= '0' && *s <= '9'; s++, n++) {
        if (n == 15)
            return -1;
        x = x * 10 + (*s - '0');
    }
    if (n == 0 || *s == '.' || *s == 'e' || *s == 'E' || *s == 'x' || *s == 'X')
        return -1;
    *v = (double)x;
    *rest = s;
    return 0;
}

/* ct_parse_size, faster for the common "65536" and "64K" */
static int parse_size_fast(const char *s, double *bytes, ct_err *err)
{
    double v;
    const char *suf;
    if (fast_uint(s, &v, &suf) == 0) {
        double mult = 0;
        if (!suf[0])
            mult = 1.0;
        else if (!suf[1] && (suf[0] == 'K' || suf[0] == 'k'))
            mult = 1024.0;
        else if (!suf[1] && (suf[0] == 'M' || suf[0] == 'm'))
            mult = 1024.0 * 1024.0;
        if (mult > 0) {
            *bytes = v * mult;
            return 0;
        }
    }
    return ct_parse_size(s, bytes, err);
}

int ct_parse_duration(const char *s, double *seconds, ct_err *err)
{
    double iv;
    const char *suf;
    if (s && fast_uint(s, &iv, &suf) == 0) { /* "1ms", "250us": exact as strtod's */
        double mult = -1;
        if (!suf[0] || (suf[0] == 's' && !suf[1]))
            mult = 1.0;
        else if (suf[1] == 's' && !suf[2])
            mult = suf[0] == 'm' ? 1e-3 : suf[0] == 'u' ? 1e-6 : suf[0] == 'n' ? 1e-9 : -1;
        if (mult >= 0) {
            *seconds = iv * mult;
            return 0;
        }
    }
    if (!s || !*s)
        return ct_err_set(err, "empty duration (expected seconds, e.g. 0.5, 1.5ms, 20us)");
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v) || v < 0 ||
        !(isdigit((unsigned char)*s) || *s == '.'))
        return ct_err_set(err,
                          "invalid duration '%s' (expected a number >= 0 with optional "
                          "s, ms, us or ns suffix, e.g. 1.5ms)",
                          s);
    double mult = 1.0;
    if (*end) {
        if (strcmp(end, "s") == 0)
            mult = 1.0;
        else if (strcmp(end, "ms") == 0)
            mult = 1e-3;
        else if (strcmp(end, "us") == 0)
            mult = 1e-6;
        else if (strcmp(end, "ns") == 0)
            mult = 1e-9;
        else
            return ct_err_set(err, "invalid duration suffix in '%s' (accepted: s, ms, us, ns)", s);
    }
    *seconds = v * mult;
    return 0;
}

/* Message for a token: "NAME:LINE:COL: ". */
static int tok_err(const char *name, int line, const tok *t, ct_err *err)
{
    return ct_err_prefix(err, "%s:%d:%d: ", name, line, t ? t->col : 1);
}

static int want_args(const char *name, int line, tok *t, int n, int lo, int hi, const char *usage,
                     ct_err *err)
{
    int got = n - 1;
    if (got >= lo && got <= hi)
        return 0;
    const char *bound = lo == hi ? "" : got < lo ? "at least " : "at most ";
    int k = lo == hi ? lo : got < lo ? lo : hi;
    ct_err_set(err, "'%s' takes %s%d argument%s, got %d%s (expected: %s)", t[0].s, bound, k,
               k == 1 ? "" : "s", n > MAX_TOK ? MAX_TOK - 1 : got, n > MAX_TOK ? " or more" : "",
               usage);
    /* too many: point at the first extra field; too few: at the keyword */
    return tok_err(name, line, got > hi ? &t[hi + 1] : &t[0], err);
}

static int get_task(const char *name, int line, const tok *t, const char *what, int32_t *out,
                    ct_err *err)
{
    if (parse_task_id(t->s, out)) {
        ct_err_set(err, "invalid %s '%s' (expected a task number 0 to %d)", what, t->s,
                   CT_TRACE_MAX_TASKS - 1);
        return tok_err(name, line, t, err);
    }
    return 0;
}

static int get_bytes(const char *name, int line, const tok *t, double *out, ct_err *err)
{
    if (parse_size_fast(t->s, out, err))
        return tok_err(name, line, t, err);
    return 0;
}

/* Task ids against the `tasks` header, reported at the token's column. */
static int range_ok(const ct_trace *tr, const char *name, int line, const tok *t, int32_t id,
                    const char *what, ct_err *err)
{
    if (cbuild(tr)->declared_tasks >= 0 && id >= cbuild(tr)->declared_tasks) {
        ct_err_set(err,
                   "%s %d out of range (accepted: 0 to %d, as declared by 'tasks' on "
                   "line %d)",
                   what, (int)id, (int)cbuild(tr)->declared_tasks - 1, (int)cbuild(tr)->declared_line);
        return tok_err(name, line, t, err);
    }
    return 0;
}

/* Re-prefix an at_line message from the builder with the column. */
static int builder_fail(const char *name, int line, const tok *t, ct_err *err)
{
    if (err) {
        char pre[300];
        int n = snprintf(pre, sizeof pre, "%s:%d: ", name, line);
        if (n > 0 && strncmp(err->msg, pre, (size_t)n) == 0) {
            char rest[CT_ERR_MAX];
            snprintf(rest, sizeof rest, "%s", err->msg + n);
            ct_err_set(err, "%s:%d:%d: %s", name, line, t->col, rest);
        }
    }
    return -1;
}

/* MEMBERS: comma-separated items TASK, FIRST-LAST or FIRST-LAST/STRIDE, in
 * rank order. */
static int parse_members(const ct_trace *tr, const char *name, int line, const tok *t,
                         int32_t **out, size_t *nout, ct_err *err)
{
    int32_t *mem = NULL;
    size_t n = 0, cap = 0;
    const char *p = t->s;
    for (;;) {
        const char *item = p;
        char *end;
        long long a, b, st = 1;
        if (!isdigit((unsigned char)*p))
            goto bad;
        errno = 0;
        a = strtoll(p, &end, 10);
        b = a;
        p = end;
        if (*p == '-') {
            p++;
            if (!isdigit((unsigned char)*p))
                goto bad;
            b = strtoll(p, &end, 10);
            p = end;
            if (*p == '/') {
                p++;
                if (!isdigit((unsigned char)*p))
                    goto bad;
                st = strtoll(p, &end, 10);
                p = end;
            }
        }
        if (errno || (*p && *p != ',') || a < 0 || b < a || st < 1 || b >= CT_TRACE_MAX_TASKS)
            goto bad;
        if (cbuild(tr)->declared_tasks >= 0 && b >= cbuild(tr)->declared_tasks) {
            free(mem);
            ct_err_set(err,
                       "member task %lld out of range (accepted: 0 to %d, as declared by "
                       "'tasks' on line %d)",
                       b, (int)cbuild(tr)->declared_tasks - 1, (int)cbuild(tr)->declared_line);
            return tok_err(name, line, t, err);
        }
        /* the task cap (ct_trace_limits.max_tasks) before any expansion:
         * "comm c 0-217647059" is 30 bytes but 217 M members (found by
         * fuzzing: seconds and a gigabyte per line) */
        if (cbuild(tr)->max_tasks > 0 && b >= cbuild(tr)->max_tasks) {
            free(mem);
            ct_err_set(err, "member task %lld out of range (accepted: 0 to %d)", b,
                       (int)cbuild(tr)->max_tasks - 1);
            return tok_err(name, line, t, err);
        }
        /* the item's members at once (one allocation per item, not per member) */
        size_t items = (size_t)((b - a) / st) + 1;
        if (n + items > (size_t)CT_TRACE_MAX_TASKS) {
            free(mem);
            ct_err_set(err, "more than %d members", CT_TRACE_MAX_TASKS);
            return tok_err(name, line, t, err);
        }
        if (grow((void **)&mem, &cap, n + items, sizeof *mem, err)) {
            free(mem);
            return tok_err(name, line, t, err);
        }
        /* by index, not x += st: a stride near LLONG_MAX overflowed x past
         * b's test and wrote beyond the items counted (found by clang's
         * analyzer, session 71) */
        for (size_t q = 0; q < items; q++)
            mem[n++] = (int32_t)(a + (long long)q * st);
        if (!*p)
            break;
        p++;
        continue;
    bad:
        free(mem);
        {
            size_t len = strcspn(item, ",");
            ct_err_set(err,
                       "invalid member list item '%.*s' (expected TASK, FIRST-LAST or "
                       "FIRST-LAST/STRIDE, separated by commas, e.g. 0-7,16-23/2)",
                       (int)(len > 40 ? 40 : len), item);
        }
        return tok_err(name, line, t, err);
    }
    *out = mem;
    *nout = n;
    return 0;
}

/* A `comm` line that repeats a communicator's first declaration word for
 * word, its members still within the task bounds: what ct_trace_add_comm
 * accepts without change, known without parsing the members again. */
static int same_comm_again(const ct_trace *tr, const char *name, const char *members)
{
    const struct ct_trace_build *b = cbuild(tr);
    if (!b->comm_text)
        return 0;
    int64_t c = comm_find(tr, name);
    if (c <= 0 || (size_t)c >= b->comm_text_cap || !b->comm_text[c] ||
        strcmp(b->comm_text[c], members) != 0)
        return 0;
    int32_t lim = b->declared_tasks >= 0 ? b->declared_tasks : CT_TRACE_MAX_TASKS;
    if (b->max_tasks > 0 && b->max_tasks < lim)
        lim = b->max_tasks;
    return b->comm_hi[c] < lim;
}

/* Remember communicator c's MEMBERS text (best effort: without memory the
 * next declaration is parsed in full). */
static void keep_comm_text(ct_trace *tr, size_t c, const char *text, const int32_t *mem,
                           size_t nm)
{
    struct ct_trace_build *b = tr->build;
    if (c >= b->comm_text_cap) {
        size_t cap = b->comm_text_cap ? 2 * b->comm_text_cap : 64;
        while (cap <= c)
            cap *= 2;
        char **nt = realloc(b->comm_text, cap * sizeof *nt);
        if (!nt)
            return;
        b->comm_text = nt;
        int32_t *nh = realloc(b->comm_hi, cap * sizeof *nh);
        if (!nh)
            return;
        b->comm_hi = nh;
        for (size_t i = b->comm_text_cap; i < cap; i++)
            nt[i] = NULL;
        b->comm_text_cap = cap;
    }
    int32_t hi = 0;
    for (size_t i = 0; i < nm; i++)
        hi = mem[i] > hi ? mem[i] : hi;
    b->comm_hi[c] = hi;
    b->comm_text[c] = strdup(text);
}

/* keyword test; the first character first (strcmp per line adds up) */
#define KW(s, lit) ((s)[0] == (lit)[0] && strcmp((s), (lit)) == 0)

/* A point-to-point line's last token when it is `tag=T[@COMM]` (T a number
 * or, on a receive, any): taken off the line (*n decremented), returned;
 * NULL when the line has none. */
static const tok *take_tag(tok *t, int *n)
{
    /* MAX_TOK + 1: more tokens than kept (found by fuzz_trace, session 67) */
    if (*n < 2 || *n > MAX_TOK || strncmp(t[*n - 1].s, "tag=", 4) != 0)
        return NULL;
    return &t[--*n];
}

/* The matching key of the event just added, from its `tag=` token. */
static int apply_tag(ct_trace *tr, const char *name, int lineno, const tok *tg, int recv,
                     ct_err *err)
{
    const char *s = tg->s + 4;
    char comm[CT_LABEL_MAX] = "world";
    const char *at = strchr(s, '@');
    size_t tl = at ? (size_t)(at - s) : strlen(s);
    if (at) {
        if (!at[1] || strlen(at + 1) >= sizeof comm) {
            ct_err_set(err, "invalid communicator in '%s' (accepted: tag=T@NAME, NAME world or a "
                            "declared communicator)",
                       tg->s);
            return tok_err(name, lineno, tg, err);
        }
        snprintf(comm, sizeof comm, "%s", at + 1);
    }
    long long v = -2;
    if (recv && tl == 3 && strncmp(s, "any", 3) == 0) {
        v = CT_ANY_TAG;
    } else if (tl > 0 && tl <= 10) {
        v = 0;
        for (size_t i = 0; i < tl && v >= 0; i++)
            v = s[i] >= '0' && s[i] <= '9' ? v * 10 + (s[i] - '0') : -2;
    }
    if (v == -2 || v > INT32_MAX) {
        ct_err_set(err, "invalid tag in '%s' (accepted: tag=T with T a number 0 to %d%s, "
                        "optionally @COMMUNICATOR)",
                   tg->s, INT32_MAX, recv ? " or any" : "");
        return tok_err(name, lineno, tg, err);
    }
    if (ct_trace_set_match(tr, (int32_t)v, comm, lineno, err))
        return builder_fail(name, lineno, tg, err);
    return 0;
}

static int parse_trace_line(ct_trace *tr, char *line, int lineno, ct_err *err)
{
    const char *name = tr->name;
    tok t[MAX_TOK];
    int n = tokenize(line, t);
    if (n == 0)
        return 0;
    const char *kw = t[0].s;
    int32_t task = -1, peer = -1;
    double v;
    if (KW(kw, "tasks")) {
        if (want_args(name, lineno, t, n, 1, 1, "tasks N", err))
            return -1;
        int32_t nt;
        if (parse_task_id(t[1].s, &nt) || nt < 1) {
            ct_err_set(err, "invalid task count '%s' (expected a number 1 to %d)", t[1].s,
                       CT_TRACE_MAX_TASKS);
            return tok_err(name, lineno, &t[1], err);
        }
        if (ct_trace_set_ntasks(tr, nt, lineno, err))
            return builder_fail(name, lineno, &t[0], err);
        return 0;
    }
    if (KW(kw, "compute")) {
        if (want_args(name, lineno, t, n, 2, 2, "compute TASK SECONDS", err) ||
            get_task(name, lineno, &t[1], "task", &task, err))
            return -1;
        if (ct_parse_duration(t[2].s, &v, err))
            return tok_err(name, lineno, &t[2], err);
        if (range_ok(tr, name, lineno, &t[1], task, "task", err))
            return -1;
        if (ct_trace_add_compute(tr, task, v, lineno, err))
            return builder_fail(name, lineno, &t[1], err);
        return 0;
    }
    if (KW(kw, "send") || KW(kw, "isend")) {
        int blocking = kw[0] == 's';
        const tok *tg = take_tag(t, &n);
        if (want_args(name, lineno, t, n, 3, 4,
                      blocking ? "send TASK DST BYTES [LABEL] [tag=T[@COMM]]"
                               : "isend TASK DST BYTES [LABEL] [tag=T[@COMM]]",
                      err) ||
            get_task(name, lineno, &t[1], "task", &task, err) ||
            get_task(name, lineno, &t[2], "destination task", &peer, err) ||
            get_bytes(name, lineno, &t[3], &v, err))
            return -1;
        if (range_ok(tr, name, lineno, &t[1], task, "task", err) ||
            range_ok(tr, name, lineno, &t[2], peer, "destination task", err))
            return -1;
        const tok *fault = task == peer ? &t[2] : n == 5 ? &t[4] : &t[3];
        if (ct_trace_add_send(tr, task, peer, v, blocking, n == 5 ? t[4].s : NULL, lineno, err))
            return builder_fail(name, lineno, fault, err);
        return tg ? apply_tag(tr, name, lineno, tg, 0, err) : 0;
    }
    if (KW(kw, "recv") || KW(kw, "irecv")) {
        int blocking = kw[0] == 'r';
        const tok *tg = take_tag(t, &n);
        if (want_args(name, lineno, t, n, 2, 3,
                      blocking ? "recv TASK SRC|any [BYTES] [tag=T|any[@COMM]]"
                               : "irecv TASK SRC|any [BYTES] [tag=T|any[@COMM]]",
                      err) ||
            get_task(name, lineno, &t[1], "task", &task, err))
            return -1;
        if (KW(t[2].s, "any")) {
            peer = CT_ANY_SOURCE;
        } else if (parse_task_id(t[2].s, &peer)) {
            ct_err_set(err, "invalid source task '%s' (expected a task number 0 to %d or 'any')",
                       t[2].s, CT_TRACE_MAX_TASKS - 1);
            return tok_err(name, lineno, &t[2], err);
        }
        v = -1.0;
        if (n == 4 && get_bytes(name, lineno, &t[3], &v, err))
            return -1;
        if (range_ok(tr, name, lineno, &t[1], task, "task", err) ||
            (peer != CT_ANY_SOURCE && range_ok(tr, name, lineno, &t[2], peer, "source task", err)))
            return -1;
        if (ct_trace_add_recv(tr, task, peer, v, blocking, lineno, err))
            return builder_fail(name, lineno, &t[2], err);
        return tg ? apply_tag(tr, name, lineno, tg, 1, err) : 0;
    }
    if (KW(kw, "waitall")) {
        if (want_args(name, lineno, t, n, 1, 1, "waitall TASK", err) ||
            get_task(name, lineno, &t[1], "task", &task, err) ||
            range_ok(tr, name, lineno, &t[1], task, "task", err))
            return -1;
        if (ct_trace_add_waitall(tr, task, lineno, err))
            return builder_fail(name, lineno, &t[1], err);
        return 0;
    }
    if (KW(kw, "comm")) {
        if (want_args(name, lineno, t, n, 2, 2, "comm NAME MEMBERS", err))
            return -1;
        if (same_comm_again(tr, t[1].s, t[2].s))
            return 0;
        int32_t *mem = NULL;
        size_t nm = 0;
        if (parse_members(tr, name, lineno, &t[2], &mem, &nm, err))
            return -1;
        size_t before = tr->ncomms;
        int rc = ct_trace_add_comm(tr, t[1].s, mem, (int32_t)nm, lineno, err);
        if (rc == 0 && tr->ncomms > before)
            keep_comm_text(tr, tr->ncomms - 1, t[2].s, mem, nm);
        free(mem);
        return rc ? builder_fail(name, lineno, &t[1], err) : 0;
    }
    for (int k = CT_EV_BARRIER; k < CT_EV_KIND_COUNT; k++) {
        if (kw[0] != ev_name[k][0] || strcmp(kw, ev_name[k]) != 0)
            continue;
        int rooted = coll_has_root(k);
        int want = k == CT_EV_BARRIER ? 2 : rooted ? 4 : 3;
        char usage[64] = "";
        if (n - 1 != want) /* the usage only for the message */
            snprintf(usage, sizeof usage, "%s TASK COMM%s%s", kw, rooted ? " ROOT" : "",
                     k == CT_EV_BARRIER ? "" : " BYTES");
        if (want_args(name, lineno, t, n, want, want, usage, err) ||
            get_task(name, lineno, &t[1], "task", &task, err) ||
            range_ok(tr, name, lineno, &t[1], task, "task", err))
            return -1;
        int32_t root = -1;
        if (rooted && (get_task(name, lineno, &t[3], "root task", &root, err) ||
                       range_ok(tr, name, lineno, &t[3], root, "root task", err)))
            return -1;
        v = 0;
        if (k != CT_EV_BARRIER && get_bytes(name, lineno, &t[want], &v, err))
            return -1;
        if (ct_trace_add_coll(tr, task, (ct_ev_kind)k, t[2].s, root, v, lineno, err)) {
            const tok *fault = !err ? &t[2] : strstr(err->msg, "root task") ? &t[3]
                               : strstr(err->msg, "is not a member") ? &t[1]
                               : &t[2];
            return builder_fail(name, lineno, fault, err);
        }
        return 0;
    }
    /* the accepted keywords: ev_name's, with `tasks` and `comm` in the order
     * this function reads them (a new event kind is named here too) */
    char acc[256] = "tasks";
    for (int k = 0; k < CT_EV_KIND_COUNT; k++) {
        size_t l = strlen(acc);
        snprintf(acc + l, sizeof acc - l, ", %s%s", k == CT_EV_BARRIER ? "comm, " : "", ev_name[k]);
    }
    ct_err_set(err, "unknown event '%s' (accepted: %s)", kw, acc);
    return tok_err(name, lineno, &t[0], err);
}

/* --------------------------------------------------------- line readers */

typedef int (*line_fn)(void *ctx, char *line, int lineno, ct_err *err);

static int each_line_buffer(const char *name, const char *buf, size_t len, line_fn fn, void *ctx,
                            ct_err *err)
{
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    size_t i = 0;
    /* the first NUL byte, looked for once: the line holding it is refused */
    const char *nul = len ? memchr(buf, '\0', len) : NULL;
    while (i < len) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t j = nl ? (size_t)(nl - buf) : len;
        lineno++;
        if (nul && nul < buf + j) {
            free(line);
            return ct_err_set(err, "%s:%d: NUL byte in text (expected a text file)", name, lineno);
        }
        if (j - i + 1 > cap) {
            cap = j - i + 1;
            char *nl = realloc(line, cap);
            if (!nl) {
                free(line);
                return ct_err_set(err, "%s:%d: out of memory", name, lineno);
            }
            line = nl;
        }
        memcpy(line, buf + i, j - i);
        line[j - i] = '\0';
        if (fn(ctx, line, lineno, err)) {
            free(line);
            return -1;
        }
        i = j + 1;
    }
    free(line);
    return 0;
}

static int each_line_file(const char *path, line_fn fn, void *ctx, ct_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return ct_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, rc = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)n)) {
            rc = ct_err_set(err, "%s:%d: NUL byte in text (expected a text file)", path, lineno);
            break;
        }
        if ((rc = fn(ctx, line, lineno, err)))
            break;
    }
    if (rc == 0 && ferror(f))
        rc = ct_err_set(err, "%s: read error: %s", path, strerror(errno));
    free(line);
    fclose(f);
    return rc;
}

static int trace_line_cb(void *ctx, char *line, int lineno, ct_err *err)
{
    return parse_trace_line(ctx, line, lineno, err);
}

static int trace_end(ct_trace *tr, int rc, ct_err *err)
{
    if (rc == 0 && ct_trace_finish(tr, err) == 0)
        return 0;
    ct_trace_free(tr);
    return -1;
}

int ct_trace_load(const char *path, ct_trace *tr, ct_err *err)
{
    if (ct_trace_init(tr, path, err))
        return -1;
    return trace_end(tr, each_line_file(path, trace_line_cb, tr, err), err);
}

int ct_trace_parse_buffer(const char *name, const char *buf, size_t len, ct_trace *tr, ct_err *err)
{
    return ct_trace_parse_buffer_bounded(name, buf, len, NULL, tr, err);
}

int ct_trace_parse_buffer_bounded(const char *name, const char *buf, size_t len,
                                  const ct_trace_limits *lim, ct_trace *tr, ct_err *err)
{
    if (ct_trace_init(tr, name, err))
        return -1;
    if (need_build(tr, err))
        return -1;
    if (lim) {
        tr->build->max_events = lim->max_events;
        tr->build->max_tasks = lim->max_tasks;
    }
    /* room for the events at once rather than by doubling: at most one per
     * line, and an event line has at least 10 bytes ("waitall 0\n") */
    size_t lines = 1;
    for (const char *q = buf, *end = buf + len; (q = memchr(q, '\n', (size_t)(end - q))); q++)
        lines++;
    size_t want = lines < len / 10 + 1 ? lines : len / 10 + 1;
    if (lim && lim->max_events && want > lim->max_events)
        want = lim->max_events;
    size_t c1 = 0, c2 = 0;
    if (want > 64 && grow((void **)&tr->ev, &c1, want, sizeof *tr->ev, NULL) == 0 &&
        grow((void **)&tr->build->stage_task, &c2, want, sizeof *tr->build->stage_task,
             NULL) == 0)
        tr->build->ev_cap = c1 < c2 ? c1 : c2; /* else grown by doubling as usual */
    return trace_end(tr, each_line_buffer(tr->name, buf, len, trace_line_cb, tr, err), err);
}

int ct_trace_load_bounded(const char *path, const ct_trace_limits *lim, ct_trace *tr,
                          ct_err *err)
{
    if (!lim || (!lim->max_bytes && !lim->max_events && !lim->max_tasks))
        return ct_trace_load(path, tr, err);
    char *buf;
    size_t len;
    size_t max = lim->max_bytes ? lim->max_bytes : (size_t)-1 / 2;
    char accepted[96];
    snprintf(accepted, sizeof accepted, "a regular trace file of at most %zu bytes", max);
    /* the one bounded reader (fileio.h): O_NONBLOCK, regular files only */
    if (ct_read_file(path, max, accepted, &buf, &len, err) < 0) {
        ct_trace_init(tr, path, NULL);
        return -1;
    }
    int rc = ct_trace_parse_buffer_bounded(path, buf, len, lim, tr, err);
    free(buf);
    return rc;
}

/* ------------------------------------------------------ measured times */

typedef struct meas_ctx {
    const char *name;
    const ct_trace *tr;
    label_tab tab;
    double *out;
    int *seen_line;
} meas_ctx;

static int meas_line_cb(void *vctx, char *line, int lineno, ct_err *err)
{
    meas_ctx *m = vctx;
    tok t[MAX_TOK];
    int n = tokenize(line, t);
    if (n == 0)
        return 0;
    if (n != 2) {
        ct_err_set(err, "expected 'LABEL SECONDS', got %d field%s", n > MAX_TOK ? MAX_TOK : n,
                   n == 1 ? "" : "s");
        return tok_err(m->name, lineno, n > 2 ? &t[2] : &t[0], err);
    }
    int64_t c = tab_find(&m->tab, m->tr, t[0].s);
    if (c < 0) {
        c = default_label_index(t[0].s);
        if (c >= (int64_t)m->tr->ncomm)
            c = -1;
    }
    if (c < 0) {
        ct_err_set(err, "unknown communication '%s' (accepted: a label from %s or c0 to c%zu)",
                   t[0].s, m->tr->name, m->tr->ncomm ? m->tr->ncomm - 1 : 0);
        return tok_err(m->name, lineno, &t[0], err);
    }
    if (m->seen_line[c]) {
        ct_err_set(err, "communication '%s' already measured on line %d (give each once)", t[0].s,
                   m->seen_line[c]);
        return tok_err(m->name, lineno, &t[0], err);
    }
    double v;
    if (ct_parse_duration(t[1].s, &v, err))
        return tok_err(m->name, lineno, &t[1], err);
    if (!(v > 0)) {
        ct_err_set(err, "measured time '%s' must be > 0 (E_rel divides by it)", t[1].s);
        return tok_err(m->name, lineno, &t[1], err);
    }
    m->seen_line[c] = lineno;
    m->out[c] = v;
    return 0;
}

static int measured_run(const char *name, const char *path, const char *buf, size_t len,
                        const ct_trace *tr, double *measured, ct_err *err)
{
    meas_ctx m = {.name = name, .tr = tr, .out = measured};
    for (size_t c = 0; c < tr->ncomm; c++)
        measured[c] = NAN;
    m.seen_line = calloc(tr->ncomm ? tr->ncomm : 1, sizeof *m.seen_line);
    if (!m.seen_line)
        return ct_err_set(err, "out of memory");
    if (build_tab(&m.tab, tr, err)) {
        free(m.seen_line);
        return -1;
    }
    int rc = path ? each_line_file(path, meas_line_cb, &m, err)
                  : each_line_buffer(name, buf, len, meas_line_cb, &m, err);
    free(m.tab.slot);
    free(m.seen_line);
    return rc;
}

int ct_measured_load(const char *path, const ct_trace *tr, double *measured, ct_err *err)
{
    return measured_run(path, path, NULL, 0, tr, measured, err);
}

int ct_measured_parse_buffer(const char *name, const char *buf, size_t len, const ct_trace *tr,
                             double *measured, ct_err *err)
{
    return measured_run(name, NULL, buf, len, tr, measured, err);
}

/* ---------------------------------------------------------- placement */

typedef struct place_ctx {
    const char *name;
    int32_t ntasks, nnodes;
    int32_t *node_of;
    int *seen_line;
} place_ctx;

static int place_line_cb(void *vctx, char *line, int lineno, ct_err *err)
{
    place_ctx *p = vctx;
    tok t[MAX_TOK];
    int n = tokenize(line, t);
    if (n == 0)
        return 0;
    if (n != 2) {
        ct_err_set(err, "expected 'TASK NODE', got %d field%s", n > MAX_TOK ? MAX_TOK : n,
                   n == 1 ? "" : "s");
        return tok_err(p->name, lineno, n > 2 ? &t[2] : &t[0], err);
    }
    int32_t task, node;
    if (parse_task_id(t[0].s, &task) || task >= p->ntasks) {
        ct_err_set(err, "invalid task '%s' (expected a task number 0 to %d)", t[0].s,
                   (int)p->ntasks - 1);
        return tok_err(p->name, lineno, &t[0], err);
    }
    if (parse_task_id(t[1].s, &node) || node >= p->nnodes) {
        ct_err_set(err, "invalid node '%s' for task %d (expected a node number 0 to %d)", t[1].s,
                   (int)task, (int)p->nnodes - 1);
        return tok_err(p->name, lineno, &t[1], err);
    }
    if (p->seen_line[task]) {
        ct_err_set(err, "task %d already placed on line %d (give each task once)", (int)task,
                   p->seen_line[task]);
        return tok_err(p->name, lineno, &t[0], err);
    }
    p->seen_line[task] = lineno;
    p->node_of[task] = node;
    return 0;
}

static int placement_run(const char *name, const char *path, const char *buf, size_t len,
                         int32_t ntasks, int32_t nnodes, int32_t *node_of, ct_err *err)
{
    if (ntasks < 1 || nnodes < 1)
        return ct_err_set(err, "%s: %d tasks on %d nodes (need at least one of each)", name,
                          (int)ntasks, (int)nnodes);
    place_ctx p = {.name = name, .ntasks = ntasks, .nnodes = nnodes, .node_of = node_of};
    p.seen_line = calloc((size_t)ntasks, sizeof *p.seen_line);
    if (!p.seen_line)
        return ct_err_set(err, "out of memory");
    int rc = path ? each_line_file(path, place_line_cb, &p, err)
                  : each_line_buffer(name, buf, len, place_line_cb, &p, err);
    for (int32_t i = 0; rc == 0 && i < ntasks; i++)
        if (!p.seen_line[i])
            rc = ct_err_set(err,
                            "%s: task %d is not placed (every task 0 to %d needs a "
                            "'TASK NODE' line)",
                            name, (int)i, (int)ntasks - 1);
    free(p.seen_line);
    return rc;
}

int ct_placement_load(const char *path, int32_t ntasks, int32_t nnodes, int32_t *node_of,
                      ct_err *err)
{
    return placement_run(path, path, NULL, 0, ntasks, nnodes, node_of, err);
}

int ct_placement_parse_buffer(const char *name, const char *buf, size_t len, int32_t ntasks,
                              int32_t nnodes, int32_t *node_of, ct_err *err)
{
    return placement_run(name, NULL, buf, len, ntasks, nnodes, node_of, err);
}

/* ---------------------------------------------------------- profiles */

int ct_profile_dir(const char *xdg_data_home, const char *home, char *buf, size_t n, ct_err *err)
{
    int k;
    if (xdg_data_home && xdg_data_home[0] == '/')
        k = snprintf(buf, n, "%s/contention/profiles", xdg_data_home);
    else if (home && home[0] == '/')
        k = snprintf(buf, n, "%s/.local/share/contention/profiles", home);
    else
        return ct_err_set(err, "no profile directory (neither XDG_DATA_HOME nor HOME is an "
                               "absolute path)");
    if (k < 0 || (size_t)k >= n)
        return ct_err_set(err, "profile directory path too long (%d characters)", k);
    return 0;
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int ct_trace_resolve(const char *arg, const char *xdg_data_home, const char *home, char *out,
                     size_t n, ct_err *err)
{
    if (!arg || !*arg)
        return ct_err_set(err, "empty trace name (expected trace:FILE or trace:NAME)");
    if (strchr(arg, '/') || is_file(arg)) {
        if (strlen(arg) >= n)
            return ct_err_set(err, "trace path too long (%zu characters)", strlen(arg));
        memcpy(out, arg, strlen(arg) + 1);
        return 0;
    }
    char dir[4096];
    if (ct_profile_dir(xdg_data_home, home, dir, sizeof dir, err) < 0)
        return ct_err_prefix(err, "trace '%s' is not a file and ", arg);
    const char *suffix[] = {"", ".trace"};
    for (int i = 0; i < 2; i++) {
        int k = snprintf(out, n, "%s/%s%s", dir, arg, suffix[i]);
        if (k > 0 && (size_t)k < n && is_file(out))
            return 0;
    }
    return ct_err_set(err,
                      "trace '%s' is neither a file nor a profile in %s (looked for %s/%s and "
                      "%s/%s.trace; record one with contention-admin record -o trace:%s)",
                      arg, dir, dir, arg, dir, arg, arg);
}

const char *ct_ev_kind_name(int kind)
{
    return kind >= 0 && kind < CT_EV_KIND_COUNT ? ev_name[kind] : "?";
}
