# What `cmake --install build --prefix P` puts where (GNU directories under P):
#   bin/                         hpcrun-lite, hpcprof-lite, hpcprof-lite-mpi, hpcviewer-tui
#   lib*/libhpcrun-lite.so       the runtime the launcher preloads (found relative to the launcher)
#   libexec/hpcrun-lite/         the built-in kernel of `hpcrun-lite --check --validate`
#   include/                     hpcrun-lite.h, hpcrun_lite.f90 (the naming API)
#   lib*/cmake/hpcrun-lite/      find_package(hpcrun-lite): the target hpcrun-lite::api
#   lib*/pkgconfig/hpcrun-lite.pc
#   share/man/man1/, share/doc/hpcrun-lite/, share/bash-completion/completions/
#   share/hpcrun-lite/modulefiles/hpcrun-lite/VERSION.lua   an Lmod modulefile
# cmake/Packaging.cmake makes .deb (and .rpm) packages of the same rules.
# Nothing in the prefix names the prefix: the launcher finds its runtime and kernel from its own
# path, the package files from theirs, so a prefix that is copied or moved keeps working.

set(_hpcl_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/hpcrun-lite)

foreach(cmd hpcrun-lite hpcprof-lite hpcprof-lite-mpi hpcviewer-tui)
  if(TARGET ${cmd})
    install(TARGETS ${cmd} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
install(TARGETS hpcrun-lite-rt LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS hpcrun-lite-validate-kernel RUNTIME DESTINATION ${HPCL_INSTALL_LIBEXECDIR})

install(TARGETS hpcrun_lite_api EXPORT hpcrun-lite-targets)
install(FILES ${PROJECT_SOURCE_DIR}/include/hpcrun-lite.h ${PROJECT_SOURCE_DIR}/include/hpcrun_lite.f90
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT hpcrun-lite-targets NAMESPACE hpcrun-lite:: DESTINATION ${_hpcl_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/hpcrun-liteConfig.cmake.in
  ${CMAKE_BINARY_DIR}/generated/hpcrun-liteConfig.cmake INSTALL_DESTINATION ${_hpcl_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/hpcrun-liteConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_BINARY_DIR}/generated/hpcrun-liteConfig.cmake
  ${CMAKE_BINARY_DIR}/generated/hpcrun-liteConfigVersion.cmake DESTINATION ${_hpcl_cmake_dir})

# pkg-config: the include directory relative to the .pc file, so a moved prefix still resolves.
file(RELATIVE_PATH _hpcl_pc_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${CMAKE_CURRENT_LIST_DIR}/hpcrun-lite.pc.in ${CMAKE_BINARY_DIR}/generated/hpcrun-lite.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/generated/hpcrun-lite.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# A manual page per command; the one completion file under each command's name, as
# bash-completion loads a command's completion from the file named after it on its first TAB.
foreach(cmd hpcrun-lite hpcprof-lite hpcprof-lite-mpi hpcviewer-tui)
  install(FILES ${PROJECT_SOURCE_DIR}/docs/man/${cmd}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/bash-completion/hpcrun-lite
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ${cmd})
endforeach()

# An Lmod modulefile (module use P/share/hpcrun-lite/modulefiles; module load hpcrun-lite): its
# prefix is the path from its directory up to P, so a moved prefix keeps it working.
set(_hpcl_module_dir ${CMAKE_INSTALL_DATADIR}/hpcrun-lite/modulefiles/hpcrun-lite)
file(RELATIVE_PATH PREFIX ${CMAKE_INSTALL_PREFIX}/${_hpcl_module_dir} ${CMAKE_INSTALL_PREFIX})
set(VERSION ${PROJECT_VERSION})
configure_file(${PROJECT_SOURCE_DIR}/packaging/modules/hpcrun-lite.lua.in
  ${CMAKE_BINARY_DIR}/generated/modulefiles/${PROJECT_VERSION}.lua @ONLY)
unset(PREFIX)
unset(VERSION)
install(FILES ${CMAKE_BINARY_DIR}/generated/modulefiles/${PROJECT_VERSION}.lua DESTINATION ${_hpcl_module_dir})

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The documents only: the manual pages' folder (docs/man) goes to share/man above.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md"
  PATTERN "man" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/examples/heat2d.c ${PROJECT_SOURCE_DIR}/examples/named_pool.c
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
