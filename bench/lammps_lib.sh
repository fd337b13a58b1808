# shellcheck shell=bash disable=SC2154  # root, work and lmp_args are the sourcing script's
# Shared by startup_cost.sh and lammps_turns.sh: `lammps_cpu NAME [HPCRUN_LITE]` runs
# "${lmp_args[@]}" on 2 MPI ranks (under HPCRUN_LITE -o $work/meas when given) and appends
# "NAME cpu_seconds" to $work/times: the user + system time of mpirun and everything it waited
# for (bench/cputime.py). Needs $root, $work and lmp_args. Sourced, not run.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
lammps_cpu() {
  local name=$1 prefix=() user sys
  rm -rf "$work/meas"
  [ $# -ge 2 ] && prefix=("$2" -o "$work/meas" --)
  python3 "$root/bench/cputime.py" "$work/cpu" mpirun -np 2 "${prefix[@]}" "${lmp_args[@]}" >/dev/null
  read -r user sys <"$work/cpu"
  echo "$name $(python3 -c "print($user + $sys)")" >>"$work/times"
}
