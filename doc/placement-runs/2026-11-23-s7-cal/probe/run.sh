#!/bin/bash
# Does the 2-core host limit the emulated network's aggregate throughput?
# The same pair exchange (ct-mpibench halves: rank i <-> i + n/2, 1 MiB, each
# pair of nodes exchanging both ways) on 1 node pair (2 NIC directions x 2
# busy) and on 2 node pairs at once (all 4 NICs busy both ways), with 1 and
# 4 tasks per node; rounds interleaved. Per-pair traffic is the same in both,
# so a network-only model predicts the same time.
set -u
cd /var/tmp/pv-tree
export CT_BUILD_ROOT=/var/tmp/pv-tree/build
B=$CT_BUILD_ROOT/bench/mpi/ct-mpibench
scripts/emucluster up 4 100mbit --tasks-per-node 4 >/dev/null || exit 1
trap 'scripts/emucluster down >/dev/null 2>&1' EXIT
eval "$(scripts/emucluster env)"
echo "# start $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
one() { # label nodes tasks
    local o
    o=$(timeout 120 salloc -p emu -N "$2" -n "$3" srun --mpi=pmix -m block "$B" pattern --pattern halves \
        --size 1M --reps 10 --warmup 2 --no-header 2>&1) || true
    echo "$1 $(awk -F, '/^pattern,/ { print $4, $5 }' <<<"$o")"
}
for r in 1 2 3 4; do
    one "1pair-1tpn" 2 2
    one "2pairs-1tpn" 4 4
    one "1pair-4tpn" 2 8
    one "2pairs-4tpn" 4 16
done
echo "# end $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
