#!/usr/bin/env bash
# The cost of a context switch under the sampler: bench/workloads/block_rate.c does SECONDS of
# arithmetic and blocks N times per second of it (plain: one thread sleeps 20 us; omp: a parallel
# region of 2 threads with OMP_WAIT_POLICY=passive), natively and under hpcrun-lite with the
# timer at 1/s (armed, almost never firing) and at 1000/s (twice the default). Prints, per mode
# and N, the median CPU seconds of RUNS rotated rounds, the switches, and the added CPU per
# switch: the tool's extra over native at N, less its extra at N=0 (the samples' own cost),
# divided by the switches.
# Usage: bench/switch_cost.sh [BUILD_DIR] [RUNS] [SECONDS]   (defaults: build, 5, 2)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
"$root/bench/machine.sh" "$build" >&2
runs=${2:-5}
seconds=${3:-2}
prog=$build/bench/wl_block_rate
tool=$build/bin/hpcrun-lite
for f in "$prog" "$tool"; do
  [ -x "$f" ] || { echo "switch_cost.sh: $f is missing: build the project first" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-switch.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMP_WAIT_POLICY=passive

configs=(native soft@1 soft@1000)
one() {  # one MODE N CONFIG: appends "MODE N CONFIG cpu switches"
  local mode=$1 n=$2 config=$3 prefix=()
  rm -rf "$work/meas"
  [ "$config" != native ] && prefix=("$tool" -o "$work/meas" -e "$config" --)
  # "<mode> <N> blocks/s: <cpu> cpu, <vol> + <invol> switches"
  read -r _ _ _ cpu _ vol _ invol _ < <("${prefix[@]}" "$prog" "$mode" "$n" "$seconds")
  echo "$mode $n $config $cpu $((vol + invol))" >>"$work/times"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $runs rounds of $seconds s" >&2
for ((r = 0; r < runs; ++r)); do
  for mode in plain omp; do
    for n in 0 1000 5000 20000; do
      # Rotated, so no configuration always runs first.
      for ((k = 0; k < ${#configs[@]}; ++k)); do
        one "$mode" "$n" "${configs[$(((k + r) % ${#configs[@]}))]}"
      done
    done
  done
done
python3 - "$work/times" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode, n, config, cpu, sw = line.split()
    rows.setdefault((mode, int(n), config), []).append((float(cpu), int(sw)))
med = {k: (statistics.median(c for c, _ in v), statistics.median(s for _, s in v)) for k, v in rows.items()}
print("| mode | blocks/s | switches | native CPU s | soft@1 | soft@1000 | per switch, soft@1 (us) | per switch, soft@1000 (us) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for mode in ("plain", "omp"):
    base = {c: med[(mode, 0, c)][0] - med[(mode, 0, "native")][0] for c in ("soft@1", "soft@1000")}
    for n in (0, 1000, 5000, 20000):
        nat, sw = med[(mode, n, "native")]
        cells = []
        for c in ("soft@1", "soft@1000"):
            extra = med[(mode, n, c)][0] - nat - base[c]
            cells.append("%.1f" % (extra / sw * 1e6) if n and sw else "")
        print("| %s | %d | %d | %.3f | %.3f | %.3f | %s | %s |" % (
            mode, n, sw, nat, med[(mode, n, "soft@1")][0], med[(mode, n, "soft@1000")][0], *cells))
PY
