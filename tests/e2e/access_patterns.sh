#!/usr/bin/env bash
# The access patterns, fields and advice of a program whose answers its code gives
# (tests/programs/access_patterns.c and .f90; check_patterns.py lists them), sampled at the e2e
# tests' soft rate (lib.sh): measured natively and under the tool (the program's output must not
# change), merged, reported as JSON, checked. An AVX2 build is skipped on a CPU without AVX2.
# Usage: access_patterns.sh c|fortran PROGRAM
source "$(dirname "$0")/lib.sh"
lang=$1
prog=$2
[ -x "$prog" ] || skip "not built: $prog"
case "$prog" in
  *avx2*) cpu_has avx2 || skip "this CPU has no AVX2" ;;
esac
HPCL_TEST_TIMING_FILE=$PWD/timing measure_like_native "$prog"
cat timing.* >&2
step "check_patterns.py report.json --lang $lang"
"$HPCL_PYTHON" "$E2E_DIR/check_patterns.py" report.json --lang "$lang"
