#!/usr/bin/env bash
# Layouts on a real Slurm cluster (scripts/localcluster, 8 nodes x 4 CPUs):
#  - modelcore's block / cyclic / plane layouts (ct-layout-tool) equal what
#    real `srun -l` does, on even and uneven allocations;
#  - --contention=block|cyclic give exactly Slurm's -m block|cyclic layouts;
#  - --contention=auto picks block for a ring and cyclic for halves, and the
#    scores that explain it are printed (srun -v's contention: line). The
#    optimized candidate is kept out (min_gain=off): this is about Slurm's
#    own layouts; test_placement.sh covers it.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
[ -x "$CT_LAYOUT_TOOL" ] ||
    tap_skip_all "ct-layout-tool not built"

SIGS=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml

# allocations: even ones, and the uneven ones cons_tres makes when -n does
# not fill the nodes (e.g. -N8 -n16 gives 4(x2),3,1(x5))
ALLOCS=("-N4 -n16" "-N4 -n10" "-N8 -n16" "-N3 -n7" "-N5 -n9" "-N4 -n6 -c2")
# per allocation: srun variant "NTASKS CPUS_PER_TASK DIST" ("-": the allocation's)
# (in this order: from 24.05.5 a step on fewer nodes than the allocation
# starts where the previous one left off, and 24.11 and 26.05 move that
# start differently: "3 - cyclic" after "5 - block" tells them apart)
VARIANTS=("- - block" "- - cyclic" "- - plane=3" "5 - cyclic" "5 - block" "3 - cyclic")
NCHECK_PER_ALLOC=$((${#VARIANTS[@]} + 2)) # + --contention=block and =cyclic
tap_plan $((${#ALLOCS[@]} * NCHECK_PER_ALLOC + 1 + 4))

lc_up 8 "signatures=$SIGS min_gain=off"
tap_like "$(timeout 30 srun --help 2>&1)" "--contention=MODE" "srun --help lists --contention"

# One allocation: every variant's real and modelled layout, as
#   REAL|<label>|<indices>  and  MODEL|<label>|<indices>
# A step without -c: up to 23.02 srun ignores the allocation's -c (one CPU
# per task); from 23.11 it reads SLURM_CPUS_PER_TASK, which salloc -c set.
# The model gets the running release and the node the step starts at, which
# it computed itself from the job's previous steps (0 for the first step).
inner='
echo "CPUS|$SLURM_JOB_CPUS_PER_NODE"
ver=$(srun --version 2>/dev/null | sed -n "s/^slurm[^0-9]*\([0-9][0-9.]*\).*/\1/p")
rel=$(sed -n "s/^\([0-9]*\)\.\([0-9]*\).*/\1\2/p" <<<"$ver")
step_cpt=1
[ "${rel:-0}" -ge 2311 ] && [ -n "${SLURM_CPUS_PER_TASK:-}" ] && step_cpt=$SLURM_CPUS_PER_TASK
echo "REL|${ver:-unknown}"
first=0
for v in "$@"; do
    set -- $v
    nt=$1 cpt=$2 dist=$3 args=()
    [ "$nt" = - ] && nt=$SLURM_NTASKS || args+=(-n "$nt")
    [ "$cpt" = - ] && cpt=$step_cpt || args+=(-c "$cpt")
    echo "REAL|$v|$(srun_layout "${args[@]}" -m "$dist")"
    m=$("$CT_LAYOUT_TOOL" --slurm-version "${ver:-0.0}" --first-node "$first" \
        "$SLURM_JOB_CPUS_PER_NODE" "$nt" "$cpt" "$dist" 2>&1)
    echo "MODEL|$v|$(head -n1 <<<"$m") (first node $first)"
    first=$(sed -n "s/^next //p" <<<"$m")
    first=${first:--1}
done
echo "REAL|contention=block|$(srun_layout --contention=block)"
echo "REAL|contention=cyclic|$(srun_layout --contention=cyclic)"
'

for a in "${ALLOCS[@]}"; do
    out=$(timeout "$CT_TIMEOUT" salloc $a bash -c "source '$CT_LIB_SH'; $inner" _ "${VARIANTS[@]}" 2>/dev/null)
    cpus=$(sed -n 's/^CPUS|//p' <<<"$out")
    rel=$(sed -n 's/^REL|//p' <<<"$out")
    for v in "${VARIANTS[@]}"; do
        real=$(grep -F "REAL|$v|" <<<"$out" | cut -d'|' -f3)
        mline=$(grep -F "MODEL|$v|" <<<"$out" | cut -d'|' -f3)
        model=${mline% (first node *}
        if [ -n "$real" ] && [ "$real" = "$model" ]; then
            tap_ok "salloc $a (cpus $cpus), srun '$v' on Slurm $rel: modelcore = srun -l [$real]"
        else
            tap_not_ok "salloc $a (cpus $cpus), srun '$v' on Slurm $rel: modelcore = srun -l"
            tap_diag "srun -l:   $real"
            tap_diag "modelcore: $mline"
        fi
    done
    for d in block cyclic; do
        got=$(grep -F "REAL|contention=$d|" <<<"$out" | cut -d'|' -f3)
        want=$(grep -F "REAL|- - $d|" <<<"$out" | cut -d'|' -f3)
        if [ -n "$got" ] && [ "$got" = "$want" ]; then
            tap_ok "salloc $a: --contention=$d gives srun -m $d's layout [$got]"
        else
            tap_not_ok "salloc $a: --contention=$d gives srun -m $d's layout"
            tap_diag "--contention=$d: $got"
            tap_diag "-m $d:           $want"
        fi
    done
done

# auto: the decision and the scores behind it (srun -v prints the line)
auto_case() { # salloc-args pattern expected-dist
    local out line layout want
    out=$(lc_alloc "$1" "
        echo \"LAYOUT|\$(srun_layout --contention=auto --contention-pattern=$2)\"
        echo \"WANT|\$(srun_layout -m $3)\"
        timeout $CT_TIMEOUT srun -v --contention=auto --contention-pattern=$2 true 2>&1 | grep 'contention:'")
    line=$(grep 'contention:' <<<"$out")
    layout=$(sed -n 's/^LAYOUT|//p' <<<"$out")
    want=$(sed -n 's/^WANT|//p' <<<"$out")
    tap_diag "salloc $1, pattern $2:"
    tap_diag "$line"
    if grep -q "contention: $3 chosen (auto" <<<"$line" && [ -n "$layout" ] && [ "$layout" = "$want" ]; then
        tap_ok "salloc $1: auto with $2 picks $3 and launches -m $3's layout [$layout]"
    else
        tap_not_ok "salloc $1: auto with $2 picks $3"
        tap_diag "layout $layout, -m $3 gives $want"
    fi
}
auto_case "-N4 -n16" ring block
auto_case "-N4 -n16" halves cyclic
auto_case "-N8 -n16" ring block
auto_case "-N8 -n16" halves cyclic

[ "$T_FAILED" -eq 0 ]
