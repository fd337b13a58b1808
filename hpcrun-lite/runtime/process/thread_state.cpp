// See thread_state.h.
#include "process/thread_state.h"
#include "process/alt_stack.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "base/clock.h"
#include "base/raw_sys.h"
#include "process/runtime.h"
#include "process/thread_stack.h"
#include "process/source_table.h"
#include "base/spinlock.h"
#include "base/thread_pointer.h"
#include "unwind/unwind.h"

namespace hpcrun {

__thread ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {
std::atomic<ThreadState*> g_head{nullptr};
std::atomic<uint32_t> g_next_index{0};
// States of exited threads. Thread start and exit are not signal context, so a spinlock is fine.
constinit SpinLock g_free_lock;
ThreadState* g_free_head = nullptr;

ThreadState* take_free_state() {
  g_free_lock.lock();
  ThreadState* ts = g_free_head;
  if (ts) g_free_head = ts->next_free;
  g_free_lock.unlock();
  return ts;
}

// Every thread's handler reads the bounds (address_on_a_stack) while they may change: none
// while stack_lo is 0, so stack_lo is cleared first and written last.
void set_stack(ThreadState* ts, uint64_t lo, uint64_t hi) {
  __atomic_store_n(&ts->stack_lo, 0, __ATOMIC_RELEASE);
  ts->stack_floor = 0;
  __atomic_store_n(&ts->stack_hi, hi, __ATOMIC_RELEASE);
  __atomic_store_n(&ts->stack_lo, lo, __ATOMIC_RELEASE);
}

void find_stack(ThreadState* ts) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* addr = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0)
    set_stack(ts, reinterpret_cast<uint64_t>(addr), reinterpret_cast<uint64_t>(addr) + size);
  pthread_attr_destroy(&attr);
}

}  // namespace

bool on_own_stacks(uint64_t lo, uint64_t hi) {
  const ThreadState* ts = t_state;
  if (!ts) return false;
  const uint64_t stack_lo = __atomic_load_n(&ts->stack_lo, __ATOMIC_ACQUIRE);
  const uint64_t stack_hi = __atomic_load_n(&ts->stack_hi, __ATOMIC_ACQUIRE);
  if (stack_lo) {
    const auto here = reinterpret_cast<uint64_t>(__builtin_frame_address(0));
    uint64_t floor = ts->stack_floor;
    if (here >= stack_lo && here < stack_hi && (floor == 0 || here < floor)) floor = here;
    floor &= ~uint64_t(4095);
    if (floor >= stack_lo && lo >= floor && hi <= stack_hi) return true;
  }
  return alt_stack_contains(ts->alt_stack, lo, hi);
}

namespace {

bool on_a_stack(const ThreadState* t, uint64_t addr) {
  const uint64_t lo = __atomic_load_n(&t->stack_lo, __ATOMIC_ACQUIRE);
  return lo != 0 && addr >= lo && addr < __atomic_load_n(&t->stack_hi, __ATOMIC_ACQUIRE);
}

// Fills in what belongs to the calling thread, on a new or a reused state.
void adopt(ThreadState* ts, const uint64_t* creator, uint32_t n) {
  ts->tid = pid_t(syscall(SYS_gettid));
  sources_init_state(ts);
  ts->unwind_ready = 1;
  ts->ncreator = n < uint32_t(kMaxCreatorFrames) ? n : uint32_t(kMaxCreatorFrames);
  for (uint32_t i = 0; i < ts->ncreator; ++i) ts->creator[i] = creator[i];
  ts->fs_base = fs_base_of_current_thread();
  set_stack(ts, 0, 0);
  find_stack(ts);
  ts->alive.store(1, std::memory_order_relaxed);
}

}  // namespace

namespace {
// A new state in the global list, its tree ready; the thread's own fields are left to the caller.
ThreadState* new_state(uint32_t index, pid_t tid) {
  void* mem = raw_mmap(sizeof(ThreadState));
  if (!mem) return nullptr;
  auto* ts = static_cast<ThreadState*>(mem);
  if (!ts->cct.init()) {
    raw_munmap(mem, sizeof(ThreadState));
    return nullptr;
  }
  // The budget refills by the thread's CPU time, which starts at 0 with the thread (an adopted
  // thread's first check refills at most the bucket's cap, as after a quiet phase).
  ts->track.init(g_config.track, 0,
                 (uint64_t(tid) << 32) ^ 0x9E3779B97F4A7C15ull ^ reinterpret_cast<uint64_t>(ts));
  ts->index = index;
  ThreadState* head = g_head.load(std::memory_order_relaxed);
  do {
    ts->next = head;
  } while (!g_head.compare_exchange_weak(head, ts, std::memory_order_release,
                                         std::memory_order_relaxed));
  return ts;
}

// States prepared for threads that existed before the runtime (threads_adopt_existing); a
// thread claims its entry by setting the tid to 0.
constexpr int kMaxAdopted = 256;
struct Adopted {
  std::atomic<pid_t> tid{0};
  ThreadState* ts = nullptr;
};
// constinit: the runtime's constructor fills them, perhaps before this file's dynamic
// initialisers would run.
constinit Adopted g_adopted[kMaxAdopted];
constinit std::atomic<int> g_nadopted{0};
}  // namespace

ThreadState* thread_begin(const uint64_t* creator, uint32_t n) {
  if (t_state) return t_state;
  // This thread's own number: a load after the increment could see another thread's too.
  uint32_t index = g_next_index.fetch_add(1, std::memory_order_relaxed);
  ThreadState* ts = take_free_state();
  if (ts) {
    adopt(ts, creator, n);  // keeps the tree, the counters and the tracking controller
  } else {
    ts = new_state(index, pid_t(syscall(SYS_gettid)));
    if (!ts) return nullptr;
    adopt(ts, creator, n);
  }
  unwind_thread_init();
  t_state = ts;
  sources_start_thread(ts, true);
  return ts;
}

uint32_t threads_adopt_existing() {
  const pid_t self = pid_t(syscall(SYS_gettid));
  // getdents64 on a raw descriptor: no opendir, whose buffer would come from the program's
  // malloc before its allocator may be ready.
  int dir = int(syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir < 0) return 0;
  uint32_t adopted = 0;
  alignas(8) char buf[4096];
  for (;;) {
    long len = syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (len <= 0) break;
    for (long pos = 0; pos < len;) {
      auto* d = reinterpret_cast<dirent64*>(buf + pos);
      pos += d->d_reclen;
      pid_t tid = 0;
      for (const char* c = d->d_name; *c >= '0' && *c <= '9'; ++c) tid = tid * 10 + (*c - '0');
      if (tid <= 0 || tid == self) continue;
      int slot = g_nadopted.load(std::memory_order_relaxed);
      if (slot >= kMaxAdopted) break;
      ThreadState* ts = new_state(g_next_index.fetch_add(1, std::memory_order_relaxed), tid);
      if (!ts) break;
      ts->tid = tid;
      sources_init_state(ts);
      ts->unwind_ready = 0;  // libunwind's per-thread cache cannot be made in a handler
      uint64_t lo, hi;
      if (blocked_thread_stack("/proc/self", tid, &lo, &hi)) set_stack(ts, lo, hi);
      g_adopted[slot].ts = ts;
      g_adopted[slot].tid.store(tid, std::memory_order_relaxed);
      g_nadopted.store(slot + 1, std::memory_order_release);
      // After the entry is published: the first sample may come at once.
      sources_start_thread(ts, false);
      ++adopted;
    }
  }
  close(dir);
  return adopted;
}

ThreadState* thread_claim_adopted(uint64_t sp) {
  int n = g_nadopted.load(std::memory_order_acquire);
  if (n == 0) return nullptr;
  const pid_t self = pid_t(syscall(SYS_gettid));
  for (int i = 0; i < n; ++i) {
    pid_t want = self;
    if (g_adopted[i].tid.load(std::memory_order_relaxed) != self ||
        !g_adopted[i].tid.compare_exchange_strong(want, 0, std::memory_order_acquire))
      continue;
    ThreadState* ts = g_adopted[i].ts;
    ts->fs_base = fs_base_of_current_thread();
    uint64_t lo, hi;
    if (sp && !__atomic_load_n(&ts->stack_lo, __ATOMIC_ACQUIRE) &&
        mapping_containing("/proc/self/maps", sp, &lo, &hi))
      set_stack(ts, lo, hi);
    ts->alive.store(1, std::memory_order_release);
    t_state = ts;
    return ts;
  }
  return nullptr;
}

namespace {
// Whether this thread, which had no state, looked for an adopted one already.
__thread int t_settle_tried __attribute__((tls_model("initial-exec"))) = 0;
}  // namespace

ThreadState* thread_settle_adopted() {
  ThreadState* ts = t_state;
  if (!ts) {
    if (t_settle_tried) return nullptr;
    t_settle_tried = 1;
    ts = thread_claim_adopted();  // its first sample has not come yet
    if (!ts) return nullptr;
  }
  if (ts->unwind_ready) return nullptr;
  find_stack(ts);  // exact, where the adoption had the whole mapping or nothing
  unwind_thread_init();
  sources_settle_thread(ts);
  ts->unwind_ready = 1;
  return ts;
}

void thread_end(ThreadState* ts) {
  if (!ts) return;
  sources_stop_thread(ts);
  // From here on a sampling signal still pending for this thread finds no state: the next
  // owner of `ts` must be the only thread that inserts into its tree.
  if (t_state == ts) {
    t_state = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ts->alive.store(0, std::memory_order_release);
  g_free_lock.lock();
  ts->next_free = g_free_head;
  g_free_head = ts;
  g_free_lock.unlock();
}

ThreadState* threads_head() { return g_head.load(std::memory_order_acquire); }
uint32_t threads_count() { return g_next_index.load(std::memory_order_relaxed); }

bool address_on_a_stack(uint64_t addr, const ThreadState* self) {
  return (self && on_a_stack(self, addr)) || other_stack_thread(addr, self) != nullptr;
}

const ThreadState* other_stack_thread(uint64_t addr, const ThreadState* self) {
  for (ThreadState* t = threads_head(); t; t = t->next)
    if (t != self && t->alive.load(std::memory_order_relaxed) && on_a_stack(t, addr)) return t;
  return nullptr;
}

bool threads_find_tls(uint64_t addr, const ThreadState* self, bool dynamic, StaticHit* out) {
  if (self && modules_find_tls(addr, self->fs_base, dynamic, out)) return true;
  // The list only grows (states are reused, never unlinked), so the walk ends; the bound
  // guards against a corrupted link all the same.
  uint32_t budget = threads_count() + 1;
  for (ThreadState* t = threads_head(); t && budget > 0; t = t->next, --budget)
    if (t != self && t->alive.load(std::memory_order_relaxed) &&
        modules_find_tls(addr, t->fs_base, dynamic, out))
      return true;
  return false;
}

void threads_after_fork_child() {
  ThreadState* self = t_state;
  g_nadopted.store(0, std::memory_order_relaxed);  // the parent's threads do not exist here
  // States of the parent's exited threads hold the parent's samples: never reuse them here.
  g_free_lock.unlock();  // a parent thread may have held it at fork
  g_free_head = nullptr;
  for (ThreadState* t = threads_head(); t; t = t->next) {
    // The events and rings of every thread were inherited: the parent's, not read here.
    sources_forget(t);
    if (t == self) continue;
    t->stale = true;
    t->alive.store(0, std::memory_order_relaxed);
  }
  if (self) {
    self->tid = pid_t(syscall(SYS_gettid));
    self->cct.reset();
    self->samples = self->busy = self->dropped = self->nested = self->nodata = self->unresolved = 0;
    self->overruns = 0;
    sources_restart_in_child(self);
  }
}

}  // namespace hpcrun
