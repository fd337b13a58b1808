#!/usr/bin/env bash
# Shows hpcrun-lite on the bundled MPI+OpenMP example (examples/heat2d.c):
#   installs dependencies, builds the tool and the example (Release, in build-release/),
#   measures `mpirun -np 2 heat2d` with 2 OpenMP threads per rank, merges the profiles and prints
#   the data-centric report; then measures the fixed version (`heat2d --fixed`) the same way and
#   prints the diff of the two databases. Each run writes into a fresh directory under demo-runs/.
# Environment: HPCL_DEMO_DIR (default <repo>/demo-runs), HPCL_DEMO_ARGS (more arguments for both
# runs of heat2d, e.g. a number of steps).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
hpcl_mpi_env

build=$HPCL_ROOT/build-release
read -r -a example_args <<<"${HPCL_DEMO_ARGS:-}"

say "installing dependencies"
"$HPCL_ROOT/scripts/install-deps.sh"
say "building the tool and the example (Release) in $build"
cmake -S "$HPCL_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPCL_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(hpcl_jobs)" --target hpcrun-lite hpcprof-lite heat2d

run=${HPCL_DEMO_DIR:-$HPCL_ROOT/demo-runs}/heat2d-$(date +%Y%m%d-%H%M%S)
mkdir -p "$(dirname "$run")"
mkdir "$run"  # fails if it exists: every run gets its own directory

# measure NAME ARGS...: measures heat2d ARGS under the tool into $run/NAME-measurements and
# merges the profiles into $run/NAME.hpcdb.
measure() {
  local name=$1
  shift
  say "measuring: mpirun -np 2 hpcrun-lite -o $run/$name-measurements -- heat2d $*"
  OMP_NUM_THREADS=2 mpirun --oversubscribe -np 2 \
    "$build/bin/hpcrun-lite" -o "$run/$name-measurements" -- "$build/bin/heat2d" "$@"
  say "merging the $(find "$run/$name-measurements" -name '*.hpcl' | wc -l) process profiles"
  "$build/bin/hpcprof-lite" merge "$run/$name-measurements" -o "$run/$name.hpcdb"
}

measure heat2d "${example_args[@]}"
"$build/bin/hpcprof-lite" report "$run/heat2d.hpcdb" --format json >"$run/report.json"
say "the report (data view: which variables take the time, and from which code)"
"$build/bin/hpcprof-lite" report "$run/heat2d.hpcdb" --format text --top 10

measure heat2d-fixed --fixed "${example_args[@]}"
say "the diff: before the fix (column_means_bad) and after it (heat2d --fixed)"
"$build/bin/hpcprof-lite" diff "$run/heat2d.hpcdb" "$run/heat2d-fixed.hpcdb" --top 8
"$build/bin/hpcprof-lite" diff "$run/heat2d.hpcdb" "$run/heat2d-fixed.hpcdb" --format json >"$run/diff.json"

cat >&2 <<MSG

==> profiles:  $run/heat2d-measurements/, $run/heat2d-fixed-measurements/
==> databases: $run/heat2d.hpcdb (before the fix), $run/heat2d-fixed.hpcdb (after)
==> JSON:      $run/report.json, $run/diff.json
==> more:      $build/bin/hpcprof-lite report $run/heat2d.hpcdb --view code
MSG
