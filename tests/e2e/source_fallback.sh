#!/usr/bin/env bash
# When a hardware source fails at run time the runtime falls back to soft, as auto does, and the
# report says so (issue 20):
#  - per process: rank 0 samples with pebs-load (the hardware stand-in: software page faults in
#    the PEBS record layout, hw_standin.sh), rank 1 asks for pebs-load on this machine without a
#    PMU (LD_PRELOAD by hand: the launcher would refuse) and samples with soft. The merged
#    report must name the source of each rank and rank 1's fallback with its reason (text and
#    JSON), and the database's source is "mixed";
#  - per thread: with HPCRUN_LITE_TEST_HW_FALLBACK=1 the stand-in refuses every thread after
#    the first its events; those threads must be sampled with soft (their samples in the report)
#    and counted in META hw_fallback_threads, and the report must say how many.
# Usage: source_fallback.sh FIRST_TOUCH FIRST_TOUCH_THREADS PROFILE_METRICS
source "$(dirname "$0")/lib.sh"
prog=$1
threads_prog=$2
metrics=$3
for p in "$prog" "$threads_prog" "$metrics"; do [ -x "$p" ] || skip "not built: $p"; done
rt="$(dirname "$HPCL_RUN")/../lib/libhpcrun-lite.so"
[ -f "$rt" ] || skip "runtime not built: $rt"
source_works pebs-load && skip "pebs-load works here (hpcrun-lite --check): it would not fall back"

step "rank 0 with the stand-in, rank 1 falling back"
HPCRUN_LITE_TEST_HW_STANDIN=1 HPCRUN_LITE_EVENTS=pebs-load HPCRUN_LITE_OUT="$PWD/meas" \
  OMPI_COMM_WORLD_RANK=0 LD_PRELOAD="$rt" "$prog" >r0.out 2>r0.err || fail "rank 0: $(cat r0.err)"
HPCRUN_LITE_EVENTS=pebs-load HPCRUN_LITE_OUT="$PWD/meas" \
  OMPI_COMM_WORLD_RANK=1 LD_PRELOAD="$rt" "$prog" >r1.out 2>r1.err || fail "rank 1: $(cat r1.err)"
grep -q "pebs-load is not available" r1.err || fail "rank 1 did not say it fell back: $(cat r1.err)"
expect_profiles meas 2
merge_and_report meas db report.json
COLUMNS=100 "$HPCL_PROF" report db >report.txt || fail "text report"
sed -n 1,8p report.txt >&2
grep -q "^source: mixed" report.txt || fail "the header's source is not mixed"
grep -q "^sources: pebs-load on rank 0, soft on rank 1" report.txt || fail "no sources line"
grep -q "^fallback: rank 1 asked for pebs-load: pebs-load is not available" report.txt ||
  fail "no fallback line for rank 1"
"$HPCL_PYTHON" - report.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if r["source"] != "mixed" or r.get("source_ranks") != {"pebs-load": "0", "soft": "1"}:
    sys.exit(f"FAIL: source {r['source']}, source_ranks {r.get('source_ranks')}")
f = r.get("source_fallbacks", [])
if len(f) != 1 or f[0]["process"] != "rank 1" or f[0]["requested"] != "pebs-load" or not f[0]["reason"]:
    sys.exit(f"FAIL: source_fallbacks {f}")
print("per-rank sources: ok")
PY

step "threads refused their events fall back to soft"
OMP_NUM_THREADS=4 HPCRUN_LITE_TEST_HW_STANDIN=1 HPCRUN_LITE_TEST_HW_FALLBACK=1 HPCRUN_LITE_EVENTS=pebs-load \
  HPCRUN_LITE_OUT="$PWD/tmeas" LD_PRELOAD="$rt" "$threads_prog" 5 >t.out 2>t.err || fail "threads: $(cat t.err)"
grep -q "such threads are sampled with soft" t.err || fail "no warning: $(cat t.err)"
f=$(profiles tmeas)
"$metrics" "$f" source hw_fallback_threads hw_fallback hw_records samples_total threads >tmetrics.txt
cat tmetrics.txt | grep meta >&2
"$HPCL_PYTHON" - tmetrics.txt <<'PY'
import sys
meta = {}
for line in open(sys.argv[1]):
    w = line.split(None, 2)
    if w[0] == "meta":
        meta[w[1]] = w[2].strip()
fell, threads = int(meta["hw_fallback_threads"]), int(meta["threads"])
if meta["source"] != "pebs-load" or fell != threads - 1 or fell < 3:
    sys.exit(f"FAIL: {meta}")
# The refused threads took soft samples beside the main thread's page-fault records.
if int(meta["samples_total"]) <= int(meta["hw_records"]):
    sys.exit(f"FAIL: no soft samples: {meta}")
print(f"{fell} threads fell back, {int(meta['samples_total']) - int(meta['hw_records'])} soft samples")
PY
merge_and_report tmeas tdb treport.json
COLUMNS=100 "$HPCL_PROF" report tdb >treport.txt
grep -q "^fallback: $(( $(sed -n 's/^meta hw_fallback_threads //p' tmetrics.txt) )) threads sampled with soft" treport.txt ||
  fail "the report does not count the threads: $(sed -n 1,8p treport.txt)"
echo "source fallback: ok"
