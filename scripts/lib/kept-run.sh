# shellcheck shell=bash
# A kept run of scripts/placement-validation or scripts/app-validation: the
# rules both follow, sourced by both.

# keep_signature SIG DIR: a measuring run keeps the signature it is measured
# with as DIR/signature.yaml, by which a later --from render names it
keep_signature() {
    [ "$1" -ef "$2/signature.yaml" ] || cp "$1" "$2/signature.yaml"
}

# run_day DIR: the day the run was measured, for the section each renders:
# the earliest "# date at start:" of its cases' times.txt, else (runs that
# recorded none) the date its name holds, else the directory's mtime, which
# a copy or a fresh clone resets.
run_day() {
    local x=$1 d
    d=$(sed -n 's/^# date at start: \([0-9-]*\)T.*/\1/p' "$x"/*/times.txt 2>/dev/null | sort | head -1)
    [ -n "$d" ] || d=$(basename "$x" | grep -o '20[0-9][0-9]-[01][0-9]-[0-3][0-9]' | head -1)
    [ -n "$d" ] || d=$(date -u -r "$x" +%Y-%m-%d)
    printf '%s' "$d"
}
