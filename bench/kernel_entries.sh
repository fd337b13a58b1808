#!/usr/bin/env bash
# What the runtime adds in kernel entries, which every machine agrees on (docs/PERFORMANCE.md,
# "Kernel entries"): on a paravirtualized VM each system call, page fault and signal delivery
# costs several microseconds, so these counts are the bill wherever entries are expensive.
#  1. Start-up and exit of one process: a 1-rank LAMMPS `run 0` (tests/e2e/data/lj_melt.lmp,
#     4x4x4 cells, no step; Open MPI's singleton start, orted included), natively and under
#     hpcrun-lite, counted by `perf stat -e raw_syscalls:sys_enter,page-faults,
#     signal:signal_deliver` over every process; median of RUNS rounds. Then one `strace -f -c`
#     of each, and the system calls the tool adds, by name.
#  2. Per soft sample: bench/workloads/stream.c on one thread, a short and a long run, each
#     natively and under hpcrun-lite; the system calls the long run adds over the short one under
#     the tool, less what it adds natively (the workload's own: a futex per parallel region),
#     divided by the signals it adds, is what one sample costs, the signal's return included;
#     start-up and exit cancel out.
# Usage: bench/kernel_entries.sh [BUILD_DIR] [RUNS]   (defaults: build, 5)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
runs=${2:-5}
tool=$build/bin/hpcrun-lite
wl=$build/bench/wl_stream
for f in "$tool" "$wl"; do
  [ -e "$f" ] || { echo "kernel_entries.sh: $f is missing (build the project and its bench targets)" >&2; exit 2; }
done
command -v perf >/dev/null || { echo "kernel_entries.sh: needs perf (linux-perf)" >&2; exit 2; }
command -v lmp >/dev/null || { echo "kernel_entries.sh: needs lmp (lammps)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
events=raw_syscalls:sys_enter,page-faults,signal:signal_deliver
lmp_args=(lmp -in "$root/tests/e2e/data/lj_melt.lmp" -var cells 4 -var steps 0 -log none -screen none)

# count NAME CMD...: one line "NAME syscalls faults signals" in $work/counts.
count() {
  local name=$1
  shift
  perf stat -x, -o "$work/stat" -e "$events" -- "$@" >/dev/null 2>&1
  awk -F, -v n="$name" '$3 ~ /sys_enter/ {s=$1} $3 ~ /page-faults/ {f=$1}
      $3 ~ /signal_deliver/ {g=$1} END {print n, s, f, g}' "$work/stat" >>"$work/counts"
}

"$root/bench/machine.sh" "$build"
for ((r = 0; r < runs; ++r)); do
  count native "${lmp_args[@]}"
  count tool "$tool" -o "$work/prof$r" -- "${lmp_args[@]}"
done
short=${SHORT_REPS:-20}
long=${LONG_REPS:-120}
for ((r = 0; r < runs; ++r)); do
  OMP_NUM_THREADS=1 count short "$tool" -o "$work/s$r" -- "$wl" 8 "$short"
  OMP_NUM_THREADS=1 count long "$tool" -o "$work/l$r" -- "$wl" 8 "$long"
  OMP_NUM_THREADS=1 count short_native "$wl" 8 "$short"
  OMP_NUM_THREADS=1 count long_native "$wl" 8 "$long"
done
strace -f -c -o "$work/strace.native" "${lmp_args[@]}" >/dev/null 2>&1
strace -f -c -o "$work/strace.tool" "$tool" -o "$work/strace_prof" -- "${lmp_args[@]}" >/dev/null 2>&1
python3 - "$work" <<'PY'
import statistics, sys
work = sys.argv[1]
rows = {}
for line in open(work + "/counts"):
    name, *vals = line.split()
    rows.setdefault(name, []).append([int(v) for v in vals])
med = lambda name, i: statistics.median(r[i] for r in rows[name])
print("\n1. LAMMPS run 0, 1 rank: start-up and exit (median of %d)" % len(rows["native"]))
print("   %-16s %10s %10s %10s" % ("", "native", "tool", "added"))
for i, what in enumerate(["system calls", "page faults", "signals"]):
    n, t = med("native", i), med("tool", i)
    print("   %-16s %10.0f %10.0f %+10.0f" % (what, n, t, t - n))
per = []
for s, l, sn, ln in zip(rows["short"], rows["long"], rows["short_native"], rows["long_native"]):
    if l[2] > s[2]:
        per.append(((l[0] - s[0]) - (ln[0] - sn[0])) / (l[2] - s[2]))
sig = statistics.median(l[2] - s[2] for s, l in zip(rows["short"], rows["long"]))
print("\n2. Per soft sample (stream, 1 thread; %.0f more samples in the long run):" % sig)
print("   %.2f system calls per sample, the signal's return included (rounds: %s)"
      % (statistics.median(per), " ".join("%.2f" % p for p in per)))
def strace_counts(path):
    d = {}
    for line in open(path):
        p = line.split()
        if len(p) >= 5 and p[0][0].isdigit() and p[-1] != "total":
            d[p[-1]] = int(p[3])
    return d
a, b = strace_counts(work + "/strace.native"), strace_counts(work + "/strace.tool")
diff = sorted(((b.get(k, 0) - a.get(k, 0), k) for k in set(a) | set(b)), reverse=True)
print("\n3. System calls the tool adds to LAMMPS run 0, by name (strace -f -c, one run):")
for d, k in diff[:12]:
    print("   %-18s %6d -> %6d  %+6d" % (k, a.get(k, 0), b.get(k, 0), d))
PY
