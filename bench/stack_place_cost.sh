#!/usr/bin/env bash
# The cost of placing stack samples in their frames (issue 38): tests/programs/stack_locals (99%
# of its samples on stack arrays: three functions' locals and an OpenMP region's privates) at
# 4,000 samples a second, under two builds' hpcrun-lite in turns (A, B, A, B, ...), ROUNDS
# rounds. Prints each build's median CPU time (user + system, bench/cputime.py) and samples, and
# the median per-round difference per sample: with A a build before the placement and B one with
# it, the added CPU of one stack sample (the walk to its owner and the two tree nodes).
# Usage: bench/stack_place_cost.sh BUILD_A BUILD_B [ROUNDS]   (ROUNDS: 7)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 2 ] || { sed -n '2,8p' "$0" >&2; exit 2; }
builds=("$1" "$2")
for b in "${builds[@]}"; do "$root/bench/machine.sh" "$b" >&2; done
rounds=${3:-7}
prog=$2/tests/programs/stack_locals
[ -x "$prog" ] || { echo "stack_place_cost.sh: $prog is missing: build the project first" >&2; exit 2; }
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-stack-place.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds" >&2
for ((r = 0; r < rounds; ++r)); do
  for i in 0 1; do
    rm -rf "$work/meas"
    python3 "$root/bench/cputime.py" "$work/cpu" "${builds[$i]}/bin/hpcrun-lite" -e soft@4000 \
      -o "$work/meas" -- "$prog" 3500 >/dev/null
    "${builds[1]}/bin/hpcprof-lite" merge "$work/meas" -o "$work/db" >/dev/null 2>&1
    samples=$("${builds[1]}/bin/hpcprof-lite" report "$work/db" --format json |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["totals"]["samples"])')
    echo "$i $(awk '{print $1 + $2}' "$work/cpu") $samples" >>"$work/times"
  done
done
python3 - "$work/times" "${builds[@]}" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
cpu = {0: [], 1: []}
samples = {0: [], 1: []}
for i, c, s in rows:
    cpu[int(i)].append(float(c))
    samples[int(i)].append(int(s))
for i, build in enumerate(sys.argv[2:]):
    print(f"{build}: CPU median {statistics.median(cpu[i]):.3f} s, samples median {statistics.median(samples[i]):.0f}")
per = [(b - a) / s * 1e6 for a, b, s in zip(cpu[0], cpu[1], samples[1])]
print(f"B - A per sample of B: median {statistics.median(per):.2f} us  {[round(x, 2) for x in per]}")
PY
