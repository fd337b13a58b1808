// See stack_place.h.
#include "sources/stack_place.h"

#include "hpcl/ids.h"
#include "hpcl/stack_slot.h"
#include "loader/dynamic_tls.h"
#include "process/source_table.h"
#include "sources/source_state.h"

namespace hpcrun {

namespace {

// The frames that held this thread's last placed stack samples, for other threads' samples of
// the same storage: an OpenMP worker reading a local its master shares, which no walk of the
// worker's own frames reaches. In the row's slot of the thread state; written by the thread's
// own handler under a sequence count (odd while it writes), read by the other threads' handlers.
struct Cache {
  static constexpr int kEntries = 4;
  uint32_t seq;
  uint32_t next;  // the entry written next when no entry has the frame's CFA
  uint64_t pc[kEntries], cfa[kEntries], lo[kEntries], ret[kEntries];
};

Cache& cache_of(ThreadState* ts) { return source_state<Cache>(ts, kStackPlacement); }
const Cache& cache_of(const ThreadState* ts) { return source_state<Cache>(ts, kStackPlacement); }

template <typename T>
T load(const T& x) {
  return __atomic_load_n(&x, __ATOMIC_RELAXED);
}
template <typename T>
void store(T& x, T v) {
  __atomic_store_n(&x, v, __ATOMIC_RELAXED);
}
}  // namespace

void shared_frames_reset(ThreadState* ts) {
  Cache& c = cache_of(ts);
  const uint32_t seq = c.seq | 1;  // odd: being written (a reader may still look at the state)
  __atomic_store_n(&c.seq, seq, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  for (int k = 0; k < Cache::kEntries; ++k) store(c.cfa[k], uint64_t{0});
  __atomic_store_n(&c.seq, seq + 1, __ATOMIC_RELEASE);
}

void shared_frames_publish(ThreadState* ts, const FrameOwner& owner) {
  Cache& c = cache_of(ts);
  // The entry of the same frame (the same CFA), else the next in turn: a region's master keeps
  // the frame of the function that declared the shared array beside its own callees'.
  int k = 0;
  while (k < Cache::kEntries && c.cfa[k] != owner.cfa) ++k;
  if (k == Cache::kEntries) {
    k = int(c.next % Cache::kEntries);
    c.next = uint32_t(k + 1);
  } else if (c.pc[k] == owner.pc && c.lo[k] == owner.lo && c.ret[k] == owner.ret) {
    return;  // already there: no write, so readers see a stable count
  }
  const uint32_t seq = c.seq;
  __atomic_store_n(&c.seq, seq + 1, __ATOMIC_RELAXED);  // odd: being written
  __atomic_thread_fence(__ATOMIC_RELEASE);
  store(c.pc[k], owner.pc);
  store(c.cfa[k], owner.cfa);
  store(c.lo[k], owner.lo);
  store(c.ret[k], owner.ret);
  __atomic_store_n(&c.seq, seq + 2, __ATOMIC_RELEASE);
}

bool shared_frames_find(uint64_t addr, const ThreadState* self, FrameOwner* out) {
  const ThreadState* t = other_stack_thread(addr, self);
  if (t == nullptr) return false;
  const Cache& c = cache_of(t);
  const uint32_t seq = __atomic_load_n(&c.seq, __ATOMIC_ACQUIRE);
  if (seq & 1) return false;
  FrameOwner found;
  bool hit = false;
  for (int k = 0; k < Cache::kEntries && !hit; ++k) {
    const uint64_t lo = load(c.lo[k]), cfa = load(c.cfa[k]);
    if (cfa != 0 && addr >= lo && addr < cfa) {
      found = FrameOwner{load(c.pc[k]), cfa, lo, load(c.ret[k])};
      hit = true;
    }
  }
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (!hit || __atomic_load_n(&c.seq, __ATOMIC_RELAXED) != seq) return false;
  uint64_t word = 0;
  if (!safe_read(found.cfa - 8, &word, sizeof word) || word != found.ret) return false;
  *out = found;
  return true;
}

uint32_t place_on_stack(ThreadState* ts, const void* uc, uint64_t insn, uint64_t ea, uint32_t node) {
  using hpcl::NodeKind;
  Cct& c = ts->cct;
  const RtNode* n = c.at(node);
  if (n->kind != uint8_t(NodeKind::UnknownClass) || n->a != uint64_t(hpcl::UnknownClass::Stack))
    return node;
  FrameOwner frame;
  if (ea >= ts->stack_lo && ea < ts->stack_hi) {
    if (uc == nullptr || !ts->unwind_ready || !find_stack_owner(uc, insn, ea, &frame)) return node;
    shared_frames_publish(ts, frame);
  } else if (!shared_frames_find(ea, ts, &frame)) {
    return node;
  }
  const hpcl::StackSlotRange slot = hpcl::stack_slot(int64_t(ea - frame.cfa));
  if (slot.width == 0) return node;
  uint32_t owner = c.child(node, uint8_t(NodeKind::StackOwner), 0, frame.pc);
  if (owner == Cct::kNone) return node;
  uint32_t placed = c.child(owner, uint8_t(NodeKind::StackSlot), slot.width, uint64_t(slot.lo));
  return placed == Cct::kNone ? node : placed;
}

// First in the list (source_list.cpp): a reused thread state's published frames were its last
// thread's, whichever source places this one's stack samples.
constinit const SourceOps kStackPlacement = {
    .name = "stack placement",
    .start_thread = [](ThreadState* ts, bool) { shared_frames_reset(ts); },
};

}  // namespace hpcrun
