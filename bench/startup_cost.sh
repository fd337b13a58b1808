#!/usr/bin/env bash
# The runtime's fixed cost per process: start-up and exit of LAMMPS with `run 0` (the LJ melt of
# tests/e2e/data/lj_melt.lmp, 4x4x4 cells, no step), 2 MPI ranks, natively and under
# hpcrun-lite, in RUNS alternating pairs. Prints the median CPU time (user + system of mpirun and
# everything it waited for) of each and their difference, the figure issue 23 bounds at 0.1 s for
# 2 ranks. A breakdown of one process's start-up comes from `perf record -e cpu-clock` (and
# `-e page-faults`) or `strace -c -f` on the same command (docs/PERFORMANCE.md, "Start-up and exit").
# Usage: bench/startup_cost.sh [BUILD_DIR] [RUNS]   (defaults: build, 5)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
runs=${2:-5}
builds=("$build")
[ $# -ge 3 ] && builds+=("$3")
input=$root/tests/e2e/data/lj_melt.lmp
lmp_args=(lmp -in "$input" -var cells 4 -var steps 0 -log none -screen none)
# shellcheck source=bench/lammps_lib.sh disable=SC1091
source "$root/bench/lammps_lib.sh"
lammps_begin startup_cost "$runs" "${builds[@]/%//bin/hpcrun-lite}"
for ((r = 0; r < runs; ++r)); do
  lammps_cpu native
  for i in "${!builds[@]}"; do lammps_cpu "tool$i" "${builds[$i]}/bin/hpcrun-lite"; done
done
python3 - "$work/times" "${builds[@]}" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, cpu = line.split()
    rows.setdefault(name, []).append(float(cpu))
n = statistics.median(rows["native"])
print("LAMMPS run 0, 2 ranks: total CPU seconds (user + system), median of %d rounds" % len(rows["native"]))
print("  native %.3f   (%s)" % (n, " ".join("%.3f" % v for v in rows["native"])))
for i, build in enumerate(sys.argv[2:]):
    t = statistics.median(rows["tool%d" % i])
    print("  %s: tool %.3f   (%s)" % (build, t, " ".join("%.3f" % v for v in rows["tool%d" % i])))
    print("    added %.3f s in total, %.0f ms per rank" % (t - n, (t - n) / 2 * 1000))
PY
