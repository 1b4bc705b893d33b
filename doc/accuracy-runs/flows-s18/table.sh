#!/bin/bash
# Prints the tables of doc/accuracy-notes.md ("Session 18: the same regime at
# 2 nodes") from this directory's outputs.
cd "$(dirname "$0")" || exit 1
echo "queue config m flows frames/flow mean/wire best/wire"
for q in q20 q100; do
  # wire: the bytes of the busiest NIC, f messages of m, at 100 Mbit/s; a queue of
  # 20 or 100 ms at 100 Mbit/s holds 250 or 1250 kB, frames of 1514 bytes
  awk -v q=$q '/^[12] [0-9]x[0-9] alltoall/ {split($2,c,"x"); split($3,a,","); n=c[1]; t=c[2];
      f=t*(n*t-t); m=a[3]; wire=f*m/12.5e6; k=$2" "m; s[k]+=a[4]/wire; cnt[k]++; fl[k]=f;
      if (mn[k]=="" || a[5]/wire<mn[k]) mn[k]=a[5]/wire; fr[k]=(q=="q20"?250000:1250000)/(f*1514)}
      END {for (k in s) printf "%s %s %d %.1f %.2f %.2f\n", q, k, fl[k], fr[k], s[k]/cnt[k], mn[k]}' out-$q.txt |
      sort -k2,2 -k3n
done
echo
echo "round trips of the 1-byte ping, idle and behind the stream, per queue"
for q in 20ms 50ms 100ms 10ms; do
  grep -A1 "^$q [12] # latency m=1: [0-9]* repetitions, loaded" latency.txt | grep '# times' |
      sed 's/.*# times://' | tr ' ' '\n' | grep -E '^[0-9.e+-]+$' | sort -g | awk -v q=$q '{v[NR]=$1*1000} END {if (NR) printf "%s loaded %d rtts: median %.1f p90 %.1f max %.1f ms\n", q, NR, v[int(NR/2)+1], v[int(NR*0.9)], v[NR]}'
  grep -A1 "^$q [12] # latency m=1: [0-9]* repetitions, idle" latency.txt | grep '# times' |
      sed 's/.*# times://' | tr ' ' '\n' | grep -E '^[0-9.e+-]+$' | sort -g | awk -v q=$q '{v[NR]=$1*1e6} END {if (NR) printf "%s idle %d rtts: median %.1f us\n", q, NR, v[int(NR/2)+1]}'
done
