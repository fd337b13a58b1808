#!/usr/bin/env bash
# Runs every real-application case study (GROMACS, LAMMPS, HPCC, zstd) and collects their summaries
# in OUTDIR/summary.txt. A case whose application is not installed is reported as skipped.
# Usage: bench/cases/run_all.sh [OUTDIR]   (default <repo>/build/cases; never the source tree)
# Environment: see lib.sh (CASES_BUILD_DIR, CASES_RUNS, CASES_RANKS, OMP_NUM_THREADS,
# CASES_TOOL_ARGS) and CASES_ONLY="gromacs lammps hpcc zstd" to run a subset.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-${CASES_BUILD_DIR:-$repo/build}/cases}
mkdir -p "$out"
: >"$out/summary.txt"
status=0
for c in ${CASES_ONLY:-gromacs lammps hpcc zstd}; do
  "$here/$c.sh" "$out"
  rc=$?
  case $rc in
    0) cat "$out/$c/summary.txt" >>"$out/summary.txt"; echo >>"$out/summary.txt" ;;
    77) echo "### $c: skipped (not installed)" >>"$out/summary.txt" ;;
    *) echo "### $c: FAILED (exit status $rc)" >>"$out/summary.txt"; status=1 ;;
  esac
done
echo "==> all summaries: $out/summary.txt" >&2
exit $status
