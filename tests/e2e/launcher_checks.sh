#!/usr/bin/env bash
# Nothing lost to a typo (issue 24): what the launcher must refuse before the program starts, and
# what it must not leave behind. Each refusal is exit status 2 (126/127 for the program itself)
# with one line naming the problem, and a program that would create a marker file did not run.
#   - -o naming a regular file, an immutable directory (when chattr works here);
#   - a bad value in any HPCRUN_LITE_* variable (SIGNAL=11, 9, garbage), a misspelt name;
#     HPCRUN_LITE_SIGNAL=11 with LD_PRELOAD set by hand: ignored with a warning, and the
#     program's exit status is its own;
#   - unknown options beside --check, and --check with a program;
#   - a missing program, a directory, a file without execute permission: no measurement
#     directory left behind, and "is a directory" for a directory;
#   - a script: measured as its interpreter, and the launcher says so;
#   - a number too large for --min-bytes is "too large", not "not a number";
#   - a program whose name is long enough to take the profile's name past NAME_MAX still gets
#     its profile.
# The read-only mount is in outdir_readonly.sh (it needs mount).
# Usage: launcher_checks.sh PROGRAM   (tests/programs/endings.c; "exit" ends with status 5)
source "$(dirname "$0")/lib.sh"
prog=$1
lib=$(dirname "$HPCL_RUN")/../lib/libhpcrun-lite.so
[ -f "$lib" ] || fail "cannot find the runtime library next to $HPCL_RUN"

# refused NAME STATUS TEXT: after run_to NAME, the launcher exited STATUS, said TEXT on stderr,
# and the marker program never ran.
refused() {
  [ "$(cat "$1.status")" = "$2" ] || { cat "$1.err" >&2; fail "$1: exit status $(cat "$1.status"), expected $2"; }
  grep -q -- "$3" "$1.err" || fail "$1: stderr lacks '$3': $(cat "$1.err")"
  [ ! -e marker ] || fail "$1: the program ran although the launcher refused"
}

: >a-file
run_to file "$HPCL_RUN" -o a-file -- touch marker
refused file 2 "a-file as the measurement directory: it is a file, not a directory"
run_to under_file "$HPCL_RUN" -o a-file/meas -- touch marker
refused under_file 2 "a-file is a file, not a directory"

mkdir immutable
if chattr +i immutable 2>/dev/null; then
  trap 'chattr -i "$PWD/immutable" 2>/dev/null || true' EXIT
  run_to immutable "$HPCL_RUN" -o immutable -- touch marker
  refused immutable 2 "cannot create a file in it: Operation not permitted"
  chattr -i immutable
  trap - EXIT
else
  echo "NOTE: chattr +i does not work here; the immutable directory was not tried" >&2
fi

for value in 11 9 0 garbage 34x; do
  run_to "signal_$value" env HPCRUN_LITE_SIGNAL=$value "$HPCL_RUN" -o "sig$value" -- touch marker
  refused "signal_$value" 2 "HPCRUN_LITE_SIGNAL=$value: expected a real-time signal"
  [ ! -e "sig$value" ] || fail "HPCRUN_LITE_SIGNAL=$value: a measurement directory was created"
done
run_to signal_ok env HPCRUN_LITE_SIGNAL=40 "$HPCL_RUN" -o sig-ok -- "$prog" exit
[ "$(cat signal_ok.status)" = 5 ] || fail "HPCRUN_LITE_SIGNAL=40: status $(cat signal_ok.status), not the program's 5"
expect_profiles sig-ok 1
# Set by hand the launcher cannot refuse it: the runtime ignores it, says so, and the program
# ends as it would without the tool (SIGSEGV would have killed it at the first sample).
HPCRUN_LITE_SIGNAL=11 HPCRUN_LITE_OUT=$PWD/by-hand LD_PRELOAD=$lib run_to by_hand "$prog" exit
[ "$(cat by_hand.status)" = 5 ] || { cat by_hand.err >&2; fail "HPCRUN_LITE_SIGNAL=11 by hand: status $(cat by_hand.status), not 5"; }
grep -q "ignoring HPCRUN_LITE_SIGNAL=11" by_hand.err || fail "HPCRUN_LITE_SIGNAL=11 by hand: no warning: $(cat by_hand.err)"
expect_profiles by-hand 1

for var in HPCRUN_LITE_NUMA=off HPCRUN_LITE_VERBOSE=yes HPCRUN_LITE_WP_REGISTERS=5 \
           HPCRUN_LITE_UMASK=022 HPCRUN_LITE_MIN_BYTES=lots HPCRUN_LITE_TEST_WRITER_FAULT=bus; do
  run_to badvar env "$var" "$HPCL_RUN" -o badvar -- touch marker
  refused badvar 2 "$var: expected"
done
run_to typo env HPCRUN_LITE_EVENT=soft "$HPCL_RUN" -o typo -- touch marker
refused typo 2 "HPCRUN_LITE_EVENT is not a variable of hpcrun-lite (did you mean HPCRUN_LITE_EVENTS?)"

run_to check_extra "$HPCL_RUN" --check --anything
refused check_extra 2 "unknown option --anything"
run_to check_program "$HPCL_RUN" --check touch marker
refused check_program 2 "it takes no program"
run_to help_extra "$HPCL_RUN" --help --frobnicate
refused help_extra 2 "unknown option --frobnicate"

# --help names every source, page-faults (the one that finds serial first touch) too.
"$HPCL_RUN" --help >help.txt || fail "--help failed"
for source in soft page-faults wp-sharing wp-reuse pebs-load ibs-op PAPI_; do
  grep -q -- "$source" help.txt || fail "--help does not mention $source"
done

run_to big "$HPCL_RUN" --min-bytes 99999999999999999999g -- touch marker
refused big 2 "'99999999999999999999g' is too large"
run_to word "$HPCL_RUN" --min-bytes lots -- touch marker
refused word 2 "'lots' is not a number"

# The program cannot run: the right status, the reason, and no directory left behind.
mkdir adir
: >not-exec.sh
for case in missing:./no-such-program:127:"No such file or directory" \
            nopath:no-such-program-anywhere:127:"not found in PATH" \
            dir:./adir:126:"is a directory" \
            noexec:./not-exec.sh:126:"is not executable"; do
  IFS=: read -r name program status text <<<"$case"
  run_to "$name" "$HPCL_RUN" -- "$program"
  refused "$name" "$status" "$text"
  left=$(find . -maxdepth 1 -name 'hpcrun-lite-*-measurements*' | wc -l)
  [ "$left" -eq 0 ] || fail "$name: a measurement directory was left behind: $(ls -d hpcrun-lite-*)"
done

# A script: measured as its interpreter, said once.
printf '#!/bin/sh\nexec "%s" exit\n' "$prog" >wrapper.sh
chmod +x wrapper.sh
run_to script "$HPCL_RUN" -o script-meas -- ./wrapper.sh
[ "$(cat script.status)" = 5 ] || fail "script: status $(cat script.status), not the program's 5"
grep -q "wrapper.sh is a script (#!/bin/sh): the interpreter is measured" script.err ||
  fail "script: no word about the interpreter: $(cat script.err)"

# A program name of 230 bytes: the profile's name would pass NAME_MAX (255) with the host, rank,
# pid and the temporary suffix; the profile is still written, under a shortened name.
long=$(printf 'p%.0s' $(seq 230))
cp "$prog" "$long"
run_to long "$HPCL_RUN" -o long-meas -- "./$long" exit
[ "$(cat long.status)" = 5 ] || { cat long.err >&2; fail "long name: status $(cat long.status), not 5"; }
expect_profiles long-meas 1
echo "launcher refusals, nothing left behind, the signal ignored by hand, scripts and long names: ok" >&2
