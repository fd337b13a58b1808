// See source_table.h. Each row adapts one source's own functions; the walks below are the only
// places that know there is more than one source.
#include "sources/source_table.h"

#include "base/clock.h"
#include "process/handler_gate.h"
#include "process/thread_state.h"
#include "sources/hw/hw_source.h"
#include "sources/numa/numa.h"
#include "sources/page_faults/page_faults.h"
#include "sources/papi/papi_source.h"
#include "sources/soft/sampler.h"
#include "sources/watch/watch.h"

namespace hpcrun {

namespace {

const SourceOps kSoft = {
    "soft", [](ThreadState* ts, bool) { sampler_start_thread(ts); }, false, sampler_stop_thread,
    sampler_forget, true, nullptr, nullptr, sampler_halt_all, nullptr, nullptr, nullptr};

const SourceOps kPageFaults = {
    "page-faults", [](ThreadState* ts, bool) { pagefaults_start_thread(ts); }, false,
    pagefaults_stop_thread, pagefaults_forget, true,
    [](ThreadState* ts, int fd, void*) { return pagefaults_on_wake(ts, fd); },
    pagefaults_on_timer, pagefaults_halt_all, pagefaults_drain_all, pagefaults_before_forget,
    pagefaults_write_meta};

const SourceOps kHardware = {
    "hardware", [](ThreadState* ts, bool) { hw_start_thread(ts); }, false, hw_stop_thread,
    hw_forget, true, [](ThreadState* ts, int fd, void* uc) { return hw_on_signal(ts, fd, uc); },
    nullptr, hw_halt_all, hw_drain_all, hw_before_forget, hw_write_meta};

const SourceOps kWatch = {"watchpoints", watch_start_thread, false, watch_stop_thread,
                          watch_forget, true, watch_on_signal, nullptr, watch_stop_all, nullptr,
                          nullptr, watch_write_meta};

// PAPI registers the calling thread with the library: only the thread itself can start it, and
// a fork child inherits none of PAPI's per-thread state.
const SourceOps kPapi = {"papi", [](ThreadState* ts, bool) { papi_start_thread(ts); }, true,
                         papi_stop_thread, papi_forget, false, nullptr, nullptr, papi_stop_all,
                         nullptr, nullptr, papi_write_meta};

// The rows, in the order threads start them and the handler asks them.
const SourceOps* const kTable[] = {&kSoft, &kPageFaults, &kHardware, &kWatch, &kPapi};

}  // namespace

void sources_start_thread(ThreadState* ts, bool self) {
  for (const SourceOps* s : kTable)
    if (self || !s->needs_self) s->start_thread(ts, self);
}

void sources_settle_thread(ThreadState* ts) {
  for (const SourceOps* s : kTable)
    if (s->needs_self) s->start_thread(ts, true);
}

void sources_stop_thread(ThreadState* ts) {
  for (const SourceOps* s : kTable) s->stop_thread(ts);
  // Last: the rings just read may have logged pages.
  sampler_numa_flush(ts);
}

void sources_forget(ThreadState* ts) {
  for (const SourceOps* s : kTable) s->forget(ts);
}

void sources_restart_in_child(ThreadState* ts) {
  for (const SourceOps* s : kTable)
    if (s->restarts_in_child) s->start_thread(ts, true);
}

bool sources_on_signal(ThreadState* ts, int fd, void* ucontext) {
  for (const SourceOps* s : kTable)
    if (s->on_signal && s->on_signal(ts, fd, ucontext)) return true;
  return false;
}

void sources_on_tick(ThreadState* ts) {
  for (const SourceOps* s : kTable)
    if (s->on_tick) s->on_tick(ts);
}

void sources_before_forget(ThreadState* ts) {
  for (const SourceOps* s : kTable)
    if (s->before_forget) s->before_forget(ts);
}

void sources_stop_all() {
  for (const SourceOps* s : kTable) s->halt_all();
  // A signal raised just before the events were disabled may still be running its handler on
  // another thread; wait for it before the trees are read (bounded), never for this thread's
  // own handler: the writer may run in a signal that interrupted it.
  const uint64_t deadline = monotonic_ns() + kHandlerQuietMaxNs;
  for (ThreadState* t = threads_head(); t; t = t->next)
    if (t != t_state) wait_handler_quiet(t->in_handler, deadline);
  for (const SourceOps* s : kTable)
    if (s->drain_all) s->drain_all();
  // No handler runs any more: every thread's pending pages, before the writer reads the trees.
  if (numa_enabled())
    for (ThreadState* t = threads_head(); t; t = t->next)
      if (!t->stale) t->numa.flush(t->cct);
}

void sources_write_meta(hpcl::Profile& p) {
  for (const SourceOps* s : kTable)
    if (s->write_meta) s->write_meta(p);
}

}  // namespace hpcrun
