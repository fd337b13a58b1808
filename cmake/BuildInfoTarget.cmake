# hpcl_build_info: the generated header hpcl_build_info.h (HPCL_COMMIT, HPCL_VERSION_TEXT) for
# the commands' --version, refreshed at every build by cmake/BuildInfo.cmake.
set(HPCL_COMMIT "" CACHE STRING "The commit to print in --version when the source is not a git checkout")
set(_hpcl_info ${CMAKE_BINARY_DIR}/generated/hpcl_build_info.h)
add_custom_target(hpcl_build_info_header
  COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR} -DOUT=${_hpcl_info} -DCOMMIT=${HPCL_COMMIT}
          -P ${CMAKE_CURRENT_LIST_DIR}/BuildInfo.cmake
  BYPRODUCTS ${_hpcl_info}
  COMMENT "" VERBATIM)
add_library(hpcl_build_info INTERFACE)
target_include_directories(hpcl_build_info INTERFACE ${CMAKE_BINARY_DIR}/generated)
target_compile_definitions(hpcl_build_info INTERFACE HPCL_VERSION="${PROJECT_VERSION}")
add_dependencies(hpcl_build_info hpcl_build_info_header)
