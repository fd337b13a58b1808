#!/usr/bin/env bash
# An MPI program run under the tool WITHOUT mpirun (an MPI "singleton"): no launcher put a rank
# in the environment, so the rank comes from MPI itself through the runtime's MPI_Init wrapper
# (hpcrun-lite/runtime/mpi_init_hooks.cpp). The program's output and exit status are those of
# the native run, the wrapper logged the rank Open MPI gave, and the profile says rank 0 in its
# META and in its file name. Usage: mpi_singleton.sh MPI_PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "MPI test program not built: $prog"
setup_mpi

# One round: about a second. Open MPI's singleton starts its own orted, which inherits the
# preload and writes a profile of its own; only the program's profile is checked here.
run_to native "$prog" 1
[ "$(cat native.status)" = 0 ] || skip "the MPI program does not run as a singleton here: $(cat native.err)"
run_to tool "$HPCL_RUN" -v -o meas -- "$prog" 1
for what in status out; do
  cmp -s "native.$what" "tool.$what" || { diff "native.$what" "tool.$what" >&2 || true; fail "the program's $what differs under the tool"; }
done

grep -q "MPI_Init: Open MPI says rank 0" tool.err \
  || { grep "MPI_Init" tool.err >&2 || true; fail "the MPI_Init wrapper did not log rank 0 from Open MPI"; }

exe=$(basename "$prog")
mapfile -t files < <(find meas -maxdepth 1 -name "$exe.*.hpcl" -type f)
[ "${#files[@]}" -eq 1 ] || { ls -la meas >&2; fail "expected one profile of $exe, found ${#files[@]}"; }
name=$(basename "${files[0]}")
[[ "$name" =~ ^$exe\..+\.0\.[0-9]+\.hpcl$ ]] || fail "profile name $name is not $exe.<host>.0.<pid>.hpcl"
rank=$(profile_meta "${files[0]}" rank)
[ "$rank" = 0 ] || fail "META rank of $name is '$rank', expected 0"
echo "singleton: $name, META rank $rank"
