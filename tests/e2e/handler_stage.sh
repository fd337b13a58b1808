#!/usr/bin/env bash
# The benchmark knob HPCRUN_LITE_TEST_HANDLER_STAGE (bench/sample_cost.sh, issue 14): the soft
# handler stops after the named stage, so the samples are taken (META samples_total) but none
# reaches the tree with a data address; without it the same run's tree holds data samples. (A
# sample that interrupts the runtime's own code is still recorded as code time, under no data,
# whatever the stage: that path does not run record_sample.) A knob that stopped
# nothing would make every stage of the benchmark measure the whole runtime.
# Usage: handler_stage.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "alloc_apis was not built: $prog"

for stage in entry unwind full; do
  rm -rf "meas.$stage"
  if [ "$stage" = full ]; then
    run_to "tool.$stage" "$HPCL_RUN" -e soft@1000 -o "meas.$stage" -- "$prog" 20
  else
    HPCRUN_LITE_TEST_HANDLER_STAGE=$stage run_to "tool.$stage" "$HPCL_RUN" -e soft@1000 -o "meas.$stage" -- "$prog" 20
  fi
  expect_profiles "meas.$stage" 1
  taken=$(profile_meta "$(profiles "meas.$stage")" samples_total)
  merge_and_report "meas.$stage" "db.$stage" "report.$stage.json"
  recorded=$("$HPCL_PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["totals"].get("data_samples", 0))' "report.$stage.json")
  echo "stage $stage: $taken samples taken, $recorded with a data address in the tree" >&2
  [ "$taken" -gt 50 ] || fail "stage $stage: only $taken samples taken"
  if [ "$stage" = full ]; then
    [ "$recorded" -gt 50 ] || fail "without the knob only $recorded data samples reached the tree"
  else
    [ "$recorded" -eq 0 ] || fail "stage $stage: $recorded data samples reached the tree"
  fi
done
