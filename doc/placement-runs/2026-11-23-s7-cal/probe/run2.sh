#!/bin/bash
# Does a NIC cost more when its bytes go to 2 peer nodes instead of 1 (the
# duplex model's incast term, 1 + eps (k - 1))? Equal bytes per NIC direction
# (2 MiB each way), all 4 NICs busy, 1 MiB messages:
#   1peer: ct-mpibench halves, 4 nodes x 2 tasks (-m block): node 0 <-> 2, 1 <-> 3
#   2peers: ct-mpibench halo2d, 4 nodes x 1 task: 2 x 2 grid, node 0 <-> 1, 2; 3 <-> 1, 2
# and 4 MiB each way (4 tasks per node halves; halo2d on 4 nodes x 4 tasks as
# the optimized 2 x 2 tiles would need a hostfile: 2peers-4 uses 4 x 1 tasks and 4 MiB messages).
set -u
cd /var/tmp/pv-tree
export CT_BUILD_ROOT=/var/tmp/pv-tree/build
B=$CT_BUILD_ROOT/bench/mpi/ct-mpibench
scripts/emucluster up 4 100mbit --tasks-per-node 4 >/dev/null || exit 1
trap 'scripts/emucluster down >/dev/null 2>&1' EXIT
eval "$(scripts/emucluster env)"
echo "# start $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
one() { # label nodes tasks pattern size
    local o
    o=$(timeout 120 salloc -p emu -N "$2" -n "$3" --ntasks-per-node=$(( $3 / $2 )) srun --mpi=pmix -m block "$B" pattern --pattern "$4" \
        --size "$5" --reps 10 --warmup 2 --no-header 2>&1) || true
    echo "$1 $(awk -F, '/^pattern,/ { print $4, $5, $8 }' <<<"$o")"
}
for r in 1 2 3 4; do
    [ "${ONLY:-}" ] && { one "1peer-2MiB" 4 8 halves 1M; continue; }
    one "1peer-2MiB" 4 8 halves 1M
    one "2peers-2MiB" 4 4 halo2d 1M
    one "1peer-4MiB" 4 16 halves 1M
    one "2peers-4MiB" 4 4 halo2d 2M
done
echo "# end $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
