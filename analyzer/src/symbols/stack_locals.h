// Names the stack variable that owns a sampled access to the thread's own stack. The runtime
// records the owning frame's pc (link-time; the call site for callers) and a slot: bytes
// [lo, lo + width) relative to that frame's canonical frame address (CFA: on x86-64 the rsp
// before the call that entered the function). This reads the variables in scope at the pc from
// the module's DWARF (the function, its lexical blocks and the inlined instances around the pc),
// evaluates their locations there relative to the CFA (DW_OP_fbreg from a DW_OP_call_frame_cfa
// frame base; rbp- and rsp-based ones through the call-frame information at the pc) and picks
// the one that overlaps the slot most. What no fixed variable covers is either the frame's
// dynamic area (below the fixed frame of a function with a frame pointer: a C VLA, a Fortran
// automatic array under -fstack-arrays, a compiler temporary) or the frame's own bytes.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "call_sites.h"  // ScopeCache
#include "hpcl/profile.h"

namespace hpcl::analysis {

// What owns a slot: the kinds STACK_NAMES stores (hpcl/profile.h). A Temporary is also a fixed
// variable the compiler made up ("A.11": a name no source can spell).
using hpcl::StackVarKind;

const char* stack_var_kind_name(StackVarKind kind);  // "local", "parameter", ...

struct StackLocal {
  StackVarKind kind = StackVarKind::Frame;
  std::string name;  // "" for Temporary and Frame
  // The function whose scope declares it: an inlined function's name for its own variables,
  // else the function running at the pc (named as the symbolizer names functions).
  std::string function;
  std::string file;   // declaration file; "" unknown
  uint32_t line = 0;  // declaration line; 0 unknown
  int64_t lo = 0;     // the variable's bytes relative to the CFA; size 0 when dynamic
  uint64_t size = 0;
  std::string type;  // "double[16384]", "struct particle", "real(kind=8)(:)"; "" unknown
  uint64_t type_die = 0;  // the DWARF DIE of its type (ModuleTypes::type_of_die); 0 unknown
};

class StackLocals {
 public:
  // `mod` as ModuleSymbols opened it; `bias` = Dwfl address - link-time address.
  StackLocals(Dwfl_Module* mod, uint64_t bias);
  ~StackLocals();
  StackLocals(const StackLocals&) = delete;
  StackLocals& operator=(const StackLocals&) = delete;

  bool has_dwarf() const { return dwarf_ != nullptr; }

  // What owns bytes [lo, lo + width) relative to the CFA of the frame executing link-time
  // address `pc`; nullopt when the module's DWARF has no function at `pc`. Answers for the pcs
  // of one stretch of code where the scopes, the locations and the call-frame rule stay the same
  // come from one cached layout.
  std::optional<StackLocal> at(uint64_t pc, int64_t lo, uint32_t width);

 private:
  struct Layout;
  const Layout* layout_at(uint64_t pc);
  std::unique_ptr<Layout> build(uint64_t pc);

  Dwfl_Module* mod_;
  uint64_t bias_;
  Dwarf* dwarf_ = nullptr;
  ScopeCache names_;
  // By the first pc of the stretch each layout holds for; null: no function there.
  std::map<uint64_t, std::unique_ptr<Layout>> layouts_;
};

}  // namespace hpcl::analysis
