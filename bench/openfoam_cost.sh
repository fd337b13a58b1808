#!/usr/bin/env bash
# What the runtime costs an allocation-heavy C++ code: OpenFOAM's simpleFoam on its pitzDaily
# tutorial (Debian's openfoam and openfoam-examples), ITERATIONS SIMPLE iterations on 2 MPI
# ranks, natively and under hpcrun-lite in ROUNDS alternating pairs. Prints each pair's CPU
# time (user + system of mpirun and everything it waited for, bench/cputime.py) and ratio, the
# median ratio, and the share of the samples that were the profiler's own work (the merged
# report's "in the profiler's own work" line) in each measured round.
# With BUILD_B, each round also measures that build's hpcrun-lite right after the first one, so
# that two builds are compared in turns (this VM's speed drifts by 10% over minutes).
# Exits 77 when OpenFOAM or mpirun is missing.
# Usage: bench/openfoam_cost.sh [BUILD_DIR] [ROUNDS=3] [ITERATIONS=100] [BUILD_B]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
rounds=${2:-3}
iterations=${3:-100}
builds=("$build")
[ -n "${4:-}" ] && builds+=("$(cd "$4" && pwd)")
for b in "${builds[@]}"; do "$root/bench/machine.sh" "$b"; done
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
  for b in "${!builds[@]}"; do
    bin=${builds[$b]}/bin
    rm -rf "$work/meas" "$work/db"
    tool=$(cpu mpirun -np 2 "$bin/hpcrun-lite" -o "$work/meas" -- simpleFoam -parallel)
    "$bin/hpcprof-lite" merge "$work/meas" -o "$work/db" >/dev/null 2>&1
    own=$("$bin/hpcprof-lite" report "$work/db" 2>/dev/null |
      sed -n 's/.*in the profiler.s own work: [0-9,]* (\([0-9.]*%\).*/\1/p' | head -1)
    ratio=$(python3 -c "print('%.3f' % ($tool / $native))")
    echo "$ratio" >>"$work/ratios$b"
    label="pair $r"
    [ ${#builds[@]} -gt 1 ] && label="pair $r, build $((b + 1))"
    echo "$label: native ${native} s, tool ${tool} s CPU: ${ratio}x; own work ${own:-?} of the samples"
  done
done
for b in "${!builds[@]}"; do
  echo "median (${builds[$b]}): $(sort -n "$work/ratios$b" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')x CPU"
done
