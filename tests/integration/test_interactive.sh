#!/usr/bin/env bash
# Interactive sessions (issue 10, defect 1). With
# LaunchParameters=use_interactive_step, `salloc -N4 -n16` starts the shell
# as an srun step (srun --interactive --pty). Nothing the plugin sets for
# srun to read (SLURM_DISTRIBUTION, its marker) may reach that shell or any
# step's tasks, so that an `srun --contention=auto` in the session decides
# for itself: halves on 4 x 4 launches cyclic, checked with real srun -l.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
command -v script >/dev/null 2>&1 || tap_skip_all "script(1) not installed (util-linux)"
SIGS=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml
tap_plan 10

# default=auto: the plugin also sees the srun that starts the shell
CT_INTERACTIVE_STEP=1 lc_up 4 "signatures=$SIGS default=auto"
BLOCK="0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3"
CYCLIC="0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3"

out=$(lc_interactive "-N4 -n16" '
    echo "STEPID|${SLURM_STEP_ID:-none}"
    echo "DIST|${SLURM_DISTRIBUTION-unset}"
    echo "MARK|$(env | grep -c "^SLURM_CONTENTION_SET_")"
    echo "HALVES|$(srun_layout --contention=auto --contention-pattern=halves)"
    echo "USERLINE|$(srun --contention=auto --contention-pattern=halves true 2>&1 | grep -c "chosen by the user")"
    echo "TASKENV|$(srun --contention=auto --contention-pattern=halves sh -c "printenv SLURM_DISTRIBUTION SLURM_CONTENTION_SET_SLURM_DISTRIBUTION; exit 0" | wc -l)"
    echo "FORCED|$(srun -n2 --contention=cyclic sh -c "printenv SLURM_DISTRIBUTION; exit 0" | wc -l)"
    echo "USER|$(SLURM_DISTRIBUTION=block srun_layout --contention=auto --contention-pattern=halves)"
    echo "LEFT|$(SLURM_DISTRIBUTION=block SLURM_CONTENTION_SET_SLURM_DISTRIBUTION=block srun_layout --contention=auto --contention-pattern=halves)"
    echo "CHANGED|$(SLURM_DISTRIBUTION=block SLURM_CONTENTION_SET_SLURM_DISTRIBUTION=cyclic srun_layout --contention=auto --contention-pattern=halves)"
')
tap_diag "$(grep -v '|' <<<"$out")"
field() { sed -n "s/^$1|//p" <<<"$out"; }
tap_like "$(field STEPID)" "^-?[0-9]+$" "the session's shell runs as a step (use_interactive_step)"
tap_is "$(field DIST)" "unset" "the shell has no SLURM_DISTRIBUTION from the plugin"
tap_is "$(field MARK)" "0" "the shell has no plugin marker either"
tap_is "$(field HALVES)" "$CYCLIC" "srun --contention=auto --contention-pattern=halves in the session launches cyclic"
tap_is "$(field USERLINE)" "0" "no 'distribution chosen by the user' in the session"
tap_is "$(field TASKENV)" "0" "an auto step's tasks do not see SLURM_DISTRIBUTION or the marker"
tap_is "$(field FORCED)" "0" "a --contention=cyclic step's tasks do not see SLURM_DISTRIBUTION"
tap_is "$(field USER)" "$BLOCK" "SLURM_DISTRIBUTION=block set by the user in the session still wins"
tap_is "$(field LEFT)" "$CYCLIC" "SLURM_DISTRIBUTION equal to the plugin's marker is the plugin's: decided again (cyclic)"
tap_is "$(field CHANGED)" "$BLOCK" "SLURM_DISTRIBUTION different from the marker is the user's: kept (block)"

[ "$T_FAILED" -eq 0 ]
