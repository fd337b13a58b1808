#!/usr/bin/env bash
# Fixture for the report tests: one short measured run of alloc_apis, merged. Its work directory
# (HPCL_WORK) is the one the report tests read as HPCL_SHARED. The merge's advice about debug
# information leaves the profiler's own libraries out (libunwind8-dbgsym is nothing the user
# needs). Usage: short_run.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
run_to native "$prog" 40
run_to tool "$HPCL_RUN" -o meas -- "$prog" 40
same_as_native native tool
expect_profiles meas 1
"$HPCL_PROF" merge meas -o db.hpcdb 2>merge.err || { cat merge.err >&2; fail "hpcprof-lite merge failed"; }
cat merge.err >&2
if grep -q "libunwind\|libhpcrun-lite" merge.err; then fail "merge advises debug packages of the profiler's own libraries"; fi
"$HPCL_PROF" report db.hpcdb --format json --top 0 >report.json || fail "hpcprof-lite report failed"
