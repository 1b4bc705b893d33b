#!/bin/bash
# Do dependent network phases cost more than their bytes? halo2d on a 2 x 2
# grid, 4 nodes x 1 task, 1 MiB: concurrent (both neighbours at once: every
# NIC 2 MiB each way to 2 peers) against phased (one dimension, then the
# other: 1 MiB each way to 1 peer, twice), and halves (1 MiB each way to 1
# peer, once) for the single phase alone; 4 interleaved rounds.
set -u
cd /var/tmp/pv-tree
export CT_BUILD_ROOT=/var/tmp/pv-tree/build
B=$CT_BUILD_ROOT/bench/mpi/ct-mpibench
scripts/emucluster up 4 100mbit --tasks-per-node 4 >/dev/null || exit 1
trap 'scripts/emucluster down >/dev/null 2>&1' EXIT
eval "$(scripts/emucluster env)"
echo "# start $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
one() { # label pattern extra...
    local o l=$1 p=$2
    shift 2
    o=$(timeout 120 salloc -p emu -N 4 -n 4 --ntasks-per-node=1 srun --mpi=pmix -m block "$B" pattern \
        --pattern "$p" --size 1M --reps 10 --warmup 2 --no-header "$@" 2>&1) || true
    echo "$l $(awk -F, '/^pattern,/ { print $4, $5, $8 }' <<<"$o")"
}
for r in 1 2 3 4; do
    one halves halves
    one concurrent halo2d
    one phased halo2d --phased
done
echo "# end $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
