// The walks of source_table.h: the only places that know there is more than one source. Each walk
// asks the rows in the list's order (sources/source_list.cpp) and skips an operation a row leaves
// out.
#include "process/source_table.h"

#include "base/clock.h"
#include "process/handler_gate.h"
#include "process/thread_state.h"

namespace hpcrun {

namespace {

// Calls `fn(row)` for each row of the list, in order.
template <class Fn>
void each_row(Fn fn) {
  for (int i = 0; i < g_source_row_count; ++i) fn(*g_source_rows[i]);
}

}  // namespace

bool sources_claim_option(const SourceSpec& s, RuntimeConfig& cfg) {
  for (int i = 0; i < g_source_row_count; ++i)
    if (g_source_rows[i]->claim_option && g_source_rows[i]->claim_option(s, cfg)) return true;
  return false;
}

bool sources_serve_anyway(SourceKind kind, char* why, size_t n) {
  for (int i = 0; i < g_source_row_count; ++i)
    if (g_source_rows[i]->serve_anyway && g_source_rows[i]->serve_anyway(kind, why, n)) return true;
  return false;
}

void sources_init(SourceStart& st) {
  each_row([&](const SourceOps& s) {
    if (s.claim) s.claim(st);
  });
  each_row([&](const SourceOps& s) {
    if (s.init) s.init(st);
  });
}

void sources_init_state(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.init_state) s.init_state(ts);
  });
}

int sources_thread_fds(ThreadState* ts, int** out, int max) {
  int n = 0;
  each_row([&](const SourceOps& s) {
    if (s.thread_fds) n += s.thread_fds(ts, out + n, max - n);
  });
  return n;
}

void sources_start_thread(ThreadState* ts, bool self) {
  each_row([&](const SourceOps& s) {
    if (s.start_thread && (self || !s.needs_self)) s.start_thread(ts, self);
  });
}

void sources_settle_thread(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.start_thread && s.needs_self) s.start_thread(ts, true);
  });
}

void sources_stop_thread(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.stop_thread) s.stop_thread(ts);
  });
}

void sources_forget(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.forget) s.forget(ts);
  });
}

void sources_child_all() {
  each_row([](const SourceOps& s) {
    if (s.child_all) s.child_all();
  });
}

void sources_restart_in_child(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.start_thread && s.restarts_in_child) s.start_thread(ts, true);
  });
}

bool sources_on_signal(ThreadState* ts, int fd, void* ucontext) {
  for (int i = 0; i < g_source_row_count; ++i) {
    const SourceOps& s = *g_source_rows[i];
    if (s.on_signal && s.on_signal(ts, fd, ucontext)) return true;
  }
  return false;
}

void sources_on_tick(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.on_tick) s.on_tick(ts);
  });
}

void sources_on_access(ThreadState* ts, const SampledAccess& a) {
  each_row([&](const SourceOps& s) {
    if (s.on_access) s.on_access(ts, a);
  });
}

void sources_sample_done(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.sample_done) s.sample_done(ts);
  });
}

void sources_fallback_thread(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.fallback_thread) s.fallback_thread(ts);
  });
}

void sources_before_forget(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.before_forget) s.before_forget(ts);
  });
}

void sources_stop_all() {
  each_row([](const SourceOps& s) {
    if (s.halt_all) s.halt_all();
  });
  // A signal raised just before the events were disabled may still be running its handler on
  // another thread; wait for it before the trees are read (bounded), never for this thread's
  // own handler: the writer may run in a signal that interrupted it.
  const uint64_t deadline = monotonic_ns() + kHandlerQuietMaxNs;
  for (ThreadState* t = threads_head(); t; t = t->next)
    if (t != t_state) wait_handler_quiet(t->in_handler, deadline);
  each_row([](const SourceOps& s) {
    if (s.drain_all) s.drain_all();
  });
}

void sources_write_meta(hpcl::Profile& p) {
  each_row([&](const SourceOps& s) {
    if (s.write_meta) s.write_meta(p);
  });
}

void sources_forgotten(ThreadState* ts, uint64_t lo, uint64_t hi) {
  each_row([&](const SourceOps& s) {
    if (s.forgotten) s.forgotten(ts, lo, hi);
  });
}

void sources_after_track(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.after_track) s.after_track(ts);
  });
}

bool sources_can_pause(const ThreadState* ts) {
  for (int i = 0; i < g_source_row_count; ++i)
    if (g_source_rows[i]->can_pause && g_source_rows[i]->can_pause(ts)) return true;
  return false;
}

void sources_unsampled_begin(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.unsampled_begin) s.unsampled_begin(ts);
  });
}

void sources_unsampled_end(ThreadState* ts) {
  each_row([&](const SourceOps& s) {
    if (s.unsampled_end) s.unsampled_end(ts);
  });
}

void sources_variable_metrics(VariableMetricsFn fn, void* ctx) {
  each_row([&](const SourceOps& s) {
    if (s.variable_metrics) s.variable_metrics(fn, ctx);
  });
}

void sources_code_unloaded(uint64_t lo, uint64_t hi) {
  each_row([&](const SourceOps& s) {
    if (s.code_unloaded) s.code_unloaded(lo, hi);
  });
}

}  // namespace hpcrun
