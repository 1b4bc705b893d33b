#!/bin/bash
# inside salloc: score, one auto step, then REPS rounds of block/cyclic/optimized
n=$SLURM_NTASKS
run() { # tag srun-args... : retried up to 3 times; prints "tag t_avg_s layout"
    local tag=$1 i o
    shift
    for i in 1 2 3; do
        o=$(timeout -k 5 120 srun --kill-on-bad-exit=1 --mpi=pmix -n $n "$@" 2>&1) &&
            grep -q '^pattern,' <<<"$o" && {
            echo "$tag $(awk -F, '/^pattern,/ { split($8, a, ":"); print $4, a[2] }' <<<"$o")"
            return 0; }
        echo "# $tag attempt $i failed: $(tail -2 <<<"$o" | tr '\n' ' ')"
    done
}
echo "# uptime at start: $(uptime | sed 's/.*load average: //')"
echo "# date at start: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# alloc $SLURM_JOB_CPUS_PER_NODE $SLURM_JOB_NODELIST ntasks $n"
run record -m block --contention-record=/var/tmp/pv66/2026-12-07-s66-recorded/halo2d-recorded-4/rec.trace /var/tmp/b/bench/mpi/ct-mpibench pattern --pattern halo2d --size 1M --reps 1 --warmup 0 --no-header
timeout 60 "/var/tmp/b/admin/contention-admin" score --config "/work/main/doc/placement-runs/2026-12-07-s65/signature.yaml" --cpus-per-node "$SLURM_JOB_CPUS_PER_NODE" --ntasks $n \
    --nodelist "$SLURM_JOB_NODELIST" --pattern trace:/var/tmp/pv66/2026-12-07-s66-recorded/halo2d-recorded-4/rec.trace --hostfile-out "/var/tmp/pv66/2026-12-07-s66-recorded/halo2d-recorded-4/optimized.hosts" >"/var/tmp/pv66/2026-12-07-s66-recorded/halo2d-recorded-4/score.txt" 2>&1 ||
    echo "# score failed: $(tail -1 "/var/tmp/pv66/2026-12-07-s66-recorded/halo2d-recorded-4/score.txt")"
# the plugin's own decision (one step; its contention: line goes to stderr)
o=$(timeout -k 5 120 srun -v --mpi=pmix -n $n --contention=auto --contention-pattern=trace:/var/tmp/pv66/2026-12-07-s66-recorded/halo2d-recorded-4/rec.trace \
    /var/tmp/b/bench/mpi/ct-mpibench pattern --pattern halo2d --size 1M  --reps 5 --warmup 1 --no-header 2>&1)
echo "# auto: $(grep -o 'contention: .*' <<<"$o" | head -1)"
echo "auto $(awk -F, '/^pattern,/ { split($8, a, ":"); print $4, a[2] }' <<<"$o")"
opt=0
grep -q '^optimized: [0-9.e+-]* s predicted' "/var/tmp/pv66/2026-12-07-s66-recorded/halo2d-recorded-4/score.txt" && opt=1
for r in $(seq 5); do
    for m in block cyclic optimized; do
        if [ $m = optimized ]; then
            [ $opt = 1 ] || continue
            SLURM_HOSTFILE=/var/tmp/pv66/2026-12-07-s66-recorded/halo2d-recorded-4/optimized.hosts run "$m $r" -m arbitrary \
                /var/tmp/b/bench/mpi/ct-mpibench pattern --pattern halo2d --size 1M  --reps 5 --warmup 1 --no-header
        else
            run "$m $r" -m $m /var/tmp/b/bench/mpi/ct-mpibench pattern --pattern halo2d --size 1M  --reps 5 --warmup 1 --no-header
        fi
    done
done
echo "# uptime at end: $(uptime | sed 's/.*load average: //')"
