#!/usr/bin/env bash
# The decision log (issue 10, item 5): plugstack.conf log=FILE gets one line
# per srun the plugin decided for, written by real sruns, and
# `contention-admin report` summarizes it (text and --json).
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
SIGS=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml
ADMIN=$CT_ADMIN
tap_plan 13
lc_up 4 "signatures=$SIGS"
LOG=$LC_DIR/decisions.log
lc_plugstack "signatures=$SIGS log=$LOG"

out=$(lc_alloc "-N4 -n16" "
    echo JOB=\$SLURM_JOB_ID
    srun --contention=auto --contention-pattern=halves true
    srun --contention=auto --contention-pattern=halves -m block true
    srun --contention=report --contention-pattern=ring true
    srun --contention=auto --contention-pattern=trace:$LC_DIR/missing.trace true
    srun true")
job=$(sed -n 's/^JOB=//p' <<<"$out")
tap_diag "$(cat "$LOG" 2>/dev/null)"
tap_is "$(grep -c '^contention/1 ' "$LOG" 2>/dev/null)" "4" "one line per srun with a mode (4), none for mode off"
l1=$(sed -n 1p "$LOG")
tap_like "$l1" "^contention/1 time=[0-9-]+T[0-9:]+Z job=$job step=0 uid=0 user=root mode=auto nodes=4 tasks=16 cpt=1 cpus=4\(x4\) pattern=halves bytes=1048576 fabric=[^ ]+ pred=(block|cyclic):[0-9.e-]+,(block|cyclic):[0-9.e-]+ choice=cyclic launched=cyclic applied=yes why=- fabric_tcp=- node_tcp=- msg=contention: cyclic chosen" \
    "auto: job, step, user, geometry, pattern, both predictions, choice, applied"
tap_like "$(sed -n 2p "$LOG")" "step=1 .*launched=block applied=no why=user-m " "-m block: not applied, why=user-m"
tap_like "$(sed -n 3p "$LOG")" "mode=report .*pattern=ring .*applied=no why=report " "report: scored, not applied"
tap_like "$(sed -n 4p "$LOG")" "applied=no why=fail-open fabric_tcp=- node_tcp=- msg=contention: warning: .*missing.trace" "fail-open: the reason is in msg"

rep=$("$ADMIN" report "$LOG")
tap_diag "$rep"
tap_like "$rep" "steps seen: +4" "report: steps seen"
tap_like "$rep" "mapping changed: +1 " "report: the mapping was changed once"
json=$("$ADMIN" report --json "$LOG")
tap_like "$json" "\"steps\": 4, \"applied\": 1, \"changed\": 1" "report --json: counts"
tap_like "$json" "\"not_applied\": \{.*\"user-m\": 1.*\}" "report --json: reasons by count"

# the TCP a fabric was calibrated under (session 63): a batch script's srun,
# on a job's node (SLURMD_NODENAME set), records the fabric's and the node's;
# salloc's sruns above, on this host, recorded no node's (node_tcp=-)
lc_tcp_signatures "$SIGS" "$LC_DIR/tcp.yaml"
LOG2=$LC_DIR/decisions-tcp.log
lc_plugstack "signatures=$LC_DIR/tcp.yaml log=$LOG2"
printf '#!/bin/bash\nsrun --contention=report --contention-pattern=halves true\n' >"$LC_DIR/jobt.sh"
timeout "$CT_TIMEOUT" sbatch -W -N4 -n16 -o /dev/null "$LC_DIR/jobt.sh" >/dev/null 2>&1
tap_diag "$(cat "$LOG2" 2>/dev/null)"
tap_like "$(cat "$LOG2" 2>&1)" "^contention/1 .*mode=report .*why=report fabric_tcp=$OTHER_CC node_tcp=$HOST_CC msg=" \
    "a batch script's srun: the fabric's TCP ($OTHER_CC) and its node's ($HOST_CC) recorded"
rep=$("$ADMIN" report "$LOG" "$LOG2")
tap_diag "$rep"
tap_like "$rep" "^  on a node running another than the fabric was calibrated under: 1\$" \
    "report: one step on a node running another TCP than its fabric's"
tap_like "$rep" "^ +1  fabric calibrated under $OTHER_CC, node runs $HOST_CC\$" "report: the pair, by count"
tap_like "$("$ADMIN" report --json "$LOG" "$LOG2")" \
    "\"tcp_known\": 1, \"tcp_mismatch\": 1, \"tcp_mismatch_pairs\": \[\{\"fabric_tcp\": \"$OTHER_CC\", \"node_tcp\": \"$HOST_CC\", \"count\": 1\}\]" \
    "report --json: the same"

[ "$T_FAILED" -eq 0 ]
