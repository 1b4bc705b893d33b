/* Placement search: a rank -> node assignment beyond block and cyclic,
 * chosen by the contention model (our own extension; the papers score
 * given mappings, they do not search for one).
 *
 * Input: the job as the scorer sees it (allocation, tasks, pattern, fabric).
 * The per-node task counts are those Slurm's block layout gives for the
 * allocation (layout.h; cyclic has the same counts) and are kept exactly, so
 * the result fits the allocation whatever its unevenness.
 *
 * Search (deterministic for a given seed):
 *  1. starts: block, cyclic, a geometric tiling for halo2d/halo3d (recursive
 *     coordinate bisection of the process grid with exact part sizes; our
 *     own start, it beats Scotch's partition on grids: 88,064 vs 136,952
 *     remote communications for a 65,536-task halo3d on 1,024 nodes, see
 *     bench_placement), and a graph partitioning of the task graph by Scotch
 *     (libscotch: mapping onto a complete graph whose vertex weights are the
 *     per-node counts; consecutive ranks are grouped first on large jobs so
 *     Scotch sees at most CT_PLACE_SCOTCH_MAX_VERTICES vertices), repaired
 *     to the exact counts by greedy moves (halos of more than 4,096 tasks
 *     skip Scotch: the tiling is the better partition there and Scotch
 *     would take most of the launch-time budget). Each start is screened with the
 *     model on its node-level graph (the scorer's evaluation; for a trace,
 *     all its communications in flight at once);
 *  2. refinement of the best-screened start by swaps of two tasks between
 *     nodes, scored by a proxy so that a swap costs O(degree): the busiest
 *     NIC, the larger of the remote bytes a node sends and receives with the
 *     whole pattern in flight (001 §V-A: a GigE penalty grows with the
 *     node's out/in degree), ties broken by the number of nodes at that
 *     maximum, then by the bytes crossing the network. Swaps are accepted on
 *     the proxy; the refined layout as a whole is then screened with the
 *     model like the starts and kept only if the model prefers it;
 *  3. verification: for a named pattern the screening is already the
 *     scorer's evaluation (progressive, or first-instant penalties past the
 *     scorer's bounds, one method for all candidates); a trace is replayed
 *     by the simulator for block, cyclic and the best screened layout.
 *     The result is the best of those, ties going to block then cyclic, so
 *     it is never predicted slower than the better of block and cyclic.
 * A caller on the launch path bounds the search with max_work (below): a
 * deterministic work count, the optional steps left out when they do not
 * fit (our own extension, as the search itself).
 * Alltoall is timed from the per-node counts alone (000/002 eq. 5): every
 * placement with the counts kept is predicted the same, and block is
 * returned with a note.
 */
#ifndef CONTENTION_PLACEMENT_H
#define CONTENTION_PLACEMENT_H

#include <stdint.h>

#include "contention/error.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/signatures.h"
#include "contention/trace.h"

/* Scotch sees at most this many vertices (consecutive ranks grouped above). */
#define CT_PLACE_SCOTCH_MAX_VERTICES 4096

/* Work units of the search per millisecond on the reference host (the
 * project's 2-core build host, release build; measured with bench_placement,
 * doc/plugin.md): how a caller turns a time budget into max_work. A
 * unit is about one task-graph entry or trace event visited. */
#define CT_PLACE_WORK_PER_MS 100000

typedef struct ct_place_request {
    const ct_alloc *alloc;
    int32_t ntasks;        /* <= 0: one task per slot, or the trace's tasks */
    int32_t cpus_per_task; /* >= 1 (0 is taken as 1) */
    ct_pattern pattern;
    uint64_t seed;         /* the refinement's visiting order */
    int32_t max_passes;    /* refinement passes over the tasks (0: 8) */
    /* Cap on the search's work in units (CT_PLACE_WORK_PER_MS per ms), 0:
     * none. Deterministic (estimated from sizes, not read from a clock): the
     * same job and cap give the same placement on any host. What must be done
     * (task graph, block and cyclic screened) is always done; the optional
     * steps are skipped when their estimate does not fit in what is left,
     * in this order: tiling, Scotch, refinement (cut short), and for a trace
     * the replays (block, cyclic and the best screened layout are then
     * compared on the screening, all communications in flight; the result's
     * note says so). */
    uint64_t max_work;
    /* CT_PAT_TRACE: the trace already read with collectives expanded
     * (ct_trace_load_expanded_bounded), or NULL to read pattern.trace here
     * (with pattern.trace_limits). Not modified; owned by the caller. */
    const ct_trace *trace;
    /* the switch tree over the allocation's nodes (topology.h), NULL for one
     * switch: every start, the refined layout and the verification are then
     * priced by the link model (penalty_links.c: NICs and uplinks), the
     * same evaluation ct_score makes with ct_score_request.tree. The swap
     * proxy of step 2 still counts NIC bytes only. */
    const struct ct_tree_map *tree;
} ct_place_request;

typedef struct ct_place_cand {
    char name[16];        /* "block", "cyclic", "switch", "switch-cyclic", "tiles", "scotch",
                           * "refined" */
    double proxy_bytes;   /* busiest NIC, bytes (in or out) */
    int64_t remote_comms; /* task-level communications crossing the network */
    double predicted_s;   /* full model, or < 0 when not verified */
} ct_place_cand;

typedef struct ct_place_result {
    ct_layout layout;      /* the placement (dist CT_DIST_EXPLICIT unless block/cyclic won) */
    char chosen[16];       /* name of the candidate returned */
    double predicted_s;    /* its predicted time */
    double block_s, cyclic_s;
    double gain;           /* (min(block_s, cyclic_s) - predicted_s) / min(...), >= 0 */
    int32_t ntasks;
    int32_t swaps;         /* swaps accepted by the refinement */
    int progressive;       /* 1: verified progressively, 0: first-instant penalties */
    int replayed;          /* trace: 1 when the candidates were replayed (step 3) */
    int phased;            /* phased halo: 1 when block, cyclic and the placement were
                            * timed phase by phase (step 3) */
    uint64_t work;         /* work units spent (estimated as for max_work) */
    double search_s;       /* wall-clock time of steps 1-2 (reading a trace included) */
    double verify_s;       /* wall-clock time of step 3 */
    int ncand;
    ct_place_cand cand[7];
    char note[256];
} ct_place_result;

/* Search a placement for req on fabric (see above). out->layout is owned by
 * the caller: free it with ct_place_result_free. */
int ct_place_search(const ct_fabric *fabric, const ct_place_request *req, ct_place_result *out,
                    ct_err *err);
void ct_place_result_free(ct_place_result *r);

/* 1 when a search result is a launchable improvement: an explicit placement
 * (explicit_layout) predicted, predicted_s >= 0, strictly faster than
 * scorer_best_s, the scorer's winner. The search's own gain compares it
 * with ITS block and cyclic, which for a trace whose replay the work cap
 * skipped are screenings, not the scorer's replayed times; a tie keeps the
 * scorer's layout. The plugin (ctp_optimized_beats) and contention-admin
 * score decide with it. */
int ct_place_beats(int explicit_layout, double predicted_s, double scorer_best_s);

/* Predicted time of one explicit layout, with the scorer's evaluation
 * (progressive unless the graph is too large, see score.h). */
int ct_place_predict(const ct_fabric *fabric, const ct_pattern *p, const ct_layout *l,
                     double *predicted_s, ct_err *err);

#endif
