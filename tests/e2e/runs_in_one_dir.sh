#!/usr/bin/env bash
# Two runs into one measurement directory must not merge as one run of twice the processes
# (issue 24). Under MPI the launcher cannot refuse a used directory (every rank starts at once),
# so merge tells the runs apart and keeps the latest, saying which profiles it left out:
#   1. two `mpirun -np 2 hpcrun-lite -o meas` jobs: by the run id the launcher writes (META
#      run_id, the same on both ranks of a job);
#   2. the runtime preloaded by hand with a rank in the environment and no job id (no run id):
#      two jobs of two ranks, one after the other, by the lifetimes of each rank's processes.
# Each time the database holds the 2 processes of the latest job only, and the merge's stderr and
# the report's notes say that 2 profiles of another run were left out.
# Usage: runs_in_one_dir.sh MPI_PROGRAM PROGRAM   (mpi_alloc_apis, alloc_apis)
source "$(dirname "$0")/lib.sh"
mpi_prog=$1
prog=$2
lib=$(dirname "$HPCL_RUN")/../lib/libhpcrun-lite.so

# check_latest DIR: merged into DIR.hpcdb, only the latest job's two processes.
check_latest() {
  local dir=$1
  "$HPCL_PROF" merge "$dir" -o "$dir.hpcdb" >"$dir.merge.out" 2>"$dir.merge.err" ||
    { cat "$dir.merge.err" >&2; fail "$dir: merge failed"; }
  grep -q "^merged 2 of 4 profiles .*; left out 2 of other runs$" "$dir.merge.out" ||
    { cat "$dir.merge.out" "$dir.merge.err" >&2; fail "$dir: the summary does not say that 2 profiles were left out"; }
  grep -q "the profiles come from 2 runs .*merged the latest" "$dir.merge.err" ||
    { cat "$dir.merge.err" >&2; fail "$dir: the merge did not say which run it kept"; }
  "$HPCL_PROF" report "$dir.hpcdb" --format json >"$dir.json" || fail "$dir: report failed"
  "$HPCL_PYTHON" - "$dir.json" <<'PY' || fail "$dir: the database is not the latest job alone"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
assert t["processes"] == 2 and t.get("ranks") == 2, t
assert any("more than one run" in n for n in r["notes"]), r["notes"]
PY
}

if [ -x "$mpi_prog" ] && command -v mpirun >/dev/null 2>&1; then
  setup_mpi
  for job in 1 2; do
    run_to "mpi$job" "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o mpi -- "$mpi_prog" 20
    [ "$(cat "mpi$job.status")" = 0 ] || { cat "mpi$job.err" >&2; fail "MPI job $job failed"; }
  done
  expect_profiles mpi 4
  check_latest mpi
else
  echo "NOTE: no MPI here; the MPI part was not run" >&2
fi

[ -f "$lib" ] || fail "cannot find the runtime library next to $HPCL_RUN"
for job in 1 2; do
  for rank in 0 1; do
    OMPI_COMM_WORLD_RANK=$rank HPCRUN_LITE_OUT=$PWD/byhand LD_PRELOAD=$lib "$prog" 10 \
      >"byhand$job.$rank.out" 2>&1 &
  done
  wait
done
expect_profiles byhand 4
check_latest byhand
echo "two runs in one directory: the latest merged, the other left out and named" >&2
