# Shared helpers for the integration tests (bash; source it).
#  - TAP output: tap_plan, tap_ok/tap_not_ok, tap_check, tap_is, tap_diag, tap_skip_all
#  - a private Slurm cluster through scripts/localcluster: lc_require, lc_up
#    (tears itself down on exit), lc_plugstack, lc_alloc
#  - layouts: srun_layout (inside an allocation: node index of each task)
# Every client command runs under `timeout`, so a stuck daemon fails a test
# instead of hanging the suite.

CT_SOURCE_ROOT=${CT_SOURCE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
CT_BUILD_ROOT=${CT_BUILD_ROOT:-$CT_SOURCE_ROOT/build}
CT_LIB_SH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh
CT_TIMEOUT=${CT_TIMEOUT:-120}
# The files under test: the build tree's by default; scripts/slurm-matrix
# points them at an installed package (CT_PLUGIN=/usr/lib/.../contention.so).
CT_PLUGIN=${CT_PLUGIN:-$CT_BUILD_ROOT/plugin/contention.so}
CT_ADMIN=${CT_ADMIN:-$CT_BUILD_ROOT/admin/contention-admin}
CT_LAYOUT_TOOL=${CT_LAYOUT_TOOL:-$CT_BUILD_ROOT/tests/integration/ct-layout-tool}
export CT_PLUGIN CT_ADMIN CT_LAYOUT_TOOL

# ---- TAP ---------------------------------------------------------------
T_N=0
T_FAILED=0

tap_plan() { echo "1..$1"; }
tap_diag() { local l; while IFS= read -r l; do echo "# $l"; done <<<"$*"; }
tap_ok() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
tap_not_ok() { T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $*"; }
tap_skip() { T_N=$((T_N + 1)); echo "ok $T_N # SKIP $*"; }
tap_skip_all() { echo "1..0 # SKIP $*"; exit 0; }
tap_bail() { echo "Bail out! $*"; exit 1; }

# tap_check DESCRIPTION COMMAND...: ok when the command succeeds
tap_check() {
    local desc=$1
    shift
    if "$@"; then tap_ok "$desc"; else tap_not_ok "$desc"; fi
}

# tap_is GOT EXPECTED DESCRIPTION: ok when equal; shows both otherwise
tap_is() {
    if [ "$1" = "$2" ]; then
        tap_ok "$3"
    else
        tap_not_ok "$3"
        tap_diag "got:      $1"
        tap_diag "expected: $2"
    fi
}

# tap_like TEXT REGEX DESCRIPTION: ok when grep -E finds REGEX in TEXT
tap_like() {
    if grep -Eq -- "$2" <<<"$1"; then
        tap_ok "$3"
    else
        tap_not_ok "$3"
        tap_diag "no match for /$2/ in:"
        tap_diag "$1"
    fi
}

# ---- the local cluster ----------------------------------------------------
LC_DIR=

# Skip (TAP) unless this machine can run a cluster and the plugin is built.
lc_require() {
    [ "$(id -u)" -eq 0 ] || tap_skip_all "needs root (starts munged, slurmctld, slurmd)"
    local c
    for c in slurmctld slurmd srun sbatch salloc sinfo scontrol munged mungekey timeout ss; do
        command -v "$c" >/dev/null 2>&1 || tap_skip_all "$c not installed (scripts/deps)"
    done
    [ -f "$CT_PLUGIN" ] || tap_skip_all "plugin not built ($CT_PLUGIN)"
}

lc_down() {
    [ -n "$LC_DIR" ] || return 0
    "$CT_SOURCE_ROOT/scripts/localcluster" down "$LC_DIR" >/dev/null 2>&1 || true
    LC_DIR=
}

# lc_up NODES PLUGSTACK_ARGS: start a cluster of NODES x 4 CPUs whose
# plugstack.conf loads the freshly built plugin with PLUGSTACK_ARGS.
lc_up() {
    local n=$1 args=$2 log
    LC_DIR=$(mktemp -d /tmp/ct-local.XXXXXX) || tap_bail "mktemp failed"
    trap lc_down EXIT
    trap 'lc_down; exit 1' INT TERM
    log=$(CT_PLUGIN="$CT_PLUGIN" CT_PLUGIN_ARGS="$args" \
        "$CT_SOURCE_ROOT/scripts/localcluster" up "$LC_DIR" "$n" 2>&1) || {
        tap_diag "$log"
        lc_down
        tap_bail "local cluster did not start"
    }
    export SLURM_CONF=$LC_DIR/slurm.conf
}

# lc_plugstack ARGS: replace the plugin's plugstack.conf arguments (srun and
# sbatch read plugstack.conf at every start; no restart needed).
# LC_PLUGIN_KIND=required loads it as required instead of optional.
lc_plugstack() {
    echo "${LC_PLUGIN_KIND:-optional} $CT_PLUGIN $*" >"$LC_DIR/plugstack.conf"
}

# lc_tcp_signatures IN OUT: IN (the fixture of tests/fixtures/plugin, fabric
# gige_lab) with the fabric said to be calibrated under another TCP
# congestion control than this host's nodes run (session 62's
# tcp_congestion_control); sets HOST_CC (the nodes') and OTHER_CC (the one
# written).
lc_tcp_signatures() {
    HOST_CC=$(cat /proc/sys/net/ipv4/tcp_congestion_control)
    OTHER_CC=cubic
    [ "$HOST_CC" = cubic ] && OTHER_CC=bbr
    sed "s/^    description: \"test fabric: Gigabit Ethernet, paper parameters\"\$/&\n    tcp_congestion_control: $OTHER_CC/" \
        "$1" >"$2"
}

# lc_alloc "SALLOC ARGS" 'COMMANDS': run COMMANDS (bash, with this file
# sourced) inside a salloc allocation; prints their stdout and stderr.
lc_alloc() {
    local sargs=$1 cmds=$2
    # shellcheck disable=SC2086
    # -k: srun catches SIGTERM; a hung step must not outlive the test
    timeout -k 10 "$CT_TIMEOUT" salloc $sargs bash -c "source '$CT_LIB_SH'; $cmds" 2>&1 |
        grep -v '^salloc: \(Granted\|Relinquishing\|Job allocation .* has been revoked\|Pending\|job .* queued\)'
}

# lc_interactive "SALLOC ARGS" 'COMMANDS': salloc without a command, so that
# with LaunchParameters=use_interactive_step (CT_INTERACTIVE_STEP=1 at lc_up)
# the shell runs as Slurm's interactive step (srun --interactive --pty);
# COMMANDS run in that shell, with this file sourced, and their output is
# printed. script(1) gives srun --pty its terminal.
lc_interactive() {
    local sargs=$1 cmds=$2 f out fd feeder
    f=$(mktemp "$LC_DIR/interactive.XXXXXX") || return 1
    out=$f.out
    printf 'source %q\n%s\n' "$CT_LIB_SH" "$cmds" >"$f"
    : >"$out"
    # the shell's input stays open until the session ends (an early EOF
    # makes script(1) end the session)
    exec {fd}< <(printf '. %q >%q 2>&1; exit\n' "$f" "$out"; sleep "$CT_TIMEOUT")
    feeder=$!
    # salloc runs Slurm's InteractiveStepOptions, "srun --interactive --pty
    # $SHELL": a CI job or cron may have no SHELL (with none the session
    # never starts), so give the shell a user's login would have.
    # shellcheck disable=SC2086
    SHELL=${SHELL:-/bin/bash} timeout -k 10 "$CT_TIMEOUT" script -q -e -c "salloc $sargs" /dev/null \
        <&"$fd" >/dev/null 2>&1
    exec {fd}<&-
    kill "$feeder" 2>/dev/null
    cat "$out"
}

# ---- layouts (inside an allocation) ------------------------------------

# srun_layout SRUN_ARGS...: node index (position in SLURM_JOB_NODELIST) of
# each task, in task order, from real `srun -l printenv SLURMD_NODENAME`.
srun_layout() {
    local hosts out
    hosts=$(scontrol show hostnames "$SLURM_JOB_NODELIST") || return 1
    out=$(timeout -k 10 "$CT_TIMEOUT" srun -l "$@" printenv SLURMD_NODENAME 2>/dev/null) || {
        echo "srun-failed"
        return 1
    }
    awk -v hosts="$hosts" '
        BEGIN { n = split(hosts, h, "\n"); for (i = 1; i <= n; i++) idx[h[i]] = i - 1 }
        { sub(":", "", $1); node[$1 + 0] = idx[$2]; if ($1 + 0 > max) max = $1 + 0 }
        END { s = ""; for (t = 0; t <= max; t++) s = s (t ? " " : "") node[t]; print s }' <<<"$out"
}

# srun_nodes SRUN_ARGS...: each task's node name in rank order (where
# SLURM_JOB_NODELIST is not set, as in salloc of several components)
srun_nodes() {
    timeout -k 10 "$CT_TIMEOUT" srun -l "$@" printenv SLURMD_NODENAME 2>/dev/null |
        sort -n | awk '{ printf "%s ", $2 }'
}

# model_layout NTASKS CPUS_PER_TASK DIST: modelcore's layout for this allocation
model_layout() {
    "$CT_LAYOUT_TOOL" "$SLURM_JOB_CPUS_PER_NODE" "$1" "$2" "$3"
}
