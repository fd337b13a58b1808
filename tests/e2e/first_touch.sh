#!/usr/bin/env bash
# First touch (the page-fault source): tests/programs/first_touch.c allocates heap arrays of 8,
# 32 and 64 MiB with huge pages off, fills them, reads the first two and never reads the third.
# With `-e soft -e page-faults`, and with `-e page-faults` alone, each array must have a
# page_faults count equal to its size in 4 KiB pages (a few pages of slack), including the one
# that is filled once and never read, with its first-touch path at `fill`; the page faults must
# not enter the samples; the faults of the runtime's own libraries (Zydis, libunwind) are not the
# program's; the text report shows them in a `faults` column.
# Usage: first_touch.sh FIRST_TOUCH_PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "test program not built: $prog"

check_faults() {  # JSON SOURCE
  "$HPCL_PYTHON" - "$1" "$2" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
source = sys.argv[2]
def fail(msg):
    sys.exit(f"FAIL ({sys.argv[1]}): {msg}")
totals = report["totals"]
if report["source"] != source:
    fail(f"source is {report['source']!r}, expected {source!r}")
if totals.get("page_faults", 0) <= 0:
    fail(f"no page faults in the totals: {totals}")
if totals.get("page_faults_lost", 0) or totals.get("page_faults_throttled", 0):
    print(f"note: lost {totals['page_faults_lost']}, throttled {totals['page_faults_throttled']}")
mib = 1 << 20
arrays = {8 * mib: "small", 32 * mib: "large", 64 * mib: "written"}
found = {}
for v in report["variables"]:
    if v["kind"] == "heap" and v["bytes"] in arrays:
        found[arrays[v["bytes"]]] = v
if len(found) != 3:
    fail(f"heap arrays found: {sorted(found)}; expected small, large, written")
for name, v in found.items():
    pages = v["bytes"] // 4096
    faults = v["metrics"].get("page_faults", 0)
    # One fault per page; malloc's chunk header sits in the first page, which is then the
    # block's too: at most a page or two more.
    if not pages <= faults <= pages + 4:
        fail(f"{name}: {faults} page faults, expected {pages} (its size in 4 KiB pages)")
    touches = v.get("first_touches", [])
    if not touches or touches[0]["path"][0]["function"] != "fill":
        fail(f"{name}: first touch not at fill: {touches[:1]}")
    print(f"{name}: {faults} page faults for {pages} pages, first touch at fill")
ratio = found["written"]["metrics"]["page_faults"] / found["small"]["metrics"]["page_faults"]
if not 7.9 <= ratio <= 8.1:
    fail(f"written/small page faults {ratio:.3f}, expected 8 (64 MiB / 8 MiB)")
# The runtime's own libraries (Zydis's decoder tables, libunwind) fault too; those are not the
# program's first touches.
for v in report["variables"]:
    if v["kind"] == "static" and any(lib in v.get("module", "") for lib in ("Zydis", "libunwind")) \
            and v["metrics"].get("page_faults", 0):
        fail(f"the runtime's library data counted as first touches: {v['name']} in {v['module']}")
# Page faults are a count of their own: the samples (and so the shares) do not include them.
var_samples = sum(v["metrics"]["samples"] for v in report["variables"])
if var_samples != totals["data_samples"]:
    fail(f"variables hold {var_samples} samples, the data samples are {totals['data_samples']}")
if totals["samples"] >= totals["page_faults"]:
    fail(f"{totals['samples']} samples against {totals['page_faults']} page faults: faults counted as samples?")
if source == "page-faults" and totals["samples"] != 0:
    fail(f"page-faults alone took {totals['samples']} samples")
PY
}

run_to both "$HPCL_RUN" -o both -e soft -e page-faults -- "$prog"
[ "$(cat both.status)" = 0 ] || fail "soft + page-faults: exit status $(cat both.status): $(cat both.err)"
grep -q "^array written" both.out || fail "the program did not run to its end"
merge_and_report both both.db both.json
check_faults both.json soft || fail "soft + page-faults"
"$HPCL_PROF" report both.db >both.txt || fail "text report failed"
grep -q "^page faults (first touch): " both.txt || fail "text report: no page-fault line: $(head -8 both.txt)"
grep -q " faults " both.txt || fail "text report: no faults column"

run_to alone "$HPCL_RUN" -o alone -e page-faults -- "$prog" 10
[ "$(cat alone.status)" = 0 ] || fail "page-faults alone: exit status $(cat alone.status): $(cat alone.err)"
merge_and_report alone alone.db alone.json
check_faults alone.json page-faults || fail "page-faults alone"

# A block freed right after its pages were touched: the ring is read at timer ticks, most likely
# after the free, so the runtime must read it before the block leaves the address map, or the
# faults land in [unknown data]. The first page may fault inside malloc (its chunk header) before
# the block is tracked: 255 to 258.
run_to freed "$HPCL_RUN" -o freed -e page-faults -- "$prog" touch 1
[ "$(cat freed.status)" = 0 ] || fail "touch then free: exit status $(cat freed.status): $(cat freed.err)"
merge_and_report freed freed.db freed.json
"$HPCL_PYTHON" - freed.json <<'PY' || fail "touch then free"
import json, sys
report = json.load(open(sys.argv[1]))
block = [v for v in report["variables"] if v["kind"] == "heap" and v["bytes"] == 1 << 20]
if len(block) != 1:
    sys.exit(f"FAIL: no 1 MiB heap variable: {[(v['name'], v['bytes']) for v in report['variables']]}")
faults = block[0]["metrics"].get("page_faults", 0)
if not 255 <= faults <= 258:
    unknown = {v["name"]: v["metrics"].get("page_faults", 0) for v in report["variables"] if v["kind"] == "unknown"}
    sys.exit(f"FAIL: the freed 1 MiB block has {faults} page faults, expected 256; unknown: {unknown}")
print(f"freed block: {faults} page faults for 256 pages")
PY
echo "first touch: ok"
