#!/usr/bin/env bash
# What the tool costs a Python MPI program (issue 34's bound: 1.10x CPU at default settings): the
# fixed NumPy work of bench/workloads/py_fixed.py on 2 ranks, natively and under hpcrun-lite, in
# RUNS alternating pairs. Prints the median CPU time (user + system of mpirun and all it waited
# for) of each, their ratio, and the share of the samples in the profiler's own work over all
# the measured runs.
# Usage: bench/python_cost.sh [BUILD_DIR] [RUNS] [ROUNDS]   (defaults: build, 5, 100)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
"$root/bench/machine.sh" "$build" >&2
runs=${2:-5}
rounds=${3:-100}
py=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
script=$root/bench/workloads/py_fixed.py
for ((r = 0; r < runs; ++r)); do
  python3 "$root/bench/cputime.py" "$work/native.$r" mpirun -np 2 "$py" "$script" "$rounds" >/dev/null
  python3 "$root/bench/cputime.py" "$work/tool.$r" mpirun -np 2 "$build/bin/hpcrun-lite" -o "$work/meas.$r" -- \
    "$py" "$script" "$rounds" >/dev/null
done
for ((r = 0; r < runs; ++r)); do
  "$build/bin/hpcprof-lite" merge "$work/meas.$r" -o "$work/db.$r" >/dev/null 2>&1
  "$build/bin/hpcprof-lite" report "$work/db.$r" --format json >"$work/report.$r.json"
done
python3 - "$work" "$runs" <<'PY'
import json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
cpu = lambda kind: statistics.median(sum(map(float, open(f"{work}/{kind}.{r}").read().split())) for r in range(runs))
native, tool = cpu("native"), cpu("tool")
totals = [json.load(open(f"{work}/report.{r}.json"))["totals"] for r in range(runs)]
samples = sum(t["samples"] for t in totals)
own = sum(t["samples_in_runtime"] for t in totals)
print(f"python_cost: native {native:.2f} s, tool {tool:.2f} s CPU (median of {runs}): {tool / native:.3f}x")
print(f"python_cost: {samples} samples in {runs} runs, {own} in the profiler's own work ({own / samples:.2%})")
PY
