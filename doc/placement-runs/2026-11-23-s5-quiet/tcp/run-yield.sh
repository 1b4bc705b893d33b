#!/bin/bash
cd /work/main
scripts/emucluster up 4 100mbit --tasks-per-node 2 >doc/placement-runs/2026-11-23-s5-quiet/tcp/up.log 2>&1 || { cat doc/placement-runs/2026-11-23-s5-quiet/tcp/up.log; exit 1; }
eval "$(scripts/emucluster env)"
timeout 500 salloc -p emu -N4 -n8 doc/placement-runs/2026-11-23-s5-quiet/tcp/job6.sh
scripts/emucluster down >/dev/null 2>&1
