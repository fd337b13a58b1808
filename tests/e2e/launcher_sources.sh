#!/usr/bin/env bash
# The launcher's source parsing and its warnings: bad sources are refused (exit 2) before the
# program runs; a statically linked program is run but reported as not measurable. Refusal of
# sources this machine cannot give, and --check, are in check.sh.
# Usage: launcher_sources.sh STATIC_PROGRAM
source "$(dirname "$0")/lib.sh"
static_prog=$1
[ -x "$static_prog" ] || skip "static test program not built: $static_prog"

expect_refusal() {  # NAME EXPECTED-TEXT, after run_to NAME
  [ "$(cat "$1.status")" = 2 ] || fail "$1: exit status $(cat "$1.status"), expected 2"
  grep -q "$2" "$1.err" || fail "$1: stderr lacks '$2': $(cat "$1.err")"
  [ ! -e never-created ] || fail "$1: the program ran"
}

run_to bogus "$HPCL_RUN" -o m3 -e bogus@10 -- touch never-created
expect_refusal bogus "unknown sampling source 'bogus'"
run_to rate "$HPCL_RUN" -o m4 -e soft@0 -- touch never-created
expect_refusal rate "bad rate"

run_to static "$HPCL_RUN" -o m5 -- "$static_prog"
[ "$(cat static.status)" = 4 ] || fail "static program: exit status $(cat static.status), expected its own 4"
grep -qx "static program ran" static.out || fail "static program: stdout changed: $(cat static.out)"
grep -q "is statically linked" static.err || fail "static program: no warning: $(cat static.err)"
if compgen -G "m5/*.hpcl" >/dev/null; then fail "static program: a profile was written"; fi
echo "launcher source parsing and static-program warning: ok"
