/* Application traces for the trace-replay simulator (paper 001 §VI-A: "an
 * application represented by a sequence of events", compute events and
 * communication events), plus the two small files that go with a replay:
 * measured communication times (for 001 §VI-B's E_rel / E_abs) and an
 * explicit task -> node placement. Formats: doc/trace-format.md.
 *
 * Each line of a trace belongs to one task; a task's program order is the
 * file order of its lines. Communications follow MPI's blocking rendez-vous
 * (MPI_Send / MPI_Recv, as the paper's benchmark used): a transfer starts
 * once the send and its matching receive are both posted. Matching is MPI's:
 * a receive takes the oldest pending send from its source (or from anyone for
 * `any`), sends from one task to another are never overtaken.
 */
#ifndef CONTENTION_TRACE_H
#define CONTENTION_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "contention/error.h"

#define CT_ANY_SOURCE (-1)
/* Task ids are 0 .. CT_TRACE_MAX_TASKS-1. */
#define CT_TRACE_MAX_TASKS (1 << 28)
#define CT_LABEL_MAX 64

typedef enum ct_ev_kind {
    CT_EV_COMPUTE = 0, /* busy for `value` seconds */
    CT_EV_SEND,        /* blocking send of `value` bytes to `peer` (MPI_Send, rendez-vous) */
    CT_EV_ISEND,       /* non-blocking send, completed by a later waitall (MPI_Isend) */
    CT_EV_RECV,        /* blocking receive from `peer` or CT_ANY_SOURCE (MPI_Recv) */
    CT_EV_IRECV,       /* non-blocking receive (MPI_Irecv) */
    CT_EV_WAITALL,     /* wait for every outstanding isend/irecv of the task (MPI_Waitall) */
    /* Collectives (doc/trace-format.md, "Collectives"): `comm` is the
     * communicator (index in ct_trace.comms, 0 = world), `peer` the root task
     * or -1, `value` the bytes as the line gives them. ct_trace_expand
     * (collective.h) turns them into the point-to-point events above; the
     * simulator only replays expanded traces. */
    CT_EV_BARRIER,
    CT_EV_BCAST,      /* root's message to every member */
    CT_EV_REDUCE,     /* every member's vector, reduced to the root */
    CT_EV_ALLREDUCE,  /* every member's vector */
    CT_EV_GATHER,     /* every member's block, to the root */
    CT_EV_GATHERV,    /* this task's block */
    CT_EV_SCATTER,    /* every member's block, from the root */
    CT_EV_SCATTERV,   /* this task's block */
    CT_EV_ALLGATHER,  /* every member's block */
    CT_EV_ALLGATHERV, /* this task's block */
    CT_EV_ALLTOALL,   /* bytes to each member */
    CT_EV_ALLTOALLV,  /* bytes this task sends in total */
    CT_EV_KIND_COUNT
} ct_ev_kind;

#define CT_EV_IS_COLL(k) ((k) >= CT_EV_BARRIER && (k) < CT_EV_KIND_COUNT)

/* A communicator of a trace: `size` member tasks; member i (its rank in the
 * communicator) is task members[first + i]. Communicator 0 is "world", every
 * task in order (members not stored: first = SIZE_MAX). */
typedef struct ct_trace_comm {
    char name[CT_LABEL_MAX];
    size_t first;
    int32_t size;
    int32_t line; /* of its first declaration, 0 for world */
} ct_trace_comm;

typedef struct ct_event {
    double value; /* compute: s; send/isend: bytes; recv/irecv: buffer bytes, < 0 = any size */
    int32_t peer; /* send: destination task; recv: source task or CT_ANY_SOURCE; else -1 */
    int32_t comm; /* send/isend: communication index (sends in file order); else -1 */
    int32_t line; /* line in the trace file, 0 when built in memory */
    uint8_t kind; /* ct_ev_kind */
} ct_event;

typedef struct ct_trace {
    char name[256]; /* file name used in messages */
    int32_t ntasks;
    size_t nevents;
    ct_event *ev;       /* grouped by task, program order inside a task */
    size_t *task_first; /* task t owns ev[task_first[t] .. task_first[t+1]) */
    size_t ncomm;       /* communications = send + isend events */
    int32_t *comm_src;  /* sending task of communication c */
    size_t *comm_event; /* index in ev of the send that defines communication c */
    double total_bytes; /* sum of the bytes of every communication */
    /* explicit labels (`send ... LABEL`); communications without one are "c<index>" */
    uint32_t *label_off; /* per communication: offset in labels, UINT32_MAX = none */
    char *labels;
    size_t labels_len;
    /* communicators of collective events (ncomms >= 1 once finished: world) */
    size_t ncomms;
    ct_trace_comm *comms;
    int32_t *members; /* member tasks of declared communicators, see ct_trace_comm */
    int32_t *member_order; /* per communicator, its ranks sorted by task (ct_trace_finish) */
    size_t nmembers;
    size_t ncoll; /* collective events */
    struct ct_trace_build *build; /* internal to trace.c while events are added; NULL once finished */
    int finished; /* ct_trace_finish has grouped the events: the trace is read-only */
} ct_trace;

/* Start an empty trace; `name` appears in messages. Events are then added in
 * file order (any interleaving of tasks) and ct_trace_finish groups them. */
int ct_trace_init(ct_trace *tr, const char *name, ct_err *err);
/* Declare the number of tasks (the `tasks N` header); without it the trace has
 * max(task id) + 1 tasks. Must come before any event. */
int ct_trace_set_ntasks(ct_trace *tr, int32_t ntasks, int32_t line, ct_err *err);
int ct_trace_add_compute(ct_trace *tr, int32_t task, double seconds, int32_t line, ct_err *err);
/* A send (blocking = 1: send, 0: isend) of `bytes` from task to dst. `label`
 * may be NULL; otherwise [A-Za-z_][A-Za-z0-9_.-]*, unique in the trace. */
int ct_trace_add_send(ct_trace *tr, int32_t task, int32_t dst, double bytes, int blocking,
                      const char *label, int32_t line, ct_err *err);
/* A receive (blocking = 1: recv, 0: irecv) from src (CT_ANY_SOURCE: any);
 * max_bytes < 0 accepts any size, otherwise a larger send is an error. */
int ct_trace_add_recv(ct_trace *tr, int32_t task, int32_t src, double max_bytes, int blocking,
                      int32_t line, ct_err *err);
int ct_trace_add_waitall(ct_trace *tr, int32_t task, int32_t line, ct_err *err);
/* Declare communicator `name` ([A-Za-z_][A-Za-z0-9_.-]*, not "world") with
 * `n` distinct member tasks in rank order. Declaring a name again with the
 * same members is accepted (per-rank recordings concatenated); different
 * members are an error. */
int ct_trace_add_comm(ct_trace *tr, const char *name, const int32_t *members, int32_t n,
                      int32_t line, ct_err *err);
/* A collective event of `task` on communicator `comm` (a name: "world" or a
 * declared one); root is a task (-1 for rootless kinds), bytes as in
 * doc/trace-format.md. Membership is checked by ct_trace_finish. */
int ct_trace_add_coll(ct_trace *tr, int32_t task, ct_ev_kind kind, const char *comm, int32_t root,
                      double bytes, int32_t line, ct_err *err);
/* Rank of `task` in communicator c, or -1 when it is not a member. Needs a
 * finished trace; O(log size). */
int32_t ct_trace_comm_rank(const ct_trace *tr, size_t c, int32_t task);
/* Task of rank r in communicator c (finished trace). */
static inline int32_t ct_trace_comm_task(const ct_trace *tr, size_t c, int32_t r)
{
    return c == 0 ? r : tr->members[tr->comms[c].first + (size_t)r];
}
/* Group events by task and check peers against the task count. */
int ct_trace_finish(ct_trace *tr, ct_err *err);
void ct_trace_free(ct_trace *tr);

/* Parse a trace file (doc/trace-format.md). Errors read
 * "FILE:LINE:COL: what is wrong (what is accepted)"; *tr is then empty. */
int ct_trace_load(const char *path, ct_trace *tr, ct_err *err);

/* Bounds for a trace read on a launch path (the plugin's trace:FILE): the
 * file must be a regular file (opened O_NONBLOCK, checked with fstat, so a
 * FIFO or a device is refused without blocking), of at most max_bytes bytes,
 * with at most max_events events and max_tasks tasks (task ids and the
 * `tasks N` header: the per-task tables are sized by the largest id, so a
 * 20-byte file naming task 268435455 would otherwise cost gigabytes).
 * 0 = no bound for that field. */
typedef struct ct_trace_limits {
    size_t max_bytes;
    size_t max_events;
    int32_t max_tasks;
} ct_trace_limits;

/* ct_trace_load within `lim` (NULL or all zero: exactly ct_trace_load).
 * Refusals read "PATH: not a regular file (...)", "PATH: N bytes, larger
 * than MAX (...)" or "PATH:LINE:COL: more than MAX events (...)". */
int ct_trace_load_bounded(const char *path, const ct_trace_limits *lim, ct_trace *tr,
                          ct_err *err);
/* Same from memory; `name` is used in messages in place of a path. */
int ct_trace_parse_buffer(const char *name, const char *buf, size_t len, ct_trace *tr, ct_err *err);
/* Same within lim's max_events and max_tasks (NULL: no bound). */
int ct_trace_parse_buffer_bounded(const char *name, const char *buf, size_t len,
                                  const ct_trace_limits *lim, ct_trace *tr, ct_err *err);

/* Label of communication c: its explicit label or "c<c>". Returns buf. */
const char *ct_trace_label(const ct_trace *tr, size_t c, char *buf, size_t n);
/* The event (send or isend) that defines communication c. */
const ct_event *ct_trace_comm_event(const ct_trace *tr, size_t c);

/* "compute", "send", ..., "alltoallv" for a ct_ev_kind. */
const char *ct_ev_kind_name(int kind);

/* Measured times, one line per communication: `LABEL SECONDS` (s, ms, us or ns
 * suffix allowed). measured[c] (array of tr->ncomm) receives the time or NaN
 * when the file does not list c. Unknown or repeated labels are errors. */
int ct_measured_load(const char *path, const ct_trace *tr, double *measured, ct_err *err);
int ct_measured_parse_buffer(const char *name, const char *buf, size_t len, const ct_trace *tr,
                             double *measured, ct_err *err);

/* Explicit placement, one `TASK NODE` line per task of the trace, each task
 * exactly once. node_of (array of ntasks) receives the nodes; nodes must be
 * below nnodes. */
int ct_placement_load(const char *path, int32_t ntasks, int32_t nnodes, int32_t *node_of,
                      ct_err *err);
int ct_placement_parse_buffer(const char *name, const char *buf, size_t len, int32_t ntasks,
                              int32_t nnodes, int32_t *node_of, ct_err *err);

/* Named trace profiles (`trace:NAME`, doc/recorder.md). The per-user profile
 * directory is XDG_DATA_HOME/contention/profiles, or
 * HOME/.local/share/contention/profiles when xdg_data_home is NULL or empty
 * (the caller passes the values: modelcore reads no environment). */
int ct_profile_dir(const char *xdg_data_home, const char *home, char *buf, size_t n, ct_err *err);
/* The file `trace:ARG` names: ARG itself when it is an existing file or
 * contains a '/'; otherwise the profile DIR/ARG, then DIR/ARG.trace. When
 * nothing exists the error names both places looked at. */
int ct_trace_resolve(const char *arg, const char *xdg_data_home, const char *home, char *out,
                     size_t n, ct_err *err);

/* Parse a duration: a non-negative number with an optional s, ms, us or ns
 * suffix, e.g. "1.5ms". */
int ct_parse_duration(const char *s, double *seconds, ct_err *err);

#endif
