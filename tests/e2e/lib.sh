# shellcheck shell=bash
# Shared helpers of the end-to-end tests; sourced by every tests/e2e/*.sh driver.
#
# ctest passes the tools through the environment (see CMakeLists.txt):
#   HPCL_RUN     the launcher, hpcrun-lite
#   HPCL_PROF    the analyzer, hpcprof-lite
#   HPCL_PYTHON  python3, for check_report.py
#   HPCL_WORK    a scratch directory for this test; emptied before the test runs
# A driver exits 0 on pass, 1 on failure and 77 when something it needs is missing (ctest
# reports that as skipped, never as passed).
set -euo pipefail

: "${HPCL_RUN:?HPCL_RUN must name the hpcrun-lite launcher}"
: "${HPCL_PROF:?HPCL_PROF must name hpcprof-lite}"
: "${HPCL_PYTHON:=python3}"
: "${HPCL_WORK:?HPCL_WORK must name a scratch directory}"

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CHECK="$E2E_DIR/check_report.py"

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
step() { echo "+ $*" >&2; }

# The measured programs are OpenMP codes with known proportions for two threads. No job id may
# leak in from the environment (it would change the default output directory name), nor an MPI
# rank (it would change the profile names and the launcher's reuse check).
export OMP_NUM_THREADS=2
# Idle OpenMP threads sleep instead of spinning. The shares checked here are among variables and
# do not depend on it, but a spinning barrier on a machine busy with other work (a parallel build,
# other tests) can stretch a 3 s run to a minute.
export OMP_WAIT_POLICY=passive
# Nor may any setting of the tool or of its test hooks (a leaked HPCRUN_LITE_TEST_HANDLER_STAGE
# fails nearly every driver), a terminal width (the text reports wrap to COLUMNS), a preload, or
# libdw's debuginfod servers (a network wait inside the analyzer).
unset SLURM_JOB_ID PBS_JOBID LSB_JOBID FLUX_JOB_ID \
  OMPI_COMM_WORLD_RANK MV2_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID \
  COLUMNS LINES LD_PRELOAD DEBUGINFOD_URLS
for _v in $(compgen -e); do
  case $_v in HPCRUN_LITE_* | HPCL_TEST_*) unset "$_v" ;; esac
done
unset _v

rm -rf "$HPCL_WORK"
mkdir -p "$HPCL_WORK"
cd "$HPCL_WORK"

# The soft source's rate that most drivers' sample-count bounds were set at: 1,000 samples per
# second of each thread's CPU time, twice the default (500/s). A driver that counts samples passes
# `-e soft@$SOFT_RATE` (the measure_* helpers below do; a driver sets SOFT_RATE for another rate).
# The drivers that run at the default (heat2d, mpi_lammps, stripped, ...) all passed with the
# default at 250/s, so they keep at least twice their margin at 500/s; heat2d checks the default.
SOFT_RATE=1000

[ -x "$HPCL_RUN" ] || skip "launcher not built: $HPCL_RUN"
[ -x "$HPCL_PROF" ] || skip "analyzer not built: $HPCL_PROF"
# shellcheck source=tests/e2e/machine.sh
source "$E2E_DIR/machine.sh"

# Makes mpirun usable here: as root Open MPI refuses to start without these, and a machine with
# fewer cores than ranks needs oversubscription. Skips the test when there is no mpirun.
setup_mpi() {
  command -v mpirun >/dev/null 2>&1 || skip "mpirun not found"
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  # shellcheck disable=SC2034  # used by the drivers that source this file
  MPIRUN=(mpirun --oversubscribe)
}

# setup_mpi4py: sets PY to Debian's interpreter, for which python3-mpi4py and python3-numpy are
# installed (a python3 earlier on PATH, pyenv's, may have neither), and makes mpirun usable;
# skips with the reason when either module cannot be imported.
setup_mpi4py() {
  PY=/usr/bin/python3
  [ -x "$PY" ] || skip "no $PY"
  "$PY" -c "import mpi4py, numpy" 2>/dev/null ||
    skip "mpi4py or NumPy not importable by $PY (python3-mpi4py, python3-numpy)"
  setup_mpi
}

# tmux_socket: the path of a tmux server socket of this driver's own. Under /tmp, not the work
# directory: a socket's path holds at most 107 bytes, and a checkout can lie deeper than that.
tmux_socket() { echo "/tmp/hpcl-tmux-$(id -u)-$$"; }

# run_to NAME CMD...: runs CMD with stdout, stderr and exit status saved as NAME.out, NAME.err,
# NAME.status in the work directory. Never fails itself.
run_to() {
  local name=$1
  shift
  step "$* > $name.out 2> $name.err"
  local status=0
  "$@" >"$name.out" 2>"$name.err" || status=$?
  echo "$status" >"$name.status"
}

# same_as_native NATIVE TOOL: the program's stdout, stderr and exit status under the tool are
# byte-for-byte those of the native run.
same_as_native() {
  local a=$1 b=$2 what
  for what in status out err; do
    if ! cmp -s "$a.$what" "$b.$what"; then
      echo "--- $what of the native run vs under hpcrun-lite:" >&2
      diff "$a.$what" "$b.$what" >&2 || true
      fail "the program's $what differs under the tool"
    fi
  done
}

# profiles DIR: lists the process profiles in DIR, one per line.
profiles() { find "$1" -maxdepth 1 -name '*.hpcl' -type f | sort; }

# expect_profiles DIR N: DIR holds exactly N profiles.
expect_profiles() {
  local n
  n=$(profiles "$1" | wc -l)
  if [ "$n" -ne "$2" ]; then
    ls -la "$1" >&2 || true
    fail "$1 holds $n profiles, expected $2"
  fi
}

# expect_rank_profiles DIR PREFIX NRANKS: DIR holds exactly one profile PREFIX.<host>.R.<pid>.hpcl
# for each rank R below NRANKS (PREFIX a glob: "lmp", "python3*"), and its META rank is R.
expect_rank_profiles() {
  local dir=$1 prefix=$2 n=$3 rank
  local -a f
  expect_profiles "$dir" "$n"
  for ((rank = 0; rank < n; rank++)); do
    mapfile -t f < <(find "$dir" -maxdepth 1 -name "$prefix.*.$rank.*.hpcl" -type f)
    [ "${#f[@]}" -eq 1 ] || { ls -la "$dir" >&2; fail "no single profile of rank $rank"; }
    [ "$(profile_meta "${f[0]}" rank)" = "$rank" ] || fail "$(basename "${f[0]}"): META rank is not $rank"
  done
}

# merge_and_report DIR DB JSON [REPORT-OPTION...]: the analyzer's two steps, failing the test if
# either fails. The JSON lists every variable with something measured (--top 0); a test of how
# allocation sites are named, samples or not, adds --all.
merge_and_report() {
  local dir=$1 db=$2 json=$3
  shift 3
  step "$HPCL_PROF merge $dir -o $db"
  "$HPCL_PROF" merge "$dir" -o "$db" || fail "hpcprof-lite merge failed (status $?)"
  step "$HPCL_PROF report $db --format json --top 0 $* > $json"
  "$HPCL_PROF" report "$db" --format json --top 0 "$@" >"$json" || fail "hpcprof-lite report failed (status $?)"
}

check() { "$HPCL_PYTHON" "$CHECK" "$@"; }

# measure_like_native PROGRAM [ARGS...]: runs the program natively and under the tool (into
# meas/, soft at SOFT_RATE), checks that its output and status are the native ones and that it
# left one profile, then merges and reports it into db.hpcdb and report.json.
measure_like_native() {
  run_to native "$@"
  run_to tool "$HPCL_RUN" -e "soft@$SOFT_RATE" -o meas -- "$@"
  cat tool.err >&2
  same_as_native native tool
  expect_profiles meas 1
  merge_and_report meas db.hpcdb report.json
}

# measure_timed_like_native PROGRAM [ARGS...]: measure_like_native, with the program's own timing
# of its phases (workload.h) written to timing.<pid> under the tool.
measure_timed_like_native() {
  run_to native "$@"
  HPCL_TEST_TIMING_FILE=$PWD/timing run_to tool "$HPCL_RUN" -e "soft@$SOFT_RATE" -o meas -- "$@"
  cat tool.err >&2
  same_as_native native tool
  expect_profiles meas 1
  merge_and_report meas db.hpcdb report.json
}

# check_work_in_each MIN_SAMPLES PROFILE...: each profile, merged on its own, holds at least
# MIN_SAMPLES samples in the array made by make_work_array (tests/programs/endings.c): the work
# its process did before it ended. MIN_SAMPLES "expected:E" asks for 4 Poisson standard
# deviations under E samples instead (tolerance.count_lower_bound).
check_work_in_each() {
  local min=$1 f i=0 bar
  shift
  bar=(--min-samples "$min")
  [[ $min == expected:* ]] && bar=(--expected "${min#expected:}")
  for f in "$@"; do
    i=$((i + 1))
    mkdir -p "one$i"
    cp "$f" "one$i/"
    merge_and_report "one$i" "one$i.db" "one$i.json"
    check work "one$i.json" --site make_work_array "${bar[@]}" ||
      fail "$(basename "$f") lacks the work done before the end"
  done
}

# profile_meta FILE KEY: prints the value of META KEY of a process profile, read from its bytes
# as docs/FORMAT.md lays them out (header, zstd payload through the zstd tool, first section),
# not through the analyzer. Fails the test when the file has no such key.
profile_meta() {
  command -v zstd >/dev/null 2>&1 || skip "zstd (the command) not found"
  "$HPCL_PYTHON" - "$1" "$2" <<'PY' || fail "$1 has no META $2"
import struct, subprocess, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"HPCLITE\x1a", "not an hpcl file"
flags = struct.unpack_from("<I", data, 24)[0]
payload = data[32:]
if flags & 1:
    payload = subprocess.run(["zstd", "-dcq"], input=payload, stdout=subprocess.PIPE, check=True).stdout
tag, _, length = struct.unpack_from("<IIQ", payload, 0)
assert tag == 1, "the first section is not META"
pos = 16
n = struct.unpack_from("<I", payload, pos)[0]
pos += 4
meta = {}
for _ in range(n):
    strs = []
    for _ in range(2):
        ln = struct.unpack_from("<I", payload, pos)[0]
        strs.append(payload[pos + 4:pos + 4 + ln].decode())
        pos += 4 + ln
    meta[strs[0]] = strs[1]
print(meta[sys.argv[2]])
PY
}
