# shellcheck shell=bash
# How the accuracy matrix calibrates a 4-node (or N-node) scripts/emucluster:
# one rule, sourced by scripts/accuracy-report and by the evidence scripts
# whose runs claim to be "calibrated as the matrix calibrates"
# (scripts/steps-evidence), so the two cannot drift apart. The matrix refits
# the raw outputs itself (ct-accuracy-eval); the file written here is the
# papers' fit that calibrate prints by default.

# the Alltoall's sizes per destination: calibrate's own (32K-512K, moved to
# 32K,64K,512K,1M,2M where its 2 x 1's 128 KiB sits on the call's floor:
# session 52, doc/calibration.md); CT_ACCURACY_SIZES=LIST measures those
# (session 51's check of the call-floor warning: doc/accuracy-runs/sizes-s51)
MATRIX_SIZES=${CT_ACCURACY_SIZES:-}

# matrix_calibrate ADMIN FABRIC NODES RAW OUT [calibrate options...]: calibrate
# on partition emu, up to 4 tasks per node, the many-flow steps chosen by
# calibrate (--flow-tasks auto), CT_ACCURACY_CAL_REPS repetitions (5)
matrix_calibrate() {
    local admin=$1 fabric=$2 nodes=$3 raw=$4 out=$5
    shift 5
    "$admin" calibrate --fabric "$fabric" --partition emu --nodes "$nodes" --tasks-per-node 4 \
        --flow-tasks auto ${MATRIX_SIZES:+--sizes "$MATRIX_SIZES"} \
        --reps "${CT_ACCURACY_CAL_REPS:-5}" --raw "$raw" --out "$out" "$@"
}
