#!/usr/bin/env bash
# A real C++ MPI application under `mpirun -np 2 hpcrun-lite`: LAMMPS (Debian's `lmp`, Open MPI
# build) on a short Lennard-Jones melt (tests/e2e/data/lj_melt.lmp, 12^3 cells = 6,912 atoms,
# 300 steps: about 2 s natively on 2 idle cores). The team's acceptance check:
#   - the run completes with the native run's exit status, stderr and thermo table (the thermo
#     lines are deterministic for the fixed seed and rank count; timings are not compared);
#   - two profiles, named and META-tagged rank 0 and rank 1;
#   - at least half of the data samples are in heap variables (kind "heap", computed by
#     bench/cases/summarize.py from the JSON report);
#   - the text table at 120 columns names the five hottest heap variables apart, and its hottest
#     accesses as far apart as the JSON does (check_table.py);
#   - the hottest heap variable's allocation path reaches LAMMPS's own allocator,
#     LAMMPS_NS::Memory::smalloc or ::srealloc (named from liblammps.so.0's dynamic symbols:
#     Debian's library is stripped).
# On failure the rows behind the figure are printed, with LAMMPS's own time breakdown of the
# native run (on a machine busy with other work the ranks wait for each other in MPI, and MPI's
# polling of its shared-memory segment takes the samples instead of LAMMPS's arrays).
# Exits 77 when lmp or mpirun is missing (scripts/install-deps.sh installs both).
# Usage: mpi_lammps.sh SOURCE_DIR
source "$(dirname "$0")/lib.sh"
src=$1
command -v lmp >/dev/null 2>&1 || skip "lmp not found (Debian package lammps)"
setup_mpi
# LAMMPS would otherwise start OMP_NUM_THREADS=2 (lib.sh) threads it does not use here.
export OMP_NUM_THREADS=1
deck=(-in "$src/tests/e2e/data/lj_melt.lmp" -var cells 12 -var steps 300 -log none)

run_to native "${MPIRUN[@]}" -np 2 lmp "${deck[@]}"
[ "$(cat native.status)" = 0 ] || skip "lmp does not run here: $(tail -5 native.err)"
run_to tool "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o meas -- lmp "${deck[@]}"

# The heap share is judged only when both runs had their two cores: LAMMPS's "CPU use" line
# (process CPU time over wall time; a rank waiting in MPI spins, so an unloaded run reads about
# 100%). On a machine busy with other work the ranks run by turns, each one's waiting shows as
# MPI polling of its shared-memory segment, and that is what gets the samples (33% CPU use gave
# 38% heap, 60% MPI state: docs/CASES.md). When such a run misses 50% the test is skipped,
# saying so, after every other check passed.
cpu_use() { sed -n 's/^ *\([0-9.]*\)% CPU use with.*/\1/p' "$1" | head -1; }
for run in native tool; do
  use=$(cpu_use "$run.out")
  [ -n "$use" ] || fail "no 'CPU use' line in the $run output"
  if awk -v u="$use" 'BEGIN { exit !(u < 70) }'; then
    busy="${busy:-}$run run ${use}% CPU use; "
  fi
done

thermo() { sed -n '/^ *Step /,/^Loop time/p' "$1" | grep -v '^Loop time'; }
thermo native.out >native.thermo
thermo tool.out >tool.thermo
[ -s native.thermo ] || fail "no thermo table in the native output"
for what in status err thermo; do
  if ! cmp -s "native.$what" "tool.$what"; then
    diff "native.$what" "tool.$what" >&2 || true
    fail "LAMMPS's $what differs under the tool"
  fi
done

expect_rank_profiles meas "lmp" 2

merge_and_report meas lammps.hpcdb report.json
"$HPCL_PROF" report lammps.hpcdb --top 12 --wide >report.txt || fail "text report failed"
# The table as a 120-column terminal gets it (issue 24): the five hottest heap rows have five
# names, and no hottest-access cell is shared by rows whose JSON differs.
COLUMNS=120 "$HPCL_PROF" report lammps.hpcdb --top 20 >table120.txt || fail "text report failed"
"$HPCL_PROF" report lammps.hpcdb --top 20 --format json >table.json || fail "JSON report failed"
"$HPCL_PYTHON" "$E2E_DIR/check_table.py" cells table120.txt table.json --column variable --field name \
  --kind heap --rows 5 --width 120 || fail "the 120-column table names two of the hottest heap variables alike"
"$HPCL_PYTHON" "$E2E_DIR/check_table.py" cells table120.txt table.json --column "hottest access" \
  --field hottest_access || fail "the 120-column table shows two different hottest accesses alike"
status=0
"$HPCL_PYTHON" - report.json "$src/bench/cases" native.out "${busy:-}" <<'PY' || status=$?
import json, re, sys
sys.path.insert(0, sys.argv[2])
from summarize import figures

report = json.load(open(sys.argv[1]))
totals = report["totals"]
fig = figures(report)
cats = fig["categories_of_data"]
heap = cats.get("heap", {"samples": 0, "of_data": 0.0})
variables = report["variables"]
heap_vars = [v for v in variables if v.get("kind") == "heap"]
problems = []
if totals.get("processes") != 2 or totals.get("ranks") != 2:
    problems.append(f"{totals.get('processes')} processes, {totals.get('ranks')} ranks; expected 2 and 2")
busy = sys.argv[4]
heap_low = heap["of_data"] < 0.5
if heap_low and not busy:
    problems.append(f"heap variables hold {heap['samples']} of {fig['data_samples']} data samples "
                    f"({heap['of_data']:.1%}), under 50%")
wrapper = re.compile(r"^LAMMPS_NS::Memory::s(m|re)alloc\(")
if not heap_vars:
    problems.append("no heap variable")
else:
    hot = heap_vars[0]
    path = [f.get("function", "") for f in hot.get("allocation_path") or []]
    if not any(wrapper.match(f) for f in path):
        problems.append(f"the hottest heap variable {hot['name']!r} has no LAMMPS_NS::Memory::smalloc/"
                        f"srealloc in its allocation path: {path}")
print(f"data samples {fig['data_samples']} of {fig['samples']}; by kind: " +
      ", ".join(f"{k} {c['samples']} ({c['of_data']:.1%})" for k, c in cats.items()))
print(f"MPI code took {fig['mpi_code_samples']} data samples ({fig['mpi_code_of_data']:.1%})")
if heap_vars:
    print(f"hottest heap variable: {heap_vars[0]['name']} ({heap_vars[0]['metrics']['samples']} samples), "
          f"allocated through " + " <- ".join(f["function"] for f in heap_vars[0]["allocation_path"][:3]))
if problems or heap_low:
    print("rows by samples (kind, samples, share of data samples):", file=sys.stderr)
    data = fig["data_samples"] or 1
    for v in variables[:10]:
        s = v["metrics"]["samples"]
        print(f"  {v['kind']:8} {s:6} {s / data:6.1%}  {v['name']}", file=sys.stderr)
    breakdown = [l.rstrip() for l in open(sys.argv[3]) if re.match(r"^(Pair|Neigh|Comm|Modify) +\|", l)
                 or "CPU use" in l]
    print("LAMMPS's native time breakdown:\n  " + "\n  ".join(breakdown), file=sys.stderr)
for p in problems:
    print("FAIL: " + p, file=sys.stderr)
sys.exit(1 if problems else 77 if heap_low else 0)
PY
if [ "$status" = 77 ]; then
  skip "the machine is busy (${busy}under 70%: the ranks did not run side by side) and heap variables hold under 50% of the data samples: the share measures the load, not the tool; every other check passed"
fi
[ "$status" = 0 ] || { sed -n '/^ *# /,$p' report.txt >&2; fail "acceptance check failed"; }
echo "mpi_lammps: passed"
