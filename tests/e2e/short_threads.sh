#!/usr/bin/env bash
# Many short-lived threads run one after another: the shares of the worker and main arrays must
# match their CPU time shares (measured by the native run, each thread on its own clock), and the
# report must count every thread (the runtime reuses the state and tree of an exited thread for
# the next one).
#
# With SLICES small, each worker runs far shorter than one sampling period (4 slices: ~0.1 ms
# against 1 ms). Its samples then come only from the random phase at which each thread's sampling
# starts (hpcrun-lite/runtime/sources/sampling_phase.h): without it a worker is never sampled and the
# worker array's share is ~0 instead of ~0.5. The shares must be within the tolerance of their
# sample count (check_report.py, tolerance.py: 4 binomial sd plus 2 points at a share of 1/2 for
# what the sampler and the program's clock disagree on, which covers the worker's share running
# 1-2 points high, below): the ~1,700 samples of 12,000 threads give 6.8 points, and a missing
# phase (a share of ~0) still fails by far.
# RATE (default SOFT_RATE) is the soft source's; workers of 320 slices are sampled at 4,000/s in
# CMakeLists.txt (about 4,400 samples, 5 points), the short ones at SOFT_RATE, where one sampling
# period (1 ms) is ten times a worker.
# Usage: short_threads.sh PROGRAM THREADS [SLICES] [RATE]
source "$(dirname "$0")/lib.sh"
prog=$1
threads=$2
slices=${3:-320}
SOFT_RATE=${4:-$SOFT_RATE}
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
# caches; 0.490-0.537 over 13 runs), inside the 2-point systematic allowance of tolerance.py;
# a missing phase gives ~0.
check proportions report.json --program short_threads --processes 1 --timing timing
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
