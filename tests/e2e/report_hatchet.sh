#!/usr/bin/env bash
# `report --format hatchet` on a real MPI+OpenMP run (issue 39): 2 ranks x 2 threads of
# mpi_imbalance, whose `skewed` array rank 1 reads twice as often as rank 0. Merged with
# --per-rank, the export is Hatchet's JSON indexed by node and rank (check_hatchet.py reads it
# with pandas as Hatchet's reader does): its roots are the JSON report's rows with their samples,
# each variable's split over the ranks is the report's balance, and skewed's rank-1 fraction is
# the fraction of its kernel time measured there, within what its sample count allows. Merged
# without the option, the export is indexed by node alone and says why. --no-group and --top
# change the roots as they change the report's rows; --view code is a usage error.
# Usage: report_hatchet.sh PROGRAM [ROUNDS]
source "$(dirname "$0")/lib.sh"
setup_mpi
prog=$1
rounds=${2:-400}
[ -x "$prog" ] || skip "mpi_imbalance was not built (no MPI?): $prog"
# Debian's interpreter, for which python3-pandas is installed (pyenv's python3 may lack it).
PANDAS_PY=/usr/bin/python3
"$PANDAS_PY" -c "import pandas" ||
  fail "pandas is not importable by $PANDAS_PY (scripts/install-deps.sh installs python3-pandas)"

HPCL_TEST_TIMING_FILE=$PWD/timing run_to tool "${MPIRUN[@]}" -np 2 \
  "$HPCL_RUN" -e soft@4000 -o meas -- "$prog" "$rounds"
cat tool.err >&2
[ "$(cat tool.status)" = 0 ] || fail "the program failed under the tool (status $(cat tool.status))"
expect_profiles meas 2

step "$HPCL_PROF merge meas -o ranks.hpcdb --per-rank -j 2"
"$HPCL_PROF" merge meas -o ranks.hpcdb --per-rank -j 2 || fail "merge --per-rank failed"
"$HPCL_PROF" report ranks.hpcdb --format json --top 0 >report.json || fail "report --format json failed"
step "$HPCL_PROF report ranks.hpcdb --format hatchet > hatchet.json"
"$HPCL_PROF" report ranks.hpcdb --format hatchet >hatchet.json 2>hatchet.err ||
  fail "report --format hatchet failed: $(cat hatchet.err)"
[ ! -s hatchet.err ] || fail "report --format hatchet of a --per-rank database said: $(cat hatchet.err)"
step "check_hatchet.py hatchet.json report.json --ranks 2 --timing timing"
"$PANDAS_PY" "$E2E_DIR/check_hatchet.py" hatchet.json report.json --ranks 2 --timing timing ||
  fail "the Hatchet export does not match the report"

# Without --per-rank: a row per node, and a note that names the database and the option.
"$HPCL_PROF" merge meas -o plain.hpcdb >/dev/null || fail "merge failed"
echo "database sizes: $(stat -c %s plain.hpcdb) bytes, $(stat -c %s ranks.hpcdb) with --per-rank" >&2
"$HPCL_PROF" report plain.hpcdb --format json --top 0 >plain_report.json || fail "report of plain.hpcdb failed"
"$HPCL_PROF" report plain.hpcdb --format hatchet >plain.json 2>plain.err || fail "hatchet of plain.hpcdb failed"
grep -q "plain.hpcdb has no values per rank (merge it with --per-rank)" plain.err ||
  fail "no note on a database without values per rank: $(cat plain.err)"
"$PANDAS_PY" "$E2E_DIR/check_hatchet.py" plain.json plain_report.json ||
  fail "the export of a database without values per rank does not match its report"

# --no-group and --top as the report: the same roots as the report's rows.
"$HPCL_PROF" report ranks.hpcdb --format hatchet --no-group >apart.json || fail "hatchet --no-group failed"
"$HPCL_PROF" report ranks.hpcdb --format json --top 0 --no-group >apart_report.json || fail "json --no-group failed"
"$PANDAS_PY" "$E2E_DIR/check_hatchet.py" apart.json apart_report.json --ranks 2 ||
  fail "--no-group: the export's roots are not the report's rows"
"$HPCL_PROF" report ranks.hpcdb --format hatchet --top 1 >top.json || fail "hatchet --top 1 failed"
"$HPCL_PYTHON" - top.json <<'PY' || fail "--top 1 did not keep the hottest variable alone"
import json, sys
doc = json.load(open(sys.argv[1]))
graph = doc["graph"][0]
children = {c for v in graph.values() for c in v["children"]}
roots = sorted(v["data"]["name"] for k, v in graph.items() if int(k) not in children)
assert len(roots) == 2 and "[no data]" in roots and any(r.startswith("alloc_wide") for r in roots), roots
PY

set +e
"$HPCL_PROF" report ranks.hpcdb --format hatchet --view code >code.out 2>code.err
rc=$?
set -e
[ "$rc" = 2 ] || fail "--format hatchet --view code exited $rc, not 2"
grep -q "data view" code.err || fail "--format hatchet --view code: $(cat code.err)"
