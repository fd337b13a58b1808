#!/usr/bin/env bash
# GROMACS case study: a 3 nm box of SPC water (884 molecules, 2,652 atoms) made by `gmx solvate`
# from the spc216.gro shipped in gromacs-data, the OPLS-AA force field shipped with it, PME
# electrostatics, 1.0 nm cut-offs, h-bond constraints, v-rescale thermostat; a steepest-descent
# minimisation and `gmx grompp` build the run input once, then
# `mpirun -np 2 gmx_mpi mdrun -ntomp 1` runs CASES_GMX_STEPS steps (default 5000: about 8 s on an
# idle 2-core machine of this project) natively and under hpcrun-lite.
# Falls back to thread-MPI `gmx mdrun -ntmpi 2` when gmx_mpi is not installed.
# Usage: bench/cases/gromacs.sh [OUTDIR]; see lib.sh for the environment.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
needs gmx mpirun
steps=${CASES_GMX_STEPS:-5000}
if command -v gmx_mpi >/dev/null; then
  desc="mpirun -np $ranks --oversubscribe [hpcrun-lite -o DIR --] gmx_mpi mdrun -s water.tpr -ntomp 1 -nb cpu -notunepme -nsteps $steps"
else
  desc="[hpcrun-lite -o DIR --] gmx mdrun -ntmpi $ranks -ntomp 1 -s water.tpr -nb cpu -notunepme -nsteps $steps"
fi
case_setup gromacs "$desc (SPC water, 2,652 atoms, PME)"
export GMX_MAXBACKUP=-1   # no #backup# files of earlier outputs

in=$case_dir/input
cat >"$in/topol.top" <<'TOP'
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spc.itp"

[ system ]
SPC water box

[ molecules ]
TOP
cat >"$in/md.mdp" <<'MDP'
integrator      = md
dt              = 0.002
nsteps          = 1500
nstlist         = 10
cutoff-scheme   = Verlet
coulombtype     = PME
rcoulomb        = 1.0
rvdw            = 1.0
constraints     = h-bonds
tcoupl          = v-rescale
tc-grps         = System
tau-t           = 0.1
ref-t           = 300
gen-vel         = yes
gen-temp        = 300
gen-seed        = 1
nstxout         = 0
nstvout         = 0
nstxout-compressed = 0
nstenergy       = 500
nstlog          = 500
MDP
cat >"$in/em.mdp" <<'MDP'
integrator      = steep
emtol           = 500
emstep          = 0.01
nsteps          = 1000
cutoff-scheme   = Verlet
coulombtype     = PME
rcoulomb        = 1.0
rvdw            = 1.0
MDP
# Solvate, then minimise once (natively, thread-MPI gmx, one rank): the replicated spc216 box
# has close contacts across the periodic boundary that make a 1-rank MD run blow up at step 15
# ("water molecules can not be settled") without it.
(
  cd "$in"
  gmx -quiet solvate -cs spc216.gro -box 3 3 3 -o water.gro >solvate.log 2>&1
  nsol=$(grep -c 'SOL.*OW' water.gro)
  printf 'SOL %s\n' "$nsol" >>topol.top
  gmx -quiet grompp -f em.mdp -c water.gro -p topol.top -o em.tpr -maxwarn 1 >grompp-em.log 2>&1
  gmx -quiet mdrun -s em.tpr -deffnm em -ntmpi 1 -ntomp 1 -nb cpu >em.log.txt 2>&1
  gmx -quiet grompp -f md.mdp -c em.gro -p topol.top -o water.tpr -maxwarn 1 >grompp.log 2>&1
) || { echo "cases: gromacs input set-up failed; see $in/*.log" >&2; exit 1; }

case_run() {
  if command -v gmx_mpi >/dev/null; then
    "${mpirun_cmd[@]}" "$@" gmx_mpi -quiet mdrun -s "$in/water.tpr" -deffnm md -ntomp 1 -nb cpu \
      -notunepme -nsteps "$steps"
  else
    "$@" gmx -quiet mdrun -s "$in/water.tpr" -deffnm md -ntmpi "$ranks" -ntomp 1 -nb cpu \
      -notunepme -nsteps "$steps"
  fi
}
case_main
