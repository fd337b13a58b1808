# shellcheck shell=bash
# What this machine can do, as the tool itself sees it: the drivers ask `hpcrun-lite --check
# --json` (the probe the launcher and the runtime use) instead of opening perf events or reading
# /sys themselves, so a test skips for the very reason a user would be told. Sourced by lib.sh.

HPCL_PROBE_JSON=""

# probe_load: reads the probe's JSON once per driver (it opens perf events: about 10 ms).
probe_load() {
  if [ -z "$HPCL_PROBE_JSON" ]; then
    HPCL_PROBE_JSON=$("$HPCL_RUN" --check --json 2>/dev/null) ||
      fail "hpcrun-lite --check --json failed: the tests cannot learn what this machine offers"
  fi
}

# probe_query EXPR [ARG]: evaluates a Python expression over the probe's object `j` (with `arg`;
# `source(NAME)` is a source's entry) and prints the result. It runs inside $(...), where a load
# would not last: call probe_load first in the driver's own shell (the helpers below do), so the
# probe runs once per driver and a failing probe fails the test.
probe_query() {
  printf '%s' "$HPCL_PROBE_JSON" | "$HPCL_PYTHON" -c '
import json, sys
j = json.load(sys.stdin)
arg = sys.argv[2] if len(sys.argv) > 2 else None
def source(name):
    for s in j["sources"]:
        if s["name"] == name:
            return s
    sys.exit(f"--check --json names no source {name}")
print(eval(sys.argv[1]))' "$@"
}

# source_works NAME: exit status 0 when the probe says source NAME works here.
source_works() {
  probe_load
  local available
  available=$(probe_query 'source(arg)["available"]' "$1") ||
    fail "hpcrun-lite --check --json has no source $1"
  [ "$available" = True ]
}

# require_source NAME...: skips (77) with the probe's own reason unless every source works here.
require_source() {
  local name
  probe_load
  for name in "$@"; do
    source_works "$name" ||
      skip "$name is unavailable here (hpcrun-lite --check): $(probe_query 'source(arg).get("reason", "")' "$name")"
  done
}

# has_hardware_pmu: exit status 0 when the probe lists a PMU of precise memory samples (an Intel
# core PMU, AMD IBS, Arm SPE), which the tests of a machine without one (these VMs) model away.
has_hardware_pmu() {
  probe_load
  [ "$(probe_query 'any(p in ("cpu", "cpu_core", "ibs_op") or p.startswith("arm_spe") for p in j["pmus"])')" = True ]
}

# cpu_has FLAG: exit status 0 when this CPU has FLAG (as /proc/cpuinfo names it: avx2, avx512f).
# Not the tool's to probe: only the test programs built for such a CPU need it.
cpu_has() {
  grep -m1 '^flags' /proc/cpuinfo | grep -qw -- "$1"
}
