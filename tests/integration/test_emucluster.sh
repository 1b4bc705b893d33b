#!/usr/bin/env bash
# scripts/emucluster: up 2 nodes in their own network namespaces, one MPI
# job across the two namespaces through Slurm, down, nothing left behind.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

EMU=$CT_SOURCE_ROOT/scripts/emucluster
BENCH=$CT_BUILD_ROOT/bench/mpi/ct-mpibench

[ "$(id -u)" -eq 0 ] || tap_skip_all "needs root (network namespaces, daemons)"
for c in ip tc nsenter munged slurmctld slurmd srun sinfo timeout; do
    command -v "$c" >/dev/null 2>&1 || tap_skip_all "$c not installed (scripts/deps)"
done
[ -x "$BENCH" ] || tap_skip_all "ct-mpibench not built ($BENCH; needs MPI)"
ip link show ct-emubr0 >/dev/null 2>&1 && tap_skip_all "an emulated cluster is already up"

export CT_EMU_DIR
CT_EMU_DIR=$(mktemp -d /tmp/ct-emu-test.XXXXXX) || tap_bail "mktemp failed"
cleanup() { "$EMU" down >/dev/null 2>&1; rm -rf "$CT_EMU_DIR"; }
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

tap_plan 26

out=$(CT_EMU_NIC_QUEUE=20p,x timeout 20 "$EMU" up 2 100mbit 2>&1)
tap_is "$?:$(ip netns list | grep -c '^ct-emu-')" "1:0" "a bad CT_EMU_NIC_QUEUE stops up before anything is made"
tap_like "$out" "CT_EMU_NIC_QUEUE '20p,x' \\(accepted: a time such as 20ms, NNNp frames of 1514 bytes such as 1000p, or NNNg packets" \
    "... naming the variable and its value"
out=$(CT_EMU_TCP_CC=nosuch timeout 20 "$EMU" up 2 100mbit 2>&1)
tap_is "$?:$(ip netns list | grep -c '^ct-emu-')" "1:0" "an unknown CT_EMU_TCP_CC stops up before anything is made"
tap_like "$out" "CT_EMU_TCP_CC 'nosuch' is not a TCP congestion control this kernel has \\(accepted: " \
    "... naming the variable, its value and what the kernel has"
# the nodes run cubic unless told (session 62: a cluster node's default; this
# machine's kernel defaults to bbr, which a namespace would inherit)
host_cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control)
allowed_before=$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)
node_cc=cubic
grep -qw cubic /proc/sys/net/ipv4/tcp_available_congestion_control || node_cc=$host_cc
# by default the nodes' NICs have a host's queue, 1000 packets of 64 KiB
# (TSO/GSO; tbf limit 65536000 B: tc prints (limit - burst) / rate,
# (65536000 - 16384) / 12.5e6 s = 5.2416 s, as "lat 5.24s" on Debian 12),
# and the switch ports 20 ms
out=$(env -u CT_EMU_NIC_QUEUE -u CT_EMU_SWITCH_QUEUE -u CT_EMU_TCP_CC \
    timeout 120 "$EMU" up 2 100mbit --tasks-per-node 2 2>&1)
rc=$?
tap_is "$rc" 0 "emucluster up 2 100mbit"
[ $rc -eq 0 ] || { tap_diag "$out"; tap_bail "cluster did not start"; }
eval "$("$EMU" env)"

nets=$(ip netns list | awk '$1 ~ /^ct-emu-/ {print $1}' | sort | tr '\n' ' ')
tap_is "$nets" "ct-emu-1 ct-emu-2 " "one network namespace per node"
shaped=$( (tc qdisc show dev ct-emuh1 | grep -o 'tbf.*rate 100Mbit.* lat 20ms'
           tc -n ct-emu-1 qdisc show dev ct-emun1 | grep -Eo 'tbf.*rate 100Mbit.* lat 5\.2[0-9]?s ') |
    wc -l)
tap_is "$shaped" 2 "node 1's link is shaped to 100 Mbit/s on both ends, by default 20 ms at the switch, 1000 packets of 64 KiB at the NIC"
idle=$(timeout 20 sinfo -h -p emu -t idle -o %D)
tap_is "$idle" 2 "both slurmd are idle in partition emu"

# each task sees its own namespace's address
addrs=$(timeout "$CT_TIMEOUT" srun -N2 --ntasks-per-node=1 bash -c \
    'ip -o -4 addr show | grep -o "10\.77\.0\.[0-9]*/24"' 2>&1 | sort | tr '\n' ' ')
tap_is "$addrs" "10.77.0.1/24 10.77.0.2/24 " "srun tasks run inside the two namespaces"
ccs=$(timeout "$CT_TIMEOUT" srun -N2 --ntasks-per-node=1 cat /proc/sys/net/ipv4/tcp_congestion_control 2>&1 |
    tr '\n' ' ')
tap_is "$ccs:$(cat /proc/sys/net/ipv4/tcp_congestion_control)" "$node_cc $node_cc :$host_cc" \
    "CT_EMU_TCP_CC unset: the tasks' TCP runs $node_cc in both namespaces, this one's is untouched ($host_cc)"
tap_like "$("$EMU" status)" "  tcp congestion control: $node_cc \\(every node\\)" "status prints what the namespaces run"
tap_is "$("$EMU" tcp-cc)" "$node_cc" "tcp-cc prints the one name the front ends record"

pp=$(timeout "$CT_TIMEOUT" srun --mpi=pmix -N2 --ntasks-per-node=1 "$BENCH" pingpong \
    --sizes 0,1M --reps 3 2>&1)
rc=$?
tap_is "$rc" 0 "MPI ping-pong across the two namespaces (srun --mpi=pmix)"
row=$(grep '^pingpong,2,1048576,' <<<"$pp")
tap_like "$row" '^pingpong,2,1048576,[0-9.e-]+,[0-9.e-]+,2,1$' "ping-pong row of 1 MiB on 2 nodes"
# the bytes crossed the shaped links: no faster than 100 Mbit/s (+5 % for
# the token bucket's burst), whatever the machine's load
over=$(awk -F, '{ bw = $3 * 8 / $5; print (bw > 105e6) ? "faster than the link: " bw : "ok" }' <<<"$row")
tap_is "$over" ok "1 MiB one-way is not faster than the shaped 100 Mbit/s link"

# --host-clock: the same repetitions also timed from the first rank's start to
# the last rank's end on the host's one clock; per repetition that can only be
# as long as the slowest rank's own start-to-end or longer, so its mean too
hc=$(timeout "$CT_TIMEOUT" srun --mpi=pmix -N2 --ntasks-per-node=2 "$BENCH" pattern --pattern ring \
    --size 256K --reps 4 --host-clock 2>&1)
tap_is "$?" 0 "ring of 4 ranks on 2 nodes timed with --host-clock"
own=$(grep '^pattern,4,262144,' <<<"$hc")
host=$(grep '^pattern-host,4,262144,' <<<"$hc")
tap_like "$host" '^pattern-host,4,262144,[0-9.e-]+,[0-9.e-]+,2,2,ring:block$' \
    "a pattern-host row beside the pattern row, same columns and detail"
cmp=$(awk -F, -v own="$own" 'BEGIN { split(own, o, ",") }
    { print ($4 >= o[4] && $5 >= o[5] && o[4] > 0) ? "ok" : "host " $4 " / " $5 " below own " o[4] " / " o[5] }' <<<"$host")
tap_is "$cmp" ok "the host clock's mean and minimum are no shorter than the ranks' own (s: $(cut -d, -f4,5 <<<"$host") against $(cut -d, -f4,5 <<<"$own"))"
# the nodes' idle time between repetitions (a token bucket refills then):
# one per kept repetition (warm-up 1 + 4 kept: each follows another), each
# positive, since a repetition starts after a barrier every rank enters only
# once its previous one has ended
pause=$(grep '^# pause m=262144:' <<<"$hc")
tap_like "$pause" '^# pause m=262144: median [0-9.e-]+ s, min [0-9.e-]+ s, max [0-9.e-]+ s over 4 repetitions' \
    "a '# pause' line for the pattern's 4 kept repetitions"
chk=$(sed -E 's/.*median ([^ ]+) s, min ([^ ]+) s, max ([^ ]+) s.*/\1 \2 \3/' <<<"$pause" |
    awk '{ print ($2 > 0 && $2 <= $1 && $1 <= $3 && $3 < 10) ? "ok" : "median " $1 " min " $2 " max " $3 }')
tap_is "$chk" ok "the pauses are positive and ordered, min <= median <= max (${pause#*: })"

pids=$(for f in "$CT_EMU_DIR"/munge/munged.pid "$CT_EMU_DIR"/run/*.pid; do cat "$f"; echo; done |
    tr -s '\n' ' ')
out=$("$EMU" down 2>&1)
tap_is "$?" 0 "emucluster down"
left=""
for p in $pids; do [ -d "/proc/$p" ] && left="$left pid:$p"; done
ip netns list | grep -q '^ct-emu-' && left="$left netns"
ip -o link show | grep -Eq ': ct-emu(br0|h[0-9]+)[@:]' && left="$left links"
[ -e "$CT_EMU_DIR/created" ] && left="$left state"
[ -n "$(ls -A "$CT_EMU_DIR" 2>/dev/null)" ] && left="$left files:$(ls "$CT_EMU_DIR" | tr '\n' ,)"
[ "$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)" = "$allowed_before" ] ||
    left="$left allowed-cc:$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)"
tap_is "${left:-nothing}" nothing "nothing left: daemons ($(wc -w <<<"$pids")), namespaces, links, state, the kernel's allowed congestion controls ($allowed_before)"
# CT_EMU_TCP_CC=kernel: the namespaces inherit this kernel's default
out=$(CT_EMU_TCP_CC=kernel timeout 120 "$EMU" up 2 100mbit --tasks-per-node 1 2>&1)
tap_is "$?:$("$EMU" tcp-cc 2>&1)" "0:$host_cc" "CT_EMU_TCP_CC=kernel: the nodes run this kernel's default ($host_cc)"
"$EMU" down >/dev/null 2>&1
tap_is "$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control):$(ip netns list | grep -c '^ct-emu-')" \
    "$allowed_before:0" "... and down leaves the allowed list as it was and no namespace"
out=$("$EMU" tcp-cc 2>&1)
tap_is "$?:$out" "1:emucluster: tcp-cc: the cluster is down ($CT_EMU_DIR/created not found)" "tcp-cc of a cluster that is down: status 1 and why"
out=$("$EMU" status 2>&1)
tap_is "$?" 3 "status says down"

exit $((T_FAILED > 0))
