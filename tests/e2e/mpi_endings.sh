#!/usr/bin/env bash
# An MPI job of two ranks that ends badly (see tests/programs/endings.c, WAY mpi_abort or
# killed): mpirun's exit status is that of the native job, and each rank leaves a profile that
# holds its work (at least MIN_SAMPLES samples in the array made by make_work_array).
# Usage: mpi_endings.sh PROGRAM WAY MIN_SAMPLES
source "$(dirname "$0")/lib.sh"
prog=$1 way=$2 min_samples=$3
[ -x "$prog" ] || skip "$prog not built (no MPI)"
setup_mpi
ulimit -c 0
extra=()
# Open MPI sends SIGTERM, then SIGKILL once time(NULL) passes the second after next: the grace is
# anywhere from 0 to 1 s, and a rank's profile takes about 20 ms to write (17,000 call paths of
# MPI's start-up). Two seconds of grace test the writing, not that clock's phase.
[ "$way" = killed ] && { extra=(--timeout 3); export OMPI_MCA_odls_base_sigkill_timeout=2; }

run_to native "${MPIRUN[@]}" "${extra[@]}" -np 2 "$prog" "$way"
# Verbose: when a rank leaves no profile, its log says how far it got.
HPCRUN_LITE_VERBOSE=1 run_to tool "${MPIRUN[@]}" "${extra[@]}" -np 2 "$HPCL_RUN" -o meas -- "$prog" "$way"
[ "$(cat native.status)" = "$(cat tool.status)" ] ||
  fail "mpirun exited $(cat tool.status) under the tool, $(cat native.status) natively"
echo "mpirun status $(cat tool.status), as native" >&2

mapfile -t mine < <(profiles meas)
[ "${#mine[@]}" -eq 2 ] || { ls -la meas >&2; grep -v "module" tool.err >&2; fail "${#mine[@]} profiles, expected one per rank"; }
check_work_in_each "$min_samples" "${mine[@]}"
