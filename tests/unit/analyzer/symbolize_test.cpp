// The libdw symbolizer on a real binary built with -g -O2 (inline_target.c): the frame recorded
// inside an always-inlined function expands to the inlined function and then its caller, with the
// lines the MARK comments point at; a copy without DWARF falls back to the ELF symbol table, and
// .dynsym-only libc is named too. Missing modules and build-id mismatches are refused.
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "merge/merge.h"
#include "symbols/naming.h"
#include "profile_builder.h"
#include "model/report_model.h"
#include "symbols/symbolize.h"

namespace hpcl::analysis {
namespace {

// Line number of the line containing `marker` in `path`, or 0.
uint32_t marker_line(const std::string& path, const std::string& marker) {
  std::ifstream in(path);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return 0;
}

// Runs the target and returns the call-site offset it prints.
uint64_t probe_offset() {
  // Quoted: the build directory may hold spaces.
  FILE* p = popen(("'" + std::string(INLINE_TARGET) + "'").c_str(), "r");
  if (p == nullptr) return 0;
  unsigned long offset = 0;
  int n = std::fscanf(p, "%lx", &offset);
  pclose(p);
  return n == 1 ? offset : 0;
}

TEST(Symbolize, InlinedFunctionThenCaller) {
  const uint32_t probe_line = marker_line(INLINE_TARGET_SOURCE, "MARK: probe-call");
  const uint32_t call_line = marker_line(INLINE_TARGET_SOURCE, "MARK: inlined-call");
  ASSERT_NE(probe_line, 0u);
  ASSERT_NE(call_line, 0u);
  const uint64_t offset = probe_offset();
  ASSERT_NE(offset, 0u);

  ModuleSymbols syms(INLINE_TARGET, "");
  ASSERT_TRUE(syms.ok()) << syms.error();
  std::vector<SourceLoc> locs = syms.lookup(offset);
  ASSERT_EQ(locs.size(), 2u);
  EXPECT_EQ(locs[0].function, "scale_inlined");
  EXPECT_EQ(basename_of(locs[0].file), "inline_target.c");
  EXPECT_EQ(locs[0].line, probe_line);
  EXPECT_EQ(locs[1].function, "main");
  EXPECT_EQ(basename_of(locs[1].file), "inline_target.c");
  EXPECT_EQ(locs[1].line, call_line);
}

TEST(Symbolize, ElfSymbolsWithoutDwarf) {
  const uint64_t offset = probe_offset();
  ASSERT_NE(offset, 0u);
  ModuleSymbols syms(INLINE_TARGET_STRIPPED, "");
  ASSERT_TRUE(syms.ok()) << syms.error();
  std::vector<SourceLoc> locs = syms.lookup(offset);
  ASSERT_EQ(locs.size(), 1u);
  EXPECT_EQ(locs[0].function, "main");  // the inlined code lives in main's symbol
  EXPECT_EQ(locs[0].file, "");
  EXPECT_EQ(locs[0].line, 0u);
}

TEST(Symbolize, DynsymOfSharedLibrary) {
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(libc, nullptr);
  void* fn = dlsym(libc, "getpid");  // libc's own, whatever the sanitizers interpose
  ASSERT_NE(fn, nullptr);
  Dl_info info;
  ASSERT_NE(dladdr(fn, &info), 0);
  // libc's first segment is at link-time address 0, so the offset from its base is link-time.
  uint64_t offset = reinterpret_cast<uintptr_t>(fn) - reinterpret_cast<uintptr_t>(info.dli_fbase);
  ModuleSymbols syms(info.dli_fname, "");
  ASSERT_TRUE(syms.ok()) << syms.error();
  std::vector<SourceLoc> locs = syms.lookup(offset);
  ASSERT_FALSE(locs.empty());
  EXPECT_NE(locs.back().function.find("getpid"), std::string::npos) << locs.back().function;
  dlclose(libc);
}

TEST(Symbolize, MissingModuleAndWrongBuild) {
  ModuleSymbols missing("/nonexistent/hpcl/libnothing.so", "");
  EXPECT_FALSE(missing.ok());
  EXPECT_TRUE(missing.missing());
  ModuleSymbols wrong(INLINE_TARGET, "00112233445566778899aabbccddeeff00112233");
  EXPECT_FALSE(wrong.ok());
  EXPECT_FALSE(wrong.missing());
  EXPECT_NE(wrong.error().find("build id"), std::string::npos) << wrong.error();
}

TEST(Symbolize, FramesOfManyModulesInParallel) {
  const uint64_t offset = probe_offset();
  ASSERT_NE(offset, 0u);
  std::vector<Module> modules = {{INLINE_TARGET, "", 0},
                                 {"/nonexistent/hpcl/libgone.so", "", 0},
                                 {INLINE_TARGET_STRIPPED, "", 0},
                                 {"[vdso]", "", 0}};
  std::vector<Frame> frames = {{0, offset}, {1, 0x10}, {1, 0x20}, {2, offset}, {3, 0x5}, {kNoModule, 0x99}};
  SymbolizeResult one = symbolize_frames(modules, frames, 1);
  SymbolizeResult four = symbolize_frames(modules, frames, 4);
  ASSERT_EQ(one.symbols.size(), frames.size());
  ASSERT_EQ(one.warnings.size(), 1u);
  EXPECT_EQ(one.warnings[0], "/nonexistent/hpcl/libgone.so not found; its frames keep module+offset");
  EXPECT_EQ(one.symbols[0].locs.size(), 2u);
  EXPECT_EQ(one.symbols[1].locs.size(), 1u);
  EXPECT_EQ(one.symbols[1].locs[0].function, "");
  EXPECT_EQ(one.symbols[3].locs[0].function, "main");
  EXPECT_EQ(one.symbols[5].locs[0].function, "");
  ASSERT_EQ(four.symbols.size(), one.symbols.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(four.symbols[i].frame, frames[i]);
    ASSERT_EQ(four.symbols[i].locs.size(), one.symbols[i].locs.size());
    for (size_t k = 0; k < one.symbols[i].locs.size(); ++k) {
      EXPECT_EQ(four.symbols[i].locs[k].function, one.symbols[i].locs[k].function);
      EXPECT_EQ(four.symbols[i].locs[k].line, one.symbols[i].locs[k].line);
    }
  }
  EXPECT_EQ(four.warnings, one.warnings);
}

// Merge -> symbolize -> report on a profile whose module is the real target: the heap site is
// named by the inlined function with its file and line, the caller follows in the path.
TEST(Symbolize, MergedDatabaseNamesSitesFromDebugInfo) {
  const uint64_t offset = probe_offset();
  ASSERT_NE(offset, 0u);
  const uint32_t probe_line = marker_line(INLINE_TARGET_SOURCE, "MARK: probe-call");
  hpcl::testing::TempDir dir;
  Profile p = hpcl::testing::new_process(0);
  p.modules = {{INLINE_TARGET, "", 0x555555554000}};
  p.sites = {{AllocApi::Malloc, 0, {{0, offset}}, 1, 64}};
  Tree t = hpcl::testing::new_tree(1);
  hpcl::testing::heap_sample(t, 0, {{0, offset}}, 3);
  p.trees = {t};
  hpcl::testing::write_or_fail(p, dir.file("p.hpcl"));
  MergeOptions options;
  options.jobs = 2;
  MergeOutcome out = merge_directory(dir.path(), options);
  ASSERT_EQ(out.error, "");
  EXPECT_TRUE(out.warnings.empty());
  ReportModel m = build_report_model(out.database);
  ASSERT_EQ(m.variables.size(), 1u);
  // The recorded call goes to probe, not to malloc: so probe ran and tail-called the allocator,
  // and its frame is recovered (marked) and names the variable.
  const uint32_t entry_line = marker_line(INLINE_TARGET_SOURCE, "MARK: probe-entry");
  EXPECT_EQ(m.variables[0].name, "probe (inline_target.c:" + std::to_string(entry_line) + ")");
  const std::vector<Location>& path = m.variables[0].allocation_path;
  ASSERT_EQ(path.size(), 4u);  // malloc, probe (tail call), scale_inlined, main
  EXPECT_TRUE(path[1].tail_call);
  EXPECT_FALSE(path[1].has_address);
  EXPECT_EQ(path[2].function, "scale_inlined");
  EXPECT_EQ(path[2].line, probe_line);
  EXPECT_FALSE(path[2].tail_call);
  EXPECT_EQ(path[3].function, "main");
  // The access path's leaf is the sampled instruction itself: no callee is looked at there.
  ASSERT_FALSE(m.variables[0].accesses.empty());
  EXPECT_EQ(m.variables[0].accesses[0].path.size(), 2u);
}

// A call site's callee: from DWARF call-site entries with debug information, from the call
// instruction and the symbol table without.
TEST(Symbolize, CalleeOfACallSite) {
  const uint64_t offset = probe_offset();
  ASSERT_NE(offset, 0u);
  const uint32_t entry_line = marker_line(INLINE_TARGET_SOURCE, "MARK: probe-entry");
  ModuleSymbols dwarf(INLINE_TARGET, "");
  ASSERT_TRUE(dwarf.ok()) << dwarf.error();
  SourceLoc c = dwarf.callee(offset);
  EXPECT_EQ(c.function, "probe");
  EXPECT_EQ(basename_of(c.file), "inline_target.c");
  EXPECT_EQ(c.line, entry_line);
  ModuleSymbols bare(INLINE_TARGET_STRIPPED, "");
  ASSERT_TRUE(bare.ok()) << bare.error();
  EXPECT_FALSE(bare.has_debug_info());
  EXPECT_TRUE(dwarf.has_debug_info());
  EXPECT_EQ(bare.callee(offset).function, "probe");
  // Not a call site (the first byte of main's code): no callee.
  uint64_t start = 0, end = 0;
  ASSERT_TRUE(bare.function_bounds(offset, &start, &end));
  EXPECT_LE(start, offset);
  EXPECT_LT(offset, end);
  EXPECT_EQ(bare.callee(start).function, "");
}

// The FUNC symbols of `path` with a size: (start, end), link-time addresses.
std::vector<std::pair<uint64_t, uint64_t>> function_symbols(const char* path) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  elf_version(EV_CURRENT);
  int fd = ::open(path, O_RDONLY);
  Elf* elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, nullptr) : nullptr;
  for (Elf_Scn* scn = elf ? elf_nextscn(elf, nullptr) : nullptr; scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_SYMTAB) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; data != nullptr && i < shdr.sh_size / shdr.sh_entsize; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) != nullptr && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
          sym.st_size > 0 && sym.st_shndx != SHN_UNDEF)
        out.emplace_back(sym.st_value, sym.st_value + sym.st_size);
    }
  }
  if (elf) elf_end(elf);
  if (fd >= 0) ::close(fd);
  return out;
}

// Without DWARF, a function's bounds come from its FDE in .eh_frame; the linker's symbol table
// (kept in the copy without DWARF) says where each function really starts and ends.
// The same on this test program, thousands of functions of C++ (templates, cold parts split
// off by the compiler, each with its own symbol and FDE).
void expect_bounds_of_symbols(const char* path, size_t at_least) {
  ModuleSymbols bare(path, "");
  ASSERT_TRUE(bare.ok()) << bare.error();
  std::vector<std::pair<uint64_t, uint64_t>> functions = function_symbols(path);
  size_t checked = 0;
  for (auto [begin, end] : functions) {
    uint64_t start = 0, stop = 0;
    // Functions of crt1.o and crti.o (_start, _init, _fini) may come without an FDE.
    if (!bare.function_bounds(begin, &start, &stop)) continue;
    ++checked;
    EXPECT_EQ(start, begin) << std::hex << begin;
    EXPECT_EQ(stop, end) << std::hex << begin;
    ASSERT_TRUE(bare.function_bounds(end - 1, &start, &stop));
    EXPECT_EQ(start, begin) << "the last byte of the function at " << std::hex << begin;
  }
  EXPECT_GE(checked, at_least) << path;
}

TEST(Symbolize, FunctionBoundsAreTheSymbolTablesWithoutDwarf) {
  expect_bounds_of_symbols(INLINE_TARGET_STRIPPED, 3);  // main, probe, first_bias (and _start)
  expect_bounds_of_symbols("/proc/self/exe", 1000);
}

TEST(Symbolize, UnnamedFunctionNames) {
  EXPECT_EQ(unnamed_function_name("app", 0x3f100), "app!0x3f100");
  uint64_t start = 0;
  EXPECT_TRUE(unnamed_function_start("libgomp.so.1!0x1cc40", &start));
  EXPECT_EQ(start, 0x1cc40u);
  EXPECT_FALSE(unnamed_function_start("main", &start));
  EXPECT_FALSE(unnamed_function_start("a!0x", &start));
  EXPECT_FALSE(unnamed_function_start("a!0xzz", &start));
  Location loc{"app!0x3f100", "", 0, "/bin/app", 0x3f25d, true};
  loc.unnamed_function = true;
  loc.function_start = 0x3f100;
  EXPECT_EQ(location_label(loc), "app!0x3f100+0x15d");
  loc.has_address = false;  // the code view aggregates a function's addresses
  EXPECT_EQ(location_label(loc), "app!0x3f100");
}

}  // namespace
}  // namespace hpcl::analysis
