#!/bin/bash
# Many flows through one port at 2 nodes against 4 (session 18): the Alltoall
# at 2 x 1, 2 x 4, 2 x 6, 2 x 7, 4 x 2, 4 x 4 tasks, 256 and 512 KiB, two
# rounds, on the emulated 100 Mbit/s network with queues of $Q (default
# 20ms). Run as root from anywhere, under the cluster lock:
#   Q=100ms flock /tmp/ct-cluster.lock doc/accuracy-runs/flows-s18/run.sh > out-q100.txt
cd "$(dirname "$0")/../../.." || exit 1
export CT_EMU_DIR=${CT_EMU_DIR:-/var/tmp/flows/cluster} CT_BUILD_ROOT=${CT_BUILD_ROOT:-$PWD/build}
[ -n "${Q:-}" ] && export CT_EMU_NIC_QUEUE=$Q CT_EMU_SWITCH_QUEUE=$Q
scripts/emucluster up 4 100mbit --tasks-per-node 8 >/dev/null || exit 1
eval "$(scripts/emucluster env)"
B=$CT_BUILD_ROOT/bench/mpi/ct-mpibench
for round in 1 2; do
  for cfg in 2x1 2x4 2x7 4x2 4x4 2x6; do
    N=${cfg%x*}; T=${cfg#*x}
    for i in 1 2 3; do
      o=$(salloc -p emu -N$N --ntasks-per-node=$T srun --kill-on-bad-exit=1 --mpi=pmix $B alltoall --sizes 256K,512K --reps 5 --no-header 2>&1) && break
    done
    echo "$o" | grep '^alltoall' | sed "s/^/$round $cfg /"
  done
done
scripts/emucluster down >/dev/null
