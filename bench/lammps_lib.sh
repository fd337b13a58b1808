# shellcheck shell=bash disable=SC2154  # root, work and lmp_args are the sourcing script's
# Shared by startup_cost.sh, lammps_turns.sh and lammps_parts.sh. Needs $root, $work and
# lmp_args. Sourced, not run.
#   cpu_time NAME COMMAND...   runs COMMAND (its output dropped) and appends "NAME cpu_seconds"
#                              to $work/times: the user + system time of COMMAND and everything
#                              it waited for (bench/cputime.py)
#   lammps_cpu NAME [HPCRUN_LITE]
#                              cpu_time of "${lmp_args[@]}" on 2 MPI ranks, under
#                              HPCRUN_LITE -o $work/meas when given
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cpu_time() {
  local name=$1 user sys
  shift
  rm -rf "$work/meas"
  python3 "$root/bench/cputime.py" "$work/cpu" "$@" >/dev/null
  read -r user sys <"$work/cpu"
  echo "$name $(python3 -c "print($user + $sys)")" >>"$work/times"
}
lammps_cpu() {
  local name=$1 prefix=()
  [ $# -ge 2 ] && prefix=("$2" -o "$work/meas" --)
  cpu_time "$name" mpirun -np 2 "${prefix[@]}" "${lmp_args[@]}"
}
