#!/usr/bin/env bash
# Arithmetic that spills to the stack beside a heap array pass (tests/programs/compute_spills.c,
# decoder rule Compute): the compute time is no data, not [stack]; the array gets its measured share.
# Usage: compute_spills.sh PROGRAM
source "$(dirname "$0")/lib.sh"
# 2,000/s: about 3,500 samples, a tolerance of 4.6 points (tolerance.py) on the array's 27% of
# them; 5.8 at 1,000/s.
SOFT_RATE=2000
prog=$1
[ -x "$prog" ] || skip "compute_spills was not built: $prog"

measure_timed_like_native "$prog"
check compute_spills report.json --timing timing
