#!/bin/bash
# session 65 (rules-s65b.txt): the Alltoall of 4 nodes x 3 tasks measured on a cluster of each
# listed run's shape (its setup/network files), as calibrate times its steps, into
# /var/tmp/s65/x43/RUN/alltoall-4x3.csv
set -u
cd /var/tmp/runsrc
export CT_BUILD_ROOT=/var/tmp/b
B=/var/tmp/b/bench/mpi/ct-mpibench
while read -r run; do
  [ -z "$run" ] && continue
  R=/work/main/doc/accuracy-runs/$run O=/var/tmp/s65/x43/$run
  mkdir -p $O
  read -r nodes rate _ < $R/setup
  read -r burst queue nicq cc < $R/network
  sizes=$(sed -n 's/^alltoall,16,\([0-9]*\),.*/\1/p' $R/raw/alltoall-4x4.csv | paste -sd,)
  echo "start $run $(date -u +%H:%M:%S) $rate $burst $queue $nicq $cc sizes $sizes"
  (
    flock 9
    export CT_EMU_DIR=/var/tmp/s65/x43cluster
    trap 'scripts/emucluster down >/dev/null 2>&1 || true' EXIT
    [ "$burst" != default ] && export CT_EMU_BURST=$burst
    export CT_EMU_SWITCH_QUEUE=$queue CT_EMU_NIC_QUEUE=$nicq CT_EMU_TCP_CC=$cc
    scripts/emucluster up 4 $rate --tasks-per-node 8 >/dev/null || exit 1
    eval "$(scripts/emucluster env)"
    echo "$(scripts/emucluster tcp-cc) $(uptime | sed 's/.*load average: //')" > $O/cluster
    for try in 1 2 3; do
      srun -N4 --ntasks-per-node=3 -n12 --kill-on-bad-exit=1 --quiet --mpi=pmix $B alltoall \
          --sizes $sizes --reps 5 --wait polled < /dev/null > $O/alltoall-4x3.csv 2> $O/alltoall-4x3.csv.err && break
      echo "try $try failed" >> $O/cluster
    done
  ) 9>/tmp/ct-cluster.lock
  echo "end $run $(date -u +%H:%M:%S) $(grep -c '^alltoall,' $O/alltoall-4x3.csv)"
done < ${1:-/var/tmp/s65/x43-order.txt}   # (session 65: order.txt here)
echo "x43 done $(date -u +%H:%M:%S)"
