# sources/soft/: the software address sampler: the timer and its tick. The instruction decoder it
# asks for each sample's data address is runtime/decode/, which the watchpoint source shares.
# Included by hpcrun-lite/CMakeLists.txt, as every sources/*/sources.cmake: what only the
# preloaded library has (hpcrun-lite-rt).
target_sources(hpcrun-lite-rt PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sampler.cpp)
