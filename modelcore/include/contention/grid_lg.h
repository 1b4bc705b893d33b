/* Alltoall between two clusters: the Local Group (LG) algorithm of paper 002
 * §VI-B (Algorithm 1) as an explicit schedule, and the two-cluster models
 * eq. 6 and eq. 7 (002 §VI, 000 §7).
 *
 * Nodes 0..n1-1 form cluster C1, nodes n1..n1+n2-1 cluster C2, n1 <= n2.
 * M_i,j is the message from node i to node j. Phase 1 is a local exchange
 * inside each cluster that also gathers every inter-cluster message on the
 * node that will carry it; phase 2 runs ceil(n2/n1) steps in which node i of
 * C1 swaps packed buffers with node j = i + n1*s of C2 (when j exists). */
#ifndef CONTENTION_GRID_LG_H
#define CONTENTION_GRID_LG_H

#include <stddef.h>
#include <stdint.h>

#include "contention/alltoall.h"
#include "contention/error.h"
#include "contention/topology.h"

/* Largest n1 + n2 the schedule generator accepts ((n1+n2)^2 messages are listed). */
#define CT_LG_MAX_NODES 2048

/* Message M_origin,dest. */
typedef struct ct_lg_msg {
    int32_t origin;
    int32_t dest;
} ct_lg_msg;

/* One point-to-point transfer of the schedule, carrying nmsg messages packed. */
typedef struct ct_lg_transfer {
    int phase;    /* 1: local (intra-cluster), 2: inter-cluster */
    int32_t step; /* 0 in phase 1; s = 1..nsteps in phase 2 */
    int32_t from;
    int32_t to;
    size_t nmsg;
    const ct_lg_msg *msg; /* ascending (origin, dest); points into the schedule's pool */
} ct_lg_transfer;

/* The whole schedule: phase-1 transfers sorted by (from, to), then phase-2
 * transfers by step, C1 node, and C1 -> C2 before C2 -> C1. A message whose
 * origin is its destination (M_i,i) never moves; any other message is
 * delivered by exactly one transfer. */
typedef struct ct_lg_schedule {
    int32_t n1;
    int32_t n2;
    int32_t nsteps; /* ceil(n2 / n1) */
    size_t ntransfers;
    ct_lg_transfer *t;
    size_t npool;
    ct_lg_msg *pool;
} ct_lg_schedule;

/* Node holding M_i,j at the end of phase 1 (002 §VI-B-1): j mod n1 for a C1
 * sender; j itself for a C2 -> C2 message; floor(i/n1)*n1 + j for C2 -> C1.
 * When n1 does not divide n2 the last group of C2 is partial and that node
 * may not exist: the message then waits on n1 + j (first group of C2), which
 * meets j in step 1 (see doc/models-alltoall.md). -1 for invalid input. */
int32_t ct_lg_store_node(int32_t n1, int32_t n2, int32_t i, int32_t j);

/* Build the LG schedule for 1 <= n1 <= n2, n1 + n2 <= CT_LG_MAX_NODES.
 * Free with ct_lg_schedule_free(). */
int ct_lg_schedule_build(int32_t n1, int32_t n2, ct_lg_schedule *out, ct_err *err);
void ct_lg_schedule_free(ct_lg_schedule *s);

/* Local network of one cluster: Hockney alpha (s), beta (s/byte) and its
 * Alltoall signature; T_Cn is 000 eq. 5 on it with n = the cluster's nodes. */
typedef struct ct_lg_net {
    double alpha;
    double beta;
    ct_a2a_sig sig;
} ct_lg_net;

/* 002 eq. 6 (the plain Alltoall spread over two clusters):
 * T = max(T_C1, T_C2) + max(n1, n2) * (alpha_w + beta_w * m). NaN for n < 1. */
double ct_lg_eq6(int64_t n1, int64_t n2, double m, const ct_lg_net *c1, const ct_lg_net *c2,
                 double alpha_w, double beta_w);
/* 000 eq. 6 as printed there: max(T_C1, T_C2) + ceil(n2/n1) * (alpha_w +
 * beta_w * m * n); 000 leaves n undefined, so the caller passes it (n = n1
 * gives eq. 7). Clusters are swapped when n1 > n2. */
double ct_lg_eq6_gpc(int64_t n1, int64_t n2, double m, const ct_lg_net *c1, const ct_lg_net *c2,
                     double alpha_w, double beta_w, double n);
/* 002 eq. 7 (the LG algorithm): T = max(T_C1, T_C2) + ceil(n2/n1) *
 * (alpha_w + beta_w * m * n1). Clusters are swapped when n1 > n2. */
double ct_lg_eq7(int64_t n1, int64_t n2, double m, const ct_lg_net *c1, const ct_lg_net *c2,
                 double alpha_w, double beta_w);

/* The uplink term of an Alltoall on a switch tree (issue 14; our extension
 * of 002 §VI: each uplink of the tree splits the job into two "clusters",
 * the tasks under the switch and the others, joined by a slower link).
 * For every switch s below the top with tasks on both sides, n1 <= n2 the
 * two sides' task counts, C the uplink capacity in NIC units:
 *   T_s = max(T_C1, T_C2, ceil(n2/n1) * (alpha + beta * m * n1 * max(1, n1(1+δ)/C, t1)))
 * 002 eq. 7's two terms with the local networks' alpha, beta and signature
 * (T_Cn: the layout-aware eq. 5 of each side, alltoall.h) and the
 * inter-cluster beta_w = beta * max(1, n1(1+δ)/C, t1): the n1 packed transfers
 * cross the uplink together and share it, and t1 (most tasks of one node,
 * capped at n1) share a NIC; δ is the uplink's measured duplex share
 * (topology.h up_duplex, 0 when not measured): the Alltoall loads both
 * directions, and each takes δ of the other's (session 11). Eq. 7 adds the terms because the Local Group
 * algorithm runs its local phase before the crossing one; the Alltoall a
 * signature is fitted on (the MPI library's: Open MPI posts every transfer
 * at once) overlaps them, so the uplink prices as one more resource of the
 * same Alltoall and the larger term sets the time (our change, session 10;
 * doc/multiswitch.md). ct_lg_eq7 keeps the printed sum for the LG schedule.
 * tasks[i] is graph node i's task count, t->leaf[i] its leaf. *T = the largest
 * T_s (0 when every task sits under one leaf), *worst = that switch (-1). */
int ct_lg_tree_alltoall(const int32_t *tasks, const ct_tree_map *t, double alpha, double beta,
                        double m, const ct_a2a_sig *sig, double intra_bw, double *T,
                        int32_t *worst, ct_err *err);

#endif
