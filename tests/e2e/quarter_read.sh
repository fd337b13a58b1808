#!/usr/bin/env bash
# Offset histograms end to end: quarter_read touches only the first quarter of a heap array and of
# a static array. The JSON report must put every sample of each in bins 0-7 of 32 with the
# highest offset below a quarter of the size, and the text report must say "hot: M-N%" with
# N <= 25 for both (the smallest part holding 80% of samples spread over the first quarter may
# start a few percent in: 3-22% was seen). Usage: quarter_read.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "quarter_read was not built: $prog"
measure_like_native "$prog"
step "$HPCL_PROF report db.hpcdb --width 200 > report.txt"
"$HPCL_PROF" report db.hpcdb --width 200 >report.txt || fail "text report failed"
cat report.txt >&2
"$HPCL_PYTHON" - <<'PY' || fail "offsets do not show the first quarter"
import json, re
report = json.load(open("report.json"))
text = open("report.txt").read().splitlines()
rows = {}
for line in text:  # table rows: "  N  name  kind ..."
    m = re.match(r"^\s*(\d+)\s{2}(\S.*?)\s{2,}(heap\*?|static)\s", line)
    if m:
        rows[m.group(2)] = m.group(1)
hot = {}
for line in text:
    m = re.match(r"^\s*(\d+)\s{2}hot: (\d+)-(\d+)% of (the block|the symbol)", line)
    if m:
        hot[m.group(1)] = (int(m.group(2)), int(m.group(3)), m.group(4))

def check(var, extent, size):
    name = var["name"]
    off = var.get("offsets")
    assert off, f"{name}: no offsets in the JSON report"
    bins = off["bins"]
    assert len(bins) == 32, f"{name}: {len(bins)} bins"
    inside, outside = sum(bins[:8]), sum(bins[8:])
    print(f"{name}: {inside} samples in bins 0-7, {outside} beyond; offsets {off['min']}-{off['max']} of {size}")
    assert inside >= 20, f"{name}: only {inside} samples, too few to judge"
    assert outside == 0, f"{name}: {outside} samples beyond the first quarter: {bins}"
    assert off["max"] < size // 4, f"{name}: highest offset {off['max']} beyond {size // 4}"
    assert 0 <= off["hot"]["from"] < off["hot"]["to"] <= 0.25, off["hot"]
    row = next((r for n, r in rows.items() if n.startswith(name[:20])), None)
    assert row is not None, f"{name}: no row in the text table"
    assert row in hot, f"{name}: row {row} has no 'hot:' line"
    lo, hi, what = hot[row]
    print(f"{name}: text says hot: {lo}-{hi}% of {what}")
    assert 0 <= lo < hi <= 25 and what == extent, hot[row]

# The compiler turns `return malloc(n)` into a tail jump, so the site is named after main: the
# one 16 MiB malloc of the program is the array.
heap = [v for v in report["variables"] if v["kind"] == "heap" and v.get("allocator") == "malloc"
        and v["bytes"] == 16 << 20]
static = [v for v in report["variables"] if v["kind"] == "static" and v["name"] == "quarter_static"]
assert len(heap) == 1 and len(static) == 1, [v["name"] for v in report["variables"]]
check(heap[0], "the block", 16 << 20)
check(static[0], "the symbol", 4 << 20)
PY
