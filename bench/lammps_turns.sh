#!/usr/bin/env bash
# Issue 23's real-application check, and a regression check between two builds: LAMMPS (the LJ
# melt of tests/e2e/data/lj_melt.lmp, 16x16x16 cells, 400 steps) on 2 MPI ranks, natively and
# under each build's hpcrun-lite, in turns (native, A, B, native, A, B, ...), ROUNDS rounds.
# Prints each configuration's median CPU time (user + system of mpirun and everything it waited
# for) and the median of the per-round ratios to native. This VM's speed drifts by 10% over
# minutes; builds compared in turns see the same drift, which is why a regression is judged here
# and not between runs of the benchmark hours apart.
# Usage: bench/lammps_turns.sh BUILD_A [BUILD_B] [ROUNDS]   (ROUNDS: 5)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 1 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
builds=("$1")
[ $# -ge 2 ] && [ -n "$2" ] && builds+=("$2")
rounds=${3:-5}
export OMP_NUM_THREADS=1
lmp_args=(lmp -in "$root/tests/e2e/data/lj_melt.lmp" -var cells 16 -var steps 400 -log none -screen none)
# shellcheck source=bench/lammps_lib.sh disable=SC1091
source "$root/bench/lammps_lib.sh"
lammps_begin lammps_turns "$rounds" "${builds[@]/%//bin/hpcrun-lite}"
for ((r = 0; r < rounds; ++r)); do
  lammps_cpu native
  for i in "${!builds[@]}"; do lammps_cpu "build$i" "${builds[$i]}/bin/hpcrun-lite"; done
done
python3 - "$work/times" "${builds[@]}" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    name, sec = line.split()
    times.setdefault(name, []).append(float(sec))
native = times["native"]
print(f"native       CPU median {statistics.median(native):.3f} s  {[round(x, 2) for x in native]}")
for i, build in enumerate(sys.argv[2:]):
    t = times[f"build{i}"]
    ratio = statistics.median(b / a for a, b in zip(native, t))
    print(f"{build}: CPU median {statistics.median(t):.3f} s, ratio to native {ratio:.3f}x  {[round(x, 2) for x in t]}")
PY
