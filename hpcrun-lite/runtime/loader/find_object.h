// Which loaded module holds an address, and where its unwind table is: the runtime's one entry
// point for the question, from signal handlers and allocation wrappers alike (issue 11).
//
// glibc 2.35 and later answer it with _dl_find_object, which is lock-free and async-signal-safe.
// Older glibcs (RHEL 8: 2.28, RHEL 9: 2.34, SLES 15: 2.31) do not have it, and their
// dl_iterate_phdr takes the loader's lock, which a handler must never wait for (DESIGN.md). There
// the answer comes from the runtime's copy of the program headers (phdr_snapshot.h), which is
// equally lock-free: a module loaded since the last snapshot is not found until the module scan
// that follows its dlopen refreshes the copy, and a lookup then fails as _dl_find_object fails
// for an address outside every module.
#pragma once

#include <cstdint>

namespace hpcrun {

struct CodeObject {
  uint64_t map_start = 0;  // lowest and one past the highest address of the module's PT_LOAD
  uint64_t map_end = 0;    // segments
  const void* eh_frame_hdr = nullptr;  // PT_GNU_EH_FRAME, null when the module has none
};

// Signal-safe, lock-free, allocates nothing, keeps errno. False when no loaded module maps `addr`.
bool find_object(const void* addr, CodeObject* out);

// Signal-safe, lock-free, allocates nothing, keeps errno: true when `addr` lies in memory that its
// module keeps read-only: a PT_LOAD segment without write permission (.rodata, the compiler's
// literal pools, .text) or its PT_GNU_RELRO range (read-only once relocated: vtables, the GOT).
// No thread writes there, so a load from it hits the cache after its first use: the soft
// sampler's rules take such a load for a constant (access_decode.cpp). Answered from the
// snapshot of the program headers (phdr_snapshot.h); false without one or outside every module.
bool constant_data(uint64_t addr);

// The two ways, for the tests that check they agree. find_object_loader is false on a glibc
// without _dl_find_object; find_object_snapshot is false before the first snapshot.
bool find_object_loader(const void* addr, CodeObject* out);
bool find_object_snapshot(const void* addr, CodeObject* out);

// True when find_object uses the snapshot: glibc without _dl_find_object, or the test variable
// HPCRUN_LITE_TEST_NO_DL_FIND_OBJECT=1 read by find_object_configure.
bool find_object_uses_snapshot();
// Reads the test variable; called once at start-up, outside signal context.
void find_object_configure();

}  // namespace hpcrun
