#!/usr/bin/env bash
# Runs the benchmark suite of docs/PERFORMANCE.md and writes bench/results/latest.md:
#   1. workloads (bench/workloads/) timed alternately natively, under hpcrun-lite at default
#      settings and under `perf record -e cpu-clock -F 1000 -g` (and heaptrack for the
#      allocation-heavy ones): median of per-pair ratios, max RSS; `lists` is the linked list of
#      small nodes (tests/programs/heap_list.c) walked and churned, the same way;
#   2. the soft sampling rate sweep (250/500/1000/2000 Hz) on the streaming kernel;
#   3. micro-benchmarks (Google Benchmark): allocation wrappers through the real preloaded
#      runtime, runtime internals, analyzer internals;
#   4. hpcprof-lite merge of 512 to 4,096 synthetic process profiles with -j1 and -j2
#      (bench/merge_sizes.sh: wall time, profiles per second, CPU per profile, peak RSS), and
#      report generation on a 1024-profile database; bench/report_scale.sh's table (report time
#      and peak RSS against the decoded size, 1024 profiles and 1M nodes); bench/report_sites.sh's
#      (reports and the viewer's first screen on a database of 380,000 sites, most without samples).
# Usage: scripts/bench.sh [--pairs N] [--heaptrack-runs N] [--only workloads,lists,rates,micro,analyzer]
# Environment: HPCL_BENCH_BUILD_DIR (default <repo>/build-bench), BENCH_PAIRS (default 5).
# Takes about 10-15 minutes on 2 cores. Measurements are noisy when the machine is shared:
# the script prints the load average before each part and the spread of the ratios.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
hpcl_mpi_env

pairs=${BENCH_PAIRS:-5}
heaptrack_runs=3
only="workloads,lists,rates,micro,analyzer"
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs=$2; shift 2 ;;
    --heaptrack-runs) heaptrack_runs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
wants() { [[ ",$only," == *",$1,"* ]]; }

build=${HPCL_BENCH_BUILD_DIR:-$HPCL_ROOT/build-bench}
results=$HPCL_ROOT/bench/results
mkdir -p "$results"
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-bench.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
raw=$work/raw.tsv     # part workload config pair seconds max_rss_kib samples cpu_seconds
: >"$raw"

say "installing dependencies"
"$HPCL_ROOT/scripts/install-deps.sh"
say "building (Release) in $build"
if ! { cmake -S "$HPCL_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPCL_BUILD_TESTS=OFF \
         -DHPCL_BUILD_BENCH=ON && cmake --build "$build" -j "$(hpcl_jobs)"; } >"$work/build.log" 2>&1; then
  tail -30 "$work/build.log" >&2
  echo "bench.sh: the build failed" >&2
  exit 1
fi

tool=$build/bin/hpcrun-lite
prof=$build/bin/hpcprof-lite
bin=$build/bench
have_perf=0
if command -v perf >/dev/null && perf record -q -e cpu-clock -o "$work/probe.data" -- true >/dev/null 2>&1; then
  have_perf=1
fi
have_heaptrack=0
if command -v heaptrack >/dev/null; then have_heaptrack=1; fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
# Passive OpenMP barriers: on a shared 2-core machine a spinning barrier turns other processes'
# time slices into CPU time of the workload, which makes CPU-time ratios meaningless.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
run_id=0

# timed PART WORKLOAD CONFIG PAIR CMD...: runs CMD once (output discarded), appends a raw line.
# The tool's -v line "wrote ...: N threads in T trees, S samples" gives the sample count when present.
timed() {
  local part=$1 wl=$2 cfg=$3 pair=$4; shift 4
  run_id=$((run_id + 1))
  local log=$work/run.$run_id.log rss=$work/run.$run_id.rss
  local t0 t1
  t0=$(date +%s%N)
  if ! /usr/bin/time -f '%M %U %S' -o "$rss" "$@" >"$log.out" 2>"$log"; then
    echo "bench.sh: $wl/$cfg failed:" >&2
    tail -5 "$log" >&2
    exit 1
  fi
  t1=$(date +%s%N)
  local samples
  samples=$({ grep -ho 'trees, [0-9]* samples' "$log" || true; } | awk '{s += $2} END {print s + 0}')
  local rss_kib cpu
  read -r rss_kib cpu < <(tail -1 "$rss" | awk '{print $1, $2 + $3}')
  printf '%s\t%s\t%s\t%s\t%.4f\t%s\t%s\t%s\n' "$part" "$wl" "$cfg" "$pair" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')" "$rss_kib" "$samples" "$cpu" >>"$raw"
  rm -f "$log" "$log.out" "$rss"
}

# Fresh output directory for each measured run (the launcher refuses a used one).
outdir() { mktemp -u -d "$work/meas.XXXXXX"; }

workload_cmd() {  # prints nothing; sets the array `cmd` for workload $1
  case "$1" in
    stream) cmd=("$bin/wl_stream") ;;
    stencil) cmd=("$bin/wl_stencil") ;;
    pointer_chase) cmd=("$bin/wl_pointer_chase") ;;
    alloc_heavy) cmd=("$bin/wl_alloc_heavy") ;;
    # Its two threads on one core: against the row above, what the tool's threads pay for
    # handing cache lines to each other (a single lock of the address map once cost 5%).
    alloc_heavy_1cpu) cmd=(taskset -c 0 "$bin/wl_alloc_heavy") ;;
    list_walk) cmd=("$bin/wl_heap_list" walk) ;;
    list_churn) cmd=("$bin/wl_heap_list" churn) ;;
  esac
}

workloads=()
if wants workloads; then workloads+=(stream stencil pointer_chase alloc_heavy alloc_heavy_1cpu); fi
if wants lists; then workloads+=(list_walk list_churn); fi
if [ "${#workloads[@]}" -gt 0 ]; then
  say "workloads: $pairs alternating pairs each (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  for wl in "${workloads[@]}"; do
    workload_cmd "$wl"
    "${cmd[@]}" >/dev/null  # warm-up: page cache, first-touch of the binaries
    pin=()  # a pinned workload runs the tool and perf pinned, not just the program under them
    if [ "${cmd[0]}" = taskset ]; then pin=("${cmd[@]:0:3}"); cmd=("${cmd[@]:3}"); fi
    for ((p = 1; p <= pairs; p++)); do
      timed wl "$wl" native "$p" "${pin[@]}" "${cmd[@]}"
      timed wl "$wl" hpcrun-lite "$p" "${pin[@]}" "$tool" -v -o "$(outdir)" -- "${cmd[@]}"
      if [ "$have_perf" = 1 ]; then
        timed wl "$wl" perf "$p" "${pin[@]}" perf record -q -e cpu-clock -F 1000 -g -o "$work/perf.data" -- "${cmd[@]}"
        rm -f "$work/perf.data"
      fi
      if [[ "$wl" == alloc_heavy || "$wl" == list_churn ]] && [ "$have_heaptrack" = 1 ] &&
         [ "$p" -le "$heaptrack_runs" ]; then
        mkdir -p "$work/ht"
        timed wl "$wl" heaptrack "$p" heaptrack -o "$work/ht/run$p" "${cmd[@]}"
        rm -rf "$work/ht"
      fi
      rm -rf "$work"/meas.*
    done
    say "  $wl done"
  done
  if wants workloads && [ -x "$bin/wl_halo_mpi" ]; then
    mpi=(mpirun --oversubscribe -np 2 -x OMP_NUM_THREADS=1 -x OMP_WAIT_POLICY)
    "${mpi[@]}" "$bin/wl_halo_mpi" >/dev/null
    for ((p = 1; p <= pairs; p++)); do
      timed wl halo_mpi native "$p" "${mpi[@]}" "$bin/wl_halo_mpi"
      timed wl halo_mpi hpcrun-lite "$p" "${mpi[@]}" "$tool" -v -o "$(outdir)" -- "$bin/wl_halo_mpi"
      if [ "$have_perf" = 1 ]; then
        timed wl halo_mpi perf "$p" perf record -q -e cpu-clock -F 1000 -g -o "$work/perf.data" -- \
          "${mpi[@]}" "$bin/wl_halo_mpi"
        rm -f "$work/perf.data"
      fi
      rm -rf "$work"/meas.*
    done
    say "  halo_mpi done"
  fi
fi

if wants rates; then
  say "sampling rate sweep on the streaming kernel (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  for ((p = 1; p <= pairs; p++)); do
    timed rate stream native "$p" "$bin/wl_stream"
    for r in 250 500 1000 2000; do
      timed rate stream "soft@$r" "$p" "$tool" -v -e "soft@$r" -o "$(outdir)" -- "$bin/wl_stream"
    done
    rm -rf "$work"/meas.*
  done
fi

if wants micro; then
  say "micro-benchmarks (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  gb=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_out_format=json)
  "$bin/bm_alloc" "${gb[@]}" --benchmark_out="$work/bm_alloc.native.json" >/dev/null 2>>"$work/gbench.err"
  mkdir -p "$work/bm-out1" "$work/bm-out2"
  LD_PRELOAD=$build/lib/libhpcrun-lite.so HPCRUN_LITE_OUT=$work/bm-out1 \
    "$bin/bm_alloc" "${gb[@]}" --benchmark_out="$work/bm_alloc.tool.json" >/dev/null 2>>"$work/gbench.err"
  LD_PRELOAD=$build/lib/libhpcrun-lite.so HPCRUN_LITE_OUT=$work/bm-out2 HPCRUN_LITE_SMALL_EVERY=0 \
    "$bin/bm_alloc" "${gb[@]}" --benchmark_out="$work/bm_alloc.nosmall.json" >/dev/null 2>>"$work/gbench.err"
  "$bin/bm_runtime" "${gb[@]}" --benchmark_out="$work/bm_runtime.json" >/dev/null 2>>"$work/gbench.err"
  "$bin/bm_analyzer" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out_format=json --benchmark_out="$work/bm_analyzer.json" >/dev/null 2>>"$work/gbench.err"
fi

if wants analyzer; then
  say "analyzer: report of a 1024-profile database (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  "$bin/gen_profiles" "$work/p1024" 1024 >"$work/gen.txt"
  "$prof" merge "$work/p1024" -o "$work/db.1024.hpcdb" >/dev/null 2>&1
  for rep in 1 2 3; do
    timed report 1024 text-data "$rep" "$prof" report "$work/db.1024.hpcdb"
    timed report 1024 text-code "$rep" "$prof" report "$work/db.1024.hpcdb" --view code
    timed report 1024 json-all "$rep" "$prof" report "$work/db.1024.hpcdb" --format json --top 0
  done
  du -sb "$work/p1024" | cut -f1 >"$work/p1024.bytes"
  stat -c %s "$work/db.1024.hpcdb" >"$work/db1024.bytes"
fi

say "summarising"
"$HPCL_ROOT/bench/machine.sh" "$build" >"$work/machine.txt"
python3 "$HPCL_ROOT/bench/summarize.py" "$work" "$pairs" >"$results/latest.md"
if wants analyzer; then
  say "analyzer: merge of 512 to 4,096 profiles (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  { printf '\n## hpcprof-lite merge of synthetic process profiles (bench/merge_sizes.sh)\n\n'
    HPCL_MERGE_BENCH_DIR=$work/merge "$HPCL_ROOT/bench/merge_sizes.sh" "$build" 3
  } >>"$results/latest.md"
  say "analyzer: report of the 1024-profile and 1M-node databases (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  { printf '\n## Reports of large databases (bench/report_scale.sh)\n\n'
    HPCL_REPORT_BENCH_DIR=$work/report-scale "$HPCL_ROOT/bench/report_scale.sh" "$build" 3
  } >>"$results/latest.md"
  say "analyzer: reports of a database of many sites without samples (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  { printf '\n## Reports of a database of many sites (bench/report_sites.sh)\n\n'
    HPCL_REPORT_BENCH_DIR=$work/report-sites "$HPCL_ROOT/bench/report_sites.sh" "$build" 3
  } >>"$results/latest.md"
fi
cp "$raw" "$results/latest-raw.tsv"
cat "$results/latest.md"
say "written: $results/latest.md (raw timings: $results/latest-raw.tsv)"
