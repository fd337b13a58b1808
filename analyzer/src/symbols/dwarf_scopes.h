// The DWARF scopes around a code address and the variables they declare, shared by the
// analyses that look for a function's variables at a pc (data_types.cpp, stack_locals.cpp).
// Header-only so that each user keeps one translation unit.
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace hpcl::analysis::dwarf {

inline bool is_scope(int tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
         tag == DW_TAG_inlined_subroutine;
}

// The scopes around `at` (CU-relative) in the CU, outermost first, found by walking the tree.
// libdw's dwarf_getscopes does not descend into DIEs without code ranges, and GCC nests an
// OpenMP region's outlined function (`f._omp_fn.0`) inside the abstract instance of `f`: such a
// function is only found this way.
inline bool find_scopes(Dwarf_Die* die, Dwarf_Addr at, std::vector<Dwarf_Die>& chain, int depth) {
  Dwarf_Die child;
  if (depth > 12 || dwarf_child(die, &child) != 0) return false;
  do {
    const int tag = dwarf_tag(&child);
    if (is_scope(tag) && dwarf_haspc(&child, at) == 1) {
      chain.push_back(child);
      find_scopes(&child, at, chain, depth + 1);
      return true;
    }
    if ((tag == DW_TAG_subprogram || tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
         tag == DW_TAG_structure_type || tag == DW_TAG_module) &&
        dwarf_haschildren(&child) && find_scopes(&child, at, chain, depth + 1))
      return true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

// find_scopes' chain innermost first, up to the innermost function.
inline std::vector<Dwarf_Die> walked_scopes(Dwarf_Die* cudie, Dwarf_Addr at) {
  std::vector<Dwarf_Die> chain, out;
  find_scopes(cudie, at, chain, 0);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    out.push_back(*it);
    if (dwarf_tag(&*it) == DW_TAG_subprogram) break;
  }
  return out;
}

// The scopes around link-time `pc`, innermost first, up to the first function dwarf_getscopes
// meets: for a pc in an inlined instance, that is the inlined function's abstract definition.
// `at` receives the CU-relative pc.
inline std::vector<Dwarf_Die> scopes_at(Dwfl_Module* mod, uint64_t bias, uint64_t pc,
                                        Dwarf_Addr* at) {
  std::vector<Dwarf_Die> out;
  Dwarf_Addr cubias = 0;
  Dwarf_Die* cudie = dwfl_module_addrdie(mod, pc + bias, &cubias);
  if (cudie == nullptr) return out;
  *at = pc + bias - cubias;
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes(cudie, *at, &scopes);
  for (int i = 0; i < n; ++i) {
    out.push_back(scopes[i]);
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) break;
  }
  std::free(scopes);
  if (out.empty() || dwarf_tag(&out.back()) != DW_TAG_subprogram) out = walked_scopes(cudie, *at);
  return out;
}

// The scopes as the code nests them: innermost first, through the inlined instances, up to the
// concrete function whose frame runs at `pc` (whose DW_AT_frame_base the locations of all of
// them use). `at` and `cubias` receive the CU-relative pc and the CU's bias.
inline std::vector<Dwarf_Die> frame_scopes(Dwfl_Module* mod, uint64_t bias, uint64_t pc,
                                           Dwarf_Addr* at, Dwarf_Addr* cubias) {
  std::vector<Dwarf_Die> out;
  Dwarf_Die* cudie = dwfl_module_addrdie(mod, pc + bias, cubias);
  if (cudie == nullptr) return out;
  *at = pc + bias - *cubias;
  Dwarf_Die* scopes = nullptr;
  if (dwarf_getscopes(cudie, *at, &scopes) > 0) {
    // dwarf_getscopes goes on from an inlined instance into its abstract definition;
    // dwarf_getscopes_die on the innermost scope follows the concrete tree instead.
    Dwarf_Die* chain = nullptr;
    const int n = dwarf_getscopes_die(&scopes[0], &chain);
    for (int i = 0; i < n; ++i) {
      if (!is_scope(dwarf_tag(&chain[i]))) continue;
      out.push_back(chain[i]);
      if (dwarf_tag(&chain[i]) == DW_TAG_subprogram) break;
    }
    std::free(chain);
  }
  std::free(scopes);
  if (out.empty() || dwarf_tag(&out.back()) != DW_TAG_subprogram) out = walked_scopes(cudie, *at);
  return out;
}

// Every variable and parameter `scopes` declare, innermost scope first; `fn(die, scope index)`
// stops the walk by returning true.
template <typename F>
bool each_variable_in(std::vector<Dwarf_Die>& scopes, F fn) {
  for (size_t i = 0; i < scopes.size(); ++i) {
    Dwarf_Die child;
    if (dwarf_child(&scopes[i], &child) != 0) continue;
    do {
      const int tag = dwarf_tag(&child);
      if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) && fn(&child, i)) return true;
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  return false;
}

// Every die in scope at `pc` (link-time, scopes_at) that is a variable or parameter, innermost
// scope first, up to the function; `fn` receives f(die, cu-relative pc) and stops the walk with
// true.
template <typename F>
bool each_variable_at(Dwfl_Module* mod, uint64_t bias, uint64_t pc, F fn) {
  Dwarf_Addr at = 0;
  std::vector<Dwarf_Die> scopes = scopes_at(mod, bias, pc, &at);
  return each_variable_in(scopes, [&](Dwarf_Die* die, size_t) { return fn(die, at); });
}

}  // namespace hpcl::analysis::dwarf
