// See code_cfg.h. Dominators by the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple,
// Fast Dominance Algorithm") over reverse postorder, with a virtual root above every block that
// no edge reaches, so code behind a jump table gets dominators of its own.
#include "code_cfg.h"

#include <algorithm>

#include "hpcl/x86/operands.h"

namespace hpcl::analysis {

bool CodeLoop::contains(int block) const { return std::binary_search(blocks.begin(), blocks.end(), block); }

FunctionCode::FunctionCode(const uint8_t* bytes, size_t len, uint64_t start)
    : start_(start), bytes_(bytes, bytes + len) {
  ZydisDecoderInit(&decoder_, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  for (size_t off = 0; off < len;) {
    const size_t avail = std::min(len - off, x86::kMaxInsnLen);
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder_, bytes + off, avail, &in, ops))) {
      undecodable_ = true;
      ++off;
      continue;
    }
    CodeInsn ci;
    ci.addr = start + off;
    ci.len = in.length;
    uint64_t target = 0;
    const bool direct = x86::direct_branch_target(in, ci.addr, &target);
    switch (in.meta.category) {
      case ZYDIS_CATEGORY_COND_BR: ci.flow = direct ? CodeInsn::Flow::CondJump : CodeInsn::Flow::IndirectJump; break;
      case ZYDIS_CATEGORY_UNCOND_BR: ci.flow = direct ? CodeInsn::Flow::Jump : CodeInsn::Flow::IndirectJump; break;
      case ZYDIS_CATEGORY_CALL: ci.flow = CodeInsn::Flow::Call; break;
      case ZYDIS_CATEGORY_RET: ci.flow = CodeInsn::Flow::Return; break;
      default:
        if (in.mnemonic == ZYDIS_MNEMONIC_UD2 || in.mnemonic == ZYDIS_MNEMONIC_HLT) ci.flow = CodeInsn::Flow::Stop;
        break;
    }
    if (direct) ci.target = target;
    insns_.push_back(ci);
    off += in.length;
  }
  build_blocks();
  build_dominators();
  build_loops();
}

int FunctionCode::insn_at(uint64_t addr) const {
  auto it = std::lower_bound(insns_.begin(), insns_.end(), addr,
                             [](const CodeInsn& i, uint64_t a) { return i.addr < a; });
  return it != insns_.end() && it->addr == addr ? static_cast<int>(it - insns_.begin()) : -1;
}

bool FunctionCode::decode(int i, ZydisDecodedInstruction* in, ZydisDecodedOperand* ops) const {
  const CodeInsn& ci = insns_[static_cast<size_t>(i)];
  const size_t off = ci.addr - start_;
  return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder_, bytes_.data() + off, ci.len, in, ops));
}

int FunctionCode::innermost_loop(int block) const { return block < 0 ? -1 : block_loop_[static_cast<size_t>(block)]; }

void FunctionCode::build_blocks() {
  const size_t n = insns_.size();
  std::vector<bool> leader(n, false);
  if (n > 0) leader[0] = true;
  for (size_t i = 0; i < n; ++i) {
    const CodeInsn& ci = insns_[i];
    if (ci.flow == CodeInsn::Flow::Jump || ci.flow == CodeInsn::Flow::CondJump) {
      const int t = insn_at(ci.target);
      if (t >= 0) leader[static_cast<size_t>(t)] = true;
    }
    const bool ends = ci.flow != CodeInsn::Flow::Next && ci.flow != CodeInsn::Flow::Call;
    if (ends && i + 1 < n) leader[i + 1] = true;
    // A gap in the linear decode (an undecodable byte) also starts a block.
    if (i + 1 < n && insns_[i + 1].addr != ci.addr + ci.len) leader[i + 1] = true;
  }
  insn_block_.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (leader[i]) blocks_.push_back(CodeBlock{static_cast<uint32_t>(i), static_cast<uint32_t>(i), {}, {}});
    blocks_.back().last = static_cast<uint32_t>(i);
    insn_block_[i] = static_cast<int>(blocks_.size() - 1);
  }
  auto edge = [&](int from, int to) {
    auto& s = blocks_[static_cast<size_t>(from)].succ;
    if (std::find(s.begin(), s.end(), to) != s.end()) return;
    s.push_back(to);
    blocks_[static_cast<size_t>(to)].pred.push_back(from);
  };
  for (size_t b = 0; b < blocks_.size(); ++b) {
    const CodeInsn& last = insns_[blocks_[b].last];
    const bool contiguous = blocks_[b].last + 1 < n && insns_[blocks_[b].last + 1].addr == last.addr + last.len;
    if (last.flow == CodeInsn::Flow::Jump || last.flow == CodeInsn::Flow::CondJump) {
      const int t = insn_at(last.target);
      if (t >= 0) edge(static_cast<int>(b), insn_block_[static_cast<size_t>(t)]);
    }
    const bool falls = last.flow == CodeInsn::Flow::Next || last.flow == CodeInsn::Flow::Call ||
                       last.flow == CodeInsn::Flow::CondJump;
    if (falls && contiguous) edge(static_cast<int>(b), static_cast<int>(b) + 1);
  }
}

void FunctionCode::build_dominators() {
  const int n = static_cast<int>(blocks_.size());
  // Depth-first from the entry, then from every block no edge reaches, for the postorder.
  std::vector<int> post;
  std::vector<char> seen(static_cast<size_t>(n), 0);
  std::vector<std::pair<int, size_t>> stack;
  auto dfs = [&](int root) {
    if (seen[static_cast<size_t>(root)]) return;
    seen[static_cast<size_t>(root)] = 1;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [b, k] = stack.back();
      const auto& succ = blocks_[static_cast<size_t>(b)].succ;
      if (k < succ.size()) {
        const int s = succ[k++];
        if (!seen[static_cast<size_t>(s)]) {
          seen[static_cast<size_t>(s)] = 1;
          stack.push_back({s, 0});
        }
      } else {
        post.push_back(b);
        stack.pop_back();
      }
    }
  };
  std::vector<int> roots;
  if (n > 0) {
    roots.push_back(0);
    dfs(0);
  }
  // What the entry reaches; dead code such as the padding after a jump (nops falling into the
  // next block) must not count as a way into it, or no block there dominates its loops.
  reachable_.assign(seen.begin(), seen.end());
  for (int b = 1; b < n; ++b)
    if (blocks_[static_cast<size_t>(b)].pred.empty()) {
      roots.push_back(b);
      dfs(b);
    }
  for (int b = 0; b < n; ++b)
    if (!seen[static_cast<size_t>(b)]) {  // a cycle no root reaches: its first block is a root
      roots.push_back(b);
      dfs(b);
    }
  order_.assign(post.rbegin(), post.rend());
  rpo_index_.assign(static_cast<size_t>(n), 0);
  for (size_t i = 0; i < order_.size(); ++i) rpo_index_[static_cast<size_t>(order_[i])] = static_cast<int>(i);
  // idom over blocks plus a virtual root `n` above every root.
  const int virt = n;
  std::vector<int> idom(static_cast<size_t>(n) + 1, -2);
  idom[static_cast<size_t>(virt)] = virt;
  for (int r : roots) idom[static_cast<size_t>(r)] = virt;
  auto rpo = [&](int b) { return b == virt ? -1 : rpo_index_[static_cast<size_t>(b)]; };
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (rpo(a) > rpo(b)) a = idom[static_cast<size_t>(a)];
      while (rpo(b) > rpo(a)) b = idom[static_cast<size_t>(b)];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (int b : order_) {
      if (idom[static_cast<size_t>(b)] == virt && std::find(roots.begin(), roots.end(), b) != roots.end()) continue;
      int pick = -2;
      for (int p : blocks_[static_cast<size_t>(b)].pred) {
        if (idom[static_cast<size_t>(p)] == -2 || !joins(p, b)) continue;
        pick = pick == -2 ? p : intersect(p, pick);
      }
      if (pick != -2 && idom[static_cast<size_t>(b)] != pick) {
        idom[static_cast<size_t>(b)] = pick;
        changed = true;
      }
    }
  }
  idom_.assign(static_cast<size_t>(n), -1);
  for (int b = 0; b < n; ++b) {
    const int d = idom[static_cast<size_t>(b)];
    idom_[static_cast<size_t>(b)] = d == virt || d < 0 ? -1 : d;
  }
}

bool FunctionCode::dominates(int a, int b) const {
  for (int x = b; x >= 0; x = idom_[static_cast<size_t>(x)])
    if (x == a) return true;
  return false;
}

void FunctionCode::build_loops() {
  const int n = static_cast<int>(blocks_.size());
  // One loop per back edge: two back edges to one header are two loops when their bodies differ
  // (a rotated loop nest shares its header with the inner loop, whose own steps are what an
  // access in it sees); identical bodies are one loop with two latches.
  for (int u = 0; u < n; ++u)
    for (int h : blocks_[static_cast<size_t>(u)].succ) {
      if (!dominates(h, u)) continue;
      CodeLoop loop{h, {h}, {u}, -1};
      // The blocks that reach u without passing h.
      std::vector<char> in(static_cast<size_t>(n), 0);
      in[static_cast<size_t>(h)] = 1;
      std::vector<int> work;
      if (!in[static_cast<size_t>(u)]) {
        in[static_cast<size_t>(u)] = 1;
        loop.blocks.push_back(u);
        work.push_back(u);
      }
      while (!work.empty()) {
        const int x = work.back();
        work.pop_back();
        for (int p : blocks_[static_cast<size_t>(x)].pred) {
          if (in[static_cast<size_t>(p)] || !joins(p, x)) continue;
          in[static_cast<size_t>(p)] = 1;
          loop.blocks.push_back(p);
          work.push_back(p);
        }
      }
      std::sort(loop.blocks.begin(), loop.blocks.end());
      auto same = std::find_if(loops_.begin(), loops_.end(),
                               [&](const CodeLoop& l) { return l.header == h && l.blocks == loop.blocks; });
      if (same != loops_.end()) same->latches.push_back(u);
      else loops_.push_back(std::move(loop));
    }
  // Nesting: the parent is the smallest larger loop holding every block of this one.
  auto holds = [](const CodeLoop& big, const CodeLoop& small) {
    return std::includes(big.blocks.begin(), big.blocks.end(), small.blocks.begin(), small.blocks.end());
  };
  for (size_t i = 0; i < loops_.size(); ++i) {
    size_t best = SIZE_MAX;
    for (size_t j = 0; j < loops_.size(); ++j) {
      if (i == j || loops_[j].blocks.size() <= loops_[i].blocks.size() || !holds(loops_[j], loops_[i])) continue;
      if (best == SIZE_MAX || loops_[j].blocks.size() < loops_[best].blocks.size()) best = j;
    }
    loops_[i].parent = best == SIZE_MAX ? -1 : static_cast<int>(best);
  }
  block_loop_.assign(static_cast<size_t>(n), -1);
  for (int b = 0; b < n; ++b) {
    size_t best = SIZE_MAX;
    for (size_t j = 0; j < loops_.size(); ++j)
      if (loops_[j].contains(b) && (best == SIZE_MAX || loops_[j].blocks.size() < loops_[best].blocks.size()))
        best = j;
    block_loop_[static_cast<size_t>(b)] = best == SIZE_MAX ? -1 : static_cast<int>(best);
  }
}

}  // namespace hpcl::analysis
