# shellcheck shell=bash
# Shared by openfoam_merge.sh and openfoam_cost.sh (which set $root). Sourced, not run.
#   openfoam_case NAME ITERATIONS
#       stops the script (status 77) when OpenFOAM, its tutorials or mpirun are missing; makes
#       $work (removed at exit) and in it $work/case: simpleFoam's pitzDaily tutorial meshed and
#       decomposed for 2 ranks (method simple: Debian's scotch decomposition is a stub), ending
#       after ITERATIONS SIMPLE iterations (0: the tutorial's own end, converged at 285)
openfoam_case() {
  local name=$1 iterations=$2 tool
  local tutorial=/usr/share/doc/openfoam-examples/examples/incompressible/simpleFoam/pitzDaily
  for tool in simpleFoam blockMesh decomposePar mpirun; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$name.sh: $tool not found" >&2; exit 77; }
  done
  [ -d "$tutorial" ] || { echo "$name.sh: no $tutorial (openfoam-examples)" >&2; exit 77; }
  export WM_PROJECT_DIR=/usr/share/openfoam FOAM_ETC=/usr/share/openfoam/etc OMP_NUM_THREADS=1
  if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
  export OMPI_MCA_rmaps_base_oversubscribe=1
  work=$(mktemp -d "${TMPDIR:-/tmp}/hpcl-$name.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cp -r "$tutorial" "$work/case"
  chmod -R u+w "$work/case"
  cp "$root/tests/e2e/data/openfoam_decomposeParDict" "$work/case/system/decomposeParDict"
  if [ "$iterations" -gt 0 ]; then
    sed -i "s/^endTime .*/endTime         $iterations;/; s/^writeInterval .*/writeInterval   $iterations;/" \
      "$work/case/system/controlDict"
  fi
  (cd "$work/case" && blockMesh >/dev/null && decomposePar >/dev/null)
}
