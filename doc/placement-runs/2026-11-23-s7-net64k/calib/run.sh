#!/bin/bash
# Issue 13 on a second network: 100 Mbit/s with a 64 KiB token bucket and
# 50 ms queues (CT_EMU_BURST, CT_EMU_*_QUEUE of scripts/emucluster): the
# cluster calibrated first (calibrate --incast, under the cluster lock), then
# scripts/placement-validation with that signature (it takes the lock itself).
set -u
cd /var/tmp/pv-tree
export CT_BUILD_ROOT=/var/tmp/pv-tree/build CT_EMU_BURST=65536 CT_EMU_NIC_QUEUE=50ms CT_EMU_SWITCH_QUEUE=50ms
D=/var/tmp/pv-s7/net2
A=$CT_BUILD_ROOT/admin/contention-admin
(
    flock 9
    echo "calibrate start $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
    scripts/emucluster up 4 100mbit --tasks-per-node 4 >/dev/null || exit 1
    eval "$(scripts/emucluster env)"
    $A calibrate --fabric emu --partition emu --nodes 4 --tasks-per-node 4 --incast --reps 5 \
        --raw $D/raw --out $D/cal-incast.yaml > $D/calibrate-incast.log 2>&1
    echo "calibrate rc $? $(date -u +%FT%TZ)"
    scripts/emucluster down >/dev/null 2>&1
) 9>/tmp/ct-cluster.lock
scripts/placement-validation --signature $D/cal-incast.yaml --keep $D/full --reps 5 --out $D/accuracy.md
echo "done $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
