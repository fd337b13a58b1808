#!/usr/bin/env bash
# Runs the runtime's stress programs many times under hpcrun-lite, sampling at 10 kHz (issue 11),
# and checks that every run ends within its time limit, with the exit status (and, where the
# program's output is deterministic, the output) of its native run, and leaves a profile:
#   alloc64       64 threads malloc and free at once (tests/programs/stress.c)
#   short_threads 2000 short-lived threads one after another
#   dl_storm      threads dlopen and dlclose a library while the main thread allocates
#   sigstorm      20,000 signals to 4 threads that malloc and free
#   sigalloc      20,000 signals whose handler mallocs and frees
#   handler_free  a handler frees blocks while the loop maps and unmaps (output: a count, not compared)
#   fork          fork from a multithreaded program (fork_churn)
#   blockall      a thread with every signal blocked (endings block)
#   reset         a program that resets every handler to SIG_DFL (endings reset)
# Usage: scripts/stress.sh [-n REPETITIONS] [-b BUILD_DIR] [-t SECONDS_PER_RUN] [CASE...]
#   defaults: 10 repetitions, <repo>/build, 60 s; all cases. Prints a line per case with the runs
#   that passed; keeps the logs of failed runs under $TMPDIR. Exit status 1 if any run failed.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=10
build=$repo/build
limit=60
while getopts "n:b:t:h" opt; do
  case $opt in
    n) n=$OPTARG ;;
    b) build=$OPTARG ;;
    t) limit=$OPTARG ;;
    *) sed -n '2,17p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(alloc64 short_threads dl_storm sigstorm sigalloc handler_free fork blockall reset)

run=$build/bin/hpcrun-lite
progs=$build/tests/programs
[ -x "$run" ] || { echo "stress.sh: $run not found (build first, or -b BUILD_DIR)" >&2; exit 2; }

# command of a case, and whether its output is compared
command_of() {
  case $1 in
    alloc64) echo "$progs/stress alloc64" ;;
    short_threads) echo "$progs/short_threads 2000 1" ;;
    dl_storm) echo "$progs/dl_storm $progs/libhpcl_dl_storm_lib.so 300" ;;
    sigstorm) echo "$progs/stress sigstorm" ;;
    sigalloc) echo "$progs/stress sigalloc" ;;
    handler_free) echo "$progs/handler_free 1" ;;
    fork) echo "$progs/fork_churn 20" ;;
    blockall) echo "$progs/endings block" ;;
    reset) echo "$progs/endings reset" ;;
    *) return 1 ;;
  esac
}
compare_output() { [ "$1" != handler_free ]; }

work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-stress.XXXXXX")
failed=0
total_pass=0
for c in "${cases[@]}"; do
  cmd=$(command_of "$c") || { echo "stress.sh: unknown case $c" >&2; exit 2; }
  # shellcheck disable=SC2086
  timeout "$limit" $cmd >"$work/$c.native.out" 2>/dev/null
  native=$?
  pass=0
  start=$(date +%s.%N)
  for ((i = 1; i <= n; i++)); do
    out=$work/$c.$i
    # shellcheck disable=SC2086
    timeout -k 5 "$limit" "$run" -e soft@10000 -o "$out.meas" -- $cmd >"$out.out" 2>"$out.err"
    status=$?
    why=""
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then why="did not end within ${limit}s (hang?)"
    elif [ "$status" != "$native" ]; then why="exit status $status, natively $native"
    elif compare_output "$c" && ! cmp -s "$out.out" "$work/$c.native.out"; then why="output differs"
    elif ! ls "$out.meas"/*.hpcl >/dev/null 2>&1; then why="no profile written"
    fi
    if [ -z "$why" ]; then
      pass=$((pass + 1))
      rm -rf "$out.meas" "$out.out" "$out.err"
    else
      failed=$((failed + 1))
      echo "FAIL: $c run $i: $why (logs: $out.*)" >&2
    fi
  done
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  printf '%-14s %d/%d runs passed (%.1f s, status %s)\n' "$c" "$pass" "$n" "$secs" "$native"
  total_pass=$((total_pass + pass))
done
echo "stress: $total_pass runs passed, $failed failed"
[ "$failed" = 0 ] && rm -rf "$work"
[ "$failed" = 0 ]
