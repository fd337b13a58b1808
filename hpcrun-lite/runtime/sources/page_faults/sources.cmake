# sources/page_faults/: first touch: the page-fault source.
# Included by hpcrun-lite/CMakeLists.txt, as every sources/*/sources.cmake: what the unit tests
# link (hpcrun_rt_core) and what only the preloaded library has (hpcrun-lite-rt).
target_sources(hpcrun_rt_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/fault_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/touch_node.cpp)
target_sources(hpcrun-lite-rt PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/page_faults.cpp)
