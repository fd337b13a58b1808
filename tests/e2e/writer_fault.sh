#!/usr/bin/env bash
# The profile writer fails (HPCRUN_LITE_TEST_WRITER_FAULT makes it fault or abort) while the
# program ends by WAY: the program's output and exit status are those of the native run, the
# tool says on stderr that no profile was written, and no partial profile is left.
# Usage: writer_fault.sh PROGRAM WAY FAULT
source "$(dirname "$0")/lib.sh"
prog=$1 way=$2 fault=$3
ulimit -c 0

run_to native "$prog" "$way"
HPCRUN_LITE_TEST_WRITER_FAULT=$fault run_to tool "$HPCL_RUN" -o meas -- "$prog" "$way"
for what in status out; do
  cmp -s "native.$what" "tool.$what" || { diff "native.$what" "tool.$what" >&2 || true; fail "$what differs"; }
done
grep -q "the profile writer failed" tool.err || { cat tool.err >&2; fail "no message about the failed writer"; }
n=$(find meas -type f 2>/dev/null | wc -l)
[ "$n" -eq 0 ] || { ls -la meas >&2; fail "$n files left in the measurement directory"; }
echo "status $(cat tool.status) as native; the writer's failure reported" >&2
