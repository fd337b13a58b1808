#!/usr/bin/env bash
# Where profiles go: the default directory name, the job-id suffix, HPCRUN_LITE_OUT, the same
# default with LD_PRELOAD set by hand, and the file name of a profile.
# Usage: outdir.sh PROGRAM   (alloc_apis)
source "$(dirname "$0")/lib.sh"
prog=$1
exe=$(basename "$prog")

mkdir plain && (cd plain && run_to run "$HPCL_RUN" -- "$prog" 2)
[ "$(cat plain/run.status)" = 0 ] || fail "run failed: $(cat plain/run.err)"
expect_profiles "plain/hpcrun-lite-$exe-measurements" 1
name=$(basename "$(profiles "plain/hpcrun-lite-$exe-measurements")")
[[ "$name" =~ ^$exe\..+\.norank\.[0-9]+\.hpcl$ ]] || fail "profile name $name is not $exe.<host>.norank.<pid>.hpcl"

mkdir slurm && (cd slurm && SLURM_JOB_ID=4242 run_to run "$HPCL_RUN" -- "$prog" 2)
expect_profiles "slurm/hpcrun-lite-$exe-measurements-4242" 1

mkdir env && (cd env && HPCRUN_LITE_OUT=from-env run_to run "$HPCL_RUN" -- "$prog" 2)
expect_profiles env/from-env 1
[ ! -e "env/hpcrun-lite-$exe-measurements" ] || fail "HPCRUN_LITE_OUT was ignored"

# LD_PRELOAD set by hand, without the launcher: the runtime picks the same default, job id
# included.
lib=$(cd "$(dirname "$HPCL_RUN")/../lib" && pwd)/libhpcrun-lite.so
[ -r "$lib" ] || fail "runtime library not found next to the launcher: $lib"
mkdir by-hand && (cd by-hand && PBS_JOBID=77.server LD_PRELOAD=$lib run_to run "$prog" 2)
[ "$(cat by-hand/run.status)" = 0 ] || fail "preloaded run failed: $(cat by-hand/run.err)"
expect_profiles "by-hand/hpcrun-lite-$exe-measurements-77.server" 1
