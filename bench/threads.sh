#!/usr/bin/env bash
# Thread start and exit cost: bench/workloads/thread_churn.c creates THREADS short threads one
# after another, natively and under hpcrun-lite, and, without the tool, with each kernel-side
# strategy a profiler could use (see the program's header). Prints, per configuration, the
# median over RUNS alternating runs of the wall and CPU microseconds per thread; the CPU time
# (user + system, all threads) is the steadier number on a shared machine.
# Usage: bench/threads.sh [BUILD_DIR] [THREADS] [RUNS]   (defaults: build, 20000, 5)
# Extra runtime libraries to compare (e.g. an older build) can be given as
#   HPCL_THREADS_EXTRA="name=/path/libhpcrun-lite.so ..."
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
"$root/bench/machine.sh" "$build" >&2
threads=${2:-20000}
runs=${3:-5}
churn=$build/bench/wl_thread_churn
lib=$build/lib/libhpcrun-lite.so
for f in "$churn" "$lib"; do
  [ -e "$f" ] || { echo "threads.sh: $f is missing: build the project first" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-threads.XXXXXX")
trap 'rm -rf "$work"' EXIT

# name and command prefix of every configuration
configs=(native tool raw_current raw_lean raw_nodup raw_defer raw_sigtrap)
extra_libs=()
for e in ${HPCL_THREADS_EXTRA:-}; do
  configs+=("${e%%=*}")
  extra_libs+=("$e")
done
run_one() {
  local name=$1 mode=none preload=""
  case $name in
    native) ;;
    tool) preload=$lib ;;
    raw_*) mode=${name#raw_} ;;
    *) for e in "${extra_libs[@]}"; do [ "${e%%=*}" = "$name" ] && preload=${e#*=}; done ;;
  esac
  rm -rf "$work/meas"
  if [ -n "$preload" ]; then
    HPCRUN_LITE_OUT=$work/meas LD_PRELOAD=$preload "$churn" "$threads" "$mode"
  else
    "$churn" "$threads" "$mode"
  fi
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $threads threads, $runs runs" >&2
for ((r = 0; r < runs; ++r)); do
  for c in "${configs[@]}"; do
    line=$(run_one "$c" || echo "failed")
    # "<mode> N threads W us/thread wall C us/thread cpu"
    read -r _ _ _ wall _ _ cpu _ <<<"$line"
    echo "$c $wall $cpu" >>"$work/times"
  done
done
python3 - "$work/times" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, cpu = line.split()
    rows.setdefault(name, []).append((float(wall), float(cpu)))
base = statistics.median(c for _, c in rows["native"])
print(f"{'configuration':<14} {'wall us/thread':>15} {'cpu us/thread':>14} {'cpu - native':>13}")
for name, values in rows.items():
    wall = statistics.median(w for w, _ in values)
    cpu = statistics.median(c for _, c in values)
    print(f"{name:<14} {wall:>15.1f} {cpu:>14.1f} {cpu - base:>13.1f}")
PY
