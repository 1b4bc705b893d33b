# shellcheck shell=bash
# The day a kept run of scripts/placement-validation or scripts/app-validation
# was measured, for the section each renders: one rule, sourced by both.
# run_day DIR: the earliest "# date at start:" of its cases' times.txt, else
# (runs that recorded none) the date its name holds, else the directory's
# mtime, which a copy or a fresh clone resets.
run_day() {
    local x=$1 d
    d=$(sed -n 's/^# date at start: \([0-9-]*\)T.*/\1/p' "$x"/*/times.txt 2>/dev/null | sort | head -1)
    [ -n "$d" ] || d=$(basename "$x" | grep -o '20[0-9][0-9]-[01][0-9]-[0-3][0-9]' | head -1)
    [ -n "$d" ] || d=$(date -u -r "$x" +%Y-%m-%d)
    printf '%s' "$d"
}
