#!/usr/bin/env bash
# Merge scaling of hpcprof-lite and hpcprof-lite-mpi (docs/PERFORMANCE.md, "Merge"): N synthetic
# process profiles (bench/gen_profiles: 4 threads, 21,402 tree nodes, ~97 KB each, shared code
# and variables, per-rank load biases), merged by `hpcprof-lite merge` (-j1, -j2) and by
# `mpirun -np P hpcprof-lite-mpi -j T` for P, T in {1, 2}. Open MPI binds each of up to 2 ranks
# to one core, where a rank's second thread would take turns with its first: configurations with
# T = 2 run with --bind-to none, those with T = 1 under the launcher's default binding (as a user
# who types `mpirun -np P hpcprof-lite-mpi DIR -o DB` gets them). Per configuration: median wall
# time of REPS runs and profiles per second, the CPU time (user + system) of all merging
# processes in that run, and the peak RSS of each merging process (/usr/bin/time around each
# rank; the largest over the runs). Every database is compared with merge -j1's (cmp). Prints a
# Markdown table. The CPU time is the work done; on a shared machine the wall time is not.
# Usage: bench/merge_scaling.sh [BUILD_DIR] [N=4096] [REPS=3]
#   BUILD_DIR (default <repo>/build) must hold bin/hpcprof-lite, bin/hpcprof-lite-mpi and
#   bench/gen_profiles. Profiles go to $HPCL_MERGE_BENCH_DIR (default /tmp/hpcl-merge-bench,
#   kept between runs: ~400 MB for 4096).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/common.sh"
# shellcheck source=bench/merge_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/merge_lib.sh"
hpcl_mpi_env

build=${1:-$HPCL_ROOT/build}
"$HPCL_ROOT/bench/machine.sh" "$build" >&2
n=${2:-4096}
reps=${3:-3}
prof=$build/bin/hpcprof-lite
mpi_prof=$build/bin/hpcprof-lite-mpi
gen=$build/bench/gen_profiles
for f in "$prof" "$mpi_prof" "$gen" /usr/bin/time; do
  [ -x "$f" ] || { echo "merge_scaling.sh: $f not found (cmake --build $build)" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "merge_scaling.sh: mpirun not found" >&2; exit 1; }

root=${HPCL_MERGE_BENCH_DIR:-/tmp/hpcl-merge-bench}
profiles=$(merge_profiles "$root" "$gen" "$n")
out=$root/out
mkdir -p "$out"
say "$n profiles, $(du -sm "$profiles" | cut -f1) MiB; load: $(cut -d' ' -f1-3 /proc/loadavg)"

# run NAME P T: one merge (P = 0: hpcprof-lite merge), each merging process under /usr/bin/time
# writing "max_rss_kib cpu_seconds" into $out/NAME.rss.<rank>; prints the wall seconds.
run() {
  local name=$1 np=$2 jobs=$3 start end bind=()
  rm -f "$out/$name".rss.* "$out/$name.hpcdb"
  [ "$jobs" -gt 1 ] && bind=(--bind-to none)
  start=$(date +%s.%N)
  if [ "$np" -eq 0 ]; then
    /usr/bin/time -f "%M %U %S" -o "$out/$name.rss.0" "$prof" merge "$profiles" -o "$out/$name.hpcdb" -j "$jobs" \
      >/dev/null 2>"$out/$name.err"
  else
    # shellcheck disable=SC2016  # expanded by the rank's shell: its own rank
    mpirun --oversubscribe "${bind[@]}" -np "$np" sh -c \
      'exec /usr/bin/time -f "%M %U %S" -o "$0.rss.$OMPI_COMM_WORLD_RANK" "$@"' "$out/$name" \
      "$mpi_prof" "$profiles" -o "$out/$name.hpcdb" -j "$jobs" >/dev/null 2>"$out/$name.err"
  fi
  end=$(date +%s.%N)
  echo "$start $end" | awk '{printf "%.2f", $2 - $1}'
}

mib() { awk '{printf "%.0f", $1 / 1024}'; }

echo "| merge | processes x threads | wall s (median of $reps) | profiles/s | CPU s, all processes (median) | peak RSS per process MiB |"
echo "|---|---|---|---|---|---|"
for config in "merge 0 1" "merge 0 2" "mpi 1 1" "mpi 1 2" "mpi 2 1" "mpi 2 2"; do
  read -r kind np jobs <<<"$config"
  name=$kind-np$np-j$jobs
  walls=()
  cpus=()
  declare -A peak=()
  for ((r = 0; r < reps; r++)); do
    walls+=("$(run "$name" "$np" "$jobs")")
    cpu=0
    for f in "$out/$name".rss.*; do
      rank=${f##*.}
      read -r kib user sys < <(tail -n1 "$f")
      if [ "${peak[$rank]:-0}" -lt "$kib" ]; then peak[$rank]=$kib; fi
      cpu=$(echo "$cpu $user $sys" | awk '{printf "%.2f", $1 + $2 + $3}')
    done
    cpus+=("$cpu")
  done
  if [ "$name" = merge-np0-j1 ]; then
    cp "$out/$name.hpcdb" "$out/reference.hpcdb"
  elif ! cmp -s "$out/$name.hpcdb" "$out/reference.hpcdb"; then
    echo "merge_scaling.sh: $name wrote another database than merge -j1" >&2
    exit 1
  fi
  rss=""
  for rank in $(printf '%s\n' "${!peak[@]}" | sort -n); do
    rss+="${rss:+ / }rank $rank: $(echo "${peak[$rank]}" | mib)"
  done
  [ "$kind" = merge ] && rss="$(echo "${peak[0]}" | mib)" && label="hpcprof-lite merge" ||
    label="hpcprof-lite-mpi"
  shown_np=$np
  [ "$np" -eq 0 ] && shown_np=1
  wall=$(printf '%s\n' "${walls[@]}" | median)
  echo "| $label | $shown_np x $jobs | $wall | $(awk -v n="$n" -v w="$wall" 'BEGIN {printf "%.0f", n / w}') | $(printf '%s\n' "${cpus[@]}" | median) | $rss |"
  unset peak
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
