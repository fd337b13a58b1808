# Binary packages of the install tree (issue 39): `cpack -G DEB` in the build directory, and
# `cpack -G RPM` where rpmbuild is found, package exactly what cmake/Install.cmake installs, under
# /usr (CPACK_PACKAGING_INSTALL_PREFIX). Included from the top-level CMakeLists.txt after
# include(Install). tests/packaging/deb_install.sh builds the .deb, installs it into a scratch
# root and measures a program with it.
#
# The prefix. CPack installs the same rules with CMAKE_INSTALL_PREFIX replaced by /usr, and every
# destination in Install.cmake is relative (GNUInstallDirs), so bin/, lib*/ and libexec/ keep the
# relation that HPCL_BIN_TO_LIB and HPCL_BIN_TO_LIBEXEC (CMakeLists.txt, computed at configure
# time) give the launcher: the package works whatever prefix was configured. Which library
# directory that is, though, GNUInstallDirs chooses from CMAKE_INSTALL_PREFIX at configure time:
# lib/<multiarch> (Debian's layout) only when the prefix is /usr, plain lib/ for the default
# /usr/local. So configure a build that is to be packaged with
#     cmake -S . -B build-pkg -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE=RelWithDebInfo
# (-DHPCL_BUILD_TESTS=OFF -DHPCL_BUILD_BENCH=OFF shorten the build); one configured for /usr/local
# gives a package that works but puts libhpcrun-lite.so and the CMake and pkg-config files in
# /usr/lib. An absolute CMAKE_INSTALL_LIBDIR, BINDIR or LIBEXECDIR would break that relation inside
# the package: such a configuration gets no CPack configuration (below).
#
# Dependencies. dpkg-shlibdeps computes Depends from the binaries' NEEDED entries
# (CPACK_DEBIAN_PACKAGE_SHLIBDEPS). It cannot see what the tool opens with dlopen: libpfm4 (the
# PEBS event encodings, runtime and `--check`) and libunwind (the runtime's unwinder), always
# listed; PAPI, only for -e PAPI_NAME, is suggested. Where cpack runs without dpkg-shlibdeps, or
# with `cpack -G DEB -D CPACK_DEBIAN_PACKAGE_SHLIBDEPS=OFF` (dpkg-shlibdeps failing), Depends is the
# explicit list below, Debian 12's names of what the binaries link (CPackProjectConfig.cmake,
# read by cpack at packaging time). Package names are Debian 12's (bookworm); other releases rename
# some of them (libprotobuf32, libzydis4.0, libpapi7.0).
#
# Stripped (CPACK_STRIP_FILES): 15 MB installed instead of 140 MB of RelWithDebInfo. The stripped
# tools measure, merge and report as before, and `hpcrun-lite --check --validate` passes with the
# stripped kernel (checked); only the runtime's own frames, in the rare samples taken inside it,
# lose their function names. The build tree keeps the debug information.
include_guard(GLOBAL)

foreach(_hpcl_dir BINDIR LIBDIR LIBEXECDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_hpcl_dir}}")
    message(WARNING "Packaging: CMAKE_INSTALL_${_hpcl_dir} is absolute (${CMAKE_INSTALL_${_hpcl_dir}}): "
      "the launcher finds its runtime by a path relative to bin/, which a package under "
      "CPACK_PACKAGING_INSTALL_PREFIX keeps only for relative install directories; no CPack "
      "configuration is written (cmake --install still works)")
    return()
  endif()
endforeach()

# CPACK_* values reach cpack as written here (the source ignore patterns' backslashes, the
# description's line ends).
set(CPACK_VERBATIM_VARIABLES TRUE)
set(CPACK_PACKAGE_NAME hpcrun-lite)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "hpcrun-lite team")
set(CPACK_PACKAGE_CONTACT "hpcrun-lite team")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "data-centric memory profiler for MPI+OpenMP programs")
# One paragraph, in lines of Debian's width (the control file keeps them as they are).
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
  "hpcrun-lite measures which variables the memory accesses of a program go to:"
  "each heap allocation (named by the call path that allocated it), each static"
  "array, the stack, and from which code each of them is accessed. It runs"
  "unmodified MPI+OpenMP programs on Linux/x86-64 under a launcher that preloads"
  "its runtime, samples addresses with precise hardware events (PEBS, IBS) where"
  "the machine has them and in software elsewhere, and needs no root."
  "hpcprof-lite merges the per-process profiles into a database and reports it"
  "as text, JSON, CSV, folded stacks, HTML or pprof; hpcprof-lite-mpi merges in"
  "parallel under MPI; hpcviewer-tui browses a database in a terminal. A header"
  "(hpcrun-lite.h) lets a program name the parts of its own memory pools.")
# The README names no home page; set one here (and in the Spack recipe) once there is one.
set(CPACK_PACKAGE_HOMEPAGE_URL "")
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
if(NOT DEFINED CPACK_PACKAGING_INSTALL_PREFIX)
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
endif()
if(NOT CMAKE_INSTALL_PREFIX STREQUAL CPACK_PACKAGING_INSTALL_PREFIX)
  message(STATUS "Packaging: configured for ${CMAKE_INSTALL_PREFIX}, packages install under "
    "${CPACK_PACKAGING_INSTALL_PREFIX} with libraries in ${CMAKE_INSTALL_LIBDIR}/; configure with "
    "-DCMAKE_INSTALL_PREFIX=${CPACK_PACKAGING_INSTALL_PREFIX} for the distribution's library directory")
endif()
set(CPACK_STRIP_FILES ON)

find_program(HPCL_RPMBUILD rpmbuild)
mark_as_advanced(HPCL_RPMBUILD)
set(CPACK_GENERATOR DEB)
if(HPCL_RPMBUILD)
  list(APPEND CPACK_GENERATOR RPM)
endif()

# Debian.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # hpcrun-lite_0.1.0-1_amd64.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "hpcrun-lite team")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Opened with dlopen, so invisible to dpkg-shlibdeps (see above); CPack adds the computed ones.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libpfm4, libunwind8")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libpapi7.0, openmpi-bin")
# Depends when dpkg-shlibdeps is not used: what `dpkg-shlibdeps` gives for this build on Debian 12
# (tests/packaging/deb_install.sh prints it), without versions.
set(CPACK_HPCL_DEB_FALLBACK_DEPENDS
  "libc6 (>= 2.35), libgcc-s1, libstdc++6, libzstd1, libdw1, libelf1, libzydis4.0, libprotobuf32")
if(TARGET hpcprof-lite-mpi)
  string(APPEND CPACK_HPCL_DEB_FALLBACK_DEPENDS ", libopenmpi3")
endif()
if(TARGET hpcviewer-tui)
  string(APPEND CPACK_HPCL_DEB_FALLBACK_DEPENDS ", libncursesw6, libtinfo6")
endif()

# RPM (where rpmbuild is installed): rpmbuild's automatic requirements cover what is linked.
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_RELEASE 1)
set(CPACK_RPM_PACKAGE_GROUP "Development/Tools")
set(CPACK_RPM_PACKAGE_SUMMARY "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}")
set(CPACK_RPM_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_RPM_PACKAGE_LICENSE "unknown")  # the repository has no licence file yet
set(CPACK_RPM_PACKAGE_AUTOREQ ON)
set(CPACK_RPM_PACKAGE_REQUIRES "libpfm, libunwind")  # dlopened
# No Suggests: papi: CPack drops that tag, with a warning, where rpmbuild lacks it (Debian's does).
# Directories other packages own; the package lists only its own files there.
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
  ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}
  ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/cmake
  ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig
  ${CPACK_PACKAGING_INSTALL_PREFIX}/share/bash-completion
  ${CPACK_PACKAGING_INSTALL_PREFIX}/share/bash-completion/completions
  ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBEXECDIR}
  ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_MANDIR}
  ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_MANDIR}/man1)

# `make package_source`: the source tree without build directories, runs and git.
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_PACKAGE_FILE_NAME ${CPACK_PACKAGE_NAME}-${CPACK_PACKAGE_VERSION})
string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" _hpcl_src_re "${PROJECT_SOURCE_DIR}")
set(CPACK_SOURCE_IGNORE_FILES "/\\.git/" "^${_hpcl_src_re}/build[^/]*/" "^${_hpcl_src_re}/demo-runs/")
if(NOT CMAKE_BINARY_DIR STREQUAL PROJECT_SOURCE_DIR)
  string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" _hpcl_bin_re "${CMAKE_BINARY_DIR}")
  list(APPEND CPACK_SOURCE_IGNORE_FILES "^${_hpcl_bin_re}/")
endif()

# Read by cpack, for each generator, on the machine that packages: without dpkg-shlibdeps (or with
# it turned off by -D), Depends is the explicit list.
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/generated/CPackProjectConfig.cmake)
file(WRITE ${CPACK_PROJECT_CONFIG_FILE} [=[
# Generated by cmake/Packaging.cmake: read by cpack for each generator.
# The source package (package_source: CPACK_INSTALLED_DIRECTORIES) lists the tree at its top, not
# under the binary packages' /usr.
if(CPACK_INSTALLED_DIRECTORIES)
  set(CPACK_PACKAGING_INSTALL_PREFIX "/")
endif()
if(CPACK_GENERATOR STREQUAL "DEB")
  if(CPACK_DEBIAN_PACKAGE_SHLIBDEPS)
    find_program(HPCL_DPKG_SHLIBDEPS dpkg-shlibdeps)
    find_program(HPCL_FILE file)
    if(NOT HPCL_DPKG_SHLIBDEPS OR NOT HPCL_FILE)
      message(STATUS "hpcrun-lite: dpkg-shlibdeps or file not found: Depends is the explicit Debian 12 list")
      set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
    endif()
  endif()
  if(NOT CPACK_DEBIAN_PACKAGE_SHLIBDEPS AND NOT CPACK_DEBIAN_PACKAGE_DEPENDS MATCHES "libc6")
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CPACK_HPCL_DEB_FALLBACK_DEPENDS}, ${CPACK_DEBIAN_PACKAGE_DEPENDS}")
  endif()
endif()
]=])

include(CPack)
