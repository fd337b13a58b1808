// libdw-based symbolizer (see symbolize.h).
#include "symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "location.h"
#include "naming.h"

namespace hpcl::analysis {
namespace {

char* g_debuginfo_path = nullptr;  // libdw's default search path for separate debug files

const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &g_debuginfo_path,
};

std::string hex(const unsigned char* bytes, int n) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// Function name of a subprogram or inlined instance: the linkage name (demangled) when there is
// one, because DW_AT_name of a C++ member lacks its class; attributes are followed through
// DW_AT_abstract_origin and DW_AT_specification.
std::string die_function(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (name == nullptr)
    name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  if (name != nullptr) return demangle(name);
  name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
  return name != nullptr ? name : "";
}

// File named by an inlined instance's DW_AT_call_file, from its compile unit's file table.
std::string call_file(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  Dwarf_Word index = 0;
  if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &index) != 0) return {};
  Dwarf_Die cu;
  if (dwarf_diecu(die, &cu, nullptr, nullptr) == nullptr) return {};
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || index >= nfiles) return {};
  const char* name = dwarf_filesrc(files, index, nullptr, nullptr);
  return name != nullptr ? name : "";
}

uint32_t call_line(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  Dwarf_Word line = 0;
  if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &line) != 0) return 0;
  return static_cast<uint32_t>(line);
}

}  // namespace

struct ModuleSymbols::Session {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* mod = nullptr;
  Dwarf_Addr bias = 0;  // Dwfl address = link-time address + bias
  ~Session() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
};

ModuleSymbols::ModuleSymbols(const std::string& path, const std::string& build_id) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    missing_ = errno == ENOENT || errno == ENOTDIR;
    error_ = missing_ ? "not found" : std::strerror(errno);
    return;
  }
  auto s = std::make_unique<Session>();
  s->dwfl = dwfl_begin(&kOfflineCallbacks);
  if (s->dwfl == nullptr) {
    error_ = dwfl_errmsg(-1);
    return;
  }
  dwfl_report_begin(s->dwfl);
  s->mod = dwfl_report_offline(s->dwfl, std::string(basename_of(path)).c_str(), path.c_str(), -1);
  if (s->mod == nullptr) {
    error_ = dwfl_errmsg(-1);
    return;
  }
  dwfl_report_end(s->dwfl, nullptr, nullptr);
  // Offline reporting places a shared object at an arbitrary base; the profile's offsets are
  // link-time addresses, so lookups add the bias libdw chose.
  if (dwfl_module_getelf(s->mod, &s->bias) == nullptr) {
    error_ = dwfl_errmsg(-1);
    return;
  }
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  int n = dwfl_module_build_id(s->mod, &bits, &vaddr);
  if (n > 0 && !build_id.empty() && lower(build_id) != hex(bits, n)) {
    error_ = "build id " + hex(bits, n) + " differs from the profiled " + build_id;
    return;
  }
  session_ = std::move(s);
}

ModuleSymbols::~ModuleSymbols() = default;

bool ModuleSymbols::ok() const { return session_ != nullptr; }

std::vector<SourceLoc> ModuleSymbols::lookup(uint64_t offset) const {
  Dwfl_Module* mod = session_->mod;
  const Dwarf_Addr addr = offset + session_->bias;

  // The line of the address itself belongs to the innermost (possibly inlined) function.
  SourceLoc here;
  if (Dwfl_Line* line = dwfl_module_getsrc(mod, addr)) {
    int lineno = 0;
    const char* file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr);
    if (file != nullptr) here.file = file;
    here.line = lineno > 0 ? static_cast<uint32_t>(lineno) : 0;
  }

  std::vector<SourceLoc> locs;
  Dwarf_Addr cu_bias = 0;
  if (Dwarf_Die* cudie = dwfl_module_addrdie(mod, addr, &cu_bias)) {
    Dwarf_Die* scopes = nullptr;
    int nscopes = dwarf_getscopes(cudie, addr - cu_bias, &scopes);
    if (nscopes > 0) {
      // dwarf_getscopes continues past an inlined instance into its abstract definition; the
      // physical nesting (inlined instance -> the function it was inlined into) comes from
      // dwarf_getscopes_die on the innermost scope.
      Dwarf_Die* chain = nullptr;
      int nchain = dwarf_getscopes_die(&scopes[0], &chain);
      SourceLoc cur = here;
      for (int i = 0; i < nchain; ++i) {
        int tag = dwarf_tag(&chain[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine &&
            tag != DW_TAG_entry_point)
          continue;
        cur.function = die_function(&chain[i]);
        locs.push_back(cur);
        if (tag != DW_TAG_inlined_subroutine) break;
        cur = SourceLoc{{}, call_file(&chain[i]), call_line(&chain[i])};
      }
      std::free(chain);
    }
    std::free(scopes);
  }
  // No DWARF function (no debug info, assembly, stripped): the ELF symbol table names it.
  if (locs.empty()) locs.push_back(here);
  if (locs.back().function.empty()) {
    if (const char* sym = dwfl_module_addrname(mod, addr)) locs.back().function = demangle(sym);
  }
  return locs;
}

std::vector<Frame> frames_to_symbolize(const Profile& db) {
  std::vector<Frame> frames;
  for (const Tree& t : db.trees)
    for (const Node& n : t.nodes)
      if (n.kind == NodeKind::Frame) frames.push_back(Frame{n.a, n.b});
  for (const AllocSite& s : db.sites) frames.insert(frames.end(), s.frames.begin(), s.frames.end());
  std::sort(frames.begin(), frames.end());
  frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
  return frames;
}

SymbolizeResult symbolize_frames(const std::vector<Module>& modules,
                                 const std::vector<Frame>& frames, unsigned jobs) {
  // Runs of equal module in the sorted frame list are the units of work.
  struct Run {
    size_t begin, end;
    std::string warning;
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < frames.size();) {
    size_t j = i;
    while (j < frames.size() && frames[j].module == frames[i].module) ++j;
    runs.push_back(Run{i, j, {}});
    i = j;
  }

  SymbolizeResult result;
  result.symbols.resize(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) result.symbols[i].frame = frames[i];

  auto work = [&](Run& run) {
    uint32_t m = frames[run.begin].module;
    std::unique_ptr<ModuleSymbols> syms;
    if (m != kNoModule && m < modules.size()) {
      const std::string& path = modules[m].path;
      // Pseudo-modules such as "[vdso]" have no file to read; that is not worth a warning.
      if (!path.empty() && path[0] != '[') {
        syms = std::make_unique<ModuleSymbols>(path, modules[m].build_id);
        if (!syms->ok()) {
          run.warning = syms->missing()
                            ? path + " not found; its frames keep module+offset"
                            : path + ": " + syms->error() + "; its frames keep module+offset";
          syms.reset();
        }
      }
    }
    for (size_t i = run.begin; i < run.end; ++i)
      result.symbols[i].locs = syms ? syms->lookup(frames[i].offset) : std::vector<SourceLoc>{SourceLoc{}};
  };

  unsigned nthreads = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(runs.size())));
  if (nthreads <= 1) {
    for (Run& r : runs) work(r);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < nthreads; ++t)
      threads.emplace_back([&] {
        for (size_t k; (k = next.fetch_add(1)) < runs.size();) work(runs[k]);
      });
    for (std::thread& t : threads) t.join();
  }
  // Two builds of one path are two modules; say so once.
  for (Run& r : runs)
    if (!r.warning.empty() && std::find(result.warnings.begin(), result.warnings.end(),
                                        r.warning) == result.warnings.end())
      result.warnings.push_back(std::move(r.warning));
  return result;
}

}  // namespace hpcl::analysis
