#!/usr/bin/env bash
# Many short-lived threads run one after another: the shares of the worker and main arrays must
# match their 1:1 weights, and the report must count every thread (the runtime reuses the state
# and tree of an exited thread for the next one).
# Usage: short_threads.sh PROGRAM THREADS
source "$(dirname "$0")/lib.sh"
prog=$1
threads=$2
[ -x "$prog" ] || skip "short_threads was not built: $prog"

run_to native "$prog" "$threads"
run_to tool "$HPCL_RUN" -o meas -- "$prog" "$threads"
cat tool.err >&2
same_as_native native tool
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
check proportions report.json --program short_threads --processes 1
step "checking totals.threads"
"$HPCL_PYTHON" - report.json "$((threads + 1))" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
got = report["totals"]["threads"]
if got != want:
    sys.exit(f"FAIL: totals.threads is {got}, expected {want} (the main thread and every worker)")
print(f"threads counted: {got}")
PY
