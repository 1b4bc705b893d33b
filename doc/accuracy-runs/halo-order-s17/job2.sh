#!/bin/bash
# the same at 256 KiB with cyclic measured before block in every round
B=/work/main/build/bench/mpi/ct-mpibench
for round in 1 2 3 4; do
    for d in cyclic block; do
        for i in 1 2 3; do
            o=$(srun --kill-on-bad-exit=1 --mpi=pmix --distribution=$d "$B" pattern \
                --pattern halo2d --size 256K --reps 5 2>&1) && break
        done
        grep -E '^pattern,' <<<"$o" | sed "s/^/round $round: /"
    done
done
