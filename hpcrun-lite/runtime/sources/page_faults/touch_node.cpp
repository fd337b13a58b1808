// See touch_node.h.
#include "sources/page_faults/touch_node.h"

#include "trees/numa.h"
#include "trees/cct.h"

namespace hpcrun {

bool count_touch_node(Cct& c, uint32_t node, uint32_t cpu) {
  const int numa = numa_cpu_node(cpu);
  if (numa < 0 || numa >= kMaxTouchNodes) return false;
  MemCounts* m = c.mem(node);
  if (m == nullptr) return false;
  m->touch_node[numa] += 1;
  return true;
}

}  // namespace hpcrun
