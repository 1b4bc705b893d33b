#!/bin/bash
# run.sh JOB RESULTS: bring up the emulated 4-node 100 Mbit/s cluster, run JOB
# (job.sh or job2.sh, beside this script) in one 4 x 4 allocation and write its
# lines, with the load before and after, to RESULTS; the cluster is torn down
# on exit. Run from the repository under `flock /tmp/ct-cluster.lock`
# (session 17 ran it as /var/tmp/halo-order/run.sh job.sh results.txt, then
# job2.sh results2.txt).
here=$(cd "$(dirname "$0")" && pwd)
job=$here/${1:-job.sh} out=${2:-$here/results.txt}
cd "$(dirname "$0")/../../.." || exit 1
trap 'scripts/emucluster down >/dev/null 2>&1' EXIT
scripts/emucluster up 4 100mbit --tasks-per-node 4 >/dev/null
eval "$(scripts/emucluster env)"
echo "load $(uptime | sed 's/.*load average: //') $(date -u +%H:%M:%S)" >"$out"
timeout 900 salloc -p emu -N 4 --ntasks-per-node=4 "$job" >>"$out" 2>&1
echo "load-after $(uptime | sed 's/.*load average: //') $(date -u +%H:%M:%S)" >>"$out"
