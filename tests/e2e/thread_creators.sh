#!/usr/bin/env bash
# Each thread's samples hang under the calling context that created it: thread_creators.c starts
# the same reader from start_left_team and from start_right_team, each over its own array. In the
# report (data view, JSON access paths, innermost first) every access path of left_array must
# pass through start_left_team after (outside) the reader and never through start_right_team, and
# the other way round; main must be outside both.
# Usage: thread_creators.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "thread_creators was not built: $prog"

measure_like_native "$prog"
step "checking the creation context of each array's access paths"
"$HPCL_PYTHON" - report.json <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
want = {"alloc_left_array": ("start_left_team", "start_right_team"),
        "alloc_right_array": ("start_right_team", "start_left_team")}
errors = []
for site, (creator, other) in want.items():
    found = [v for v in report["variables"] if v.get("kind") == "heap" and v["name"].startswith(site)]
    if len(found) != 1:
        errors.append(f"{site}: {len(found)} heap variables, expected one")
        continue
    var = found[0]
    total = var["metrics"]["samples"]
    under = 0
    for access in var.get("accesses", []):
        names = [f.get("function", "") for f in access["path"]]
        n = access["metrics"]["samples"]
        if other in names:
            errors.append(f"{site}: a path of {n} samples passes through {other}: {names}")
        if "reader" in names and creator in names and "main" in names and \
                names.index("reader") < names.index(creator) < names.index("main"):
            under += n
    print(f"{site}: {under} of {total} samples under reader <- {creator} <- main")
    if total < 100:
        errors.append(f"{site}: only {total} samples")
    # A sample whose unwind stopped short keeps only its leaf and the creation path.
    elif under < 0.9 * total:
        errors.append(f"{site}: only {under} of {total} samples under reader <- {creator} <- main")
if errors:
    sys.exit("FAIL: " + "\n".join(errors))
PY
