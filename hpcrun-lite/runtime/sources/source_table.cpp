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
#include "sources/stack_place.h"
#include "sources/watch/watch.h"

namespace hpcrun {

namespace {

const SourceOps kSoft = {
    .name = "soft",
    .start_thread = [](ThreadState* ts, bool) { sampler_start_thread(ts); },
    .stop_thread = sampler_stop_thread,
    .forget = sampler_forget,
    .restarts_in_child = true,
    .halt_all = sampler_halt_all,
};

const SourceOps kPageFaults = {
    .name = "page-faults",
    .init_state = pagefaults_init_state,
    .thread_fds = pagefaults_thread_fds,
    .start_thread = [](ThreadState* ts, bool) { pagefaults_start_thread(ts); },
    .stop_thread = pagefaults_stop_thread,
    .forget = pagefaults_forget,
    .restarts_in_child = true,
    .on_signal = [](ThreadState* ts, int fd, void*) { return pagefaults_on_wake(ts, fd); },
    .on_tick = pagefaults_on_timer,
    .halt_all = pagefaults_halt_all,
    .drain_all = pagefaults_drain_all,
    .before_forget = pagefaults_before_forget,
    .write_meta = pagefaults_write_meta,
};

const SourceOps kHardware = {
    .name = "hardware",
    .init_state = hw_init_state,
    .start_thread = [](ThreadState* ts, bool) { hw_start_thread(ts); },
    .stop_thread = hw_stop_thread,
    .forget = hw_forget,
    .restarts_in_child = true,
    .on_signal = [](ThreadState* ts, int fd, void* uc) { return hw_on_signal(ts, fd, uc); },
    .halt_all = hw_halt_all,
    .drain_all = hw_drain_all,
    .before_forget = hw_before_forget,
    .write_meta = hw_write_meta,
};

const SourceOps kWatch = {
    .name = "watchpoints",
    .start_thread = watch_start_thread,
    .stop_thread = watch_stop_thread,
    .forget = watch_forget,
    .restarts_in_child = true,
    .on_signal = watch_on_signal,
    .halt_all = watch_stop_all,
    .write_meta = watch_write_meta,
};

// PAPI registers the calling thread with the library: only the thread itself can start it, and
// a fork child inherits none of PAPI's per-thread state.
const SourceOps kPapi = {
    .name = "papi",
    .init_state = papi_init_state,
    .start_thread = [](ThreadState* ts, bool) { papi_start_thread(ts); },
    .needs_self = true,
    .stop_thread = papi_stop_thread,
    .forget = papi_forget,
    .restarts_in_child = false,
    .halt_all = papi_stop_all,
    .write_meta = papi_write_meta,
};

// The rows, in the order threads start them and the handler asks them.
const SourceOps* const kTable[] = {&kSoft, &kPageFaults, &kHardware, &kWatch, &kPapi};

}  // namespace

void sources_init_state(ThreadState* ts) {
  for (const SourceOps* s : kTable)
    if (s->init_state) s->init_state(ts);
}

int sources_thread_fds(ThreadState* ts, int** out, int max) {
  int n = 0;
  for (const SourceOps* s : kTable)
    if (s->thread_fds) n += s->thread_fds(ts, out + n, max - n);
  return n;
}

void sources_start_thread(ThreadState* ts, bool self) {
  // A reused state: its last thread's published frames are not this one's, whichever source
  // places the stack samples (stack_place.h).
  shared_frames_reset(ts);
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
