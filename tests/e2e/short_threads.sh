#!/usr/bin/env bash
# Many short-lived threads run one after another: the shares of the worker and main arrays must
# match their CPU time shares (measured by the native run, each thread on its own clock), and the
# report must count every thread (the runtime reuses the state and tree of an exited thread for
# the next one).
#
# With SLICES small, each worker runs far shorter than one sampling period (4 slices: ~0.1 ms
# against 1 ms). Its samples then come only from the random phase at which each thread's sampling
# starts (hpcrun-lite/runtime/sources/sampling_phase.h): without it a worker is never sampled and the
# worker array's share is ~0 instead of ~0.5. The shares must be within 7 points there (5 with
# longer workers): the ~1,500 samples of 12,000 threads give a binomial sigma of 1.3 points, and
# the worker's share runs 1-2 points high (below).
# Usage: short_threads.sh PROGRAM THREADS [SLICES]
source "$(dirname "$0")/lib.sh"
prog=$1
threads=$2
slices=${3:-320}
[ -x "$prog" ] || skip "short_threads was not built: $prog"

HPCL_TEST_TIMING_FILE=$PWD/timing run_to native "$prog" "$threads" "$slices"
run_to tool "$HPCL_RUN" -e "soft@$SOFT_RATE" -o meas -- "$prog" "$threads" "$slices"
cat tool.err >&2
same_as_native native tool
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
cat timing.* >&2
# Workers shorter than a period (a few slices): the share is the random phase's, and the worker's
# runs 1-2 points above its native time share (the runtime's thread start leaves it colder
# caches; 0.490-0.537 over 13 runs): 7 points, where a missing phase gives ~0.
tolerance=0.05
[ "$slices" -le 8 ] && tolerance=0.07
check proportions report.json --program short_threads --processes 1 --timing timing --tolerance "$tolerance"
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
