#!/usr/bin/env bash
# The PAPI source, for real on a machine without hardware counters: a software-defined event
# (PAPI's sde component). tests/programs/sde_work.c reports 3 units of work per iteration in
# heavy() and 1 in light(), 10,000,000 iterations each, through sde:::HPCL_TEST::WORK. Counted
# with `-e soft -e sde:::HPCL_TEST::WORK@9973` (a prime period, so overflows do not alias with the
# program's fixed chunks), the run must:
# - keep the program's output and exit status;
# - name the event in the report, with a total within two periods of the 40,000,000 counted;
# - put the events at heavy and light in the code view, 3 to 1 (within 15%);
# - keep the data view: the soft source still samples the program's array.
# Usage: papi_sde.sh SDE_WORK_PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "test program not built (needs libpapi-dev with libsde): $prog"

event="sde:::HPCL_TEST::WORK"
period=9973
run_to sde "$HPCL_RUN" -o sde -e soft -e "$event@$period" -- "$prog"
[ "$(cat sde.status)" = 0 ] || fail "exit status $(cat sde.status): $(cat sde.err)"
grep -q "^sde_work: " sde.out || fail "the program did not run to its end: $(cat sde.out)"
grep -q "PAPI" sde.err && fail "the runtime complained about PAPI: $(cat sde.err)"
merge_and_report sde sde.db sde.json
"$HPCL_PROF" report --view code --format json sde.db >code.json || fail "code view failed"
"$HPCL_PROF" report --view code sde.db >code.txt || fail "text code view failed"
"$HPCL_PYTHON" - sde.json code.json "$event" "$period" <<'PY'
import json, sys
data, code, event, period = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], int(sys.argv[4])
def fail(msg):
    sys.exit(f"FAIL: {msg}")
counters = code.get("counters", [])
if [c["event"] for c in counters] != [event]:
    fail(f"counters named {counters}, expected [{event}]")
total, expected = counters[0]["events"], 40_000_000
if counters[0]["period"] != period or total % period:
    fail(f"period {counters[0]['period']}, total {total}: expected multiples of {period}")
if not expected - 2 * period <= total <= expected:
    fail(f"{total} events counted, expected {expected} within a period or two")
by_function = {}
for loc in code["locations"]:
    n = loc.get("counters", {}).get(event, 0)
    by_function[loc["function"]] = by_function.get(loc["function"], 0) + n
heavy, light = by_function.get("heavy", 0), by_function.get("light", 0)
if heavy + light != total:
    fail(f"heavy {heavy} + light {light} != {total}: events elsewhere: {by_function}")
ratio = heavy / max(light, 1)
if not 3 / 1.15 <= ratio <= 3 * 1.15:
    fail(f"heavy/light = {ratio:.2f}, expected 3 (work reported 3:1)")
heap = [v for v in data["variables"] if v["kind"] == "heap" and v["bytes"] == 8 << 16]
if not heap or heap[0]["metrics"]["samples"] <= 0:
    fail(f"the data view lost the program's array: {[v['name'] for v in data['variables']][:5]}")
print(f"{event}: {total} events, heavy {heavy}, light {light} (ratio {ratio:.2f}); array samples {heap[0]['metrics']['samples']}")
PY
[ $? = 0 ] || fail "report check"
grep -q "^counter $event: " code.txt || fail "text report: no counter line: $(head -8 code.txt)"
grep -q "$event" <(sed -n '/^ *#/p' code.txt) || fail "text code view: no $event column: $(head -12 code.txt)"
echo "papi sde: ok"
