#!/usr/bin/env bash
# LAMMPS case study: the classic 3-D Lennard-Jones melt (fcc lattice, density 0.8442, lj/cut
# 2.5, NVE), written here from its documented parameters because Debian's lammps package ships
# no examples. 16x16x16 unit cells = 16,384 atoms, CASES_LMP_STEPS steps (default 2000: about
# 7 s on 2 ranks of an idle 2-core machine). Runs `mpirun -np 2 lmp` natively and under hpcrun-lite.
# Usage: bench/cases/lammps.sh [OUTDIR]; see lib.sh for the environment.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
needs lmp mpirun
steps=${CASES_LMP_STEPS:-2000}
case_setup lammps "mpirun -np $ranks --oversubscribe [hpcrun-lite -o DIR --] lmp -in in.melt -log none (LJ melt, 16,384 atoms, $steps steps)"

cat >"$case_dir/input/in.melt" <<IN
# 3-D Lennard-Jones melt
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 16 0 16 0 16
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 3.0 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    every 20 delay 0 check no
fix             1 all nve
thermo          100
run             $steps
IN

case_run() {
  "${mpirun_cmd[@]}" "$@" lmp -in "$case_dir/input/in.melt" -log none
}
case_main
