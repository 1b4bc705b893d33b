#!/bin/bash
for p in ring halves halo2d alltoall; do
    srun -v --contention=report --contention-pattern=$p --contention-size=1M hostname 2>&1 |
        grep 'contention:' | sed "s/^/plugin $p /"
done
run() { # pattern layout srun-options...
    local p=$1 d=$2 o i; shift 2
    for i in 1 2 3; do
        if [ "$p" = alltoall ]; then
            o=$(srun --kill-on-bad-exit=1 --mpi=pmix "$@" "/work/wt/topo/build/bench/mpi/ct-mpibench" alltoall --sizes 1M                 --reps 7 --no-header 2>&1) && break
        else
            o=$(srun --kill-on-bad-exit=1 --mpi=pmix "$@" "/work/wt/topo/build/bench/mpi/ct-mpibench" pattern --pattern $p                 --size 1M --reps 7 --no-header 2>&1) && break
        fi
    done
    grep -E '^# times:|^(pattern|alltoall),|^contention:' <<<"$o" | sed "s/^/$p $d /"
}
for p in ring halves halo2d alltoall; do
    run $p block -m block
    run $p cyclic -m cyclic
    run $p optimized -v --contention=optimized --contention-pattern=$p --contention-size=1M
done
