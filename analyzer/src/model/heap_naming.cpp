// Which frame names a heap variable, and how: the program's allocation wrappers (recognised
// from all allocation sites of a database), the naming frame of one site, its label, and the
// rule that keeps labels of distinct sites distinct (see heap_naming.h and docs/REPORT.md).
#include "heap_naming.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <initializer_list>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>

#include "container_plumbing.h"
#include "hpcl/allocator_libs.h"
#include "model/runtime_libs.h"
#include "symbols/naming.h"
#include "symbols/script_code.h"

namespace hpcl::analysis {
namespace {

bool starts_with_any(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (s.starts_with(p)) return true;
  return false;
}

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

}  // namespace

bool is_allocation_function(std::string_view f) {
  static constexpr std::array<std::string_view, 22> kExact = {
      "malloc", "calloc", "realloc", "reallocarray", "free", "cfree", "memalign",
      "posix_memalign", "aligned_alloc", "valloc", "pvalloc", "mmap", "mmap64", "munmap",
      "strdup", "strndup", "__libc_malloc", "__libc_calloc", "__libc_realloc",
      "__libc_memalign", "__libc_free", "__posix_memalign"};
  // Demangled C++ names carry their parameter list; compare the name part.
  std::string_view name = f.substr(0, f.find('('));
  for (std::string_view e : kExact)
    if (name == e) return true;
  return starts_with_any(f, {"operator new", "operator delete", "std::allocator<",
                             "std::__new_allocator<", "__gnu_cxx::new_allocator<",
                             "std::allocator_traits<", "__gnu_cxx::__alloc_traits<",
                             "std::__allocated_ptr<", "std::__allocate_guarded<",
                             // Boost.Pool: the pools and their user allocators, header-only.
                             "boost::pool<", "boost::object_pool<", "boost::singleton_pool<",
                             "boost::simple_segregated_storage<", "boost::details::PODptr<",
                             "boost::default_user_allocator_", "boost::pool_allocator<",
                             "boost::fast_pool_allocator<"});
}

bool is_cxx_library_function(std::string_view f) {
  std::string_view q = qualified_name(f);
  return starts_with_any(q, {"std::", "__gnu_cxx::", "__cxxabiv1::", "__gnu_debug::"});
}

namespace {

bool allocator_or_runtime(const Location& loc) {
  std::string_view mod = basename_of(loc.module);
  if (starts_with_any(mod, {"libc.so", "libc-", "libstdc++", "libgcc_s", "ld-linux",
                            "libhpcrun-lite"}) ||
      is_allocator_library(mod))
    return true;
  if (loc.file.find("/usr/include/c++/") != std::string::npos ||
      loc.file.find("/boost/pool/") != std::string::npos)
    return true;
  return !loc.function.empty() &&
         (is_allocation_function(loc.function) || is_cxx_library_function(loc.function));
}

// The facts of a frame depend only on its interned strings, and the naming pass asks them of
// every frame of every allocation path: CP2K's 290,000 paths hold a few thousand distinct
// frames, so they are worked out once (per thread: the pool's strings live as long as the process).
struct FrameKey {
  const char *function, *file, *module;
  bool operator==(const FrameKey&) const = default;
};
struct FrameKeyHash {
  size_t operator()(const FrameKey& k) const noexcept {
    auto h = [](const char* p) { return std::hash<const void*>()(p); };
    return h(k.function) ^ (h(k.file) * 31) ^ (h(k.module) * 1009);
  }
};
struct FrameFacts {
  bool allocator_or_runtime = false, library = false;
};

const FrameFacts& frame_facts(const Location& loc) {
  thread_local std::unordered_map<FrameKey, FrameFacts, FrameKeyHash> memo;
  auto [it, fresh] = memo.try_emplace(FrameKey{loc.function.data(), loc.file.data(), loc.module.data()});
  if (fresh) {
    it->second.allocator_or_runtime = allocator_or_runtime(loc);
    it->second.library = it->second.allocator_or_runtime || runtime_family(loc.module) != RuntimeFamily::None;
  }
  return it->second;
}

}  // namespace

bool is_allocator_or_runtime(const Location& loc) { return frame_facts(loc).allocator_or_runtime; }

bool is_library_frame(const Location& loc) { return frame_facts(loc).library; }

bool has_allocating_name(std::string_view function) {
  const std::string base = qualified_base_name(function);
  size_t begin = 0;
  for (;;) {
    size_t sep = base.find("::", begin);
    const std::string part = lower(std::string_view(base).substr(begin, sep - begin));
    if (sep == std::string::npos)  // the function itself
      return part.find("alloc") != std::string::npos || part.ends_with("dup");
    if (part.find("alloc") != std::string::npos || part == "memory") return true;
    begin = sep + 2;
  }
}

bool AllocWrappers::is_wrapper(const Location& loc) const {
  if (loc.function.empty()) return false;
  for (const std::regex& r : user_)
    if (std::regex_search(loc.function.str(), r)) return true;
  if (detected_.empty()) return false;
  // Asked of every frame of every path, for a few thousand distinct functions; emptied when
  // learn() adds wrappers.
  auto [it, fresh] = wrapper_memo_.try_emplace(loc.function.data(), false);
  if (fresh) it->second = detected_.count(qualified_base_name(loc.function)) != 0;
  return it->second;
}

void AllocWrappers::learn(const std::vector<std::vector<Location>>& paths) {
  learn(paths.size(), [&](size_t i, std::vector<Location>& out) { out = paths[i]; });
}

void AllocWrappers::learn(size_t count, const std::function<void(size_t, std::vector<Location>&)>& path_of) {
  if (!automatic_) return;
  std::vector<Location> path;
  using Caller = std::tuple<std::string, std::string, uint32_t, uint64_t>;
  // Each round can only add wrappers; a chain of wrappers needs one round per link.
  for (int round = 0; round < 16; ++round) {
    std::map<std::string, std::set<Caller>> callers;
    for (size_t p = 0; p < count; ++p) {
      path.clear();
      path_of(p, path);
      size_t i = 0;
      while (i < path.size() && (is_library_frame(path[i]) || is_wrapper(path[i]))) ++i;
      // A chain of allocating names (save_calloc_aligned -> save_malloc_aligned) is judged by the
      // callers of the chain: every link is credited with the first frame past it.
      size_t past = i;
      while (past < path.size() &&
             (is_library_frame(path[past]) || is_wrapper(path[past]) ||
              (!path[past].function.empty() && has_allocating_name(path[past].function))))
        ++past;
      Caller caller;
      if (past < path.size()) {
        const Location& c = path[past];
        caller = Caller{c.function, c.file, c.line, c.offset};
      }
      for (size_t j = i; j < past; ++j)
        if (!path[j].function.empty() && !is_library_frame(path[j]) && !is_wrapper(path[j]) &&
            has_allocating_name(path[j].function))
          callers[qualified_base_name(path[j].function)].insert(caller);
    }
    bool grew = false;
    for (const auto& [name, from] : callers)
      if (from.size() >= kMinCallers && detected_.insert(name).second) grew = true;
    wrapper_memo_.clear();
    if (!grew) return;
  }
}

size_t heap_site_frame(const std::vector<Location>& path, const AllocWrappers* wrappers) {
  size_t outermost_wrapper = path.size(), first_runtime = path.size();
  for (size_t i = 0; i < path.size(); ++i) {
    // Python code of the standard library or of the array packages (NumPy's np.ones is Python
    // code in numeric.py) is passed like a runtime library's native code; the interpreter and
    // the extension modules are a runtime family (runtime_libs.h).
    if (is_script_location(path[i]) && is_python_runtime_file(path[i].file)) continue;
    // A Python function that returns the array it makes (GPAW's gd.zeros) is passed like an
    // allocation wrapper: its caller's statement names the array.
    if (returns_its_call(path[i])) {
      outermost_wrapper = i;
      continue;
    }
    if (is_allocator_or_runtime(path[i])) continue;
    if (runtime_family(path[i].module) != RuntimeFamily::None) {
      if (first_runtime == path.size()) first_runtime = i;
      continue;
    }
    if (wrappers != nullptr && wrappers->is_wrapper(path[i])) {
      outermost_wrapper = i;
      continue;
    }
    // The frames that only make or grow a container are passed too (container_plumbing.h).
    const size_t user = skip_container_plumbing(path, i);
    return user < path.size() ? user : i;
  }
  if (outermost_wrapper < path.size()) return outermost_wrapper;
  return first_runtime < path.size() ? first_runtime : 0;
}

std::string heap_site_runtime_call(const std::vector<Location>& path, size_t named) {
  if (named == 0 || named >= path.size() || is_library_frame(path[named])) return "";
  const Location& entry = path[named - 1];
  switch (runtime_family(entry.module)) {
    case RuntimeFamily::Mpi:
    case RuntimeFamily::OpenMp:
    case RuntimeFamily::Fortran:
    case RuntimeFamily::Numerics: break;
    default: return "";
  }
  // A function known only by its bounds is not a name: the library's file name is.
  if (entry.function.empty() || entry.unnamed_function) return std::string(basename_of(entry.module));
  return qualified_base_name(entry.function);
}

std::string heap_site_runtime_module(const std::vector<Location>& path, size_t named) {
  return heap_site_runtime_call(path, named).empty() ? std::string() : std::string(path[named - 1].module);
}

std::string heap_site_pmr_resource(const std::vector<Location>& path, size_t named) {
  for (size_t j = 0; j < named && j < path.size(); ++j) {
    std::string_view q = qualified_name(path[j].function);
    for (std::string_view r : {"std::pmr::monotonic_buffer_resource", "std::pmr::unsynchronized_pool_resource",
                               "std::pmr::synchronized_pool_resource"})
      if (q.starts_with(r) && q.substr(r.size()).starts_with("::")) return std::string(r);
  }
  return "";
}

std::string heap_site_label(const Location& loc) {
  // A Python statement, as the user wrote it where the source is at hand: "u = np.zeros(n)
  // (solver.py:12)"; else "step (solver.py:12)".
  if (is_script_location(loc)) {
    std::string statement = script_source_line(loc.file, loc.line);
    if (statement.empty()) return location_label(loc);
    return statement + " (" + std::string(basename_of(loc.file)) + ":" + std::to_string(loc.line) + ")";
  }
  // Code known only by its function bounds is already labelled function+offset.
  if (loc.line != 0 || loc.function.empty() || !loc.has_address || loc.module.empty() ||
      loc.unnamed_function)
    return location_label(loc);
  char off[32];
  std::snprintf(off, sizeof off, "+0x%llx", static_cast<unsigned long long>(loc.offset));
  std::string out = loc.function + " (";
  if (!loc.file.empty()) out.append(basename_of(loc.file)).append(", ");
  out.append(basename_of(loc.module)).append(off).append(")");
  return out;
}

namespace {

// "std::vector<nbnxn_cj_t, A>::_M_realloc_insert<...>(...)" -> "std::vector<nbnxn_cj_t>": the
// public C++ container whose member allocated, with its first template argument (the element
// or key type); "" for members of the library's internal classes (_Rb_tree, _Hashtable), whose
// names a user does not write. std::_Vector_base is std::vector, basic_string<char> std::string.
std::string container_of(std::string_view function) {
  std::string_view q = qualified_name(function);
  // The class is everything before the member's scope.
  const size_t member = last_scope(q);
  if (member == std::string_view::npos) return "";
  std::string_view cls = q.substr(0, member);
  const size_t open = cls.find('<');
  if (open == std::string_view::npos) return "";
  std::string base(cls.substr(0, open));
  // The first template argument: up to a ',' or the closing '>' at depth 1.
  size_t end = open + 1;
  for (size_t d = 1; end < cls.size(); ++end) {
    if (cls[end] == '<') ++d;
    else if (cls[end] == '>' && --d == 0) break;
    else if (cls[end] == ',' && d == 1) break;
  }
  std::string arg(cls.substr(open + 1, end - open - 1));
  while (!arg.empty() && arg.back() == ' ') arg.pop_back();
  if (base == "std::_Vector_base") base = "std::vector";
  if ((base == "std::__cxx11::basic_string" || base == "std::basic_string") && arg == "char")
    return "std::string";
  const size_t last = base.rfind("::");
  const std::string_view name = last == std::string::npos ? std::string_view(base)
                                                          : std::string_view(base).substr(last + 2);
  if (name.empty() || name[0] == '_' || arg.empty()) return "";
  return base + "<" + arg + ">";
}

// A frame a user can name the place by: a function with a name, in neither the C/C++ runtime
// nor the OpenMP or MPI runtime (GOMP_parallel stands between an OpenMP region and its caller).
bool names_a_caller(const Location& loc) {
  return !loc.function.empty() && !loc.unnamed_function && !is_library_frame(loc);
}

}  // namespace

std::string heap_site_context_label(const std::vector<Location>& path, size_t named) {
  if (named >= path.size()) return "";
  const Location& site = path[named];
  std::string label = heap_site_label(site);
  // A container of the program's code base: its type before the function that made it.
  const std::string type = plumbing_container(path, named);
  if (!site.unnamed_function && !site.function.empty()) return type.empty() ? label : type + " in " + label;
  // The C++ container: the plumbing's type, else from the library frame nearest the site (the
  // public member: vector's _M_realloc_insert rather than the allocator below it).
  std::string container = type;
  for (size_t j = named; j-- > 0 && container.empty();)
    if (!path[j].function.empty() && is_cxx_library_function(path[j].function))
      container = container_of(path[j].function);
  // The caller past the code known only by its address; past more plumbing when the site is in
  // a container's code (OpenFOAM's List<int> read by a static helper under IOList's constructor
  // under polyMesh's: "Foam::List<int> in Foam::polyMesh::polyMesh (...)").
  std::string caller;
  for (size_t k = named + 1; k < path.size() && caller.empty(); ++k)
    if (names_a_caller(path[k]) && (type.empty() || !may_be_plumbing(path[k])))
      caller = qualified_base_name(path[k].function);
  if (container.empty() && caller.empty()) return label;
  std::string out = container;
  if (!caller.empty()) out += (out.empty() ? "in " : " in ") + caller;
  return out + " (" + label + ")";
}

void disambiguate_labels(std::vector<std::string>& labels, const std::vector<std::string>& callers) {
  std::vector<std::vector<InternedString>> chains(callers.size());
  for (size_t i = 0; i < callers.size(); ++i) chains[i] = {callers[i]};
  disambiguate_labels(labels, chains);
}

void disambiguate_labels(std::vector<std::string>& labels,
                         const std::vector<std::vector<InternedString>>& chains) {
  auto shared = [&labels] {
    std::map<std::string, std::vector<size_t>> by_label;
    for (size_t i = 0; i < labels.size(); ++i) by_label[labels[i]].push_back(i);
    std::vector<std::vector<size_t>> groups;
    for (auto& [label, members] : by_label)
      if (members.size() > 1) groups.push_back(std::move(members));
    return groups;
  };
  auto caller = [&chains](size_t i, size_t depth) -> const std::string& {
    static const std::string none;
    return i < chains.size() && depth < chains[i].size() ? chains[i][depth].str() : none;
  };
  // Split each group by its callers, one level outward at a time: where the sites part, each
  // part is named by its caller at that level (after an ellipsis beyond the first), and a part
  // still shared looks further out; a level where they all agree says nothing.
  std::function<void(const std::vector<size_t>&, size_t, const std::string&)> split =
      [&](const std::vector<size_t>& members, size_t depth, const std::string& suffix) {
        bool deeper = false;
        for (size_t i : members) deeper |= i < chains.size() && depth < chains[i].size();
        if (members.size() < 2 || !deeper) {
          for (size_t i : members) labels[i] += suffix;
          return;
        }
        std::map<std::string, std::vector<size_t>> parts;
        for (size_t i : members) parts[caller(i, depth)].push_back(i);
        if (parts.size() == 1) return split(members, depth + 1, suffix);
        for (const auto& [name, part] : parts)
          split(part, depth + 1,
                name.empty() ? suffix : (depth == 0 ? " \u2190 " : " \u2190 \u2026 \u2190 ") + name);
      };
  for (const std::vector<size_t>& group : shared()) split(group, 0, "");
  for (const std::vector<size_t>& group : shared())
    for (size_t k = 1; k < group.size(); ++k) labels[group[k]] += " #" + std::to_string(k + 1);
}

}  // namespace hpcl::analysis
