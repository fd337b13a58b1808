#!/usr/bin/env bash
# An MPI program run under the tool WITHOUT mpirun (an MPI "singleton"): no launcher put a rank
# in the environment, so the rank comes from MPI itself through the runtime's MPI_Init wrapper
# (hpcrun-lite/runtime/interpose/mpi_init_hooks.cpp). The program's output and exit status are those of
# the native run, the wrapper the program calls logged the rank Open MPI gave, and the profile
# says rank 0 in its META and in its file name.
# Usage: mpi_singleton.sh WRAPPER MPI_PROGRAM [ARGS...]   (WRAPPER: MPI_Init, mpi_init_thread...)
source "$(dirname "$0")/lib.sh"
wrapper=$1
prog=$2
shift 2
[ -x "$prog" ] || skip "MPI test program not built: $prog"
setup_mpi

# About a second each. Open MPI's singleton starts its own orted, which inherits the preload;
# the runtime stays inert in launcher daemons, so the program's profile is the only one.
run_to native "$prog" "$@"
[ "$(cat native.status)" = 0 ] || skip "the MPI program does not run as a singleton here: $(cat native.err)"
run_to tool "$HPCL_RUN" -v -o meas -- "$prog" "$@"
for what in status out; do
  cmp -s "native.$what" "tool.$what" || { diff "native.$what" "tool.$what" >&2 || true; fail "the program's $what differs under the tool"; }
done

grep -q "^hpcrun-lite: $wrapper: Open MPI says rank 0 " tool.err \
  || { grep -i "mpi_init" tool.err >&2 || true; fail "the $wrapper wrapper did not log rank 0 from Open MPI"; }

exe=$(basename "$prog")
n_all=$(profiles meas | wc -l)
[ "$n_all" -eq 1 ] || { ls -la meas >&2; fail "$n_all profiles: a launcher daemon (orted) was measured"; }
mapfile -t files < <(find meas -maxdepth 1 -name "$exe.*.hpcl" -type f)
[ "${#files[@]}" -eq 1 ] || { ls -la meas >&2; fail "expected one profile of $exe, found ${#files[@]}"; }
name=$(basename "${files[0]}")
[[ "$name" =~ ^$exe\..+\.0\.[0-9]+\.hpcl$ ]] || fail "profile name $name is not $exe.<host>.0.<pid>.hpcl"
rank=$(profile_meta "${files[0]}" rank)
[ "$rank" = 0 ] || fail "META rank of $name is '$rank', expected 0"
echo "singleton: $name, META rank $rank"

# Inside MPI_Init the runtime tracks small blocks one in 64 (interpose/alloc_track.h): every site of
# MPI's initialisation with blocks under 4 KiB is sampled, none tracked block by block (Open MPI
# makes ~29,000 of them; tracking each was most of a rank's start-up cost).
"$HPCL_PROF" merge meas -o db.hpcdb >/dev/null 2>merge.err || { cat merge.err >&2; fail "merge failed"; }
"$HPCL_PROF" report db.hpcdb --no-group --all --top 0 --format json >all.json || fail "report failed"
"$HPCL_PYTHON" - all.json <<'PY' || fail "small blocks of MPI_Init were tracked one by one"
import json, sys
heap = [v for v in json.load(open(sys.argv[1]))["variables"] if v["kind"] == "heap"]
entry = {"MPI_Init", "PMPI_Init", "MPI_Init_thread", "PMPI_Init_thread", "ompi_mpi_init"}
init = [v for v in heap if any(f.get("function") in entry for f in v["allocation_path"])]
small = [v for v in init if v["bytes"] < 4096 * max(v["allocations"], 1)]
whole = [v["name"] for v in small if not v["sampled"]]
print(f"MPI_Init: {len(init)} sites, {len(small)} of small blocks, {len(whole)} of them not sampled")
assert small, "no site of MPI_Init's small blocks"
assert not whole, whole[:5]
PY
