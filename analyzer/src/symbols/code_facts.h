// What the binaries say about each sampled access instruction, read at report time: the access
// pattern of its loop (loop_pattern.h) and the data type it reads with its offset into one
// element (data_types.h), found from where its address comes from at the function's entry (a
// parameter, a pointer loaded from a member or a static, a pointer a call returned, a static
// address) and, failing that, from a variable that holds its base register at that pc.
//
// Each module file is opened once (build ids checked as for symbols), each function decoded
// once, each instruction analysed once: the cache lives as long as the CodeFacts. A module that
// cannot be read gives every instruction an unknown pattern that says why.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data_types.h"
#include "hpcl/profile.h"
#include "loop_pattern.h"

namespace hpcl::analysis {

struct InstructionFacts {
  AccessPattern pattern;
  bool unreadable = false;  // its module's file could not be read (not found, another build)
  std::string why;  // pattern.why in the user's words: lines instead of addresses, parameters named
  // The data the access reads: its element type, and the bytes of one element it reads.
  std::optional<DataType> element;
  std::string holder;          // the variable or parameter the pointer was found in
  bool offset_known = false;
  uint64_t offset_in_element = 0;
  std::string type_why;        // no element: what is missing
  // The access's origin is a static address: the symbol there (link-time start) and the offset
  // of the access from it.
  bool in_static = false;
  uint64_t static_start = 0, static_offset = 0;
};

class CodeFacts {
 public:
  explicit CodeFacts(const std::vector<Module>& modules);
  ~CodeFacts();
  CodeFacts(const CodeFacts&) = delete;
  CodeFacts& operator=(const CodeFacts&) = delete;

  // The facts of the instruction at `offset` (link-time) of module `module`.
  const InstructionFacts& at(uint32_t module, uint64_t offset);
  // The type of the static variable at `offset` of `module` (its element, when an array).
  std::optional<DataType> static_type(uint32_t module, uint64_t offset, std::string* why);
  // "file.c:12" for a code address, or "" without line information.
  std::string line_of(uint32_t module, uint64_t offset);
  // The modules met that could not be read: "stencil: not found", in module order.
  std::vector<std::string> unreadable() const;

 private:
  struct ModuleState;
  ModuleState* module(uint32_t m);

  const std::vector<Module>& modules_;
  std::map<uint32_t, std::unique_ptr<ModuleState>> states_;
  std::map<std::pair<uint32_t, uint64_t>, InstructionFacts> facts_;
};

}  // namespace hpcl::analysis
