# shellcheck shell=bash
# The queue settings scripts/emucluster takes (CT_EMU_SWITCH_QUEUE,
# CT_EMU_NIC_QUEUE): one rule, sourced by the emulator and by every front end
# that passes a queue on to it (scripts/accuracy-report, scripts/queue-evidence),
# so each accepts exactly what the emulator will build. Also the emulator's
# reading of a link rate and the token bucket it gives a link by default,
# which accuracy-report reads back from a kept run.
#   a time (tbf latency): 20ms, 2.5ms, 800us, 1s
#   NNNp: NNN full frames of 1514 bytes (tbf limit)
#   NNNg: NNN packets of 64 KiB (TSO/GSO), as a host's txqueuelen counts them
EMU_QUEUE_ACCEPTED="a time such as 20ms, NNNp frames of 1514 bytes such as 1000p, or NNNg packets of 64 KiB such as 1000g"

emu_queue_ok() { # VALUE -> status 0 when the emulator takes it
    [[ "$1" =~ ^([1-9][0-9]{0,5}(\.[0-9]{1,3})?|0\.[0-9]{0,2}[1-9])(us|ms|s)$ ]] ||
        [[ "$1" =~ ^[1-9][0-9]{0,5}[pg]$ ]]
}

rate_bits() { # "100mbit" -> bits/s (tc's units: bit, kbit, mbit, gbit)
    local r=${1,,}
    case "$r" in
    *gbit) echo $(( ${r%gbit} * 1000000000 )) ;;
    *mbit) echo $(( ${r%mbit} * 1000000 )) ;;
    *kbit) echo $(( ${r%kbit} * 1000 )) ;;
    *bit) echo "${r%bit}" ;;
    *) return 1 ;;
    esac
}

# The tbf bucket of a link without CT_EMU_BURST: ~1 ms of traffic but at
# least a few full frames, so the rate holds at every message size (a large
# bucket lets small messages pass at veth speed and bends the ping-pong line).
emu_default_burst() { # BITS/s -> bytes
    local b=$(( $1 / 8 / 1000 ))
    [ "$b" -lt 16384 ] && b=16384
    echo "$b"
}
