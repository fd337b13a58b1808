#!/usr/bin/env bash
# Measures a test program with known access proportions, natively and under the tool, and checks
# that the program behaves the same and that the report's shares match the time shares it
# measured, within the tolerance of their sample count (check_report.py, tolerance.py).
# --rate R samples at R/s instead of SOFT_RATE: a program whose lightest array's share is small
# needs more samples for a tolerance that still catches that array losing half of its share.
# Usage: proportions.sh [--mpi NP] [--rate R] NAME PROGRAM [ARGS...]   (NAME selects the weights in check_report.py)
source "$(dirname "$0")/lib.sh"

launch=()
np=""
while :; do
  case "${1:-}" in
    --mpi) np=$2; shift 2; setup_mpi; launch=("${MPIRUN[@]}" -np "$np") ;;
    --rate) SOFT_RATE=$2; shift 2 ;;
    *) break ;;
  esac
done
name=$1
prog=$2
shift 2
[ -x "$prog" ] || skip "$name was not built: $prog"

run_to native "${launch[@]}" "$prog" "$@"
# The program times each array itself, into files beside its output: that is the truth the
# shares are checked against (see measured_time_shares in check_report.py).
HPCL_TEST_TIMING_FILE=$PWD/timing run_to tool "${launch[@]}" "$HPCL_RUN" -e "soft@$SOFT_RATE" -o meas -- "$prog" "$@"
cat tool.err >&2
same_as_native native tool
expect_profiles meas "${np:-1}"

merge_and_report meas db.hpcdb report.json
step "check_report.py proportions report.json --program $name --processes ${np:-1} --timing timing"
check proportions report.json --program "$name" --processes "${np:-1}" --timing timing
