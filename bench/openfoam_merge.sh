#!/usr/bin/env bash
# How long does merging two real profiles of a big C++ code take? Measures OpenFOAM's simpleFoam
# on its pitzDaily tutorial (Debian's openfoam and openfoam-examples; default settings, 285 SIMPLE
# iterations) on 2 ranks under hpcrun-lite once, then merges the two profiles ROUNDS times and
# prints each merge's wall and CPU time (user + system), the median, and whether the median wall
# time is within TARGET seconds (issue 35: 5 s). The first merge reads OpenFOAM's 60-odd
# libraries cold from disk; the median is the warm figure a user who merges again sees.
# Exits 1 when the median is over the target, 77 when OpenFOAM or mpirun is missing.
# Usage: bench/openfoam_merge.sh BUILD_DIR [ROUNDS=5] [TARGET=5]
set -euo pipefail
build=$(cd "${1:?usage: bench/openfoam_merge.sh BUILD_DIR [ROUNDS=5] [TARGET=5]}" && pwd)
rounds=${2:-5}
target=${3:-5}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/bench/machine.sh" "$build" >&2
command -v /usr/bin/time >/dev/null 2>&1 || { echo "openfoam_merge.sh: /usr/bin/time not found" >&2; exit 77; }
# shellcheck source=bench/openfoam_lib.sh disable=SC1091
source "$root/bench/openfoam_lib.sh"
openfoam_case openfoam_merge 0
(cd "$work/case" && mpirun -np 2 "$build/bin/hpcrun-lite" -o "$work/meas" -- simpleFoam -parallel >/dev/null)
echo "profiles: $(ls "$work/meas" | tr '\n' ' ')"
: >"$work/times"
for ((r = 1; r <= rounds; r++)); do
  rm -rf "$work/db"
  /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$build/bin/hpcprof-lite" merge "$work/meas" -o "$work/db" >/dev/null 2>&1
  read -r wall user sys rss <"$work/t"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  echo "merge $r: ${wall} s wall, ${cpu} s CPU, $((rss / 1024)) MiB peak"
  echo "$wall" >>"$work/times"
done
median=$(sort -n "$work/times" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
if awk -v m="$median" -v t="$target" 'BEGIN { exit !(m <= t) }'; then
  echo "median merge: ${median} s wall (target ${target} s): within"
else
  echo "median merge: ${median} s wall (target ${target} s): OVER"
  exit 1
fi
