#!/bin/bash
# The per-network-phase excess against the queue length: the same four
# layouts on 4-node 100 Mbit/s emulated clusters whose tbf queues (NIC and
# switch side) are 5, 20 (the default) and 100 ms. Run under the cluster
# lock: flock /tmp/ct-cluster.lock doc/placement-runs/2026-11-23-s6-phases/run.sh
cd /work/main
D=doc/placement-runs/2026-11-23-s6-phases
for Q in 5ms 20ms 100ms; do
    CT_EMU_NIC_QUEUE=$Q CT_EMU_SWITCH_QUEUE=$Q scripts/emucluster up 4 100mbit --tasks-per-node 2 >$D/up.log 2>&1 ||
        { cat $D/up.log; scripts/emucluster down >/dev/null 2>&1; exit 1; }
    eval "$(scripts/emucluster env)"
    Q=$Q timeout 900 salloc -p emu -N4 -n8 $D/job.sh
    scripts/emucluster down >/dev/null 2>&1
done
rm -f $D/up.log
