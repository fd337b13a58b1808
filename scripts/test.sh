#!/usr/bin/env bash
# Builds everything and runs every test; this is the check that a checkout works.
#   1. installs the Debian packages (scripts/install-deps.sh; a no-op when all are present),
#   2. configures build/ with warnings as errors and builds it,
#   3. runs all unit and end-to-end tests with ctest,
#   4. in CI (CI=true) also builds build-asan/ with ASan/UBSan and runs the unit tests there
#      (the analyzer and the format library are sanitized; the preloaded runtime never is).
# Exits with ctest's status (non-zero if either ctest run failed).
# Environment: HPCL_BUILD_DIR (default build), CTEST_ARGS (extra ctest arguments, e.g. "-R e2e").
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
hpcl_mpi_env

build=${HPCL_BUILD_DIR:-$HPCL_ROOT/build}
jobs=$(hpcl_jobs)
read -r -a extra <<<"${CTEST_ARGS:-}"

say "installing dependencies"
"$HPCL_ROOT/scripts/install-deps.sh"

say "configuring $build"
cmake -S "$HPCL_ROOT" -B "$build" -DHPCL_WERROR=ON
say "building with $jobs jobs"
cmake --build "$build" -j "$jobs"

say "running the tests"
status=0
# One test at a time: the end-to-end tests measure time shares on a 2-core machine.
log=$build/ctest-summary.log
set +e
ctest --test-dir "$build" --output-on-failure "${extra[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

if [ "${CI:-}" = "true" ]; then
  asan=$HPCL_ROOT/build-asan
  say "configuring $asan (sanitizers, unit tests only)"
  cmake -S "$HPCL_ROOT" -B "$asan" -DHPCL_WERROR=ON -DHPCL_SANITIZE=ON -DHPCL_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=Debug
  cmake --build "$asan" -j "$jobs"
  set +e
  # Unit tests only: the end-to-end, manual-page and packaging tests run the commands as a user
  # gets them, which the first build covers (and LeakSanitizer counts Open MPI's own leaks in
  # MPI_Init against hpcprof-lite-mpi --help).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$asan" --output-on-failure -E '^(e2e|docs|packaging)\.' 2>&1 | tee -a "$log"
  asan_status=${PIPESTATUS[0]}
  set -e
  if [ "$status" -eq 0 ]; then status=$asan_status; fi
fi

# A test that needs what this machine lacks (a PMU, breakpoints that count, a non-root user)
# exits 77 or calls GTEST_SKIP and ctest reports it as skipped: name every one with its reason,
# so a machine that skips the hardware tests is visible and says why.
mapfile -t skipped < <(hpcl_skipped_with_reasons "$log" "$build/Testing/Temporary/LastTest.log" \
  ${asan:+"$asan/Testing/Temporary/LastTest.log"})
if [ "${#skipped[@]}" -gt 0 ]; then
  say "skipped (${#skipped[@]}):"
  printf '    %s\n' "${skipped[@]}" >&2
fi
if [ "$status" -eq 0 ]; then
  if [ "${#skipped[@]}" -gt 0 ]; then say "all tests passed or were skipped (listed above)"; else say "all tests passed"; fi
else
  say "tests failed (status $status)"
fi
exit "$status"
