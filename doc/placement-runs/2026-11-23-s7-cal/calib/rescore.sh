#!/bin/bash
# Rescore every case of this run with another signature (no cluster) and
# compare with the measured medians of table.md: median |predicted/measured - 1|
# over the block, cyclic and optimized cells, the block/cyclic decisions where
# the two measured more than 10 % apart (auto's rule: cyclic only when
# predicted >= 5 % faster than block), and the optimized placement's
# predicted >= 20 % cases and how many measured >= 20 % (of the layouts
# measured in this run: a case whose search now finds another layout is
# still compared with the one measured).
#   doc/placement-runs/2026-11-23-s7-cal/calib/rescore.sh SIGNATURE.yaml
set -euo pipefail
R=$(cd "$(dirname "$0")/.." && pwd)
A=${CT_ADMIN:-$R/../../../build/admin/contention-admin}
sig=$1
for d in "$R"/halo*/; do
    c=$(basename "$d")
    read -r cpn nl n <<<"$(awk '/^# alloc/ { print $3, $4, $6 }' "$d/times.txt")"
    pat=$(head -1 "$d/score.txt" | sed 's/.*pattern \([^,]*\),.*/\1/')
    case $pat in trace:*) pat=trace:$d/$(basename "${pat#trace:}") ;; esac
    out=$("$A" score --config "$sig" --cpus-per-node "$cpn" --ntasks "$n" --nodelist "$nl" \
        --pattern "$pat" --size 1M --json)
    echo "$c $out"
done | python3 -c '
import json, re, statistics, sys
meas = {}
for line in open(sys.argv[1]):
    if line.startswith("| halo"):
        f = [x.strip() for x in line.split("|")[1:-1]]
        meas[f"{f[0]}-{f[1]}-{f[2]}"] = [None if x == "-" else float(x.split()[0]) for x in f[5:8]]
errs, dec, opt = [], [], []
for line in sys.stdin:
    case, js = line.split(" ", 1)
    d = json.loads(js)
    p = {c["name"]: 1000 * c["predicted_s"] for c in d["candidates"]}
    mb, mc, mo = meas[case]
    errs += [p["block"] / mb - 1, p["cyclic"] / mc - 1]
    o = d["optimized"]
    po = 1000 * o["predicted_s"] if o["from"] not in ("block", "cyclic") else None
    if po and mo:
        errs.append(po / mo - 1)
    if po:
        opt.append((case, 100 * o["gain"], 100 * (min(mb, mc) - mo) / min(mb, mc) if mo else None))
    pick = "cyclic" if (p["block"] - p["cyclic"]) / p["block"] >= 0.05 else "block"
    faster = "block" if mb < mc else "cyclic"
    if max(mb, mc) / min(mb, mc) > 1.10:
        dec.append((case, pick, faster))
    pb, pc, g = p["block"], p["cyclic"], 100 * o["gain"]
    ot = f"{po:6.0f} / {mo:4.0f} (gain {g:.1f} %)" if po and mo else f"{po:6.0f} / not measured" if po else "-"
    print(f"{case:28s} block {pb:6.0f} / {mb:4.0f}  cyclic {pc:6.0f} / {mc:4.0f}  optimized {ot}")
a = sorted(abs(x) for x in errs)
print(f"median |predicted/measured - 1| {100 * statistics.median(a):.1f} % over {len(a)} cells (min {100 * min(errs):+.1f} %, max {100 * max(errs):+.1f} %)")
print(f"block/cyclic decisions right where they differ > 10 %: {sum(1 for c, p, f in dec if p == f)}/{len(dec)}"
      + "".join(f"; wrong: {c} ({p} chosen, {f} faster)" for c, p, f in dec if p != f))
big = [x for x in opt if x[1] >= 20]
print(f"optimized predicted >= 20 %: {len(big)}, measured >= 20 %: {sum(1 for x in big if x[2] is not None and x[2] >= 20)}")
' "$R/table.md"
