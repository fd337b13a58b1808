#!/usr/bin/env bash
# Overhead of the watchpoint analyses (docs/PERFORMANCE.md "Watchpoint analyses"): each benchmark
# workload (bench/workloads) run in alternating pairs under `-e soft` and under
# `-e soft -e wp-sharing -e wp-reuse` at default rates; prints per workload the median ratio of
# CPU time (user + system, /usr/bin/time) and of wall time, with the per-pair spread.
# Usage: scripts/wp_overhead.sh [BUILD_DIR] [PAIRS]   (defaults: <repo>/build, 5)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
pairs=${2:-5}
tool=$build/bin/hpcrun-lite
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-wp.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
run() {  # OUT-FILE CMD...: appends "cpu wall"
  local out=$1
  shift
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f '%U %S' -o "$work/t" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  t1=$(date +%s%N)
  awk -v w="$(( t1 - t0 ))" '{ print $1 + $2, w / 1e9 }' "$work/t" >>"$out"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %10s %10s %12s %12s\n' workload soft_cpu_s wp_cpu_s cpu_ratio wall_ratio
for wl in stream stencil pointer_chase alloc_heavy; do
  cmd=("$build/bench/wl_$wl")
  [ -x "${cmd[0]}" ] || { echo "$wl: not built (${cmd[0]})" >&2; continue; }
  "${cmd[@]}" >/dev/null
  : >"$work/soft"; : >"$work/wp"
  for ((p = 1; p <= pairs; p++)); do
    rm -rf "$work/o1" "$work/o2"
    run "$work/soft" "$tool" -o "$work/o1" -e soft -- "${cmd[@]}"
    run "$work/wp" "$tool" -o "$work/o2" -e soft -e wp-sharing -e wp-reuse -- "${cmd[@]}"
  done
  paste "$work/soft" "$work/wp" | python3 -c '
import sys, statistics
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
cpu = [r[2] / r[0] for r in rows]; wall = [r[3] / r[1] for r in rows]
print(f"%-14s %10.3f %10.3f %6.3f [%.2f-%.2f] %6.3f [%.2f-%.2f]" % (sys.argv[1],
      statistics.median(r[0] for r in rows), statistics.median(r[2] for r in rows),
      statistics.median(cpu), min(cpu), max(cpu), statistics.median(wall), min(wall), max(wall)))
' "$wl"
done
