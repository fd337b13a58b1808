# sources/soft/: the software address sampler: the timer, its handler, instruction decoding.
# Included by hpcrun-lite/CMakeLists.txt, as every sources/*/sources.cmake: what the unit tests
# link (hpcrun_rt_core) and what only the preloaded library has (hpcrun-lite-rt).
target_sources(hpcrun_rt_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/access_decode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pc_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eh_frame_bounds.cpp)
target_sources(hpcrun-lite-rt PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sampler.cpp)
