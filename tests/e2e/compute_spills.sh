#!/usr/bin/env bash
# Arithmetic that spills to the stack beside a heap array pass (tests/programs/compute_spills.c,
# decoder rule Compute): the compute time is no data, not [stack]; the array gets its measured share.
# Usage: compute_spills.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "compute_spills was not built: $prog"

run_to native "$prog"
HPCL_TEST_TIMING_FILE=$PWD/timing run_to tool "$HPCL_RUN" -o meas -- "$prog"
cat tool.err >&2
same_as_native native tool
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
check compute_spills report.json --timing timing
