#!/usr/bin/env bash
# srun -M/--clusters on a real multi-cluster site: two clusters (ctlocal,
# nodes n1-n4, and ctother, nodes o1-o4; 4 CPUs each) registered in one
# slurmdbd backed by MariaDB (scripts/localcluster CT_ACCOUNTING=1, CT_JOIN),
# sharing munged.
# Inside an allocation srun looks SLURM_JOB_ID up on the first cluster named
# (srun/allocate.c, existing_allocation). Both clusters number their jobs
# from the same FirstJobId, so ctother holds a running job with the id of
# ctlocal's allocation, and `srun -M ctother` inside that allocation really
# launches a step in that other job: the plugin must leave it to Slurm in one
# line, with nothing set that its tasks or a later step would take for the
# user's choice. `srun -M ctlocal` is decided as a step without -M is.
# test_sitecpu.sh covers a site without slurmdbd (srun refuses -M itself);
# the decision logic is unit-tested in test_plugin_decide.c (test_clusters).
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
for c in mariadbd mariadb-install-db mariadb slurmdbd sacctmgr; do
    command -v "$c" >/dev/null 2>&1 || tap_skip_all "$c not installed (scripts/deps)"
done
tap_plan 12
SIGS=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml
AUTO="--contention=auto --contention-pattern=halves"

OTHER_DIR=
other_down() {
    [ -n "$OTHER_DIR" ] || return 0
    "$CT_SOURCE_ROOT/scripts/localcluster" down "$OTHER_DIR" >/dev/null 2>&1 || true
    OTHER_DIR=
}
# scripts/localcluster creates the accounting database before slurmdbd
# starts: left to slurmdbd, Debian 13's and sid's Connector/C (MariaDB 11.8)
# refuses every result after it (session 45 skipped this file there)
CT_ACCOUNTING=1 CT_FIRST_JOB_ID=700 lc_up 4 "signatures=$SIGS"
# the second cluster stops before the first, whose munged and slurmdbd it uses
trap 'other_down; lc_down' EXIT
trap 'other_down; lc_down; exit 1' INT TERM
OTHER_DIR=$(mktemp -d /tmp/ct-other.XXXXXX) || tap_bail "mktemp failed"
log=$(CT_JOIN=$LC_DIR CT_CLUSTER_NAME=ctother CT_FIRST_JOB_ID=700 CT_PLUGIN="$CT_PLUGIN" \
    CT_PLUGIN_ARGS="signatures=$SIGS" "$CT_SOURCE_ROOT/scripts/localcluster" up "$OTHER_DIR" 4 2>&1) || {
    tap_diag "$log"
    tap_bail "the second cluster did not start"
}
OTHER_CONF=$OTHER_DIR/slurm.conf

# both clusters registered with their controllers (srun -M finds a cluster's
# controller through slurmdbd)
reg=""
for i in $(seq 60); do
    reg=$(timeout 10 sacctmgr -n -P show clusters format=cluster,controlport 2>&1 | sort | tr '\n' ' ')
    [ "$reg" = "ctlocal|16817 ctother|16818 " ] && break
    sleep 0.5
done
tap_is "$reg" "ctlocal|16817 ctother|16818 " "slurmdbd knows both clusters and their controllers' ports"

# a job on ctother that holds the id ctlocal's allocation will get
other_job=$(SLURM_CONF=$OTHER_CONF timeout 20 sbatch --parsable -N4 -n16 -o /dev/null --wrap 'sleep 300' 2>&1)
for i in $(seq 60); do
    [ "$(SLURM_CONF=$OTHER_CONF squeue -h -j "$other_job" -o %t 2>/dev/null)" = R ] && break
    sleep 0.5
done

out=$(lc_alloc "-N4 -n16" '
    echo "ID|$SLURM_JOB_ID|$SLURM_CLUSTER_NAME"
    echo "OFF|$(srun_layout --contention=off)"
    echo "CYC|$(srun_layout -m cyclic --contention=off)"
    echo "AUTO|$(srun_layout --contention=auto --contention-pattern=halves)"
    echo "MHERE|$(srun_layout -M ctlocal --contention=auto --contention-pattern=halves)"
    echo "MHEREERR|$(srun -v -M ctlocal --contention=auto --contention-pattern=halves true 2>&1 | grep "contention:" | tr "\n" "~")"
    other() { timeout -k 10 "$CT_TIMEOUT" srun -M ctother "$@" -l sh -c \
        "echo \$SLURMD_NODENAME/\$SLURM_CLUSTER_NAME/\$SLURM_JOB_ID/\${SLURM_CONTENTION_MAPPING:-none}/\${SLURM_DISTRIBUTION:-none}" \
        2>/dev/null | sort -n | awk "{ printf \"%s \", \$2 }"; }
    echo "MOFF|$(other --contention=off)"
    echo "MOTHER|$(other --contention=auto --contention-pattern=halves)"
    echo "MOTHERERR|$(srun -v -M ctother --contention=auto --contention-pattern=halves true 2>&1 | grep "contention:" | tr "\n" "~")"
    echo "ENVOTHER|$(SLURM_CLUSTERS=ctother srun -v --contention=auto --contention-pattern=halves true 2>&1 | grep "contention:" | tr "\n" "~")"
    echo "AFTER|${SLURM_DISTRIBUTION:-none}/${SLURM_CONTENTION_MAPPING:-none}/${SLURM_HOSTFILE:-none}/${SLURM_CLUSTERS:-none}"
')
tap_diag "$out"
field() { sed -n "s/^$1|//p" <<<"$out"; }
id=$(field ID)
tap_is "$id" "$other_job|ctlocal" \
    "ctlocal's allocation has the id of ctother's running job ($other_job), and SLURM_CLUSTER_NAME=ctlocal"
tap_check "block and cyclic differ on this allocation (the checks below can fail): '$(field OFF)' '$(field CYC)'" \
    test -n "$(field OFF)" -a "$(field OFF)" != "$(field CYC)"
tap_is "$(field AUTO)" "$(field CYC)" "srun --contention=auto (halves): cyclic's layout"
tap_is "$(field MHERE)" "$(field CYC)" "srun -M ctlocal: the same decision, cyclic's layout"
herr=$(field MHEREERR | tr '~' '\n')
tap_like "$herr" "cyclic chosen \(auto\)" "srun -v -M ctlocal says cyclic chosen"
# the step runs in ctother's job as it does with --contention=off: the same
# nodes per task, the same environment (Slurm's own SLURM_DISTRIBUTION)
mother=$(field MOTHER)
tap_is "$(tr ' ' '\n' <<<"$mother" | grep -c "^o[1-4]/ctother/$other_job/none/")" "16" \
    "srun -M ctother: its 16 tasks run in ctother's job $other_job, without SLURM_CONTENTION_MAPPING"
tap_is "$mother" "$(field MOFF)" "each task on the node and with the distribution --contention=off gives it"
oerr=$(field MOTHERERR | tr '~' '\n')
tap_is "$(grep -c 'contention:' <<<"$oerr")" "1" "srun -v -M ctother: one contention: line"
tap_like "$oerr" "srun -M ctother sends the step to cluster ctother's job $other_job, which is not this allocation \(cluster ctlocal\): layout left to Slurm" \
    "it names the other cluster, the job and this allocation's cluster"
tap_like "$(field ENVOTHER | tr '~' '\n')" "with SLURM_CLUSTERS=ctother sends the step to cluster ctother's job $other_job" \
    "SLURM_CLUSTERS=ctother: the same, naming the variable"
tap_is "$(field AFTER)" "none/none/none/none" "the allocation's shell is left without a distribution, mapping, host file or cluster list"

SLURM_CONF=$OTHER_CONF timeout 10 scancel "$other_job" >/dev/null 2>&1 || true
[ "$T_FAILED" -eq 0 ]
