# shellcheck shell=bash
# Helpers shared by scripts/test.sh and scripts/demo.sh (sourced, not run).
# Sets HPCL_ROOT to the repository root, whatever the caller's working directory.

HPCL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export HPCL_ROOT

say() { printf '==> %s\n' "$*" >&2; }

# Open MPI refuses to start as root unless told twice that this is intended; these machines
# (containers, CI) often run as root.
hpcl_mpi_env() {
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
}

# Never more build jobs than cores, and at most 2 (the project's machines have 2).
hpcl_jobs() {
  local n
  n=$(nproc 2>/dev/null || echo 1)
  if [ "$n" -gt 2 ]; then n=2; fi
  echo "$n"
}

# The tests a ctest log lists under "The following tests did not run:" (skipped with exit 77,
# disabled or not run), one "name (reason)" per line, each once.
hpcl_skipped_tests() {
  grep -E '^[[:space:]]+[0-9]+ - .* \((Skipped|Not Run|Disabled)\)$' "$1" |
    sed -E 's/^[[:space:]]+[0-9]+ - //' | sort -u || true
}
