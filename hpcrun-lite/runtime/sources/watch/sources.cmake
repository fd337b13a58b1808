# sources/watch/: debug-register watchpoints: false sharing and reuse.
# Included by hpcrun-lite/CMakeLists.txt, as every sources/*/sources.cmake: what the unit tests
# link (hpcrun_rt_core) and what only the preloaded library has (hpcrun-lite-rt).
target_sources(hpcrun_rt_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/watch_table.cpp)
target_sources(hpcrun-lite-rt PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/watch.cpp)
