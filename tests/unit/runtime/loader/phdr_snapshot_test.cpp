// The snapshot of program headers that answers the runtime's own dl_iterate_phdr calls
// (hpcrun-lite/runtime/loader/phdr_snapshot.h): copies, not pointers into the loader's data;
// a module dlclose'd (or being closed) disappears; a reader keeps valid memory while writers
// publish newer snapshots; readers racing a writer always see a whole snapshot.
//
// The tests share the process-wide snapshot and run in this order (the first needs nothing
// published yet).
#include "loader/phdr_snapshot.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using hpcrun::phdr_snapshot_iterate;
using hpcrun::phdr_snapshot_refresh;

// A fake loader: modules named "mod<K>" whose single PT_LOAD has p_vaddr K, so a reader can
// check that every name and its headers come from the same snapshot entry.
struct FakeModules {
  std::vector<ElfW(Phdr)> phdrs;
  std::vector<std::string> names;
};
FakeModules g_fake;

void set_fake(const std::vector<int>& ids) {
  g_fake.phdrs.assign(ids.size(), ElfW(Phdr){});
  g_fake.names.clear();
  for (size_t i = 0; i < ids.size(); ++i) {
    g_fake.phdrs[i].p_type = PT_LOAD;
    g_fake.phdrs[i].p_vaddr = ElfW(Addr)(ids[i]);
    g_fake.phdrs[i].p_memsz = 4096;
    g_fake.names.push_back("mod" + std::to_string(ids[i]));
  }
}

int fake_source(hpcrun::PhdrCallback cb, void* data) {
  for (size_t i = 0; i < g_fake.names.size(); ++i) {
    dl_phdr_info info{};
    info.dlpi_addr = 0x10000 * (i + 1);
    info.dlpi_name = g_fake.names[i].c_str();
    info.dlpi_phdr = &g_fake.phdrs[i];
    info.dlpi_phnum = 1;
    if (int rc = cb(&info, sizeof info, data)) return rc;
  }
  return 0;
}

int real_source(hpcrun::PhdrCallback cb, void* data) { return dl_iterate_phdr(cb, data); }

struct Seen {
  std::vector<std::string> names;
  std::vector<uint64_t> vaddrs;
  std::vector<const void*> phdr_ptrs;
  bool consistent = true;
};

int collect(dl_phdr_info* info, size_t size, void* p) {
  auto* s = static_cast<Seen*>(p);
  EXPECT_GE(size, sizeof(dl_phdr_info));
  s->names.push_back(info->dlpi_name);
  s->vaddrs.push_back(info->dlpi_phnum ? info->dlpi_phdr[0].p_vaddr : 0);
  s->phdr_ptrs.push_back(info->dlpi_phdr);
  if (strncmp(info->dlpi_name, "mod", 3) == 0 &&
      std::to_string(info->dlpi_phdr[0].p_vaddr) != info->dlpi_name + 3)
    s->consistent = false;
  return 0;
}

Seen read_snapshot() {
  Seen s;
  bool answered = false;
  phdr_snapshot_iterate(collect, &s, &answered);
  EXPECT_TRUE(answered);
  return s;
}

bool contains(const Seen& s, const std::string& needle) {
  for (const auto& n : s.names)
    if (n.find(needle) != std::string::npos) return true;
  return false;
}

TEST(PhdrSnapshot, NothingPublishedIsNotAnAnswer) {
  // Only true of a process where nothing was published yet: ctest runs each test in a process of
  // its own; a second round of --gtest_repeat finds the earlier tests' snapshots.
  if (hpcrun::phdr_snapshot_generation() != 0)
    GTEST_SKIP() << "a snapshot was published earlier in this process";
  Seen s;
  bool answered = true;
  EXPECT_EQ(phdr_snapshot_iterate(collect, &s, &answered), 0);
  EXPECT_FALSE(answered);
  EXPECT_TRUE(s.names.empty());
}

TEST(PhdrSnapshot, PublishesCopies) {
  set_fake({1, 2, 3});
  uint64_t gen = hpcrun::phdr_snapshot_generation();
  ASSERT_TRUE(phdr_snapshot_refresh(fake_source));
  EXPECT_EQ(hpcrun::phdr_snapshot_generation(), gen + 1);
  Seen s = read_snapshot();
  ASSERT_EQ(s.names, (std::vector<std::string>{"mod1", "mod2", "mod3"}));
  EXPECT_EQ(s.vaddrs, (std::vector<uint64_t>{1, 2, 3}));
  for (size_t i = 0; i < 3; ++i) EXPECT_NE(s.phdr_ptrs[i], &g_fake.phdrs[i]) << "not a copy";
  // The loader's data may change at once: the snapshot does not.
  set_fake({7});
  EXPECT_EQ(read_snapshot().names, (std::vector<std::string>{"mod1", "mod2", "mod3"}));
}

// Open MPI's MPI_Init makes about 70 dlopen and dlclose calls, each followed by a refresh: once
// every slot has a mapping large enough, refreshes write over a free slot's old snapshot
// instead of mapping, faulting in and unmapping new memory (issue 23), and readers still see
// exactly the newest modules.
TEST(PhdrSnapshot, RefreshesReuseTheSlotsMappings) {
  std::vector<int> ids;
  for (int k = 1; k <= 600; ++k) ids.push_back(k);  // more than the first 64 KiB mapping holds
  set_fake(ids);
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(phdr_snapshot_refresh(fake_source));
  uint64_t mapped = hpcrun::phdr_snapshot_mappings();
  for (int i = 0; i < 50; ++i) {
    set_fake(i % 2 ? ids : std::vector<int>(ids.begin(), ids.end() - 1));
    ASSERT_TRUE(phdr_snapshot_refresh(fake_source));
    Seen s = read_snapshot();
    ASSERT_EQ(s.names.size(), size_t(i % 2 ? 600 : 599));
    EXPECT_TRUE(s.consistent);
    EXPECT_EQ(s.names.back(), i % 2 ? "mod600" : "mod599");
  }
  EXPECT_EQ(hpcrun::phdr_snapshot_mappings(), mapped) << "a refresh mapped new memory";
}

TEST(PhdrSnapshot, CallbackStopsTheWalk) {
  set_fake({1, 2, 3});
  ASSERT_TRUE(phdr_snapshot_refresh(fake_source));
  int calls = 0;
  bool answered;
  int rc = phdr_snapshot_iterate(
      [](dl_phdr_info*, size_t, void* p) { return ++*static_cast<int*>(p) == 2 ? 42 : 0; },
      &calls, &answered);
  EXPECT_EQ(rc, 42);
  EXPECT_EQ(calls, 2);
}

TEST(PhdrSnapshot, RemovedModuleDisappears) {
  set_fake({1, 2, 3});
  ASSERT_TRUE(phdr_snapshot_refresh(fake_source));
  set_fake({1, 3});
  ASSERT_TRUE(phdr_snapshot_refresh(fake_source));
  EXPECT_EQ(read_snapshot().names, (std::vector<std::string>{"mod1", "mod3"}));
}

// A library really opened and closed: present after dlopen, skipped while closing (also in a
// snapshot taken meanwhile), gone once dlclose returned and the snapshot was taken again.
TEST(PhdrSnapshot, ClosingAndClosedLibrary) {
  void* h = dlopen(HPCL_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  ASSERT_TRUE(phdr_snapshot_refresh(real_source));
  Seen open = read_snapshot();
  EXPECT_TRUE(contains(open, "libhpcl_plugin"));
  EXPECT_TRUE(contains(open, "libc.so"));
  hpcrun::phdr_snapshot_mark_closing(h);
  Seen closing = read_snapshot();
  EXPECT_FALSE(contains(closing, "libhpcl_plugin")) << "a closing module is still answered";
  EXPECT_EQ(closing.names.size() + 1, open.names.size()) << "only the closing module is skipped";
  ASSERT_TRUE(phdr_snapshot_refresh(real_source));  // another thread's refresh meanwhile
  EXPECT_FALSE(contains(read_snapshot(), "libhpcl_plugin")) << "a new snapshot forgot it closes";
  hpcrun::phdr_snapshot_mark_closing(nullptr);  // not a module: changes nothing
  EXPECT_EQ(read_snapshot().names.size(), closing.names.size());
  ASSERT_EQ(dlclose(h), 0);
  hpcrun::phdr_snapshot_closed(h);
  ASSERT_TRUE(phdr_snapshot_refresh(real_source));
  Seen closed = read_snapshot();
  EXPECT_FALSE(contains(closed, "libhpcl_plugin"));
  EXPECT_EQ(closed.names.size() + 1, open.names.size());
  // Opened again (perhaps at the same address): answered again.
  h = dlopen(HPCL_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  ASSERT_TRUE(phdr_snapshot_refresh(real_source));
  EXPECT_TRUE(contains(read_snapshot(), "libhpcl_plugin"));
  dlclose(h);
}

// A refresh requested while another is being taken (here from inside the source, as a thread
// holding the loader's lock would) does not wait: the writer takes the snapshot once more, and
// the newest state is what is published.
int g_nested_calls = 0;
int source_that_changes(hpcrun::PhdrCallback cb, void* data) {
  if (g_nested_calls++ == 0) {
    set_fake({8, 9});
    EXPECT_TRUE(phdr_snapshot_refresh(fake_source)) << "a deferred request is not a failure";
  }
  return fake_source(cb, data);
}

TEST(PhdrSnapshot, RefreshDuringRefreshIsTakenAgain) {
  set_fake({4});
  g_nested_calls = 0;
  uint64_t gen = hpcrun::phdr_snapshot_generation();
  ASSERT_TRUE(phdr_snapshot_refresh(source_that_changes));
  EXPECT_EQ(g_nested_calls, 2) << "the writer did not take the requested snapshot";
  EXPECT_EQ(hpcrun::phdr_snapshot_generation(), gen + 2);
  EXPECT_EQ(read_snapshot().names, (std::vector<std::string>{"mod8", "mod9"}));
}

// A reader inside its walk (a handler unwinding) while writers publish again and again: its
// entries stay mapped and unchanged, and the writers are not held up.
TEST(PhdrSnapshot, ReaderKeepsItsSnapshotWhileWritersPublish) {
  set_fake({5, 6});
  ASSERT_TRUE(phdr_snapshot_refresh(fake_source));
  struct State {
    int calls = 0;
    bool published_all = true;
    std::string name_after;
    uint64_t vaddr_after = 0;
  } st;
  bool answered;
  phdr_snapshot_iterate(
      [](dl_phdr_info* info, size_t, void* p) {
        auto* s = static_cast<State*>(p);
        if (s->calls++ == 0) {
          for (int i = 0; i < 20; ++i) {
            set_fake({100 + i});
            s->published_all &= phdr_snapshot_refresh(fake_source);
          }
          s->name_after = info->dlpi_name;
          s->vaddr_after = info->dlpi_phdr[0].p_vaddr;
        }
        return 0;
      },
      &st, &answered);
  EXPECT_TRUE(st.published_all);
  EXPECT_EQ(st.calls, 2) << "the reader walks the snapshot it started with";
  EXPECT_EQ(st.name_after, "mod5");
  EXPECT_EQ(st.vaddr_after, 5u);
  EXPECT_EQ(read_snapshot().names, (std::vector<std::string>{"mod119"}));
}

// Readers racing a writer: every walk sees one whole snapshot (names and headers agree, the
// count is one the writer published) and never faults on unmapped memory.
TEST(PhdrSnapshot, ReadersRacingAWriter) {
  set_fake({0, 1, 2});
  ASSERT_TRUE(phdr_snapshot_refresh(fake_source));
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, walks{0};
  auto reader = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      Seen s;
      bool answered;
      phdr_snapshot_iterate(collect, &s, &answered);
      if (!answered || !s.consistent || (s.names.size() != 2 && s.names.size() != 3)) ++bad;
      ++walks;
    }
  };
  std::thread r1(reader), r2(reader);
  // Refreshes that reuse their slots' mappings take microseconds: 2,000 of them can end before a
  // reader thread has started. Race for real: start once the readers walk, and go on until they
  // have walked many times.
  while (walks.load() < 2) std::this_thread::yield();
  for (int i = 1; i < 2000 || walks.load() < 2000; ++i) {
    // set_fake rewrites the source's vectors; only this thread reads them.
    if (i % 2) set_fake({i, i + 1});
    else set_fake({i, i + 1, i + 2});
    phdr_snapshot_refresh(fake_source);
  }
  stop = true;
  r1.join();
  r2.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(walks.load(), 0);
}

}  // namespace
