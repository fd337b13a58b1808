#!/usr/bin/env bash
# The sampling timer pauses inside dlopen (hpcrun-lite/runtime/interpose/dlopen_hooks.cpp), and the
# runtime leaves to the real dlopen the calls it cannot make on its caller's behalf
# (dlopen_route.h). tests/programs/dlopen_pause.c opens by path a library whose constructor reads
# ctor_table for SECONDS of CPU time, opens by bare name a library only its caller's RUNPATH finds,
# then reads main_table for as long. Checks: the program runs as natively (the RUNPATH lookup
# worked); main_table has its samples (~1,000 a second) and ctor_table almost none (a sample
# pending when the timer paused); the database counts the constructor's time as not sampled
# (META dlopen_unsampled_ns, within 40% of SECONDS: the clocks around the call also hold the
# loader's work); the report's note says so.
# Usage: dlopen_pause.sh PROGRAM LIBRARY [SECONDS]
source "$(dirname "$0")/lib.sh"
prog=$1
lib=$2
seconds=${3:-0.4}
[ -x "$prog" ] || skip "dlopen_pause was not built: $prog"
[ -f "$lib" ] || skip "its constructor library was not built: $lib"
export HPCL_CTOR_SECONDS=$seconds
# measure_like_native samples with soft: the timer is what pauses (a hardware source samples on).
measure_like_native "$prog" "$lib" "$seconds"
grep -qx "runpath ok" tool.out || fail "the bare-name dlopen through a RUNPATH did not run"
step "checking what was sampled inside and outside dlopen"
"$HPCL_PYTHON" - report.json "$seconds" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
seconds = float(sys.argv[2])
samples = {v["name"]: v["metrics"].get("samples", 0) for v in r["variables"]}
main = sum(n for k, n in samples.items() if k.startswith("main_table"))
ctor = sum(n for k, n in samples.items() if k.startswith("ctor_table"))
print(f"main_table {main} samples, ctor_table {ctor}")
if main < 0.5 * seconds * 1000:
    sys.exit(f"FAIL: main_table has {main} samples, expected about {seconds * 1000:.0f}")
if ctor > max(3, 0.03 * main):
    sys.exit(f"FAIL: ctor_table, read only inside dlopen, has {ctor} samples (main_table {main})")
ns = r["totals"].get("dlopen_unsampled_ns", 0)
print(f"dlopen_unsampled_ns {ns}")
if not 0.6 * seconds <= ns / 1e9 <= 1.4 * seconds:
    sys.exit(f"FAIL: {ns / 1e9:.3f} s counted inside dlopen, expected about {seconds} s")
if not any("inside dlopen" in n for n in r["notes"]):
    sys.exit(f"FAIL: no note says what dlopen's time was; notes: {r['notes']}")
PY
