#!/usr/bin/env bash
# The optimized candidate on a real Slurm cluster (scripts/localcluster, 4
# nodes x 4 CPUs, salloc -N4 -n16): a concurrent halo2d launches the 2x2
# tiling through SLURM_HOSTFILE + arbitrary distribution. The per-task
# layout srun really launched (srun -l) is checked against the hostfile the
# plugin wrote (read by task 0 from \$TMPDIR while the step runs) and against the one
# `contention-admin score --hostfile-out` writes offline for the same job;
# the file is gone after the step and nothing leaks into the shell or the
# next srun; -m wins; min_gain keeps block where the gain is too small; a
# hostfile that cannot be written falls back to block with one line.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
SIGS=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml
ADMIN=$CT_BUILD_ROOT/admin/contention-admin
tap_plan 17

lc_up 4 "signatures=$SIGS"
ALLOC="-N4 -n16 -p debug"
BLOCK="0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3"

# the offline tool's hostfile for the same job (same search, same seed)
OFFLINE=$(mktemp /tmp/ct-placement-offline.XXXXXX)
"$ADMIN" score --config "$SIGS" --fabric gige_lab --cpus-per-node '4(x4)' --ntasks 16 \
    --pattern halo2d --size 1M --hostfile-out "$OFFLINE" --nodelist 'n[1-4]' >/dev/null
offline=$(tr '\n' ' ' <"$OFFLINE" | sed 's/ $//')
rm -f "$OFFLINE"
tap_is "$offline" "n1 n1 n2 n2 n1 n1 n2 n2 n3 n3 n4 n4 n3 n3 n4 n4" \
    "contention-admin score --hostfile-out writes the 2x2 tiles of a 4x4 halo2d"

TMPD=$(mktemp -d /tmp/ct-placement-tmp.XXXXXX)
chmod 1777 "$TMPD"
out=$(lc_alloc "$ALLOC" "
    export TMPDIR=$TMPD
    # task 0 prints the hostfile the step was launched with, while it runs
    srun -l --contention=auto --contention-pattern=halo2d --contention-size=1M bash -c '
        if [ \$SLURM_PROCID = 0 ]; then f=\$(echo $TMPD/contention-hostfile.*); echo \"HF|\$(ls $TMPD | wc -l)|\$(tr \"\\n\" \" \" <\$f)|\$SLURM_CONTENTION_MAPPING|\$(stat -c %a \$f)|\${SLURM_HOSTFILE:-unset}|\${SLURM_DISTRIBUTION:-unset}\"; fi
        echo \"NODE|\$SLURMD_NODENAME\"' 2>&1 | sort -n
    echo \"AFTER|\$(ls $TMPD | wc -l)\"
    echo \"SHELL|\${SLURM_HOSTFILE:-unset}|\${SLURM_DISTRIBUTION:-unset}\"
    echo \"NEXT|\$(srun_layout --contention=off)\"
    echo \"V|\$(srun -v --contention=auto --contention-pattern=halo2d true 2>&1 | grep -c 'contention: optimized placement chosen (auto)')\"
    echo \"MIN|\$(srun_layout --contention=auto --contention-pattern=ring)\"
    echo \"M|\$(srun_layout --contention=optimized --contention-pattern=halo2d -m block)\"
    echo \"FORCEDRING|\$(srun_layout --contention=optimized --contention-pattern=ring)\"
    echo \"FALLBACK|\$(TMPDIR=/nonexistent/ct srun_layout --contention=auto --contention-pattern=halo2d)\"
    TMPDIR=/nonexistent/ct srun --contention=auto --contention-pattern=halo2d true 2>&1 | grep contention:
")
tap_diag "$out"
# launched layout: srun -l lines "N: NODE|host" sorted by task
launched=$(grep -E '^ *[0-9]+: NODE\|' <<<"$out" | sed 's/.*NODE|//' | tr '\n' ' ' | sed 's/ $//')
hf=$(grep -E '^ *0: HF\|' <<<"$out" | cut -d'|' -f3 | sed 's/ $//')
tap_is "$launched" "$offline" "srun --contention=auto launches halo2d as the 2x2 tiles (srun -l)"
tap_is "$hf" "$launched" "the launched per-task layout is the hostfile's, line for line"
tap_like "$out" '0: HF\|1\|' "one hostfile exists while the step runs, in \$TMPDIR"
tap_like "$out" '0: HF\|[^|]*\|[^|]*\|optimized\|644\|' "the tasks see SLURM_CONTENTION_MAPPING=optimized; the hostfile is readable (0644)"
tap_like "$out" '0: HF\|[^|]*\|[^|]*\|[^|]*\|[^|]*\|unset\|unset$' "SLURM_HOSTFILE and SLURM_DISTRIBUTION do not reach the tasks (envmark.c)"
tap_like "$out" 'AFTER\|0$' "the hostfile is removed after the step"
tap_like "$out" 'SHELL\|unset\|unset' "nothing leaks into the allocation's shell"
tap_like "$out" "NEXT\|$BLOCK\$" "the next srun (--contention=off) gets Slurm's block layout"
tap_like "$out" 'V\|1$' "srun -v shows one 'optimized placement chosen' line"
tap_like "$out" "MIN\|$BLOCK\$" "a ring keeps block (no placement predicted faster)"
tap_like "$out" "M\|$BLOCK\$" "the user's -m wins over --contention=optimized"
tap_like "$out" "FORCEDRING\|$BLOCK\$" "--contention=optimized on a ring launches block, the best found"
tap_like "$out" "FALLBACK\|$BLOCK\$" "a hostfile that cannot be written falls back to block"
tap_is "$(grep -c 'contention:' <<<"$(grep -v '^ *[0-9]*:\|^[A-Z]*|' <<<"$out")")" "1" \
    "the fallback says so in exactly one contention: line"
rmdir "$TMPD" 2>/dev/null || rm -rf "$TMPD"

# an srun killed (SIGKILL) before slurm_spank_exit leaves its hostfile; the
# next srun of the same user that writes one removes it once that pid is
# gone and the file is over a minute old (aged here with touch)
TMPD=$(mktemp -d /tmp/ct-placement-tmp.XXXXXX)
chmod 1777 "$TMPD"
out=$(lc_alloc "$ALLOC" "
    export TMPDIR=$TMPD
    srun --contention=auto --contention-pattern=halo2d --contention-size=1M sleep 2 &
    pid=\$!
    for i in \$(seq 100); do ls $TMPD | grep -q . && break; sleep 0.1; done
    kill -KILL \$pid; wait \$pid 2>/dev/null
    left=\$(ls $TMPD)
    echo \"LEFT|\$(ls $TMPD | wc -l)\"
    touch -d '-2 min' $TMPD/contention-hostfile.*
    # wait until slurmctld no longer lists the killed step: while it does,
    # the plugin leaves the next step to Slurm (a step running beside it,
    # sitecpu) and writes no hostfile, so nothing would be swept
    for i in \$(seq 120); do
        squeue -h -s -j \$SLURM_JOB_ID -o %i | grep -q '\\.[0-9][0-9]*\$' || break
        sleep 0.5
    done
    # the sweep runs before the step is created; -I: Slurm 22.05 in the
    # matrix chroot may keep the killed step's CPUs for minutes
    srun -I10 --contention=auto --contention-pattern=halo2d --contention-size=1M true
    echo \"SWEPT|\$([ -e $TMPD/\$left ] && echo kept || echo removed)\"
")
tap_like "$out" 'LEFT\|1$' "an srun killed with SIGKILL leaves its hostfile behind"
tap_like "$out" 'SWEPT\|removed$' "the next optimized srun removes it (its srun is gone, the file is old)"
grep -q 'SWEPT|removed$' <<<"$out" || tap_diag "$out"
rm -rf "$TMPD"
exit $((T_FAILED > 0))
