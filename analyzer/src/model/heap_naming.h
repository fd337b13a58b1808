// The allocation site that names a heap variable: the innermost frame of the allocation path
// that is neither the allocator, the C++ runtime, nor one of the program's own allocation
// wrappers (recognised from all sites of a database, see AllocWrappers), its label, and the rule
// that keeps the labels of distinct sites distinct. Documented for users in docs/REPORT.md
// ("Heap names").
#pragma once

#include <cstddef>
#include <regex>
#include <functional>
#include <set>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include "symbols/location.h"

namespace hpcl::analysis {

// malloc, calloc, operator new(unsigned long), std::allocator<int>::allocate(...), ...
bool is_allocation_function(std::string_view demangled);

// Functions of the C++ standard library (namespaces std, __gnu_cxx, __cxxabiv1), whatever their
// source file: vector growth, string creation, hashtable and tree nodes, make_shared ...
bool is_cxx_library_function(std::string_view demangled);

// A frame of libc, libstdc++, libgcc_s, the dynamic loader, our runtime or a memory allocator
// (jemalloc, tcmalloc, mimalloc, TBB), a libstdc++ or Boost.Pool header inlined into user code, a
// C++ standard-library function, or an allocation function wherever it lives.
bool is_allocator_or_runtime(const Location& loc);

// is_allocator_or_runtime, or a frame of a runtime library (runtime_libs.h: MPI, OpenMP, the
// Fortran runtime, FFTW, ScaLAPACK, BLAS ...): the libraries that allocate on the program's
// behalf, whose frames never name a heap variable while a frame of the program asked for it.
bool is_library_frame(const Location& loc);

// A function name that says "I allocate": the last component of its qualified base name
// contains "alloc" or ends in "dup", or an enclosing class/namespace contains "alloc" or is
// "Memory" (case-insensitive): LAMMPS_NS::Memory::smalloc, gmx::AlignedAllocationPolicy::malloc,
// save_calloc, fftwf_malloc_plain, xstrdup.
bool has_allocating_name(std::string_view function);

// The program's own allocation wrappers. A function is one when
//  - it matches a user pattern (--alloc-wrapper REGEX, searched in the demangled name), or
//  - automatically: it has an allocating name (above) and, over all allocation sites of the
//    database, it is the naming frame (innermost frame that is not allocator/runtime/wrapper)
//    of sites reached from at least kMinCallers distinct calling locations. This is repeated
//    until nothing changes, so a wrapper called only through another wrapper is found too.
// Functions are compared by qualified base name, so every instance of a template counts as one.
class AllocWrappers {
 public:
  static constexpr size_t kMinCallers = 3;

  AllocWrappers() = default;
  explicit AllocWrappers(std::vector<std::regex> user_patterns, bool automatic = true)
      : user_(std::move(user_patterns)), automatic_(automatic) {}

  // `paths`: every site's allocation path, innermost first, without the API pseudo-frame.
  void learn(const std::vector<std::vector<Location>>& paths);
  // The same with path i written by path_of(i, out) (out empty): a database's paths one at a
  // time, not all at once (290,000 of them on CP2K).
  void learn(size_t count, const std::function<void(size_t, std::vector<Location>&)>& path_of);
  bool is_wrapper(const Location& loc) const;
  const std::set<std::string>& detected() const { return detected_; }  // qualified base names

 private:
  std::vector<std::regex> user_;
  bool automatic_ = true;
  std::set<std::string> detected_;
  mutable std::unordered_map<const char*, bool> wrapper_memo_;  // by interned function name
};

// Index into `path` (innermost first, inline-expanded, without the API pseudo-frame) of the
// frame that names the heap variable: the innermost one that is neither a library frame
// (is_library_frame), nor a wrapper, nor container plumbing (container_plumbing.h); else the outermost wrapper (nearest the program); else,
// for an allocation made wholly inside runtime libraries, the innermost frame of one (its
// module puts the variable in that library's group row); else 0. Returns 0 when the path is
// empty.
size_t heap_site_frame(const std::vector<Location>& path, const AllocWrappers* wrappers = nullptr);

// The runtime library call through which the program's frame `path[named]` allocated, when the
// frame just inside it is an MPI, OpenMP, Fortran-runtime or numerical library's: its function
// ("_gfortran_string_trim", "fftw_plan_dft_3d", "PMPI_Init"), else its file name; "" when the
// program called the allocator or the C/C++ runtime directly. Reports put it before the label:
// "_gfortran_string_trim in qs_energy (qs_energy.F:120)".
std::string heap_site_runtime_call(const std::vector<Location>& path, size_t named);
// The library of that call: the module of the frame just inside `path[named]`, "" when
// heap_site_runtime_call is "".
std::string heap_site_runtime_module(const std::vector<Location>& path, size_t named);

// A pmr memory resource whose buffer this is (std::pmr::monotonic_buffer_resource, ...), from the
// library frames of `path` inside `path[named]`; "" when none. Such a buffer is allocated on the
// resource's first use, for all its users: it is labelled by the resource and the function, not
// the line of its first user.
std::string heap_site_pmr_resource(const std::vector<Location>& path, size_t named);

// The label of a heap variable's naming frame: "function (file:line)" with line information;
// "function (module+0xOFFSET)" without (the link-time offset, so two sites in one function
// differ); otherwise location_label.
std::string heap_site_label(const Location& loc);

// The label of a heap variable whose naming frame `path[named]` is code known only by its
// function's bounds (a stripped library: "libgromacs_mpi.so.7!0x4df710+0x431"): that label,
// after what a user can recognise the place by, when the path has it: the C++ container whose
// member allocated, and the nearest named caller outside the runtimes, e.g.
// "std::vector<nbnxn_cj_t> in PairlistSet::constructPairlists (libgromacs_mpi.so.7!0x4df710+0x431)".
// Otherwise heap_site_label(path[named]). A variable made through container plumbing has the
// container before that label: "cfd::Field<double> in make_pressure (fields.cpp:80)".
std::string heap_site_context_label(const std::vector<Location>& path, size_t named);

// Makes equal labels distinct (rule 3 of docs/REPORT.md): labels shared by several sites get
// " ← " and their caller's label (`callers[i]`, "" when there is none); labels still shared get
// " #2", " #3" ... in input order (the first keeps its label).
void disambiguate_labels(std::vector<std::string>& labels, const std::vector<std::string>& callers);
// The same with each site's chain of callers outward (`chains[i][0]` its caller, then that one's
// caller ...): a site whose caller does not tell it apart gets the first caller outward that
// does, after an ellipsis ("f (a.c:10) ← … ← solve (s.c:80)"), before numbers are used.
// Interned: a database's sites share a few thousand caller labels among millions of entries.
void disambiguate_labels(std::vector<std::string>& labels,
                         const std::vector<std::vector<InternedString>>& chains);

}  // namespace hpcl::analysis
