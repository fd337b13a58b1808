#!/usr/bin/env bash
# A Python MPI program (mpi4py + NumPy, 2 ranks) under `mpirun hpcrun-lite`: it must start (mpi4py
# reaches libmpi through an extension module loaded RTLD_LOCAL, which the runtime's MPI_Init_thread
# wrapper must find, interpose/mpi_init_hooks.cpp), print what it prints natively and exit as natively;
# each rank writes one profile whose META rank is its own, with samples, and the profiles merge.
# Usage: mpi_python.sh SCRIPT   (tests/programs/mpi_sum.py)
source "$(dirname "$0")/lib.sh"
script=$1
setup_mpi4py

run_to native "${MPIRUN[@]}" -np 2 "$PY" "$script"
[ "$(cat native.status)" = 0 ] || skip "the program does not run natively here: $(tail -5 native.err)"
run_to tool "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o meas -- "$PY" "$script"
cat tool.err >&2
[ "$(cat tool.status)" = 0 ] || fail "exit status $(cat tool.status) under the tool (native 0)"
cmp -s native.out tool.out || { diff native.out tool.out >&2 || true; fail "the program's output differs under the tool"; }

expect_rank_profiles meas "python3*" 2
merge_and_report meas db report.json
"$HPCL_PYTHON" - report.json <<'PY' || fail "the report of the Python run is empty"
import json, sys
r = json.load(open(sys.argv[1]))
samples = sum(v["metrics"].get("samples", 0) for v in r["variables"])
if samples < 100:
    sys.exit(f"FAIL: {samples} samples in variables over two ranks of 0.5 s")
print(f"mpi4py under the tool: 2 ranks, {samples} samples in variables")
PY
