#!/bin/bash
B=/work/main/build/bench/mpi/ct-mpibench
ext() { for k in 1 2; do ip netns exec ct-emu-$k awk '/^TcpExt:/{n++; if(n==1){for(i=1;i<=NF;i++)h[i]=$i} else {for(i=1;i<=NF;i++) if(h[i] ~ /^(TCPTimeouts|TCPLossProbes|TCPSackRecovery|TCPLostRetransmit|TCPFastRetrans|TCPSlowStartRetrans|TCPLossProbeRecovery)$/) printf "%s=%s ", h[i], $i}}' /proc/net/netstat; echo; done; }
for s in 'one=0>1' 'bidir=0>1,1>0' 'bidir2=0>1,0>1,1>0,1>0'; do
ext
srun --mpi=pmix -n 8 -m block $B conflict --size 1048576 --reps 20 --scheme "$s" 2>&1 | grep -v '^benchmark'
done
ext
