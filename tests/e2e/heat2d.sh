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
merge_and_report meas db.hpcdb report.json
check heat2d report.json --processes 2
step "check_patterns.py report.json --heat2d bad"
"$HPCL_PYTHON" "$E2E_DIR/check_patterns.py" report.json --heat2d bad
run_to fixed "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o meas-fixed -- "$prog" --fixed "$@"
[ "$(cat fixed.status)" = 0 ] || fail "heat2d --fixed failed under the tool: $(tail -3 fixed.err)"
merge_and_report meas-fixed fixed.hpcdb fixed.json
step "check_patterns.py fixed.json --heat2d fixed"
"$HPCL_PYTHON" "$E2E_DIR/check_patterns.py" fixed.json --heat2d fixed
