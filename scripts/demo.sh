#!/usr/bin/env bash
# Shows hpcrun-lite on the bundled MPI+OpenMP example (examples/heat2d.c):
#   installs dependencies, builds the tool and the example (Release, in build-release/),
#   measures `mpirun -np 2 heat2d` with 2 OpenMP threads per rank, merges the profiles and prints
#   the data-centric report. Each run writes into a fresh directory under demo-runs/.
# Environment: HPCL_DEMO_DIR (default <repo>/demo-runs), HPCL_DEMO_ARGS (arguments for heat2d,
# e.g. "--fixed" to see the report after the fix).
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

say "measuring: mpirun -np 2 hpcrun-lite -o $run/measurements -- heat2d ${example_args[*]}"
OMP_NUM_THREADS=2 mpirun --oversubscribe -np 2 \
  "$build/bin/hpcrun-lite" -o "$run/measurements" -- "$build/bin/heat2d" "${example_args[@]}"

say "merging the $(find "$run/measurements" -name '*.hpcl' | wc -l) process profiles"
"$build/bin/hpcprof-lite" merge "$run/measurements" -o "$run/heat2d.hpcdb"
"$build/bin/hpcprof-lite" report "$run/heat2d.hpcdb" --format json >"$run/report.json"

say "the report (data view: which variables take the time, and from which code)"
"$build/bin/hpcprof-lite" report "$run/heat2d.hpcdb" --format text --top 10

cat >&2 <<MSG

==> profiles:  $run/measurements/
==> database:  $run/heat2d.hpcdb
==> JSON:      $run/report.json
==> more:      $build/bin/hpcprof-lite report $run/heat2d.hpcdb --view code
==> the fix:   HPCL_DEMO_ARGS=--fixed $0
MSG
