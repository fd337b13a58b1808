#!/usr/bin/env bash
# Variables named as their user knows them: runs PROGRAM under the tool with the given tool
# options, merges, and has check_report.py `names` compare the JSON report's labels with the
# `site:` comments of SOURCE (and whatever else the check options ask).
# usage: names.sh PROGRAM SOURCE [TOOL-OPTION...] -- [CHECK-OPTION...]
source "$(dirname "$0")/lib.sh"
program=${1:?usage: names.sh PROGRAM SOURCE [TOOL-OPTION...] -- [CHECK-OPTION...]}
source_file=${2:?usage: names.sh PROGRAM SOURCE [TOOL-OPTION...] -- [CHECK-OPTION...]}
shift 2
tool_options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  tool_options+=("$1")
  shift
done
[ $# -gt 0 ] && shift
[ -x "$program" ] || skip "$program was not built (for Fortran: no Fortran compiler with OpenMP)"

run_to measured "$HPCL_RUN" -o meas "${tool_options[@]}" -- "$program"
[ "$(cat measured.status)" -eq 0 ] || { cat measured.err >&2; fail "the program failed under the tool"; }
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json --all  # sites are checked by name, with samples or not
"$HPCL_PROF" report db.hpcdb --top 12 >&2 || true
check names report.json --source "$source_file" "$@" || fail "the names in the report are not the source's"
