#!/usr/bin/env bash
# Where the tool's CPU goes on LAMMPS (the run of lammps_turns.sh: LJ melt, 16x16x16 cells, 400
# steps, 2 MPI ranks), in turns, ROUNDS rounds of:
#   native      no tool
#   bare-timer  bench/bare_sampler.so, BARE_MODE=timer: each thread's task-clock event overflows
#               500 times a second of its CPU time (the soft source's default rate), nothing is
#               delivered (the VM's timer alone)
#   bare-signal the same plus the real-time signal (F_SETSIG) and an empty handler
#   bare-trap   the same plus perf's SIGTRAP (attr.sigtrap) and an empty handler
#   tool-idle   hpcrun-lite -e soft@1: start-up, tracking and the writer, almost no sample
#   tool-entry  hpcrun-lite with HPCRUN_LITE_TEST_HANDLER_STAGE=entry: every sample's signal and
#               the handler's frame, no decoding, classification, unwinding or tree
#   tool-realtime hpcrun-lite with HPCRUN_LITE_SIGTRAP=0: the timer's samples as the real-time
#               signal, as on kernels before 6.11
#   tool        hpcrun-lite as users run it (500 samples a second)
# Prints each configuration's median CPU time (user + system of mpirun and all it waited for)
# and its ratio to the native median.
# Usage: bench/lammps_parts.sh [BUILD_DIR] [ROUNDS]   (build, 5)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
"$root/bench/machine.sh" "$build" >&2
rounds=${2:-5}
tool=$build/bin/hpcrun-lite
bare=$build/bench/bare_sampler.so
export OMP_NUM_THREADS=1
rate=500  # the bare sampler's timer at the soft source's default rate (kDefaultSoftRate)
lmp_args=(lmp -in "$root/tests/e2e/data/lj_melt.lmp" -var cells 16 -var steps 400 -log none -screen none)
# shellcheck source=bench/lammps_lib.sh disable=SC1091
source "$root/bench/lammps_lib.sh"
lammps_begin lammps_parts "$rounds" "$tool" "$bare"
for ((r = 0; r < rounds; ++r)); do
  lammps_cpu native
  cpu_time bare-timer mpirun -np 2 -x LD_PRELOAD="$bare" -x BARE_MODE=timer -x BARE_RATE=$rate "${lmp_args[@]}"
  cpu_time bare-signal mpirun -np 2 -x LD_PRELOAD="$bare" -x BARE_MODE=signal -x BARE_RATE=$rate "${lmp_args[@]}"
  cpu_time bare-trap mpirun -np 2 -x LD_PRELOAD="$bare" -x BARE_MODE=trap -x BARE_RATE=$rate "${lmp_args[@]}"
  cpu_time tool-realtime mpirun -np 2 -x HPCRUN_LITE_SIGTRAP=0 "$tool" -o "$work/meas" -- "${lmp_args[@]}"
  cpu_time tool-idle mpirun -np 2 "$tool" -o "$work/meas" -e soft@1 -- "${lmp_args[@]}"
  cpu_time tool-entry mpirun -np 2 -x HPCRUN_LITE_TEST_HANDLER_STAGE=entry "$tool" -o "$work/meas" -- "${lmp_args[@]}"
  lammps_cpu tool "$tool"
done
python3 - "$work/times" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, sec = line.split()
    rows.setdefault(name, []).append(float(sec))
native = statistics.median(rows["native"])
for name, v in rows.items():
    m = statistics.median(v)
    print(f"{name:12s} CPU median {m:.3f} s  ratio {m / native:.3f}  [{', '.join(f'{x:.2f}' for x in v)}]")
PY
