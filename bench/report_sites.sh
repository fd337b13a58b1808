#!/usr/bin/env bash
# What a report costs on a database of many allocation sites that took no sample (issue 23):
# bench/gen_sites_db writes one shaped like CP2K's (290,000 sites without samples, 91,000
# sampled small sites, 1,200 sampled variables; paths 12-28 frames deep in a stripped program).
# For `report --top 10` as text, JSON and CSV, `report --format json --top 0`, `--view code`,
# and the viewer's first screen (bench/viewer_bench): the median wall time of REPS runs and the
# largest peak RSS. Targets (issue 23, on CP2K's database): report --top 10 at most 2 s, 400 MB.
# Prints a Markdown table.
# Usage: bench/report_sites.sh [BUILD_DIR] [REPS=3]
#   BUILD_DIR (default <repo>/build) must hold bin/hpcprof-lite, bench/gen_sites_db and
#   bench/viewer_bench (-DHPCL_BUILD_BENCH=ON). HPCL_PROF=another hpcprof-lite measures that
#   one (the numbers before a change) on the same database, in $HPCL_REPORT_BENCH_DIR
#   (default /tmp/hpcl-report-bench).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/common.sh"

build=${1:-$HPCL_ROOT/build}
"$HPCL_ROOT/bench/machine.sh" "$build" >&2
reps=${2:-3}
prof=${HPCL_PROF:-$build/bin/hpcprof-lite}
gen=$build/bench/gen_sites_db
viewer=${HPCL_VIEWER_BENCH:-$build/bench/viewer_bench}
for f in "$prof" "$gen" "$viewer" /usr/bin/time; do
  [ -x "$f" ] || { echo "report_sites.sh: $f not found (cmake -DHPCL_BUILD_BENCH=ON; cmake --build $build)" >&2; exit 1; }
done
root=${HPCL_REPORT_BENCH_DIR:-/tmp/hpcl-report-bench}
mkdir -p "$root"
db=$root/sites.hpcdb
# Written again when gen_sites_db is another build (its checksum beside the database), so the
# reports read what today's writer makes.
stamp=$(cksum <"$gen")
[ "$(cat "$root/generator" 2>/dev/null)" = "$stamp" ] || rm -f "$db"
[ -s "$db" ] || { "$gen" "$db" >&2 && echo "$stamp" >"$root/generator"; }

# shellcheck source=bench/measure_lib.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/measure_lib.sh"

echo "database: $db ($(stat -c %s "$db") bytes)"
echo "| what | time | peak RSS |"
echo "|---|---|---|"
echo "| report --top 10 | $(measure "$prof" report "$db" --top 10) |"
echo "| report --format json --top 10 | $(measure "$prof" report "$db" --format json --top 10) |"
echo "| report --format csv --top 10 | $(measure "$prof" report "$db" --format csv --top 10) |"
echo "| report --format json --top 0 | $(measure "$prof" report "$db" --format json --top 0) |"
echo "| report --view code --top 10 | $(measure "$prof" report "$db" --view code --top 10) |"
echo "| viewer first screen (viewer_bench) | $(measure "$viewer" "$db") |"
