// Data types from a module's DWARF, for naming the fields an access reads: the type of a static
// variable (by its address), and, the way perf's data-type profiling does it, the type a pointer
// points to when a variable or parameter of the function holds it in a register at a given pc
// (its DWARF location there). Members are flattened ("pos.x"), with their offsets and sizes.
// Arrays give their element type and their dimensions (C row-major, Fortran column-major), so a
// stride can be named as a dimension's pitch.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hpcl::analysis {

struct DataMember {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct DataType {
  std::string name;                 // "struct rec", "double", "real(kind=8)"
  uint64_t size = 0;                // bytes of one element
  std::vector<DataMember> members;  // by offset; empty for a scalar
  // When the variable is an array of these: the extent of each dimension, and each dimension's
  // pitch in bytes (the distance between consecutive indices), in declaration order.
  std::vector<uint64_t> dims;
  std::vector<uint64_t> pitches;
  bool column_major = false;  // Fortran: the first index is the contiguous one
  // The members covering bytes [offset, offset + size) of one element.
  std::vector<const DataMember*> members_at(uint64_t offset, uint64_t size) const;
};

// Where a pointer was found: "r" (a variable), "a" (a parameter), ".omp_data_i->u" (a member).
struct TypedPointer {
  DataType pointee;
  std::string holder;
};

class ModuleTypes {
 public:
  // `mod` as ModuleSymbols opened it; `bias` = Dwfl address - link-time address.
  ModuleTypes(Dwfl_Module* mod, uint64_t bias);
  ~ModuleTypes();
  ModuleTypes(const ModuleTypes&) = delete;
  ModuleTypes& operator=(const ModuleTypes&) = delete;

  bool has_dwarf() const { return dwarf_ != nullptr; }

  // The type of the static variable starting at link-time address `addr`: an array's element,
  // with the array's dimensions. `why` says what is missing when there is none.
  std::optional<DataType> static_type(uint64_t addr, std::string* why);
  // The data of the type at DIE offset `die` (as StackLocal::type_die has it): an array's
  // element with the array's dimensions.
  std::optional<DataType> type_of_die(uint64_t die);
  // Inside the aggregate at DIE offset `die`, the array that holds byte `offset` and whose
  // elements a loop moving by `step` bytes walks (its element size divides `step`), through the
  // members that hold it (`std::array<Particle, N> parts` in a class: its Particle[N]); its
  // first byte's offset in `at`. For a local whose own type is one large structure.
  std::optional<DataType> array_within(uint64_t die, uint64_t offset, uint64_t step, uint64_t* at);
  // The type `reg` (encoding order: rax rcx rdx rbx rsp rbp rsi rdi r8..r15) points to at
  // link-time address `pc`, from a variable or parameter whose location there is that register.
  std::optional<TypedPointer> pointee_in_register(uint64_t pc, int reg);
  // The same for a variable kept in the stack frame, at `offset` from the function's entry rsp
  // (DW_OP_fbreg from GCC's frame base, the call frame address: entry rsp + 8).
  std::optional<TypedPointer> pointee_in_frame(uint64_t pc, int64_t offset);
  // The type pointed to by the pointer stored at byte `offset` of what `reg` points to at `pc`
  // (`mov 0x8(%rdi),%rax` with rdi a `struct s *`: the member at 8, a pointer).
  std::optional<TypedPointer> pointee_of_member(uint64_t pc, int reg, uint64_t offset);
  // The type pointed to by the static pointer variable at link-time address `addr`.
  std::optional<TypedPointer> pointee_of_static(uint64_t addr);
  // The parameter the function around `pc` receives in `reg` (by its location at the function's
  // entry, else by the System V order of the integer and pointer parameters): its name or "",
  // and the type it points to.
  std::string parameter_name(uint64_t pc, int reg);
  std::optional<TypedPointer> pointee_of_parameter(uint64_t pc, int reg);

 private:
  struct Index;
  bool parameter_in(uint64_t pc, int reg, Dwarf_Die* out);

  Dwfl_Module* mod_;
  uint64_t bias_;
  Dwarf* dwarf_ = nullptr;
  uint64_t dwarf_bias_ = 0;
  std::unique_ptr<Index> index_;  // static variables by address, built on first use
};

}  // namespace hpcl::analysis
