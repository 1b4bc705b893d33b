#!/bin/bash
# A loaded-latency probe (session 18, not kept in ct-mpibench): apply
# latency-probe.patch to bench/mpi/ct_mpibench.c and rebuild first. On 2
# emulated nodes at 100 Mbit/s with queues of 20, 100, 50 and 10 ms: one
# rank per node streams 1 MiB messages for 3 s while a second pair
# ping-pongs 1 byte; the round trips before (idle) and during (loaded).
#   flock /tmp/ct-cluster.lock doc/accuracy-runs/flows-s18/latency.sh > latency.txt
cd "$(dirname "$0")/../../.." || exit 1
export CT_EMU_DIR=${CT_EMU_DIR:-/var/tmp/flows/cluster} CT_BUILD_ROOT=${CT_BUILD_ROOT:-$PWD/build}
B=$CT_BUILD_ROOT/bench/mpi/ct-mpibench
for Q in 20ms 100ms 50ms 10ms; do
  export CT_EMU_NIC_QUEUE=$Q CT_EMU_SWITCH_QUEUE=$Q
  scripts/emucluster up 2 100mbit --tasks-per-node 2 >/dev/null || exit 1
  eval "$(scripts/emucluster env)"
  for i in 1 2; do
    salloc -p emu -N2 --ntasks-per-node=2 srun --kill-on-bad-exit=1 --mpi=pmix $B latency --size 1M --duration 3 2>&1 | sed "s/^/$Q $i /"
  done
  scripts/emucluster down >/dev/null
done
