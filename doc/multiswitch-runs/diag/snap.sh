#!/bin/bash
for d in ct-emut1 ct-emus1 ct-emut2 ct-emus2; do echo "$d $(tc -s qdisc show dev $d | grep -o 'Sent [0-9]* bytes [0-9]* pkt (dropped [0-9]*')"; done
for k in 1 2 3 4; do echo "ns$k $(ip netns exec ct-emu-$k nstat -az TcpRetransSegs TcpExtTCPTimeouts TcpExtTCPLossProbes TcpExtTCPFastRetrans TcpOutSegs 2>/dev/null | grep -v '^#' | awk '{printf "%s=%s ", $1, $2}')"; 
 echo "ns$k nic $(tc -n ct-emu-$k -s qdisc show dev ct-emun$k | grep -o 'dropped [0-9]*') sw $(tc -s qdisc show dev ct-emuh$k | grep -o 'dropped [0-9]*')"; done
