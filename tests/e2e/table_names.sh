#!/usr/bin/env bash
# Every name readable where it is shown (issue 24): a program whose two allocation sites differ
# only by their caller's line (tests/programs/colsum.c: make_matrix called from two adjacent lines of
# main) is measured, and its text report, as a terminal of 80 and of 120 columns gets it, must
# tell apart every row that its JSON tells apart, in the variable and the hottest-access
# columns and in the code view; a column left out is said.
# The viewer, in tmux at 80 columns, must show the two sites apart too.
# Usage: table_names.sh PROGRAM [HPCVIEWER-TUI]   (colsum)
source "$(dirname "$0")/lib.sh"
prog=$1
table=("$HPCL_PYTHON" "$E2E_DIR/check_table.py")

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
  "${table[@]}" cells "data$width.txt" data.json --column variable --field name --width "$width" ||
    fail "the $width-column data view shows two variables alike"
  # The header, not the "(hidden at this width: ...)" line that may name the column too.
  if grep -qE '^ *#  variable .*hottest access' "data$width.txt"; then
    "${table[@]}" cells "data$width.txt" data.json --column "hottest access" --field hottest_access ||
      fail "the $width-column data view shows two hottest accesses alike"
  fi
  COLUMNS=$width "$HPCL_PROF" report db.hpcdb --view code --top 30 >"code$width.txt"
  "$HPCL_PROF" report db.hpcdb --view code --top 30 --format json >code.json
  "${table[@]}" cells "code$width.txt" code.json --column location --field label --width "$width" ||
    fail "the $width-column code view shows two locations alike"
done
grep -q "^(hidden at this width: allocator / module" data80.txt ||
  { cat data80.txt >&2; fail "at 80 columns a column was left out without a word"; }
grep -q "make_matrix" data120.txt || fail "at 120 columns the sites do not read make_matrix"

# The viewer at 80 columns: its rows are cut as the table's (the two sites read alike before).
viewer=${2:-}
if [ -x "$viewer" ] && command -v tmux >/dev/null 2>&1; then
  sock=$(tmux_socket)
  trap 'tmux -S "$sock" kill-server >/dev/null 2>&1 || true; rm -f "$sock"' EXIT
  tmux -S "$sock" new-session -d -s names -x 80 -y 24 \
    "env LANG=C.UTF-8 LC_ALL=C.UTF-8 '$viewer' '$PWD/db.hpcdb'; sleep 600"
  for ((i = 0; i < 200; i++)); do
    tmux -S "$sock" capture-pane -p -t names >viewer80.txt 2>/dev/null || true
    grep -q "row 1/" viewer80.txt && break
    sleep 0.05
  done
  cat viewer80.txt >&2
  # Only the table rows: the source pane below shows make_matrix's definition too.
  mapfile -t rows < <(grep -E "make_.* heap " viewer80.txt | sed 's/^[^a-z]*//; s/  .*//')
  [ "${#rows[@]}" -eq 2 ] || fail "the viewer at 80 columns does not show the two make_matrix sites"
  [ "${rows[0]}" != "${rows[1]}" ] || fail "the viewer at 80 columns shows the two sites alike: ${rows[0]}"
else
  echo "NOTE: no tmux or no viewer: the viewer was not checked" >&2
fi
echo "table names: distinct at 80 and 120 columns" >&2
