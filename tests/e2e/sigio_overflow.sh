#!/usr/bin/env bash
# The kernel falls back to SIGIO (si_code SI_KERNEL) when it cannot queue a sampling signal; the
# runtime absorbs that one, but a SIGIO sent by kill() still ends the program as without the tool.
# Usage: sigio_overflow.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1

run_to native "$prog"
[ "$(cat native.status)" = 157 ] || fail "natively the kernel's SIGIO should kill the program (status $(cat native.status))"
run_to tool "$HPCL_RUN" -o meas -- "$prog"
[ "$(cat tool.status)" = 0 ] && grep -q survived tool.out || fail "under the tool the program did not survive: $(cat tool.status)"
expect_profiles meas 1

run_to native_kill "$prog" kill
run_to tool_kill "$HPCL_RUN" -o meas2 -- "$prog" kill
[ "$(cat tool_kill.status)" = 157 ] || fail "a SIGIO from kill() must still end the program (status $(cat tool_kill.status))"
expect_profiles meas2 1
