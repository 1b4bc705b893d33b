# shellcheck shell=bash
# The queue settings scripts/emucluster takes (CT_EMU_SWITCH_QUEUE,
# CT_EMU_NIC_QUEUE): one rule, sourced by the emulator and by every front end
# that passes a queue on to it (scripts/accuracy-report, scripts/queue-evidence),
# so each accepts exactly what the emulator will build.
#   a time (tbf latency): 20ms, 2.5ms, 800us, 1s
#   NNNp: NNN full frames of 1514 bytes (tbf limit)
#   NNNg: NNN packets of 64 KiB (TSO/GSO), as a host's txqueuelen counts them
EMU_QUEUE_ACCEPTED="a time such as 20ms, NNNp frames of 1514 bytes such as 1000p, or NNNg packets of 64 KiB such as 1000g"

emu_queue_ok() { # VALUE -> status 0 when the emulator takes it
    [[ "$1" =~ ^([1-9][0-9]{0,5}(\.[0-9]{1,3})?|0\.[0-9]{0,2}[1-9])(us|ms|s)$ ]] ||
        [[ "$1" =~ ^[1-9][0-9]{0,5}[pg]$ ]]
}
