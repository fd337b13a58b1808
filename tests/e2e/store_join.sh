#!/usr/bin/env bash
# A cache-missing store followed by a branch target whose instruction reads the stack
# (tests/programs/store_join.c, decoder rule BranchJoin): the table gets the samples, not the stack.
# Usage: store_join.sh PROGRAM
source "$(dirname "$0")/lib.sh"
prog=$1
[ -x "$prog" ] || skip "store_join was not built: $prog"

measure_like_native "$prog"
check store_join report.json
