#!/usr/bin/env bash
# Is the merge slower than it was? Runs the hpcprof-lite of BUILD_DIR and a reference
# hpcprof-lite (another build: the commit before a change, or main) in turns on the same N
# synthetic profiles, `merge -j1`, ROUNDS rounds, and compares the median CPU time (user +
# system). CPU time in turns, not wall time at different hours: on the project's shared 2-vCPU
# machines, wall times of one build moved 2x between runs and a loaded machine added 40% of CPU
# time to a merge, which is how a merge that had grown 12% slower in code was measured as three
# times slower (docs/PERFORMANCE.md, "Merge"). Also checks that both write the same database.
# Prints one line per build and the ratio; exits 1 when BUILD_DIR's median exceeds the
# reference's by more than TOLERANCE (default 0.10).
# Usage: bench/merge_regress.sh BUILD_DIR REFERENCE_HPCPROF_LITE [N=1024] [ROUNDS=5] [TOLERANCE=0.10]
#   To build a reference of commit C: git worktree add /tmp/ref C && cmake -S /tmp/ref -B
#   /tmp/ref/build && cmake --build /tmp/ref/build --target hpcprof-lite.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/common.sh"
# shellcheck source=bench/merge_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/merge_lib.sh"

[ $# -ge 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
build=$1
"$HPCL_ROOT/bench/machine.sh" "$build" >&2
reference=$2
n=${3:-1024}
rounds=${4:-5}
tolerance=${5:-0.10}
current=$build/bin/hpcprof-lite
gen=$build/bench/gen_profiles
for f in "$current" "$reference" "$gen" /usr/bin/time; do
  [ -x "$f" ] || { echo "merge_regress.sh: $f not found" >&2; exit 1; }
done
root=${HPCL_MERGE_BENCH_DIR:-/tmp/hpcl-merge-bench}
dir=$(merge_profiles "$root" "$gen" "$n")
out=$root/regress
mkdir -p "$out"
say "merge -j1 of $n profiles, $rounds rounds in turns; load: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$out/cpu.current"
: >"$out/cpu.reference"
for ((r = 0; r < rounds; r++)); do
  for which in current reference; do
    bin=$current
    [ "$which" = reference ] && bin=$reference
    read -r _ cpu _ < <(timed "$out/$which" "$bin" merge "$dir" -o "$out/$which.hpcdb" -j 1)
    echo "$cpu" >>"$out/cpu.$which"
  done
done
cmp -s "$out/current.hpcdb" "$out/reference.hpcdb" || say "the two builds write different databases"
c=$(median <"$out/cpu.current")
ref=$(median <"$out/cpu.reference")
awk -v c="$c" -v r="$ref" -v n="$n" -v t="$tolerance" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "current:   %.2f s CPU, %.3f ms per profile\n", c, 1000 * c / n
  printf "reference: %.2f s CPU, %.3f ms per profile\n", r, 1000 * r / n
  printf "ratio %.3f (tolerance %.2f); load average at the end: %s\n", c / r, t, load
  exit (c / r > 1 + t) ? 1 : 0
}'
