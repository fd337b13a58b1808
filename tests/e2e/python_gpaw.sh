#!/usr/bin/env bash
# A real Python application: GPAW (Debian's gpaw; density-functional theory in Python on NumPy, C
# extensions and MPI) computing a water molecule on 2 ranks (tests/programs/gpaw_h2o.py) under
# `mpirun hpcrun-lite python3`. It runs with the same output and exit status as natively, and its
# arrays are named as a GPAW developer knows them: every heap variable with 20 samples or more is
# named by a statement of GPAW's own files (an application installed as a package is the
# program's code; its gd.zeros returns its array, so the statement that called it names it), none
# by the user's one line `energy = atoms.get_potential_energy()`, and the hottest one's hottest
# access is a function of GPAW. The table is printed at 80 and 120 columns for the reader.
# Usage: python_gpaw.sh SCRIPT
source "$(dirname "$0")/lib.sh"
script=$1
setup_mpi4py
"$PY" -c "import gpaw" 2>/dev/null || skip "GPAW is not importable by $PY (Debian package gpaw)"
gpaw_dir=$("$PY" -c "import gpaw, os; print(os.path.dirname(gpaw.__file__))")

run_to native "${MPIRUN[@]}" -np 2 "$PY" "$script"
[ "$(cat native.status)" = 0 ] || skip "GPAW does not run natively here: $(tail -5 native.err)"
run_to tool "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o meas -- "$PY" "$script"
cat tool.err >&2
same_as_native native tool
expect_rank_profiles meas "python3*" 2
merge_and_report meas db report.json
for cols in 80 120; do
  COLUMNS=$cols "$HPCL_PROF" report db --top 12 >"report.$cols.txt"
  sed -n '/^ *#  variable/,/^(/p' "report.$cols.txt" >&2
done

"$HPCL_PYTHON" - report.json "$gpaw_dir" "$(basename "$script")" <<'PY' || fail "GPAW's arrays are not named by GPAW's statements"
import json, os, re, sys

report = json.load(open(sys.argv[1]))
gpaw_files = {f for _, _, files in os.walk(sys.argv[2]) for f in files if f.endswith(".py")}
user = sys.argv[3]
errors = []
heap = [v for v in report["variables"] if v["kind"] == "heap"]
hot = [v for v in heap if v["metrics"]["samples"] >= 20]
for v in hot:
    # The naming statement's "(file.py:LINE)", before any " ← caller" that tells it apart.
    m = re.search(r"\(([^()]+\.py):\d+\)", v["name"])
    where = m.group(1) if m else None
    print(f"{v['metrics']['samples']:>5} samples  {v['name']}")
    if where == user or where not in gpaw_files:
        errors.append(f"{v['name']!r} is not named by a statement of GPAW's files")
# The two hottest arrays (the wave functions' work arrays) have about 50 and 40 samples at 500/s
# of CPU time; one of them under 20 is more than four standard deviations away.
if not hot:
    errors.append("no heap variable with 20 samples or more")
elif not re.search(r"\(([^()]+\.py):\d+\)", hot[0].get("hottest_access", "")) or user in hot[0]["hottest_access"]:
    errors.append(f"the hottest access of {hot[0]['name']!r} is {hot[0].get('hottest_access')!r}, not GPAW's code")
if errors:
    sys.exit("FAIL: " + "; ".join(errors))
PY
