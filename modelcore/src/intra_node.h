/* Intra-node time of a step (internal to libcontention): the scorer and the
 * placement search price intra-node traffic the same way. */
#ifndef CONTENTION_INTRA_NODE_H
#define CONTENTION_INTRA_NODE_H

#include <stdint.h>

/* The busiest node's intra-node bytes at the fabric's intra-node bandwidth
 * (bytes/s); intra_bw <= 0 ignores intra-node time (signatures.h). With
 * shared_bw > 0 (our extension, session 55; signatures.h intra_shared_bw) the
 * nodes copy through one capacity, so the step also takes at least all nodes'
 * intra-node bytes at shared_bw: the larger of the two. */
static inline double intra_node_time(const double *intra_bytes, int32_t nnodes, double intra_bw,
                                     double shared_bw)
{
    if (intra_bw <= 0)
        return 0;
    double worst = 0, all = 0;
    for (int32_t k = 0; k < nnodes; k++) {
        if (intra_bytes[k] / intra_bw > worst)
            worst = intra_bytes[k] / intra_bw;
        all += intra_bytes[k];
    }
    if (shared_bw > 0 && all / shared_bw > worst)
        return all / shared_bw;
    return worst;
}

#endif
