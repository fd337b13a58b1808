// The NUMA placement of sampled pages (trees/numa.h): a row of the source table with no signal of
// its own. Every source's sampled access (on_access) logs its page in the thread's log, kept in
// the row's slot of the thread state; the log is resolved in batches, off the handler where it
// can be (move_pages is a system call per batch): when half full after the thread tracked a
// block, before a block whose page it holds goes back, at the thread's end, and for every thread
// at the process's end. On unless HPCRUN_LITE_NUMA=0.
#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "base/log.h"
#include "hpcl/profile.h"
#include "process/handler_gate.h"
#include "process/runtime.h"
#include "process/source_table.h"
#include "process/thread_state.h"
#include "sources/handler.h"
#include "sources/source_state.h"
#include "trees/numa.h"

namespace hpcrun {

extern const SourceOps kNumaPlacement;

namespace {

NumaLog& log_of(ThreadState* ts) { return source_state<NumaLog>(ts, kNumaPlacement); }

void numa_start(SourceStart& st) {
  const char* numa = getenv(kEnvNuma);
  if (st.cfg.sampling && !(numa && strcmp(numa, "0") == 0)) {
    int nodes = numa_init("/");
    if (int err = numa_probe()) {
      log_info("NUMA placement of sampled pages is off: move_pages fails here (%s)", strerror(err));
    } else {
      numa_enable(true);
      log_info("NUMA placement of sampled pages: %d node(s)", nodes);
    }
  } else if (st.cfg.page_fault_period) {
    // No placement lookups, but first touches are counted by their CPU's node (touch_node.h).
    numa_init("/");
  }
}

// In the sampling handler. sched_getcpu reads the rseq area glibc registers (a system call on
// older glibc): both async-signal-safe. The page's node is looked up later, in a batch.
void log_access(ThreadState* ts, const SampledAccess& a) {
  if (!numa_enabled()) return;
  const int cpu = a.cpu >= 0 ? a.cpu : sched_getcpu();
  if (cpu >= 0) log_of(ts).add(ts->cct, a.node, a.ea, uint32_t(cpu));
}

// On the thread itself, outside the handler (its allocation wrappers, its end): the handler
// writes the same log and tree, so the sampling signal is blocked meanwhile, and the process-end
// path (which resolves every log itself) waits for us through in_handler, as for a handler in
// flight.
void flush(ThreadState* ts) {
  if (!numa_enabled() || log_of(ts).size() == 0) return;
  ThreadSideGate gate(ts->in_handler, handler_stopped(), handler_signal());
  if (gate.owns_tree()) log_of(ts).flush(ts->cct);
}

// The placement's counts. With one node every page is local by construction, and the report
// says nothing of NUMA; the page-fault source maps its CPUs to nodes even without placement
// lookups, so the node count is written whenever the nodes were read.
void numa_write_meta(hpcl::Profile& p) {
  p.set_meta("numa", numa_enabled() ? "1" : "0");
  if (numa_enabled()) {
    NumaCounts nc = numa_counts();
    p.set_meta("numa_local", std::to_string(nc.local));
    p.set_meta("numa_remote", std::to_string(nc.remote));
    p.set_meta("numa_unresolved", std::to_string(nc.unresolved));
  }
  if (numa_enabled() || g_config.page_fault_period)
    p.set_meta("numa_nodes", std::to_string(numa_node_count()));
}

}  // namespace

// Last in the list (source_list.cpp): a thread's end resolves what its rings, just read by the
// rows before, logged; the process's end, once no handler runs, every thread's pending pages
// before the writer reads the trees. A state handed to a new thread keeps its log: the pages
// are counted in the tree it came with.
constinit const SourceOps kNumaPlacement = {
    .name = "numa placement",
    .init = numa_start,
    .stop_thread = flush,
    // Fork child: the parent's pages, not this process's.
    .forget = [](ThreadState* ts) { log_of(ts).clear(); },
    .on_access = log_access,
    .drain_all =
        [] {
          if (!numa_enabled()) return;
          for (ThreadState* t = threads_head(); t; t = t->next)
            if (!t->stale) log_of(t).flush(t->cct);
        },
    // This thread's log only, and only when it holds a page of the block; another thread's
    // samples of the block are placed at its own next flush and come out unresolved if the
    // pages are gone by then.
    .forgotten =
        [](ThreadState* ts, uint64_t lo, uint64_t hi) {
          if (log_of(ts).size() && log_of(ts).holds(lo, hi)) flush(ts);
        },
    .after_track =
        [](ThreadState* ts) {
          if (log_of(ts).half_full()) flush(ts);
        },
    .write_meta = numa_write_meta,
};

}  // namespace hpcrun
