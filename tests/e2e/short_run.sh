#!/usr/bin/env bash
# Fixture for the report tests: one short measured run of alloc_apis, merged. Its work directory
# (HPCL_WORK) is the one the report tests read as HPCL_SHARED. Usage: short_run.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
run_to native "$prog" 40
run_to tool "$HPCL_RUN" -o meas -- "$prog" 40
same_as_native native tool
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
