// See classify.h.
#include "sources/classify.h"

#include <unistd.h>

#include "hpcl/ids.h"
#include "loader/modules.h"
#include "memory/heap_map.h"
#include "memory/offset_hist.h"
#include "memory/regions.h"
#include "memory/track_control.h"
#include "process/runtime.h"
#include "process/thread_state.h"
#include "python/py_paths.h"
#include "trees/cct.h"
#include "unwind/unwind.h"

namespace hpcrun {

using hpcl::NodeKind;

// The order matters: a thread's static TLS lies inside its stack mapping, so TLS is looked up
// before stacks; dynamic TLS needs system calls (dynamic_tls.h), so it comes last, when
// nothing cheaper claimed the address. glibc mallocs dynamic TLS blocks, so a tracked heap
// block of a TLS block's size is checked against the threads' DTVs first.
//
// Without `est` (a page fault, not a sample) neither the offset histograms nor the
// Horvitz-Thompson estimates change: they describe samples.
uint32_t classify_address(Cct& c, uint64_t ea, const ThreadState* ts, SampleEstimate* est) {
  BlockInfo blk;
  StaticHit hit;
  auto static_node = [&] {
    if (est) offsets_count(ea, ts->fs_base, nullptr, &hit);
    return c.child(kCctStaticRoot, uint8_t(NodeKind::StaticVarNode), hit.module, uint64_t(hit.symbol));
  };
  // The block, its chunk header (malloc and free of its neighbours read and write it), or the
  // block this thread is freeing right now (free() reads its header and writes its first bytes
  // after the wrapper took it out of the map).
  if (find_variable_block(g_heap, t_freeing, ea, &blk)) {
    if (modules_maybe_dynamic_tls_block(blk.size) && threads_find_tls(ea, ts, true, &hit))
      return static_node();
    if (est && blk.weight > 1)
      *est = SampleEstimate::of(blk.weight, blk.ref ? g_heap.add_hit(blk.ref) : 0);
    if (est && ea >= blk.start) offsets_count(ea, ts->fs_base, &blk, nullptr);  // not in its header
    return c.child(kCctHeapRoot, uint8_t(NodeKind::HeapVar), blk.site, 0);
  }
  if (modules_find_static(ea, ts->fs_base, &hit) || threads_find_tls(ea, ts, false, &hit))
    return static_node();
  const bool stack = address_on_a_stack(ea, ts);
  if (!stack && threads_find_tls(ea, ts, true, &hit)) return static_node();
  auto cls = hpcl::UnknownClass::Other;
  if (stack)
    cls = hpcl::UnknownClass::Stack;
  // sbrk(0) returns glibc's cached break (a brk system call at most): async-signal-safe.
  else if (g_heap_extent.contains(ea, reinterpret_cast<uint64_t>(sbrk(0))) || in_allocator_arena(ea))
    cls = hpcl::UnknownClass::UntrackedHeap;
  return c.child(kCctUnknownRoot, uint8_t(NodeKind::UnknownClass), uint64_t(cls), 0);
}

uint32_t attach_access_path(Cct& c, uint32_t node, const ThreadState* ts, const uint64_t* frames,
                            int n) {
  // Code run by the Python interpreter: under the Python lines that ran it (py_paths.h).
  uint64_t spliced[kMaxSampleFrames];
  if (int k = python_sample_path(frames, n, spliced, kMaxSampleFrames); k >= 0) {
    frames = spliced;
    n = k;
  }
  // The tree runs from the outermost caller down to the sampled instruction; outermost of all
  // is the path that created this thread (none for the main thread).
  for (int i = int(ts->ncreator) - 1; i >= 0 && node != Cct::kNone; --i)
    node = c.child(node, uint8_t(NodeKind::Frame), 0, ts->creator[i]);
  for (int i = n - 1; i >= 0 && node != Cct::kNone; --i)
    node = c.child(node, uint8_t(NodeKind::Frame), 0, frames[i]);
  return node;
}

}  // namespace hpcrun
