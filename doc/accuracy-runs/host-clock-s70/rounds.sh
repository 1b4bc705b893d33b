#!/bin/bash
# inside salloc -N4 --ntasks-per-node=4: the rounds of rules-s70.txt
OLD=/var/tmp/s70/ct-mpibench.old NEW=/var/tmp/s70/ct-mpibench.new
one() { # arm case
    local arm=$1 c=$2 b hc=--host-clock dist= size i o
    case $arm in old) b=$OLD ;; new) b=$NEW ;; none) b=$NEW hc= ;; esac
    case $c in cyc256) dist=--distribution=cyclic size=262144 ;; cyc1m) dist=--distribution=cyclic size=1048576 ;; blk1m) size=1048576 ;; esac
    for i in 1 2 3; do
        o=$(srun --kill-on-bad-exit=1 --mpi=pmix $dist "$b" pattern --pattern halves --size $size --reps 5 $hc 2>&1) && break
        echo "RETRY $arm $c try $i" 
    done
    grep -E '^pattern,|^# pause|^# pattern-host' <<<"$o" | sed "s/^/$round $arm $c: /"
}
arms=(old new none)
for round in 1 2 3 4 5 6; do
    r=$(( (round - 1) % 3 ))
    order=("${arms[@]:$r}" "${arms[@]:0:$r}")
    for c in cyc256 cyc1m blk1m; do
        for a in "${order[@]}"; do one $a $c; done
    done
done
