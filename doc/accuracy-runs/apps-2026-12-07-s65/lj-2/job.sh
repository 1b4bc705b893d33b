#!/bin/bash
# inside salloc: record once, score, ask the plugin, then rounds of block and
# cyclic (and optimized when score wrote a hostfile) until 5 rounds are in
# times.txt or this hold has run for 420 s (the next hold resumes)
export GMX_MAXBACKUP=-1
t_start=$(date +%s)
looptime() { # output -> the application's own timing of its timed steps
    case lj in
    gmx) awk '/^ +Time:/ { print $3 }' "/var/tmp/pv65/apps-2026-12-07-s65/lj-2/run/md.log" 2>/dev/null | tail -1 ;;
    *) sed -n 's/^Loop time of \([0-9.e+-]*\) .*/\1/p' <<<"$1" | tail -1 ;;
    esac
}
run() { # tag srun-args... : retried up to 3 times; prints "tag wall loop"
    local tag=$1 i o t0 t1
    shift
    for i in 1 2 3; do
        rm -f "/var/tmp/pv65/apps-2026-12-07-s65/lj-2/run/md.log"
        t0=$(date +%s.%N)
        o=$(timeout -k 5 300 srun --kill-on-bad-exit=1 --mpi=pmix --chdir="/var/tmp/pv65/apps-2026-12-07-s65/lj-2/run" "$@" 2>&1) && {
            t1=$(date +%s.%N)
            echo "$tag $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }') $(looptime "$o")"
            return 0; }
        echo "# $tag attempt $i failed: $(tail -2 <<<"$o" | tr '\n' ' ')"
    done
}
echo "# uptime at start: $(uptime | sed 's/.*load average: //')"
echo "# date at start: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# alloc $SLURM_JOB_CPUS_PER_NODE $SLURM_JOB_NODELIST"
if [ ! -s "/var/tmp/pv65/apps-2026-12-07-s65/lj-2/rec.trace" ]; then
    run record -m block --export=ALL,LD_PRELOAD=/var/tmp/b/recorder/libcontention-record.so,CONTENTION_RECORD_FILE=/var/tmp/pv65/apps-2026-12-07-s65/lj-2/rec.trace,CONTENTION_RECORD_SECONDS=0 \
        lmp -in /var/tmp/pv65/apps-2026-12-07-s65/in.lj -var n 16 -var steps 20 -log none
    timeout 90 "/var/tmp/b/admin/contention-admin" score --config "/var/tmp/pv65/2026-12-07-s65/signature.yaml" --cpus-per-node "$SLURM_JOB_CPUS_PER_NODE" --ntasks 8 \
        --nodelist "$SLURM_JOB_NODELIST" --pattern "trace:/var/tmp/pv65/apps-2026-12-07-s65/lj-2/rec.trace" \
        --hostfile-out "/var/tmp/pv65/apps-2026-12-07-s65/lj-2/optimized.hosts" >"/var/tmp/pv65/apps-2026-12-07-s65/lj-2/score.txt" 2>&1 || echo "# score failed: $(tail -1 "/var/tmp/pv65/apps-2026-12-07-s65/lj-2/score.txt")"
    # the plugin's own decision from the recording, at the site's default
    # budget (report: one line; auto: the layout it launches, srun -l hostname)
    timeout -k 5 120 srun --contention=report --contention-pattern=trace:/var/tmp/pv65/apps-2026-12-07-s65/lj-2/rec.trace true 2>&1 |
        grep 'contention:' >"/var/tmp/pv65/apps-2026-12-07-s65/lj-2/plugin.txt" || true
    timeout -k 5 120 srun -v --contention=auto --contention-pattern=trace:/var/tmp/pv65/apps-2026-12-07-s65/lj-2/rec.trace -l printenv SLURMD_NODENAME 2>&1 |
        grep -E 'contention:|^ *[0-9]+: ' >>"/var/tmp/pv65/apps-2026-12-07-s65/lj-2/plugin.txt" || true
fi
done_rounds=$(awk '$1 == "cyclic" && NF >= 4' "/var/tmp/pv65/apps-2026-12-07-s65/lj-2/times.txt" 2>/dev/null | wc -l)
for r in $(seq $((done_rounds + 1)) 5); do
    [ $(($(date +%s) - t_start)) -lt 420 ] || { echo "# hold time used up after round $((r - 1))"; break; }
    for m in block cyclic optimized; do
        if [ $m = optimized ]; then
            # only an explicit placement (score kept block or cyclic: already measured)
            [ -n "1" ] && grep -q '^optimized: [0-9]' "/var/tmp/pv65/apps-2026-12-07-s65/lj-2/score.txt" 2>/dev/null || continue
            SLURM_HOSTFILE=/var/tmp/pv65/apps-2026-12-07-s65/lj-2/optimized.hosts run "$m $r" -m arbitrary lmp -in /var/tmp/pv65/apps-2026-12-07-s65/in.lj -var n 16 -var steps 40 -log none
        else
            run "$m $r" -m $m lmp -in /var/tmp/pv65/apps-2026-12-07-s65/in.lj -var n 16 -var steps 40 -log none
        fi
    done
done
echo "# uptime at end: $(uptime | sed 's/.*load average: //')"
