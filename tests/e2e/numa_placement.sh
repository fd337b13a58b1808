#!/usr/bin/env bash
# NUMA placement with the soft source: tests/programs/quarter_read.c streams over the first
# quarter of its 16 MiB heap array for a few seconds. Each sample with a data address logs its page and CPU; the pages are looked up in
# batches (move_pages in query mode) and counted numa_local or numa_remote at the sample's node.
# On a machine with one NUMA node every resolved sample is local: both arrays must have
# numa_local > 0 and numa_remote = 0, and the process totals (META) must agree; with
# HPCRUN_LITE_NUMA=0 no placement is looked up. On a multi-node machine the test is skipped
# (remote samples are then legitimate).
# Usage: numa_placement.sh QUARTER_READ_PROGRAM PROFILE_METRICS_TOOL
source "$(dirname "$0")/lib.sh"
prog=$1
metrics=$2
[ -x "$prog" ] || skip "test program not built: $prog"
[ -x "$metrics" ] || skip "profile_metrics not built: $metrics"
# The runtime's own view (hpcrun-lite --check: the nodes it reads, the move_pages it tries).
probe_load
nodes=$(probe_query 'j["numa"]["nodes"]')
[ "$nodes" -le 1 ] || skip "$nodes NUMA nodes (hpcrun-lite --check): this test expects one"
[ "$(probe_query 'j["numa"]["placement"]')" = True ] ||
  skip "no NUMA placement here (hpcrun-lite --check): $(probe_query 'j["numa"]["reason"]')"

run_to on "$HPCL_RUN" -o on -e soft -- "$prog"
[ "$(cat on.status)" = 0 ] || fail "exit status $(cat on.status): $(cat on.err)"
"$metrics" "$(profiles on)" numa numa_local numa_remote numa_unresolved >on.txt || fail "cannot read the profile"
cat on.txt >&2
HPCRUN_LITE_NUMA=0 run_to off "$HPCL_RUN" -o off -e soft -- "$prog"
[ "$(cat off.status)" = 0 ] || fail "HPCRUN_LITE_NUMA=0: exit status $(cat off.status)"
"$metrics" "$(profiles off)" numa >off.txt || fail "cannot read the profile"

"$HPCL_PYTHON" - on.txt off.txt <<'PY'
import sys
def read(path):
    heap, meta = {}, {}
    for line in open(path):
        w = line.split()
        if w[0] == "heap":
            heap[int(w[1])] = {k: int(v) for k, v in (x.split("=") for x in w[2:])}
        else:
            meta[w[1]] = w[2]
    return heap, meta
def fail(msg):
    sys.exit(f"FAIL: {msg}")
heap, meta = read(sys.argv[1])
if meta["numa"] != "1":
    fail("NUMA placement is off by default")
mib = 1 << 20
for size, name in ((16 * mib, "the 16 MiB array"),):
    m = heap.get(size, {})
    if m.get("numa_local", 0) <= 0 or m.get("numa_remote", 0) != 0:
        fail(f"{name}: {m}: expected numa_local > 0 and numa_remote = 0 on one node")
    if m["numa_local"] > m["samples"]:
        fail(f"{name}: more placed samples than samples: {m}")
    print(f"{name}: {m['samples']} samples, {m['numa_local']} local")
if int(meta["numa_local"]) <= 0 or int(meta["numa_remote"]) != 0:
    fail(f"totals {meta}")
total_local = sum(m.get("numa_local", 0) for m in heap.values())
if total_local > int(meta["numa_local"]):
    fail(f"heap sites hold {total_local} local samples, the total is {meta['numa_local']}")
heap_off, meta_off = read(sys.argv[2])
if meta_off["numa"] != "0" or any("numa_local" in m for m in heap_off.values()):
    fail(f"HPCRUN_LITE_NUMA=0 still placed samples: {meta_off} {heap_off}")
PY
echo "numa placement: ok"
