#!/usr/bin/env bash
# Every name readable where it is shown (issue 24): a program whose two allocation sites differ
# only by their caller's line (tests/programs/colsum.c: make_matrix called from lines 41 and 42 of
# main) is measured, and its text report, as a terminal of 80 and of 120 columns gets it, must
# tell apart every row that its JSON tells apart, in the variable and the hottest-access
# columns and in the code view; a column left out is said.
# Usage: table_names.sh PROGRAM   (colsum)
source "$(dirname "$0")/lib.sh"
prog=$1
table="$HPCL_PYTHON $E2E_DIR/check_table.py"

run_to measured "$HPCL_RUN" -o meas -- "$prog" 1536
[ "$(cat measured.status)" = 0 ] || { cat measured.err >&2; fail "colsum failed under the tool"; }
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
"$HPCL_PYTHON" - report.json <<'PY' || fail "the report lacks the two make_matrix sites"
import json, sys
names = [v["name"] for v in json.load(open(sys.argv[1]))["variables"] if v["kind"] == "heap"]
sites = [n for n in names if n.startswith("make_matrix")]
assert len(sites) == 2 and sites[0] != sites[1], names
print("sites:", sites)
PY
for width in 80 120; do
  COLUMNS=$width "$HPCL_PROF" report db.hpcdb --top 0 >"data$width.txt"
  "$HPCL_PROF" report db.hpcdb --top 0 --format json >data.json
  $table cells "data$width.txt" data.json --column variable --field name --width "$width" ||
    fail "the $width-column data view shows two variables alike"
  if grep -q "hottest access" "data$width.txt"; then
    $table cells "data$width.txt" data.json --column "hottest access" --field hottest_access ||
      fail "the $width-column data view shows two hottest accesses alike"
  fi
  COLUMNS=$width "$HPCL_PROF" report db.hpcdb --view code --top 30 >"code$width.txt"
  "$HPCL_PROF" report db.hpcdb --view code --top 30 --format json >code.json
  $table cells "code$width.txt" code.json --column location --field label --width "$width" ||
    fail "the $width-column code view shows two locations alike"
done
grep -q "^(hidden at this width: allocator / module" data80.txt ||
  { cat data80.txt >&2; fail "at 80 columns a column was left out without a word"; }
grep -q "make_matrix" data120.txt || fail "at 120 columns the sites do not read make_matrix"
echo "table names: distinct at 80 and 120 columns" >&2
