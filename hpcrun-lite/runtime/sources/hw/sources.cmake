# sources/hw/: the hardware sources (PEBS, IBS) through perf_event_open: records, their decoding, the ring's drain.
# Included by hpcrun-lite/CMakeLists.txt, as every sources/*/sources.cmake: what the unit tests
# link (hpcrun_rt_core) and what only the preloaded library has (hpcrun-lite-rt).
target_sources(hpcrun_rt_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/data_src.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sample_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hw_sample.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hw_drain.cpp)
target_sources(hpcrun-lite-rt PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/hw_source.cpp)
