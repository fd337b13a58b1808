#!/usr/bin/env bash
# The hardware sources' whole path (per-thread event through perf_open, ring, signal per
# wakeup, drain in the handler, parse, hw_sample_from_pebs, classify, tree, memory metrics,
# writer) in a real run on a machine without a PMU, through the TEST stand-in:
# HPCRUN_LITE_TEST_HW_STANDIN=1 makes the runtime open the software page-fault event with the
# PEBS sample_type in place of the PEBS event, so the kernel writes real PEBS-layout records with
# real data addresses (latency and data source zero). tests/programs/first_touch.c touches its
# 8, 32 and 64 MiB arrays page by page with huge pages off: each array must get one sample per
# 4 KiB page (2048, 8192, 16384, a few pages of slack), ratio 1 : 4 : 8, with the samples'
# NUMA placement all local on this one-node machine, every record accounted for in META, and
# the source named pebs-load. The launcher itself still refuses pebs-load here (no PMU).
# Usage: hw_standin.sh FIRST_TOUCH_PROGRAM PROFILE_METRICS_TOOL
source "$(dirname "$0")/lib.sh"
prog=$1
metrics=$2
[ -x "$prog" ] || skip "test program not built: $prog"
[ -x "$metrics" ] || skip "profile_metrics not built: $metrics"
rt="$(dirname "$HPCL_RUN")/../lib/libhpcrun-lite.so"
[ -f "$rt" ] || skip "runtime not built: $rt"

# Without a PMU the launcher refuses the source before the program starts, stand-in or not:
# the variable is the runtime's only.
if ! source_works pebs-load; then
  status=0
  HPCRUN_LITE_TEST_HW_STANDIN=1 "$HPCL_RUN" -o refused -e pebs-load -- true 2>refused.err || status=$?
  [ "$status" -ne 0 ] && [ "$status" -lt 128 ] || fail "pebs-load without a PMU: exit status $status"
  grep -q "pebs-load" refused.err || fail "the refusal does not name the source: $(cat refused.err)"
fi

step "stand-in run of $prog"
status=0
HPCRUN_LITE_TEST_HW_STANDIN=1 HPCRUN_LITE_EVENTS=pebs-load HPCRUN_LITE_OUT="$PWD/meas" \
  LD_PRELOAD="$rt" "$prog" >run.out 2>run.err || status=$?
[ "$status" = 0 ] || fail "exit status $status under the stand-in: $(cat run.err)"
grep -q "^array written" run.out || fail "the program did not run to its end"
expect_profiles meas 1
f=$(profiles meas)
"$metrics" "$f" source hw_test_standin hw_records hw_recorded hw_no_address hw_lost \
  hw_throttled hw_malformed hw_not_valid hw_kernel hw_in_runtime hw_dropped numa >metrics.txt ||
  fail "profile_metrics could not read $f"
cat metrics.txt >&2
merge_and_report meas db report.json

probe_load
"$HPCL_PYTHON" - metrics.txt report.json "$(probe_query 'j["numa"]["nodes"]')" <<'PY'
import json, sys
one_node = int(sys.argv[3]) <= 1  # hpcrun-lite --check: remote pages are legitimate elsewhere
def fail(msg):
    sys.exit(f"FAIL: {msg}")
heap, meta = {}, {}
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "heap":
        heap[int(w[1])] = {k: int(v) for k, v in (x.split("=") for x in w[2:])}
    elif w[0] == "meta":
        meta[w[1]] = w[2]
if meta["source"] != "pebs-load" or meta["hw_test_standin"] != "1":
    fail(f"source {meta['source']}, stand-in {meta['hw_test_standin']}")
n = {k: int(v) for k, v in meta.items() if k.startswith("hw_") and k != "hw_test_standin"}
# Every record is accounted for: in a tree with an address, without one, or in a count.
if n["hw_records"] != n["hw_recorded"] + n["hw_no_address"] + n["hw_malformed"] + \
        n["hw_not_valid"] + n["hw_kernel"] + n["hw_in_runtime"] + n["hw_dropped"]:
    fail(f"records not accounted for: {n}")
if n["hw_kernel"] or n["hw_malformed"] or n["hw_not_valid"] or n["hw_dropped"]:
    fail(f"unexpected counts: {n}")
if n["hw_lost"] or n["hw_throttled"]:
    print(f"note: lost {n['hw_lost']}, throttled {n['hw_throttled']}")
mib = 1 << 20
names = {8 * mib: "small", 32 * mib: "large", 64 * mib: "written"}
for size, name in names.items():
    m = heap.get(size)
    if m is None:
        fail(f"no samples in {name}: {heap}")
    pages = size // 4096
    # Every page, also the last ones of `written`, whose records wait in the ring (the stand-in
    # signals once per 16) until free() reads them.
    if not pages <= m["samples"] <= pages + 4:
        fail(f"{name}: {m['samples']} samples, expected {pages} (one per page)")
    # Every record names a data source (here none: the stand-in's data_src is 0).
    levels = sum(v for k, v in m.items() if k in ("na", "l1", "lfb", "l2", "l3", "local_dram",
                 "remote_dram", "remote_cache", "pmem", "cxl", "io", "uncached"))
    if levels != m["samples"]:
        fail(f"{name}: data-source counts {levels} != samples {m['samples']}: {m}")
    if meta["numa"] == "1" and one_node:
        if m.get("numa_remote", 0) != 0 or m.get("numa_local", 0) < 0.9 * pages:
            fail(f"{name}: NUMA placement {m} on a one-node machine")
    print(f"{name}: {m['samples']} samples for {pages} pages")
report = json.load(open(sys.argv[2]))
if report["source"] != "pebs-load":
    fail(f"report source {report['source']}")
found = {names[v["bytes"]]: v for v in report["variables"] if v["kind"] == "heap" and v["bytes"] in names}
if len(found) != 3:
    fail(f"the report has {sorted(found)}")
ratio = found["written"]["metrics"]["samples"] / found["small"]["metrics"]["samples"]
if not 7.9 <= ratio <= 8.1:
    fail(f"written/small samples {ratio:.3f}, expected 8")
PY

# A block freed right after its pages were touched: the stand-in signals once per 16 records, so
# up to 15 of them wait in the ring when free() comes; the runtime reads them before the block
# leaves the address map, or they land in [unknown data]. The first page may fault inside malloc
# (its chunk header) before the block is tracked: 255 to 258. Three runs: a run whose waiting
# records are fewer than two cannot tell.
for r in 1 2 3; do
  step "stand-in run $r of $prog touch 1"
  HPCRUN_LITE_TEST_HW_STANDIN=1 HPCRUN_LITE_EVENTS=pebs-load HPCRUN_LITE_OUT="$PWD/fmeas$r" \
    LD_PRELOAD="$rt" "$prog" touch 1 >frun.out 2>frun.err ||
    fail "touch then free: exit status $?: $(cat frun.err)"
  "$metrics" "$(profiles fmeas$r)" >fmetrics.txt || fail "profile_metrics could not read fmeas$r"
  n=$(sed -nE 's/^heap 1048576 samples=([0-9]+).*/\1/p' fmetrics.txt)
  [ -n "$n" ] && [ "$n" -ge 255 ] && [ "$n" -le 258 ] ||
    fail "the freed 1 MiB block has ${n:-no} samples, expected 256: $(cat fmetrics.txt)"
done

# The watchpoint analyses arm from the hardware source's records too (the newest of each drain):
# with wp-reuse beside it, the arrays get reuse watches, each one measured or expired. Arming
# needs breakpoint events that open, not that count (where they do not, every watch expires).
probe_load
[ "$(probe_query 'source("wp-reuse")["registers"]')" -gt 0 ] ||
  skip "every stand-in check passed but the last: wp-reuse cannot arm here (hpcrun-lite --check): $(probe_query 'source("wp-reuse")["reason"]')"
step "stand-in run with wp-reuse"
HPCRUN_LITE_TEST_HW_STANDIN=1 HPCRUN_LITE_EVENTS=pebs-load,wp-reuse HPCRUN_LITE_OUT="$PWD/wmeas" \
  LD_PRELOAD="$rt" "$prog" >wrun.out 2>wrun.err || fail "exit status $? with wp-reuse: $(cat wrun.err)"
# The same output but for the arrays' addresses (ASLR) and the program's own timing.
same() { sed -E 's/0x[0-9a-f]+//; s/ in [0-9.]+ s$//' "$1"; }
[ "$(same run.out)" = "$(same wrun.out)" ] || fail "the program's output differs with wp-reuse"
merge_and_report wmeas wdb wreport.json
"$HPCL_PYTHON" - wreport.json <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
arrays = [v for v in report["variables"] if v["kind"] == "heap" and v["bytes"] >= 8 << 20]
watched = [v for v in arrays if v.get("reuse", {}).get("armed", 0) > 0]
if not watched:
    sys.exit(f"FAIL: no reuse watch armed from the hardware records: {[v.get('reuse') for v in arrays]}")
for v in watched:
    r = v["reuse"]
    if r["samples"] + r["no_reuse"] > r["armed"] or sum(r["histogram"]) != r["samples"]:
        sys.exit(f"FAIL: {v['name']}: reuse counts do not add up: {r}")
print(f"reuse watches armed from hardware records on {len(watched)} arrays")
PY
echo "hw stand-in: ok"
