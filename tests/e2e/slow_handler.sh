#!/usr/bin/env bash
# A sampling handler slower than the period (issue 11). The task clock counts the handler's own
# time, so the event overflows again while the handler runs; that signal, delivered after the
# return, landed on the same PC: the PC was charged with the handler's time, and when every
# handler is that slow each sample queued the next and the program never ran again (the run
# below did not finish within its limit). The handler now takes those overflows itself and counts
# them (META samples_overruns). A test-only knob makes every recorded sample's handler spin for
# twice the period.
# Usage: slow_handler.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "short_threads was not built: $prog"

run_to native "$prog" 2 2000
HPCRUN_LITE_TEST_HANDLER_SPIN_US=2000 run_to tool timeout 20 "$HPCL_RUN" -e soft@1000 -o meas -- "$prog" 2 2000
cat tool.err >&2
[ "$(cat tool.status)" != 124 ] || fail "the program did not finish in 20 s with a slow handler"
same_as_native native tool
expect_profiles meas 1
f=$(profiles meas)
samples=$(profile_meta "$f" samples_total)
overruns=$(profile_meta "$f" samples_overruns)
echo "samples $samples, overruns $overruns" >&2
[ "$overruns" -gt 0 ] || fail "no overrun counted although every handler outlasts the period"
# Each recorded sample followed at least a half period (the dithered minimum) of program time.
[ "$samples" -lt 2000 ] || fail "$samples samples: more than the program's own time can give"
