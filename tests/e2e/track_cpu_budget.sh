#!/usr/bin/env bash
# The tracking budget refills by the thread's CPU time, not by wall time (track_control.h):
# tests/programs/track_sleep.c allocates 2,000,000 small blocks, sleeps a second, then allocates
# 200,000 at another site. The first burst gets its start-up grant (at least 16,384 tracked); the
# second is tracked at the first one's rate, far fewer than the 32,768 a bucket refilled by the
# sleep would have paid for.
# Usage: track_cpu_budget.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1

measure_like_native "$prog"
"$HPCL_PROF" report db.hpcdb --format json --top 0 --all --no-group >all.json || fail "report --all failed"
"$HPCL_PYTHON" - all.json <<'PY' || fail "the sleep paid for tracking"
import json, sys
report = json.load(open(sys.argv[1]))
def tracked(site):
    return sum(v.get("allocations", 0) for v in report["variables"]
               if any(f.get("function") == site for f in v.get("allocation_path") or []))
first, second = tracked("first_site"), tracked("second_site")
print(f"tracked blocks: first burst {first} of 2,000,000, second burst {second} of 200,000")
if first < 16384:
    sys.exit(f"the first burst has {first} tracked blocks, fewer than its start-up grant")
if second >= 16384:
    sys.exit(f"the second burst has {second} tracked blocks: the sleep refilled the budget")
PY
