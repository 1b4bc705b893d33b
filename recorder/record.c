/* libcontention-record.so: a PMPI interposer that records, per rank, what an
 * MPI application sends to whom, how much, in what order, and the compute
 * gaps between its MPI calls, in the simulator's trace format
 * (doc/trace-format.md, collective events included). doc/recorder.md.
 *
 * Loaded with LD_PRELOAD (contention-admin record, srun
 * --contention-record); does nothing unless CONTENTION_RECORD_FILE is set.
 * Each rank formats its events into a text buffer (bounded by the recording
 * window); MPI_Finalize streams the buffers to rank 0, which writes FILE
 * (temp + rename). On abnormal exit (a fatal signal, exit() without
 * MPI_Finalize, MPI_Abort) every rank writes what it has to FILE.rank<R>
 * with plain write(2) calls; `contention-admin record` merges those.
 *
 * MPI_Pcontrol(1) and MPI_Pcontrol(0) bound the recorded region (its start
 * applied at MPI_Finalize where consistent: start_cut; doc/recorder.md
 * "Recording a region").
 *
 * Single-threaded MPI use (THREAD_SINGLE / FUNNELED) is assumed. */
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------- state */

/* this build's name (recorder/meson.build: one per MPI ABI), in the trace's
 * first line */
#ifdef OPEN_MPI
#define RECORDER_LIB "libcontention-record.so"
#else
#define RECORDER_LIB "libcontention-record-mpich.so"
#endif

/* a communicator's name in the trace: "world", cHASH (17), either with
 * ".k" (name_kth) */
#define COMM_NAME_MAX 40

/* What an MPI handle stands for, kept from the call that made it to the one
 * that uses it: a persistent request's send or receive (peer: world rank, -2
 * for MPI_ANY_SOURCE), or a matched probe's message (peer: its source, -1
 * when not recordable). A short list searched linearly: a code holds few
 * persistent requests and fewer probed messages at a time. */
struct held {
    uintptr_t h;
    int send, peer;
    long long bytes;
    int tag;                  /* MPI_ANY_TAG: a receive from any tag */
    char comm[COMM_NAME_MAX]; /* the communicator's name in the trace (p2p_comm) */
    MPI_Comm c;               /* the communicator (a wildcard receive's source: resolve_line) */
};
struct held_list {
    struct held *v;
    size_t n, cap;
};

static struct {
    int on;        /* recording events */
    int init;      /* set up after MPI_Init */
    int finalized; /* written normally */
    int rank, size;
    MPI_Comm comm; /* private duplicate of MPI_COMM_WORLD for the merge */
    char path[4096];
    double t0, last, gap; /* s: start, end of the last MPI call, compute not yet written */
    /* polling: the last call was a test that found its requests
     * incomplete or left recorded ones outstanding; last_cpu is this
     * thread's CPU time at its end (-1: not read, the gaps between tests
     * were short); poll_long: the last gap after a test was >= POLL_CPU_GAP */
    int poll, poll_long;
    double last_cpu;
    double window_s, min_gap;
    long max_events, nevents;
    char *buf;
    size_t len, cap;
    int keyval;
    /* outstanding recorded requests (open addressing on the handle value) */
    uintptr_t *req;
    size_t *req_off;    /* per slot: its irecv line's offset in buf, NO_LINE */
    MPI_Comm *req_comm; /* per slot: a wildcard irecv's communicator (resolve_line),
                           else MPI_COMM_NULL */
    size_t req_cap, req_n;
    /* persistent requests (MPI_*_init): what each MPI_Start posts */
    struct held_list pers;
    /* messages a matched probe took (MPI_Mprobe/Improbe): their source and
     * size, for the MPI_Mrecv/Imrecv that receives each */
    struct held_list mpr;
    /* buffer length after each MPI_COMM_WORLD collective: where a recording
     * cut by the window is cut consistently over ranks */
    size_t *wcut;
    long nwcut;
    size_t wcut_cap;
    int stopped;
    /* MPI_Pcontrol(1): the recording starts after the first MPI_COMM_WORLD
     * collective at or after it (mark: that collective's 1-based index in
     * wcut; mark_pending: called, that collective not reached yet);
     * MPI_Pcontrol(0): it ends there (stop, cut as the window's end);
     * from_coll: the mark applied to the written trace */
    long mark, from_coll;
    int mark_pending, pc_stopped;
} R = {.keyval = MPI_KEYVAL_INVALID};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Polling gaps shorter than this (s) are counted at their wall time: reading
 * the thread's CPU clock is a system call (~0.6 us here, against ~10 ns for
 * a failed MPI_Test), so a loop that tests back to back, or a code that pokes
 * MPI_Test for progress every few microseconds, does not pay it; a loop that
 * sleeps between tests (nanosleep's minimum with the default timer slack:
 * ~55 us) does, once per sleep. The first gap of a loop is read as wall time
 * (the clock is read from the second test on). */
#define POLL_CPU_GAP 20e-6

/* This thread's CPU time (s), or -1 when the clock is not available. */
static double cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void stop(void)
{
    if (R.on)
        R.stopped = 1;
    R.on = 0;
}

/* Room for element n of the array *v (*cap elements of elem bytes; doubled,
 * from first, when full): the lists below grow this way. 0 when memory ran
 * out, the array left as it was. */
static int array_room(void **v, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return 1;
    size_t c = *cap ? 2 * *cap : first;
    void *p = realloc(*v, c * elem);
    if (!p)
        return 0;
    *v = p;
    *cap = c;
    return 1;
}

/* Fast appenders for the common lines (vsnprintf costs ~5x more). */
static char *room(size_t need)
{
    if (R.cap - R.len < need) {
        size_t cap = R.cap ? 2 * R.cap : 1 << 16;
        while (cap - R.len < need)
            cap *= 2;
        char *b = realloc(R.buf, cap);
        if (!b) {
            stop();
            return NULL;
        }
        R.buf = b;
        R.cap = cap;
    }
    return R.buf + R.len;
}

static void ap_s(const char *s)
{
    size_t n = strlen(s);
    char *p = room(n);
    if (p) {
        memcpy(p, s, n);
        R.len += n;
    }
}

static void ap_i(long long v)
{
    char tmp[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        tmp[n++] = (char)('0' + u % 10);
    while ((u /= 10));
    if (v < 0)
        tmp[n++] = '-';
    char *p = room((size_t)n + 1);
    if (!p)
        return;
    p[0] = ' ';
    for (int i = 0; i < n; i++)
        p[1 + i] = tmp[n - 1 - i];
    R.len += (size_t)n + 1;
}

/* any other line (vsnprintf) */
static void emitf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emitf(const char *fmt, ...)
{
    for (int tries = 0; tries < 2; tries++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(R.buf + R.len, R.cap - R.len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            stop();
            return;
        }
        if ((size_t)n < R.cap - R.len) {
            R.len += (size_t)n;
            return;
        }
        if (!room((size_t)n + 1)) /* out of memory: keep what we have */
            return;
    }
}

/* Entry of a recorded call: the time since the last call is compute.
 * After a test that found its requests incomplete (or left recorded ones
 * outstanding) the program is polling, and whatever it does until its next
 * call (typically a sleep or a yield of a few microseconds to milliseconds,
 * repeated until the requests complete) lasts as long as the communication
 * did on the recording's layout: as wall time it would record that layout's
 * contention as compute, which every replay then pays again. Such a gap
 * counts only the CPU time the thread used in it (the work a polling loop
 * does between tests, overlap included); the waiting itself is the
 * completion event's, priced by the replay (for a request the recorder does
 * not record, e.g. a non-blocking collective, the wait is left out: the
 * replay's own dependencies stand for it). Own rule of this project. */
static int enter(void)
{
    if (!R.on)
        return 0;
    double t = now();
    if (R.window_s > 0 && t - R.t0 > R.window_s) {
        stop();
        return 0;
    }
    double wall = t - R.last;
    if (R.poll) {
        R.poll_long = wall >= POLL_CPU_GAP;
        double c = R.last_cpu >= 0 ? cpu_now() : -1;
        if (c >= 0 && c - R.last_cpu >= 0 && c - R.last_cpu < wall)
            wall = c - R.last_cpu;
        R.poll = 0;
    }
    R.gap += wall;
    return 1;
}

static void leave(void)
{
    if (R.on)
        R.last = now();
}

/* End of a test call: polling when the call found its requests incomplete
 * (recorded or not: a non-blocking collective, which is not recorded, is
 * waited for the same way) or recorded requests are still outstanding. */
static void leave_test(int incomplete)
{
    if (R.on && (incomplete || R.req_n > 0)) {
        R.poll = 1;
        R.last_cpu = R.poll_long ? cpu_now() : -1;
    }
    leave();
}

/* Before an event line: the compute gap (when long enough) and the window. */
static int event(void)
{
    if (!R.on)
        return 0;
    if (R.max_events > 0 && R.nevents >= R.max_events) {
        stop();
        return 0;
    }
    R.nevents++;
    if (R.gap >= R.min_gap) { /* whole nanoseconds, the trace's ns suffix */
        ap_s("compute");
        ap_i(R.rank);
        ap_i((long long)(R.gap * 1e9 + 0.5));
        ap_s("ns\n");
        R.gap = 0;
    }
    return 1;
}

static long long type_bytes(int count, MPI_Datatype t)
{
    int sz = 0;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &sz) != MPI_SUCCESS)
        return 0;
    return (long long)count * sz;
}

/* ------------------------------------------------------- communicators */

typedef struct comm_info {
    int size;
    int *world; /* world rank of each rank */
    uint64_t members; /* hash of `world` (FNV-1a) */
    char name[COMM_NAME_MAX];
    int declared, nbr_declared; /* NAME, and NAME.nbr (neighbourhood collectives) */
    int inter;
} comm_info;

/* Communicators with the same members are told apart by the order of their
 * creation: MPI creates a communicator collectively over its parent, so the
 * members of a valid program create theirs in one order. The program's k-th
 * communicator with the members of one met before (MPI_COMM_WORLD counts as
 * the first with all ranks) is named NAME.k, NAME being what the members
 * alone give (`world.1` for the first MPI_Comm_dup of MPI_COMM_WORLD): its
 * messages and collectives are then matched apart from the others', as MPI
 * does (a context of their own, MPI 4.1 §7.1.2). Counted per rank, without
 * talking to the others, for the creation calls wrapped below; a
 * communicator made otherwise (an inter-communicator merged, MPI 4's
 * sessions) keeps the name of its members. */
static struct same_members {
    uint64_t members;
    int n; /* created so far */
} *same;
static size_t nsame, same_cap;
/* MPI_Comm_idup: its communicator may not be used before the request
 * completes; its number is taken where it is posted, kept by handle */
static struct pending_dup {
    MPI_Comm comm;
    int k;
} *pend;
static size_t npend, pend_cap;

/* the number of the next communicator with these members (0: the first) */
static int next_of(uint64_t members, int is_world)
{
    for (size_t i = 0; i < nsame; i++)
        if (same[i].members == members)
            return same[i].n++;
    if (!array_room((void **)&same, &same_cap, nsame, sizeof *same, 16))
        return 0;
    same[nsame].members = members;
    same[nsame].n = is_world ? 2 : 1; /* world itself was the first */
    return same[nsame++].n - 1;
}

static void name_kth(comm_info *ci, int k)
{
    if (k <= 0)
        return;
    char base[sizeof ci->name];
    memcpy(base, ci->name, sizeof base);
    snprintf(ci->name, sizeof ci->name, "%.23s.%d", base, k);
    ci->declared = 0; /* world.k is declared like any other */
}

static int all_ranks(const comm_info *ci)
{
    if (ci->size != R.size)
        return 0;
    for (int i = 0; i < ci->size; i++)
        if (ci->world[i] != i)
            return 0;
    return 1;
}

static int del_info(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)kv, (void)extra;
    comm_info *ci = val;
    free(ci->world);
    free(ci);
    return MPI_SUCCESS;
}

static comm_info *info_of(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return NULL;
    comm_info *ci;
    int flag = 0;
    if (R.keyval != MPI_KEYVAL_INVALID && PMPI_Comm_get_attr(comm, R.keyval, &ci, &flag) == MPI_SUCCESS &&
        flag)
        return ci;
    ci = calloc(1, sizeof *ci);
    if (!ci)
        return NULL;
    PMPI_Comm_test_inter(comm, &ci->inter);
    if (ci->inter)
        goto keep;
    PMPI_Comm_size(comm, &ci->size);
    ci->world = malloc((size_t)ci->size * sizeof *ci->world);
    int *ranks = malloc((size_t)ci->size * sizeof *ranks);
    if (!ci->world || !ranks) {
        free(ranks);
        free(ci->world);
        free(ci);
        return NULL;
    }
    MPI_Group g, wg;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < ci->size; i++)
        ranks[i] = i;
    PMPI_Group_translate_ranks(g, ci->size, ranks, wg, ci->world);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    free(ranks);
    int is_world = all_ranks(ci);
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < ci->size; i++) {
        uint32_t v = (uint32_t)ci->world[i];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xff;
            h *= 1099511628211ull;
        }
    }
    ci->members = h;
    if (is_world) {
        snprintf(ci->name, sizeof ci->name, "world");
        ci->declared = 1;
    } else { /* every rank derives the same name from the members alone */
        snprintf(ci->name, sizeof ci->name, "c%016llx", (unsigned long long)h);
    }
    for (size_t i = 0; i < npend; i++)
        if (pend[i].comm == comm) { /* an MPI_Comm_idup's, now complete */
            name_kth(ci, pend[i].k);
            pend[i] = pend[--npend];
            break;
        }
keep:
    if (R.keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_set_attr(comm, R.keyval, ci);
    return ci;
}

/* after a call that created *nc (its result rc, returned): name it by its
 * creation's number */
static int created(int rc, const MPI_Comm *nc)
{
    if (rc != MPI_SUCCESS || !R.init || *nc == MPI_COMM_NULL)
        return rc;
    comm_info *ci = info_of(*nc);
    if (ci && !ci->inter)
        name_kth(ci, next_of(ci->members, all_ranks(ci)));
    return rc;
}

/* `comm NAME[SUFFIX] MEMBERS` with runs a-b/s, once per rank (*done)
 * before first use */
static void declare_as(comm_info *ci, const char *suffix, int *done)
{
    if (*done)
        return;
    *done = 1;
    emitf("comm %s%s ", ci->name, suffix);
    int i = 0;
    while (i < ci->size) {
        int a = ci->world[i], j = i + 1, st = 0;
        if (j < ci->size) {
            st = ci->world[j] - a;
            while (st > 0 && j + 1 < ci->size && ci->world[j + 1] - ci->world[j] == st)
                j++;
        }
        if (st > 0 && j > i + 1) {
            emitf(st == 1 ? "%s%d-%d" : "%s%d-%d/%d", i ? "," : "", a, ci->world[j], st);
            i = j + 1;
        } else {
            emitf("%s%d", i ? "," : "", a);
            i++;
        }
    }
    emitf("\n");
}

static void declare(comm_info *ci) { declare_as(ci, "", &ci->declared); }

/* world rank of `r` in comm, -1 when not recordable */
static int world_of(MPI_Comm comm, int r)
{
    if (r < 0)
        return -1;
    if (comm == MPI_COMM_WORLD)
        return r;
    comm_info *ci = info_of(comm);
    if (!ci || ci->inter || r >= ci->size)
        return -1;
    return ci->world[r];
}

/* The name under which a point-to-point line names comm (info_of's: "world",
 * cHASH, either with ".k"; declared before its first line like a
 * collective's), into name[COMM_NAME_MAX]. */
static void p2p_comm(MPI_Comm comm, char *name)
{
    comm_info *ci = comm == MPI_COMM_WORLD ? NULL : info_of(comm);
    if (ci && !ci->inter) {
        declare(ci);
        snprintf(name, COMM_NAME_MAX, "%s", ci->name);
    } else {
        snprintf(name, COMM_NAME_MAX, "world");
    }
}

/* "kw RANK PEER BYTES[ tag=T[@COMM]]\n": a point-to-point line with MPI's
 * matching key, its tag (MPI_ANY_TAG: any) and communicator, which the
 * replay matches as MPI does; tag 0 on world, the trace's default, is left
 * out (doc/trace-format.md "Tags and communicators"). peer -2: any. */
static void p2p_line(const char *kw, int peer, long long bytes, int tag, const char *comm)
{
    ap_s(kw);
    ap_i(R.rank);
    if (peer == -2)
        ap_s(" any");
    else
        ap_i(peer);
    ap_i(bytes);
    int world = strcmp(comm, "world") == 0;
    if (tag != 0 || !world) {
        char t[24] = " tag=any";
        if (tag != MPI_ANY_TAG)
            snprintf(t, sizeof t, " tag=%d", tag);
        ap_s(t);
        if (!world)
            ap_s("@"), ap_s(comm);
    }
    ap_s("\n");
}

/* ------------------------------------------------------------ requests */

/* line_off: where the request's irecv line starts in the buffer (NO_LINE:
 * not an irecv, or not kept), so that a cancelled receive can be taken back */
#define NO_LINE SIZE_MAX

static void req_grow(void);
static void req_insert(uintptr_t h, size_t line_off, MPI_Comm comm)
{
    if (2 * (R.req_n + 1) > R.req_cap)
        req_grow();
    if (!R.req_cap)
        return;
    size_t i = (h * 0x9E3779B97F4A7C15ull >> 7) & (R.req_cap - 1);
    while (R.req[i])
        i = (i + 1) & (R.req_cap - 1);
    R.req[i] = h ? h : 1;
    R.req_off[i] = line_off;
    R.req_comm[i] = comm;
    R.req_n++;
}

/* the bits of an opaque MPI handle (a pointer in Open MPI, an int in MPICH) */
static uintptr_t handle_bits(const void *p, size_t n)
{
    uintptr_t h = 0;
    memcpy(&h, p, n < sizeof h ? n : sizeof h);
    return h;
}

static uintptr_t handle(MPI_Request r)
{
    return handle_bits(&r, sizeof r);
}

static void req_add(MPI_Request r)
{
    req_insert(handle(r), NO_LINE, MPI_COMM_NULL);
}

/* an irecv from peer (-2: MPI_ANY_SOURCE) with tag on comm whose line starts
 * at line_off; a wildcard one keeps its communicator, for resolve_line */
static void req_add_recv(MPI_Request r, size_t line_off, int peer, int tag, MPI_Comm comm)
{
    req_insert(handle(r), line_off, peer == -2 || tag == MPI_ANY_TAG ? comm : MPI_COMM_NULL);
}

static void req_grow(void)
{
    size_t cap = R.req_cap ? 2 * R.req_cap : 256;
    uintptr_t *old = R.req, *n = calloc(cap, sizeof *n);
    size_t *oldoff = R.req_off, *noff = calloc(cap, sizeof *noff);
    MPI_Comm *oldcomm = R.req_comm, *ncomm = calloc(cap, sizeof *ncomm);
    size_t oc = R.req_cap;
    if (!n || !noff || !ncomm) {
        free(n);
        free(noff);
        free(ncomm);
        return;
    }
    R.req = n;
    R.req_off = noff;
    R.req_comm = ncomm;
    R.req_cap = cap;
    R.req_n = 0;
    for (size_t i = 0; i < oc; i++)
        if (old[i])
            req_insert(old[i], oldoff[i], oldcomm[i]);
    free(old);
    free(oldoff);
    free(oldcomm);
}

/* the slot of h, or SIZE_MAX */
static size_t req_slot(uintptr_t h)
{
    if (!R.req_n)
        return SIZE_MAX;
    size_t i = (h * 0x9E3779B97F4A7C15ull >> 7) & (R.req_cap - 1);
    while (R.req[i]) {
        if (R.req[i] == h)
            return i;
        i = (i + 1) & (R.req_cap - 1);
    }
    return SIZE_MAX;
}

/* 1 when r was a recorded request (now removed) */
static int req_del(uintptr_t h)
{
    size_t i = req_slot(h);
    if (i == SIZE_MAX)
        return 0;
    R.req[i] = 0;
    R.req_n--;
    /* re-insert the rest of the cluster */
    for (size_t j = (i + 1) & (R.req_cap - 1); R.req[j]; j = (j + 1) & (R.req_cap - 1)) {
        uintptr_t x = R.req[j];
        size_t xo = R.req_off[j];
        MPI_Comm xc = R.req_comm[j];
        R.req[j] = 0;
        R.req_n--;
        req_insert(x, xo, xc);
    }
    return 1;
}


/* Requests completed: when the last recorded one is, the trace waits. */
static void completed(int removed)
{
    if (removed && R.req_n == 0 && R.on && event())
        ap_s("waitall"), ap_i(R.rank), ap_s("\n");
}

/* ------------------------------------------------------------- output */

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* What this rank has, to FILE.rank<R> (async-signal-safe: write(2) only). */
static void dump_partial(void)
{
    if (!R.init || R.finalized || !R.path[0])
        return;
    R.finalized = 1;
    R.on = 0;
    char p[4200], head[160];
    int n = snprintf(p, sizeof p, "%s.rank%d", R.path, R.rank);
    if (n < 0 || (size_t)n >= sizeof p)
        return;
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    int h = snprintf(head, sizeof head,
                     "# partial recording of rank %d of %d (abnormal exit)\ntasks %d\n", R.rank,
                     R.size, R.size);
    if (h > 0)
        write_all(fd, head, (size_t)h);
    if (R.buf)
        write_all(fd, R.buf, R.len);
    close(fd);
}

static void on_signal(int sig)
{
    dump_partial();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_exit_hook(void) { dump_partial(); }

static void merge_and_write(void)
{
    uint64_t len = R.len;
    const size_t chunk = (size_t)1 << 30;
    if (R.rank != 0) {
        PMPI_Send(&len, 1, MPI_UINT64_T, 0, 7, R.comm);
        for (size_t off = 0; off < R.len; off += chunk) {
            size_t n = R.len - off < chunk ? R.len - off : chunk;
            PMPI_Send(R.buf + off, (int)n, MPI_BYTE, 0, 8, R.comm);
        }
        return;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", R.path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        fprintf(stderr, "contention-record: %s: cannot write: %s\n", tmp, strerror(errno));
    if (f) {
        fprintf(f,
                "# recorded by " RECORDER_LIB ": %d tasks, window %g s / %ld events per "
                "rank\n",
                R.size, R.window_s, R.max_events);
        if (R.from_coll > 0)
            fprintf(f,
                    "# from the end of MPI_COMM_WORLD collective %ld, the first at or after "
                    "MPI_Pcontrol(1)\n",
                    R.from_coll);
        fprintf(f, "tasks %d\n", R.size);
        fwrite(R.buf ? R.buf : "", 1, R.len, f);
    }
    char *b = NULL;
    size_t cap = 0;
    for (int r = 1; r < R.size; r++) {
        uint64_t n;
        PMPI_Recv(&n, 1, MPI_UINT64_T, r, 7, R.comm, MPI_STATUS_IGNORE);
        if (n > cap) {
            char *nb = realloc(b, (size_t)n);
            if (!nb) { /* cannot hold it: receive and drop, chunk by chunk */
                fprintf(stderr, "contention-record: out of memory for rank %d's %llu bytes\n", r,
                        (unsigned long long)n);
                if (f) {
                    fclose(f);
                    f = NULL;
                    unlink(tmp);
                }
            } else {
                b = nb;
                cap = (size_t)n;
            }
        }
        for (uint64_t off = 0; off < n; off += chunk) {
            size_t k = n - off < chunk ? (size_t)(n - off) : chunk;
            if (b && cap >= n)
                PMPI_Recv(b + off, (int)k, MPI_BYTE, r, 8, R.comm, MPI_STATUS_IGNORE);
            else {
                char *sink = malloc(k);
                PMPI_Recv(sink, (int)k, MPI_BYTE, r, 8, R.comm, MPI_STATUS_IGNORE);
                free(sink);
            }
        }
        if (f && b)
            fwrite(b, 1, (size_t)n, f);
    }
    free(b);
    if (f) {
        int bad = ferror(f);
        if (fclose(f) != 0 || bad || rename(tmp, R.path) != 0) {
            fprintf(stderr, "contention-record: %s: cannot write: %s\n", R.path, strerror(errno));
            unlink(tmp);
        } else {
            /* a complete recording replaces partial ones of an earlier run */
            for (int r = 0; r < R.size; r++) {
                char p[4200];
                snprintf(p, sizeof p, "%s.rank%d", R.path, r);
                unlink(p);
            }
        }
    }
}

/* The length of the line at buf[i], its newline included, within buf[i, end). */
static size_t line_len(size_t i, size_t end)
{
    const char *nl = memchr(R.buf + i, '\n', end - i);
    return nl ? (size_t)(nl - (R.buf + i)) + 1 : end - i;
}

/* The point-to-point lines of buf[0, end): per peer, the sends this rank
 * posted to it and the receives it posted from it (any: from
 * MPI_ANY_SOURCE). The lines are the recorder's own ("kw RANK PEER ..."). */
static void count_p2p(size_t end, long *sent, long *recvd, long *any)
{
    size_t i = 0;
    while (i < end) {
        const char *l = R.buf + i;
        size_t n = line_len(i, end);
        int snd = (n > 5 && memcmp(l, "send ", 5) == 0) || (n > 6 && memcmp(l, "isend ", 6) == 0);
        int rcv = (n > 5 && memcmp(l, "recv ", 5) == 0) || (n > 6 && memcmp(l, "irecv ", 6) == 0);
        if (snd || rcv) {
            char line[64], kw[8], peer[16];
            int me;
            size_t m = n < sizeof line ? n : sizeof line - 1; /* the line alone, ended */
            memcpy(line, l, m);
            line[m] = '\0';
            if (sscanf(line, "%7s %d %15s", kw, &me, peer) == 3) {
                if (rcv && strcmp(peer, "any") == 0) {
                    (*any)++;
                } else {
                    char *e;
                    long p = strtol(peer, &e, 10);
                    if (*e == '\0' && p >= 0 && p < R.size)
                        (snd ? sent : recvd)[p]++;
                }
            }
        }
        i += n;
    }
}

/* MPI_Pcontrol(1)'s start mark, applied at MPI_Finalize after the end cut
 * (own rule of this project, doc/recorder.md "Recording a region"): the
 * trace keeps what every rank recorded after the same MPI_COMM_WORLD
 * collective, the communicators declared before it, and nothing else before
 * it. Not applied (one line on stderr, the recording kept from MPI_Init)
 * when the ranks marked different collectives, when the recording ended
 * before the mark, or when a message crosses it (a send before it that is
 * received after it, or the reverse): the replay would lack one side. */
static const char ENDED_BEFORE[] =
    "the recording ended before it (the window, the event cap or MPI_Pcontrol(0))";

static void start_refused(const char *why)
{
    if (R.rank == 0)
        fprintf(stderr, "contention-record: MPI_Pcontrol(1) not applied: %s; the recording "
                        "starts at MPI_Init\n",
                why);
}

static void start_cut(int ended)
{
    long v[3] = {R.mark, -R.mark, R.mark_pending}, w[3];
    PMPI_Allreduce(v, w, 3, MPI_LONG, MPI_MAX, R.comm);
    long hi = w[0], lo = -w[1];
    const char *why = NULL;
    if (hi == 0) {
        if (w[2])
            why = ended ? ENDED_BEFORE : "no MPI_COMM_WORLD collective followed it";
    } else if (lo != hi) {
        why = "the ranks called it before different MPI_COMM_WORLD collectives (it must be "
              "called at the same point on every rank)";
    }
    if (hi == 0 || why) {
        if (why)
            start_refused(why);
        return;
    }
    size_t cut = R.wcut[hi - 1];
    long *sent = calloc((size_t)R.size, sizeof *sent), *recvd = calloc((size_t)R.size, sizeof *recvd);
    long *to_me = calloc((size_t)R.size, sizeof *to_me), any = 0;
    /* the window, the cap or MPI_Pcontrol(0) ended it at the mark or before:
     * nothing would be left after it */
    int bad = cut >= R.len ? 1 : 0;
    if (!sent || !recvd || !to_me)
        bad |= 4;
    int all = bad; /* kept if the reduction fails (an errors-return handler) */
    PMPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_BOR, R.comm);
    if (!all) { /* every rank can count: the messages that cross the mark */
        count_p2p(cut, sent, recvd, &any);
        PMPI_Alltoall(sent, 1, MPI_LONG, to_me, 1, MPI_LONG, R.comm);
        long total = 0, mine = any;
        for (int r = 0; r < R.size; r++) {
            total += to_me[r];
            mine += recvd[r];
            if (any ? to_me[r] < recvd[r] : to_me[r] != recvd[r])
                bad |= 2;
        }
        if (total != mine)
            bad |= 2;
        PMPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_BOR, R.comm);
    }
    free(sent);
    free(recvd);
    free(to_me);
    if (all) {
        start_refused(all & 1   ? ENDED_BEFORE
                      : all & 4 ? "out of memory"
                                : "a message crosses it (sent before it and received after it, "
                                  "or the reverse)");
        return;
    }
    /* keep the prefix's communicator declarations, then what follows the mark */
    size_t keep = 0, i = 0;
    while (i < cut) {
        size_t n = line_len(i, cut);
        if (n > 5 && memcmp(R.buf + i, "comm ", 5) == 0) {
            memmove(R.buf + keep, R.buf + i, n);
            keep += n;
        }
        i += n;
    }
    memmove(R.buf + keep, R.buf + cut, R.len - cut);
    R.len = keep + (R.len - cut);
    R.from_coll = hi;
}

static double env_num(const char *name, double dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < 0) {
        fprintf(stderr, "contention-record: %s='%s' is not a number >= 0, using %g\n", name, s,
                dflt);
        return dflt;
    }
    return v;
}

static void setup(void)
{
    const char *path = getenv("CONTENTION_RECORD_FILE");
    if (!path || !*path || strlen(path) >= sizeof R.path)
        return;
    snprintf(R.path, sizeof R.path, "%s", path);
    PMPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &R.size);
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &R.comm) != MPI_SUCCESS)
        return;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_info, &R.keyval, NULL);
    R.window_s = env_num("CONTENTION_RECORD_SECONDS", 60);
    R.max_events = (long)env_num("CONTENTION_RECORD_MAX_EVENTS", 200000);
    R.min_gap = env_num("CONTENTION_RECORD_MIN_GAP", 1e-6);
    R.init = 1;
    R.on = 1;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGABRT, on_signal);
    atexit(on_exit_hook);
    R.t0 = R.last = now();
}

/* The Fortran bindings' start (record_f.c): after the MPI library's own
 * Fortran MPI_Init, which sets up what its Fortran constants need (MPICH's
 * MPIR_F_MPI_IN_PLACE), as MPI_Init does after PMPI_Init. */
void ct_record_start(void) __attribute__((visibility("hidden")));
void ct_record_start(void)
{
    if (!R.init)
        setup();
}

/* ------------------------------------------------------------ wrappers */

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        setup();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        setup();
    return rc;
}

int MPI_Finalize(void)
{
    if (R.init && !R.finalized) {
        if (enter() && R.gap >= R.min_gap) /* the last compute phase */
            emitf("compute %d %.9f\n", R.rank, R.gap);
        R.on = 0;
        /* A window that closed on some rank cuts every rank after the last
         * MPI_COMM_WORLD collective all of them recorded: what happened
         * before it is complete on every rank (a consistent cut). */
        int any = 0;
        long k = 0;
        PMPI_Allreduce(&R.stopped, &any, 1, MPI_INT, MPI_MAX, R.comm);
        PMPI_Allreduce(&R.nwcut, &k, 1, MPI_LONG, MPI_MIN, R.comm);
        if (any && k > 0)
            R.len = R.wcut[k - 1];
        start_cut(any);
        merge_and_write();
        R.finalized = 1;
        PMPI_Comm_free(&R.comm);
    }
    return PMPI_Finalize();
}

/* MPI_Pcontrol (MPI standard: level 0 disables profiling, 1 enables it at
 * the normal level): 1 marks where the recording starts (the first
 * MPI_COMM_WORLD collective at or after the first such call, applied at
 * MPI_Finalize: start_cut), 0 ends it there (as the window ends it: cut
 * after the last MPI_COMM_WORLD collective every rank recorded). One region
 * per run: a 1 after a 0, or a second 1, is ignored; other levels are left
 * to the tools that define them. Not an MPI call for the compute gaps: the
 * gap runs on across it. */
int MPI_Pcontrol(const int level, ...)
{
    if (R.init && !R.finalized) {
        if (level == 1 && !R.mark && !R.mark_pending && !R.pc_stopped)
            R.mark_pending = 1;
        else if (level == 0 && !R.pc_stopped) {
            R.pc_stopped = 1;
            stop();
        }
    }
    return PMPI_Pcontrol(level);
}

int MPI_Abort(MPI_Comm comm, int code)
{
    dump_partial();
    return PMPI_Abort(comm, code);
}

/* point-to-point */

static int p2p_send(const char *kw, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    int w = world_of(comm, dest);
    if (w < 0 || !event())
        return 0;
    char cn[COMM_NAME_MAX];
    p2p_comm(comm, cn);
    p2p_line(kw, w, type_bytes(count, t), tag, cn);
    return 1;
}

#define SEND_WRAPPER(NAME)                                                                         \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm) \
    {                                                                                              \
        int on = enter();                                                                          \
        if (on)                                                                                    \
            p2p_send("send", count, t, dest, tag, comm);                                           \
        int rc = PMPI_##NAME(buf, count, t, dest, tag, comm);                                      \
        leave();                                                                                   \
        return rc;                                                                                 \
    }
SEND_WRAPPER(Send)
SEND_WRAPPER(Ssend)
SEND_WRAPPER(Bsend)
SEND_WRAPPER(Rsend)

#define ISEND_WRAPPER(NAME)                                                                        \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm, \
                   MPI_Request *req)                                                               \
    {                                                                                              \
        int on = enter();                                                                          \
        int rc = PMPI_##NAME(buf, count, t, dest, tag, comm, req);                                 \
        if (on && rc == MPI_SUCCESS && p2p_send("isend", count, t, dest, tag, comm))               \
            req_add(*req);                                                                         \
        leave();                                                                                   \
        return rc;                                                                                 \
    }
ISEND_WRAPPER(Isend)
ISEND_WRAPPER(Issend)
ISEND_WRAPPER(Ibsend)
ISEND_WRAPPER(Irsend)

int MPI_Recv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
             MPI_Status *st)
{
    int on = enter();
    MPI_Status mine;
    if (st == MPI_STATUS_IGNORE)
        st = &mine;
    int rc = PMPI_Recv(buf, count, t, src, tag, comm, st);
    if (on && rc == MPI_SUCCESS) {
        int n = 0;
        PMPI_Get_count(st, t, &n);
        int w = world_of(comm, st->MPI_SOURCE);
        if (w >= 0 && w != R.rank && event()) {
            char cn[COMM_NAME_MAX];
            p2p_comm(comm, cn);
            p2p_line("recv", w, type_bytes(n == MPI_UNDEFINED ? 0 : n, t), st->MPI_TAG, cn);
        }
    }
    leave();
    return rc;
}

/* the world rank a receive names: -2 for MPI_ANY_SOURCE, -1 when not
 * recordable (MPI_PROC_NULL, an inter-communicator) */
static int recv_peer(MPI_Comm comm, int src)
{
    if (src == MPI_PROC_NULL)
        return -1;
    return src == MPI_ANY_SOURCE ? -2 : world_of(comm, src);
}

/* the irecv line of a receive from w (recv_peer) with its tag (or
 * MPI_ANY_TAG) on the communicator named comm (p2p_comm: declared); returns
 * where it starts */
static size_t irecv_line(int w, long long bytes, int tag, const char *comm)
{
    size_t off = R.len;
    p2p_line("irecv", w, bytes, tag, comm);
    return off;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    int on = enter();
    int rc = PMPI_Irecv(buf, count, t, src, tag, comm, req);
    int w = on && rc == MPI_SUCCESS ? recv_peer(comm, src) : -1;
    if (w != -1 && event()) {
        char cn[COMM_NAME_MAX];
        p2p_comm(comm, cn);
        req_add_recv(*req, irecv_line(w, type_bytes(count, t), tag, cn), w, tag, comm);
    }
    leave();
    return rc;
}

/* persistent requests: MPI_Send_init & co. remember what the request sends
 * or receives; each MPI_Start/MPI_Startall then records it as the isend or
 * irecv it posts, completed like any other request */

static struct held *held_find(struct held_list *l, uintptr_t h)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].h == h)
            return &l->v[i];
    return NULL;
}

/* e under its handle (replacing what a reused handle stood for); when memory
 * runs out it is not kept, and what it stands for is left out of the trace */
static void held_put(struct held_list *l, struct held e)
{
    struct held *p = held_find(l, e.h);
    if (!p) {
        if (!array_room((void **)&l->v, &l->cap, l->n, sizeof *l->v, 16))
            return;
        p = &l->v[l->n++];
    }
    *p = e;
}

/* the entry of h, removed (into *out unless NULL); 0 when there is none */
static int held_take(struct held_list *l, uintptr_t h, struct held *out)
{
    struct held *p = held_find(l, h);
    if (!p)
        return 0;
    if (out)
        *out = *p;
    *p = l->v[--l->n];
    return 1;
}

/* what handle h stands for: a send (or receive) with peer, bytes and its
 * matching key, the communicator named as p2p_comm names it */
static struct held held_of(uintptr_t h, int send, int peer, long long bytes, int tag,
                           MPI_Comm comm)
{
    struct held e = {h, send, peer, bytes, tag, "", comm};
    p2p_comm(comm, e.comm);
    return e;
}

/* the isend/irecv a started persistent request posts */
static void pers_start(MPI_Request r)
{
    struct held *p = held_find(&R.pers, handle(r));
    if (!p || !event())
        return;
    if (p->send) {
        p2p_line("isend", p->peer, p->bytes, p->tag, p->comm);
        req_add(r);
    } else {
        req_add_recv(r, irecv_line(p->peer, p->bytes, p->tag, p->comm), p->peer, p->tag, p->c);
    }
}

#define SEND_INIT_WRAPPER(NAME)                                                                    \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm, \
                   MPI_Request *req)                                                               \
    {                                                                                              \
        int on = enter();                                                                          \
        int rc = PMPI_##NAME(buf, count, t, dest, tag, comm, req);                                 \
        int w = on && rc == MPI_SUCCESS ? world_of(comm, dest) : -1;                               \
        if (w >= 0)                                                                                \
            held_put(&R.pers, held_of(handle(*req), 1, w, type_bytes(count, t), tag, comm));       \
        leave();                                                                                   \
        return rc;                                                                                 \
    }
SEND_INIT_WRAPPER(Send_init)
SEND_INIT_WRAPPER(Ssend_init)
SEND_INIT_WRAPPER(Bsend_init)
SEND_INIT_WRAPPER(Rsend_init)

int MPI_Recv_init(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    int on = enter();
    int rc = PMPI_Recv_init(buf, count, t, src, tag, comm, req);
    int w = on && rc == MPI_SUCCESS ? recv_peer(comm, src) : -1;
    if (w != -1)
        held_put(&R.pers, held_of(handle(*req), 0, w, type_bytes(count, t), tag, comm));
    leave();
    return rc;
}

int MPI_Start(MPI_Request *req)
{
    int on = enter();
    int rc = PMPI_Start(req);
    if (on && rc == MPI_SUCCESS)
        pers_start(*req);
    leave();
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    int on = enter();
    int rc = PMPI_Startall(n, reqs);
    for (int i = 0; on && rc == MPI_SUCCESS && i < n; i++)
        pers_start(reqs[i]);
    leave();
    return rc;
}

int MPI_Request_free(MPI_Request *req)
{
    int on = enter();
    uintptr_t h = handle(*req);
    int rc = PMPI_Request_free(req);
    if (on && rc == MPI_SUCCESS) {
        held_take(&R.pers, h, NULL);
        req_del(h); /* freed while active: it completes on its own, unwaited */
    }
    leave();
    return rc;
}

/* probes: a failed MPI_Iprobe/MPI_Improbe is a poll (enter()); a matched
 * probe's message is recorded where MPI_Mrecv/MPI_Imrecv receives it, as the
 * recv/irecv of its source and size */

static uintptr_t msg_handle(MPI_Message m)
{
    return handle_bits(&m, sizeof m);
}

static void mprobed_add(MPI_Comm comm, MPI_Message m, const MPI_Status *st)
{
    int n = 0;
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC ||
        PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
        return;
    held_put(&R.mpr,
             held_of(msg_handle(m), 0, world_of(comm, st->MPI_SOURCE), n, st->MPI_TAG, comm));
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st)
{
    enter();
    int rc = PMPI_Iprobe(src, tag, comm, flag, st);
    leave_test(rc == MPI_SUCCESS && !*flag);
    return rc;
}

/* a blocking probe waits for its message: that time is the wait's, not the
 * next gap's compute (MUMPS probes before it receives) */
int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    enter();
    int rc = PMPI_Probe(src, tag, comm, st);
    leave();
    return rc;
}

int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    int on = enter();
    MPI_Status mine;
    if (st == MPI_STATUS_IGNORE)
        st = &mine;
    int rc = PMPI_Mprobe(src, tag, comm, msg, st);
    if (on && rc == MPI_SUCCESS)
        mprobed_add(comm, *msg, st);
    leave();
    return rc;
}

int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *st)
{
    int on = enter();
    MPI_Status mine;
    if (st == MPI_STATUS_IGNORE)
        st = &mine;
    int rc = PMPI_Improbe(src, tag, comm, flag, msg, st);
    if (on && rc == MPI_SUCCESS && *flag)
        mprobed_add(comm, *msg, st);
    leave_test(rc == MPI_SUCCESS && !*flag);
    return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype t, MPI_Message *msg, MPI_Status *st)
{
    int on = enter();
    uintptr_t h = msg_handle(*msg);
    int rc = PMPI_Mrecv(buf, count, t, msg, st);
    struct held e;
    if (on && rc == MPI_SUCCESS && held_take(&R.mpr, h, &e) && e.peer >= 0 &&
        e.peer != R.rank && event())
        p2p_line("recv", e.peer, e.bytes, e.tag, e.comm);
    leave();
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype t, MPI_Message *msg, MPI_Request *req)
{
    int on = enter();
    uintptr_t h = msg_handle(*msg);
    int rc = PMPI_Imrecv(buf, count, t, msg, req);
    struct held e;
    if (on && rc == MPI_SUCCESS && held_take(&R.mpr, h, &e) && e.peer >= 0 && event())
        req_add_recv(*req, irecv_line(e.peer, e.bytes, e.tag, e.comm), e.peer, e.tag, e.c);
    leave();
    return rc;
}

/* MPI_Sendrecv(_replace): an isend of sbytes to dest and an irecv of what
 * status says was received, then a waitall */
static void sendrecv_lines(MPI_Comm comm, int dest, long long sbytes, int stag,
                           const MPI_Status *status, MPI_Datatype rt)
{
    int wd = world_of(comm, dest), ws = world_of(comm, status->MPI_SOURCE), any = 0;
    char cn[COMM_NAME_MAX];
    p2p_comm(comm, cn);
    if (wd >= 0 && event())
        p2p_line("isend", wd, sbytes, stag, cn), any = 1;
    if (ws >= 0 && event()) {
        int n = 0;
        PMPI_Get_count(status, rt, &n);
        p2p_line("irecv", ws, type_bytes(n == MPI_UNDEFINED ? 0 : n, rt), status->MPI_TAG, cn);
        any = 1;
    }
    if (any && event())
        ap_s("waitall"), ap_i(R.rank), ap_s("\n");
}

int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int dest, int stag, void *rb, int rcount,
                 MPI_Datatype rt, int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
    int on = enter();
    MPI_Status mine;
    if (status == MPI_STATUS_IGNORE)
        status = &mine;
    int rc = PMPI_Sendrecv(sb, sc, st, dest, stag, rb, rcount, rt, src, rtag, comm, status);
    if (on && rc == MPI_SUCCESS)
        sendrecv_lines(comm, dest, type_bytes(sc, st), stag, status, rt);
    leave();
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype t, int dest, int stag, int src,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    int on = enter();
    MPI_Status mine;
    if (status == MPI_STATUS_IGNORE)
        status = &mine;
    int rc = PMPI_Sendrecv_replace(buf, count, t, dest, stag, src, rtag, comm, status);
    if (on && rc == MPI_SUCCESS)
        sendrecv_lines(comm, dest, type_bytes(count, t), stag, status, t);
    leave();
    return rc;
}

/* cancelled receives: MPI_Cancel on a recorded irecv that the cancel
 * catches before it matched (the request's status says so at once: a
 * receive's cancel is local) takes its line back from the buffer, since no
 * send will ever match it in the replay (HPC Challenge's RandomAccess posts
 * receives from MPI_ANY_SOURCE and cancels the last ones). A cancel still
 * pending at that point is not seen. */

/* Replace the line at off (n bytes with its newline) by s (m bytes): the
 * bytes after it move, and every offset past it (the receives' lines, the
 * window's cut points) with them. */
static void replace_line(size_t off, size_t n, const char *s, size_t m)
{
    if (m > n && !room(m - n))
        return;
    memmove(R.buf + off + m, R.buf + off + n, R.len - off - n);
    memcpy(R.buf + off, s, m);
    R.len = R.len - n + m;
    for (size_t i = 0; i < R.req_cap; i++)
        if (R.req[i] && R.req_off[i] != NO_LINE && R.req_off[i] > off)
            R.req_off[i] = R.req_off[i] - n + m;
    for (long k = 0; k < R.nwcut; k++)
        if (R.wcut[k] > off)
            R.wcut[k] = R.wcut[k] - n + m;
}

/* Remove the irecv line starting at off; the bytes after it move up, and
 * every offset past it (other receives' lines, the window's cut points)
 * with them. */
static void take_back_line(size_t off)
{
    if (off == NO_LINE || off >= R.len || R.len - off < 6 || memcmp(R.buf + off, "irecv ", 6) != 0)
        return;
    size_t n = line_len(off, R.len);
    if (R.buf[off + n - 1] == '\n') /* a whole line */
        replace_line(off, n, "", 0);
}

int MPI_Cancel(MPI_Request *req)
{
    int on = enter();
    uintptr_t h = handle(*req);
    int rc = PMPI_Cancel(req);
    size_t i = on && rc == MPI_SUCCESS ? req_slot(h) : SIZE_MAX;
    if (i != SIZE_MAX && R.req_off[i] != NO_LINE) {
        int flag = 0, cancelled = 0;
        MPI_Status st;
        if (PMPI_Request_get_status(*req, &flag, &st) == MPI_SUCCESS && flag &&
            PMPI_Test_cancelled(&st, &cancelled) == MPI_SUCCESS && cancelled) {
            take_back_line(R.req_off[i]);
            /* the rank's other requests may all have completed meanwhile:
             * then the trace waits for them here */
            completed(req_del(h));
        }
    }
    leave();
    return rc;
}

/* completion */

/* An irecv posted from MPI_ANY_SOURCE or with MPI_ANY_TAG, now matched
 * (st): its line names the source and tag that matched it, so that the
 * replay pairs the messages as the run did. Left as posted it could take,
 * in the replay, another message than the one it took (a solver's receive
 * from any source and any tag, posted early, took a message meant for a
 * later receive: MUMPS's replay deadlocked; session 67). Own rule. */
static void resolve_line(size_t off, MPI_Comm comm, const MPI_Status *st)
{
    if (comm == MPI_COMM_NULL || off == NO_LINE || off >= R.len || !st) /* not a wildcard */
        return;
    size_t n = line_len(off, R.len);
    char old[160], kw[8], src[16], cname[COMM_NAME_MAX] = "world";
    int me;
    long long bytes;
    if (n >= sizeof old || R.buf[off + n - 1] != '\n')
        return;
    memcpy(old, R.buf + off, n - 1);
    old[n - 1] = '\0';
    if (sscanf(old, "%7s %d %15s %lld", kw, &me, src, &bytes) != 4 || strcmp(kw, "irecv") != 0)
        return;
    const char *tg = strstr(old, " tag=");
    int any_src = strcmp(src, "any") == 0, any_tag = tg && strncmp(tg + 5, "any", 3) == 0;
    if (!any_src && !any_tag)
        return;
    int w = any_src ? world_of(comm, st->MPI_SOURCE) : atoi(src);
    if (w < 0 || st->MPI_TAG < 0)
        return;
    const char *at = tg ? strchr(tg, '@') : NULL;
    if (at)
        snprintf(cname, sizeof cname, "%s", at + 1);
    char line[160];
    int world = strcmp(cname, "world") == 0, m;
    if (st->MPI_TAG == 0 && world)
        m = snprintf(line, sizeof line, "irecv %d %d %lld\n", me, w, bytes);
    else
        m = snprintf(line, sizeof line, "irecv %d %d %lld tag=%d%s%s\n", me, w, bytes, st->MPI_TAG,
                     world ? "" : "@", world ? "" : cname);
    if (m > 0 && (size_t)m < sizeof line)
        replace_line(off, n, line, (size_t)m);
}

/* A recorded request completed with status st: removed (1), its line
 * resolved when it was a wildcard receive; 0 when it was not recorded. */
static int req_done(uintptr_t h, const MPI_Status *st)
{
    size_t i = req_slot(h);
    if (i == SIZE_MAX)
        return 0;
    size_t off = R.req_off[i];
    MPI_Comm c = R.req_comm[i];
    req_del(h);
    resolve_line(off, c, st);
    return 1;
}

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    int on = enter();
    uintptr_t h = handle(*req);
    MPI_Status mine;
    if (st == MPI_STATUS_IGNORE)
        st = &mine;
    int rc = PMPI_Wait(req, st);
    if (on)
        completed(req_done(h, rc == MPI_SUCCESS ? st : NULL));
    leave();
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    int on = enter();
    uintptr_t h = handle(*req);
    MPI_Status mine;
    if (st == MPI_STATUS_IGNORE)
        st = &mine;
    int rc = PMPI_Test(req, flag, st);
    if (on && *flag)
        completed(req_done(h, rc == MPI_SUCCESS ? st : NULL));
    leave_test(rc == MPI_SUCCESS && !*flag);
    return rc;
}

/* n statuses where the caller passed MPI_STATUSES_IGNORE (the recorder reads
 * a wildcard receive's source and tag): small on the stack, else allocated
 * (NULL: out of memory, the statuses stay ignored) */
static MPI_Status *statuses(int n, MPI_Status *sts, MPI_Status *small)
{
    if (sts != MPI_STATUSES_IGNORE)
        return sts;
    return n <= 64 ? small : malloc((size_t)n * sizeof *sts);
}

/* handles of n requests, before the call that may null them */
static uintptr_t *save(int n, const MPI_Request *reqs, uintptr_t *small)
{
    uintptr_t *h = n <= 64 ? small : malloc((size_t)n * sizeof *h);
    if (h)
        for (int i = 0; i < n; i++)
            h[i] = handle(reqs[i]);
    return h;
}

/* the i-th status of s (NULL: none to read) */
static const MPI_Status *st_at(const MPI_Status *s, int i)
{
    return s && s != MPI_STATUSES_IGNORE ? &s[i] : NULL;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    int on = enter();
    uintptr_t small[64], *h = on ? save(n, reqs, small) : NULL;
    MPI_Status ss[64], *s = on ? statuses(n, sts, ss) : sts;
    int rc = PMPI_Waitall(n, reqs, s ? s : sts);
    if (on && h) {
        int rm = 0;
        for (int i = 0; i < n; i++)
            rm |= req_done(h[i], rc == MPI_SUCCESS ? st_at(s, i) : NULL);
        completed(rm);
    }
    if (h != small)
        free(h);
    if (s != sts && s != ss)
        free(s);
    leave();
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    int on = enter();
    uintptr_t small[64], *h = on ? save(n, reqs, small) : NULL;
    MPI_Status ss[64], *s = on ? statuses(n, sts, ss) : sts;
    int rc = PMPI_Testall(n, reqs, flag, s ? s : sts);
    if (on && h && *flag) {
        int rm = 0;
        for (int i = 0; i < n; i++)
            rm |= req_done(h[i], rc == MPI_SUCCESS ? st_at(s, i) : NULL);
        completed(rm);
    }
    if (h != small)
        free(h);
    if (s != sts && s != ss)
        free(s);
    leave_test(rc == MPI_SUCCESS && !*flag);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
    int on = enter();
    uintptr_t small[64], *h = on ? save(n, reqs, small) : NULL;
    MPI_Status mine;
    if (st == MPI_STATUS_IGNORE)
        st = &mine;
    int rc = PMPI_Waitany(n, reqs, idx, st);
    if (on && h && *idx != MPI_UNDEFINED && *idx >= 0 && *idx < n)
        completed(req_done(h[*idx], rc == MPI_SUCCESS ? st : NULL));
    if (h != small)
        free(h);
    leave();
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *idx, int *flag, MPI_Status *st)
{
    int on = enter();
    uintptr_t small[64], *h = on ? save(n, reqs, small) : NULL;
    MPI_Status mine;
    if (st == MPI_STATUS_IGNORE)
        st = &mine;
    int rc = PMPI_Testany(n, reqs, idx, flag, st);
    if (on && h && *flag && *idx != MPI_UNDEFINED && *idx >= 0 && *idx < n)
        completed(req_done(h[*idx], rc == MPI_SUCCESS ? st : NULL));
    if (h != small)
        free(h);
    leave_test(rc == MPI_SUCCESS && !*flag);
    return rc;
}

/* Waitsome and Testsome: the completed ones (idx[0..out)). A macro that
 * reads h in the wrapper itself: gcc 14+ took a read through a const
 * pointer argument for a read of possibly unset 'small'. */
#define SOME_DONE(on, rc, h, n, out, idx, s)                                                       \
    do {                                                                                           \
        if (on) {                                                                                  \
            int rm_ = 0;                                                                           \
            for (int i_ = 0; (h) && *(out) != MPI_UNDEFINED && i_ < *(out); i_++)                  \
                if ((idx)[i_] >= 0 && (idx)[i_] < (n))                                             \
                    rm_ |= req_done((h)[(idx)[i_]], (rc) == MPI_SUCCESS ? st_at((s), i_) : NULL);  \
            completed(rm_);                                                                        \
        }                                                                                          \
    } while (0)

int MPI_Waitsome(int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    int on = enter();
    uintptr_t small[64], *h = on ? save(n, reqs, small) : NULL;
    MPI_Status ss[64], *s = on ? statuses(n, sts, ss) : sts;
    int rc = PMPI_Waitsome(n, reqs, out, idx, s ? s : sts);
    SOME_DONE(on, rc, h, n, out, idx, s);
    if (h != small)
        free(h);
    if (s != sts && s != ss)
        free(s);
    leave();
    return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    int on = enter();
    uintptr_t small[64], *h = on ? save(n, reqs, small) : NULL;
    MPI_Status ss[64], *s = on ? statuses(n, sts, ss) : sts;
    int rc = PMPI_Testsome(n, reqs, out, idx, s ? s : sts);
    SOME_DONE(on, rc, h, n, out, idx, s);
    if (h != small)
        free(h);
    if (s != sts && s != ss)
        free(s);
    leave_test(rc == MPI_SUCCESS && *out == 0);
    return rc;
}

/* communicator creation: each created communicator named by its number
 * among those with its members (created() above); the call's time stays
 * compute, as before these wrappers */

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *nc)
{
    return created(PMPI_Comm_dup(comm, nc), nc);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *nc)
{
    return created(PMPI_Comm_dup_with_info(comm, info, nc), nc);
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *nc, MPI_Request *req)
{
    int rc = PMPI_Comm_idup(comm, nc, req);
    comm_info *ci = rc == MPI_SUCCESS && R.init ? info_of(comm) : NULL;
    if (ci && !ci->inter) { /* the parent's members; named at first use */
        int k = next_of(ci->members, all_ranks(ci));
        if (array_room((void **)&pend, &pend_cap, npend, sizeof *pend, 8))
            pend[npend++] = (struct pending_dup){*nc, k};
    }
    return rc;
}

/* a communicator freed before its first use forgets its pending number (its
 * handle may be reused by a later one) */
int MPI_Comm_free(MPI_Comm *comm)
{
    for (size_t i = 0; comm && i < npend; i++)
        if (pend[i].comm == *comm) {
            pend[i] = pend[--npend];
            break;
        }
    return PMPI_Comm_free(comm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *nc)
{
    return created(PMPI_Comm_split(comm, color, key, nc), nc);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *nc)
{
    return created(PMPI_Comm_split_type(comm, type, key, info, nc), nc);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group g, MPI_Comm *nc)
{
    return created(PMPI_Comm_create(comm, g, nc), nc);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group g, int tag, MPI_Comm *nc)
{
    return created(PMPI_Comm_create_group(comm, g, tag, nc), nc);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *nc)
{
    return created(PMPI_Cart_create(comm, ndims, dims, periods, reorder, nc), nc);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *nc)
{
    return created(PMPI_Cart_sub(comm, remain, nc), nc);
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *nc)
{
    return created(PMPI_Graph_create(comm, nnodes, index, edges, reorder, nc), nc);
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                          const int dests[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *nc)
{
    return created(
        PMPI_Dist_graph_create(comm, n, sources, degrees, dests, weights, info, reorder, nc), nc);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indeg, const int sources[],
                                   const int sweights[], int outdeg, const int dests[],
                                   const int dweights[], MPI_Info info, int reorder,
                                   MPI_Comm *nc)
{
    return created(PMPI_Dist_graph_create_adjacent(comm, indeg, sources, sweights, outdeg, dests,
                                                   dweights, info, reorder, nc),
                   nc);
}

/* collectives */

static int coll_begin(MPI_Comm comm, comm_info **ci)
{
    *ci = info_of(comm);
    return *ci && !(*ci)->inter;
}

static void coll(const char *kw, comm_info *ci, MPI_Comm comm, int root, long long bytes)
{
    if (!event())
        return;
    declare(ci);
    ap_s(kw);
    ap_i(R.rank);
    ap_s(" ");
    ap_s(ci->name);
    if (root >= 0)
        ap_i(world_of(comm, root));
    if (bytes >= 0)
        ap_i(bytes);
    ap_s("\n");
    if (R.on && ci->size == R.size && strcmp(ci->name, "world") == 0) {
        if (!array_room((void **)&R.wcut, &R.wcut_cap, (size_t)R.nwcut, sizeof *R.wcut, 1024)) {
            stop();
            return;
        }
        R.wcut[R.nwcut++] = R.len;
        if (R.mark_pending) {
            R.mark = R.nwcut;
            R.mark_pending = 0;
        }
    }
}

static int my_rank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

#define COLL_RUN(CALL, RECORD)                                                                     \
    do {                                                                                           \
        comm_info *ci = NULL;                                                                      \
        int on = enter() && coll_begin(comm, &ci);                                                 \
        if (on) {                                                                                  \
            RECORD;                                                                                \
        }                                                                                          \
        int rc = CALL;                                                                             \
        leave();                                                                                   \
        return rc;                                                                                 \
    } while (0)

/* bytes each rank contributes, as the trace's collective lines count them
 * (doc/trace-format.md "Collectives"), MPI_IN_PLACE handled: the blocking
 * and the non-blocking wrappers share these */
static long long gather_bytes(const void *sb, int sc, MPI_Datatype st, int rc_, MPI_Datatype rt)
{
    return sb == MPI_IN_PLACE ? type_bytes(rc_, rt) : type_bytes(sc, st);
}

static long long scatter_bytes(const void *rb, int sc, MPI_Datatype st, int rc_, MPI_Datatype rt)
{
    return rb == MPI_IN_PLACE ? type_bytes(sc, st) : type_bytes(rc_, rt);
}

static long long gatherv_bytes(const void *sb, int sc, MPI_Datatype st, const int rcs[],
                               MPI_Datatype rt, MPI_Comm comm)
{
    return sb == MPI_IN_PLACE ? type_bytes(rcs[my_rank(comm)], rt) : type_bytes(sc, st);
}

static long long scatterv_bytes(const void *rb, const int scs[], MPI_Datatype st, int rc_,
                                MPI_Datatype rt, MPI_Comm comm)
{
    return rb == MPI_IN_PLACE ? type_bytes(scs[my_rank(comm)], st) : type_bytes(rc_, rt);
}

/* bytes to (or from) the other ranks of a v-collective: counts[i] of t, or
 * of types[i] where types is given (a w-collective) */
static long long v_total(const int *counts, MPI_Datatype t, const MPI_Datatype *types,
                         MPI_Comm comm, int size)
{
    int me = my_rank(comm);
    long long s = 0;
    for (int i = 0; i < size; i++)
        if (i != me)
            s += type_bytes(counts[i], types ? types[i] : t);
    return s;
}

static long long alltoallv_bytes(const void *sb, const int scs[], MPI_Datatype st,
                                 const int rcs[], MPI_Datatype rt, MPI_Comm comm, int size)
{
    return sb == MPI_IN_PLACE ? v_total(rcs, rt, NULL, comm, size)
                              : v_total(scs, st, NULL, comm, size);
}

int MPI_Barrier(MPI_Comm comm)
{
    COLL_RUN(PMPI_Barrier(comm), coll("barrier", ci, comm, -1, -1));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    COLL_RUN(PMPI_Bcast(buf, count, t, root, comm),
             coll("bcast", ci, comm, root, type_bytes(count, t)));
}

int MPI_Reduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, int root,
               MPI_Comm comm)
{
    COLL_RUN(PMPI_Reduce(sb, rb, count, t, op, root, comm),
             coll("reduce", ci, comm, root, type_bytes(count, t)));
}

/* MPI_Reduce_scatter(_block): recorded as what a library's basic algorithm
 * does, a reduce of every rank's whole vector to rank 0 and a scatterv of
 * each rank's block (Open MPI's basic component; the trace has no
 * reduce-scatter event): two collective lines */
static void reduce_scatter(comm_info *ci, MPI_Comm comm, const int *counts, int count,
                           MPI_Datatype t)
{
    long long total = 0, mine = 0;
    int me = my_rank(comm);
    if (counts) {
        for (int i = 0; i < ci->size; i++)
            total += type_bytes(counts[i], t);
        mine = type_bytes(counts[me], t);
    } else {
        mine = type_bytes(count, t);
        total = mine * ci->size;
    }
    coll("reduce", ci, comm, 0, total);
    coll("scatterv", ci, comm, 0, mine);
}

int MPI_Reduce_scatter(const void *sb, void *rb, const int rcs[], MPI_Datatype t, MPI_Op op,
                       MPI_Comm comm)
{
    COLL_RUN(PMPI_Reduce_scatter(sb, rb, rcs, t, op, comm), reduce_scatter(ci, comm, rcs, 0, t));
}

int MPI_Reduce_scatter_block(const void *sb, void *rb, int rc_, MPI_Datatype t, MPI_Op op,
                             MPI_Comm comm)
{
    COLL_RUN(PMPI_Reduce_scatter_block(sb, rb, rc_, t, op, comm),
             reduce_scatter(ci, comm, NULL, rc_, t));
}

/* MPI_Scan and MPI_Exscan: every member's vector (doc/trace-format.md) */
int MPI_Scan(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    COLL_RUN(PMPI_Scan(sb, rb, count, t, op, comm),
             coll("scan", ci, comm, -1, type_bytes(count, t)));
}

int MPI_Exscan(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    COLL_RUN(PMPI_Exscan(sb, rb, count, t, op, comm),
             coll("exscan", ci, comm, -1, type_bytes(count, t)));
}

int MPI_Allreduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    COLL_RUN(PMPI_Allreduce(sb, rb, count, t, op, comm),
             coll("allreduce", ci, comm, -1, type_bytes(count, t)));
}

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
               int root, MPI_Comm comm)
{
    COLL_RUN(PMPI_Gather(sb, sc, st, rb, rc_, rt, root, comm),
             coll("gather", ci, comm, root, gather_bytes(sb, sc, st, rc_, rt)));
}

int MPI_Gatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                const int displs[], MPI_Datatype rt, int root, MPI_Comm comm)
{
    COLL_RUN(PMPI_Gatherv(sb, sc, st, rb, rcs, displs, rt, root, comm),
             coll("gatherv", ci, comm, root, gatherv_bytes(sb, sc, st, rcs, rt, comm)));
}

int MPI_Scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                int root, MPI_Comm comm)
{
    COLL_RUN(PMPI_Scatter(sb, sc, st, rb, rc_, rt, root, comm),
             coll("scatter", ci, comm, root, scatter_bytes(rb, sc, st, rc_, rt)));
}

int MPI_Scatterv(const void *sb, const int scs[], const int displs[], MPI_Datatype st, void *rb,
                 int rc_, MPI_Datatype rt, int root, MPI_Comm comm)
{
    COLL_RUN(PMPI_Scatterv(sb, scs, displs, st, rb, rc_, rt, root, comm),
             coll("scatterv", ci, comm, root, scatterv_bytes(rb, scs, st, rc_, rt, comm)));
}

int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                  MPI_Comm comm)
{
    COLL_RUN(PMPI_Allgather(sb, sc, st, rb, rc_, rt, comm),
             coll("allgather", ci, comm, -1, gather_bytes(sb, sc, st, rc_, rt)));
}

int MPI_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                   const int displs[], MPI_Datatype rt, MPI_Comm comm)
{
    COLL_RUN(PMPI_Allgatherv(sb, sc, st, rb, rcs, displs, rt, comm),
             coll("allgatherv", ci, comm, -1, gatherv_bytes(sb, sc, st, rcs, rt, comm)));
}

int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                 MPI_Comm comm)
{
    COLL_RUN(PMPI_Alltoall(sb, sc, st, rb, rc_, rt, comm),
             coll("alltoall", ci, comm, -1, gather_bytes(sb, sc, st, rc_, rt)));
}

int MPI_Alltoallv(const void *sb, const int scs[], const int sd[], MPI_Datatype st, void *rb,
                  const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    COLL_RUN(PMPI_Alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm),
             coll("alltoallv", ci, comm, -1,
                  alltoallv_bytes(sb, scs, st, rcs, rt, comm, ci->size)));
}

/* MPI_Alltoallw: an alltoallv line, its bytes to the other ranks summed
 * over their own types (counts[i] of types[i]) */
static long long alltoallw_bytes(const void *sb, const int scs[], const MPI_Datatype sts[],
                                 const int rcs[], const MPI_Datatype rts[], MPI_Comm comm,
                                 int size)
{
    return sb == MPI_IN_PLACE ? v_total(rcs, MPI_DATATYPE_NULL, rts, comm, size)
                              : v_total(scs, MPI_DATATYPE_NULL, sts, comm, size);
}

int MPI_Alltoallw(const void *sb, const int scs[], const int sd[], const MPI_Datatype sts[],
                  void *rb, const int rcs[], const int rd[], const MPI_Datatype rts[],
                  MPI_Comm comm)
{
    COLL_RUN(PMPI_Alltoallw(sb, scs, sd, sts, rb, rcs, rd, rts, comm),
             coll("alltoallv", ci, comm, -1,
                  alltoallw_bytes(sb, scs, sts, rcs, rts, comm, ci->size)));
}

/* non-blocking collectives: written as the blocking collective, where they
 * are posted. The replay completes one before the rank goes on, so work a
 * code overlaps with it is not overlapped there; the program's wait for its
 * request (a Wait, or a polling loop: enter()) adds no compute. This makes
 * the synchronisation of a polled MPI_Ibarrier/MPI_Iallreduce part of the
 * trace (left out, the ranks of a recorded step start it as skewed as the
 * recording's first gaps left them). */

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Ibarrier(comm, req), coll("barrier", ci, comm, -1, -1));
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Ibcast(buf, count, t, root, comm, req),
             coll("bcast", ci, comm, root, type_bytes(count, t)));
}

int MPI_Ireduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Ireduce(sb, rb, count, t, op, root, comm, req),
             coll("reduce", ci, comm, root, type_bytes(count, t)));
}

int MPI_Iallreduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req)
{
    COLL_RUN(PMPI_Iallreduce(sb, rb, count, t, op, comm, req),
             coll("allreduce", ci, comm, -1, type_bytes(count, t)));
}

int MPI_Ireduce_scatter(const void *sb, void *rb, const int rcs[], MPI_Datatype t, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Ireduce_scatter(sb, rb, rcs, t, op, comm, req),
             reduce_scatter(ci, comm, rcs, 0, t));
}

int MPI_Ireduce_scatter_block(const void *sb, void *rb, int rc_, MPI_Datatype t, MPI_Op op,
                              MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Ireduce_scatter_block(sb, rb, rc_, t, op, comm, req),
             reduce_scatter(ci, comm, NULL, rc_, t));
}

int MPI_Iscan(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
              MPI_Request *req)
{
    COLL_RUN(PMPI_Iscan(sb, rb, count, t, op, comm, req),
             coll("scan", ci, comm, -1, type_bytes(count, t)));
}

int MPI_Iexscan(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                MPI_Request *req)
{
    COLL_RUN(PMPI_Iexscan(sb, rb, count, t, op, comm, req),
             coll("exscan", ci, comm, -1, type_bytes(count, t)));
}

int MPI_Igather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                int root, MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Igather(sb, sc, st, rb, rc_, rt, root, comm, req),
             coll("gather", ci, comm, root, gather_bytes(sb, sc, st, rc_, rt)));
}

int MPI_Igatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                 const int displs[], MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Igatherv(sb, sc, st, rb, rcs, displs, rt, root, comm, req),
             coll("gatherv", ci, comm, root, gatherv_bytes(sb, sc, st, rcs, rt, comm)));
}

int MPI_Iscatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                 int root, MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Iscatter(sb, sc, st, rb, rc_, rt, root, comm, req),
             coll("scatter", ci, comm, root, scatter_bytes(rb, sc, st, rc_, rt)));
}

int MPI_Iscatterv(const void *sb, const int scs[], const int displs[], MPI_Datatype st, void *rb,
                  int rc_, MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Iscatterv(sb, scs, displs, st, rb, rc_, rt, root, comm, req),
             coll("scatterv", ci, comm, root, scatterv_bytes(rb, scs, st, rc_, rt, comm)));
}

int MPI_Iallgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                   MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Iallgather(sb, sc, st, rb, rc_, rt, comm, req),
             coll("allgather", ci, comm, -1, gather_bytes(sb, sc, st, rc_, rt)));
}

int MPI_Iallgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                    const int displs[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Iallgatherv(sb, sc, st, rb, rcs, displs, rt, comm, req),
             coll("allgatherv", ci, comm, -1, gatherv_bytes(sb, sc, st, rcs, rt, comm)));
}

int MPI_Ialltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                  MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Ialltoall(sb, sc, st, rb, rc_, rt, comm, req),
             coll("alltoall", ci, comm, -1, gather_bytes(sb, sc, st, rc_, rt)));
}

int MPI_Ialltoallv(const void *sb, const int scs[], const int sd[], MPI_Datatype st, void *rb,
                   const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request *req)
{
    COLL_RUN(PMPI_Ialltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm, req),
             coll("alltoallv", ci, comm, -1,
                  alltoallv_bytes(sb, scs, st, rcs, rt, comm, ci->size)));
}

int MPI_Ialltoallw(const void *sb, const int scs[], const int sd[], const MPI_Datatype sts[],
                   void *rb, const int rcs[], const int rd[], const MPI_Datatype rts[],
                   MPI_Comm comm, MPI_Request *req)
{
    COLL_RUN(PMPI_Ialltoallw(sb, scs, sd, sts, rb, rcs, rd, rts, comm, req),
             coll("alltoallv", ci, comm, -1,
                  alltoallw_bytes(sb, scs, sts, rcs, rts, comm, ci->size)));
}

/* Neighbourhood collectives (MPI 4.1 §8.6): written as what they do, an
 * irecv from each source and an isend to each destination of the
 * communicator's topology (in the standard's order: for a Cartesian one,
 * each dimension's negative then positive neighbour; MPI_PROC_NULL left
 * out), then a waitall, as Open MPI's basic component posts them. Their
 * messages are matched on NAME.nbr, a communicator of the same members
 * declared for them, so they never match the program's own point-to-point
 * messages on NAME (a collective has its own context, MPI 4.1 §7.1.2). The
 * non-blocking forms are written alike where they are posted. Own rule. */
struct nbrs {
    int nin, nout, *in, *out; /* ranks in the communicator */
    comm_info *ci;
};

static void nbrs_free(struct nbrs *n)
{
    free(n->in);
    free(n->out);
}

static int nbrs_of(MPI_Comm comm, struct nbrs *n)
{
    memset(n, 0, sizeof *n);
    int topo = MPI_UNDEFINED;
    n->ci = info_of(comm);
    if (!n->ci || n->ci->inter || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        n->nin = n->nout = 2 * nd;
        n->in = malloc((size_t)(2 * nd + 1) * sizeof *n->in);
        n->out = malloc((size_t)(2 * nd + 1) * sizeof *n->out);
        for (int d = 0; n->in && n->out && d < nd; d++) {
            PMPI_Cart_shift(comm, d, 1, &n->in[2 * d], &n->in[2 * d + 1]);
            n->out[2 * d] = n->in[2 * d], n->out[2 * d + 1] = n->in[2 * d + 1];
        }
    } else if (topo == MPI_GRAPH) {
        int me = my_rank(comm), k = 0;
        PMPI_Graph_neighbors_count(comm, me, &k);
        n->nin = n->nout = k;
        n->in = malloc((size_t)(k + 1) * sizeof *n->in);
        n->out = malloc((size_t)(k + 1) * sizeof *n->out);
        if (n->in && n->out) {
            PMPI_Graph_neighbors(comm, me, k, n->in);
            memcpy(n->out, n->in, (size_t)k * sizeof *n->in);
        }
    } else if (topo == MPI_DIST_GRAPH) {
        int w = 0;
        PMPI_Dist_graph_neighbors_count(comm, &n->nin, &n->nout, &w);
        n->in = malloc((size_t)(n->nin + 1) * sizeof *n->in);
        n->out = malloc((size_t)(n->nout + 1) * sizeof *n->out);
        int *wi = w ? malloc((size_t)(n->nin + 1) * sizeof *wi) : NULL;
        int *wo = w ? malloc((size_t)(n->nout + 1) * sizeof *wo) : NULL;
        if (n->in && n->out && (!w || (wi && wo)))
            PMPI_Dist_graph_neighbors(comm, n->nin, n->in, w ? wi : MPI_UNWEIGHTED, n->nout,
                                      n->out, w ? wo : MPI_UNWEIGHTED);
        else
            n->nin = n->nout = 0;
        free(wi);
        free(wo);
    } else {
        return 0;
    }
    if (!n->in || !n->out) {
        nbrs_free(n);
        return 0;
    }
    return 1;
}

/* what comes from source i (or goes to destination i) of a neighbourhood
 * collective: counts[i] elements, or count where counts is NULL, of
 * types[i], or type where types is NULL */
struct nb_part {
    int count;
    const int *counts;
    MPI_Datatype type;
    const MPI_Datatype *types;
};

static long long nb_bytes(const struct nb_part *p, int i)
{
    return type_bytes(p->counts ? p->counts[i] : p->count, p->types ? p->types[i] : p->type);
}

/* the lines: r from each source, s to each destination */
static void nbr_lines(MPI_Comm comm, const struct nbrs *n, const struct nb_part *r,
                      const struct nb_part *s)
{
    char cn[COMM_NAME_MAX];
    int any = 0;
    declare_as(n->ci, ".nbr", &n->ci->nbr_declared);
    snprintf(cn, sizeof cn, "%.35s.nbr", n->ci->name);
    for (int i = 0; i < n->nin; i++) {
        int w = world_of(comm, n->in[i]);
        if (w >= 0 && event())
            p2p_line("irecv", w, nb_bytes(r, i), 0, cn), any = 1;
    }
    for (int i = 0; i < n->nout; i++) {
        int w = world_of(comm, n->out[i]);
        if (w >= 0 && event())
            p2p_line("isend", w, nb_bytes(s, i), 0, cn), any = 1;
    }
    if (any && event())
        ap_s("waitall"), ap_i(R.rank), ap_s("\n");
}

#define NBR_RUN(CALL, R, S)                                                                        \
    do {                                                                                           \
        int on = enter();                                                                          \
        struct nbrs nb;                                                                            \
        if (on && nbrs_of(comm, &nb)) {                                                            \
            nbr_lines(comm, &nb, R, S);                                                            \
            nbrs_free(&nb);                                                                        \
        }                                                                                          \
        int rc = CALL;                                                                             \
        leave();                                                                                   \
        return rc;                                                                                 \
    } while (0)

int MPI_Neighbor_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_,
                           MPI_Datatype rt, MPI_Comm comm)
{
    struct nb_part s = {.count = sc, .type = st}, r = {.count = rc_, .type = rt};
    NBR_RUN(PMPI_Neighbor_allgather(sb, sc, st, rb, rc_, rt, comm), &r, &s);
}

int MPI_Ineighbor_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_,
                            MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    struct nb_part s = {.count = sc, .type = st}, r = {.count = rc_, .type = rt};
    NBR_RUN(PMPI_Ineighbor_allgather(sb, sc, st, rb, rc_, rt, comm, req), &r, &s);
}

int MPI_Neighbor_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                            const int displs[], MPI_Datatype rt, MPI_Comm comm)
{
    struct nb_part s = {.count = sc, .type = st}, r = {.counts = rcs, .type = rt};
    NBR_RUN(PMPI_Neighbor_allgatherv(sb, sc, st, rb, rcs, displs, rt, comm), &r, &s);
}

int MPI_Ineighbor_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                             const int displs[], MPI_Datatype rt, MPI_Comm comm,
                             MPI_Request *req)
{
    struct nb_part s = {.count = sc, .type = st}, r = {.counts = rcs, .type = rt};
    NBR_RUN(PMPI_Ineighbor_allgatherv(sb, sc, st, rb, rcs, displs, rt, comm, req), &r, &s);
}

int MPI_Neighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_,
                          MPI_Datatype rt, MPI_Comm comm)
{
    struct nb_part s = {.count = sc, .type = st}, r = {.count = rc_, .type = rt};
    NBR_RUN(PMPI_Neighbor_alltoall(sb, sc, st, rb, rc_, rt, comm), &r, &s);
}

int MPI_Ineighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_,
                           MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    struct nb_part s = {.count = sc, .type = st}, r = {.count = rc_, .type = rt};
    NBR_RUN(PMPI_Ineighbor_alltoall(sb, sc, st, rb, rc_, rt, comm, req), &r, &s);
}

int MPI_Neighbor_alltoallv(const void *sb, const int scs[], const int sd[], MPI_Datatype st,
                           void *rb, const int rcs[], const int rd[], MPI_Datatype rt,
                           MPI_Comm comm)
{
    struct nb_part s = {.counts = scs, .type = st}, r = {.counts = rcs, .type = rt};
    NBR_RUN(PMPI_Neighbor_alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm), &r, &s);
}

int MPI_Ineighbor_alltoallv(const void *sb, const int scs[], const int sd[], MPI_Datatype st,
                            void *rb, const int rcs[], const int rd[], MPI_Datatype rt,
                            MPI_Comm comm, MPI_Request *req)
{
    struct nb_part s = {.counts = scs, .type = st}, r = {.counts = rcs, .type = rt};
    NBR_RUN(PMPI_Ineighbor_alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm, req), &r, &s);
}

int MPI_Neighbor_alltoallw(const void *sb, const int scs[], const MPI_Aint sd[],
                           const MPI_Datatype sts[], void *rb, const int rcs[],
                           const MPI_Aint rd[], const MPI_Datatype rts[], MPI_Comm comm)
{
    struct nb_part s = {.counts = scs, .types = sts}, r = {.counts = rcs, .types = rts};
    NBR_RUN(PMPI_Neighbor_alltoallw(sb, scs, sd, sts, rb, rcs, rd, rts, comm), &r, &s);
}

int MPI_Ineighbor_alltoallw(const void *sb, const int scs[], const MPI_Aint sd[],
                            const MPI_Datatype sts[], void *rb, const int rcs[],
                            const MPI_Aint rd[], const MPI_Datatype rts[], MPI_Comm comm,
                            MPI_Request *req)
{
    struct nb_part s = {.counts = scs, .types = sts}, r = {.counts = rcs, .types = rts};
    NBR_RUN(PMPI_Ineighbor_alltoallw(sb, scs, sd, sts, rb, rcs, rd, rts, comm, req), &r, &s);
}
