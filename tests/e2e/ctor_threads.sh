#!/usr/bin/env bash
# Threads started before the runtime's constructor (issue 11; OpenBLAS starts its pool in a
# constructor): ctor_threads' library starts two workers in its constructor, and they do all the
# memory work. The runtime adopts them at start-up (an event per thread found in /proc/self/task,
# routed to that thread): their samples must be in the report, on the library's static array and
# on the block each worker mallocs. Before, they were never sampled (the array had no samples).
# Usage: ctor_threads.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "ctor_threads was not built: $prog"

run_to native "$prog"
run_to tool "$HPCL_RUN" -o meas -- "$prog"
cat tool.err >&2
same_as_native native tool
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
step "checking the pool's samples"
"$HPCL_PYTHON" - report.json <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
total = report["totals"]["samples"]
def samples(pred):
    return sum(v["metrics"]["samples"] for v in report["variables"] if pred(v))
static = samples(lambda v: v["name"].startswith("ctor_pool_data"))
block = samples(lambda v: v.get("kind") == "heap" and v["name"].startswith("alloc_pool_block"))
print(f"samples: total {total}, ctor_pool_data {static}, alloc_pool_block {block}")
# Two workers sum the array for 0.4 s of CPU each at 1000/s: ~800 samples, ~750 on the array.
if static < 300:
    sys.exit(f"FAIL: the constructor's threads were not sampled: {static} samples on ctor_pool_data")
if block < 30:
    sys.exit(f"FAIL: the block a constructor thread allocated has {block} samples")
PY
