# shellcheck shell=bash disable=SC2154  # root and lmp_args are the sourcing script's
# Shared by startup_cost.sh, lammps_turns.sh and lammps_parts.sh. Needs $root and lmp_args.
# Sourced, not run.
#   lammps_begin NAME ROUNDS FILE...
#                              stops the script (status 2) when lmp, mpirun or one of the FILEs
#                              (the builds it measures) is missing; makes $work (removed at exit),
#                              prints the machine and build lines (machine.sh) and the load
#                              average, warms the page cache with one native run
#                              and leaves $work/times empty for the rounds
#   cpu_time NAME COMMAND...   runs COMMAND (its output dropped) and appends "NAME cpu_seconds"
#                              to $work/times: the user + system time of COMMAND and everything
#                              it waited for (bench/cputime.py)
#   lammps_cpu NAME [HPCRUN_LITE]
#                              cpu_time of "${lmp_args[@]}" on 2 MPI ranks, under
#                              HPCRUN_LITE -o $work/meas when given
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
lammps_begin() {
  local name=$1 rounds=$2 c f
  shift 2
  for c in lmp mpirun; do
    command -v "$c" >/dev/null || { echo "$name.sh: $c not found" >&2; exit 2; }
  done
  for f in "$@"; do
    [ -e "$f" ] || { echo "$name.sh: $f is missing: build the project first" >&2; exit 2; }
  done
  work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-$name.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  # The machine, and each build measured (a FILE in a build's bin/)
  for f in "$@"; do
    case $f in */bin/*) "$root/bench/machine.sh" "${f%/bin/*}" >&2 ;; esac
  done
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds" >&2
  lammps_cpu warm
  : >"$work/times"
}
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
