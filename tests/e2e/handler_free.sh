#!/usr/bin/env bash
# A program whose signal handler frees heap blocks while its thread is inside the runtime
# (tests/programs/handler_free.c): under the tool it must finish, with the native output and
# status, instead of hanging on the address map's lock.
# Usage: handler_free.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1

run_to native "$prog" 2
run_to tool timeout 60 "$HPCL_RUN" -o meas -- "$prog" 2
[ "$(cat tool.status)" != 124 ] || fail "the program hung under the tool (killed after 60 s)"
same_as_native native tool
expect_profiles meas 1
