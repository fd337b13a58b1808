#!/usr/bin/env bash
# `report --format csv` is one header row plus rows with the same number of fields, and names
# the hottest variable of the JSON report.
source "$(dirname "$0")/lib.sh"
: "${HPCL_SHARED:?}"
"$HPCL_PROF" report "$HPCL_SHARED/db.hpcdb" --format csv >report.csv || fail "report failed"
hottest=$(check hottest "$HPCL_SHARED/report.json")
"$HPCL_PYTHON" - "$hottest" <<'PY' || fail "bad CSV"
import csv, sys
rows = list(csv.reader(open("report.csv", newline="")))
assert len(rows) >= 2, "fewer than two rows"
widths = {len(r) for r in rows}
assert len(widths) == 1, f"rows of different lengths: {sorted(widths)}"
assert any(sys.argv[1] in field for r in rows[1:] for field in r), f"{sys.argv[1]!r} not in any row"
print(f"{len(rows) - 1} rows of {widths.pop()} fields; header {rows[0]}")
PY
