// See watch.h. Everything reachable from watch_on_sample, watch_on_signal and watch_stop_all is
// async-signal-safe: atomics, system calls on the process's own descriptors (ioctl, read), no
// allocation, no lock, loops bounded by the slots and the thread list. errno is saved by the
// sampling handler around both entry points.
#include "sources/watch/watch.h"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "sources/watch/watch_slot.h"
#include "sources/source_state.h"
#include "hpcl/profile.h"
#include "base/clock.h"
#include "process/fd_guard.h"
#include "base/log.h"
#include "process/runtime.h"
#include "process/thread_state.h"
#include "hpcrun/probe/perf_event.h"
#include "sources/sampling_phase.h"
#include "decode/access_decode.h"
#include "decode/saved_regs.h"
#include "sources/watch/watch_table.h"
#include "process/source_table.h"

namespace hpcrun {
namespace {

WatchSlots& wp_of(ThreadState* ts) { return source_state<WatchSlots>(ts, kWatchSource); }
const WatchSlots& wp_of(const ThreadState* ts) {
  return source_state<WatchSlots>(ts, kWatchSource);
}

WatchConfig g_cfg;
int g_signo = 0;
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_stopped{false};
std::atomic<bool> g_warned{false};
std::atomic<uint64_t> g_group{0};

struct Counters {
  std::atomic<uint64_t> slots_opened, registers_taken, open_failed, armed, traps, expired,
      pending_end, no_slot, modify_failed, stale;
};
Counters g_n;

void bump(std::atomic<uint64_t>& c) { c.fetch_add(1, std::memory_order_relaxed); }

// The word the events point at while disabled: never touched by anyone.
alignas(64) uint64_t g_dummy_word;

// Moves a slot from `from` to Busy; true when this caller now owns it.
bool take(WatchSlot& s, uint32_t from) {
  return s.state.compare_exchange_strong(from, kWatchBusy, std::memory_order_acquire,
                                         std::memory_order_relaxed);
}
void give_back(WatchSlot& s, uint32_t to) { s.state.store(to, std::memory_order_release); }

// The event's count: how many traps it has taken since it was opened (0 if unreadable).
uint64_t event_count(int fd) {
  uint64_t v = 0;
  return read(fd, &v, sizeof v) == ssize_t(sizeof v) ? v : 0;
}

// Aims a Free slot of some thread at `word` and enables it. Signal-safe; any thread.
bool arm(WatchSlot& s, uint8_t kind, int32_t var, uint64_t word, uint64_t sampled, uint64_t group,
         uint64_t window_ns, uint32_t sampled_size = 0, bool writes_only = false) {
  if (!take(s, kWatchFree)) return false;
  s.kind = kind;
  s.var = var;
  s.word = word;
  s.sampled = sampled;
  s.sampled_size = sampled_size;
  s.group = group;
  s.count0 = event_count(s.fd);
  perf_event_attr a = breakpoint_attr(word, /*enabled=*/true, writes_only);
  if (ioctl(s.fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) != 0) {
    bump(g_n.modify_failed);
    give_back(s, kWatchFree);
    return false;
  }
  s.armed_ns = monotonic_ns();
  s.deadline_ns.store(s.armed_ns + window_ns, std::memory_order_relaxed);
  bump(g_n.armed);
  give_back(s, kWatchArmed);
  return true;
}

// The caller owns `s` (Busy): disables it and returns it Free.
void disarm(WatchSlot& s) {
  ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
  give_back(s, kWatchFree);
}

// A watch that reached its window unused: no reuse (reuse), no sharing seen (sharing).
void count_expired(const WatchSlot& s) {
  bump(g_n.expired);
  if (s.kind == kWatchReuse) wp_count_no_reuse(s.var);
}

// Disables and counts the watches of `t` past their window. Signal-safe; any thread.
void expire(ThreadState* t, uint64_t now) {
  for (WatchSlot& s : wp_of(t).slot) {
    if (s.state.load(std::memory_order_relaxed) != kWatchArmed ||
        now < s.deadline_ns.load(std::memory_order_relaxed) || !take(s, kWatchArmed))
      continue;
    if (now < s.deadline_ns.load(std::memory_order_relaxed)) {  // re-armed meanwhile
      give_back(s, kWatchArmed);
      continue;
    }
    count_expired(s);
    disarm(s);
  }
}

bool ready(const ThreadState* t) { return wp_of(t).ready.load(std::memory_order_acquire) != 0; }

void arm_reuse(ThreadState* ts, int32_t var, uint64_t ea) {
  for (int i = 0; i < kWatchSlots; ++i) {
    if (arm(wp_of(ts).slot[i], kWatchReuse, var, ea & ~7ull, 0, 0, g_cfg.reuse_window_ns)) {
      wp_count_armed(var, false);
      wp_of(ts).restart |= 1u << i;
      return;
    }
  }
  bump(g_n.no_slot);
}

// Arms the words of ea's line in up to kWatchMaxTargets other live threads, as many as each has
// free registers. After a sampled write the watches see reads and writes (either makes the line
// move between the caches); after a sampled read, writes only: two threads that only read a line
// share it at no cost.
void arm_sharing(ThreadState* ts, int32_t var, uint64_t ea, uint32_t size, bool is_write,
                 uint64_t now) {
  const uint64_t line = ea & ~(kWpLineBytes - 1), sampled = ea & ~7ull;
  const uint32_t sidx = uint32_t((sampled - line) / 8);
  const uint64_t group = g_group.fetch_add(1, std::memory_order_relaxed) + 1;
  // Which threads: all candidates when few, else each with probability targets / candidates.
  uint32_t budget = threads_count() + 1, candidates = 0;
  for (ThreadState* t = threads_head(); t && budget > 0; t = t->next, --budget)
    if (t != ts && t->alive.load(std::memory_order_relaxed) && ready(t)) ++candidates;
  if (candidates == 0) return;
  bool any = false;
  int targets = 0;
  budget = threads_count() + 1;
  for (ThreadState* t = threads_head(); t && budget > 0 && targets < kWatchMaxTargets;
       t = t->next, --budget) {
    if (t == ts || !t->alive.load(std::memory_order_relaxed) || !ready(t)) continue;
    if (candidates > uint32_t(kWatchMaxTargets) &&
        splitmix64(&wp_of(ts).rng) % candidates >= uint64_t(kWatchMaxTargets))
      continue;
    ++targets;
    expire(t, now);
    // The written word (true sharing), its neighbours (the fields next to it, most often
    // another thread's), then the others of the line from a random one on.
    uint32_t order[kWpLineWords], n = 0;
    bool used[kWpLineWords] = {};
    auto add = [&](uint32_t w) {
      if (w < kWpLineWords && !used[w]) used[w] = true, order[n++] = w;
    };
    add(sidx);
    add(sidx + 1);
    add(sidx - 1);  // wraps to a large value for word 0: skipped
    const uint32_t r = uint32_t(splitmix64(&wp_of(ts).rng) % kWpLineWords);
    for (uint32_t j = 0; j < kWpLineWords; ++j) add((r + j) % kWpLineWords);
    int slot = 0;
    for (uint32_t j = 0; j < n && slot < kWatchSlots; ++j) {
      while (slot < kWatchSlots &&
             !arm(wp_of(t).slot[slot], kWatchSharing, var, line + 8 * order[j], ea, group,
                  g_cfg.sharing_window_ns, size, /*writes_only=*/!is_write))
        ++slot;
      if (slot < kWatchSlots) {
        any = true;
        ++slot;
      }
    }
  }
  if (any) wp_count_armed(var, true);
  else bump(g_n.no_slot);
}

// The time from an access to the handler of its trap (the debug exception, perf's overflow, the
// signal's delivery): measured on the thread itself, outside any handler, a few times; the
// smallest is what every reuse time carries on top of the program's own time.
std::atomic<uint64_t> g_trap_latency_ns{0};
std::atomic<uint64_t> g_calib_t0{0}, g_calib_best{~0ull};
alignas(8) volatile uint64_t g_calib_word;

void calibrate(ThreadState* ts) {
  WatchSlot& s = wp_of(ts).slot[0];
  for (int i = 0; i < 16; ++i) {
    if (!arm(s, kWatchCalibrate, -1, reinterpret_cast<uint64_t>(&g_calib_word), 0, 0, ~0ull >> 2))
      return;
    g_calib_t0.store(monotonic_ns(), std::memory_order_relaxed);
    g_calib_word = g_calib_word + 1;  // traps; the handler runs before the next line
    if (take(s, kWatchArmed)) disarm(s);  // the signal was blocked or lost: not measured
  }
  const uint64_t best = g_calib_best.load(std::memory_order_relaxed);
  if (best != ~0ull) g_trap_latency_ns.store(best, std::memory_order_relaxed);
}

}  // namespace

void watch_sample_done(ThreadState* ts) {
  if (!ts || !wp_of(ts).restart) return;
  const uint64_t now = monotonic_ns();
  for (int i = 0; i < kWatchSlots; ++i)
    // Armed, ours: no trap yet.
    if (wp_of(ts).restart & (1u << i)) wp_of(ts).slot[i].armed_ns = now;
  wp_of(ts).restart = 0;
}

void watch_init(const WatchConfig& config, int signo) {
  g_cfg = config;
  g_signo = signo;
  g_enabled.store(config.sharing_rate || config.reuse_rate, std::memory_order_release);
}

const WatchConfig& watch_config() { return g_cfg; }

bool watch_enabled() { return g_enabled.load(std::memory_order_acquire); }

void watch_start_thread(ThreadState* ts, bool self) {
  if (!watch_enabled() || g_stopped.load(std::memory_order_relaxed)) return;
  wp_of(ts).rng = (uint64_t(ts->tid) << 32) ^ monotonic_ns() ^ 0x9E3779B97F4A7C15ull;
  wp_of(ts).next_sharing_ns = wp_of(ts).next_reuse_ns = 0;
  for (int i = 0; i < kWatchSlots && i < g_cfg.registers; ++i) {
    WatchSlot& s = wp_of(ts).slot[i];
    if (s.state.load(std::memory_order_relaxed) != kWatchDead) continue;  // not closed (watch_stop_thread)
    s.fd = -1;
    int fd = perf_open_thread(breakpoint_attr(reinterpret_cast<uint64_t>(&g_dummy_word), false), ts->tid);
    if (fd == -ENOSPC || fd == -EBUSY) {
      bump(g_n.registers_taken);
      continue;
    }
    if (fd < 0) {
      bump(g_n.open_failed);
      if (!g_warned.exchange(true))
        log_warn("watchpoints unavailable (perf_event_open of a breakpoint: %s); wp-sharing and "
                 "wp-reuse record nothing", strerror(-fd));
      return;
    }
    fd_guard_add(fd);
    if (int err = perf_route_thread_signal(fd, g_signo, ts->tid); err != 0) {
      bump(g_n.open_failed);
      fd_guard_close(fd);
      continue;
    }
    s.fd = fd;
    bump(g_n.slots_opened);
    give_back(s, kWatchFree);
  }
  wp_of(ts).restart = 0;
  if (self && g_cfg.reuse_rate && g_trap_latency_ns.load(std::memory_order_relaxed) == 0 &&
      wp_of(ts).slot[0].state.load(std::memory_order_relaxed) == kWatchFree)
    calibrate(ts);
  wp_of(ts).ready.store(1, std::memory_order_release);
}

void watch_stop_thread(ThreadState* ts) {
  wp_of(ts).ready.store(0, std::memory_order_release);
  const uint64_t now = monotonic_ns();
  for (WatchSlot& s : wp_of(ts).slot) {
    // Another thread may be arming or expiring it: that takes microseconds; wait a bounded time.
    for (int tries = 0; tries < 10000; ++tries) {
      uint32_t st = s.state.load(std::memory_order_acquire);
      if (st == kWatchDead) break;
      if (st == kWatchBusy) {
        sched_yield();
        continue;
      }
      if (!s.state.compare_exchange_strong(st, kWatchDead, std::memory_order_acquire)) continue;
      if (st == kWatchArmed) {
        if (now >= s.deadline_ns.load(std::memory_order_relaxed)) count_expired(s);
        else bump(g_n.pending_end);
      }
      fd_guard_close(s.fd);
      s.fd = -1;
      break;
    }
  }
}

void watch_forget(ThreadState* ts) {
  wp_of(ts).ready.store(0, std::memory_order_relaxed);
  for (WatchSlot& s : wp_of(ts).slot) {
    if (s.state.load(std::memory_order_relaxed) != kWatchDead && s.fd >= 0) fd_guard_close(s.fd);
    s.fd = -1;
    s.state.store(kWatchDead, std::memory_order_relaxed);
  }
}

void watch_on_sample(ThreadState* ts, uint64_t ea, uint32_t size, bool is_write, bool executed,
                     uint32_t var_node) {
  if (!ts || !ready(ts) || g_stopped.load(std::memory_order_relaxed)) return;
  const uint64_t now = monotonic_ns();
  expire(ts, now);
  const bool reuse = g_cfg.reuse_rate && executed && now >= wp_of(ts).next_reuse_ns;
  // Reads arm sharing watches too (writes-only ones): with a timer source a store is rarely
  // the sampled instruction (the load before it stalls), so a loop's `*p += 1` is mostly seen
  // as a read of the word it also writes.
  const bool sharing = g_cfg.sharing_rate && now >= wp_of(ts).next_sharing_ns;
  if (!reuse && !sharing) return;
  const RtNode* n = ts->cct.at(var_node);
  if (n->parent < kCctHeapRoot || n->parent > kCctUnknownRoot) return;  // not a variable node
  const int32_t var = wp_var(WpVarKey{uint8_t(n->parent), uint32_t(n->a), n->b});
  if (var < 0) return;
  if (reuse) {
    wp_of(ts).next_reuse_ns = now + 1000000000ull / g_cfg.reuse_rate;
    arm_reuse(ts, var, ea);
  }
  if (sharing) {
    wp_of(ts).next_sharing_ns = now + 1000000000ull / g_cfg.sharing_rate;
    arm_sharing(ts, var, ea, size, is_write, now);
  }
}

bool watch_on_signal(ThreadState* ts, int fd, void* ucv) {
  if (!ts || fd < 0 || !watch_enabled()) return false;
  WatchSlot* hit = nullptr;
  for (WatchSlot& s : wp_of(ts).slot)
    if (s.fd == fd && s.state.load(std::memory_order_relaxed) != kWatchDead) hit = &s;
  if (!hit) return false;
  const uint64_t now = monotonic_ns();
  WatchSlot& s = *hit;
  if (g_stopped.load(std::memory_order_relaxed) || !take(s, kWatchArmed)) {
    bump(g_n.stale);  // already handled, expired, or being re-armed by another thread
    return true;
  }
  if (event_count(s.fd) <= s.count0) {  // a queued signal of an earlier arming
    bump(g_n.stale);
    give_back(s, kWatchArmed);
    return true;
  }
  if (s.kind == kWatchCalibrate) {
    const uint64_t d = now - g_calib_t0.load(std::memory_order_relaxed);
    if (d < g_calib_best.load(std::memory_order_relaxed)) g_calib_best.store(d, std::memory_order_relaxed);
    disarm(s);
    return true;
  }
  bump(g_n.traps);
  if (s.kind == kWatchReuse) {
    const uint64_t took = now - s.armed_ns, floor = g_trap_latency_ns.load(std::memory_order_relaxed);
    wp_count_reuse(s.var, took > floor ? took - floor : 0);
    disarm(s);
    return true;
  }
  // Which bytes of the word the trapping access touched: its instruction is the one before the
  // PC (a breakpoint traps after the access). A decoding that lands outside the word is not
  // trusted: the whole word stands for it.
  uint64_t trap = s.word;
  uint32_t trap_size = 8;
  if (ucv) {
    const Access acc = resolve_sample(saved_regs_from_ucontext(static_cast<const ucontext_t*>(ucv), ts->fs_base));
    const uint32_t n = acc.size ? acc.size : 1;
    if (acc.kind == AccessKind::Address && acc.ea < s.word + 8 && acc.ea + n > s.word) {
      trap = acc.ea;
      trap_size = n;
    }
  }
  wp_count_sharing(s.var, trap, wp_classify(trap, trap_size, s.sampled, s.sampled_size), ts->index);
  const uint64_t group = s.group;
  disarm(s);
  // The other words of the same arming in this thread: their question is answered.
  for (WatchSlot& o : wp_of(ts).slot)
    if (&o != &s && take(o, kWatchArmed)) {
      if (o.kind == kWatchSharing && o.group == group) disarm(o);
      else give_back(o, kWatchArmed);
    }
  return true;
}

void watch_stop_all() {
  if (!watch_enabled()) return;
  g_stopped.store(true, std::memory_order_seq_cst);
  const uint64_t now = monotonic_ns();
  uint32_t budget = threads_count() + 1;
  for (ThreadState* t = threads_head(); t && budget > 0; t = t->next, --budget) {
    for (WatchSlot& s : wp_of(t).slot) {
      if (!take(s, kWatchArmed)) continue;
      if (now >= s.deadline_ns.load(std::memory_order_relaxed)) count_expired(s);
      else bump(g_n.pending_end);
      disarm(s);
    }
  }
}

WatchCounts watch_counts() {
  auto v = [](const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); };
  WatchCounts c;
  c.slots_opened = v(g_n.slots_opened);
  c.registers_taken = v(g_n.registers_taken);
  c.open_failed = v(g_n.open_failed);
  c.armed = v(g_n.armed);
  c.traps = v(g_n.traps);
  c.expired = v(g_n.expired);
  c.pending_end = v(g_n.pending_end);
  c.no_slot = v(g_n.no_slot);
  c.modify_failed = v(g_n.modify_failed);
  c.stale = v(g_n.stale);
  c.trap_latency_ns = g_trap_latency_ns.load(std::memory_order_relaxed);
  return c;
}

void watch_write_meta(hpcl::Profile& p) {
  if (!watch_enabled()) return;
  // Every watch is accounted for: it trapped, expired (counted per variable), was still pending
  // at the end, or never armed (no register free); the registers the program held are named.
  const WatchCounts w = watch_counts();
  p.set_meta("wp_sharing_rate", std::to_string(watch_config().sharing_rate));
  p.set_meta("wp_reuse_rate", std::to_string(watch_config().reuse_rate));
  p.set_meta("wp_sharing_window_ms", std::to_string(watch_config().sharing_window_ns / 1000000));
  p.set_meta("wp_reuse_window_ms", std::to_string(watch_config().reuse_window_ns / 1000000));
  p.set_meta("wp_registers", std::to_string(w.slots_opened));
  p.set_meta("wp_registers_taken", std::to_string(w.registers_taken));
  p.set_meta("wp_open_failed", std::to_string(w.open_failed));
  p.set_meta("wp_armed", std::to_string(w.armed));
  p.set_meta("wp_traps", std::to_string(w.traps));
  p.set_meta("wp_expired", std::to_string(w.expired));
  p.set_meta("wp_pending_end", std::to_string(w.pending_end));
  p.set_meta("wp_no_register", std::to_string(w.no_slot));
  p.set_meta("wp_modify_failed", std::to_string(w.modify_failed));
  p.set_meta("wp_stale", std::to_string(w.stale));
  p.set_meta("wp_table_lost", std::to_string(watch_table_lost()));
  p.set_meta("wp_trap_latency_ns", std::to_string(w.trap_latency_ns));
  log_info("watchpoints: %llu registers opened (%llu taken by the program), %llu armed, %llu traps, "
           "%llu expired, %llu without a free register, trap latency %llu ns",
           (unsigned long long)w.slots_opened, (unsigned long long)w.registers_taken,
           (unsigned long long)w.armed, (unsigned long long)w.traps, (unsigned long long)w.expired,
           (unsigned long long)w.no_slot, (unsigned long long)w.trap_latency_ns);
  if (w.registers_taken)
    log_warn("watchpoints: %llu debug registers were in use by the program (a debugger?) and "
             "were left to it", (unsigned long long)w.registers_taken);
}

// The source's row (source_list.cpp). A fork child forgets the parent's watches: their
// registers were the parent's threads'.
namespace {

// Watchpoints ride on the address source's samples, so they start only with one.
void watch_start(SourceStart& st) {
  const RuntimeConfig& c = st.cfg;
  if (!(c.wp_sharing_rate || c.wp_reuse_rate) || !c.sampling) return;
  WatchConfig wc;
  wc.sharing_rate = c.wp_sharing_rate;
  wc.reuse_rate = c.wp_reuse_rate;
  // Tests only: shorter or longer windows than the defaults.
  if (const char* v = getenv("HPCRUN_LITE_WP_SHARING_WINDOW_MS")) wc.sharing_window_ns = strtoull(v, nullptr, 10) * 1000000ull;
  if (const char* v = getenv("HPCRUN_LITE_WP_REUSE_WINDOW_MS")) wc.reuse_window_ns = strtoull(v, nullptr, 10) * 1000000ull;
  if (const char* v = getenv("HPCRUN_LITE_WP_REGISTERS")) {
    int n = atoi(v);
    if (n >= 1 && n <= 4) wc.registers = n;
    else log_warn("ignoring HPCRUN_LITE_WP_REGISTERS=%s: not 1-4", v);
  }
  watch_init(wc, st.signo);
  log_info("watchpoints: sharing %llu/s (window %llu ms), reuse %llu/s (window %llu ms)",
           (unsigned long long)wc.sharing_rate, (unsigned long long)(wc.sharing_window_ns / 1000000),
           (unsigned long long)wc.reuse_rate, (unsigned long long)(wc.reuse_window_ns / 1000000));
}

// The analyses' counts of each variable they watched, as the metrics of its node.
void watch_variable_metrics(VariableMetricsFn fn, void* ctx) {
  struct Ctx {
    VariableMetricsFn fn;
    void* ctx;
  } to{fn, ctx};
  watch_table_for_each(
      [](const WpRecord& r, void* p) {
        hpcl::Metric ms[kWpMaxMetrics];
        const int k = wp_record_metrics(r, ms);
        if (k == 0) return;
        auto* t = static_cast<Ctx*>(p);
        t->fn(VariableMetrics{r.key.root, r.key.a, r.key.b, ms, k}, t->ctx);
      },
      &to);
}

}  // namespace

constinit const SourceOps kWatchSource = {
    .name = "watchpoints",
    // They ride on the address source's samples (watch.h), soft when none is named.
    .claim_option =
        [](const SourceSpec& s, RuntimeConfig& c) {
          if (s.kind == SourceKind::WpSharing)
            c.wp_sharing_rate = s.rate ? s.rate : kDefaultWpSharingRate;
          else if (s.kind == SourceKind::WpReuse)
            c.wp_reuse_rate = s.rate ? s.rate : kDefaultWpReuseRate;
          else
            return false;
          return true;
        },
    .init = watch_start,
    .start_thread = watch_start_thread,
    .stop_thread = watch_stop_thread,
    .forget = watch_forget,
    .restarts_in_child = true,
    .child_all = watch_table_reset,
    .on_signal = watch_on_signal,
    // The signal's own access only: a hardware record older than its drain's signal is too old
    // to open a window at.
    .on_access =
        [](ThreadState* ts, const SampledAccess& a) {
          if (a.fresh && watch_enabled()) watch_on_sample(ts, a.ea, a.size, a.is_write, a.executed, a.var);
        },
    .sample_done = watch_sample_done,
    .halt_all = watch_stop_all,
    .write_meta = watch_write_meta,
    .variable_metrics = watch_variable_metrics,
};

}  // namespace hpcrun
