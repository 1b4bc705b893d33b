#!/usr/bin/env bash
# Bounds on srun's launch path (issue 10, defect 4): --contention-pattern=
# trace:FILE reads only regular files, within a size and an event cap, and
# the whole decision runs within a time budget (plugstack.conf budget_ms=,
# default 200). Each case must leave the job launched untouched (block, as
# Slurm's default), with exactly one contention: line, and srun must return
# well inside the test's timeout.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
SIGS=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml
tap_plan 10
CT_TIMEOUT=${CT_BOUNDS_TIMEOUT:-60}

lc_up 4 "signatures=$SIGS"
ALLOC="-N4 -n16"
BLOCK="0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3"
CYCLIC="0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3"

mkfifo "$LC_DIR/pipe.trace"
truncate -s 2G "$LC_DIR/huge.trace"        # sparse: 2 GiB of NUL bytes, no disk
# a valid 16-task trace of 600,000 events (ring exchanges), 9 MB: within the
# default caps, but far more than 20 ms of work to read and replay
awk 'BEGIN { print "tasks 16";
             for (r = 0; r < 18750; r++) for (t = 0; t < 16; t++) {
                 printf "isend %d %d 64K\nirecv %d %d\n", t, (t + 1) % 16, t, (t + 15) % 16 } }' \
    >"$LC_DIR/slow.trace"
# the same exchange, 1 round: a trace the plugin scores within any budget
awk 'BEGIN { print "tasks 16"; for (t = 0; t < 16; t++)
             printf "isend %d %d 1M\nirecv %d %d\nwaitall %d\n", t, (t + 8) % 16, t, (t + 8) % 16, t }' \
    >"$LC_DIR/halves.trace"

# bounded CASE PATTERN REGEX: one srun in an allocation; its layout, its
# contention: lines, its exit status and how long it took
bounded() {
    local name=$1 pat=$2 re=$3 out t0 t1
    t0=$(date +%s)
    # ulimit: a regression (reading /dev/zero to the end) must fail this
    # test, not take the machine's memory
    out=$(lc_alloc "$ALLOC" "
        ulimit -v 4194304
        echo \"L|\$(srun_layout --contention=auto --contention-pattern=$pat)\"
        timeout -k 5 $CT_TIMEOUT srun --contention=auto --contention-pattern=$pat true 2>&1; echo \"rc=\$?\"")
    t1=$(date +%s)
    tap_diag "$name: $(grep 'contention:' <<<"$out" | head -2) ($((t1 - t0)) s)"
    if [ "$(sed -n 's/^L|//p' <<<"$out")" = "$BLOCK" ] && grep -q '^rc=0$' <<<"$out" &&
        [ "$(grep -c 'contention:' <<<"$out")" = 1 ] && grep -Eq -- "$re" <<<"$out"; then
        tap_ok "$name: launched untouched with one contention: line"
    else
        tap_not_ok "$name: launched untouched with one contention: line"
        tap_diag "$out"
    fi
}

bounded "trace:FIFO (nobody writes)" "trace:$LC_DIR/pipe.trace" "pipe.trace: not a regular file \(accepted: a regular trace file of at most 33554432 bytes\)"
bounded "trace:/dev/zero" "trace:/dev/zero" "/dev/zero: not a regular file"
bounded "trace:2 GiB file" "trace:$LC_DIR/huge.trace" "huge.trace: larger than 33554432 bytes"
lc_plugstack "signatures=$SIGS trace_max_events=100000"
bounded "trace over the event cap" "trace:$LC_DIR/slow.trace" "slow.trace:[0-9]+:[0-9]+: more than 100000 events"
lc_plugstack "signatures=$SIGS budget_ms=20"
bounded "slow decision (budget_ms=20)" "trace:$LC_DIR/slow.trace" \
    "decision exceeded its time budget of 20 ms"

# within bounds the trace is scored and applied (halves: cyclic), at the default budget
lc_plugstack "signatures=$SIGS"
out=$(lc_alloc "$ALLOC" "echo \"L|\$(srun_layout --contention=auto --contention-pattern=trace:$LC_DIR/halves.trace)\"")
tap_is "$(sed -n 's/^L|//p' <<<"$out")" "$CYCLIC" "a small trace within the bounds is scored and applied (cyclic)"
# the environment cannot lift the bounds: only plugstack.conf sets them
out=$(lc_alloc "$ALLOC" "budget_ms=100000 trace_max_bytes=4G srun --contention=auto --contention-pattern=trace:$LC_DIR/huge.trace true 2>&1")
tap_like "$out" "larger than 33554432 bytes" "variables in the user's environment do not change the caps"
# bad plugstack values are refused with what is accepted
for kv in budget_ms=0 budget_ms=abc trace_max_bytes=0 trace_max_events=-1; do
    lc_plugstack "signatures=$SIGS $kv"
    out=$(lc_alloc "$ALLOC" 'srun --contention=auto true 2>&1')
    grep -q "plugstack.conf: ${kv%%=*}=.*accepted" <<<"$out" || { tap_diag "$kv: $out"; false; }
done && tap_ok "bad budget_ms= / trace_max_bytes= / trace_max_events= are refused with what is accepted" ||
    tap_not_ok "bad budget_ms= / trace_max_bytes= / trace_max_events= are refused with what is accepted"
# strict=yes does not turn the budget into a failure of the job
LC_PLUGIN_KIND=required lc_plugstack "signatures=$SIGS budget_ms=20 strict=yes"
out=$(lc_alloc "$ALLOC" "srun --contention=auto --contention-pattern=trace:$LC_DIR/slow.trace true 2>&1; echo rc=\$?")
tap_like "$out" "rc=0" "strict=yes: a decision past its budget still launches the job"
lc_plugstack "signatures=$SIGS budget_ms=60000"
out=$(lc_alloc "$ALLOC" "echo \"L|\$(srun_layout --contention=auto --contention-pattern=halves)\"")
tap_is "$(sed -n 's/^L|//p' <<<"$out")" "$CYCLIC" "budget_ms=60000: ordinary decisions unchanged (halves: cyclic)"

[ "$T_FAILED" -eq 0 ]
