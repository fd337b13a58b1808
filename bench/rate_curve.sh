#!/usr/bin/env bash
# The rate curve of docs/PERFORMANCE.md: overhead and share error of the soft source against its
# rate, on the ground-truth OpenMP program of the end-to-end tests (tests/programs/alloc_apis.c:
# ten equal arrays read in known proportions, 2 threads). Each pair runs it natively, then under
# hpcrun-lite -e soft@RATE for every rate in a rotated order; the program times each array itself
# (HPCL_TEST_TIMING_FILE), and the report's shares among the ten arrays are compared with those
# measured time shares as e2e.alloc_apis does (check_report.py). Prints per rate the median CPU
# ratio (user + system, all threads) against the pair's native run with its range, the median
# extra CPU per sample, and the median and worst largest share error (points).
# Usage: bench/rate_curve.sh [BUILD_DIR] [PAIRS] [RATES] [ROUNDS]
#   defaults: build 7 "250 500 1000 2000 5000" 120 (about 1.5 s of 2 threads natively)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
"$root/bench/machine.sh" "$build" >&2
pairs=${2:-7}
read -r -a rates <<<"${3:-250 500 1000 2000 5000}"
rounds=${4:-120}
prog=$build/tests/programs/alloc_apis
tool=$build/bin/hpcrun-lite
prof=$build/bin/hpcprof-lite
for f in "$prog" "$tool" "$prof"; do
  [ -x "$f" ] || { echo "rate_curve.sh: $f is missing (build the tests)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-rates.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
raw=$work/raw.tsv  # rate pair cpu samples share_error
: >"$raw"

cpu_of() { tail -1 "$1" | awk '{print $1 + $2}'; }

echo "rate_curve.sh: $pairs pairs, rates ${rates[*]}, $rounds rounds (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
"$prog" "$rounds" >/dev/null
for ((p = 1; p <= pairs; p++)); do
  python3 "$root/bench/cputime.py" "$work/t" "$prog" "$rounds" >/dev/null
  printf '0\t%s\t%s\t0\t0\n' "$p" "$(cpu_of "$work/t")" >>"$raw"
  for ((k = 0; k < ${#rates[@]}; k++)); do
    r=${rates[$(((k + p) % ${#rates[@]}))]}
    rm -rf "$work/meas" "$work/timing".* "$work/db"
    HPCL_TEST_TIMING_FILE=$work/timing python3 "$root/bench/cputime.py" "$work/t" \
      "$tool" -v -e "soft@$r" -o "$work/meas" -- "$prog" "$rounds" >/dev/null 2>"$work/err" ||
      { tail -5 "$work/err" >&2; exit 1; }
    samples=$({ grep -ho 'trees, [0-9]* samples' "$work/err" || true; } | awk '{s += $2} END {print s + 0}')
    "$prof" merge "$work/meas" -o "$work/db" >/dev/null 2>&1
    "$prof" report "$work/db" --format json --top 0 >"$work/report.json"
    err=$(python3 - "$root/tests/e2e" "$work/report.json" "$work/timing" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import check_report as c
report = json.load(open(sys.argv[2]))
spec = c.PROGRAMS["alloc_apis"]
found = [c.find(report, a, required=True) for a in spec["arrays"]]
known = sum(c.samples(v) for v in found)
truth = c.measured_time_shares(sys.argv[3], spec)
print(max(abs(c.samples(v) / known - t) for v, t in zip(found, truth)) * 100)
PY
)
    printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$p" "$(cpu_of "$work/t")" "$samples" "$err" >>"$raw"
  done
  echo "  pair $p done (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
cp "$raw" "${RATE_CURVE_RAW:-/dev/null}" 2>/dev/null || true
python3 - "$raw" <<'PY'
import statistics, sys
from collections import defaultdict
native, rows = {}, defaultdict(list)
for line in open(sys.argv[1]):
    r, p, cpu, n, err = line.split("\t")
    if r == "0":
        native[p] = float(cpu)
    else:
        rows[int(r)].append((p, float(cpu), int(n), float(err)))
print(f"native CPU s: median {statistics.median(native.values()):.2f} "
      f"({min(native.values()):.2f}-{max(native.values()):.2f}), {len(native)} pairs")
print()
print("| rate /s | CPU ratio, median (min-max) | extra CPU per sample us | samples | share error, median / worst (points) |")
print("|---|---|---|---|---|")
for r in sorted(rows):
    ratios = [cpu / native[p] for p, cpu, n, e in rows[r]]
    per = [(cpu - native[p]) / n * 1e6 for p, cpu, n, e in rows[r] if n]
    errs = [e for *_, e in rows[r]]
    print(f"| {r} | {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) | "
          f"{statistics.median(per):.1f} | {statistics.median(n for _, _, n, _ in rows[r]):.0f} | "
          f"{statistics.median(errs):.1f} / {max(errs):.1f} |")
PY
