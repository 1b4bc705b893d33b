#!/bin/bash
# session 65: calibrate as a site does, then placement-validation, then app-validation (rules-s65.txt)
set -u
cd /var/tmp/runsrc
export CT_BUILD_ROOT=/var/tmp/b
W=/var/tmp/pv65/2026-12-07-s65
mkdir -p $W/calib
A=$CT_BUILD_ROOT/admin/contention-admin
echo "calibrate start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
(
  flock 9
  export CT_EMU_DIR=/var/tmp/pv65/calcluster
  trap 'scripts/emucluster down >/dev/null 2>&1 || true' EXIT
  scripts/emucluster up 4 100mbit --tasks-per-node 4 >/dev/null || exit 1
  eval "$(scripts/emucluster env)"
  scripts/emucluster tcp-cc > $W/calib/tcp-cc 2>&1
  $A calibrate --fabric emu --partition emu --nodes 4 --tasks-per-node 4 --incast \
      --raw $W/calib/raw --out $W/signature.yaml > $W/calib/calibrate.log 2>&1
  echo "calibrate rc $? $(date -u +%FT%TZ)"
) 9>/tmp/ct-cluster.lock
[ -s $W/signature.yaml ] || { echo "no signature"; exit 1; }
echo "placement start $(date -u +%FT%TZ)"
scripts/placement-validation --signature $W/signature.yaml --keep $W --out /var/tmp/pv65/accuracy.md > /var/tmp/pv65/pv.log 2>&1
echo "placement rc $? $(date -u +%FT%TZ)"
echo "apps start $(date -u +%FT%TZ)"
scripts/app-validation --signature $W/signature.yaml --keep /var/tmp/pv65/apps-2026-12-07-s65 --out /var/tmp/pv65/accuracy.md > /var/tmp/pv65/apps.log 2>&1
echo "apps rc $? $(date -u +%FT%TZ)"
