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
tool=$build/bin/hpcrun-lite
input=$root/tests/e2e/data/lj_melt.lmp
lmp_args=(lmp -in "$input" -var cells 4 -var steps 0 -log none -screen none)
# shellcheck source=bench/lammps_lib.sh disable=SC1091
source "$root/bench/lammps_lib.sh"
lammps_begin startup_cost "$runs" "$tool"
for ((r = 0; r < runs; ++r)); do
  lammps_cpu native
  lammps_cpu tool "$tool"
done
python3 - "$work/times" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, cpu = line.split()
    rows.setdefault(name, []).append(float(cpu))
n, t = statistics.median(rows["native"]), statistics.median(rows["tool"])
print("LAMMPS run 0, 2 ranks: total CPU seconds (user + system), median of %d pairs" % len(rows["tool"]))
print("  native %.3f   (%s)" % (n, " ".join("%.3f" % v for v in rows["native"])))
print("  tool   %.3f   (%s)" % (t, " ".join("%.3f" % v for v in rows["tool"])))
print("  added  %.3f s in total, %.0f ms per rank" % (t - n, (t - n) / 2 * 1000))
PY
