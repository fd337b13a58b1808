// Symbolic values of the general registers and stack slots along one pass over a region of a
// function's code (a loop body, or the whole function), for the loop analysis (loop_pattern.h).
// A value is linear in the region's entry values: c + sum of coef x symbol, where a symbol is a
// register's or a stack slot's value when the region was entered, or the value one load of the
// pass read from memory. Anything else (a bit operation, a product of two unknowns, a call's
// result) is unknown, with the reason kept for the report ("a call in the loop overwrites it").
//
// 32-bit operations are taken as their 64-bit results (their values are assumed not to wrap),
// which is what indices and counts in compiled loops are. Memory other than the stack slots
// addressed from the entry rsp or rbp is not tracked: a load from it is a fresh symbol.
#pragma once

#include <Zydis/Zydis.h>

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace hpcl::analysis {

using SymId = uint16_t;
inline constexpr SymId kRegSyms = 16;           // 0..15: rax .. r15 at the region's entry
inline constexpr SymId kCellSymBase = 16;       // + k: stack slot k at the region's entry
inline constexpr SymId kMaxCells = 64;
inline constexpr SymId kLoadSymBase = kCellSymBase + kMaxCells;  // + k: load k of the pass

// Why a value is unknown.
enum class Unknowable : uint8_t {
  None,
  Operation,  // an instruction whose result is not linear (and, shifts right, cmov, ...)
  Call,       // a call overwrote it (caller-saved register)
  Paths,      // it differs between paths that join
  InnerLoop,  // an inner loop changes it
  Narrow,     // an 8- or 16-bit write
  Terms,      // too many symbols in one value
};

struct Lin {
  static constexpr unsigned kMaxTerms = 4;
  bool known = false;
  int64_t c = 0;
  // The value also holds an unknown multiple of `unk` (0: none): an unknown integer scaled by an
  // index's scale or a shift. A pointer is never scaled, so such a part is an integer, and the
  // value's symbols stay meaningful (a pointer plus 8 x an unknown index).
  int64_t unk = 0;
  uint8_t n = 0;
  std::array<std::pair<SymId, int64_t>, kMaxTerms> t{};  // sorted by symbol, coefficients != 0
  Unknowable why = Unknowable::Operation;
  uint64_t why_at = 0;  // the instruction that made it unknown
  // The loads an unknown value (or part) was computed from, at most two (`and $mask` of a loaded
  // index is still the loaded index, as far as how the address moves is concerned).
  uint8_t ntaint = 0;
  std::array<SymId, 2> taint{};
  void add_taint(SymId load);
  void add_taint_of(const Lin& v);  // v's load symbols and its own taint

  static Lin constant(int64_t v);
  static Lin symbol(SymId s);
  static Lin unknown(Unknowable why, uint64_t at);
  bool is_constant() const { return known && n == 0 && unk == 0; }
  bool is_exact() const { return known && unk == 0; }  // no unknown part
  int64_t coef(SymId s) const;
  friend Lin operator+(const Lin& a, const Lin& b);
  friend Lin operator-(const Lin& a, const Lin& b);
  Lin scaled(int64_t k) const;
  // An integer scaled by k: exact when the value is known, else (|k| >= 2) an unknown multiple of
  // k, else unknown.
  static Lin times(const Lin& v, int64_t k);
  // Replaces symbol s by v (v must be known, else the result is unknown).
  Lin substituted(SymId s, const Lin& v) const;
  friend bool operator==(const Lin& a, const Lin& b);
};

// A stack slot: [entry value of rsp or rbp + offset], 8 bytes or less.
struct StackCell {
  SymId base = 0;  // 4 (rsp) or 5 (rbp)
  int64_t offset = 0;
};

// What one load of the pass read, or what one call returned (in rax): the symbol
// kLoadSymBase + its index.
struct LoadSym {
  uint64_t insn = 0;   // the loading instruction, or the call
  Lin address;         // its address, in the pass's symbols (unknown for a call)
  uint8_t size = 0;    // bytes
  bool call = false;   // the value a call returned
};

struct RegState {
  std::array<Lin, 16> reg;
  std::vector<std::pair<uint16_t, Lin>> cells;  // (cell index, value), written cells only
  bool cells_unknown = false;                   // the cells not written are unknown too
  friend bool operator==(const RegState&, const RegState&) = default;
};

// The symbols of one pass and the transfer function of its instructions.
class RegionSymbols {
 public:
  // The state on entering the region: every register and slot is its own symbol.
  RegState entry_state() const;
  // Applies instruction `in` at `addr` to `s`.
  void apply(RegState& s, const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops, uint64_t addr);
  // The address of memory operand `m` of the instruction at `addr` in state `s`.
  Lin address_of(const RegState& s, const ZydisDecodedInstruction& in, const ZydisDecodedOperand& m,
                 uint64_t addr) const;
  // The meet of two states at a join: a value kept only where both agree.
  static RegState meet(const RegState& a, const RegState& b, uint64_t at);
  // A state's value of symbol s's location (a register or a cell), as the symbol's entry value
  // when the state never wrote it.
  Lin value_of(const RegState& s, SymId sym) const;
  // The value, in these symbols and in state `s` (the state an inner region is entered with), of
  // the inner region's entry symbol `sym` (a register, or a stack slot at the same address).
  Lin lift(const RegionSymbols& inner, SymId sym, const RegState& s);

  const std::vector<LoadSym>& loads() const { return loads_; }
  const std::vector<StackCell>& cells() const { return cells_; }
  bool is_load(SymId s) const { return s >= kLoadSymBase; }
  const LoadSym& load(SymId s) const { return loads_[s - kLoadSymBase]; }

 private:
  int cell_of(const Lin& address, bool create);
  Lin read_cell(const RegState& s, int cell) const;
  void write_cell(RegState& s, int cell, const Lin& v) const;
  Lin operand_value(const RegState& s, const ZydisDecodedInstruction& in, const ZydisDecodedOperand& op,
                    uint64_t addr);

  Lin new_load(const LoadSym& l);

  std::vector<StackCell> cells_;
  std::vector<LoadSym> loads_;
  std::unordered_multimap<uint64_t, size_t> loads_by_insn_;
};

// "rax", "r12": the 64-bit name of general register `reg` (encoding order).
const char* reg_name(unsigned reg);
// A readable form of a value: "8 x rsi + 16", "rdi".
std::string describe(const Lin& v, const RegionSymbols& syms);

}  // namespace hpcl::analysis
