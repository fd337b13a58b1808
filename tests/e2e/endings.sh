#!/usr/bin/env bash
# One way for a process to end (see tests/programs/endings.c): under the tool the program's
# output and exit status (or the signal that killed it) are those of the native run, and every
# process of the program leaves a profile that merges and holds the work done before the end
# (at least MIN_SAMPLES samples in the array made by make_work_array, read for 0.3 s).
# Usage: endings.sh PROGRAM WAY PROFILES MIN_SAMPLES [RATE]
#   PROFILES: how many profiles of PROGRAM the run leaves (a forked child has its own).
#   MIN_SAMPLES: a count, or expected:E (4 Poisson sd under E, see check_work_in_each in lib.sh).
#   RATE: the soft source's rate (default SOFT_RATE).
source "$(dirname "$0")/lib.sh"
prog=$1 way=$2 nprofiles=$3 min_samples=$4
SOFT_RATE=${5:-$SOFT_RATE}
ulimit -c 0  # the deaths by SIGSEGV and SIGABRT must not leave cores in the build tree

run_to native "$prog" "$way"
run_to tool "$HPCL_RUN" -e "soft@$SOFT_RATE" -o meas -- "$prog" "$way"
same_as_native native tool
echo "status $(cat tool.status), as native" >&2

# Other programs the run started (system()'s shell) leave profiles of their own.
name=$(basename "$prog")
mapfile -t mine < <(profiles meas | grep "/$name\.")
[ "${#mine[@]}" -eq "$nprofiles" ] || { ls -la meas >&2; fail "${#mine[@]} profiles of $name, expected $nprofiles"; }

check_work_in_each "$min_samples" "${mine[@]}"
# And all of the run's profiles merge together.
merge_and_report meas all.db all.json
