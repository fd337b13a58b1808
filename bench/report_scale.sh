#!/usr/bin/env bash
# The report at scale (docs/PERFORMANCE.md, "Reports of large databases"): what
# `hpcprof-lite report` costs on two synthetic databases made with bench/gen_profiles and
# merged: "1024" (1024 profiles of 4 threads x 700 paths: a ~0.7 MB database of ~167,000 tree
# nodes, the size issue 10 measured) and "1M" (256 profiles of 4 threads x 8600 paths: about a
# million tree nodes). For each: the file's size, its decoded size (bench/db_size: the heap the
# decoded Profile holds), the peak RSS and wall time of loading it alone (db_size, the floor of
# any report), and of `report` as JSON (every access path), text and text --view code; the
# median of REPS runs, the peak RSS the largest. Prints a Markdown table.
# Usage: bench/report_scale.sh [BUILD_DIR] [REPS=3]
#   BUILD_DIR (default <repo>/build) must hold bin/hpcprof-lite, bench/gen_profiles and
#   bench/db_size (configure with -DHPCL_BUILD_BENCH=ON). Databases go to
#   $HPCL_REPORT_BENCH_DIR (default /tmp/hpcl-report-bench, kept between runs: ~300 MB of
#   profiles).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/common.sh"

build=${1:-$HPCL_ROOT/build}
"$HPCL_ROOT/bench/machine.sh" "$build" >&2
reps=${2:-3}
prof=$build/bin/hpcprof-lite
gen=$build/bench/gen_profiles
size=$build/bench/db_size
for f in "$prof" "$gen" "$size" /usr/bin/time; do
  [ -x "$f" ] || { echo "report_scale.sh: $f not found (cmake -DHPCL_BUILD_BENCH=ON; cmake --build $build)" >&2; exit 1; }
done
root=${HPCL_REPORT_BENCH_DIR:-/tmp/hpcl-report-bench}
mkdir -p "$root"

# make_db NAME PROFILES PATHS_PER_THREAD: generates and merges once, kept for later runs.
make_db() {
  local name=$1 n=$2 paths=$3
  [ -s "$root/$name.hpcdb" ] && return
  rm -rf "$root/p.$name"
  "$gen" "$root/p.$name" "$n" 4 "$paths" >&2
  "$prof" merge "$root/p.$name" -o "$root/$name.hpcdb" >&2 2>/dev/null
}

# shellcheck source=bench/measure_lib.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/measure_lib.sh"

echo "| database | file | tree nodes | decoded | what | time | peak RSS | RSS / decoded |"
echo "|---|---|---|---|---|---|---|---|"
for spec in "1024 1024 700" "1M 256 8600"; do
  read -r name n paths <<<"$spec"
  make_db "$name" "$n" "$paths"
  db=$root/$name.hpcdb
  info=$("$size" "$db")
  for kv in $info; do
    case $kv in
      file_bytes=*) file=${kv#*=} ;;
      decoded_bytes=*) decoded=${kv#*=} ;;
      tree_nodes=*) nodes=${kv#*=} ;;
    esac
  done
  row() {
    local what=$1; shift
    local m
    m=$(measure "$@")
    local rss_mib=${m##*| }
    rss_mib=${rss_mib% MiB}
    awk -v name="$name" -v file="$file" -v nodes="$nodes" -v dec="$decoded" -v what="$what" -v m="$m" -v rss="$rss_mib" \
      'BEGIN { printf "| %s | %.0f KB | %d | %.1f MiB | %s | %s | %.1fx |\n", name, file / 1000, nodes, dec / 1048576, what, m, rss * 1048576 / dec }'
  }
  row "load only (db_size)" "$size" "$db"
  row "report --format json" "$prof" report "$db" --format json
  row "report (text)" "$prof" report "$db"
  row "report --view code" "$prof" report "$db" --view code
done
