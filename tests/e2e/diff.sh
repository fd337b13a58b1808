#!/usr/bin/env bash
# `hpcprof-lite diff` on two versions of one program (tests/programs/matrix_walk.c): matrix A read
# column by column before the fix and row by row after it (--fixed), matrix B row by row in both.
# Each run is measured and merged, then the two databases are diffed as JSON and checked: both
# matrices matched, A at most half of its samples (and significant), B the same count within the
# tolerance of its two counts (tolerance.py: 4 sd of the log ratio of two Poisson counts, plus a
# stated 5% for what B's reads cost after A's two walks differ), A's access path sum_by_columns
# gone and sum_by_rows come, neither matrix new or gone; the text diff says the same in words.
# Sampled at 4,000/s: about 1,700 samples of B per run, +-20% (+-25% was 3.2 sd at 1,000/s).
# Usage: diff.sh PROGRAM
source "$(dirname "$0")/lib.sh"
SOFT_RATE=4000
prog=$1
[ -x "$prog" ] || skip "program not built: $prog"

for version in before after; do
  args=()
  [ "$version" = after ] && args=(--fixed)
  run_to "$version" "$HPCL_RUN" -e "soft@$SOFT_RATE" -o "$version-meas" -- "$prog" "${args[@]}"
  cat "$version.err" >&2
  [ "$(cat "$version.status")" = 0 ] || fail "matrix_walk $version exited with status $(cat "$version.status")"
  expect_profiles "$version-meas" 1
  step "$HPCL_PROF merge $version-meas -o $version.hpcdb"
  "$HPCL_PROF" merge "$version-meas" -o "$version.hpcdb" >/dev/null || fail "merge of $version failed"
done
step "$HPCL_PROF diff before.hpcdb after.hpcdb --format json > diff.json"
"$HPCL_PROF" diff before.hpcdb after.hpcdb --format json >diff.json || fail "diff --format json failed"
step "$HPCL_PROF diff before.hpcdb after.hpcdb > diff.text"
"$HPCL_PROF" diff before.hpcdb after.hpcdb --width 200 >diff.text || fail "diff (text) failed"
cat diff.text >&2

"$HPCL_PYTHON" - diff.json diff.text "$E2E_DIR" <<'PY' || fail "the diff is not what matrix_walk's two versions should give"
import json, math, sys
sys.path.insert(0, sys.argv[3])
from tolerance import Z
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert d["format"] == "hpcprof-lite-diff" and d["version"] == 1, d["format"]
assert d["after_scale"] == 1.0, "both runs use the default rate"
# The two matrices are the heap variables allocated in main, A on the earlier line.
mats = [v for v in d["variables"] if v["kind"] == "heap" and v["name"].startswith("main (matrix_walk.c:")]
mats.sort(key=lambda v: int(v["name"].split(":")[1].rstrip(")")))
assert len(mats) == 2, "expected A and B, got %s" % [v["name"] for v in d["variables"]]
a, b = mats
for v in mats:
    assert v["match"] == "exact", (v["name"], v["match"])
    assert v["before"]["present"] and v["after"]["present"], v["name"]
    assert v["allocation_path"][0]["function"] == "malloc", v["allocation_path"][0]
ra, rb = a["ratio"], b["ratio"]
print("A: %s -> %s samples (ratio %.3f, significant %s)" % (a["before"]["samples"], a["after"]["samples"], ra, a["significant"]))
print("B: %s -> %s samples (ratio %.3f, significant %s)" % (b["before"]["samples"], b["after"]["samples"], rb, b["significant"]))
assert a["before"]["samples"] >= 200, "too few samples in A before the fix to judge"
assert ra <= 0.5, "A should fall to at most half, ratio %.3f" % ra
assert a["delta"] < 0 and a["significant"], "A's fall is more than noise"
nb, na = b["before"]["samples"], b["after"]["samples"]
log_tol = Z * math.sqrt(1 / max(nb, 1) + 1 / max(na, 1)) + math.log(1.05)
lo, hi = math.exp(-log_tol), math.exp(log_tol)
print("B: %d and %d samples: the ratio may be %.3f to %.3f (%g sd of the log ratio, +-5%%)" % (nb, na, lo, hi, Z))
assert lo <= rb <= hi, "B should stay the same, ratio %.3f outside %.3f-%.3f" % (rb, lo, hi)
leaves = {x["leaf"].split(" ")[0]: x for x in a["accesses"]}
assert leaves["sum_by_columns"]["before"] > 0 and leaves["sum_by_columns"]["after"] == 0, leaves
assert leaves["sum_by_rows"]["after"] > 0, leaves
assert leaves["sum_by_columns"]["before"] > leaves.get("sum_by_rows", {"before": 0})["before"]
# Sorted by absolute change: A, the largest change, comes first.
assert d["variables"][0]["name"] == a["name"], d["variables"][0]["name"]
deltas = [abs(v["delta"]) for v in d["variables"]]
assert deltas == sorted(deltas, reverse=True), deltas
names = {a["name"], b["name"]}
assert not names & set(d["new"]) and not names & set(d["gone"]), (d["new"], d["gone"])
for v in d["variables"]:
    assert (v["match"] == "new") == (v["name"] in d["new"] and not v["before"]["present"]), v["name"]
# The program's own variables are all matched: new and gone hold only unknown-data classes.
for v in d["variables"]:
    if v["match"] in ("new", "gone"):
        assert v["kind"] in ("unknown", "group"), v
# The text diff: A's row first, its old path gone and its new one come.
lines = text.splitlines()
row = next(i for i, l in enumerate(lines) if l.rstrip().endswith(a["name"]))
assert any("sum_by_columns" in l and "[gone]" in l for l in lines[row + 1:row + 4]), lines[row:row + 4]
assert any("sum_by_rows" in l and "[came]" in l for l in lines[row + 1:row + 4]), lines[row:row + 4]
assert any(l.startswith("samples ") for l in lines) and "new in AFTER:" in text and "gone from AFTER:" in text
PY

# CSV: the same rows, A first.
"$HPCL_PROF" diff before.hpcdb after.hpcdb --format csv >diff.csv || fail "diff --format csv failed"
head -1 diff.csv | grep -q '^match,kind,variable,before_samples,after_samples,delta,ratio' || fail "CSV header"
sed -n 2p diff.csv | grep -q '^exact,heap,main (matrix_walk.c:' || fail "CSV: A is not the first row"
# Errors name their input.
if "$HPCL_PROF" diff before.hpcdb missing.hpcdb 2>err.txt; then fail "diff of a missing database succeeded"; fi
grep -q missing.hpcdb err.txt || fail "the error does not name the missing database: $(cat err.txt)"
echo "PASS"
