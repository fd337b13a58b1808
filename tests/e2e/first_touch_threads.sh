#!/usr/bin/env bash
# First touch by thread (FIRST_TOUCH section, first_touch_node metrics): tests/programs/
# first_touch_threads.c fills one 32 MiB heap array from the main thread alone and another from 4
# OpenMP threads, then reads both from all 4. Under `-e soft -e page-faults` the report must say
# that `serial` was first touched by 1 thread (~100% of its faults: a serial initialization) and
# `parallel` by several threads, none above 60%; each array's page_faults is its size in 4 KiB
# pages (a few pages of slack, as in first_touch.sh); the faults by node sum to the page faults
# when the machine describes its NUMA nodes; the text report says "serial initialization". The
# same with `-e page-faults` alone.
# Usage: first_touch_threads.sh FIRST_TOUCH_THREADS_PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "test program not built: $prog"
export OMP_NUM_THREADS=4

# Whether the runtime finds NUMA nodes to count first touches by (hpcrun-lite --check).
probe_load
numa_sysfs=0
[ "$(probe_query 'j["numa"]["nodes"]')" -gt 0 ] && numa_sysfs=1

check_run() {  # NAME EVENT-ARGS...
  local name=$1
  shift
  run_to "$name" "$HPCL_RUN" -o "$name" "$@" -- "$prog"
  [ "$(cat "$name.status")" = 0 ] || fail "$*: exit status $(cat "$name.status"): $(cat "$name.err")"
  grep -q "^array parallel" "$name.out" || fail "$*: the program did not run to its end"
  merge_and_report "$name" "$name.db" "$name.json"
  "$HPCL_PROF" report "$name.db" >"$name.txt" || fail "$*: text report failed"
  "$HPCL_PYTHON" - "$name.json" "$numa_sysfs" <<'PY' || fail "$*: first touch by thread"
import json, sys
report = json.load(open(sys.argv[1]))
numa_sysfs = sys.argv[2] == "1"
def fail(msg):
    sys.exit(f"FAIL: {msg}")
found = {}
for v in report["variables"]:
    if v["kind"] == "heap" and v["bytes"] == 32 << 20:
        touches = v.get("first_touches", [])
        fn = touches[0]["path"][0]["function"] if touches and touches[0]["path"] else ""
        found["serial" if "fill_serial" in fn else "parallel" if "fill_parallel" in fn else fn] = v
if sorted(found) != ["parallel", "serial"]:
    fail(f"arrays found by their first-touch function: {sorted(found)}")
for name, v in found.items():
    t = v.get("first_touch")
    if t is None or "threads" not in t:
        fail(f"{name}: no first_touch with threads: {t}")
    pages = v["bytes"] // 4096
    if not pages <= t["page_faults"] <= pages + 4:
        fail(f"{name}: {t['page_faults']} page faults, expected {pages} (its size in 4 KiB pages)")
    if t["page_faults"] != v["metrics"]["page_faults"]:
        fail(f"{name}: first_touch.page_faults {t['page_faults']} != metrics {v['metrics']['page_faults']}")
    nodes = sum(t["nodes"].values())
    if numa_sysfs and nodes != t["page_faults"]:
        fail(f"{name}: faults by node {t['nodes']} sum to {nodes}, not {t['page_faults']}")
    print(f"{name}: {t['page_faults']} faults for {pages} pages, {t['threads']} of {t['run_threads']} "
          f"threads, top {t['top_thread_share']:.3f}, nodes {t['nodes']}, serial {t['serial']}")
s, p = found["serial"]["first_touch"], found["parallel"]["first_touch"]
if s["run_threads"] < 4:
    fail(f"the run has {s['run_threads']} threads, expected at least 4")
if s["threads"] != 1 or s["top_thread_share"] < 0.99 or not s["serial"]:
    fail(f"serial: {s}; expected 1 thread with ~100% of the faults, flagged serial")
if s["top_thread"] != 0:
    fail(f"serial: first touched by thread {s['top_thread']}, expected the main thread (0)")
if p["threads"] < 3 or p["top_thread_share"] > 0.6 or p["serial"]:
    fail(f"parallel: {p}; expected several threads, none above 60%")
PY
  grep -q "first touched by 1 of [0-9]* threads (serial initialization)" "$name.txt" ||
    fail "$*: text report: no serial-initialization line: $(grep -A4 '^First touch' "$name.txt")"
  grep -A4 "^First touch" "$name.txt"
}

check_run both -e soft -e page-faults
# Without sampling: the CPUs are still mapped to their nodes.
check_run alone -e page-faults
echo "first touch by thread: ok"
