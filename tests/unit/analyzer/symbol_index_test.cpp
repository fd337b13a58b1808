// The sorted symbol index (symbols/symbol_index.h) answers as libdwfl's dwfl_module_addrinfo does,
// over the code and data of real modules of this machine, probed every few bytes: the index
// replaces that call on the symbolizer's hot path, so any difference would rename frames.
#include <elfutils/libdwfl.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "symbols/symbol_index.h"

namespace hpcl::analysis {
namespace {

const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

void expect_same_as_libdwfl(const std::string& path, Dwarf_Addr step) {
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not on this machine";
  Dwfl* dwfl = dwfl_begin(&kCallbacks);
  ASSERT_NE(dwfl, nullptr);
  dwfl_report_begin(dwfl);
  Dwfl_Module* mod = dwfl_report_offline(dwfl, "m", path.c_str(), -1);
  ASSERT_NE(mod, nullptr) << dwfl_errmsg(-1);
  dwfl_report_end(dwfl, nullptr, nullptr);
  Dwarf_Addr low = 0, high = 0;
  dwfl_module_info(mod, nullptr, &low, &high, nullptr, nullptr, nullptr, nullptr);
  const SymbolIndex index(mod);
  ASSERT_GT(index.size(), 100u) << path;
  size_t probes = 0, named = 0;
  for (Dwarf_Addr a = low; a < high; a += step, ++probes) {
    GElf_Off off = 0;
    GElf_Sym sym;
    const char* want = dwfl_module_addrinfo(mod, a, &off, &sym, nullptr, nullptr, nullptr);
    const SymbolIndex::Hit got = index.at(a);
    if (want == nullptr) {
      EXPECT_EQ(got.name, nullptr) << path << " at 0x" << std::hex << a << ": " << got.name;
      continue;
    }
    ++named;
    ASSERT_NE(got.name, nullptr) << path << " at 0x" << std::hex << a << ": libdwfl says " << want;
    // Aliases at one address may be told apart differently; the address and size may not.
    EXPECT_EQ(got.start, a - off) << path << " at 0x" << std::hex << a << ": " << want << " vs " << got.name;
    if (std::strcmp(want, got.name) != 0) {
      EXPECT_EQ(got.size, sym.st_size) << want << " vs " << got.name;
    }
  }
  EXPECT_GT(named, probes / 10) << path;  // the probes met symbols, not only gaps
  dwfl_end(dwfl);
}

TEST(SymbolIndex, AnswersAsLibdwflOnLibc) { expect_same_as_libdwfl("/lib/x86_64-linux-gnu/libc.so.6", 211); }

TEST(SymbolIndex, AnswersAsLibdwflOnLibstdcxx) {
  expect_same_as_libdwfl("/lib/x86_64-linux-gnu/libstdc++.so.6", 307);
}

TEST(SymbolIndex, AnswersAsLibdwflOnLibdw) {
  // elfutils itself: a library of C with local (static) functions among the global ones.
  expect_same_as_libdwfl("/lib/x86_64-linux-gnu/libdw.so.1", 53);
}

}  // namespace
}  // namespace hpcl::analysis
