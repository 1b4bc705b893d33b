#!/bin/bash
# a step still listed by slurmctld makes the plugin leave the next one to
# Slurm ('step N of this job is running ... layout left to Slurm'): wait
# until only the allocation's own steps are left (<= 60 s)
idle() {
    local i
    for i in $(seq 120); do
        squeue -h -s -j $SLURM_JOB_ID -o %i | grep -q '\.[0-9][0-9]*$' || return 0
        sleep 0.5
    done
}
for p in ring halves halo2d alltoall; do
    idle
    srun -v --contention=report --contention-pattern=$p --contention-size=1M hostname 2>&1 |
        grep 'contention:' | sed "s/^/plugin $p /"
done
run() { # pattern layout srun-options...
    local p=$1 d=$2 o i; shift 2
    for i in 1 2 3; do
        idle
        if [ "$p" = alltoall ]; then
            o=$(srun --kill-on-bad-exit=1 --mpi=pmix "$@" "/var/tmp/b/bench/mpi/ct-mpibench" alltoall --sizes 1M                 --reps 7 --max-time 60 --no-header 2>&1) && break
        else
            o=$(srun --kill-on-bad-exit=1 --mpi=pmix "$@" "/var/tmp/b/bench/mpi/ct-mpibench" pattern --pattern $p                 --size 1M --reps 7 --no-header 2>&1) && break
        fi
    done
    grep -E '^# times:|^(pattern|alltoall),|contention:' <<<"$o" | sed "s/^/$p $d /"
}
for p in ring halves halo2d alltoall; do
    run $p block -m block
    run $p cyclic -m cyclic
    # where the plugin puts each task of the optimized step (the same
    # decision as the timed step's: same fabric, pattern, size, allocation)
    idle
    srun -l --contention=optimized --contention-pattern=$p --contention-size=1M         printenv SLURMD_NODENAME 2>/dev/null | sort -n | sed "s/^/$p layout /"
    run $p optimized -v --contention=optimized --contention-pattern=$p --contention-size=1M
done
