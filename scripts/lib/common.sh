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

# The reason each test gave for skipping, from ctest's full logs (Testing/Temporary/LastTest.log):
# "NAME<TAB>REASON" for each test whose output says why it skipped, as an end-to-end driver does
# ("SKIP: ...") or GoogleTest's GTEST_SKIP() (the line after "FILE:LINE: Skipped"). Which tests
# were skipped is the summary's to say (hpcl_skipped_tests); a test that printed no reason is
# not listed.
hpcl_skip_reasons() {
  local f
  for f in "$@"; do if [ -f "$f" ]; then cat "$f"; fi; done | awk '
    function flush() { if (name != "" && why != "") print name "\t" why; name = ""; why = "" }
    /^[0-9]+\/[0-9]+ Test: / { flush(); name = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", name); after = 0; next }
    after { if (why == "") why = $0; after = 0; next }
    /^SKIP: / { if (why == "") { why = $0; sub(/^SKIP: /, "", why) } next }
    /: Skipped$/ { after = 1; next }
    END { flush() }
  ' | sort -s -u -t "$(printf '\t')" -k1,1
}

# The skipped tests of a ctest summary log (hpcl_skipped_tests), each followed by its reason
# when ctest's full logs given after it have one: "NAME (Skipped): REASON".
hpcl_skipped_with_reasons() {
  local summary=$1 reasons line name why
  shift
  reasons=$(hpcl_skip_reasons "$@")
  hpcl_skipped_tests "$summary" | while IFS= read -r line; do
    name=${line% (*}
    why=$(printf '%s\n' "$reasons" | awk -F '\t' -v n="$name" '$1 == n { print $2; exit }')
    if [ -n "$why" ]; then printf '%s: %s\n' "$line" "$why"; else printf '%s\n' "$line"; fi
  done
}
