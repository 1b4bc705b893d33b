#!/bin/bash
# experiment: per-rank clock vs host clock for ring/halves block on an emulated 4-node network
set -u
cd /var/tmp/s27/wt
export CT_EMU_DIR=/var/tmp/s27/cl CT_BUILD_ROOT=/var/tmp/s27/bd CT_EMU_NIC_QUEUE=1000g CT_EMU_SWITCH_QUEUE=${Q:-20ms}
[ -n "${BURST:-}" ] && export CT_EMU_BURST=$BURST
scripts/emucluster up 4 ${RATE:-100mbit} --tasks-per-node 8 >/dev/null || exit 1
trap 'scripts/emucluster down >/dev/null 2>&1' EXIT
eval "$(scripts/emucluster env)"
B=/var/tmp/s27/bd/bench/mpi/ct-mpibench
for round in 1 2; do
for tpn in 1 2 4; do
  salloc -p emu -N4 --ntasks-per-node=$tpn bash -c "
    for p in ring halves; do for s in 256K 1M; do for d in block cyclic; do
      [ \$p = halves ] && [ \$d = cyclic ] && continue
      for i in 1 2 3; do o=\$(srun --kill-on-bad-exit=1 --mpi=pmix --distribution=\$d $B pattern --pattern \$p --size \$s --reps 5 --host-clock 2>&1) && break; done
      echo \"== tpn $tpn \$p \$s \$d\"; grep -E '^# host clock|^pattern,' <<<\"\$o\"
    done; done; done" 2>/dev/null
done; done
