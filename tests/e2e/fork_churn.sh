#!/usr/bin/env bash
# Issue 11: fork while other threads start, allocate and unwind (tests/programs/fork_churn.c).
# The runtime holds new unwinds back around each fork and waits for those under way, so that no
# child inherits libunwind's mutex locked (hpcrun-lite/runtime/unwind/unwind.h). Every run must
# end, exit as natively, write one profile per process, and both sides of the fork must unwind
# again afterwards: the children's blocks under in_child, the parent's later threads' under
# short_lived. (Without the wait, 2,000 forks did not hang here: the test guards the fence
# itself, whose failure to reopen would lose these paths, more than it reproduces the hang.)
# Usage: fork_churn.sh PROGRAM [FORKS]
source "$(dirname "$0")/lib.sh"
prog=$1
forks=${2:-40}
[ -x "$prog" ] || skip "fork_churn was not built: $prog"

run_to native "$prog" "$forks"
run_to tool timeout -s KILL 60 "$HPCL_RUN" -e soft@10000 -o meas -- "$prog" "$forks"
[ "$(cat tool.status)" = 137 ] && fail "the run hung: killed after 60 s"
same_as_native native tool
expect_profiles meas "$((forks + 1))"
merge_and_report meas db.hpcdb report.json --all  # sites are checked by name, with samples or not
step "checking allocation sites of children and parent"
"$HPCL_PYTHON" - report.json <<'PY'
import json, sys
names = [v["name"] for v in json.load(open(sys.argv[1]))["variables"]]
for want in ("in_child (fork_churn.c:", "short_lived (fork_churn.c:"):
    if not any(n.startswith(want) for n in names):
        sys.exit(f"FAIL: no heap variable named {want}...: call paths lost; variables: {names}")
print("allocation sites found")
PY
