#!/usr/bin/env bash
# How the timer reaches its thread (hpcrun-lite/probe/include/hpcrun/probe/timer_signal.h): as perf's
# own SIGTRAP on Linux 6.11 and later (where the probe opens it: the way --check names), as the
# real-time signal on older kernels, with
# HPCRUN_LITE_SIGTRAP=0, and while a debugger traces the program (strace uses ptrace as gdb
# does). Each way the program ends as natively, META timer_signal names the way, and the work
# array holds the samples of its 0.3 s of work.
# Usage: timer_signal.sh PROGRAM   (tests/programs/endings.c)
source "$(dirname "$0")/lib.sh"
prog=$1

# The way the probe chose (hpcrun-lite --check --json): perf's SIGTRAP where the kernel is 6.11
# or later and opens the event, else the real-time signal. A kernel older than 6.11 must never
# be given SIGTRAP; a newer one that refuses the event falls back with a reason.
probe_load
expected=$(probe_query 'source("soft")["timer_signal"]')
IFS=. read -r major minor _ <<<"$(uname -r)"
if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "${minor%%[!0-9]*}" -lt 11 ]; }; then
  [ "$expected" = realtime ] || fail "--check chose $expected for the timer on Linux $(uname -r), older than 6.11"
elif [ "$expected" != sigtrap ]; then
  echo "note: Linux $(uname -r) but the probe chose $expected: $(probe_query 'source("soft")["timer_signal_reason"]')" >&2
fi

# measured NAME MODE MIN [ENV=VALUE...] [-- PREFIX...]: runs the program under the tool in the
# directory NAME, checks it ends as natively, that META timer_signal is MODE and that the work
# array holds at least MIN samples.
measured() {
  local name=$1 mode=$2 min=$3
  shift 3
  local env=() prefix=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); shift; done
  [ "${1:-}" = -- ] && { shift; prefix=("$@"); }
  mkdir "$name"
  (
    cd "$name" || exit 1
    run_to tool env "${env[@]}" "${prefix[@]}" "$HPCL_RUN" -e "soft@$SOFT_RATE" -o meas -- "$prog" return
    cat tool.err >&2
    same_as_native ../native tool
    expect_profiles meas 1
    f=$(profiles meas)
    got=$(profile_meta "$f" timer_signal)
    [ "$got" = "$mode" ] || fail "$name: the timer signalled with $got, expected $mode"
    check_work_in_each "$min" "$f"
  ) || exit 1
}

run_to native "$prog" return
step "kernel $(uname -r): the timer should signal with $expected"
measured default "$expected" 150
measured realtime realtime 150 HPCRUN_LITE_SIGTRAP=0
command -v strace >/dev/null 2>&1 || fail "strace not found (scripts/install-deps.sh installs it)"
strace -f -qq -o /dev/null true 2>strace-probe.err ||
  skip "strace cannot trace here (ptrace refused: yama ptrace_scope?): $(cat strace-probe.err)"
# strace's own lines go to a file, so the program's stderr is its own. Fewer samples: each
# signal stops the program for the tracer, in the kernel, where the timer does not sample
# (132 of about 300 seen).
measured traced realtime 50 -- strace -f -qq -o strace.log
