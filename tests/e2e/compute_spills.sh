#!/usr/bin/env bash
# Arithmetic that spills to the stack beside a heap array pass (tests/programs/compute_spills.c,
# decoder rule Compute): the compute time is no data, not [stack]; the array gets its measured share.
# Usage: compute_spills.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "compute_spills was not built: $prog"

measure_timed_like_native "$prog"
check compute_spills report.json --timing timing
