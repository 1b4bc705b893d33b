#!/usr/bin/env bash
# The SPANK plugin on a real Slurm cluster (scripts/localcluster, 4 nodes x 4
# CPUs): the user's choice wins, off/report change nothing, options travel
# from sbatch/salloc to the job's sruns, default=auto is transparent, bad
# values are refused, broken configurations fail open with one line.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

lc_require
SIGS=$CT_SOURCE_ROOT/tests/fixtures/plugin/signatures.yaml
SO=$CT_PLUGIN
tap_plan 39

# 1: only the SPANK entry points and the plugin's identity are exported
syms=$(nm -D --defined-only "$SO" | awk '{print $3}' | sort | tr '\n' ' ')
tap_is "$syms" "plugin_name plugin_type plugin_version slurm_spank_exit slurm_spank_init slurm_spank_local_user_init slurm_spank_task_init slurm_spank_user_init spank_plugin_version " \
    "contention.so exports only the SPANK symbols (contention.map)"

lc_up 4 "signatures=$SIGS"
ALLOC="-N4 -n16"
BLOCK="0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3"
CYCLIC="0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3"

count_lines() { grep -c "$2" <<<"$1" || true; }

# ---- refused at submission -------------------------------------------------
out=$(lc_alloc "$ALLOC" 'srun --contention=bogus true; echo "rc=$?"')
tap_like "$out" "contention: --contention: invalid mode 'bogus' \(accepted: auto, block, cyclic, off, report, optimized\)" \
    "srun --contention=bogus is refused with the accepted values"
tap_like "$out" "rc=[1-9]" "srun --contention=bogus does not run"
out=$(timeout "$CT_TIMEOUT" sbatch --contention=bogus --wrap=true 2>&1; echo "rc=$?")
tap_like "$out" "sbatch: error: contention: --contention: invalid mode 'bogus' \(accepted: auto, block, cyclic, off, report, optimized\)" \
    "sbatch --contention=bogus is refused at submission"
tap_like "$out" "rc=[1-9]" "sbatch --contention=bogus submits nothing"
out=$(lc_alloc "$ALLOC" 'srun --contention-pattern=stencil true; echo "rc=$?"; srun --contention-size=12Q true; echo "rc=$?"')
tap_like "$(grep -c 'rc=[1-9]' <<<"$out")" "^2$" "bad --contention-pattern and --contention-size are refused"
tap_like "$out" "unknown pattern 'stencil' \(accepted: alltoall, ring, halves, halo2d, halo3d, halo2d-phased, halo3d-phased, trace:FILE\)" \
    "the pattern message lists the accepted patterns"

# ---- the user's choice wins; off and report change nothing -------------------
out=$(lc_alloc "$ALLOC" '
    echo "M|$(srun_layout --contention=cyclic -m block)"
    echo "E|$(SLURM_DISTRIBUTION=block srun_layout --contention=cyclic)"
    echo "OFF|$(srun_layout --contention=off)"
    echo "DEF|$(srun_layout)"
    echo "REP|$(srun_layout --contention=report --contention-pattern=halves)"
    echo "REPLINES|$(srun --contention=report --contention-pattern=halves true 2>&1 | grep -c "contention:")"
    srun --contention=report --contention-pattern=halves true 2>&1 | grep "contention:"
    echo "AUTOQUIET|$(srun --contention=auto --contention-pattern=halves true 2>&1 | grep -c "contention:")"
    echo "AUTOV|$(srun -v --contention=auto --contention-pattern=halves true 2>&1 | grep -c "contention:")"
    srun -l --contention=auto --contention-pattern=halves printenv SLURM_CONTENTION_MAPPING SLURM_CONTENTION_PREDICTED_SLOWDOWN | sort -u -k2 | sed "s/^ *[0-9]*: /ENV|/"
    # the user'"'"'s own hostfile (-m arbitrary): launched as written, priced in report
    hf=$(mktemp "${TMPDIR:-/tmp}/ct-userhf.XXXXXX")
    hl=($(scontrol show hostnames "$SLURM_JOB_NODELIST"))
    for r in 0 1 2 3; do printf "%s\n%s\n%s\n%s\n" "${hl[3]}" "${hl[2]}" "${hl[1]}" "${hl[0]}"; done >"$hf"
    echo "ARB|$(SLURM_HOSTFILE=$hf srun_layout -m arbitrary --contention=report --contention-pattern=halves)"
    SLURM_HOSTFILE=$hf srun -m arbitrary --contention=report --contention-pattern=halves true 2>&1 | grep "contention:" | sed "s/^/ARBLINE|/"
    rm -f "$hf"
')
tap_is "$(sed -n 's/^M|//p' <<<"$out")" "$BLOCK" "an explicit -m block overrides --contention=cyclic"
tap_is "$(sed -n 's/^E|//p' <<<"$out")" "$BLOCK" "SLURM_DISTRIBUTION=block in the environment overrides --contention=cyclic"
tap_is "$(sed -n 's/^OFF|//p' <<<"$out")" "$(sed -n 's/^DEF|//p' <<<"$out")" "--contention=off leaves Slurm's layout"
tap_is "$(sed -n 's/^REP|//p' <<<"$out")" "$(sed -n 's/^DEF|//p' <<<"$out")" "--contention=report leaves Slurm's layout"
tap_is "$(sed -n 's/^REPLINES|//p' <<<"$out")" "1" "report prints one contention: line at default verbosity"
tap_diag "$(grep 'contention: report' <<<"$out")"
tap_is "$(sed -n 's/^AUTOQUIET|//p' <<<"$out")" "0" "auto is silent at default verbosity"
tap_is "$(sed -n 's/^AUTOV|//p' <<<"$out")" "1" "auto prints one contention: line with srun -v"
tap_is "$(grep '^ENV|' <<<"$out" | sort | tr '\n' ' ')" "ENV|1.000 ENV|cyclic " \
    "tasks see SLURM_CONTENTION_MAPPING=cyclic and SLURM_CONTENTION_PREDICTED_SLOWDOWN"
tap_is "$(sed -n 's/^ARB|//p' <<<"$out")" "3 2 1 0 3 2 1 0 3 2 1 0 3 2 1 0" \
    "report with -m arbitrary launches the user's SLURM_HOSTFILE as written"
tap_like "$(grep '^ARBLINE|' <<<"$out")" "layout left to Slurm \(arbitrary: SLURM_HOSTFILE ct-userhf\.[^ ]* predicted [^)]* x1\.00\)" \
    "report with -m arbitrary prices the user's SLURM_HOSTFILE (halves: every pair on one node, x1.00)"

# ---- options travel from sbatch and salloc -------------------------------------
job=$LC_DIR/job.sh
cat >"$job" <<EOF
#!/bin/bash
source '$CT_LIB_SH'
echo "SB|\$(srun_layout)"
echo "SBWANT|\$(srun_layout -m cyclic)"
EOF
timeout "$CT_TIMEOUT" sbatch -W $ALLOC --contention=auto --contention-pattern=halves \
    -o "$LC_DIR/job.out" "$job" >/dev/null 2>&1
out=$(cat "$LC_DIR/job.out" 2>/dev/null)
tap_is "$(sed -n 's/^SB|//p' <<<"$out")" "$CYCLIC" \
    "sbatch --contention=auto --contention-pattern=halves: a plain srun in the script runs cyclic"
# --export=NONE (a common site default) and job arrays: the options travel in
# the job's SPANK environment, not the user's; the tasks then get no PATH
jobn=$LC_DIR/jobn.sh
printf '#!/bin/bash\nsrun /usr/bin/printenv SLURM_CONTENTION_MAPPING | sort | uniq -c | tr -s " " | sed "s/^ *//; s/^/MAP|/"\n' >"$jobn"
timeout "$CT_TIMEOUT" sbatch -W $ALLOC --export=NONE --contention=auto --contention-pattern=halves \
    -o "$LC_DIR/jobn.out" "$jobn" >/dev/null 2>&1
tap_is "$(grep '^MAP|' "$LC_DIR/jobn.out" 2>/dev/null)" "MAP|16 cyclic" \
    "sbatch --export=NONE --contention=auto --contention-pattern=halves: the script's srun decides (16 tasks cyclic)"
timeout "$CT_TIMEOUT" sbatch -W $ALLOC --array=1-2 --contention=auto --contention-pattern=halves \
    -o "$LC_DIR/joba-%a.out" "$jobn" >/dev/null 2>&1
tap_is "$(cat "$LC_DIR"/joba-1.out "$LC_DIR"/joba-2.out 2>/dev/null | grep '^MAP|' | tr '\n' ' ')" "MAP|16 cyclic MAP|16 cyclic " \
    "sbatch --array=1-2: each element's srun decides"
out=$(lc_alloc "$ALLOC --contention=cyclic" 'echo "SA|$(srun_layout)"')
tap_is "$(sed -n 's/^SA|//p' <<<"$out")" "$CYCLIC" "salloc --contention=cyclic: a plain srun runs cyclic"

# ---- default=auto makes it transparent -----------------------------------------
lc_plugstack "signatures=$SIGS default=auto pattern=halves"
out=$(lc_alloc "$ALLOC" '
    echo "T|$(srun_layout)"
    echo "TM|$(srun_layout -m block)"
    echo "TL|$(srun true 2>&1 | grep -c "contention:")"')
tap_is "$(sed -n 's/^T|//p' <<<"$out")" "$CYCLIC" "default=auto pattern=halves: a plain srun runs cyclic"
tap_is "$(sed -n 's/^TM|//p' <<<"$out")" "$BLOCK" "default=auto: srun -m block still runs block"
tap_is "$(sed -n 's/^TL|//p' <<<"$out")" "0" "default=auto says nothing at default verbosity"

# ---- recording (doc/recorder.md): srun and sbatch --contention-record ---------
# (the MPI runs stay on one node: Open MPI between localcluster nodes on one
# host does not connect; scripts/emucluster is the multi-node set-up)
APP=$CT_BUILD_ROOT/bench/mpi/ct-record-app
# the recorder the plugin finds: next to it in a build tree, else installed
REC_LIB=$(dirname "$CT_PLUGIN")/../recorder/libcontention-record.so
[ -f "$REC_LIB" ] || REC_LIB=$(ls /usr/lib/*/libcontention-record.so \
    /usr/local/lib/*/libcontention-record.so 2>/dev/null | head -n1)
if [ -x "$APP" ] && [ -n "$REC_LIB" ] && [ -f "$REC_LIB" ]; then
    # How this Slurm starts an Open MPI job: srun --mpi=pmix when it has the
    # PMIx plugin. Debian's slurm-wlm 26.05.5-1 (sid) is built without it
    # ("Remove pmix", Debian bug #1149781: srun --mpi=list has none, pmi2),
    # and Open MPI 5+ speaks PMIx only; there srun starts mpirun as its one
    # task and mpirun starts the ranks on that node, which inherit the
    # recorder the plugin preloaded into the task.
    if timeout -k 5 30 srun --mpi=list 2>&1 | grep -w pmix >/dev/null; then
        MPI_SRUN=(srun --mpi=pmix -N1 -n4)
        MPI_RUN=()
        JOB_SRUN=(srun --mpi=pmix)
        REC_ALLOC=$ALLOC
    else
        MPI_SRUN=(srun -N1 -n1)
        JOB_SRUN=(srun -n1)
        REC_ALLOC="-N1 -n4" # mpirun maps over the allocation's nodes: keep it to one
        MPI_RUN=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 4)
    fi
    tap_diag "MPI jobs start as: ${MPI_SRUN[*]} --contention-record=FILE ${MPI_RUN[*]} APP"
    rec=$LC_DIR/rec.trace
    out=$(lc_alloc "$REC_ALLOC" "
        cd '$LC_DIR' && ${MPI_SRUN[*]} --contention-record=rec.trace ${MPI_RUN[*]} '$APP' 3 4096 1000 >'$LC_DIR/rec.out' 2>&1
        echo \"RC|\$?\"")
    out+=$'\n'$(lc_alloc "-N2 -n4" "srun --contention=report --contention-pattern=trace:$rec true 2>&1")
    tap_is "$(sed -n 's/^RC|//p' <<<"$out")|$(sed -n 2p "$rec" 2>/dev/null)" "0|tasks 4" \
        "srun --contention-record=FILE (relative: the tasks' PWD): the MPI job runs, FILE holds its 4 tasks"
    grep -q '^RC|0$' <<<"$out" || tap_diag "$(tail -n 20 "$LC_DIR/rec.out")"
    tap_is "$(grep -c '^allreduce [0-3] world 8$' "$rec" 2>/dev/null)" "12" \
        "the recording has every rank's collectives (3 iterations x 4 ranks of Allreduce)"
    tap_like "$out" "contention: report:.*trace:$rec " \
        "srun --contention=report --contention-pattern=trace:FILE decides from the recording"
    printf '#!/bin/bash\n%s %q 2 1024 1000 >/dev/null\n' "${JOB_SRUN[*]} ${MPI_RUN[*]}" \
        "$APP" >"$LC_DIR/recjob.sh"
    timeout "$CT_TIMEOUT" sbatch -W -n4 --contention-record="$LC_DIR/rec2.trace" \
        -o "$LC_DIR/job2.out" "$LC_DIR/recjob.sh" >/dev/null 2>&1
    tap_is "$(sed -n 2p "$LC_DIR/rec2.trace" 2>/dev/null)" "tasks 4" \
        "sbatch --contention-record=FILE: the job's srun is recorded"
    # a hostile recording: one FILE:LINE:COL: line, the job launched untouched
    printf 'tasks 16\ncomm r 0-1\nallreduce 3 r 8\n' >"$LC_DIR/hostile.trace"
    out=$(lc_alloc "$ALLOC" "
        echo \"HL|\$(srun_layout --contention=auto --contention-pattern=trace:$LC_DIR/hostile.trace)\"
        srun --contention=auto --contention-pattern=trace:$LC_DIR/hostile.trace true 2>&1; echo \"rc=\$?\"")
    if [ "$(sed -n 's/^HL|//p' <<<"$out")" = "$BLOCK" ] && grep -q '^rc=0$' <<<"$out" &&
        grep -q "contention: .*hostile.trace:3:11: allreduce: task 3 is not a member" <<<"$out"; then
        tap_ok "a hostile recording: a FILE:LINE:COL: contention: line, the job launched untouched"
    else
        tap_not_ok "a hostile recording: a FILE:LINE:COL: contention: line, the job launched untouched"
        tap_diag "$out"
    fi
    printf 'tasks 16\nallreduce 0 world 8\nallreduce 1 wor' >"$LC_DIR/truncated.trace"
    out=$(lc_alloc "$ALLOC" "srun --contention=auto --contention-pattern=trace:$LC_DIR/truncated.trace true 2>&1; echo \"rc=\$?\"")
    if grep -q '^rc=0$' <<<"$out" && grep -Eq "contention: .*truncated.trace:3:[0-9]+: " <<<"$out"; then
        tap_ok "a truncated recording: a FILE:LINE:COL: contention: line, the job launched"
    else
        tap_not_ok "a truncated recording: a FILE:LINE:COL: contention: line, the job launched"
        tap_diag "$out"
    fi
else
    for _ in 1 2 3 4 5 6; do tap_ok "# SKIP recording: ct-record-app or the recorder not built (no MPI)"; done
fi

# ---- fail open -----------------------------------------------------------------
failopen() { # description plugstack-args expected-line-regex
    lc_plugstack "$2"
    local out
    out=$(lc_alloc "$ALLOC" '
        echo "FL|$(srun_layout --contention=auto --contention-pattern=halves)"
        srun --contention=auto --contention-pattern=halves true 2>&1; echo "rc=$?"')
    tap_diag "$(grep 'contention:' <<<"$out")"
    if [ "$(sed -n 's/^FL|//p' <<<"$out")" = "$BLOCK" ] && grep -q '^rc=0$' <<<"$out" &&
        [ "$(count_lines "$out" '^srun: .*contention:')" = 1 ] && grep -Eq "$3" <<<"$out"; then
        tap_ok "$1: job runs unchanged, srun prints one contention: line"
    else
        tap_not_ok "$1: job runs unchanged, srun prints one contention: line"
        tap_diag "$out"
    fi
}
failopen "missing signature file" "signatures=$LC_DIR/nonexistent.yaml" \
    "contention: warning: signature file: .*nonexistent.yaml.*job launched unchanged"
printf 'version: 1\nfabrics:\n  x: [\n' >"$LC_DIR/corrupt.yaml"
failopen "corrupt signature file" "signatures=$LC_DIR/corrupt.yaml" \
    "contention: warning: signature file: .*corrupt.yaml:[0-9]+:[0-9]+:"
failopen "unknown plugstack.conf key" "signatures=$SIGS colour=blue" \
    "contention: plugstack.conf: unknown argument 'colour'"

# Slurm ignores a failing `optional` plugin: strict=yes needs `required`
LC_PLUGIN_KIND=required lc_plugstack "signatures=$LC_DIR/nonexistent.yaml strict=yes"
out=$(lc_alloc "$ALLOC" 'srun --contention=auto true 2>&1; echo "rc=$?"')
tap_like "$out" "contention: error: signature file" "strict=yes: a missing signature file is an error"
tap_like "$out" "rc=[1-9]" "strict=yes with a required plugin: srun stops"

# ---- the TCP a fabric was calibrated under (session 62) ------------------------
# the fixture's fabric said to be calibrated under another congestion control
# than this host's nodes run: a batch script's srun (on a job's node,
# SLURMD_NODENAME set) says so in its line; salloc's, on this host, reads none
lc_tcp_signatures "$SIGS" "$LC_DIR/tcp.yaml"
lc_plugstack "signatures=$LC_DIR/tcp.yaml"
printf '#!/bin/bash\nsrun --contention=report --contention-pattern=halves true 2>&1 | grep "contention:"\n' \
    >"$LC_DIR/jobt.sh"
timeout "$CT_TIMEOUT" sbatch -W $ALLOC -o "$LC_DIR/jobt.out" "$LC_DIR/jobt.sh" >/dev/null 2>&1
tap_like "$(cat "$LC_DIR/jobt.out" 2>&1)" \
    "^srun: contention: report: .*fabric gige_lab \(.*; TCP: fabric calibrated under $OTHER_CC, node n[1-4] runs $HOST_CC" \
    "a batch script's srun on a node running $HOST_CC, fabric calibrated under $OTHER_CC: its report line says so"
out=$(lc_alloc "$ALLOC" 'srun --contention=report --contention-pattern=halves true 2>&1 | grep "contention:"')
tap_is "$(grep -c 'fabric gige_lab' <<<"$out"):$(grep -c 'TCP:' <<<"$out")" "1:0" \
    "salloc's srun on this host (no SLURMD_NODENAME): the same line, no word of TCP"

# ---- outside an allocation ----------------------------------------------------
lc_plugstack "signatures=$SIGS"
out=$(timeout "$CT_TIMEOUT" srun -N4 -n16 -l --contention=cyclic printenv SLURMD_NODENAME 2>&1 |
    sort -n | awk '{print $2}' | sed 's/^n//' | awk '{printf "%s%d", (NR > 1 ? " " : ""), $1 - 1}')
tap_is "$out" "$CYCLIC" "srun --contention=cyclic outside an allocation runs cyclic"
out=$(timeout "$CT_TIMEOUT" srun -N4 -n16 --contention=auto true 2>&1; echo "rc=$?")
tap_like "$out" "contention: not inside an allocation.*nothing scored" \
    "srun --contention=auto outside an allocation says why it cannot score"

[ "$T_FAILED" -eq 0 ]
