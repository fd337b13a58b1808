// Static variables: the ELF reader finds this test binary's own data symbols, and the module
// registry maps addresses (plain, C++ namespaced, function-local static, TLS) to them.
#include "loader/elf_symbols.h"
#include "loader/modules.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

namespace probe_ns {
double table[4096];
}
static int local_counts[777];
__thread long tls_buffer[128];

namespace {
uint64_t thread_pointer() {
  uint64_t tp;
  __asm__("mov %%fs:0, %0" : "=r"(tp));
  return tp;
}

std::string static_name(uint64_t addr) {
  hpcrun::StaticHit hit;
  if (!hpcrun::modules_find_static(addr, thread_pointer(), &hit)) return "<none>";
  if (hit.symbol < 0) return "<section>";
  const hpcrun::ModuleEntry* m = hpcrun::module_get(hit.module);
  char name[256];
  if (!hpcrun::read_symbol_name(m->path, m->symbols, m->symbols.syms[hit.symbol], name, sizeof name))
    return "<unreadable>";
  return name;
}
}  // namespace

TEST(ElfSymbols, ReadsOwnDataSymbols) {
  hpcrun::SymbolTable t{};
  ASSERT_TRUE(hpcrun::read_data_symbols("/proc/self/exe", &t));
  bool found = false;
  char name[256];
  for (uint32_t i = 0; i < t.count; ++i) {
    ASSERT_TRUE(hpcrun::read_symbol_name("/proc/self/exe", t, t.syms[i], name, sizeof name));
    if (strcmp(name, "_ZN8probe_ns5tableE") == 0) {
      found = true;
      EXPECT_EQ(t.syms[i].size, sizeof probe_ns::table);
      EXPECT_EQ(t.syms[i].is_tls, 0u);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(strlen(t.build_id) % 2, 0u);
}

// Names are read from the file when asked for: cut to the buffer, and none past the table.
TEST(ElfSymbols, NamesReadFromTheFileAreCutToTheBuffer) {
  hpcrun::SymbolTable t{};
  ASSERT_TRUE(hpcrun::read_data_symbols("/proc/self/exe", &t));
  ASSERT_GT(t.count, 0u);
  char name[256];
  for (uint32_t i = 0; i < t.count; ++i) {
    ASSERT_TRUE(hpcrun::read_symbol_name("/proc/self/exe", t, t.syms[i], name, sizeof name));
    if (strcmp(name, "_ZN8probe_ns5tableE") != 0) continue;
    char cut[6];
    ASSERT_TRUE(hpcrun::read_symbol_name("/proc/self/exe", t, t.syms[i], cut, sizeof cut));
    EXPECT_STREQ(cut, "_ZN8p");
  }
  hpcrun::DataSymbol beyond = t.syms[0];
  beyond.name = uint32_t(t.names_size);
  EXPECT_FALSE(hpcrun::read_symbol_name("/proc/self/exe", t, beyond, name, sizeof name));
  EXPECT_FALSE(hpcrun::read_symbol_name("/nonexistent/lib.so", t, t.syms[0], name, sizeof name));
}

TEST(ElfSymbols, MissingFileIsAnErrorNotACrash) {
  hpcrun::SymbolTable t{};
  EXPECT_FALSE(hpcrun::read_data_symbols("/nonexistent/lib.so", &t));
  EXPECT_FALSE(hpcrun::read_data_symbols("/proc/self/status", &t));  // not ELF
  EXPECT_EQ(t.count, 0u);
}

TEST(Modules, MapsAddressesToStaticVariables) {
  hpcrun::modules_scan();
  EXPECT_GT(hpcrun::modules_count(), 1u);
  EXPECT_EQ(static_name(uint64_t(&probe_ns::table[0])), "_ZN8probe_ns5tableE");
  EXPECT_EQ(static_name(uint64_t(&probe_ns::table[4095])), "_ZN8probe_ns5tableE");
  EXPECT_EQ(static_name(uint64_t(&local_counts[500])), "_ZL12local_counts");
  int on_stack = 0;
  EXPECT_EQ(static_name(uint64_t(&on_stack)), "<none>");
}

TEST(Modules, FindsStaticTlsOfEveryThread) {
  hpcrun::modules_scan();
  EXPECT_EQ(static_name(uint64_t(&tls_buffer[3])), "tls_buffer");
  std::string other;
  std::thread t([&] { other = static_name(uint64_t(&tls_buffer[100])); });
  t.join();
  EXPECT_EQ(other, "tls_buffer");
}

TEST(Modules, CodeAddressesMapToTheirModule) {
  hpcrun::modules_scan();
  uint32_t self = hpcrun::modules_find_code(uint64_t(&thread_pointer));
  ASSERT_NE(self, hpcrun::kNoModuleIndex);
  EXPECT_EQ(self, 0u);  // the executable is registered first
  uint32_t libc = hpcrun::modules_find_code(uint64_t(&strlen));
  ASSERT_NE(libc, hpcrun::kNoModuleIndex);
  EXPECT_NE(strstr(hpcrun::module_get(libc)->path, "libc"), nullptr);
  EXPECT_EQ(hpcrun::modules_find_code(16), hpcrun::kNoModuleIndex);
}

// Loading a module reads no file: its build ID comes from the loaded image's notes, and its
// symbols are read when a lookup first needs them (modules.cpp).
TEST(Modules, SymbolsAreReadWhenFirstNeededWithTheImagesBuildId) {
  hpcrun::modules_scan();
  const uint32_t libc = hpcrun::modules_find_code(uint64_t(&strlen));
  ASSERT_NE(libc, hpcrun::kNoModuleIndex);
  const hpcrun::ModuleEntry* m = hpcrun::module_get(libc);
  // The file's own notes say the same as the image's.
  hpcrun::SymbolTable from_file{};
  ASSERT_TRUE(hpcrun::read_data_symbols(m->path, &from_file));
  EXPECT_STREQ(m->symbols.build_id, from_file.build_id);
  EXPECT_EQ(strlen(m->symbols.build_id), 40u);
  // A data lookup in the module reads its table. libc's own `stdout` (the test binary may hold
  // a copy of it: a copy relocation), found where the loader's hash table says.
  uint64_t value = 0;
  ASSERT_EQ(hpcrun::module_dynamic_symbol(libc, "stdout", &value), 1);
  hpcrun::StaticHit hit;
  ASSERT_TRUE(hpcrun::modules_find_static(m->bias + value, thread_pointer(), &hit));
  EXPECT_EQ(hit.module, libc);
  EXPECT_NE(__atomic_load_n(&m->symbols_read, __ATOMIC_ACQUIRE), 0u);
  ASSERT_GE(hit.symbol, 0);
  EXPECT_EQ(static_name(m->bias + value), "stdout");
}

// The loader's own hash table answers for exported symbols, without the file.
TEST(Modules, DynamicSymbolsComeFromTheLoadedImage) {
  hpcrun::modules_scan();
  const uint32_t libc = hpcrun::modules_find_code(uint64_t(&strlen));
  ASSERT_NE(libc, hpcrun::kNoModuleIndex);
  const hpcrun::ModuleEntry* m = hpcrun::module_get(libc);
  uint64_t value = 0;
  ASSERT_EQ(hpcrun::module_dynamic_symbol(libc, "strlen", &value), 1);
  EXPECT_TRUE(m->lo <= value + m->bias && value + m->bias < m->hi);
  ASSERT_EQ(hpcrun::module_dynamic_symbol(libc, "stdout", &value), 1);
  const uint64_t libc_stdout = value + m->bias;
  EXPECT_TRUE(m->lo <= libc_stdout && libc_stdout < m->hi);
  EXPECT_EQ(hpcrun::module_dynamic_symbol(libc, "no_such_symbol_anywhere", &value), 0);
  EXPECT_EQ(hpcrun::module_dynamic_symbol(hpcrun::modules_count() + 5, "stdout", &value), -1);
}
