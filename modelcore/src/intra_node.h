/* Intra-node time of a step (internal to libcontention): the scorer and the
 * placement search price intra-node traffic the same way. */
#ifndef CONTENTION_INTRA_NODE_H
#define CONTENTION_INTRA_NODE_H

#include <stdint.h>

/* The busiest node's intra-node bytes at the fabric's intra-node bandwidth
 * (bytes/s); intra_bw <= 0 ignores intra-node time (signatures.h). */
static inline double intra_node_time(const double *intra_bytes, int32_t nnodes, double intra_bw)
{
    if (intra_bw <= 0)
        return 0;
    double worst = 0;
    for (int32_t k = 0; k < nnodes; k++)
        if (intra_bytes[k] / intra_bw > worst)
            worst = intra_bytes[k] / intra_bw;
    return worst;
}

#endif
