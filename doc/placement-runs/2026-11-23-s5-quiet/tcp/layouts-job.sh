#!/bin/bash
B=/work/main/build/bench/mpi/ct-mpibench
cnt() { local s=0 t=0 k a b
  for k in 1 2 3 4; do
    a=$(ip netns exec ct-emu-$k awk '/^Tcp:/{n++} n==2 && /^Tcp:/{print $13; exit}' /proc/net/snmp)
    b=$(ip netns exec ct-emu-$k awk '/^TcpExt:/{n++; if(n==1){for(i=1;i<=NF;i++)h[i]=$i} else {for(i=1;i<=NF;i++) if(h[i]=="TCPTimeouts") print $i}}' /proc/net/netstat)
    s=$((s+a)); t=$((t+b)); done; echo "$s $t"; }
for ssai in 1 0; do for k in 1 2 3 4; do ip netns exec ct-emu-$k sysctl -qw net.ipv4.tcp_slow_start_after_idle=$ssai; done
for r in 1 2; do
for m in block optimized; do
  for mode in phased; do
  ph=; [ $mode = phased ] && ph=--phased
  b0=$(cnt)
  if [ $m = optimized ]; then
    o=$(SLURM_HOSTFILE=doc/placement-runs/2026-11-23-s5-quiet/halo2d-phased-2/optimized.hosts srun --mpi=pmix -n 8 -m arbitrary $B pattern --pattern halo2d --size 1M $ph --reps 5 --warmup 1 --no-header 2>&1)
  else
    o=$(srun --mpi=pmix -n 8 -m block $B pattern --pattern halo2d --size 1M $ph --reps 5 --warmup 1 --no-header 2>&1)
  fi
  b1=$(cnt)
  echo "ssai=$ssai $m $mode $(awk -F, '/^pattern,/{print $4}' <<<"$o") before $b0 after $b1"
  done
done; done; done
