#!/usr/bin/env bash
# A C++ program whose arrays are made through layers of container code (tests/programs/
# cxx_fields.cpp: std::vector members made in a constructor, an Eigen vector returned by a
# factory, an OpenFOAM-style List/Field made through a New factory, a class template's vector
# member). Checks that
#   - each `// array: LABEL NAME` line of the source names exactly one heap variable, labelled
#     NAME at that line, and that no variable is named by the container code it went through
#     (aligned_malloc, Eigen's Matrix/PlainObjectBase/DenseStorage, List/Field constructors,
#     doAlloc, the standard library);
#   - the arrays' sample shares are the program's own timing of its reads, within a tolerance
#     derived from the sample count (tolerance.py: four binomial standard deviations plus the
#     stated allowance for what the timer and the program's clock disagree on, 8% of p (1 - p));
#     a tolerance too wide to catch an array losing half of its share fails (too few samples);
#   - the table at 80 and 120 columns shows five distinct rows for the five arrays.
# Usage: cxx_fields.sh PROGRAM SOURCE [ROUNDS]
source "$(dirname "$0")/lib.sh"

prog=$1
source_file=$2
rounds=${3:-1500}
[ -x "$prog" ] || skip "$(basename "$prog") was not built (Eigen's headers missing): $prog"

measure_timed_like_native "$prog" "$rounds"
for cols in 80 120; do
  COLUMNS=$cols "$HPCL_PROF" report db.hpcdb --top 8 >"report.$cols.txt"
  sed -n '/^#  variable/,/^(/p' "report.$cols.txt" >&2
done

"$HPCL_PYTHON" - report.json "$source_file" timing "$CHECK" report.80.txt report.120.txt <<'PY' || fail "the arrays are not named or weighed as the program made and read them"
import json, os, re, sys

sys.path.insert(0, os.path.dirname(sys.argv[4]))
from check_report import CheckFailed, measured_time_shares
from tolerance import share_check

report = json.load(open(sys.argv[1]))
source = sys.argv[2]
base = source.rsplit("/", 1)[-1]
marks = []  # (line, label, expected name)
for n, text in enumerate(open(source, encoding="utf-8"), 1):
    m = re.search(r"^(?!\s*//).*// array: (\S+) (.+)$", text)
    if m:
        marks.append((n, m.group(1), m.group(2).strip()))
assert len(marks) == 5, marks

heap = [v for v in report["variables"] if v["kind"] == "heap"]
errors = []
found = {}
for line, label, name in marks:
    def at_line(v):
        path, i = v.get("allocation_path", []), v.get("label_frame", -1)
        f = path[i] if 0 <= i < len(path) else {}
        return f.get("file", "").endswith("/" + base) and f.get("line") == line
    named = [v for v in heap if at_line(v)]
    print(f"{base}:{line} {label}: {[v['name'] for v in named]}")
    if len(named) != 1:
        errors.append(f"{label}: {len(named)} heap variables named at {base}:{line}")
        continue
    v = found[label] = named[0]
    # NAME, then the function's parameters if the name keeps them, then the location.
    if not re.fullmatch(re.escape(name) + r"(\(.*\))? \(" + re.escape(base) + f":{line}\\)", v["name"]):
        errors.append(f"{label}: named {v['name']!r}, expected {name!r} at {base}:{line}")

plumbing = re.compile(r"aligned_malloc|conditional_aligned|doAlloc|PlainObjectBase|DenseStorage|"
                      r"Matrix<[^ ]*>::Matrix|::List\b|::Field\(|Field<double>::(Field|New)|^std::|_M_")
for v in report["variables"]:
    if plumbing.search(v["name"]):
        errors.append(f"{v['name']!r} is named by container code")

# Shares of the five arrays against the program's timing (workload.c's lines, in the program's
# array order, with the weights it reads them by).
weights = {"mesh.x": 1, "mesh.y": 2, "velocity": 3, "pressure": 4, "residual": 2}
spec = {"arrays": [{"label": label, "weight": weights[label]} for label in weights]}
try:
    truths = dict(zip(weights, measured_time_shares(sys.argv[3], spec)))
except CheckFailed as e:
    truths = None
    errors.append(str(e))
if truths and len(found) == 5:
    known = sum(v["metrics"]["samples"] for v in found.values())
    for label, v in found.items():
        if err := share_check(label, v["metrics"]["samples"], known, truths[label], width=9):
            errors.append(err)

# The tables: the five arrays are the five top rows, and read as five different things.
for path in sys.argv[5:]:
    rows = []
    inside = False
    for text in open(path, encoding="utf-8"):
        if text.startswith("#  variable"):
            inside = True
        elif inside and re.match(r"\d+  ", text):
            rows.append(re.split(r"\s{2,}", text.strip())[1])
        elif inside:
            break
    arrays = [r for r in rows if not r.startswith("[")][:5]
    if len(set(arrays)) != 5:
        errors.append(f"{path}: the arrays' rows are not five distinct names: {arrays}")
    for r in arrays:
        if plumbing.search(r):
            errors.append(f"{path}: row {r!r} is named by container code")
if errors:
    sys.exit("FAIL: " + "; ".join(errors))
PY
echo "PASS"
