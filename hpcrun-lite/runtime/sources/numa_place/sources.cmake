# sources/numa_place/: the NUMA placement of every source's sampled pages (a row with no signal).
target_sources(hpcrun-lite-rt PRIVATE ${CMAKE_CURRENT_LIST_DIR}/numa_place.cpp)
