# shellcheck shell=bash
# Shared driver of the real-application case studies (bench/cases/*.sh; sourced, not run).
#
# A case script sets up its tiny offline input in "$case_dir/input", defines case_run (the
# command line, run once from a fresh run directory, with "$@" = the launcher prefix: nothing
# for the native run, `hpcrun-lite -o DIR --` for a measured one, placed where the program
# starts: after mpirun for MPI programs) and calls case_main. case_main then:
#   1. runs the application natively and under build/bin/hpcrun-lite, alternating, CASES_RUNS
#      times each (default 3), timing wall and CPU time (user+sys of the whole process tree);
#   2. merges the first measured run with hpcprof-lite merge, writes report.txt (top 20),
#      report.json and code.txt (the code view), all under the case directory;
#   3. prints, through summarize.py, the medians of the timings, the data-sample breakdown, the top
#      rows and how many of the ten hottest heap variables have distinct names.
# Usage of a case script: bench/cases/NAME.sh [OUTDIR]   (default <repo>/build/cases)
# Environment: CASES_BUILD_DIR (default <repo>/build: bin/hpcrun-lite, bin/hpcprof-lite),
#   CASES_RUNS (default 3), CASES_RANKS (default 2), OMP_NUM_THREADS (default 1),
#   CASES_TOOL_ARGS (extra hpcrun-lite options, e.g. "-e soft@2000").
set -euo pipefail

cases_src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$cases_src/../.." && pwd)
build=${CASES_BUILD_DIR:-$repo/build}
out_root=${1:-$build/cases}
mkdir -p "$out_root"
out_root=$(cd "$out_root" && pwd)
case "$out_root/" in
  "$repo/build"*|"$repo/build-"*) ;;
  "$repo/"*) echo "cases: refusing to write into the source tree ($out_root); give a directory under build/ or elsewhere" >&2; exit 2 ;;
esac
runs=${CASES_RUNS:-3}
ranks=${CASES_RANKS:-2}
tool=$build/bin/hpcrun-lite
prof=$build/bin/hpcprof-lite
for f in "$tool" "$prof"; do
  if [ ! -x "$f" ]; then echo "cases: $f is missing; build the project first" >&2; exit 2; fi
done

export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
export OPENBLAS_NUM_THREADS=$OMP_NUM_THREADS
# Passive waits: on a shared 2-core machine spinning barriers turn other processes' time
# slices into CPU time of the application, which makes CPU-time ratios meaningless.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpirun_cmd=(mpirun -np "$ranks" --oversubscribe)

say() { printf '==> %s\n' "$*" >&2; }

# needs CMD...: exits 77 (skipped) when one of the commands is not installed.
needs() {
  local c
  for c in "$@"; do
    if ! command -v "$c" >/dev/null; then echo "cases: $c is not installed; skipping" >&2; exit 77; fi
  done
}

# timed_run LABEL I PREFIX...: runs case_run in a fresh directory $case_dir/LABEL-I and appends
# "LABEL I wall user sys" to times.tsv. Bash's `time` counts the CPU time of every waited-for
# descendant, which covers mpirun's ranks.
timed_run() {
  local label=$1 i=$2; shift 2
  local dir=$case_dir/$label-$i t
  rm -rf "$dir"; mkdir -p "$dir"
  t=$( { TIMEFORMAT='%R %U %S'; time (cd "$dir" && case_run "$@" >"$dir/stdout.log" 2>"$dir/stderr.log"); } 2>&1 ) || {
    echo "cases: $case_name $label run $i failed (exit status $?); last lines of its stderr:" >&2
    tail -15 "$dir/stderr.log" >&2
    exit 1
  }
  printf '%s\t%s\t%s\n' "$label" "$i" "${t// /$'\t'}" >>"$case_dir/times.tsv"
}

case_main() {
  : >"$case_dir/times.tsv"
  say "$case_name: $runs native and $runs measured runs, alternating (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  local i
  for i in $(seq 1 "$runs"); do
    timed_run native "$i"
    # shellcheck disable=SC2086
    timed_run tool "$i" "$tool" -o "$case_dir/tool-$i/meas" ${CASES_TOOL_ARGS:-} --
  done
  say "$case_name: merge and report (first measured run)"
  "$prof" merge "$case_dir/tool-1/meas" -o "$case_dir/$case_name.hpcdb" 2>"$case_dir/merge.log" >&2
  "$prof" report "$case_dir/$case_name.hpcdb" --top 20 >"$case_dir/report.txt"
  "$prof" report "$case_dir/$case_name.hpcdb" --format json --top 0 >"$case_dir/report.json"
  "$prof" report "$case_dir/$case_name.hpcdb" --view code --top 20 >"$case_dir/code.txt"
  {
    echo "### $case_name"
    echo "command: $case_command"
    python3 "$cases_src/summarize.py" "$case_dir/report.json" --times "$case_dir/times.tsv"
    echo
    echo "top 20 rows (report.txt):"
    # The table starts at its "#" header; a later layout without one is printed whole.
    sed -n '/^ *# /,$p' "$case_dir/report.txt" | grep . || cat "$case_dir/report.txt"
  } | tee "$case_dir/summary.txt"
}

# case_setup NAME COMMAND-DESCRIPTION: creates the case directory (fresh input each time).
case_setup() {
  case_name=$1
  case_command=$2
  case_dir=$out_root/$case_name
  rm -rf "$case_dir"
  mkdir -p "$case_dir/input"
}
