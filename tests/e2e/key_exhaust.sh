#!/usr/bin/env bash
# Issue 11: a process whose libraries took every pthread key before the runtime started
# (tests/programs/key_exhaust_lib.c). The runtime must still see each thread end, by return or
# pthread_exit, and close the sampling descriptor it opened for it: the program prints how many
# descriptors its threads left open (0 natively; 40 when the runtime ignored the failed
# pthread_key_create). libunwind, which would store its caches under another library's key, is
# not used, and the runtime says so in one line.
# Usage: key_exhaust.sh PROGRAM [THREADS]
source "$(dirname "$0")/lib.sh"
prog=$1
threads=${2:-40}
[ -x "$prog" ] || skip "key_exhaust was not built: $prog"

run_to native "$prog" "$threads"
run_to tool "$HPCL_RUN" -o meas -- "$prog" "$threads"
cat tool.err >&2
grep -q "descriptors left open by $threads threads: 0" native.out ||
  fail "the native run left descriptors open: $(cat native.out)"
for what in status out; do
  cmp -s "native.$what" "tool.$what" || {
    diff "native.$what" "tool.$what" >&2 || true
    fail "the program's $what differs under the tool (descriptors of ended threads left open?)"
  }
done
grep -q "no pthread key left for libunwind" tool.err ||
  fail "the runtime did not say that libunwind is not used"
[ "$(grep -vc "no pthread key left for libunwind" tool.err)" = 0 ] ||
  fail "unexpected messages on stderr"
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
step "checking totals.threads"
"$HPCL_PYTHON" - report.json "$((threads + 1))" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["totals"]["threads"]
if got != int(sys.argv[2]):
    sys.exit(f"FAIL: totals.threads is {got}, expected {sys.argv[2]}")
print(f"threads counted: {got}")
PY
