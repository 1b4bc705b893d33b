#!/bin/bash
# halo2d 256 KiB and 1 MiB, 4 nodes x 4 tasks: block and cyclic, each with the
# benchmark's own posting order (dimension 0 first) and with --last-dim-first,
# three interleaved rounds
B=/work/main/build/bench/mpi/ct-mpibench
for round in 1 2 3; do
    for s in 256K 1M; do
        for order in "" --last-dim-first; do
            for d in block cyclic; do
                for i in 1 2 3; do
                    o=$(srun --kill-on-bad-exit=1 --mpi=pmix --distribution=$d "$B" pattern \
                        --pattern halo2d --size $s --reps 5 $order 2>&1) && break
                done
                grep -E '^pattern,' <<<"$o" | sed "s/^/round $round: /"
            done
        done
    done
done
