#!/usr/bin/env bash
# Heterogeneous jobs and steps on a real Slurm cluster (scripts/localcluster,
# 4 nodes x 4 CPUs, sched/backfill: sched/builtin refuses heterogeneous
# jobs). A step on one component is decided on that component's allocation
# (session 43, plugin/hetjob.c); a step on several components (srun A : B,
# --het-group=0,1) is not modelled: its srun says so in one line and launches
# as Slurm lays it out, with nothing set that a task or a later step would
# take for the user's choice. Seen in session 42: salloc's sruns were told
# "not inside an allocation" (salloc of two components sets only the
# *_HET_GROUP_<n> allocation variables), and `srun A : B` said nothing.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
tap_plan 27
CT_SCHEDULER=sched/backfill lc_up 4 "signatures=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml"

lines() { grep -c "contention:" <<<"$1" || true; }

# ---- salloc of two components ------------------------------------------------
# A step on one component (--het-group=N, 0 by default) is decided on that
# component's allocation (session 43); a step on several is left to Slurm.
out=$(lc_alloc "-N1 -n2 : -N3 -n12" '
    echo "ERR0|$(srun -v --contention=auto --contention-pattern=halves true 2>&1 | grep "contention:" | tr "\n" "~")"
    echo "OFF1|$(srun_nodes --het-group=1 --contention=off)"
    echo "CYC1|$(srun_nodes --het-group=1 -m cyclic --contention=off)"
    echo "AUTO1|$(srun_nodes --het-group=1 --contention=auto --contention-pattern=halves)"
    echo "RING1|$(srun_nodes --het-group=1 --contention=auto --contention-pattern=ring)"
    echo "OPT1|$(srun_nodes --het-group=1 -n8 --contention=optimized --contention-pattern=halves)"
    echo "OPTERR|$(srun -v --het-group=1 -n8 --contention=optimized --contention-pattern=halves true 2>&1 | grep "contention:" | tr "\n" "~")"
    echo "ERR1|$(srun -v --het-group=1 --contention=auto --contention-pattern=halves true 2>&1 | grep "contention:" | tr "\n" "~")"
    echo "ENV1|$(srun --het-group=1 --contention=auto --contention-pattern=halves sh -c "echo \${SLURM_CONTENTION_MAPPING:-none}" 2>/dev/null | sort -u | tr "\n" " ")"
    echo "BOTH|$(srun --het-group=0,1 --contention=auto --contention-pattern=halves true 2>&1 | tr "\n" "~"; echo "rc=${PIPESTATUS[0]}")"
    echo "AFTER|${SLURM_DISTRIBUTION:-none}/${SLURM_CONTENTION_MAPPING:-none}/${SLURM_HOSTFILE:-none}"
    echo "NEXT1|$(srun_nodes --het-group=1)"
')
tap_diag "$out"
field() { sed -n "s/^$1|//p" <<<"$out"; }
err0=$(field ERR0 | tr '~' '\n')
tap_is "$(lines "$err0")" "1" "salloc of two components: srun -v --contention=auto prints one contention: line"
tap_like "$err0" "\[heterogeneous job: component 0 of 2\]" \
    "it speaks of component 0, the default (not 'not inside an allocation')"
err1=$(field ERR1 | tr '~' '\n')
tap_is "$(lines "$err1")" "1" "srun -v --het-group=1 --contention=auto: one contention: line"
tap_like "$err1" "cyclic chosen \(auto\).*12 tasks on 3 nodes.*\[heterogeneous job: component 1 of 2\]" \
    "halves on component 1: cyclic chosen for its 12 tasks on 3 nodes"
tap_check "block and cyclic differ on component 1 (the checks below can fail): '$(field OFF1)' '$(field CYC1)'" \
    test -n "$(field OFF1)" -a "$(field OFF1)" != "$(field CYC1)"
tap_is "$(field AUTO1)" "$(field CYC1)" "the step on component 1 launches cyclic"
tap_is "$(field RING1)" "$(field OFF1)" "ring on component 1 launches block"
# the optimized placement goes through a host file (-m arbitrary): it must
# name the component's nodes, not component 0's or SLURM_JOB_NODELIST's
opt1=$(field OPT1)
tap_like "$(field OPTERR)" "optimized placement forced.*8 tasks on 3 nodes" \
    "--contention=optimized -n8 on component 1: an optimized placement of 8 tasks on its 3 nodes"
tap_is "$(tr ' ' '\n' <<<"$opt1" | grep -c .)" "8" "it launches its 8 tasks: '$opt1'"
tap_is "$(tr ' ' '\n' <<<"$opt1" | grep . | sort -u | tr '\n' ' ')" \
    "$(tr ' ' '\n' <<<"$(field OFF1)" | grep . | sort -u | tr '\n' ' ')" \
    "on the component's three nodes, as its host file says"
tap_is "$(field ENV1)" "cyclic " "its tasks see SLURM_CONTENTION_MAPPING=cyclic"
both=$(field BOTH | tr '~' '\n')
tap_like "$both" "rc=0" "srun --het-group=0,1 runs"
tap_like "$both" "contention: srun --het-group=0,1 launches one step on several components of the heterogeneous job, which is not modelled: layout left to Slurm" \
    "and names the step on several components"
tap_is "$(field AFTER)" "none/none/none" "the shell keeps nothing of ours"
tap_is "$(field NEXT1)" "$(field OFF1)" "a later step on component 1 launches as Slurm lays it out"

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
nodes() { srun -l "$@" printenv SLURMD_NODENAME 2>/dev/null | sort -n | awk '{ printf "%s ", $2 }'; }
echo "B1|$(nodes --het-group=1)"
echo "C1|$(nodes --het-group=1 -m cyclic --contention=off)"
echo "O1|$(nodes --het-group=1 --contention=off)"
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
tap_like "$bout" "contention: srun --het-group=0,1 launches one step on several components" \
    "its srun names the step on several components in one line"
tap_is "$(grep '^TASK|' <<<"$bout")" "TASK|none/none" "the tasks of both components see no SLURM_CONTENTION_* variable"
bf() { sed -n "s/^$1|//p" <<<"$bout"; }
tap_check "in the batch job block and cyclic differ on component 1: '$(bf O1)' '$(bf C1)'" \
    test -n "$(bf O1)" -a "$(bf O1)" != "$(bf C1)"
tap_is "$(bf B1)" "$(bf C1)" "a step on component 1 (sbatch's --contention=auto, halves) launches cyclic"
[ "$T_FAILED" -eq 0 ]
