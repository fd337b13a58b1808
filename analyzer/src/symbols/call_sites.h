// What the call instruction of a call-site frame calls, read from the module file: from DWARF
// call-site entries (DW_TAG_call_site / DW_TAG_GNU_call_site at the return address, naming the
// callee with DW_AT_call_origin), else by decoding the direct `call rel32` that ends at the
// return address. A report compares the callee with the next frame inward: when they differ,
// the callee ran and tail-called onward, and its frame is missing from the stack (the way GDB
// recovers tail-call frames).
#pragma once

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <cstdint>
#include <string>
#include <unordered_map>

namespace hpcl::analysis {

// The "ns::Class::" prefixes of one module's C++ functions without a linkage name, by the
// offset of the DIE that declares them: finding a DIE's enclosing scopes walks its compile unit.
using ScopeCache = std::unordered_map<Dwarf_Off, std::string>;

// Function name of a subprogram or inlined instance (DWARF): the linkage name (demangled) when
// there is one, because DW_AT_name of a C++ member lacks its class; attributes are followed
// through DW_AT_abstract_origin and DW_AT_specification. A C++ function without one (GCC gives
// constructors, destructors and functions of an anonymous namespace none) is named with the
// named namespaces and classes it is declared in: "cfd::Mesh::Mesh", not "Mesh".
std::string die_function(Dwarf_Die* die, ScopeCache& scopes);

// The callee named by DWARF call-site information for the call returning to `return_pc` (a
// Dwfl address). Only a callee defined in the caller's compile unit is returned: a declaration
// may live in another module, which the instruction decoder can tell apart (a PLT stub).
// Returns "" when there is no such entry.
std::string dwarf_call_origin(Dwfl_Module* mod, Dwarf_Addr return_pc, ScopeCache& names);

// The bytes of the module file at Dwfl address [addr, addr + n), from the executable section
// holding them; `which` and `section_name` (may be null) get that section.
bool code_bytes(Dwfl_Module* mod, Dwarf_Addr addr, size_t n, unsigned char* out, GElf_Shdr* which,
                const char** section_name);

struct DirectCall {
  Dwarf_Addr target = 0;  // Dwfl address of the called code
  bool to_plt = false;    // the target is a PLT stub: the callee is in another module
};

// Decodes the 5-byte `call rel32` (opcode E8) ending at `return_pc` in the module file's bytes.
// False when the bytes there are not such a call (an indirect call, or not code).
bool direct_call_before(Dwfl_Module* mod, Dwarf_Addr return_pc, DirectCall* out);

}  // namespace hpcl::analysis
