#!/usr/bin/env bash
# Two runs into two fresh directories: each holds its own single profile, and each merges into a
# database of one process. Usage: two_runs.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
for d in first second; do
  run_to "$d" "$HPCL_RUN" -o "$d" -- "$prog" 10
  [ "$(cat "$d.status")" = 0 ] || fail "run into $d failed: $(cat "$d.err")"
  expect_profiles "$d" 1
done
[ "$(basename "$(profiles first)")" != "$(basename "$(profiles second)")" ] || fail "both runs wrote the same file name"
for d in first second; do
  merge_and_report "$d" "$d.hpcdb" "$d.json"
  "$HPCL_PYTHON" -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; assert t["processes"]==1 and t["samples"]>0, t' "$d.json" \
    || fail "$d: the database is not one process with samples"
done
