// The allocators' own entry points: jemalloc's *allocx (and its je_-prefixed names, where a build
// exports them), mimalloc's mi_*, TBB's scalable_*, tcmalloc's tc_*. Each family's file
// (api_jemalloc.cpp, api_mimalloc.cpp, api_tbb.cpp, api_tcmalloc.cpp) has a table of its
// functions with the runtime's wrapper for each; the wrappers track blocks like the malloc family
// (alloc_track.h), with the family's AllocApi. They are interposed only where an object calls
// them, through its GOT (got_patch.h): at start-up and for each object a dlopen brings, a
// relocation against a name of a table gets that name's wrapper, and the real function is what
// the loader finds for the name (dlsym(RTLD_DEFAULT)). A program without the allocator is left
// exactly as it was.
#pragma once

#include <link.h>

#include <atomic>
#include <cstddef>

namespace hpcrun {

struct ApiEntry {
  const char* name;
  void* wrapper;  // null: resolved only, for another wrapper (a throwing call's nothrow form)
  std::atomic<void*> real;
};

// The family tables, in their files.
struct ApiTable {
  ApiEntry* entries;
  size_t count;
};
ApiTable jemalloc_api();
ApiTable mimalloc_api();
ApiTable tbb_api();
ApiTable tcmalloc_api();

// The real function of an entry (resolved before its wrapper can be reached).
template <typename F>
inline F real_api(const ApiEntry& e) {
  return reinterpret_cast<F>(e.real.load(std::memory_order_relaxed));
}

// A wrapper's address for a table entry.
template <typename F>
inline void* api_fn(F f) {
  return reinterpret_cast<void*>(f);
}

// Points the calls of one newly loaded object at the wrappers (modules_set_on_new's callback).
// Not signal-safe; the module scan's caller holds the runtime guard and the scan lock.
void allocator_apis_on_object(const dl_phdr_info* info);

}  // namespace hpcrun
