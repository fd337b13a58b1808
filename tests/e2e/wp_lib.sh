# shellcheck shell=bash
# Helpers of the watchpoint tests (wp_sharing.sh, wp_reuse.sh), sourced after lib.sh.

# Skips (77) unless `hpcrun-lite --check` says breakpoint events work here with 4 registers.
require_watchpoints() {
  local out
  out=$("$HPCL_RUN" --check 2>&1) || true
  echo "$out" | grep -E '^  wp-sharing' >&2 || true
  echo "$out" | grep -qE '^  wp-sharing +works' ||
    skip "perf refuses breakpoint events here (hpcrun-lite --check)"
}

# wp_run NAME PROGRAM ARGS...: the program natively and under the tool with EVENTS (an array
# named by the caller: WP_EVENTS), output unchanged, then merge and the JSON report NAME.json.
wp_run() {
  local name=$1
  shift
  run_to "$name.native" "$@"
  [ "$(cat "$name.native.status")" = 0 ] || fail "$*: native exit status $(cat "$name.native.status")"
  run_to "$name.tool" "$HPCL_RUN" -o "$name" "${WP_EVENTS[@]}" -- "$@"
  same_as_native "$name.native" "$name.tool"
  merge_and_report "$name" "$name.db" "$name.json"
  "$HPCL_PROF" report "$name.db" >"$name.txt" || fail "$*: text report failed"
}
