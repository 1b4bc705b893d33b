/* The recorder's Fortran bindings (doc/recorder.md "Fortran programs"): the
 * mpif.h and `use mpi` entry points (gfortran's, Intel's and flang's names:
 * lower case, one trailing underscore) of every call record.c records.
 *
 * Why: an MPI library's Fortran bindings call its C PMPI_ functions, not
 * MPI_ ones (Open MPI's do), so a C interposer sees nothing of a Fortran
 * program, not even MPI_Init: it recorded nothing (session 67). Each entry
 * here converts its arguments to C (handles through the MPI standard's
 * MPI_*_f2c, the Fortran MPI_IN_PLACE and MPI_BOTTOM to C's, 1-based
 * indices, LOGICAL flags), calls the C MPI_ function, which is record.c's
 * (it records and calls PMPI_), and converts the results back, as the MPI
 * standard allows an MPI library's own Fortran bindings to be written.
 *
 * The Fortran MPI_IN_PLACE and MPI_BOTTOM are addresses only the MPI library
 * knows: Open MPI's common blocks (mpi_fortran_in_place_, ...) or MPICH's
 * MPIR_F_MPI_IN_PLACE pointer, found with dlsym. Where neither is found, every
 * entry passes its call on unchanged to the library's own (dlsym RTLD_NEXT)
 * and nothing is recorded, with one line saying why: a recorder must not
 * change what a program computes. CONTENTION_RECORD_FORTRAN=off does the
 * same on purpose (a way out should an MPI's bindings differ). MPI_F_STATUS(ES)_IGNORE are the standard's
 * C constants for the Fortran ones.
 *
 * Not here: the mpi_f08 module (its entries, mpi_*_f08_, take derived types
 * and optional arguments whose passing is the compiler's); its MPI_Init is
 * passed on with one line saying the program is not recorded. */
#define _GNU_SOURCE /* RTLD_NEXT, RTLD_DEFAULT */
#include <mpi.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fortran INTEGER arrays (counts, displacements, indices) are passed to C as
 * they are, and a non-blocking collective's must stay valid until it
 * completes: no copies */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not a C int");

/* the Fortran MPI_STATUS_SIZE: MPI 4.0's C constant, or before it (Open MPI
 * 4.1) the C status's size in INTEGERs, which is how Open MPI and MPICH
 * define it */
#ifndef MPI_F_STATUS_SIZE
#define MPI_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

/* ----------------------------------------------------- the MPI's constants */

static struct {
    int state; /* 0: not looked for; 1: found; -1: not found (pass calls on) */
    void *in_place, *bottom;
} F;

/* the address of the first of names the process has (a data symbol) */
static void *sym(const char *const *names)
{
    for (; *names; names++) {
        void *p = dlsym(RTLD_DEFAULT, *names);
        if (p)
            return p;
    }
    return NULL;
}

/* MPICH keeps the addresses in pointer variables its Fortran init sets */
static void *sym_ptr(const char *name)
{
    void **p = dlsym(RTLD_DEFAULT, name);
    return p ? *p : NULL;
}

static int fortran_ok(void)
{
    if (F.state)
        return F.state > 0;
    const char *off = getenv("CONTENTION_RECORD_FORTRAN");
    if (off && strcmp(off, "off") == 0) { /* the user's way out: calls passed on */
        F.state = -1;
        if (getenv("CONTENTION_RECORD_FILE"))
            fprintf(stderr, "contention-record: CONTENTION_RECORD_FORTRAN=off: the Fortran "
                            "calls are passed on unrecorded\n");
        return 0;
    }
    static const char *const in_place[] = {"mpi_fortran_in_place_", "mpi_fortran_in_place",
                                           "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE", NULL};
    static const char *const bottom[] = {"mpi_fortran_bottom_", "mpi_fortran_bottom",
                                         "mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM", NULL};
    F.in_place = sym(in_place);
    F.bottom = sym(bottom);
    if (!F.in_place)
        F.in_place = sym_ptr("MPIR_F_MPI_IN_PLACE");
    if (!F.bottom)
        F.bottom = sym_ptr("MPIR_F_MPI_BOTTOM");
    F.state = F.in_place && F.bottom ? 1 : -1;
    if (F.state < 0 && getenv("CONTENTION_RECORD_FILE"))
        fprintf(stderr, "contention-record: this MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM were "
                        "not found (Open MPI's mpi_fortran_in_place_ or MPICH's "
                        "MPIR_F_MPI_IN_PLACE): the Fortran calls are passed on unrecorded\n");
    return F.state > 0;
}

/* a Fortran buffer argument as C sees it */
static void *cbuf(void *p)
{
    if (p == F.in_place)
        return MPI_IN_PLACE;
    if (p == F.bottom)
        return MPI_BOTTOM;
    return p;
}

static void ret(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

static void st_out(const MPI_Status *c, MPI_Fint *f)
{
    if (f != MPI_F_STATUS_IGNORE)
        MPI_Status_c2f(c, f);
}

/* n statuses back into a Fortran STATUS(MPI_STATUS_SIZE, n) array */
static void sts_out(const MPI_Status *c, MPI_Fint *f, int n)
{
    for (int i = 0; f != MPI_F_STATUSES_IGNORE && i < n; i++)
        MPI_Status_c2f(&c[i], f + (size_t)i * MPI_F_STATUS_SIZE);
}

/* n requests (and statuses) in C: on the stack for a few, else allocated */
struct reqs {
    MPI_Request *r, small_r[16];
    MPI_Status *s, small_s[16];
};

static int reqs_in(struct reqs *q, int n, const MPI_Fint *f)
{
    q->r = q->small_r, q->s = q->small_s;
    if (n > 16) {
        q->r = malloc((size_t)n * sizeof *q->r);
        q->s = malloc((size_t)n * sizeof *q->s);
        if (!q->r || !q->s) {
            free(q->r), free(q->s);
            return 0;
        }
    }
    for (int i = 0; i < n; i++)
        q->r[i] = MPI_Request_f2c(f[i]);
    return 1;
}

static void reqs_out(struct reqs *q, int n, MPI_Fint *f)
{
    for (int i = 0; i < n; i++)
        f[i] = MPI_Request_c2f(q->r[i]);
    if (q->r != q->small_r)
        free(q->r), free(q->s);
}

/* ------------------------------------------------------------- entries */

/* The MPI library's own entry sym, the next definition after this
 * library's; there is one (the program calls it), and without it the
 * program cannot go on. */
static void *next_entry(const char *sym)
{
    void *p = dlsym(RTLD_NEXT, sym);
    if (!p) {
        fprintf(stderr, "contention-record: no %s behind the recorder\n", sym);
        abort();
    }
    return p;
}

/* `next`, the MPI's own entry SYM of parameters P, looked up once */
#define F_NEXT(P, SYM)                                                                             \
    static void(*next) P;                                                                          \
    if (!next)                                                                                     \
    *(void **)&next = next_entry(SYM)

/* Each entry: `void NAME_ P` converts and calls the C binding when the
 * constants are known, else passes its arguments on to the MPI's own NAME_. */
#define F_ENTRY(NAME, P, A)                                                                        \
    void NAME##_ P;                                                                                \
    void NAME##_ P                                                                                 \
    {                                                                                              \
        if (fortran_ok()) {                                                                        \
            f_##NAME A;                                                                            \
            return;                                                                                \
        }                                                                                          \
        F_NEXT(P, #NAME "_");                                                                      \
        next A;                                                                                    \
    }

/* a Fortran INTEGER argument (by reference); a communicator argument in C */
#define I MPI_Fint *
#define C(x) MPI_Comm_f2c(*(x))

/* start and end: the MPI library's own Fortran MPI_Init (it sets up what
 * its Fortran constants need: MPICH's are set there), then the recording
 * starts (record.c) where the constants were found */

void ct_record_start(void);

#define F_INIT(NAME, P, A)                                                                         \
    void NAME##_ P;                                                                                \
    void NAME##_ P                                                                                 \
    {                                                                                              \
        F_NEXT(P, #NAME "_");                                                                      \
        next A;                                                                                    \
        if (*ierr == MPI_SUCCESS && fortran_ok())                                                  \
            ct_record_start();                                                                     \
    }
F_INIT(mpi_init, (I ierr), (ierr))
F_INIT(mpi_init_thread, (I req, I prov, I ierr), (req, prov, ierr))

static void f_mpi_finalize(I ierr) { ret(ierr, MPI_Finalize()); }
F_ENTRY(mpi_finalize, (I ierr), (ierr))

/* MPI_PCONTROL(LEVEL) has no IERROR in Fortran */
static void f_mpi_pcontrol(I level) { MPI_Pcontrol(*level); }
F_ENTRY(mpi_pcontrol, (I level), (level))

static void f_mpi_abort(I comm, I code, I ierr) { ret(ierr, MPI_Abort(MPI_Comm_f2c(*comm), *code)); }
F_ENTRY(mpi_abort, (I comm, I code, I ierr), (comm, code, ierr))

/* communicator creation (record.c names each created communicator by its
 * number among those with its members: the same names as in C) */

/* the new communicator back to Fortran (by address: read after the call
 * that sets it, whatever order the arguments are evaluated in) */
static void comm_out(int rc, const MPI_Comm *c, I nc, I ierr)
{
    if (rc == MPI_SUCCESS)
        *nc = MPI_Comm_c2f(*c);
    ret(ierr, rc);
}

/* n LOGICALs as C ints (.TRUE. is 1 with gfortran, -1 with Intel's) */
static int *logicals(const MPI_Fint *f, int n, int *small, int nsmall)
{
    int *c = n <= nsmall ? small : malloc((size_t)n * sizeof *c);
    for (int i = 0; c && i < n; i++)
        c[i] = f[i] != 0;
    return c;
}

static void f_mpi_comm_dup(I comm, I nc, I ierr)
{
    MPI_Comm c;
    comm_out(MPI_Comm_dup(C(comm), &c), &c, nc, ierr);
}
F_ENTRY(mpi_comm_dup, (I comm, I nc, I ierr), (comm, nc, ierr))

static void f_mpi_comm_dup_with_info(I comm, I info, I nc, I ierr)
{
    MPI_Comm c;
    comm_out(MPI_Comm_dup_with_info(C(comm), MPI_Info_f2c(*info), &c), &c, nc, ierr);
}
F_ENTRY(mpi_comm_dup_with_info, (I comm, I info, I nc, I ierr), (comm, info, nc, ierr))

static void f_mpi_comm_idup(I comm, I nc, I req, I ierr)
{
    MPI_Comm c;
    MPI_Request r;
    int rc = MPI_Comm_idup(C(comm), &c, &r);
    if (rc == MPI_SUCCESS)
        *req = MPI_Request_c2f(r);
    comm_out(rc, &c, nc, ierr);
}
F_ENTRY(mpi_comm_idup, (I comm, I nc, I req, I ierr), (comm, nc, req, ierr))

static void f_mpi_comm_free(I comm, I ierr)
{
    MPI_Comm c = C(comm);
    comm_out(MPI_Comm_free(&c), &c, comm, ierr); /* MPI_COMM_NULL back */
}
F_ENTRY(mpi_comm_free, (I comm, I ierr), (comm, ierr))

static void f_mpi_comm_split(I comm, I color, I key, I nc, I ierr)
{
    MPI_Comm c;
    comm_out(MPI_Comm_split(C(comm), *color, *key, &c), &c, nc, ierr);
}
F_ENTRY(mpi_comm_split, (I comm, I color, I key, I nc, I ierr), (comm, color, key, nc, ierr))

static void f_mpi_comm_split_type(I comm, I type, I key, I info, I nc, I ierr)
{
    MPI_Comm c;
    comm_out(MPI_Comm_split_type(C(comm), *type, *key, MPI_Info_f2c(*info), &c), &c, nc, ierr);
}
F_ENTRY(mpi_comm_split_type, (I comm, I type, I key, I info, I nc, I ierr),
        (comm, type, key, info, nc, ierr))

static void f_mpi_comm_create(I comm, I group, I nc, I ierr)
{
    MPI_Comm c;
    comm_out(MPI_Comm_create(C(comm), MPI_Group_f2c(*group), &c), &c, nc, ierr);
}
F_ENTRY(mpi_comm_create, (I comm, I group, I nc, I ierr), (comm, group, nc, ierr))

static void f_mpi_comm_create_group(I comm, I group, I tag, I nc, I ierr)
{
    MPI_Comm c;
    comm_out(MPI_Comm_create_group(C(comm), MPI_Group_f2c(*group), *tag, &c), &c, nc, ierr);
}
F_ENTRY(mpi_comm_create_group, (I comm, I group, I tag, I nc, I ierr),
        (comm, group, tag, nc, ierr))

static void f_mpi_cart_create(I comm, I ndims, I dims, I periods, I reorder, I nc, I ierr)
{
    int small[8], *p = logicals(periods, *ndims, small, 8);
    MPI_Comm c;
    if (!p) {
        ret(ierr, MPI_ERR_NO_MEM);
        return;
    }
    comm_out(MPI_Cart_create(C(comm), *ndims, dims, p, *reorder != 0, &c), &c, nc, ierr);
    if (p != small)
        free(p);
}
F_ENTRY(mpi_cart_create, (I comm, I ndims, I dims, I periods, I reorder, I nc, I ierr),
        (comm, ndims, dims, periods, reorder, nc, ierr))

static void f_mpi_cart_sub(I comm, I remain, I nc, I ierr)
{
    int nd = 0;
    MPI_Cartdim_get(C(comm), &nd);
    int small[8], *p = logicals(remain, nd, small, 8);
    MPI_Comm c;
    if (!p) {
        ret(ierr, MPI_ERR_NO_MEM);
        return;
    }
    comm_out(MPI_Cart_sub(C(comm), p, &c), &c, nc, ierr);
    if (p != small)
        free(p);
}
F_ENTRY(mpi_cart_sub, (I comm, I remain, I nc, I ierr), (comm, remain, nc, ierr))

static void f_mpi_graph_create(I comm, I nnodes, I index, I edges, I reorder, I nc, I ierr)
{
    MPI_Comm c;
    comm_out(MPI_Graph_create(C(comm), *nnodes, index, edges, *reorder != 0, &c), &c, nc, ierr);
}
F_ENTRY(mpi_graph_create, (I comm, I nnodes, I index, I edges, I reorder, I nc, I ierr),
        (comm, nnodes, index, edges, reorder, nc, ierr))

/* point-to-point */

#define F_SEND(NAME, CNAME)                                                                        \
    static void f_##NAME(void *b, I n, I t, I dest, I tag, I comm, I ierr)                        \
    {                                                                                              \
        ret(ierr, CNAME(cbuf(b), *n, MPI_Type_f2c(*t), *dest, *tag, MPI_Comm_f2c(*comm)));         \
    }                                                                                              \
    F_ENTRY(NAME, (void *b, I n, I t, I dest, I tag, I comm, I ierr),                              \
            (b, n, t, dest, tag, comm, ierr))
F_SEND(mpi_send, MPI_Send)
F_SEND(mpi_ssend, MPI_Ssend)
F_SEND(mpi_bsend, MPI_Bsend)
F_SEND(mpi_rsend, MPI_Rsend)

/* Isend & co., Send_init & co. and Recv_init, Irecv: one request out */
#define F_REQ(NAME, CNAME)                                                                         \
    static void f_##NAME(void *b, I n, I t, I peer, I tag, I comm, I req, I ierr)                  \
    {                                                                                              \
        MPI_Request r;                                                                             \
        int rc = CNAME(cbuf(b), *n, MPI_Type_f2c(*t), *peer, *tag, MPI_Comm_f2c(*comm), &r);       \
        if (rc == MPI_SUCCESS)                                                                     \
            *req = MPI_Request_c2f(r);                                                             \
        ret(ierr, rc);                                                                             \
    }                                                                                              \
    F_ENTRY(NAME, (void *b, I n, I t, I peer, I tag, I comm, I req, I ierr),                       \
            (b, n, t, peer, tag, comm, req, ierr))
F_REQ(mpi_isend, MPI_Isend)
F_REQ(mpi_issend, MPI_Issend)
F_REQ(mpi_ibsend, MPI_Ibsend)
F_REQ(mpi_irsend, MPI_Irsend)
F_REQ(mpi_irecv, MPI_Irecv)
F_REQ(mpi_send_init, MPI_Send_init)
F_REQ(mpi_ssend_init, MPI_Ssend_init)
F_REQ(mpi_bsend_init, MPI_Bsend_init)
F_REQ(mpi_rsend_init, MPI_Rsend_init)
F_REQ(mpi_recv_init, MPI_Recv_init)

static void f_mpi_recv(void *b, I n, I t, I src, I tag, I comm, I st, I ierr)
{
    MPI_Status s;
    int rc = MPI_Recv(cbuf(b), *n, MPI_Type_f2c(*t), *src, *tag, MPI_Comm_f2c(*comm), &s);
    st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_recv, (void *b, I n, I t, I src, I tag, I comm, I st, I ierr),
        (b, n, t, src, tag, comm, st, ierr))

static void f_mpi_sendrecv(void *sb, I sn, I stype, I dest, I stag, void *rb, I rn, I rtype,
                           I src, I rtag, I comm, I st, I ierr)
{
    MPI_Status s;
    int rc = MPI_Sendrecv(cbuf(sb), *sn, MPI_Type_f2c(*stype), *dest, *stag, cbuf(rb), *rn,
                          MPI_Type_f2c(*rtype), *src, *rtag, MPI_Comm_f2c(*comm), &s);
    st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_sendrecv,
        (void *sb, I sn, I stype, I dest, I stag, void *rb, I rn, I rtype, I src, I rtag, I comm,
         I st, I ierr),
        (sb, sn, stype, dest, stag, rb, rn, rtype, src, rtag, comm, st, ierr))

static void f_mpi_sendrecv_replace(void *b, I n, I t, I dest, I stag, I src, I rtag, I comm, I st,
                                   I ierr)
{
    MPI_Status s;
    int rc = MPI_Sendrecv_replace(cbuf(b), *n, MPI_Type_f2c(*t), *dest, *stag, *src, *rtag,
                                  MPI_Comm_f2c(*comm), &s);
    st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_sendrecv_replace,
        (void *b, I n, I t, I dest, I stag, I src, I rtag, I comm, I st, I ierr),
        (b, n, t, dest, stag, src, rtag, comm, st, ierr))

/* persistent requests and their end */

static void f_mpi_start(I req, I ierr)
{
    MPI_Request r = MPI_Request_f2c(*req);
    int rc = MPI_Start(&r);
    *req = MPI_Request_c2f(r);
    ret(ierr, rc);
}
F_ENTRY(mpi_start, (I req, I ierr), (req, ierr))

static void f_mpi_startall(I n, I reqs, I ierr)
{
    struct reqs q;
    if (!reqs_in(&q, *n, reqs)) {
        ret(ierr, MPI_ERR_NO_MEM);
        return;
    }
    int rc = MPI_Startall(*n, q.r);
    reqs_out(&q, *n, reqs);
    ret(ierr, rc);
}
F_ENTRY(mpi_startall, (I n, I reqs, I ierr), (n, reqs, ierr))

static void f_mpi_request_free(I req, I ierr)
{
    MPI_Request r = MPI_Request_f2c(*req);
    int rc = MPI_Request_free(&r);
    *req = MPI_Request_c2f(r);
    ret(ierr, rc);
}
F_ENTRY(mpi_request_free, (I req, I ierr), (req, ierr))

static void f_mpi_cancel(I req, I ierr)
{
    MPI_Request r = MPI_Request_f2c(*req);
    ret(ierr, MPI_Cancel(&r));
}
F_ENTRY(mpi_cancel, (I req, I ierr), (req, ierr))

/* probes */

static void f_mpi_iprobe(I src, I tag, I comm, I flag, I st, I ierr)
{
    MPI_Status s;
    int fl = 0, rc = MPI_Iprobe(*src, *tag, MPI_Comm_f2c(*comm), &fl, &s);
    *flag = fl ? 1 : 0;
    if (fl)
        st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_iprobe, (I src, I tag, I comm, I flag, I st, I ierr), (src, tag, comm, flag, st, ierr))

static void f_mpi_probe(I src, I tag, I comm, I st, I ierr)
{
    MPI_Status s;
    int rc = MPI_Probe(*src, *tag, MPI_Comm_f2c(*comm), &s);
    st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_probe, (I src, I tag, I comm, I st, I ierr), (src, tag, comm, st, ierr))

static void f_mpi_mprobe(I src, I tag, I comm, I msg, I st, I ierr)
{
    MPI_Status s;
    MPI_Message m;
    int rc = MPI_Mprobe(*src, *tag, MPI_Comm_f2c(*comm), &m, &s);
    if (rc == MPI_SUCCESS)
        *msg = MPI_Message_c2f(m);
    st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_mprobe, (I src, I tag, I comm, I msg, I st, I ierr), (src, tag, comm, msg, st, ierr))

static void f_mpi_improbe(I src, I tag, I comm, I flag, I msg, I st, I ierr)
{
    MPI_Status s;
    MPI_Message m;
    int fl = 0, rc = MPI_Improbe(*src, *tag, MPI_Comm_f2c(*comm), &fl, &m, &s);
    *flag = fl ? 1 : 0;
    if (fl && rc == MPI_SUCCESS) {
        *msg = MPI_Message_c2f(m);
        st_out(&s, st);
    }
    ret(ierr, rc);
}
F_ENTRY(mpi_improbe, (I src, I tag, I comm, I flag, I msg, I st, I ierr),
        (src, tag, comm, flag, msg, st, ierr))

static void f_mpi_mrecv(void *b, I n, I t, I msg, I st, I ierr)
{
    MPI_Status s;
    MPI_Message m = MPI_Message_f2c(*msg);
    int rc = MPI_Mrecv(cbuf(b), *n, MPI_Type_f2c(*t), &m, &s);
    *msg = MPI_Message_c2f(m);
    st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_mrecv, (void *b, I n, I t, I msg, I st, I ierr), (b, n, t, msg, st, ierr))

static void f_mpi_imrecv(void *b, I n, I t, I msg, I req, I ierr)
{
    MPI_Message m = MPI_Message_f2c(*msg);
    MPI_Request r;
    int rc = MPI_Imrecv(cbuf(b), *n, MPI_Type_f2c(*t), &m, &r);
    *msg = MPI_Message_c2f(m);
    if (rc == MPI_SUCCESS)
        *req = MPI_Request_c2f(r);
    ret(ierr, rc);
}
F_ENTRY(mpi_imrecv, (void *b, I n, I t, I msg, I req, I ierr), (b, n, t, msg, req, ierr))

/* completion: requests back to Fortran whatever the call did to them (a
 * completed one is MPI_REQUEST_NULL, a persistent one stays) */

static void f_mpi_wait(I req, I st, I ierr)
{
    MPI_Status s;
    MPI_Request r = MPI_Request_f2c(*req);
    int rc = MPI_Wait(&r, &s);
    *req = MPI_Request_c2f(r);
    st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_wait, (I req, I st, I ierr), (req, st, ierr))

static void f_mpi_test(I req, I flag, I st, I ierr)
{
    MPI_Status s;
    MPI_Request r = MPI_Request_f2c(*req);
    int fl = 0, rc = MPI_Test(&r, &fl, &s);
    *req = MPI_Request_c2f(r);
    *flag = fl ? 1 : 0;
    if (fl)
        st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_test, (I req, I flag, I st, I ierr), (req, flag, st, ierr))

static void f_mpi_waitall(I n, I reqs, I sts, I ierr)
{
    struct reqs q;
    if (!reqs_in(&q, *n, reqs)) {
        ret(ierr, MPI_ERR_NO_MEM);
        return;
    }
    int rc = MPI_Waitall(*n, q.r, q.s);
    sts_out(q.s, sts, *n);
    reqs_out(&q, *n, reqs);
    ret(ierr, rc);
}
F_ENTRY(mpi_waitall, (I n, I reqs, I sts, I ierr), (n, reqs, sts, ierr))

static void f_mpi_testall(I n, I reqs, I flag, I sts, I ierr)
{
    struct reqs q;
    if (!reqs_in(&q, *n, reqs)) {
        ret(ierr, MPI_ERR_NO_MEM);
        return;
    }
    int fl = 0, rc = MPI_Testall(*n, q.r, &fl, q.s);
    if (fl)
        sts_out(q.s, sts, *n);
    reqs_out(&q, *n, reqs);
    *flag = fl ? 1 : 0;
    ret(ierr, rc);
}
F_ENTRY(mpi_testall, (I n, I reqs, I flag, I sts, I ierr), (n, reqs, flag, sts, ierr))

/* Fortran's index is 1-based; MPI_UNDEFINED stays */
static MPI_Fint f_index(int i) { return (MPI_Fint)(i == MPI_UNDEFINED ? i : i + 1); }

static void f_mpi_waitany(I n, I reqs, I idx, I st, I ierr)
{
    struct reqs q;
    if (!reqs_in(&q, *n, reqs)) {
        ret(ierr, MPI_ERR_NO_MEM);
        return;
    }
    MPI_Status s;
    int i = MPI_UNDEFINED, rc = MPI_Waitany(*n, q.r, &i, &s);
    reqs_out(&q, *n, reqs);
    *idx = f_index(i);
    st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_waitany, (I n, I reqs, I idx, I st, I ierr), (n, reqs, idx, st, ierr))

static void f_mpi_testany(I n, I reqs, I idx, I flag, I st, I ierr)
{
    struct reqs q;
    if (!reqs_in(&q, *n, reqs)) {
        ret(ierr, MPI_ERR_NO_MEM);
        return;
    }
    MPI_Status s;
    int i = MPI_UNDEFINED, fl = 0, rc = MPI_Testany(*n, q.r, &i, &fl, &s);
    reqs_out(&q, *n, reqs);
    *idx = f_index(i);
    *flag = fl ? 1 : 0;
    if (fl)
        st_out(&s, st);
    ret(ierr, rc);
}
F_ENTRY(mpi_testany, (I n, I reqs, I idx, I flag, I st, I ierr), (n, reqs, idx, flag, st, ierr))

#define F_SOME(NAME, CNAME)                                                                        \
    static void f_##NAME(I n, I reqs, I out, I idx, I sts, I ierr)                                 \
    {                                                                                              \
        struct reqs q;                                                                             \
        if (!reqs_in(&q, *n, reqs)) {                                                              \
            ret(ierr, MPI_ERR_NO_MEM);                                                             \
            return;                                                                                \
        }                                                                                          \
        int k = 0, rc = CNAME(*n, q.r, &k, idx, q.s);                                              \
        for (int i = 0; k != MPI_UNDEFINED && i < k; i++) {                                        \
            if (sts != MPI_F_STATUSES_IGNORE)                                                      \
                MPI_Status_c2f(&q.s[i], sts + (size_t)i * MPI_F_STATUS_SIZE);                      \
            idx[i] += 1;                                                                           \
        }                                                                                          \
        reqs_out(&q, *n, reqs);                                                                    \
        *out = k;                                                                                  \
        ret(ierr, rc);                                                                             \
    }                                                                                              \
    F_ENTRY(NAME, (I n, I reqs, I out, I idx, I sts, I ierr), (n, reqs, out, idx, sts, ierr))
F_SOME(mpi_waitsome, MPI_Waitsome)
F_SOME(mpi_testsome, MPI_Testsome)

/* collectives, blocking and non-blocking */

#define F_UNPAREN(...) __VA_ARGS__
#define T(x) MPI_Type_f2c(*(x))

/* NAME (P, then IERROR) and its non-blocking INAME (P, REQUEST, IERROR),
 * calling CNAME and ICNAME with the C arguments CALL */
#define F_COLL(NAME, CNAME, INAME, ICNAME, P, A, CALL)                                             \
    static void f_##NAME(F_UNPAREN P, I ierr) { ret(ierr, CNAME(F_UNPAREN CALL)); }                \
    F_ENTRY(NAME, (F_UNPAREN P, I ierr), (F_UNPAREN A, ierr))                                      \
    static void f_##INAME(F_UNPAREN P, I req, I ierr)                                              \
    {                                                                                              \
        MPI_Request r;                                                                             \
        int rc = ICNAME(F_UNPAREN CALL, &r);                                                       \
        if (rc == MPI_SUCCESS)                                                                     \
            *req = MPI_Request_c2f(r);                                                             \
        ret(ierr, rc);                                                                             \
    }                                                                                              \
    F_ENTRY(INAME, (F_UNPAREN P, I req, I ierr), (F_UNPAREN A, req, ierr))

F_COLL(mpi_barrier, MPI_Barrier, mpi_ibarrier, MPI_Ibarrier, (I comm), (comm), (C(comm)))
F_COLL(mpi_bcast, MPI_Bcast, mpi_ibcast, MPI_Ibcast, (void *b, I n, I t, I root, I comm),
       (b, n, t, root, comm), (cbuf(b), *n, T(t), *root, C(comm)))
F_COLL(mpi_reduce, MPI_Reduce, mpi_ireduce, MPI_Ireduce,
       (void *sb, void *rb, I n, I t, I op, I root, I comm), (sb, rb, n, t, op, root, comm),
       (cbuf(sb), cbuf(rb), *n, T(t), MPI_Op_f2c(*op), *root, C(comm)))
F_COLL(mpi_allreduce, MPI_Allreduce, mpi_iallreduce, MPI_Iallreduce,
       (void *sb, void *rb, I n, I t, I op, I comm), (sb, rb, n, t, op, comm),
       (cbuf(sb), cbuf(rb), *n, T(t), MPI_Op_f2c(*op), C(comm)))
F_COLL(mpi_gather, MPI_Gather, mpi_igather, MPI_Igather,
       (void *sb, I sn, I st, void *rb, I rn, I rt, I root, I comm),
       (sb, sn, st, rb, rn, rt, root, comm),
       (cbuf(sb), *sn, T(st), cbuf(rb), *rn, T(rt), *root, C(comm)))
F_COLL(mpi_gatherv, MPI_Gatherv, mpi_igatherv, MPI_Igatherv,
       (void *sb, I sn, I st, void *rb, I rns, I rds, I rt, I root, I comm),
       (sb, sn, st, rb, rns, rds, rt, root, comm),
       (cbuf(sb), *sn, T(st), cbuf(rb), rns, rds, T(rt), *root, C(comm)))
F_COLL(mpi_scatter, MPI_Scatter, mpi_iscatter, MPI_Iscatter,
       (void *sb, I sn, I st, void *rb, I rn, I rt, I root, I comm),
       (sb, sn, st, rb, rn, rt, root, comm),
       (cbuf(sb), *sn, T(st), cbuf(rb), *rn, T(rt), *root, C(comm)))
F_COLL(mpi_scatterv, MPI_Scatterv, mpi_iscatterv, MPI_Iscatterv,
       (void *sb, I sns, I sds, I st, void *rb, I rn, I rt, I root, I comm),
       (sb, sns, sds, st, rb, rn, rt, root, comm),
       (cbuf(sb), sns, sds, T(st), cbuf(rb), *rn, T(rt), *root, C(comm)))
F_COLL(mpi_allgather, MPI_Allgather, mpi_iallgather, MPI_Iallgather,
       (void *sb, I sn, I st, void *rb, I rn, I rt, I comm), (sb, sn, st, rb, rn, rt, comm),
       (cbuf(sb), *sn, T(st), cbuf(rb), *rn, T(rt), C(comm)))
F_COLL(mpi_allgatherv, MPI_Allgatherv, mpi_iallgatherv, MPI_Iallgatherv,
       (void *sb, I sn, I st, void *rb, I rns, I rds, I rt, I comm),
       (sb, sn, st, rb, rns, rds, rt, comm),
       (cbuf(sb), *sn, T(st), cbuf(rb), rns, rds, T(rt), C(comm)))
F_COLL(mpi_alltoall, MPI_Alltoall, mpi_ialltoall, MPI_Ialltoall,
       (void *sb, I sn, I st, void *rb, I rn, I rt, I comm), (sb, sn, st, rb, rn, rt, comm),
       (cbuf(sb), *sn, T(st), cbuf(rb), *rn, T(rt), C(comm)))
F_COLL(mpi_alltoallv, MPI_Alltoallv, mpi_ialltoallv, MPI_Ialltoallv,
       (void *sb, I sns, I sds, I st, void *rb, I rns, I rds, I rt, I comm),
       (sb, sns, sds, st, rb, rns, rds, rt, comm),
       (cbuf(sb), sns, sds, T(st), cbuf(rb), rns, rds, T(rt), C(comm)))

/* MPI_ALLTOALLW's type arrays, one type per rank of comm, in C */
static MPI_Datatype *types_in(const MPI_Fint *f, MPI_Comm comm)
{
    int n = 0;
    MPI_Comm_size(comm, &n);
    MPI_Datatype *t = malloc((size_t)(n > 0 ? n : 1) * sizeof *t);
    for (int i = 0; t && i < n; i++)
        t[i] = MPI_Type_f2c(f[i]);
    return t;
}

/* both entries: the blocking one with req NULL */
static void alltoallw(void *sb, I sns, I sds, I sts, void *rb, I rns, I rds, I rts, I comm, I req,
                      I ierr)
{
    MPI_Comm c = C(comm);
    MPI_Datatype *st = types_in(sts, c), *rt = types_in(rts, c);
    MPI_Request r;
    int rc = MPI_ERR_NO_MEM;
    if (st && rt)
        rc = req ? MPI_Ialltoallw(cbuf(sb), sns, sds, st, cbuf(rb), rns, rds, rt, c, &r)
                 : MPI_Alltoallw(cbuf(sb), sns, sds, st, cbuf(rb), rns, rds, rt, c);
    if (req && rc == MPI_SUCCESS)
        *req = MPI_Request_c2f(r);
    free(st);
    free(rt);
    ret(ierr, rc);
}
static void f_mpi_alltoallw(void *sb, I sns, I sds, I sts, void *rb, I rns, I rds, I rts, I comm,
                            I ierr)
{
    alltoallw(sb, sns, sds, sts, rb, rns, rds, rts, comm, NULL, ierr);
}
static void f_mpi_ialltoallw(void *sb, I sns, I sds, I sts, void *rb, I rns, I rds, I rts, I comm,
                             I req, I ierr)
{
    alltoallw(sb, sns, sds, sts, rb, rns, rds, rts, comm, req, ierr);
}
F_ENTRY(mpi_alltoallw,
        (void *sb, I sns, I sds, I sts, void *rb, I rns, I rds, I rts, I comm, I ierr),
        (sb, sns, sds, sts, rb, rns, rds, rts, comm, ierr))
F_ENTRY(mpi_ialltoallw,
        (void *sb, I sns, I sds, I sts, void *rb, I rns, I rds, I rts, I comm, I req, I ierr),
        (sb, sns, sds, sts, rb, rns, rds, rts, comm, req, ierr))

F_COLL(mpi_reduce_scatter, MPI_Reduce_scatter, mpi_ireduce_scatter, MPI_Ireduce_scatter,
       (void *sb, void *rb, I rcs, I t, I op, I comm), (sb, rb, rcs, t, op, comm),
       (cbuf(sb), cbuf(rb), rcs, T(t), MPI_Op_f2c(*op), C(comm)))
F_COLL(mpi_reduce_scatter_block, MPI_Reduce_scatter_block, mpi_ireduce_scatter_block,
       MPI_Ireduce_scatter_block, (void *sb, void *rb, I rc_, I t, I op, I comm),
       (sb, rb, rc_, t, op, comm), (cbuf(sb), cbuf(rb), *rc_, T(t), MPI_Op_f2c(*op), C(comm)))
F_COLL(mpi_scan, MPI_Scan, mpi_iscan, MPI_Iscan, (void *sb, void *rb, I n, I t, I op, I comm),
       (sb, rb, n, t, op, comm), (cbuf(sb), cbuf(rb), *n, T(t), MPI_Op_f2c(*op), C(comm)))
F_COLL(mpi_exscan, MPI_Exscan, mpi_iexscan, MPI_Iexscan,
       (void *sb, void *rb, I n, I t, I op, I comm), (sb, rb, n, t, op, comm),
       (cbuf(sb), cbuf(rb), *n, T(t), MPI_Op_f2c(*op), C(comm)))

F_COLL(mpi_neighbor_allgather, MPI_Neighbor_allgather, mpi_ineighbor_allgather,
       MPI_Ineighbor_allgather, (void *sb, I sn, I st, void *rb, I rn, I rt, I comm),
       (sb, sn, st, rb, rn, rt, comm), (cbuf(sb), *sn, T(st), cbuf(rb), *rn, T(rt), C(comm)))
F_COLL(mpi_neighbor_allgatherv, MPI_Neighbor_allgatherv, mpi_ineighbor_allgatherv,
       MPI_Ineighbor_allgatherv, (void *sb, I sn, I st, void *rb, I rns, I rds, I rt, I comm),
       (sb, sn, st, rb, rns, rds, rt, comm),
       (cbuf(sb), *sn, T(st), cbuf(rb), rns, rds, T(rt), C(comm)))
F_COLL(mpi_neighbor_alltoall, MPI_Neighbor_alltoall, mpi_ineighbor_alltoall,
       MPI_Ineighbor_alltoall, (void *sb, I sn, I st, void *rb, I rn, I rt, I comm),
       (sb, sn, st, rb, rn, rt, comm), (cbuf(sb), *sn, T(st), cbuf(rb), *rn, T(rt), C(comm)))
F_COLL(mpi_neighbor_alltoallv, MPI_Neighbor_alltoallv, mpi_ineighbor_alltoallv,
       MPI_Ineighbor_alltoallv,
       (void *sb, I sns, I sds, I st, void *rb, I rns, I rds, I rt, I comm),
       (sb, sns, sds, st, rb, rns, rds, rt, comm),
       (cbuf(sb), sns, sds, T(st), cbuf(rb), rns, rds, T(rt), C(comm)))

/* the mpi_f08 module: not recorded, said once (its MPI_Init and
 * MPI_Init_thread, IERROR optional: passed on as they came) */

static void f08_note(void)
{
    if (getenv("CONTENTION_RECORD_FILE"))
        fprintf(stderr, "contention-record: a Fortran program using the mpi_f08 module: not "
                        "recorded (use mpif.h or the mpi module; doc/recorder.md)\n");
}

#define F08_INIT(NAME, P, A)                                                                       \
    void NAME P;                                                                                   \
    void NAME P                                                                                    \
    {                                                                                              \
        f08_note();                                                                                \
        F_NEXT(P, #NAME);                                                                          \
        next A;                                                                                    \
    }
F08_INIT(mpi_init_f08_, (I ierr), (ierr))
F08_INIT(mpi_init_thread_f08_, (I req, I prov, I ierr), (req, prov, ierr))
