/* libFuzzer harness for the trace reader (scripts/fuzz builds it), the
 * parser behind the plugin's --contention-pattern=trace:FILE on srun's
 * launch path. Beyond "never crash, never leak, never hang" it checks:
 * refusals name the input and a line; an accepted trace is consistent
 * (events grouped by task in order, peers below the task count, every
 * communication defined by a send of its own); the event cap holds; the
 * scorer's phases built with collectives expanded on the fly
 * (ct_trace_phases_build) are refused with the same message as the
 * expansion, or equal the phases of the expanded trace. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/collective.h"
#include "contention/trace.h"

static void check(const ct_trace *tr, size_t cap)
{
    if (tr->ntasks < 0 || tr->ntasks > 4096 || (cap && tr->nevents > cap))
        abort();
    if (tr->ntasks == 0) { /* an empty trace (comments only) */
        if (tr->nevents || tr->ncomm)
            abort();
        return;
    }
    if (tr->task_first[0] != 0 || tr->task_first[tr->ntasks] != tr->nevents)
        abort();
    for (int32_t t = 0; t < tr->ntasks; t++)
        if (tr->task_first[t] > tr->task_first[t + 1])
            abort();
    size_t sends = 0;
    for (size_t i = 0; i < tr->nevents; i++) {
        const ct_event *e = &tr->ev[i];
        if (e->kind >= CT_EV_KIND_COUNT)
            abort();
        if ((e->kind == CT_EV_SEND || e->kind == CT_EV_ISEND)) {
            sends++;
            if (e->peer < 0 || e->peer >= tr->ntasks || e->comm < 0 ||
                (size_t)e->comm >= tr->ncomm || tr->comm_event[e->comm] != i)
                abort();
        }
        if ((e->kind == CT_EV_RECV || e->kind == CT_EV_IRECV) &&
            (e->peer >= tr->ntasks || (e->peer < 0 && e->peer != CT_ANY_SOURCE)))
            abort();
        /* the matching key: a tag >= 0 (any only on a receive), a
         * communicator the trace has */
        int recv = e->kind == CT_EV_RECV || e->kind == CT_EV_IRECV;
        ct_match_key k = ct_trace_key(tr, e);
        if ((e->key && e->key >= tr->nkeys) || (k.tag < 0 && !(recv && k.tag == CT_ANY_TAG)) ||
            k.mcomm < 0 || (k.mcomm > 0 && (size_t)k.mcomm >= tr->ncomms))
            abort();
    }
    if (sends != tr->ncomm)
        abort();
    char buf[128];
    for (size_t c = 0; c < tr->ncomm; c++)
        if (!ct_trace_label(tr, c, buf, sizeof buf)[0])
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the plugin's bounds: tasks capped (found by this harness: a trace
     * naming task 268435455 cost 4 GB); with and without an event cap */
    static const ct_trace_limits lims[2] = {{0, 0, 4096}, {0, 64, 64}};
    static const size_t caps[2] = {0, 64};
    for (int k = 0; k < 2; k++) {
        ct_trace tr;
        ct_err err;
        if (ct_trace_parse_buffer_bounded("fuzz.trace", (const char *)data, size, &lims[k], &tr,
                                          &err) < 0) {
            if (strncmp(err.msg, "fuzz.trace", 10) != 0) {
                fprintf(stderr, "message without the input's name: %s\n", err.msg);
                abort();
            }
            if (tr.nevents || tr.ev)
                abort(); /* a refused trace is left empty */
            continue;
        }
        check(&tr, caps[k]);
        if (tr.ncoll) {
            /* collectives are expanded before any replay (score.c): within
             * the event cap too, or refused with a message */
            ct_coll_params cp;
            ct_coll_params_hockney(1e-5, 1e-8, &cp);
            cp.max_events = 4096;
            ct_trace x;
            ct_trace_phases pa, pb;
            ct_err e2;
            /* the scorer's phases, expanded on the fly: refused alike, or
             * the phases of the expanded trace exactly (collective.h) */
            int rp = ct_trace_phases_build(&tr, &cp, &pa, NULL, &e2);
            if (ct_trace_expand(&tr, &cp, &x, NULL, &err) == 0) {
                if (x.nevents > 4096 || x.ncoll)
                    abort();
                check(&x, 0);
                if (rp != 0 || pa.events != x.nevents || pa.nmsg != x.ncomm ||
                    ct_trace_phases_build(&x, &cp, &pb, NULL, &e2) != 0 || pa.nphase != pb.nphase)
                    abort();
                for (size_t k = 0; k < pa.nphase; k++)
                    if (pa.ph[k].n != pb.ph[k].n || pa.ph[k].compute != pb.ph[k].compute ||
                        pa.ph[k].nc != pb.ph[k].nc ||
                        (pa.ph[k].nc &&
                         (memcmp(pa.ph[k].ctask, pb.ph[k].ctask,
                                 pa.ph[k].nc * sizeof *pa.ph[k].ctask) ||
                          memcmp(pa.ph[k].csec, pb.ph[k].csec,
                                 pa.ph[k].nc * sizeof *pa.ph[k].csec))) ||
                        (pa.ph[k].n && memcmp(pa.ph[k].msg, pb.ph[k].msg,
                                              pa.ph[k].n * sizeof *pa.ph[k].msg)))
                        abort();
                /* one phase per collective call (the scorer's): the same
                 * events and messages, no more phases */
                ct_trace_phases pc;
                cp.coll_phase = 1;
                if (ct_trace_phases_build(&tr, &cp, &pc, NULL, &e2) != 0 ||
                    pc.events != pa.events || pc.nmsg != pa.nmsg || pc.nphase > pa.nphase)
                    abort();
                cp.coll_phase = 0;
                ct_trace_phases_free(&pc);
                ct_trace_phases_free(&pa);
                ct_trace_phases_free(&pb);
                ct_trace_free(&x);
            } else if (!err.msg[0] || rp == 0 || strcmp(err.msg, e2.msg) != 0) {
                abort();
            }
        }
        ct_trace_free(&tr);
    }
    return 0;
}
