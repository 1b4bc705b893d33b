#!/usr/bin/env python3
"""Sum test cases over meson testlog.json files and print the closing line.

cmocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)..." per
program; TAP programs print "ok"/"not ok" lines. A program that crashed
before reporting counts as one failure. Prints "tests: N passed, N failed,
N skipped" and exits 1 when anything failed or nothing ran.

Arguments are testlog.json files, or "--tap FILE" for a plain TAP stream
(scripts/slurm-matrix): its ok/not ok/# SKIP lines count the same way, and a
stream without its "1..N" plan (the producer died) counts as one failure.
"""
import json
import re
import sys

passed = failed = skipped = 0
failures = []  # "program: case" of each failure, listed before the closing line
args = sys.argv[1:]
jsons, taps = [], []
while args:
    a = args.pop(0)
    if a == "--tap" and args:
        taps.append(args.pop(0))
    else:
        jsons.append(a)
for path in taps:
    try:
        out = open(path, errors="replace").read()
    except OSError:
        out = ""
    tap_ok = len(re.findall(r"^ok \d+", out, re.M))
    tap_skip = len(re.findall(r"^ok \d+.*# ?SKIP", out, re.M | re.I))
    passed += tap_ok - tap_skip
    skipped += tap_skip
    bad = re.findall(r"^not ok \d+.*$", out, re.M)
    failed += len(bad)
    failures += [f"{path}: {b}" for b in bad]
    if not re.search(r"^1\.\.\d+", out, re.M):
        failed += 1
        failures.append(f"{path}: no TAP plan (the producer died)")
for path in jsons:
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            out = (rec.get("stdout", "") or "") + "\n" + (rec.get("stderr", "") or "")
            result = rec.get("result", "")
            p = sum(int(x) for x in re.findall(r"\[  PASSED  \] (\d+) test", out))
            fl = sum(int(x) for x in re.findall(r"\[  FAILED  \] (\d+) test", out))
            tap_ok = len(re.findall(r"^ok \d+", out, re.M))
            tap_skip = len(re.findall(r"^ok \d+.*# ?SKIP", out, re.M | re.I))
            tap_fail = len(re.findall(r"^not ok \d+", out, re.M))
            name = rec.get("name", "?")
            if p or fl:
                passed += p
                failed += fl
                failures += [f"{name}: {b}" for b in
                             re.findall(r"^\[  FAILED  \] (?!\d+ test).*$", out, re.M)]
            elif tap_ok or tap_fail:
                passed += tap_ok - tap_skip
                skipped += tap_skip
                failed += tap_fail
                failures += [f"{name}: {b}" for b in re.findall(r"^not ok \d+.*$", out, re.M)]
            elif result == "SKIP":
                skipped += 1
            elif result == "OK":
                passed += 1
            # anything else is counted once just below
            if result not in ("OK", "SKIP", "EXPECTEDFAIL") and not fl and not tap_fail:
                failed += 1  # crashed, timed out or exited non-zero without reporting
                failures.append(f"{name}: {result or 'no result'} (exit {rec.get('returncode')})")
if failures:
    # Listed last so that a truncated CI log still names what failed.
    print(f"failed ({len(failures)} lines):")
    for f_ in failures[:60]:
        print("  " + f_[:300])
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
