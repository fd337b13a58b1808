#!/usr/bin/env bash
# `hpcrun-lite --check` and the refusal of sources this machine cannot give, on a machine without
# a hardware PMU (this project's VMs): --check exits 0, names PEBS and IBS as
# unavailable with a fix and soft as what auto uses; `-e pebs-load`, `-e ibs-op`,
# `-e PAPI_TOT_CYC` (also from HPCRUN_LITE_EVENTS) stop the launcher with exit status 3 before
# the program starts, and no measurement directory is created; so do `-e wp-sharing` and
# `-e wp-reuse` where --check says breakpoints do not count, with its reason; -v says what auto
# picked.
source "$(dirname "$0")/lib.sh"
has_hardware_pmu && skip "this machine has a hardware PMU (hpcrun-lite --check); this test models one without"

run_to check "$HPCL_RUN" --check
[ "$(cat check.status)" = 0 ] || fail "--check exited $(cat check.status): $(cat check.err)"
for line in "^kernel  *$(uname -r)\$" "^perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)" \
            "^capabilities  *CAP_PERFMON" "^perf mlock limit  *$(cat /proc/sys/kernel/perf_event_mlock_kb) KiB" \
            "^virtual machine" "^PMUs .*software" "^PAPI " \
            "^  soft  *works" "^  pebs-load  *unavailable" "^  pebs-store  *unavailable" \
            "^  ibs-op  *unavailable" "^  PAPI_<NAME>  *unavailable" "^auto -> soft: "; do
  grep -q -- "$line" check.out || fail "--check lacks '$line':
$(cat check.out)"
done
# Each unavailable hardware source comes with its fix.
[ "$(grep -A1 -E '^  (pebs-load|pebs-store|ibs-op|arm-spe) ' check.out | grep -c 'fix: ')" = 4 ] ||
  fail "--check gives no fix for each unavailable hardware source:
$(cat check.out)"
if [ "$(probe_query 'j["cpu"]["hypervisor"]')" = True ]; then
  grep -q "fix: a VM without vPMU: use -e soft" check.out || fail "--check does not name the VM fix"
fi
run_to list "$HPCL_RUN" --list-sources
cmp -s list.out check.out || fail "--list-sources differs from --check"

refused() {  # NAME SOURCE-NAME, after run_to NAME
  local st; st=$(cat "$1.status")
  [ "$st" = 3 ] || fail "$1: exit status $st, expected 3 (unavailable source): $(cat "$1.err")"
  grep -q "^hpcrun-lite: cannot use $2: " "$1.err" || fail "$1: no reason: $(cat "$1.err")"
  grep -q "^hpcrun-lite: fix: " "$1.err" || fail "$1: no fix: $(cat "$1.err")"
  grep -q "the program was not started" "$1.err" || fail "$1: does not say the program did not start"
  [ ! -e never-created ] || fail "$1: the program ran"
  [ ! -e out ] || fail "$1: the measurement directory was created"
}
run_to pebs "$HPCL_RUN" -e pebs-load -o out -- touch never-created
refused pebs pebs-load
run_to pebs_ldlat "$HPCL_RUN" -e pebs-load@20000:ldlat=30 -o out -- touch never-created
refused pebs_ldlat pebs-load
run_to store "$HPCL_RUN" -e soft -e pebs-store -o out -- touch never-created
refused store pebs-store
HPCRUN_LITE_EVENTS=ibs-op@65536 run_to ibs_env "$HPCL_RUN" -o out -- touch never-created
refused ibs_env ibs-op
run_to papi "$HPCL_RUN" -e PAPI_TOT_CYC -o out -- touch never-created
refused papi PAPI_TOT_CYC
grep -q "PAPI" papi.err || fail "papi: the reason does not name PAPI: $(cat papi.err)"

# The watch sources: refused before the program starts exactly when the probe says they are
# unavailable, with the probe's reason (the launcher and --check share one verdict).
for s in wp-sharing wp-reuse; do
  rm -rf out
  run_to "$s" "$HPCL_RUN" -e soft -e "$s" -o out -- true
  if source_works "$s"; then
    [ "$(cat "$s.status")" = 0 ] || fail "$s works per --check but the launcher said: $(cat "$s.err")"
  else
    refused "$s" "$s"
    grep -qF -- "$(probe_query 'source(arg)["reason"]' "$s")" "$s.err" ||
      fail "$s: the refusal does not give --check's reason: $(cat "$s.err")"
  fi
done
rm -rf out

# auto falls back silently; -v says what it picked.
run_to auto "$HPCL_RUN" -o out -- touch created
[ "$(cat auto.status)" = 0 ] && [ -e created ] || fail "auto: the program did not run: $(cat auto.err)"
[ ! -s auto.err ] || fail "auto: the fallback was not silent: $(cat auto.err)"
rm -rf out
run_to auto_v "$HPCL_RUN" -v -o out -- true
grep -q "^hpcrun-lite: auto -> soft: " auto_v.err || fail "auto -v: does not say what it picked: $(cat auto_v.err)"
echo "--check and refusal of unavailable sources: ok"
