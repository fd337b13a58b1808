#!/usr/bin/env bash
# Issue 11: the runtime as it runs on a glibc without _dl_find_object (before 2.35: RHEL 8 and
# 9). The test variable makes every module lookup (function bounds for the decoder, the
# runtime's own code, PAPI's) go through the program-header snapshot; a program that dlopens a
# library after start must still have its shares right, and the runtime must say (-v) that it
# used the snapshot.
# Usage: old_glibc.sh NAME PROGRAM [ARGS...]   (NAME selects the weights in check_report.py)
source "$(dirname "$0")/lib.sh"
# 4,000/s: about 4,200 samples in dlopen_static's default 720 rounds, a tolerance of 4.9 points
# (tolerance.py) on its 40% shares; 1,000/s gave ~1,050 samples and 8 points.
SOFT_RATE=4000
name=$1
prog=$2
shift 2
[ -x "$prog" ] || skip "$name was not built: $prog"

run_to native "$prog" "$@"
HPCRUN_LITE_TEST_NO_DL_FIND_OBJECT=1 HPCL_TEST_TIMING_FILE=$PWD/timing \
  run_to tool "$HPCL_RUN" -v -e "soft@$SOFT_RATE" -o meas -- "$prog" "$@"
grep -q "module lookups: from the program-header snapshot" tool.err ||
  fail "the runtime did not say it used the program-header snapshot (tool.err)"
# The program's own output, without the runtime's -v lines.
grep -v '^hpcrun-lite: ' tool.err > tool.err.program || true
mv tool.err.program tool.err
same_as_native native tool
expect_profiles meas 1

merge_and_report meas db.hpcdb report.json
step "check_report.py proportions report.json --program $name --processes 1 --timing timing"
check proportions report.json --program "$name" --processes 1 --timing timing
