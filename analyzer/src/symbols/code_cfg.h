// The control-flow graph of one function's machine code, for the loop analysis of sampled
// accesses (loop_pattern.h): its instructions decoded linearly from the start with Zydis, cut into
// basic blocks at branch targets and after transfers, with dominators and the natural loops
// (a back edge u -> h where h dominates u; the loop is h and every block that reaches u without
// passing h), nested by containment.
//
// Direct branches give the edges; an indirect jump (a switch's jump table) gives none, and the
// blocks only it reaches are roots of their own (a loop that closes through a jump table is not
// seen; FunctionCode::computed_jump says where one is). Calls fall through. Addresses are
// link-time addresses of the module file.
#pragma once

#include <Zydis/Zydis.h>

#include <cstdint>
#include <vector>

namespace hpcl::analysis {

struct CodeInsn {
  uint64_t addr = 0;
  uint8_t len = 0;
  enum class Flow : uint8_t { Next, Jump, CondJump, IndirectJump, Call, Return, Stop };
  Flow flow = Flow::Next;
  uint64_t target = 0;  // direct Jump, CondJump and Call: the target; else 0
};

struct CodeBlock {
  uint32_t first = 0, last = 0;  // instruction indices, inclusive
  std::vector<int> succ, pred;   // block indices, each edge once
};

struct CodeLoop {
  int header = -1;             // block
  std::vector<int> blocks;     // sorted, the header included
  std::vector<int> latches;    // blocks with a back edge to the header
  int parent = -1;             // the innermost loop strictly containing this one, or -1
  bool contains(int block) const;
};

class FunctionCode {
 public:
  // Decodes [start, start + len) of `bytes`, whose first byte is at link-time address `start`.
  FunctionCode(const uint8_t* bytes, size_t len, uint64_t start);

  uint64_t start() const { return start_; }
  uint64_t end() const { return start_ + bytes_.size(); }
  const std::vector<CodeInsn>& insns() const { return insns_; }
  const std::vector<CodeBlock>& blocks() const { return blocks_; }
  const std::vector<CodeLoop>& loops() const { return loops_; }
  // Blocks in reverse postorder from the roots (the entry first); unreachable ones are roots.
  const std::vector<int>& order() const { return order_; }

  // The instruction starting at `addr`, or -1 (not an instruction start of the linear decode).
  int insn_at(uint64_t addr) const;
  int block_of(int insn) const { return insn_block_[static_cast<size_t>(insn)]; }
  // The innermost loop holding `block`, or -1.
  int innermost_loop(int block) const;
  bool dominates(int a, int b) const;
  // Edge p -> b counts as a way into b: always, unless b is reachable from the entry and p is
  // not (dead code falling into live code).
  bool joins(int p, int b) const {
    return !reachable_[static_cast<size_t>(b)] || reachable_[static_cast<size_t>(p)];
  }
  // Some byte did not decode (data in the code, or an instruction Zydis does not know): the
  // instructions after it may be misaligned.
  bool undecodable() const { return undecodable_; }

  // The full decoding (operands) of instruction `i`.
  bool decode(int i, ZydisDecodedInstruction* in, ZydisDecodedOperand* ops) const;

 private:
  void build_blocks();
  void build_dominators();
  void build_loops();

  uint64_t start_;
  std::vector<uint8_t> bytes_;
  ZydisDecoder decoder_;
  std::vector<CodeInsn> insns_;
  std::vector<int> insn_block_;
  std::vector<CodeBlock> blocks_;
  std::vector<int> order_;  // reverse postorder
  std::vector<int> idom_;   // -1: a root
  std::vector<char> reachable_;  // from the entry
  std::vector<int> rpo_index_;
  std::vector<CodeLoop> loops_;
  std::vector<int> block_loop_;  // innermost loop per block, -1
  bool undecodable_ = false;
};

}  // namespace hpcl::analysis
