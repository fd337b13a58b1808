// Each sampling source's per-thread state, kept in a slot of ThreadState that only the source
// reads and writes (thread_state.h: source_slots): the thread's state names no source's fields,
// and a new source takes a slot here instead of fields there. A slot lives in the thread state's
// mmap'd memory, zeroed when first mapped and never constructed: a source's state type is plain
// data (trivially destructible), and SourceOps::init_state gives it its first values (-1 for a
// descriptor) whenever the slot gets a new owner.
#pragma once

#include <new>
#include <type_traits>

#include "process/source_table.h"
#include "process/thread_state.h"

namespace hpcrun {

// A row's slot is its place in the list (sources/source_list.cpp), so a new source needs no
// number of its own; the list's length is checked against the slots there is room for.
template <class T>
T& source_state(ThreadState* ts, const SourceOps& row) {
  static_assert(sizeof(T) <= kSourceSlotBytes, "a source's thread state outgrew its slot");
  static_assert(alignof(T) <= alignof(SourceSlotBytes), "a source's thread state is over-aligned");
  static_assert(std::is_trivially_destructible_v<T>, "a slot is never destroyed");
  return *std::launder(reinterpret_cast<T*>(ts->source_slots[source_index(row)].bytes));
}

template <class T>
const T& source_state(const ThreadState* ts, const SourceOps& row) {
  return source_state<T>(const_cast<ThreadState*>(ts), row);
}

}  // namespace hpcrun
