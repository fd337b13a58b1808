#!/usr/bin/env bash
# `hpcrun-lite --check --root DIR --json` on copies of real machines' /sys and /proc files
# (tests/data/machines; where each value comes from: its README), as a user would send them from a
# cluster. The expected events are perf mem's on those machines (perf's mem-events.c tables with
# the kernel's sysfs encodings; docs in tests/unit/probe/event_plan_test.cpp), not our code's:
#   Sapphire Rapids: pebs-load a group of two led by mem-loads-aux (0x8203), the load event
#     0x1cd with ldlat in config1; pebs-store sysfs's mem-stores 0x2cd;
#   Alder Lake: pebs-load on cpu_core (aux leader + 0x1cd) and on cpu_atom (0x5d0);
#   Skylake-X and Ice Lake-X: the load event alone;
#   Zen 3, Zen 4: ibs-op on the ibs_op PMU's type, cnt_ctl, PERF_SAMPLE_RAW;
#   a VM without a PMU: every hardware source unavailable, with a reason.
# Then the same trees in other spellings (NUL padding as tar stores sysfs files, spaces, a
# missing newline) must give the same events, and the options' misuse is refused.
# Usage: check_machines.sh MACHINES_DIR
source "$(dirname "$0")/lib.sh"
machines=$1
[ -d "$machines/sapphire-rapids" ] || skip "no machine trees at $machines"

for m in sapphire-rapids alderlake skylake-x icelake-x zen3 zen4 vm-no-pmu; do
  run_to "$m" "$HPCL_RUN" --check --root "$machines/$m" --json
  [ "$(cat "$m.status")" = 0 ] || fail "$m: exit status $(cat "$m.status"): $(cat "$m.err")"
done

"$HPCL_PYTHON" - <<'PY'
import json, sys
def fail(msg):
    sys.exit(f"FAIL: {msg}")
def load(m):
    try:
        return json.load(open(f"{m}.out"))
    except ValueError as e:
        fail(f"{m}: not JSON: {e}")
def src(j, name):
    for s in j["sources"]:
        if s["name"] == name:
            return s
    fail(f"no source {name}")
def hexv(e, k):
    v = e[k]
    if not isinstance(v, str) or not v.startswith("0x"):
        fail(f"{k} is not a hex string: {v!r}")
    return int(v, 16)
PEBS = (1 << 3) | (1 << 15)  # PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC
RAW = 1 << 10

def loads(j, m):
    s = src(j, "pebs-load")
    if not s["available"]:
        fail(f"{m}: pebs-load unavailable: {s.get('reason')}")
    return s["events"]

j = load("sapphire-rapids")
ev = loads(j, "SPR")
if len(ev) != 2:
    fail(f"SPR: pebs-load opens {len(ev)} events, expected the group of two: {ev}")
lead, mem = ev
if hexv(lead, "config") != 0x8203 or lead["leader"] != 0 or mem["leader"] != 0:
    fail(f"SPR: the group is not led by mem-loads-aux 0x8203: {ev}")
if hexv(mem, "config") != 0x1cd or hexv(mem, "config1") != 30 or hexv(mem, "sample_type") & PEBS != PEBS:
    fail(f"SPR: the load event is not 0x1cd with ldlat 30 in config1 and ADDR|DATA_SRC: {mem}")
st = src(j, "pebs-store")["events"]
if len(st) != 1 or hexv(st[0], "config") != 0x2cd:
    fail(f"SPR: pebs-store is not sysfs's mem-stores 0x2cd: {st}")
if j["auto"] != "pebs-load":
    fail(f"SPR: auto picks {j['auto']}")

j = load("alderlake")
ev = loads(j, "ADL")
core = [e for e in ev if e["pmu"] == "cpu_core"]
atom = [e for e in ev if e["pmu"] == "cpu_atom"]
if len(core) != 2 or hexv(core[0], "config") != 0x8203 or hexv(core[1], "config") != 0x1cd:
    fail(f"ADL: cpu_core does not open the aux group: {core}")
if ev.index(core[1]) == core[1]["leader"] or ev[core[1]["leader"]] is not core[0]:
    fail(f"ADL: the cpu_core load event is not led by the aux event: {ev}")
if len(atom) != 1 or hexv(atom[0], "config") != 0x5d0 or atom[0]["type"] != 10 or ev[atom[0]["leader"]] is not atom[0]:
    fail(f"ADL: cpu_atom does not open its own load event 0x5d0 on type 10: {atom}")
if core[0]["type"] != 4 or core[1]["type"] != 4:
    fail(f"ADL: cpu_core is not type 4: {core}")

for m in ("skylake-x", "icelake-x"):
    ev = loads(load(m), m)
    if len(ev) != 1 or hexv(ev[0], "config") != 0x1cd or ev[0]["leader"] != 0 or hexv(ev[0], "config1") != 30:
        fail(f"{m}: the load event is not alone: {ev}")
    st = src(load(m), "pebs-store")["events"]
    if len(st) != 1 or hexv(st[0], "config") != 0x82d0:
        fail(f"{m}: pebs-store is not 0x82d0: {st}")

for m in ("zen3", "zen4"):
    j = load(m)
    s = src(j, "ibs-op")
    if not s["available"] or len(s["events"]) != 1:
        fail(f"{m}: ibs-op: {s}")
    e = s["events"][0]
    if e["pmu"] != "ibs_op" or e["type"] != 12 or not (hexv(e, "sample_type") & RAW) or not (hexv(e, "config") & (1 << 19)):
        fail(f"{m}: ibs-op is not the ibs_op PMU (type 12) with RAW and cnt_ctl: {e}")
    for p in ("pebs-load", "pebs-store"):
        if src(j, p)["available"] or not src(j, p).get("reason"):
            fail(f"{m}: {p} is available or has no reason")
    if j["auto"] != "ibs-op":
        fail(f"{m}: auto picks {j['auto']}")

j = load("vm-no-pmu")
for p in ("pebs-load", "pebs-store", "ibs-op", "arm-spe"):
    s = src(j, p)
    if s["available"] or not s.get("reason") or s["events"]:
        fail(f"VM: {p}: {s}")
if not src(j, "soft")["available"] or j["auto"] != "soft":
    fail(f"VM: soft is not what auto uses: {j['auto']}")
# Kernels before 6.11 send perf's SIGTRAP through an interrupt too: the timer keeps the real-time
# signal there (timer_signal.h). Every tree here is older.
for m in ("sapphire-rapids", "alderlake", "zen4", "vm-no-pmu", "skylake-x"):
    s = src(load(m), "soft")
    if s.get("timer_signal") != "realtime" or "6.11" not in s.get("timer_signal_reason", ""):
        fail(f"{m}: the timer would signal with {s.get('timer_signal')} ({s.get('timer_signal_reason')})")
print("machine trees: the events of perf mem on each")
PY

step "the same trees in other spellings"
for m in sapphire-rapids alderlake zen4; do
  cp -a "$machines/$m" "re-$m"
  # tar pads a sysfs file to its stated 4096 bytes with NULs; people edit with spaces.
  find "re-$m/sys/devices" -path '*/events/*' -type f | while read -r f; do
    { sed 's/,/ , /g' "$f"; printf '\n'; head -c 300 /dev/zero; } >"$f.new" && mv "$f.new" "$f"
  done
  find "re-$m/sys/devices" -path '*/format/*' -type f | while read -r f; do
    printf '%s' "$(cat "$f")" >"$f"
  done
  run_to "re-$m" "$HPCL_RUN" --check --root "re-$m" --json
  "$HPCL_PYTHON" -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ev = lambda j: [(s["name"], s["events"]) for s in j["sources"]]
sys.exit(0 if ev(a) == ev(b) else f"FAIL: {sys.argv[2]} reads differently:\n{ev(a)}\n{ev(b)}")' "$m.out" "re-$m.out"
done

step "text report of another machine at 80 columns"
COLUMNS=80 run_to text "$HPCL_RUN" --check --root "$machines/sapphire-rapids"
grep -q "^  pebs-load  *works" text.out || fail "text: $(cat text.out)"
grep -q "0x8203" text.out || fail "text: the aux leader is not shown: $(cat text.out)"
grep -q "^PAPI" text.out && fail "text: PAPI of this machine shown for another machine's files"
awk 'length > 80 { exit 1 }' text.out || fail "text: lines wider than 80 columns:
$(awk 'length > 80' text.out)"

step "misuse"
run_to noroot "$HPCL_RUN" --check --root "$PWD/does-not-exist"
[ "$(cat noroot.status)" = 2 ] || fail "--root of a missing directory: exit $(cat noroot.status)"
run_to nocheck "$HPCL_RUN" --json -- true
[ "$(cat nocheck.status)" = 2 ] && grep -q "goes with --check" nocheck.err || fail "--json without --check: $(cat nocheck.err)"
echo "check on machine trees: ok"
