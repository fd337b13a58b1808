#!/usr/bin/env bash
# A big C++ MPI code under `mpirun -np 2 hpcrun-lite`: OpenFOAM (Debian's `openfoam`), simpleFoam
# on the pitzDaily tutorial of `openfoam-examples` with its default settings (285 SIMPLE
# iterations, about 6 s natively), decomposed on 2 ranks. Checks what a user of OpenFOAM reads:
#   - the run completes as natively: exit status 0 and the same number of iterations;
#   - no heap row of the top 10 is named by container code (List/Field/GeometricField/tmp
#     constructors, doAlloc/doResize, New factories): each is named by the function that made
#     the field, with the field's type;
#   - the top 10 rows of the table at 120 columns read as ten different things;
#   - MPI's own memory (its shared-memory segments made in MPI_Init) is not a row of its own in
#     the grouped table, and is with --no-group.
# Exits 77 when OpenFOAM, its tutorial or mpirun is missing (scripts/install-deps.sh installs them).
# Usage: mpi_openfoam.sh
source "$(dirname "$0")/lib.sh"
for tool in simpleFoam blockMesh decomposePar; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool not found (Debian package openfoam)"
done
tutorial=/usr/share/doc/openfoam-examples/examples/incompressible/simpleFoam/pitzDaily
[ -d "$tutorial" ] || skip "no pitzDaily tutorial at $tutorial (Debian package openfoam-examples)"
setup_mpi
export OMP_NUM_THREADS=1
# Debian's OpenFOAM finds its etc/ files through these (its `openfoam` wrapper would set them).
export WM_PROJECT_DIR=/usr/share/openfoam FOAM_ETC=/usr/share/openfoam/etc

prepare() {
  rm -rf "$1" && cp -r "$tutorial" "$1"
  cp "$E2E_DIR/data/openfoam_decomposeParDict" "$1/system/decomposeParDict"
  (cd "$1" && blockMesh >blockMesh.log 2>&1 && decomposePar >decomposePar.log 2>&1) ||
    fail "$1: blockMesh or decomposePar failed: $(tail -5 "$1"/*.log)"
}
prepare native_case
prepare tool_case
(cd native_case && run_to ../native "${MPIRUN[@]}" -np 2 simpleFoam -parallel)
(cd tool_case && run_to ../tool "${MPIRUN[@]}" -np 2 "$HPCL_RUN" -o ../meas -- simpleFoam -parallel)
[ "$(cat native.status)" = 0 ] || skip "simpleFoam does not run here: $(tail -5 native.err)"
[ "$(cat tool.status)" = 0 ] || fail "simpleFoam exited $(cat tool.status) under the tool: $(tail -5 tool.err)"
iterations() { grep -c '^Time = ' "$1"; }
[ "$(iterations native.out)" = "$(iterations tool.out)" ] ||
  fail "$(iterations tool.out) iterations under the tool, $(iterations native.out) natively"
echo "$(iterations tool.out) SIMPLE iterations, as natively"
expect_rank_profiles meas simpleFoam 2

merge_and_report meas db.hpcdb report.json
"$HPCL_PROF" report db.hpcdb --format json --top 0 --no-group >nogroup.json
for cols in 80 120; do
  COLUMNS=$cols "$HPCL_PROF" report db.hpcdb --top 10 >"report.$cols.txt"
  sed -n '/^ *#  variable/,/^(/p' "report.$cols.txt" >&2
done

"$HPCL_PYTHON" - report.json nogroup.json report.120.txt <<'PY' || fail "OpenFOAM's fields are not named as its users know them"
import json, re, sys

report = json.load(open(sys.argv[1]))
nogroup = json.load(open(sys.argv[2]))
errors = []

def qualified(name):
    """The function of a heap label: after a "TYPE in " prefix, before its parameters."""
    depth, start = 0, 0
    for i, c in enumerate(name):
        if c in "<([": depth += 1
        elif c in ">)]": depth -= 1
        elif c == " " and depth == 0:
            if name.startswith(" in ", i) and start == 0:
                start = i + 4
                continue
            if name[start:i]:
                break
    rest = name[start:]
    return rest.split("(")[0].split(" ")[0]

def is_container_code(function):
    base = re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", function)))
    parts = base.split("::")
    ctor = len(parts) >= 2 and parts[-1] == parts[-2] and "<" in function
    return ctor or parts[-1] in ("doAlloc", "doResize", "New", "resize", "setSize")

top = report["variables"][:10]
for v in top:
    if v["kind"] != "heap" or v["name"].startswith("/"):
        continue
    f = qualified(v["name"])
    print(f"{v['share']:6.1%}  {f}  <=  {v['name'][:160]}")
    if is_container_code(f):
        errors.append(f"{v['name'][:200]!r} is named by container code ({f})")

# The ten rows at 120 columns: ten different texts.
rows = []
inside = False
for text in open(sys.argv[3], encoding="utf-8"):
    if re.match(r"\s*#  variable", text):
        inside = True
    elif inside and re.match(r"\s*\d+  ", text):
        rows.append(re.split(r"\s{2,}", text.strip())[1])
    elif inside:
        break
if len(rows) != 10 or len(set(rows)) != 10:
    errors.append(f"the top 10 rows at 120 columns do not read as ten things: {rows}")

# MPI's own shared memory: in the [MPI runtime data] row, listed with --no-group.
segment = re.compile(r"^/dev/shm/vader_segment")
if any(segment.match(v["name"]) for v in report["variables"]):
    errors.append("a vader segment of MPI_Init is a row of its own in the grouped report")
if not any(segment.match(v["name"]) for v in nogroup["variables"]):
    errors.append("--no-group does not list MPI's shared-memory segments")
if errors:
    sys.exit("FAIL: " + "; ".join(errors))
PY
echo "PASS"
