#!/usr/bin/env bash
# LAMMPS case study: the classic 3-D Lennard-Jones melt (fcc lattice, density 0.8442, lj/cut
# 2.5, NVE) of tests/e2e/data/lj_melt.lmp (Debian's lammps package ships no examples).
# 16x16x16 unit cells = 16,384 atoms, CASES_LMP_STEPS steps (default 2000: about 7 s on 2 ranks
# of an idle 2-core machine). Runs `mpirun -np 2 lmp` natively and under hpcrun-lite.
# Usage: bench/cases/lammps.sh [OUTDIR]; see lib.sh for the environment.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
needs lmp mpirun
steps=${CASES_LMP_STEPS:-2000}
case_setup lammps "mpirun -np $ranks --oversubscribe [hpcrun-lite -o DIR --] lmp -in in.melt -log none (LJ melt, 16,384 atoms, $steps steps)"

cp "$(dirname "${BASH_SOURCE[0]}")/../../tests/e2e/data/lj_melt.lmp" "$case_dir/input/in.melt"

case_run() {
  "${mpirun_cmd[@]}" "$@" lmp -in "$case_dir/input/in.melt" -var cells 16 -var steps "$steps" -log none
}
case_main
