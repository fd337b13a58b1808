#!/usr/bin/env bash
# The bundled example under `mpirun -np 2`: the output is unchanged, and the report tells the
# story the README tells (the field is the hottest variable, made hot by column_means_bad, which
# walks it with the field's row pitch as stride; `heat2d --fixed` walks it in storage order).
# Usage: heat2d.sh PROGRAM [ARGS...]
source "$(dirname "$0")/lib.sh"
setup_mpi
prog=$1
shift
[ -x "$prog" ] || skip "the example was not built (no MPI?): $prog"

run_to native "${MPIRUN[@]}" -np 2 "$prog" "$@"
run_to tool "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o meas -- "$prog" "$@"
cat tool.err >&2
same_as_native native tool
expect_profiles meas 2
# The demo runs at the soft source's default rate, the one docs/USAGE.md states.
rate=$(profile_meta "$(profiles meas | head -1)" rate)
[ "$rate" = 500 ] || fail "a default run samples at $rate/s; docs/USAGE.md says 500"
merge_and_report meas db.hpcdb report.json
check heat2d report.json --processes 2
# The demo as a terminal of 80 and of 120 columns shows it (issue 24): rows the JSON tells apart
# read differently, in the data and the code view, and a column left out is said.
for width in 80 120; do
  COLUMNS=$width "$HPCL_PROF" report db.hpcdb >"data$width.txt"
  "$HPCL_PROF" report db.hpcdb --format json >data.json
  "$HPCL_PYTHON" "$E2E_DIR/check_table.py" cells "data$width.txt" data.json --column variable \
    --field name --width "$width" || fail "the $width-column data view shows two variables alike"
  COLUMNS=$width "$HPCL_PROF" report db.hpcdb --view code >"code$width.txt"
  "$HPCL_PROF" report db.hpcdb --view code --format json >code.json
  "$HPCL_PYTHON" "$E2E_DIR/check_table.py" cells "code$width.txt" code.json --column location \
    --field label --width "$width" || fail "the $width-column code view shows two locations alike"
done
grep -q "^(hidden at this width:" data80.txt || fail "at 80 columns a column was left out without a word"
step "check_patterns.py report.json --heat2d bad"
"$HPCL_PYTHON" "$E2E_DIR/check_patterns.py" report.json --heat2d bad
run_to fixed "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o meas-fixed -- "$prog" --fixed "$@"
[ "$(cat fixed.status)" = 0 ] || fail "heat2d --fixed failed under the tool: $(tail -3 fixed.err)"
merge_and_report meas-fixed fixed.hpcdb fixed.json
step "check_patterns.py fixed.json --heat2d fixed"
"$HPCL_PYTHON" "$E2E_DIR/check_patterns.py" fixed.json --heat2d fixed
