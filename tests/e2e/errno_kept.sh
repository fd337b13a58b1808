#!/usr/bin/env bash
# The runtime must not change what the program sees (issue 24): free() and malloc() leave errno
# as the program set it, also when a system call the runtime makes inside them fails. The
# program (tests/programs/errno_free.c) installs a seccomp filter that fails move_pages with
# EPERM after start-up, then allocates, reads and frees 1 MiB blocks, checking errno around each
# call; its output and status under the tool must be its native ones, with samples in its
# blocks (so the NUMA lookups in free had pages to look up).
# Usage: errno_kept.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
run_to native "$prog" 1
grep -q "^done: errno changed by free 0, by malloc 0" native.out ||
  skip "the program cannot run as planned here: $(cat native.out native.err)"
run_to tool "$HPCL_RUN" -o meas -- "$prog" 1
cat tool.out tool.err >&2
same_as_native native tool
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
"$HPCL_PYTHON" - report.json <<'PY' || fail "no samples in the freed blocks: the test tested nothing"
import json, sys
heap = [v for v in json.load(open(sys.argv[1]))["variables"] if v["kind"] == "heap"]
samples = sum(v["metrics"]["samples"] for v in heap)
print(f"heap samples: {samples}")
assert samples >= 100, samples
PY
echo "errno kept by free and malloc under the tool" >&2
