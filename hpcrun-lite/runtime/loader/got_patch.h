// Interposition through a loaded object's global offset table rather than by defining the
// symbol: the runtime defines no `mallocx`, `mi_malloc`, `tc_malloc` or `scalable_malloc` of its
// own, so a program that probes for an allocator (a weak reference, dlsym) finds it only when
// the allocator is really there; where an object does call one, its GOT slot is pointed at the
// runtime's wrapper, which calls the allocator.
//
// For each relocation of the object that binds a symbol to a slot (R_X86_64_JUMP_SLOT, GLOB_DAT,
// and 64 with addend 0), a symbol whose name `lookup` knows gets the address `lookup` returns.
// Slots in the object's RELRO segment are made writable for the write and read-only again.
// Called outside signal context, for each object once, after the loader relocated it (at
// start-up and after each dlopen); a slot is one aligned 8-byte store, so threads calling through
// it meanwhile see the old or the new target.
#pragma once

#include <link.h>

#include <cstddef>

namespace hpcrun {

// The wrapper for a symbol name, or null to leave the slot alone.
using GotLookup = void* (*)(const char* name);

// Returns the number of slots pointed at wrappers.
int got_patch_object(const dl_phdr_info* info, GotLookup lookup);

}  // namespace hpcrun
