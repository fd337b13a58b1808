// See phdr_snapshot.h.
//
// Layout of one snapshot (one mapping): a header, the entries growing up from it, and the copied
// program headers and names growing down from the end; when they would meet, the snapshot is
// taken again into a mapping twice as large.
#include "loader/phdr_snapshot.h"

#include <sched.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "base/raw_sys.h"

namespace hpcrun {

namespace {

struct Entry {
  dl_phdr_info info;      // dlpi_name and dlpi_phdr point into this snapshot
  const void* link_map;   // the loader's link map (a dlopen handle), or null when not found
  uint32_t closing;       // atomic: set by phdr_snapshot_mark_closing
};

struct Snapshot {
  size_t bytes;  // of the mapping
  uint32_t count;
  Entry entries[];
};

struct Slot {
  std::atomic<uint32_t> readers{0};
  std::atomic<Snapshot*> data{nullptr};
};

// Four slots: one published, one or two that slow readers may still hold, one to fill.
constexpr int kSlots = 4;
constinit Slot g_slots[kSlots];
constinit std::atomic<int> g_current{-1};
constinit std::atomic<uint64_t> g_generation{0};
// Writers: one at a time, and none ever waits for another. A writer may hold the loader's lock
// (a program's dl_iterate_phdr callback that allocates, after a dlopen, rescans) while another
// writer holds this one and waits for the loader's lock inside the real dl_iterate_phdr: a
// blocking lock here would deadlock. So a writer that finds the lock taken leaves a request,
// and the holder takes the snapshot once more after it releases the lock.
constinit std::atomic<bool> g_writing{false};
constinit std::atomic<bool> g_requested{false};

// Modules being closed (dlopen handles): the snapshot taken while one is listed here marks its
// entry closing too. Two dlclose calls of one handle take two places.
constexpr int kClosingMax = 32;
constinit std::atomic<const void*> g_closing[kClosingMax];

bool is_closing(const void* link_map) {
  if (!link_map) return false;
  for (auto& c : g_closing)
    if (c.load(std::memory_order_seq_cst) == link_map) return true;
  return false;
}

constexpr size_t kFirstBytes = 128 * 1024;  // a LAMMPS process's 143 modules take 97 KiB
constexpr size_t kMaxBytes = 64 * 1024 * 1024;
// A reader retries only when a new snapshot was published between its two loads.
constexpr int kReaderTries = 16;
// A writer waits this many yields for a slot whose readers left (each reader runs one lookup).
constexpr int kWriterWaits = 10000;

struct Builder {
  Snapshot* snap;
  char* low;   // end of the entries
  char* high;  // start of the copied data
  bool full;
  const link_map* next;  // where the next module's link map is looked for first
};

// The loader's link map for a module: the one whose dynamic section is the module's. Called
// inside the real dl_iterate_phdr, whose lock keeps the list still. dl_iterate_phdr visits the
// modules in the order of the loader's list, so the search starts after the last one found and
// wraps around: one step per module instead of a walk of the list per module, which was 0.7 ms
// of each LAMMPS process's start-up (a snapshot at each of Open MPI's 70 dlopen and dlclose).
const void* find_link_map(const dl_phdr_info* info, const link_map** next) {
  uint64_t dyn = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
  if (dyn == 0) return nullptr;
  auto found = [&](const link_map* m) {
    *next = m->l_next;
    return m;
  };
  for (const link_map* m = *next; m; m = m->l_next)
    if (reinterpret_cast<uint64_t>(m->l_ld) == dyn) return found(m);
  for (const link_map* m = _r_debug.r_map; m && m != *next; m = m->l_next)
    if (reinterpret_cast<uint64_t>(m->l_ld) == dyn) return found(m);
  return nullptr;
}

int copy_one(dl_phdr_info* info, size_t, void* p) {
  auto* b = static_cast<Builder*>(p);
  size_t phdr_bytes = size_t(info->dlpi_phnum) * sizeof(ElfW(Phdr));
  const char* name = info->dlpi_name ? info->dlpi_name : "";
  size_t name_bytes = strlen(name) + 1;
  size_t need = phdr_bytes + name_bytes + alignof(ElfW(Phdr));
  if (size_t(b->high - b->low) < sizeof(Entry) + need) {
    b->full = true;
    return 1;
  }
  Entry* e = reinterpret_cast<Entry*>(b->low);
  b->low += sizeof(Entry);
  b->high -= name_bytes;
  memcpy(b->high, name, name_bytes);
  char* name_copy = b->high;
  b->high -= phdr_bytes;
  b->high = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(b->high) & ~(alignof(ElfW(Phdr)) - 1));
  memcpy(b->high, info->dlpi_phdr, phdr_bytes);
  e->info = dl_phdr_info{};
  e->info.dlpi_addr = info->dlpi_addr;
  e->info.dlpi_name = name_copy;
  e->info.dlpi_phdr = reinterpret_cast<const ElfW(Phdr)*>(b->high);
  e->info.dlpi_phnum = info->dlpi_phnum;
  e->info.dlpi_adds = info->dlpi_adds;
  e->info.dlpi_subs = info->dlpi_subs;
  e->info.dlpi_tls_modid = info->dlpi_tls_modid;
  e->info.dlpi_tls_data = nullptr;  // per thread: the snapshotting thread's block means nothing
  e->link_map = find_link_map(info, &b->next);
  e->closing = is_closing(e->link_map);
  ++b->snap->count;
  return 0;
}

// Fills `reuse` (a slot's earlier snapshot, already faulted in) when the modules fit in it,
// otherwise a new mapping, starting at the size that held them last time: a program that loads
// its plugins one by one (Open MPI: about 70 dlopen and dlclose at MPI_Init) would otherwise map,
// fault in and unmap a snapshot, often twice, at each of them (issue 23).
size_t g_last_bytes = kFirstBytes;
constinit std::atomic<uint64_t> g_mappings{0};

Snapshot* take(PhdrSource source, Snapshot* reuse) {
  size_t start = reuse && reuse->bytes > g_last_bytes ? reuse->bytes : g_last_bytes;
  for (size_t bytes = start; bytes <= kMaxBytes; bytes *= 2) {
    // A new mapping is filled from both ends, most of it at once: its pages made by the mmap
    // (MAP_POPULATE) instead of ~30 page faults each of a LAMMPS start-up's snapshots took.
    void* mem = reuse && reuse->bytes == bytes
                    ? static_cast<void*>(reuse)
                    : raw_mmap(bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE);
    if (!mem) return nullptr;
    if (mem != reuse) g_mappings.fetch_add(1, std::memory_order_relaxed);
    Builder b{static_cast<Snapshot*>(mem), nullptr, nullptr, false, _r_debug.r_map};
    b.snap->bytes = bytes;
    b.snap->count = 0;
    b.low = reinterpret_cast<char*>(b.snap->entries);
    b.high = static_cast<char*>(mem) + bytes;
    source(copy_one, &b);
    if (!b.full) {
      g_last_bytes = bytes;
      return b.snap;
    }
    if (mem != reuse) raw_munmap(mem, bytes);
  }
  return nullptr;
}

// A slot that is not published and has no readers; -1 after waiting in vain.
int free_slot() {
  for (int wait = 0; wait < kWriterWaits; ++wait) {
    int cur = g_current.load(std::memory_order_seq_cst);
    for (int s = 0; s < kSlots; ++s)
      if (s != cur && g_slots[s].readers.load(std::memory_order_seq_cst) == 0) return s;
    sched_yield();
  }
  return -1;
}

}  // namespace

namespace {

// Takes and publishes one snapshot; the caller holds g_writing.
bool publish(PhdrSource source) {
  // The slot first: not published and without readers, so its earlier snapshot may be
  // overwritten. A reader that loaded this slot's index earlier finds it is no longer
  // published and retries before reading its data.
  int s = free_slot();
  if (s < 0) return false;
  Snapshot* old = g_slots[s].data.load(std::memory_order_acquire);
  Snapshot* snap = take(source, old);
  if (!snap) return false;
  if (snap != old) g_slots[s].data.store(snap, std::memory_order_release);
  g_current.store(s, std::memory_order_seq_cst);
  g_generation.fetch_add(1, std::memory_order_relaxed);
  if (old && old != snap) raw_munmap(old, old->bytes);
  return true;
}

// Calls `fn` on the published snapshot as a reader: announced in its slot's reader count, so
// no writer reuses the slot meanwhile. Returns false when nothing is published yet. Signal-safe.
template <typename Fn>
bool with_current(Fn fn) {
  for (int tries = 0; tries < kReaderTries; ++tries) {
    int s = g_current.load(std::memory_order_seq_cst);
    if (s < 0) return false;
    Slot& slot = g_slots[s];
    slot.readers.fetch_add(1, std::memory_order_seq_cst);
    if (g_current.load(std::memory_order_seq_cst) == s) {
      fn(slot.data.load(std::memory_order_acquire));
      slot.readers.fetch_sub(1, std::memory_order_release);
      return true;
    }
    slot.readers.fetch_sub(1, std::memory_order_release);
  }
  return true;  // snapshots kept changing under this reader: as if no module were loaded
}

}  // namespace

bool phdr_snapshot_refresh(PhdrSource source) {
  int saved_errno = errno;
  bool ok = true;
  g_requested.store(true, std::memory_order_seq_cst);
  // Whoever holds g_writing sees the request after releasing it (both sequentially consistent)
  // and takes the snapshot again, so the newest state of the loader is always published.
  while (g_requested.load(std::memory_order_seq_cst) &&
         !g_writing.exchange(true, std::memory_order_seq_cst)) {
    g_requested.store(false, std::memory_order_seq_cst);
    ok = publish(source);
    g_writing.store(false, std::memory_order_seq_cst);
  }
  errno = saved_errno;
  return ok;
}

void phdr_snapshot_mark_closing(const void* handle) {
  if (!handle) return;
  for (auto& c : g_closing) {
    const void* empty = nullptr;
    if (c.compare_exchange_strong(empty, handle, std::memory_order_seq_cst)) break;
  }
  // Then the published snapshot: one published later reads the list above.
  with_current([&](Snapshot* snap) {
    for (uint32_t i = 0; snap && i < snap->count; ++i)
      if (snap->entries[i].link_map == handle)
        __atomic_store_n(&snap->entries[i].closing, 1u, __ATOMIC_SEQ_CST);
  });
}

void phdr_snapshot_closed(const void* handle) {
  if (!handle) return;
  for (auto& c : g_closing) {
    const void* h = handle;
    if (c.compare_exchange_strong(h, nullptr, std::memory_order_seq_cst)) return;
  }
}

int phdr_snapshot_iterate(PhdrCallback cb, void* data, bool* answered) {
  int rc = 0;
  *answered = with_current([&](const Snapshot* snap) {
    for (uint32_t i = 0; snap && i < snap->count && rc == 0; ++i) {
      const Entry& e = snap->entries[i];
      if (__atomic_load_n(&e.closing, __ATOMIC_SEQ_CST)) continue;
      dl_phdr_info copy = e.info;  // the callback may not write into the shared snapshot
      rc = cb(&copy, sizeof copy, data);
    }
  });
  return rc;
}

uint64_t phdr_snapshot_generation() { return g_generation.load(std::memory_order_relaxed); }

uint64_t phdr_snapshot_mappings() { return g_mappings.load(std::memory_order_relaxed); }

void phdr_snapshot_after_fork_child() {
  for (Slot& s : g_slots) s.readers.store(0, std::memory_order_relaxed);
  for (auto& c : g_closing) c.store(nullptr, std::memory_order_relaxed);  // their dlclose is gone
  g_writing.store(false, std::memory_order_relaxed);
}

}  // namespace hpcrun
