// See call_sites.h.
#include "call_sites.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <cstdlib>
#include <cstring>

#include "naming.h"

namespace hpcl::analysis {
namespace {

// The call-site child of `scope` whose return address is `pc` (CU-relative), or false.
bool find_call_site(Dwarf_Die* scope, Dwarf_Addr pc, Dwarf_Die* out) {
  Dwarf_Die child;
  if (dwarf_child(scope, &child) != 0) return false;
  do {
    int tag = dwarf_tag(&child);
    if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site) continue;
    Dwarf_Attribute attr;
    Dwarf_Addr ret = 0;
    // DWARF 5 names the return address; GCC's pre-standard extension puts it in DW_AT_low_pc.
    Dwarf_Attribute* a = dwarf_attr(&child, DW_AT_call_return_pc, &attr);
    if (a == nullptr) a = dwarf_attr(&child, DW_AT_low_pc, &attr);
    if (a != nullptr && dwarf_formaddr(a, &ret) == 0 && ret == pc) {
      *out = child;
      return true;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

}  // namespace

bool code_bytes(Dwfl_Module* mod, Dwarf_Addr addr, size_t n, unsigned char* out, GElf_Shdr* which,
                const char** section_name) {
  Dwarf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(mod, &bias);
  if (elf == nullptr) return false;
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return false;
  const Dwarf_Addr link = addr - bias;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_PROGBITS ||
        (shdr.sh_flags & SHF_EXECINSTR) == 0 || link < shdr.sh_addr ||
        link - shdr.sh_addr > shdr.sh_size || n > shdr.sh_size - (link - shdr.sh_addr))
      continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr || data->d_size < shdr.sh_size) return false;
    std::memcpy(out, static_cast<const unsigned char*>(data->d_buf) + (link - shdr.sh_addr), n);
    if (which != nullptr) *which = shdr;
    if (section_name != nullptr) *section_name = elf_strptr(elf, shstrndx, shdr.sh_name);
    return true;
  }
  return false;
}


namespace {

bool cxx_unit(Dwarf_Die* die) {
  Dwarf_Die cu;
  if (dwarf_diecu(die, &cu, nullptr, nullptr) == nullptr) return false;
  switch (dwarf_srclang(&cu)) {
    case DW_LANG_C_plus_plus:
    case DW_LANG_C_plus_plus_03:
    case DW_LANG_C_plus_plus_11:
    case DW_LANG_C_plus_plus_14: return true;
    default: return false;
  }
}

// "ns::Class::" for the function of `die`: the named scopes around the DIE that declares it
// (through DW_AT_abstract_origin and DW_AT_specification, to the declaration inside its class).
std::string declaring_scopes(Dwarf_Die* die, ScopeCache& cache) {
  Dwarf_Die decl = *die, next;
  for (int hop = 0; hop < 4; ++hop) {
    Dwarf_Attribute attr;
    Dwarf_Attribute* a = dwarf_attr(&decl, DW_AT_abstract_origin, &attr);
    if (a == nullptr) a = dwarf_attr(&decl, DW_AT_specification, &attr);
    if (a == nullptr || dwarf_formref_die(a, &next) == nullptr) break;
    decl = next;
  }
  auto [it, fresh] = cache.try_emplace(dwarf_dieoffset(&decl));
  if (!fresh) return it->second;
  Dwarf_Die* around = nullptr;
  const int n = dwarf_getscopes_die(&decl, &around);
  for (int i = n - 1; i >= 1; --i) {
    const int tag = dwarf_tag(&around[i]);
    if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
        tag != DW_TAG_union_type)
      continue;
    // An anonymous namespace adds nothing a reader needs (GCC names its functions without it,
    // and tables drop it): only named scopes are written.
    const char* name = dwarf_diename(&around[i]);
    if (name == nullptr) continue;
    it->second += name;
    it->second += "::";
  }
  std::free(around);
  return it->second;
}

}  // namespace

std::string die_function(Dwarf_Die* die, ScopeCache& scopes) {
  Dwarf_Attribute attr;
  const char* name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (name == nullptr)
    name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  if (name != nullptr) return demangle(name);
  name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
  if (name == nullptr) return "";
  return cxx_unit(die) ? declaring_scopes(die, scopes) + name : std::string(name);
}

std::string dwarf_call_origin(Dwfl_Module* mod, Dwarf_Addr return_pc, ScopeCache& names) {
  Dwarf_Addr cu_bias = 0;
  Dwarf_Die* cudie = dwfl_module_addrdie(mod, return_pc - 1, &cu_bias);
  if (cudie == nullptr) return {};
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(cudie, return_pc - 1 - cu_bias, &scopes);
  std::string out;
  Dwarf_Die site;
  for (int i = 0; i < n; ++i) {
    if (!find_call_site(&scopes[i], return_pc - cu_bias, &site)) {
      // Call sites are children of the innermost scope holding the call, up to the function.
      if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) break;
      continue;
    }
    Dwarf_Attribute attr;
    Dwarf_Die origin;
    Dwarf_Attribute* a = dwarf_attr(&site, DW_AT_call_origin, &attr);
    if (a == nullptr) a = dwarf_attr(&site, DW_AT_abstract_origin, &attr);
    bool declared_only = false;
    if (a != nullptr && dwarf_formref_die(a, &origin) != nullptr) {
      Dwarf_Attribute decl;
      bool flag = false;
      declared_only =
          dwarf_formflag(dwarf_attr(&origin, DW_AT_declaration, &decl), &flag) == 0 && flag;
      if (!declared_only) out = die_function(&origin, names);
    }
    break;
  }
  std::free(scopes);
  return out;
}

bool direct_call_before(Dwfl_Module* mod, Dwarf_Addr return_pc, DirectCall* out) {
  unsigned char insn[5];
  if (return_pc < sizeof insn ||
      !code_bytes(mod, return_pc - sizeof insn, sizeof insn, insn, nullptr, nullptr) ||
      insn[0] != 0xe8)
    return false;
  int32_t rel = 0;
  std::memcpy(&rel, insn + 1, sizeof rel);  // x86-64 is little-endian like the file
  out->target = return_pc + static_cast<int64_t>(rel);
  unsigned char first;
  const char* name = nullptr;
  if (!code_bytes(mod, out->target, 1, &first, nullptr, &name)) return false;
  out->to_plt = name != nullptr && std::strncmp(name, ".plt", 4) == 0;
  return true;
}

}  // namespace hpcl::analysis
