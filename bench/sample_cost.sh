#!/usr/bin/env bash
# Splits the CPU cost of one sample of the soft source (docs/PERFORMANCE.md, "The cost of one
# sample"). The workload is bench/workloads/stream.c (OpenMP triad over three 64 MiB arrays),
# run with 1 and 2 threads; for each rate, each round runs it natively once and then under:
#   bare-timer     bench/bare_sampler.so, BARE_MODE=timer: the runtime's perf task-clock event,
#                  no signal (the timer's own price);
#   bare-signal    + F_SETSIG signal per sample, empty handler;
#   bare-syscalls  + the two system calls the runtime makes in every handler (the next period's
#                  ioctl, rt_sigtimedwait for overruns);
#   rt-idle        hpcrun-lite at 1 sample/s: the runtime's fixed cost (start-up, allocation
#                  tracking, writing the profile), subtracted from the rt-* rows below;
#   rt-entry       hpcrun-lite with HPCRUN_LITE_TEST_HANDLER_STAGE=entry: the real handler,
#                  returning before record_sample (period ioctl, overrun check, page-fault ring);
#   rt-decode      ... after the decoder (resolve_sample: cache hit, or a miss's decoding);
#   rt-classify    ... after classification (address map, statics, stacks, TLS);
#   rt-unwind      ... after unwinding (capture_sample_path);
#   rt-full        the real runtime at default settings (the tree, the estimate, the watch);
#   bare-ring      the shim with no signal: each sample a ring-buffer record with the user
#                  registers, drained by a reader thread (the signal-free path's kernel price);
#   bare-ringstack the same plus a 2 KiB copy of the user stack per record (BARE_STACK).
# CPU time is user + system of all threads (bench/cputime.py: wait4, microseconds). Extra CPU per sample of a config in
# a round = (its CPU - that round's native CPU [- rt-idle's extra for rt-*]) / its samples
# (counted by the runtime / the shim; the timer mode's are CPU x rate). The table gives the
# median over rounds and the median overhead (CPU / native - 1).
# Usage: bench/sample_cost.sh [BUILD_DIR] [ROUNDS] [RATES] [THREADS]
#   defaults: build 5 "300 1000 5000" "1 2". Environment: STREAM_ARGS (default "8 120"),
#   CONFIGS (which configurations, default all of the above).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
"$root/bench/machine.sh" "$build" >&2
rounds=${2:-5}
rates=${3:-300 1000 5000}
threads=${4:-1 2}
read -r -a wl_args <<<"${STREAM_ARGS:-8 120}"
wl=$build/bench/wl_stream
shim=$build/bench/bare_sampler.so
tool=$build/bin/hpcrun-lite
for f in "$wl" "$shim" "$tool"; do
  [ -e "$f" ] || { echo "sample_cost.sh: $f is missing (build the bench targets)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-cost.XXXXXX")
trap 'rm -rf "$work"' EXIT
raw=$work/raw.tsv  # threads rate config round cpu_s samples
: >"$raw"
export OMP_WAIT_POLICY=passive

# run THREADS RATE CONFIG ROUND CMD...: runs CMD, appends a raw line.
run() {
  local t=$1 r=$2 cfg=$3 round=$4; shift 4
  if ! python3 "$root/bench/cputime.py" "$work/time" "$@" >/dev/null 2>"$work/err"; then
    echo "sample_cost.sh: $cfg at $r/s failed:" >&2
    tail -5 "$work/err" >&2
    exit 1
  fi
  local cpu samples
  cpu=$(tail -1 "$work/time" | awk '{print $1 + $2}')
  samples=$({ grep -ho 'trees, [0-9]* samples\|/s [0-9]* samples' "$work/err" || true; } |
            awk '{s += $2} END {print s + 0}')
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$r" "$cfg" "$round" "$cpu" "$samples" >>"$raw"
  rm -rf "$work/out"
}

read -r -a configs <<<"${CONFIGS:-bare-timer bare-signal bare-syscalls rt-entry rt-decode rt-classify rt-unwind rt-full bare-ring bare-ringstack}"
echo "sample_cost.sh: $rounds rounds, rates $rates, threads $threads (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
for t in $threads; do
  export OMP_NUM_THREADS=$t
  "$wl" "${wl_args[@]}" >/dev/null  # warm-up
  for ((p = 1; p <= rounds; p++)); do
    run "$t" 0 native "$p" "$wl" "${wl_args[@]}"
    run "$t" 0 rt-idle "$p" "$tool" -v -e soft@1 -o "$work/out" -- "$wl" "${wl_args[@]}"
    for r in $rates; do
      run "$t" "$r" native "$p" "$wl" "${wl_args[@]}"
      # A different order each round, so no configuration always follows the same one.
      for ((k = 0; k < ${#configs[@]}; k++)); do
        cfg=${configs[$(((k + p) % ${#configs[@]}))]}
        case "$cfg" in
          bare-*) run "$t" "$r" "$cfg" "$p" env LD_PRELOAD="$shim" BARE_RATE="$r" BARE_MODE="${cfg#bare-}" \
                    "$wl" "${wl_args[@]}" ;;
          rt-full) run "$t" "$r" "$cfg" "$p" "$tool" -v -e "soft@$r" -o "$work/out" -- "$wl" "${wl_args[@]}" ;;
          rt-*) run "$t" "$r" "$cfg" "$p" env HPCRUN_LITE_TEST_HANDLER_STAGE="${cfg#rt-}" \
                  "$tool" -v -e "soft@$r" -o "$work/out" -- "$wl" "${wl_args[@]}" ;;
        esac
      done
    done
  done
  echo "  $t thread(s) done (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
cp "$raw" "${SAMPLE_COST_RAW:-/dev/null}" 2>/dev/null || true
python3 "$root/bench/sample_cost.py" "$raw"
