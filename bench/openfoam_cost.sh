#!/usr/bin/env bash
# What the runtime costs an allocation-heavy C++ code: OpenFOAM's simpleFoam on its pitzDaily
# tutorial (Debian's openfoam and openfoam-examples), ITERATIONS SIMPLE iterations on 2 MPI
# ranks, natively and under hpcrun-lite in ROUNDS alternating pairs. Prints each pair's CPU
# time (user + system of mpirun and everything it waited for, bench/cputime.py) and ratio, the
# median ratio, and the share of the samples that were the profiler's own work (the merged
# report's "in the profiler's own work" line) in each measured round.
# Exits 77 when OpenFOAM or mpirun is missing.
# Usage: bench/openfoam_cost.sh [BUILD_DIR] [ROUNDS=3] [ITERATIONS=100]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
rounds=${2:-3}
iterations=${3:-100}
# shellcheck source=bench/openfoam_lib.sh disable=SC1091
source "$root/bench/openfoam_lib.sh"
openfoam_case openfoam_cost "$iterations"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $rounds pairs, $iterations iterations"
cpu() {
  local user sys
  python3 "$root/bench/cputime.py" "$work/cpu" "$@" >/dev/null 2>&1
  read -r user sys <"$work/cpu"
  python3 -c "print('%.3f' % ($user + $sys))"
}
cd "$work/case"
cpu mpirun -np 2 simpleFoam -parallel >/dev/null  # warm the page cache
: >"$work/ratios"
for ((r = 1; r <= rounds; r++)); do
  native=$(cpu mpirun -np 2 simpleFoam -parallel)
  rm -rf "$work/meas" "$work/db"
  tool=$(cpu mpirun -np 2 "$build/bin/hpcrun-lite" -o "$work/meas" -- simpleFoam -parallel)
  "$build/bin/hpcprof-lite" merge "$work/meas" -o "$work/db" >/dev/null 2>&1
  own=$("$build/bin/hpcprof-lite" report "$work/db" 2>/dev/null |
    sed -n 's/.*in the profiler.s own work: [0-9,]* (\([0-9.]*%\).*/\1/p' | head -1)
  ratio=$(python3 -c "print('%.3f' % ($tool / $native))")
  echo "$ratio" >>"$work/ratios"
  echo "pair $r: native ${native} s, tool ${tool} s CPU: ${ratio}x; own work ${own:-?} of the samples"
done
echo "median: $(sort -n "$work/ratios" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')x CPU"
