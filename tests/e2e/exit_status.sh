#!/usr/bin/env bash
# A program that exits with status 3 after writing to both streams: under the tool the status
# and every byte are those of the native run, and the profile is still written (exit() is a
# normal exit). Usage: exit_status.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
args=("two words" "--" "-o" "x")  # arguments that look like options must reach the program

run_to native "$prog" "${args[@]}"
[ "$(cat native.status)" = 3 ] || fail "native run exited $(cat native.status), expected 3"
run_to tool "$HPCL_RUN" -o meas -- "$prog" "${args[@]}"
same_as_native native tool
expect_profiles meas 1
