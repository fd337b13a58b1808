# Every dependency as an imported target, with what it is for. scripts/install-deps.sh installs them.
include(FeatureSummary)
find_package(PkgConfig REQUIRED)

find_package(zstd CONFIG REQUIRED)
set_package_properties(zstd PROPERTIES TYPE REQUIRED PURPOSE "Compresses profiles and databases")
if(TARGET zstd::libzstd_shared)
  add_library(hpcl::zstd ALIAS zstd::libzstd_shared)
else()
  add_library(hpcl::zstd ALIAS zstd::libzstd_static)
endif()

find_package(zydis CONFIG REQUIRED)
set_package_properties(zydis PROPERTIES TYPE REQUIRED PURPOSE "Decodes the sampled instruction to find its data address (signal-safe)")

pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)

# libpfm4 has no pkg-config file on Debian: found by header and library.
find_path(LIBPFM_INCLUDE_DIR perfmon/pfmlib_perf_event.h)
find_library(LIBPFM_LIBRARY NAMES pfm)
if(NOT LIBPFM_INCLUDE_DIR OR NOT LIBPFM_LIBRARY)
  message(FATAL_ERROR "libpfm4 not found (Debian: libpfm4-dev); it names the PEBS events per CPU model")
endif()
add_library(hpcl::pfm UNKNOWN IMPORTED)
set_target_properties(hpcl::pfm PROPERTIES IMPORTED_LOCATION ${LIBPFM_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${LIBPFM_INCLUDE_DIR})
add_feature_info(libpfm4 LIBPFM_LIBRARY "Encodes the PEBS load-latency and precise-store events per CPU model")

find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED)
set_package_properties(OpenMP PROPERTIES TYPE REQUIRED PURPOSE "Test programs and the bundled example are OpenMP codes")

# C++ for hpcprof-lite-mpi, through the C API (not the removed MPI C++ bindings).
set(MPI_CXX_SKIP_MPICXX ON)
find_package(MPI COMPONENTS C OPTIONAL_COMPONENTS CXX)
set_package_properties(MPI PROPERTIES TYPE RECOMMENDED
  PURPOSE "MPI example, multi-rank end-to-end tests, hpcprof-lite-mpi (the MPI-parallel merge)")

find_package(Boost 1.74 CONFIG COMPONENTS headers)
set_package_properties(Boost PROPERTIES TYPE RECOMMENDED PURPOSE "Boost.Container flat maps in the tree model")

# protobuf: report --format pprof writes pprof's profile.proto (gzipped by protobuf's own stream).
find_package(Protobuf REQUIRED)
set_package_properties(Protobuf PROPERTIES TYPE REQUIRED
  PURPOSE "report --format pprof: pprof's profile.proto (libprotobuf-dev, protobuf-compiler)")

pkg_check_modules(NCURSES IMPORTED_TARGET ncursesw)

# Header-only: CLI11::CLI11 and nlohmann_json::nlohmann_json are imported targets.
find_package(CLI11 CONFIG REQUIRED)
set_package_properties(CLI11 PROPERTIES TYPE REQUIRED
  PURPOSE "Command lines of hpcprof-lite and hpcprof-lite-mpi: subcommands, --help (libcli11-dev)")

if(HPCL_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
  set_package_properties(GTest PROPERTIES TYPE REQUIRED PURPOSE "Unit tests")
  find_package(nlohmann_json 3 CONFIG REQUIRED)
  set_package_properties(nlohmann_json PROPERTIES TYPE REQUIRED
    PURPOSE "Unit tests read the JSON reports back (nlohmann-json3-dev)")
endif()
if(HPCL_BUILD_BENCH)
  find_package(benchmark CONFIG)
  set_package_properties(benchmark PROPERTIES TYPE OPTIONAL PURPOSE "Micro-benchmarks in bench/")
endif()

# PAPI: the launcher compiles against papi.h for its structure layouts and opens libpapi with
# dlopen at run time, so neither the launcher's start nor the preloaded runtime depends on it.
find_path(PAPI_INCLUDE_DIR papi.h)
if(PAPI_INCLUDE_DIR)
  set(PAPI_FOUND TRUE)
  add_library(hpcl_papi_headers INTERFACE)
  target_include_directories(hpcl_papi_headers INTERFACE ${PAPI_INCLUDE_DIR})
  target_compile_definitions(hpcl_papi_headers INTERFACE HPCL_HAVE_PAPI_H=1)
endif()
set_package_properties(PAPI PROPERTIES TYPE RECOMMENDED
  PURPOSE "hpcrun-lite --check lists PAPI's components and presets, and -e PAPI_NAME is checked against them (libpapi-dev)")
