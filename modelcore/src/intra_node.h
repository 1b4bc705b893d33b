/* Intra-node time of a step (internal to libcontention): the scorer and the
 * placement search price intra-node traffic the same way. */
#ifndef CONTENTION_INTRA_NODE_H
#define CONTENTION_INTRA_NODE_H

#include <stdint.h>

#include "contention/signatures.h"

/* b > 0 bytes through a path of rate bw (bytes/s), or through its Hockney
 * line alpha + b / line_bw where the fabric has one (line_bw > 0; our
 * extension, session 57: the intra-node path's start-up, signatures.h
 * intra_alpha). */
static inline double intra_path_time(double b, double bw, double alpha, double line_bw)
{
    if (!(b > 0))
        return 0;
    return line_bw > 0 ? alpha + b / line_bw : b / bw;
}

/* The busiest node's intra-node time, each node's bytes through
 * intra_path_time (bw <= 0: 0). The Alltoall's own intra-node term
 * (ct_a2a_layout) asks it with no line (line_bw 0) and no shared rate. */
static inline double intra_busiest_time(const double *intra_bytes, int32_t nnodes, double bw,
                                        double alpha, double line_bw)
{
    double worst = 0;
    for (int32_t k = 0; bw > 0 && k < nnodes; k++) {
        double t = intra_path_time(intra_bytes[k], bw, alpha, line_bw);
        if (t > worst)
            worst = t;
    }
    return worst;
}

/* The busiest node's intra-node bytes at the fabric's intra-node bandwidth
 * (bytes/s); intra_bw <= 0 ignores intra-node time (signatures.h). With
 * intra_shared_bw > 0 (our extension, session 55; signatures.h) the nodes
 * copy through one capacity, so the step also takes at least all nodes'
 * intra-node bytes at it: the larger of the two. Each path through its
 * Hockney line where the fabric has one (session 57). */
static inline double intra_node_time(const double *intra_bytes, int32_t nnodes, const ct_fabric *f)
{
    if (f->intra_bw <= 0)
        return 0;
    double worst = intra_busiest_time(intra_bytes, nnodes, f->intra_bw, f->intra_alpha,
                                      f->intra_line_bw);
    if (f->intra_shared_bw > 0) {
        double all = 0;
        for (int32_t k = 0; k < nnodes; k++)
            all += intra_bytes[k];
        double t = intra_path_time(all, f->intra_shared_bw, f->intra_shared_alpha,
                                   f->intra_shared_line_bw);
        if (t > worst)
            return t;
    }
    return worst;
}

#endif
