// See page_faults.h. What reads a ring obeys the signal-handler rules of guard.h: no allocation
// (the tree grows with mmap), no lock (the address map is read lock-free), errno saved by the
// caller. A ring has one reader at a time: its own thread (in the sampling signal's handler,
// which does not nest, or at thread end with that signal blocked), or the writer once every
// event is disabled and no handler runs.
#include "sources/page_faults/page_faults.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>

#include "sources/source_state.h"
#include "base/clock.h"
#include "hpcl/profile.h"
#include "memory/track_control.h"
#include "base/log.h"
#include "process/thread_state.h"
#include "sources/page_faults/fault_record.h"
#include "sources/page_faults/touch_node.h"
#include "hpcrun/probe/perf_event.h"
#include "process/fd_guard.h"
#include "process/handler_gate.h"
#include "sources/perf_ring.h"
#include "sources/classify.h"
#include "unwind/unwind.h"
#include "process/source_table.h"

namespace hpcrun {

namespace {

PageFaultThread& pf_of(ThreadState* ts) {
  return source_state<PageFaultThread>(ts, kPageFaultsSource);
}

// 32 data pages (128 KiB): about 2,700 records of 48 bytes, what a thread faulting 1 GiB page by
// page (2-3 faults per microsecond of CPU time, in a tight first-touch loop) produces between
// two drains at the default 1 kHz. When the perf mlock allowance of an unprivileged user
// (kernel.perf_event_mlock_kb, 516 KiB) is spent, later threads get 8 pages.
constexpr unsigned kRingPagesLog2 = 5, kSmallRingPagesLog2 = 3;

uint64_t g_period = 0;
int g_signo = 0;
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_stopped{false};
std::atomic<bool> g_warned{false};
std::atomic<uint64_t> g_records{0}, g_in_runtime{0}, g_dropped{0}, g_lost{0}, g_throttled{0};

void warn_once(const char* what, int err) {
  if (!g_warned.exchange(true))
    log_warn("page faults: %s (%s); the profile will have no page_faults", what, strerror(err));
}

// One fault: the variable of its data address, then the faulting instruction under it, after
// the path that created the thread (as for samples). No unwinding: the record is read later,
// when the faulting code's stack is gone.
void record_fault(const uint8_t* body, size_t size, void* ctx) {
  auto* ts = static_cast<ThreadState*>(ctx);
  FaultRecord r;
  if (!parse_fault_record(body, size, &r)) return;
  // The runtime's own faults (its trees, tables, libunwind) are not the program's first touches.
  if (address_in_runtime(r.ip)) {
    g_in_runtime.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Cct& c = ts->cct;
  uint32_t node = classify_address(c, r.addr, ts, nullptr);
  for (int i = int(ts->ncreator) - 1; i >= 0 && node != Cct::kNone; --i)
    node = c.child(node, uint8_t(hpcl::NodeKind::Frame), 0, ts->creator[i]);
  if (node != Cct::kNone) node = c.child(node, uint8_t(hpcl::NodeKind::Frame), 0, r.ip);
  if (node == Cct::kNone) {
    g_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  c.add_page_faults(node, 1);
  // Which node's CPU took it: where the kernel placed the page (touch_node.h).
  count_touch_node(c, node, r.cpu);
}

void drain(ThreadState* ts) {
  RingCounts counts;
  perf_ring_drain(&pf_of(ts).ev.ring, record_fault, ts, &counts);
  if (counts.records) g_records.fetch_add(counts.records, std::memory_order_relaxed);
  if (counts.lost) g_lost.fetch_add(counts.lost, std::memory_order_relaxed);
  if (counts.throttled) g_throttled.fetch_add(counts.throttled, std::memory_order_relaxed);
}

// Closes the event and unmaps the ring; exchange, since thread end and process end may race.
void release(ThreadState* ts) {
  int wake = __atomic_exchange_n(&pf_of(ts).wake_fd, -1, __ATOMIC_ACQ_REL);
  if (wake >= 0) fd_guard_close(wake);
  ring_event_release(&pf_of(ts).ev);
}

void disable(ThreadState* ts) {
  int wake = __atomic_load_n(&pf_of(ts).wake_fd, __ATOMIC_ACQUIRE);
  if (wake >= 0) ioctl(wake, PERF_EVENT_IOC_DISABLE, 0);
  ring_event_disable(pf_of(ts).ev);
}

}  // namespace

void pagefaults_init(uint64_t period, int signo) {
  g_period = period ? period : 1;
  g_signo = signo;
  g_enabled.store(true, std::memory_order_release);
}

bool pagefaults_enabled() { return g_enabled.load(std::memory_order_acquire); }
uint64_t pagefaults_period() { return g_period; }

void pagefaults_start_thread(ThreadState* ts) {
  ring_event_reset(&pf_of(ts).ev);
  pf_of(ts).wake_fd = -1;
  if (!pagefaults_enabled() || g_stopped.load(std::memory_order_relaxed)) return;
  // No wake-ups: the ring is read at the thread's timer signals (page_faults.h).
  int fd = perf_open_thread(page_fault_attr(g_period, 0), ts->tid);
  if (fd < 0) return warn_once("perf_event_open of the page-fault event failed", -fd);
  PerfRing ring;
  if (!perf_ring_map_or_smaller(fd, kRingPagesLog2, kSmallRingPagesLog2, &ring)) {
    int err = errno;
    close(fd);
    return warn_once("cannot map its ring buffer (see kernel.perf_event_mlock_kb)", err);
  }
  ring_event_publish(&pf_of(ts).ev, fd, ring);
  if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    int err = errno;
    release(ts);
    return warn_once("cannot enable the event", err);
  }
  // The waker: a second page-fault event, without a ring, whose overflow signal comes once per
  // a third of the ring's records, so a thread that faults in the kernel without running its
  // user-time timer still reads its ring before it fills.
  const uint64_t records = ring.data_size / (sizeof(perf_event_header) + kFaultRecordBody);
  perf_event_attr wa = page_fault_attr(g_period * (records / 3 ? records / 3 : 1), 0);
  wa.sample_type = 0;
  int wake = perf_open_thread(wa, ts->tid);
  if (wake < 0) return;  // the timer still reads the ring
  fd_guard_add(wake);
  __atomic_store_n(&pf_of(ts).wake_fd, wake, __ATOMIC_RELEASE);
  if (perf_arm_thread_signal(wake, g_signo, ts->tid) != 0) {
    __atomic_store_n(&pf_of(ts).wake_fd, -1, __ATOMIC_RELEASE);
    fd_guard_close(wake);
  }
}

bool pagefaults_on_wake(ThreadState* ts, int fd) {
  if (fd < 0 || fd != __atomic_load_n(&pf_of(ts).wake_fd, __ATOMIC_ACQUIRE)) return false;
  // The writer either waits for this drain or is seen to have begun and reads the rings itself;
  // nested in another handler of this thread (PAPI's), the ring waits for the next signal.
  HandlerGate gate(ts->in_handler, g_stopped);
  if (gate.owns_tree()) drain(ts);
  return true;
}

void pagefaults_on_timer(ThreadState* ts) {
  if (!ring_event_live(pf_of(ts).ev)) return;
  if (g_stopped.load(std::memory_order_relaxed)) return;  // the writer reads the rings
  drain(ts);
}

void pagefaults_stop_thread(ThreadState* ts) {
  if (!ring_event_live(pf_of(ts).ev)) return;
  disable(ts);
  {
    // The sampling signal's handler writes this tree too: blocked while we do; the process-end
    // path waits for us.
    ThreadSideGate gate(ts->in_handler, g_stopped, g_signo);
    if (gate.owns_tree()) drain(ts);
  }
  if (!g_stopped.load(std::memory_order_acquire)) release(ts);
}

void pagefaults_before_forget(ThreadState* ts) {
  if (!ring_event_pending(pf_of(ts).ev)) return;
  ThreadSideGate gate(ts->in_handler, g_stopped, g_signo);
  if (gate.owns_tree()) drain(ts);
}

void pagefaults_forget(ThreadState* ts) {
  if (pf_of(ts).ev.fd < 0) return;
  // The parent's mapping was inherited; unmap ours, the parent keeps its own.
  release(ts);
}

void pagefaults_halt_all() {
  if (!pagefaults_enabled()) return;
  g_stopped.store(true, std::memory_order_seq_cst);
  for (ThreadState* t = threads_head(); t; t = t->next) disable(t);
}

void pagefaults_drain_all() {
  if (!pagefaults_enabled()) return;
  for (ThreadState* t = threads_head(); t; t = t->next) {
    if (t->stale || !ring_event_live(pf_of(t).ev)) continue;
    drain(t);
    release(t);
  }
}

PageFaultCounts pagefaults_counts() {
  PageFaultCounts c;
  c.records = g_records.load(std::memory_order_relaxed);
  c.in_runtime = g_in_runtime.load(std::memory_order_relaxed);
  c.dropped = g_dropped.load(std::memory_order_relaxed);
  c.lost = g_lost.load(std::memory_order_relaxed);
  c.throttled = g_throttled.load(std::memory_order_relaxed);
  return c;
}

void pagefaults_write_meta(hpcl::Profile& p) {
  if (!pagefaults_enabled()) return;
  const PageFaultCounts pf = pagefaults_counts();
  p.set_meta("page_faults_period", std::to_string(pagefaults_period()));
  p.set_meta("page_faults_total", std::to_string(pf.records));
  p.set_meta("page_faults_in_runtime", std::to_string(pf.in_runtime));
  p.set_meta("page_faults_lost", std::to_string(pf.lost));
  p.set_meta("page_faults_throttled", std::to_string(pf.throttled));
}


void pagefaults_init_state(ThreadState* ts) {
  pf_of(ts).ev.fd = -1;
  pf_of(ts).wake_fd = -1;
}

int pagefaults_thread_fds(ThreadState* ts, int** out, int max) {
  int n = 0;
  for (int* fd : {&pf_of(ts).ev.fd, &pf_of(ts).wake_fd})
    if (n < max) out[n++] = fd;
  return n;
}

// The source's row (source_list.cpp).
constinit const SourceOps kPageFaultsSource = {
    .name = "page-faults",
    .claim_option =
        [](const SourceSpec& s, RuntimeConfig& c) {
          if (s.kind != SourceKind::PageFaults) return false;
          c.page_fault_period = s.rate ? s.rate : 1;
          return true;
        },
    .init =
        [](SourceStart& st) {
          if (st.cfg.page_fault_period) pagefaults_init(st.cfg.page_fault_period, st.signo);
        },
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

}  // namespace hpcrun
