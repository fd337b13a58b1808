#!/usr/bin/env bash
# Per-rank balance on a real MPI+OpenMP run: 2 ranks x 2 threads of mpi_imbalance, whose `skewed`
# array rank 1 reads twice as often as rank 0 (see its header). The JSON report must give it
# ranks.count 2, max_rank 1 and an imbalance of 4/3 within what its sample count allows, the
# merged shares must stay within 3 points, --sort imbalance must list it first, and the text
# and CSV reports must name its worst rank. check_balance.py says how the tolerances are set.
# 4000 samples per second: about 3000 samples on `skewed` in a 5 s run, so sigma is about 0.015.
# Usage: rank_balance.sh PROGRAM [ROUNDS]
source "$(dirname "$0")/lib.sh"
setup_mpi
prog=$1
rounds=${2:-800}
[ -x "$prog" ] || skip "mpi_imbalance was not built (no MPI?): $prog"

HPCL_TEST_TIMING_FILE=$PWD/timing run_to tool "${MPIRUN[@]}" -np 2 \
  "$HPCL_RUN" -e soft@4000 -o meas -- "$prog" "$rounds"
cat tool.err >&2
[ "$(cat tool.status)" = 0 ] || fail "the program failed under the tool (status $(cat tool.status))"
expect_profiles meas 2
merge_and_report meas db.hpcdb report.json
step "$HPCL_PROF report db.hpcdb --format json --top 0 --sort imbalance > sorted.json"
"$HPCL_PROF" report db.hpcdb --format json --top 0 --sort imbalance >sorted.json || fail "report --sort imbalance failed"
step "check_balance.py report.json sorted.json --timing timing"
"$HPCL_PYTHON" "$E2E_DIR/check_balance.py" report.json sorted.json --timing timing

# The text table's first row under --sort imbalance is the skewed array on rank 1, at 80 columns
# too; the CSV row carries the same numbers.
for width in 120 80; do
  "$HPCL_PROF" report db.hpcdb --sort imbalance --width $width >sorted.$width.text || fail "text report failed"
  row=$(grep -m1 -E '^ *1  ' sorted.$width.text) || fail "no first row in sorted.$width.text"
  echo "$width columns: $row" >&2
  case "$row" in
    *alloc_skewed*r1*) ;;
    *) fail "the first row at $width columns is not alloc_skewed on rank 1: $row" ;;
  esac
  "$HPCL_PYTHON" -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > int(sys.argv[2]) for l in open(sys.argv[1], encoding="utf-8")))' \
    sorted.$width.text "$width" || fail "sorted.$width.text has lines wider than $width columns"
done
"$HPCL_PROF" report db.hpcdb --format csv --sort imbalance >sorted.csv || fail "CSV report failed"
# The imbalance is the JSON's (check_balance.py held that one to its sample count's tolerance).
"$HPCL_PYTHON" - sorted.csv sorted.json <<'PY' || fail "the CSV balance columns are wrong"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
first = rows[0]
ranks = json.load(open(sys.argv[2], encoding="utf-8"))["variables"][0]["ranks"]
print("csv first row:", {k: first[k] for k in ("variable", "ranks", "ranks_max_rank", "ranks_imbalance", "threads")}, file=sys.stderr)
assert first["variable"].startswith("alloc_skewed"), first["variable"]
assert first["ranks"] == "2" and first["ranks_max_rank"] == "1", first
assert abs(float(first["ranks_imbalance"]) - ranks["imbalance"]) < 1e-6, (first["ranks_imbalance"], ranks)
assert int(first["threads"]) >= 4, first["threads"]
PY
