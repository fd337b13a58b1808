# shellcheck shell=bash
# Helpers of the watchpoint tests (wp_sharing.sh, wp_reuse.sh), sourced after lib.sh.

# Skips (77), with the probe's reason, unless `hpcrun-lite --check` says both watchpoint sources
# work here: breakpoint events that open, re-aim and count.
require_watchpoints() {
  require_source wp-sharing wp-reuse
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
