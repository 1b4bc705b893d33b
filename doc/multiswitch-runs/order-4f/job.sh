#!/bin/bash
run() { # layout
    local o i
    for i in 1 2 3; do
        o=$(srun --kill-on-bad-exit=1 --mpi=pmix -m $1 "/var/tmp/ms-tree/build/bench/mpi/ct-mpibench" alltoall --sizes 1M \
            --reps 3 --max-time 60 --no-header 2>&1) && break
    done
    grep -E '^# times:' <<<"$o" | sed "s/^/alltoall $1 /"
}
for i in $(seq 8); do
    if [ $((i % 2)) = 1 ]; then run block; run cyclic; else run cyclic; run block; fi
done
