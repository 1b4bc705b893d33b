#!/bin/bash
# inside salloc: record once, score, then REPS rounds of block/cyclic/optimized
run() { # tag srun-args... : retried up to 3 times; prints "tag wall loop"
    local tag=$1 i o t0 t1
    shift
    for i in 1 2 3; do
        t0=$(date +%s.%N)
        o=$(srun --kill-on-bad-exit=1 --mpi=pmix "$@" 2>&1) && {
            t1=$(date +%s.%N)
            echo "$tag $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }') $(sed -n 's/^Loop time of \([0-9.e+-]*\) .*/\1/p' <<<"$o" | tail -1)"
            return 0; }
        echo "# $tag attempt $i failed: $(tail -2 <<<"$o" | tr '\n' ' ')"
    done
}
echo "# uptime at start: $(uptime | sed 's/.*load average: //')"
echo "# alloc $SLURM_JOB_CPUS_PER_NODE $SLURM_JOB_NODELIST"
rm -f "/tmp/apps-run2/lj-4/rec.trace"
run record -m block --export=ALL,LD_PRELOAD=/work/wt/apps/build/recorder/libcontention-record.so,CONTENTION_RECORD_FILE=/tmp/apps-run2/lj-4/rec.trace,CONTENTION_RECORD_SECONDS=0 \
    lmp -in /tmp/apps-run2/in.lj -var n 16 -var steps 20 -log none -screen none
timeout 90 "/work/wt/apps/build/admin/contention-admin" score --config "/work/wt/apps/tests/fixtures/traces/emu/emu100.yaml" --cpus-per-node "$SLURM_JOB_CPUS_PER_NODE" --ntasks 16 \
    --nodelist "$SLURM_JOB_NODELIST" --pattern "trace:/tmp/apps-run2/lj-4/rec.trace" \
    --hostfile-out "/tmp/apps-run2/lj-4/optimized.hosts" >"/tmp/apps-run2/lj-4/score.txt" 2>&1 || echo "# score failed: $(tail -1 "/tmp/apps-run2/lj-4/score.txt")"
for r in $(seq 3); do
    for m in block cyclic optimized; do
        if [ $m = optimized ]; then
            [ -s "/tmp/apps-run2/lj-4/optimized.hosts" ] || continue
            SLURM_HOSTFILE=/tmp/apps-run2/lj-4/optimized.hosts run "$m $r" -m arbitrary lmp -in /tmp/apps-run2/in.lj -var n 16 -var steps 40 -log none
        else
            run "$m $r" -m $m lmp -in /tmp/apps-run2/in.lj -var n 16 -var steps 40 -log none
        fi
    done
done
echo "# uptime at end: $(uptime | sed 's/.*load average: //')"
