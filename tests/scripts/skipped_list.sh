#!/usr/bin/env bash
# scripts/test.sh names every skipped test at its end: hpcl_skipped_tests must find the tests a
# real ctest log lists as skipped (exit 77), disabled or not run, and nothing else: not the
# passed or failed ones, not the "(Failed)" list, and each test once when the log holds two runs;
# hpcl_skipped_with_reasons must add the reason each skipped test printed.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The shape ctest 3.25 prints (a tab, then a space before the number).
printf '%s\n' \
  '  1/3 Test   #1: format.ok ..................   Passed    0.01 sec' \
  '  2/3 Test  #55: format.FileTest.ReadOnlyDirectoryFailsCleanly ...***Skipped   0.01 sec' \
  '' \
  '67% tests passed, 0 tests failed out of 3' \
  '' \
  'The following tests did not run:' \
  $'\t 55 - format.FileTest.ReadOnlyDirectoryFailsCleanly (Skipped)' \
  $'\t612 - e2e.pebs_loads (Skipped)' \
  $'\t 70 - e2e.off (Disabled)' \
  '' \
  'The following tests FAILED:' \
  $'\t 12 - e2e.broken (Failed)' \
  'The following tests did not run:' \
  $'\t 55 - format.FileTest.ReadOnlyDirectoryFailsCleanly (Skipped)' >"$log"
got=$(hpcl_skipped_tests "$log")
want=$(printf '%s\n' 'e2e.off (Disabled)' 'e2e.pebs_loads (Skipped)' \
  'format.FileTest.ReadOnlyDirectoryFailsCleanly (Skipped)')
if [ "$got" != "$want" ]; then
  printf 'hpcl_skipped_tests gave:\n%s\nexpected:\n%s\n' "$got" "$want" >&2
  exit 1
fi
# Each skipped test with the reason its output gave, from ctest's full log (the shape ctest 3.25
# writes to Testing/Temporary/LastTest.log): an e2e driver's "SKIP:" line, GoogleTest's line after
# "Skipped"; a passed test's output and a skipped test that said nothing add no reason.
full=$(mktemp)
trap 'rm -f "$log" "$full"' EXIT
printf '%s\n' \
  '1/3 Testing: format.ok' '1/3 Test: format.ok' 'Output:' '---' 'SKIP: not a skip line of a skipped test' \
  '<end of output>' 'Test Passed.' '"format.ok" end time: Dec 02 00:53 UTC' \
  '55/612 Test: format.FileTest.ReadOnlyDirectoryFailsCleanly' 'Output:' \
  '[ RUN      ] FileTest.ReadOnlyDirectoryFailsCleanly' '/src/file_test.cpp:75: Skipped' \
  'root ignores directory permissions' '[  SKIPPED ] FileTest.ReadOnlyDirectoryFailsCleanly (0 ms)' \
  '<end of output>' 'Test Pass Reason:' 'Skip regular expression found in output.' \
  '612/612 Test: e2e.pebs_loads' 'Output:' '+ a step' 'SKIP: pebs-load is unavailable here (hpcrun-lite --check): no PMU' \
  'SKIP: a second line' '<end of output>' 'Test Passed.' >"$full"
got=$(hpcl_skipped_with_reasons "$log" "$full")
want=$(printf '%s\n' 'e2e.off (Disabled)' \
  'e2e.pebs_loads (Skipped): pebs-load is unavailable here (hpcrun-lite --check): no PMU' \
  'format.FileTest.ReadOnlyDirectoryFailsCleanly (Skipped): root ignores directory permissions')
if [ "$got" != "$want" ]; then
  printf 'hpcl_skipped_with_reasons gave:\n%s\nexpected:\n%s\n' "$got" "$want" >&2
  exit 1
fi
# Without the full log, the names alone.
[ "$(hpcl_skipped_with_reasons "$log" /nonexistent)" = "$(hpcl_skipped_tests "$log")" ] ||
  { echo "hpcl_skipped_with_reasons without a full log differs from hpcl_skipped_tests" >&2; exit 1; }
# A log without skipped tests lists nothing (and the function still succeeds under set -e).
echo '100% tests passed, 0 tests failed out of 3' >"$log"
got=$(hpcl_skipped_tests "$log")
[ -z "$got" ] || { echo "expected no skipped tests, got: $got" >&2; exit 1; }
echo "ok"
