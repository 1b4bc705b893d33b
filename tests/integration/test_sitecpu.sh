#!/usr/bin/env bash
# Site CPU settings (issue 10, defect 2): what changes the CPUs a step may
# use and the layout model does not reproduce is detected, and the step is
# left to Slurm with exactly one contention: line naming the reason, its
# layout the one Slurm gives without the plugin (real srun -l).
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
SIGS=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml
tap_plan 12
lc_up 4 "signatures=$SIGS"
ALLOC="-N4 -n16"
AUTO="--contention=auto --contention-pattern=halves"

# A layout's shape: node indices renumbered in order of first use. Which of
# the allocation's nodes a step that uses fewer of them lands on is Slurm's
# choice and can change between two steps (24.11 put the second CR_PACK_NODES
# -n8 step on nodes 2-3, the first on 0-1); the plugin decides the shape.
shape() { awk '{ n = 0; split("", m); for (i = 1; i <= NF; i++) { if (!($i in m)) m[$i] = n++; printf "%s%d", (i > 1 ? " " : ""), m[$i] } print "" }'; }

# left CASE "SALLOC ARGS" "ENV" "SRUN ARGS" REGEX: the layout has the shape of
# the one with --contention=off, one contention: line matching REGEX
left() {
    local name=$1 sargs=$2 envs=$3 sa=$4 re=$5 out
    out=$(lc_alloc "$sargs" "
        echo \"OFF|\$($envs srun_layout --contention=off $sa)\"
        echo \"ON|\$($envs srun_layout $AUTO $sa)\"
        $envs srun $AUTO $sa true 2>&1; echo rc=\$?")
    tap_diag "$name: $(grep 'contention:' <<<"$out" | head -1)"
    if [ -n "$(sed -n 's/^OFF|//p' <<<"$out")" ] &&
        [ "$(sed -n 's/^ON|//p' <<<"$out" | shape)" = "$(sed -n 's/^OFF|//p' <<<"$out" | shape)" ] &&
        [ "$(grep -c 'contention:' <<<"$out")" = 1 ] && grep -Eq -- "$re" <<<"$out"; then
        tap_ok "$name: left to Slurm with one line naming the reason"
    else
        tap_not_ok "$name: left to Slurm with one line naming the reason"
        tap_diag "$out"
    fi
}

left "--hint=nomultithread" "$ALLOC" "" "--hint=nomultithread" "srun --hint .*not modelled"
left "SLURM_THREADS_PER_CORE=1" "$ALLOC" "SLURM_THREADS_PER_CORE=1" "" "SLURM_THREADS_PER_CORE=1 is set"
left "SLURM_HINT=nomultithread" "$ALLOC" "SLURM_HINT=nomultithread" "" "SLURM_HINT=nomultithread is set"
left "--mem-per-cpu" "$ALLOC" "" "--mem-per-cpu=10" "srun --mem-per-cpu .*not modelled"
left "--exclusive" "$ALLOC" "" "--exclusive" "srun --exclusive .*not modelled"
# a node with fewer CPUs than -c: -N2 -n5 gives two nodes of unequal CPUs
# (4,1 or 3,2); one task of (smallest + 1) CPUs fits only the larger node
out=$(lc_alloc "-N2 -n5" '
    set -- $(echo "$SLURM_JOB_CPUS_PER_NODE" | tr "," " " | sed "s/([^)]*)//g")
    lo=$1; for c in "$@"; do [ "$c" -lt "$lo" ] && lo=$c; done
    echo "CPN|$SLURM_JOB_CPUS_PER_NODE"
    srun -n1 -c$((lo + 1)) --contention=auto --contention-pattern=halves true 2>&1; echo rc=$?')
tap_diag "-c above a node's CPUs: $(grep -E 'CPN|contention:' <<<"$out" | tr '\n' ' ')"
if [ "$(grep -c 'contention:' <<<"$out")" = 1 ] && grep -q '^rc=0$' <<<"$out" &&
    grep -Eq "has [0-9]+ CPUs, fewer than the [0-9]+ of a task" <<<"$out"; then
    tap_ok "-c above a node's CPUs: left to Slurm with one line naming the reason"
else
    tap_not_ok "-c above a node's CPUs: left to Slurm with one line naming the reason"
    tap_diag "$out"
fi

# an srun inside a running step: the step holds CPUs the allocation
# variables still count
# (srun exports SLURM_DISTRIBUTION=cyclic to a one-task step's tasks itself:
# unset here, so that the step, not the distribution, is what is tested)
out=$(lc_alloc "$ALLOC" "srun -n1 -N1 --overlap bash -c 'unset SLURM_DISTRIBUTION; srun $AUTO -n12 true 2>&1; echo rc=\$?'")
tap_like "$out" "srun inside step [0-9]+, which holds CPUs" "srun inside a running step: one line, left to Slurm"

# a step running beside this one (`srun ... &` in a batch script): it holds
# CPUs that slurmctld gives to no other step, so a new step runs on what is
# left (here: a 2-node step lands on two of the three free nodes) or waits.
# The plugin asks slurmctld for the job's running steps and leaves the step
# to Slurm: without that it would launch halves cyclic on nodes Slurm picks.
out=$(lc_alloc "$ALLOC" "
    first=\$(scontrol show hostnames \"\$SLURM_JOB_NODELIST\" | head -1)
    srun -N1 -n1 -w \"\$first\" --contention=off sleep 60 & sleep 3
    echo \"OFF|\$(srun_layout --contention=off -N2 -n8)\"
    echo \"ON|\$(srun_layout $AUTO -N2 -n8)\"
    srun $AUTO -N2 -n8 true 2>&1; echo rc=\$?
    scancel \"\$SLURM_JOB_ID.0\"; wait
    echo \"AFTER|\$(srun_layout $AUTO)\"")
tap_diag "background step: $(grep -E 'contention:|OFF|ON' <<<"$out" | tr '\n' ' ')"
if [ "$(grep -c 'contention:' <<<"$out")" = 1 ] && grep -q '^rc=0$' <<<"$out" &&
    grep -Eq "step 0 of this job is running and holds CPUs" <<<"$out" &&
    [ -n "$(sed -n 's/^OFF|//p' <<<"$out")" ] &&
    [ "$(sed -n 's/^ON|//p' <<<"$out" | shape)" = "$(sed -n 's/^OFF|//p' <<<"$out" | shape)" ]; then
    tap_ok "a step running beside this one (srun &): left to Slurm with one line naming it"
else
    tap_not_ok "a step running beside this one (srun &): left to Slurm with one line naming it"
    tap_diag "$out"
fi
tap_is "$(sed -n 's/^AFTER|//p' <<<"$out")" "0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3" \
    "once that step has ended, the next srun decides again (halves: cyclic)"

# back-to-back sruns (a batch script's steps one after another): slurmctld
# may still list the previous step as running for a moment after its srun
# returned; a step whose srun has exited on this host runs nothing beside
# the new one, so every srun decides (report: its report line, never
# "left to Slurm")
out=$(lc_alloc "$ALLOC" "
    for i in 1 2 3 4 5 6 7 8 9 10; do
        srun --contention=report --contention-pattern=halves true 2>&1 | grep 'contention:'
    done")
tap_is "$(grep -c 'contention: report' <<<"$out")/$(grep -c 'contention:' <<<"$out")" "10/10" \
    "10 back-to-back sruns: each decides (the previous step's exited srun holds nothing)"

# srun -M/--clusters: the plugin compares the first cluster named with the
# allocation's SLURM_CLUSTER_NAME (test_plugin_decide.c, test_clusters). That
# variable is in the job's environment and is slurm.conf's ClusterName; this
# cluster has no slurmdbd, so srun itself stops at the cluster's lookup, for
# this cluster's name as for another's, and the plugin says nothing there.
out=$(lc_alloc "$ALLOC" "
    echo \"CN|\$SLURM_CLUSTER_NAME|\$(scontrol show config | sed -n 's/^ClusterName *= *//p')\"
    srun -M \"\$SLURM_CLUSTER_NAME\" $AUTO true 2>&1; echo rc=\$?
    srun -M other $AUTO true 2>&1; echo rc=\$?")
tap_diag "srun -M: $(tr '\n' ' ' <<<"$out")"
cn=$(sed -n 's/^CN|//p' <<<"$out")
if [ -n "${cn%%|*}" ] && [ "${cn%%|*}" = "${cn#*|}" ] && [ "$(grep -c '^rc=0$' <<<"$out")" = 0 ] &&
    [ "$(grep -c '^rc=' <<<"$out")" = 2 ] && ! grep -q 'contention:' <<<"$out"; then
    tap_ok "srun -M: SLURM_CLUSTER_NAME is the ClusterName; without a slurmdbd srun refuses -M itself and the plugin says nothing"
else
    tap_not_ok "srun -M: SLURM_CLUSTER_NAME is the ClusterName; without a slurmdbd srun refuses -M itself and the plugin says nothing"
fi

# SelectTypeParameters=CR_PACK_NODES, read from the slurm.conf srun reads
lc_down
CT_SELECT_PARAMS=CR_CPU,CR_PACK_NODES lc_up 4 "signatures=$SIGS"
left "CR_PACK_NODES" "$ALLOC" "" "-n8" "SelectTypeParameters=CR_CPU,CR_PACK_NODES \(slurm.conf\)"

[ "$T_FAILED" -eq 0 ]
