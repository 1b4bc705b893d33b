#!/usr/bin/env bash
# Heterogeneous jobs and steps on a real Slurm cluster (scripts/localcluster,
# 4 nodes x 4 CPUs, sched/backfill: sched/builtin refuses heterogeneous
# jobs). The plugin does not model them: each srun says so in one line and
# launches as Slurm lays it out, with nothing set that a task or a later
# step would take for the user's choice. Seen in session 42: salloc's sruns
# were told "not inside an allocation" (salloc of two components sets only
# the *_HET_GROUP_<n> allocation variables), and `srun A : B` said nothing.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
tap_plan 17
CT_SCHEDULER=sched/backfill lc_up 4 "signatures=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml"

lines() { grep -c "contention:" <<<"$1" || true; }

# ---- salloc of two components ------------------------------------------------
out=$(lc_alloc "-N1 -n2 : -N3 -n12" '
    echo "OFF0|$(srun_nodes --contention=off)"
    echo "AUTO0|$(srun_nodes --contention=auto --contention-pattern=halves)"
    echo "ERR0|$(srun --contention=auto --contention-pattern=halves true 2>&1 | tr "\n" "~")"
    echo "ENV0|$(srun --contention=auto --contention-pattern=halves sh -c "echo \${SLURM_CONTENTION_MAPPING:-none}/\${SLURM_CONTENTION_PREDICTED_SLOWDOWN:-none}" 2>/dev/null | sort -u | tr "\n" " ")"
    echo "OFF1|$(srun_nodes --het-group=1 --contention=off)"
    echo "AUTO1|$(srun_nodes --het-group=1 --contention=auto --contention-pattern=halves)"
    echo "ERR1|$(srun --het-group=1 --contention=auto --contention-pattern=halves true 2>&1 | tr "\n" "~")"
    echo "AFTER|${SLURM_DISTRIBUTION:-none}/${SLURM_CONTENTION_MAPPING:-none}/${SLURM_HOSTFILE:-none}"
')
err0=$(sed -n 's/^ERR0|//p' <<<"$out" | tr '~' '\n')
tap_is "$(lines "$err0")" "1" "salloc of two components: srun --contention=auto prints one contention: line"
tap_like "$err0" "contention: heterogeneous job \(2 components\): not decided, layout left to Slurm" \
    "the line names the heterogeneous job (not 'not inside an allocation')"
tap_is "$(sed -n 's/^AUTO0|//p' <<<"$out")" "$(sed -n 's/^OFF0|//p' <<<"$out")" \
    "the step on component 0 is laid out as with --contention=off"
tap_is "$(sed -n 's/^ENV0|//p' <<<"$out")" "none/none " \
    "its tasks see neither SLURM_CONTENTION_MAPPING nor SLURM_CONTENTION_PREDICTED_SLOWDOWN"
tap_like "$(sed -n 's/^ERR1|//p' <<<"$out" | tr '~' '\n')" "contention: heterogeneous job \(2 components\)" \
    "srun --het-group=1 --contention=auto: the same line"
tap_is "$(sed -n 's/^AUTO1|//p' <<<"$out")" "$(sed -n 's/^OFF1|//p' <<<"$out")" \
    "the step on component 1 is laid out as with --contention=off"
tap_is "$(sed -n 's/^AFTER|//p' <<<"$out")" "none/none/none" "the shell keeps nothing of ours"

# ---- srun A : B in a job of one component -------------------------------------------
out=$(lc_alloc "-N4 -n16" '
    # each task'"'"'s node, named by the order nodes first appear: from Slurm
    # 24.05.5 a step on fewer nodes than the job starts where the previous
    # one left off, so two steps differ in names but not in shape
    het() {
        srun -l "$@" -N2 -n4 printenv SLURMD_NODENAME : -N2 -n4 printenv SLURMD_NODENAME 2>/dev/null |
            sort -n | awk "{ if (!(\$2 in k)) k[\$2] = n++; printf \"%s \", k[\$2] }"
    }
    echo "OFF|$(het --contention=off)"
    echo "CYC|$(het --contention=cyclic)"
    echo "ENVCYC|$(SLURM_DISTRIBUTION=cyclic het --contention=off)"
    echo "ERR|$(srun --contention=auto --contention-pattern=halves -n2 true : -n2 true 2>&1 | tr "\n" "~"; echo "rc=${PIPESTATUS[0]}")"
    echo "ENV|$(srun --contention=cyclic -n2 sh -c "echo \${SLURM_CONTENTION_MAPPING:-none}/\${SLURM_CONTENTION_PREDICTED_SLOWDOWN:-none}" : -n2 sh -c "echo \${SLURM_CONTENTION_MAPPING:-none}/\${SLURM_CONTENTION_PREDICTED_SLOWDOWN:-none}" 2>/dev/null | sort -u | tr "\n" " ")"
')
err=$(sed -n 's/^ERR|//p' <<<"$out" | tr '~' '\n')
tap_like "$err" "rc=0" "srun --contention=auto A : B runs"
tap_is "$(lines "$err")" "1" "and prints one contention: line"
tap_like "$err" "contention: srun ':' launches a heterogeneous step \(several components\), which is not modelled: layout left to Slurm" \
    "the line names the heterogeneous step"
tap_is "$(sed -n 's/^OFF|//p' <<<"$out")" "0 0 1 1 2 2 3 3 " \
    "srun -N2 -n4 A : -N2 -n4 B lays each component out block on nodes of its own"
envcyc=$(sed -n 's/^ENVCYC|//p' <<<"$out")
tap_check "a SLURM_DISTRIBUTION=cyclic would show there (the check below can fail): '$envcyc'" \
    test -n "$envcyc" -a "$envcyc" != "$(sed -n 's/^OFF|//p' <<<"$out")"
tap_is "$(sed -n 's/^CYC|//p' <<<"$out")" "$(sed -n 's/^OFF|//p' <<<"$out")" \
    "--contention=cyclic before ':' sets nothing that would reach every component (layout as with off)"
tap_is "$(sed -n 's/^ENV|//p' <<<"$out")" "none/none " "the components' tasks see no SLURM_CONTENTION_* variable"

# ---- sbatch of two components ------------------------------------------------------
cat >"$LC_DIR/het.sh" <<'J'
#!/bin/bash
#SBATCH -N1 -n2 --contention=auto --contention-pattern=halves
#SBATCH hetjob
#SBATCH -N3 -n12
srun --het-group=0,1 sh -c 'echo "TASK|${SLURM_CONTENTION_MAPPING:-none}/${SLURM_CONTENTION_PREDICTED_SLOWDOWN:-none}"' 2>&1 | sort -u
echo "RC|${PIPESTATUS[0]}"
J
jid=$(cd "$LC_DIR" && timeout "$CT_TIMEOUT" sbatch --parsable -o "$LC_DIR/het.out" het.sh 2>&1)
jid=${jid%%+*}
for _ in $(seq "$CT_TIMEOUT"); do
    timeout 10 squeue -h -j "$jid" 2>/dev/null | grep -q . || break
    sleep 1
done
bout=$(cat "$LC_DIR/het.out" 2>/dev/null)
tap_diag "$bout"
tap_like "$bout" "RC\|0" "sbatch of two components with --contention=auto: the step on both runs"
tap_like "$bout" "contention: heterogeneous job \(2 components\): not decided, layout left to Slurm" \
    "its srun names the heterogeneous job in one line"
tap_is "$(grep '^TASK|' <<<"$bout")" "TASK|none/none" "the tasks of both components see no SLURM_CONTENTION_* variable"
[ "$T_FAILED" -eq 0 ]
