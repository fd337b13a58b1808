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
#include <cstdio>
#include <cstring>
#include <thread>

#include "call_sites.h"
#include "function_starts.h"
#include "symbol_index.h"
#include "location.h"
#include "naming.h"

namespace hpcl::analysis {
namespace {

// Where libdw looks for separate debug files: beside the file, in .debug/, then under each root
// (ROOT/.build-id/xx/yyyy.debug and ROOT/<path of the file>). Set by set_debug_root.
char* g_debuginfo_path = nullptr;  // nullptr: libdw's default, ":.debug:/usr/lib/debug"
std::string g_debuginfo_storage;

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
  std::string name;     // basename of the module, for functions known only by their bounds
  // Every function's bounds, with or without a symbol, from the unwind tables.
  std::unique_ptr<FunctionStarts> functions;
  ScopeCache scopes;  // of functions DWARF names without their class (die_function)
  std::unique_ptr<SymbolIndex> symbols;  // the ELF symbols by address
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
  s->name = std::string(basename_of(path));
  Dwarf_Addr elf_bias = 0;
  s->functions = std::make_unique<FunctionStarts>(dwfl_module_getelf(s->mod, &elf_bias));
  s->symbols = std::make_unique<SymbolIndex>(s->mod);
  has_debug_info_ = dwfl_module_getdwarf(s->mod, &vaddr) != nullptr;
  session_ = std::move(s);
}

ModuleSymbols::Symbol ModuleSymbols::symbol_at(uint64_t offset) const {
  const SymbolIndex::Hit h = session_->symbols->at(offset + session_->bias);
  if (h.name == nullptr) return {};
  return {h.name, h.start - session_->bias, h.size};
}

bool ModuleSymbols::function_bounds(uint64_t offset, uint64_t* start, uint64_t* end) const {
  return session_->functions->find(offset, start, end);
}

SourceLoc ModuleSymbols::callee(uint64_t offset) const {
  const Dwarf_Addr ret = offset + 1 + session_->bias;
  DirectCall call;
  bool direct = direct_call_before(session_->mod, ret, &call) && !call.to_plt &&
                call.target >= session_->bias;
  SourceLoc out;
  out.function = dwarf_call_origin(session_->mod, ret, session_->scopes);
  if (!out.function.empty() && !direct) return out;
  if (!direct) return {};
  // Five bytes that merely look like a call (the tail of an indirect call) must land on the
  // start of a function to count.
  const uint64_t target = call.target - session_->bias;
  uint64_t start = 0, end = 0;
  const SymbolIndex::Hit sym = session_->symbols->at(call.target);
  bool starts_function = (function_bounds(target, &start, &end) && start == target) ||
                         (sym.name != nullptr && sym.start == call.target);
  if (!starts_function) return out;  // DWARF's name alone, if it gave one
  std::vector<SourceLoc> at = lookup(target);
  if (out.function.empty()) out.function = at.back().function;
  out.file = at.back().file;
  out.line = at.back().line;
  return out;
}

ModuleSymbols::~ModuleSymbols() = default;

Dwfl_Module* ModuleSymbols::dwfl_module() const { return session_->mod; }

uint64_t ModuleSymbols::bias() const { return session_->bias; }

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
        cur.function = die_function(&chain[i], session_->scopes);
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
    if (const char* sym = session_->symbols->at(addr).name) locs.back().function = demangle(sym);
  }
  // No symbol either (stripped): the function the call-frame information bounds, named by its
  // start, so that the addresses of one function share one name.
  uint64_t start = 0, end = 0;
  if (locs.back().function.empty() && function_bounds(offset, &start, &end))
    locs.back().function = unnamed_function_name(session_->name, start);
  return locs;
}

std::string unnamed_function_name(std::string_view module, uint64_t start) {
  char hexstart[24];
  std::snprintf(hexstart, sizeof hexstart, "0x%llx", static_cast<unsigned long long>(start));
  return std::string(module) + "!" + hexstart;
}

bool unnamed_function_start(std::string_view function, uint64_t* start) {
  size_t bang = function.rfind("!0x");
  if (bang == std::string_view::npos || bang == 0 || bang + 3 == function.size()) return false;
  uint64_t v = 0;
  for (char c : function.substr(bang + 3)) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0 || v >> 60) return false;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  *start = v;
  return true;
}

void set_debug_root(const std::string& root) {
  if (root.empty()) {
    g_debuginfo_path = nullptr;
    return;
  }
  g_debuginfo_storage = ":.debug:" + root + ":/usr/lib/debug";
  g_debuginfo_path = g_debuginfo_storage.data();
}

std::vector<Frame> frames_to_symbolize(const Profile& db) {
  std::vector<Frame> frames;
  for (const Tree& t : db.trees)
    for (const Node& n : t.nodes)
      if (n.kind == NodeKind::Frame || n.kind == NodeKind::StackOwner) frames.push_back(Frame{n.a, n.b});
  for (const AllocSite& s : db.sites) frames.insert(frames.end(), s.frames.begin(), s.frames.end());
  std::sort(frames.begin(), frames.end());
  frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
  return frames;
}

SymbolizeResult symbolize_frames(const std::vector<Module>& modules,
                                 const std::vector<Frame>& frames, unsigned jobs,
                                 const std::vector<ScriptFrame>& script_frames) {
  // Runs of equal module in the sorted frame list are the units of work.
  struct Run {
    size_t begin, end;
    std::string warning;
    std::string no_debug;
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < frames.size();) {
    size_t j = i;
    while (j < frames.size() && frames[j].module == frames[i].module) ++j;
    runs.push_back(Run{i, j, {}, {}});
    i = j;
  }

  SymbolizeResult result;
  result.symbols.resize(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) result.symbols[i].frame = frames[i];

  auto work = [&](Run& run) {
    uint32_t m = frames[run.begin].module;
    if (m != kNoModule && m < modules.size() && is_script_module(modules[m])) {
      for (size_t i = run.begin; i < run.end; ++i) {
        const uint64_t k = frames[i].offset;
        result.symbols[i].locs = {k < script_frames.size()
                                      ? SourceLoc{script_frames[k].function, script_frames[k].file,
                                                  script_frames[k].line}
                                      : SourceLoc{}};
      }
      return;
    }
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
    for (size_t i = run.begin; i < run.end; ++i) {
      result.symbols[i].locs = syms ? syms->lookup(frames[i].offset) : std::vector<SourceLoc>{SourceLoc{}};
      if (syms) result.symbols[i].callee = syms->callee(frames[i].offset);
    }
    if (syms && !syms->has_debug_info()) run.no_debug = modules[m].path;
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
  for (Run& r : runs)
    if (!r.no_debug.empty() && std::find(result.no_debug_info.begin(), result.no_debug_info.end(),
                                         r.no_debug) == result.no_debug_info.end())
      result.no_debug_info.push_back(std::move(r.no_debug));
  return result;
}

}  // namespace hpcl::analysis
