// The access pattern of one memory instruction, from the code of its function (code_cfg.h): the
// innermost loop around it, how its address changes from one iteration to the next, and where
// the address comes from (for the DWARF type lookup of data_types.h).
//
//   sequential  the address moves by no more than the bytes the loop's accesses through the same
//               address registers cover per iteration (a stream, unrolled or vectorized);
//   strided     it moves by a constant stride larger than that (stride in bytes);
//   indirect    an address register is loaded from memory in the loop, from an address that
//               itself moves (a gather through an index array, an array of pointers);
//   dependent   an address register is loaded through itself (p = p->next: pointer chasing);
//   unknown     the code defeats the analysis; `why` says how (no loop, a call or a computed jump
//               in the loop, a stride known only at run time, ...).
//
// line_use is the share of each 64-byte line the loop touches that its accesses of this address
// use: the bytes covered per iteration over min(stride, 64), capped at 1 (a stride of 16 KiB
// reading 8 bytes uses 8 of each line's 64: 0.125). The access's size is the operand's full
// width (32 bytes for a ymm load). Register values are linear in the loop's entry values
// (reg_values.h); a value the analysis cannot follow makes the pattern unknown, never a guess.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "code_cfg.h"

namespace hpcl::analysis {

enum class PatternKind : uint8_t { Unknown, Sequential, Strided, Indirect, Dependent };
const char* pattern_kind_name(PatternKind kind);  // "unknown", "sequential", ...

// Where an access's address comes from, at the function's entry: the pointer the code starts
// from, the constant offset of the access from it, and how the enclosing loops move it.
struct AddressOrigin {
  enum class Kind : uint8_t {
    None,      // not found (several pointers, an unknown value)
    Register,  // a register's value at the function's entry (a parameter)
    Absolute,  // a link-time address (a static variable)
    Loaded,    // a pointer loaded from memory: from `from` + from_offset, at load_insn
    Returned,  // a pointer a call returned (call at load_insn)
  };
  Kind kind = Kind::None;
  uint8_t reg = 0;           // Register: the register (encoding order)
  int64_t offset = 0;        // Absolute: the address; else the access's offset from the pointer
  uint64_t load_insn = 0;    // Loaded, Returned
  // Loaded: where the pointer came from (Register or Absolute), and the load's displacement.
  Kind from = Kind::None;
  uint8_t from_reg = 0;
  int64_t from_address = 0;  // from == Absolute: the address loaded from
  int64_t from_offset = 0;
  // How each enclosing loop moves the address per iteration, innermost first (0 where not
  // exact), and a divisor of every step: the access's offset from the pointer is `offset` plus a
  // multiple of step_divisor (0: every step is 0; 1: nothing is known).
  std::vector<int64_t> steps;
  std::vector<bool> steps_exact;
  int64_t step_divisor = 0;
};

struct AccessPattern {
  PatternKind kind = PatternKind::Unknown;
  std::string why;            // unknown: the reason; else "" or a detail
  uint64_t why_at = 0;        // the instruction the reason is about (name it by its line), or 0
  bool has_stride = false;
  int64_t stride = 0;         // bytes per iteration of the innermost loop (signed)
  bool has_line_use = false;
  double line_use = 0;
  uint32_t size = 0;          // bytes of the access (full vector width); 0 unknown
  bool write = false;
  uint64_t loop_head = 0;     // the innermost loop's first instruction (its header), 0 without
  // The accesses of the loop (this one included) through the same moving address, as (offset
  // from this access, bytes): what one iteration reads or writes of the data this access is in.
  std::vector<std::pair<int64_t, uint32_t>> group;
  // The enclosing loop's step of this access's address (a 2-D walk), when known.
  bool has_outer_stride = false;
  int64_t outer_stride = 0;
  // The base register of the access's operand (encoding order), -1 without one.
  int base_reg = -1;
  int64_t disp = 0;           // the operand's displacement
  // The registers (bit per register, encoding order) that hold the origin's pointer itself at
  // the access.
  uint16_t origin_regs = 0;
  // The stack slots that hold it, by their offset from the function's entry value of rsp.
  std::vector<int64_t> origin_slots;
  AddressOrigin origin;
  // Run-time values the stride depends on: the function-entry registers (parameters) of a
  // stride known only symbolically ("8 x rsi").
  std::vector<uint8_t> stride_params;
};

// The pattern of the access at link-time address `insn` of function `f`.
AccessPattern analyze_access(const FunctionCode& f, uint64_t insn);

}  // namespace hpcl::analysis
