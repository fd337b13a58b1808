#!/usr/bin/env bash
# A truncated profile beside a good one: merge warns, naming the damaged file, and still merges
# the good one.
source "$(dirname "$0")/lib.sh"
: "${HPCL_SHARED:?}"
cp -r "$HPCL_SHARED/meas" meas
good=$(profiles meas | head -n1)
[ -n "$good" ] || fail "the short_run fixture left no profile"
damaged=meas/alloc_apis.damaged.norank.1.hpcl
head -c $(( $(stat -c %s "$good") / 2 )) "$good" >"$damaged"

step "$HPCL_PROF merge meas -o db.hpcdb"
status=0
"$HPCL_PROF" merge meas -o db.hpcdb 2>merge.err || status=$?
cat merge.err >&2
[ "$status" -eq 0 ] || fail "merge exited $status with one good profile left"
grep -q "alloc_apis.damaged.norank.1.hpcl" merge.err || fail "merge did not name the damaged file on stderr"
"$HPCL_PROF" report db.hpcdb --format json >report.json || fail "report failed"
"$HPCL_PYTHON" -c '
import json
t = json.load(open("report.json"))["totals"]
assert t["processes"] == 1, t
assert t["samples"] > 0, t
' || fail "the merged database does not hold exactly the good profile"
