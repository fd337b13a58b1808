#!/usr/bin/env bash
# Tail-called wrappers (tests/programs/tail_alloc.c, built -O2): an allocation wrapper that is a
# `jmp malloc`, called from two places, and a reader that is a `jmp sum_array`. Neither leaves a
# frame; the report must recover both, marked tail_call, from the callers' call instructions.
# Usage: tail_calls.sh PROGRAM
source "$(dirname "$0")/lib.sh"

prog=$1
[ -x "$prog" ] || skip "tail_alloc was not built: $prog"
# The test is about code generation: without the tail jumps there is nothing to recover.
if ! objdump -d --no-show-raw-insn "$prog" 2>/dev/null | grep -A3 '<make_buffer>:' | grep -q 'jmp.*<malloc@plt>'; then
  skip "make_buffer in $prog is not a tail jump to malloc (compiler or objdump differ)"
fi

run_to tool "$HPCL_RUN" -o meas -- "$prog"
cat tool.err >&2
[ "$(cat tool.status)" = 0 ] || fail "the program failed under the tool (status $(cat tool.status))"
expect_profiles meas 1
merge_and_report meas db.hpcdb report.json
step "check_report.py tail_calls report.json"
check tail_calls report.json --wrapper make_buffer --callers alloc_grid alloc_halo --reader read_array
