#!/usr/bin/env bash
# `report --view code` lists the shared kernel, the code all of the test arrays are read from.
source "$(dirname "$0")/lib.sh"
: "${HPCL_SHARED:?}"
"$HPCL_PROF" report "$HPCL_SHARED/db.hpcdb" --view code --format text >code.txt || fail "report failed"
cat code.txt >&2
grep -q "sum_array" code.txt || fail "the code view does not list sum_array"
"$HPCL_PROF" report "$HPCL_SHARED/db.hpcdb" --view code --format json >code.json || fail "json code view failed"
"$HPCL_PYTHON" -c 'import json,sys; json.load(open("code.json"))' || fail "the JSON code view is not JSON"
grep -q "sum_array" code.json || fail "the JSON code view does not list sum_array"
