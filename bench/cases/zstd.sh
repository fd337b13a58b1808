#!/usr/bin/env bash
# zstd case study: one process, one thread, no MPI: `zstd -T1 -9` compresses a tar of the
# LAMMPS potential files shipped in lammps-data (53 MiB of text tables, the same bytes on every
# Debian 12 machine with that package), natively and under hpcrun-lite. A compressor keeps its
# hash and chain tables in a few large heap blocks and its match state on the stack, so the
# report separates "the tables" from "[stack]" for a program that is not a simulation.
# Falls back to /usr/share/gromacs/top when lammps-data is not installed.
# Usage: bench/cases/zstd.sh [OUTDIR]; see lib.sh for the environment; CASES_ZSTD_LEVEL (default 9).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
needs zstd tar
level=${CASES_ZSTD_LEVEL:-9}
src=/usr/share/lammps/potentials
[ -d "$src" ] || src=/usr/share/gromacs/top
[ -d "$src" ] || { echo "cases: no input for zstd (lammps-data or gromacs-data); skipping" >&2; exit 77; }
case_setup zstd "[hpcrun-lite -o DIR --] zstd -T1 -$level -q -f input.tar -o out.zst (input.tar: tar of $src)"
tar cf "$case_dir/input/input.tar" -C "$(dirname "$src")" "$(basename "$src")"

case_run() {
  "$@" zstd -T1 "-$level" -q -f "$case_dir/input/input.tar" -o out.zst && rm -f out.zst
}
case_main
