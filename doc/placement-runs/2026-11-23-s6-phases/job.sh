#!/bin/bash
# inside salloc -N4 -n8 on a 4-node 100 Mbit/s scripts/emucluster (2 CPUs per
# node): halo2d 1 MiB as block concurrent, block phased, cyclic phased and
# the session-4 optimized placement phased (opt-halo2d-2.hosts), 3 rounds;
# one line per sample: queue layout mode t_avg_s (ct-mpibench pattern: mean
# step of the slowest rank over 5 steps after a warm-up)
B=/work/main/build/bench/mpi/ct-mpibench
D=/work/main/doc/placement-runs/2026-11-23-s6-phases
one() { # layout mode
    local ph= o i
    [ "$2" = phased ] && ph=--phased
    for i in 1 2 3; do
        if [ "$1" = optimized ]; then
            o=$(SLURM_HOSTFILE=$D/opt-halo2d-2.hosts timeout 120 srun --mpi=pmix -n 8 -m arbitrary $B pattern --pattern halo2d --size 1M $ph --reps 5 --warmup 1 --no-header 2>&1)
        else
            o=$(timeout 120 srun --mpi=pmix -n 8 -m "$1" $B pattern --pattern halo2d --size 1M $ph --reps 5 --warmup 1 --no-header 2>&1)
        fi
        grep -q '^pattern,' <<<"$o" && { echo "$Q $1 $2 $(awk -F, '/^pattern,/{print $4}' <<<"$o")"; return; }
        echo "# $Q $1 $2 attempt $i failed: $(tail -1 <<<"$o")"
    done
}
echo "# $Q: load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%MZ)"
for r in 1 2 3; do
    one block concurrent; one block phased; one cyclic phased; one optimized phased
done
