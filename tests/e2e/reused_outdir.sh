#!/usr/bin/env bash
# A second run into a directory that already holds a (non-MPI) run's profile must not mix the two
# runs silently. The launcher refuses: exit status 2, a message naming the directory, the program
# not started, and the directory left with the first run's profile only.
# Usage: reused_outdir.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1

run_to first "$HPCL_RUN" -o meas -- "$prog" 2
[ "$(cat first.status)" = 0 ] || fail "first run failed: $(cat first.err)"
expect_profiles meas 1
before=$(profiles meas)

run_to second "$HPCL_RUN" -o meas -- "$prog" 2
cat second.err >&2
[ "$(cat second.status)" = 2 ] || fail "second run into a used directory exited $(cat second.status), expected 2"
grep -q "^hpcrun-lite: .*meas.* already holds profiles" second.err || fail "no message naming the used directory"
[ ! -s second.out ] || fail "the program ran although the launcher refused"
[ "$(profiles meas)" = "$before" ] || fail "the used directory changed: $(profiles meas)"
