#!/bin/bash
# live calibration of the 4-node 100 Mbit/s emulated cluster (default bucket and queues),
# the way a site installs the plugin: calibrate --incast, then the papers' fit of the same raw
set -u
cd /var/tmp/pv-tree
export CT_BUILD_ROOT=/var/tmp/pv-tree/build
D=/var/tmp/pv-s7
A=$CT_BUILD_ROOT/admin/contention-admin
echo "start $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
scripts/emucluster up 4 100mbit --tasks-per-node 4 >/dev/null || exit 1
eval "$(scripts/emucluster env)"
$A calibrate --fabric emu --partition emu --nodes 4 --tasks-per-node 4 --incast --reps 5 \
    --raw $D/raw --out $D/cal-incast.yaml > $D/calibrate-incast.log 2>&1
echo "calibrate rc $? $(date -u +%FT%TZ) load $(uptime | sed 's/.*load average: //')"
scripts/emucluster down >/dev/null 2>&1
$A calibrate --fabric emu --from $D/raw --out $D/cal-gige.yaml > $D/calibrate-gige.log 2>&1
echo "refit rc $?"
