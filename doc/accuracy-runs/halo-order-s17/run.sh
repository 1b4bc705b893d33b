#!/bin/bash
cd /work/main
trap 'scripts/emucluster down >/dev/null 2>&1' EXIT
scripts/emucluster up 4 100mbit --tasks-per-node 4 >/dev/null
eval "$(scripts/emucluster env)"
echo "load $(uptime | sed 's/.*load average: //') $(date -u +%H:%M:%S)" > /var/tmp/halo-order/results.txt
timeout 900 salloc -p emu -N 4 --ntasks-per-node=4 /var/tmp/halo-order/job.sh >> /var/tmp/halo-order/results.txt 2>&1
echo "load-after $(uptime | sed 's/.*load average: //') $(date -u +%H:%M:%S)" >> /var/tmp/halo-order/results.txt
