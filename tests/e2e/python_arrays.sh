#!/usr/bin/env bash
# A Python MPI program (mpi4py + NumPy, 2 ranks) with three arrays of measured time shares
# (tests/programs/py_arrays.py) under `mpirun hpcrun-lite`: it runs with the same output and exit
# status as natively; the three arrays are the top rows that are not groups, each named by the
# statement that made it (its file and line); each one's share is within the tolerance of its
# sample count (tolerance.py) of the time the program measured; the allocation path of each names the Python function that made it, and
# an access path (and the table's hottest access) the one that reads it; no variable of the
# interpreter's own data takes more than 5%, nor all of them (their group row) more than an array.
# Usage: python_arrays.sh SCRIPT
source "$(dirname "$0")/lib.sh"
script=$1
setup_mpi4py

budget=0.5  # seconds of CPU time per weight: 3.5 s of reads per rank, against ~0.3 s of imports
# At SOFT_RATE (1,000/s): about 6,000 samples on the arrays, a tolerance of 4.5 points on the
# heaviest (velocity, 57%); the default 500/s gave ~3,000 and 5.6 points.
run_to native "${MPIRUN[@]}" -np 2 "$PY" "$script" "$budget"
[ "$(cat native.status)" = 0 ] || skip "the program does not run natively here: $(tail -5 native.err)"
HPCL_TEST_TIMING_FILE=$PWD/timing run_to tool "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -e "soft@$SOFT_RATE" -o meas -- \
  "$PY" "$script" "$budget"
cat tool.err >&2
same_as_native native tool
expect_rank_profiles meas "python3*" 2
merge_and_report meas db report.json
"$HPCL_PROF" report db --format json --top 0 --no-group >report.rows.json
for cols in 80 120; do
  COLUMNS=$cols "$HPCL_PROF" report db --top 6 >"report.$cols.txt"
  sed -n '/^#  variable/,/^(/p' "report.$cols.txt" >&2
done

"$HPCL_PYTHON" - report.json timing "$script" report.rows.json "$CHECK" <<'PY' || fail "the Python arrays are not named or not weighed as measured"
import glob, json, os, re, sys

sys.path.insert(0, os.path.dirname(sys.argv[5]))
from tolerance import share_check

report = json.load(open(sys.argv[1]))
script = os.path.basename(sys.argv[3])
# The statements of py_arrays.py's `make`, by the name each assigns.
lines = {}
for no, text in enumerate(open(sys.argv[3], encoding="utf-8"), 1):
    m = re.match(r"\s+(velocity|pressure|density) = np\.", text)
    if m:
        lines[m.group(1)] = no
assert len(lines) == 3, lines
seconds = {}
for path in glob.glob(sys.argv[2] + ".*"):
    for row in open(path, encoding="utf-8"):
        name, _, _, _, t = row.split()[1:6]
        seconds[name] = seconds.get(name, 0.0) + float(t)
total_time = sum(seconds.values())

rows = [v for v in report["variables"] if v["kind"] != "group"]
top = rows[:3]
errors = []
by_name = {}
for v in top:
    for name, no in lines.items():
        if v["name"].startswith(f"{name} = np.") and v["name"].endswith(f"({script}:{no})"):
            by_name[name] = v
if len(by_name) != 3:
    sys.exit("FAIL: the top three rows are not the three arrays by their statements:\n  " +
             "\n  ".join(v["name"] for v in rows[:6]))
known = sum(v["metrics"]["samples"] for v in by_name.values())
for name, v in by_name.items():
    if err := share_check(name, v["metrics"]["samples"], known, seconds[name] / total_time, width=9):
        errors.append(err)
    path = v.get("allocation_path", [])
    if not any(f.get("module") == "[python]" and f.get("function") == "make" and
               f.get("file", "").endswith(script) for f in path):
        errors.append(f"{name}: no Python frame of `make` in its allocation path: {path}")
    # Where it is read: the Python function that reads it, on an access path of its own.
    if not any(f.get("module") == "[python]" and f.get("function") == "norm" and
               f.get("file", "").endswith(script) for a in v.get("accesses", []) for f in a.get("path", [])):
        errors.append(f"{name}: no access path through the Python function `norm` that reads it")
    if not v.get("hottest_access", "").startswith(f"norm ({script}:"):
        errors.append(f"{name}: hottest access {v.get('hottest_access')!r}, not `norm` of {script}")
    if v.get("allocations") != 2:
        errors.append(f"{name}: {v.get('allocations')} allocations, expected one per rank")
# The interpreter's own data: no variable but the arrays above 5% (the report lists them one by
# one with --no-group), and all of them together, the [Python runtime data] row, below every array.
arrays = {v["name"] for v in by_name.values()}
for v in json.load(open(sys.argv[4]))["variables"]:
    if v["kind"] == "group" or v["name"] in arrays:
        continue
    if v["share"] > 0.05:
        errors.append(f"{v['name']}: {v['share']:.1%} of the samples (over 5%)")
group = next((v for v in report["variables"] if v["name"] == "[Python runtime data]"), None)
if group and group["share"] >= min(v["share"] for v in by_name.values()):
    errors.append(f"[Python runtime data] ({group['share']:.1%}) above an array")
if errors:
    sys.exit("FAIL: " + "; ".join(errors))
PY
# At both widths, for each array: the table names what its statement assigns and keeps its line,
# and its file too whenever "<name> (py_arrays.py:<line>)" fits the variable column for every
# array (the statements of one file keep or leave out the file together); the width of that
# column depends on the other columns, so it is read from the header. The access patterns name
# the Python line that ran NumPy's loop.
for cols in 80 120; do
  table=$(sed -n "/^#  variable/,/^(/p" "report.$cols.txt")
  column=$(head -1 <<<"$table" | awk '{ print index($0, " kind") - index($0, "variable") - 1 }')
  need_file=yes
  for name in velocity pressure density; do
    line=$(grep -n "^ *$name = " "$script" | head -1 | cut -d: -f1)
    [ $(( ${#name} + ${#line} + 16 )) -le "$column" ] || need_file=no
  done
  echo "variable column at $cols columns: $column wide; file expected: $need_file"
  for n in 1 2 3; do
    grep -q "^$n  [a-z]* .*(\(py_arrays.py\)\?:[0-9]*)" <<<"$table" ||
      fail "row $n of the table at $cols columns lost its name or line"
    [ "$need_file" = no ] || grep -q "^$n  .*(py_arrays.py:[0-9]*)" <<<"$table" ||
      fail "row $n of the table at $cols columns lost its file"
    sed -n '/^Access patterns/,/^$/p' "report.$cols.txt" | grep -q "^ *$n .*← norm (py_arrays.py:[0-9]*)" ||
      fail "the access patterns of row $n at $cols columns do not name norm (py_arrays.py:LINE)"
  done
done
# So does the code view: its hottest location is NumPy's loop as norm ran it.
"$HPCL_PROF" report db --view code --format json >code.json
"$HPCL_PYTHON" - code.json <<'PY' || fail "the code view does not place NumPy's loop under norm"
import json, sys
top = json.load(open(sys.argv[1]))["locations"][0]
print("hottest code location:", top["label"])
assert top.get("caller", "").startswith("norm (py_arrays.py:"), top
PY
