#!/usr/bin/env bash
# Installs every Debian package the project needs to build, test, benchmark and demo.
# Idempotent and non-interactive: packages already present are not fetched again, and
# `apt-get update` runs only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libzydis-dev        # x86 decoder for the software address sampler (signal-safe, no allocation)
  libdw-dev libelf-dev  # elfutils: symbolization (libdw) and symbol-table reading (libelf)
  libunwind-dev       # unw_backtrace for allocation and sample call paths
  libzstd-dev zstd    # profile compression
  libboost-dev        # Boost.Container (flat maps in the tree model); Boost.Pool in e2e.names_pools
  libjemalloc-dev libgoogle-perftools-dev libmimalloc-dev libtbb-dev
                      # the allocators the e2e tests link (e2e.alloc_*): jemalloc, tcmalloc, mimalloc, TBB
  libgtest-dev libgmock-dev  # unit tests
  libbenchmark-dev    # micro-benchmarks
  libncurses-dev      # hpcviewer-tui
  libcli11-dev        # command lines of hpcprof-lite and hpcprof-lite-mpi (header-only)
  nlohmann-json3-dev  # unit tests read JSON reports back (header-only)
  chromium            # e2e report_html: renders the HTML export headless
  tmux                # hpcviewer-tui tested in a real terminal (tests/e2e/viewer_tmux.sh)
  strace              # a ptrace tracer: e2e.timer_signal checks the timer's signal under a debugger
  libprotobuf-dev protobuf-compiler zlib1g-dev
                      # report --format pprof: pprof's profile.proto, gzipped
  golang-go           # e2e.report_pprof reads the export back with `go tool pprof`
  libpfm4-dev         # event names for hardware sources
  libpapi-dev         # PAPI: --check lists its components, -e PAPI_NAME (launcher dlopens it)
  libopenmpi-dev openmpi-bin  # MPI example and end-to-end tests
  slurm-wlm munge libpmix-dev # e2e.slurm: a one-node Slurm of the test's own (srun --mpi=pmix loads libpmix.so)
  file lua5.4 lmod    # packaging.*: dpkg-shlibdeps needs file; the modulefile is parsed (luac5.4) and loaded (Lmod)
  man-db              # docs.man_pages, e2e.install_prefix: the manual pages rendered with man -l
  python3             # JSON checks in end-to-end tests
  python3-mpi4py python3-numpy  # e2e.mpi_python, e2e.python_arrays: Python MPI programs under the tool
  python3-pandas      # e2e.report_hatchet reads the Hatchet export into a DataFrame as Hatchet's reader does
  gpaw                # e2e.python_gpaw: a real Python + MPI application (284 MB with its dependencies)
  python3-dev         # the Python frame reader's unit tests embed Debian's CPython (pkg-config python3-embed)
  clang ninja-build   # libFuzzer targets of the readers (scripts/fuzz.sh builds them with Ninja; ctest fuzz.readers_short)
  heaptrack           # benchmark peer
  lammps              # lmp: the real-application end-to-end test and case study (14 MB, 5 s)
  libeigen3-dev       # e2e.cxx_fields: an Eigen vector among a C++ program's arrays (header-only)
  openfoam openfoam-examples  # e2e.mpi_openfoam, bench/openfoam_merge.sh: a big C++ MPI code and one of its tutorial cases (210 MB)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
