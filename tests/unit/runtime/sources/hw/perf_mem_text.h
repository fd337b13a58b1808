// perf's text of a data source ("|OP LOAD|LVL L3 or L3 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK
// N/A", as `perf script -F data_src` and `perf mem report` print it) read into the tool's
// vocabulary (data_src.h), so that tests can hold the decoder to what perf printed for real
// samples. The mapping is the one docs/DESIGN.md gives ("Data sources: perf's words and ours"):
//   LVL  the level the data came from; a level perf names only with "miss" is no level;
//        "LFB/MAB" -> lfb, L1 -> l1, L2 -> l2, L3 and L4 -> l3, RAM -> local_dram, PMEM -> pmem,
//        "Remote" RAM -> remote_dram, "Remote" cache of any level -> remote_cache, "Uncached" ->
//        uncached, "I/O" -> io; perf's "A or B" names one level twice (the old bits and the
//        level number), the first wins ("L3 or Remote Cache (1 hop) hit": this CCX's L3 on AMD)
//   SNP  "HitM" -> hitm, "Peer" -> peer; the other snoop results have no metric
//   TLB  "... miss" -> a TLB miss, "... hit" -> a TLB hit, "N/A" -> neither
//   LCK  "Yes" -> locked
// Test code.
#pragma once

#include <sstream>
#include <string>

#include "sources/hw/data_src.h"

namespace hpcl_test {

struct PerfMemText {
  bool ok = false;  // every field was read
  hpcrun::MemSource want;
  std::string error;
};

inline bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

inline hpcrun::MemLevel perf_level(const std::string& lvl) {
  using hpcrun::MemLevel;
  const bool hit = contains(lvl, " hit") || lvl.rfind("hit", 0) == 0;
  if (lvl == "N/A" || !hit) return MemLevel::NotAvailable;
  // The first alternative of "A or B" decides; "Remote Cache (1 hop)" after an L3 is AMD's
  // local CCX.
  const std::string first = lvl.substr(0, lvl.find(" or "));
  const bool remote = first.rfind("Remote", 0) == 0;
  if (contains(first, "Uncached")) return MemLevel::Uncached;
  if (contains(first, "I/O")) return MemLevel::Io;
  if (contains(first, "LFB/MAB")) return MemLevel::FillBuffer;
  if (contains(first, "PMEM")) return MemLevel::Pmem;
  if (contains(first, "CXL")) return MemLevel::Cxl;
  if (contains(first, "RAM")) return remote ? MemLevel::RemoteDram : MemLevel::LocalDram;
  if (contains(first, "L1")) return MemLevel::L1;
  if (contains(first, "Remote Cache")) return MemLevel::RemoteCache;
  if (contains(first, "Any cache")) return remote ? MemLevel::RemoteCache : MemLevel::L3;
  if (contains(first, "L2")) return remote ? MemLevel::RemoteCache : MemLevel::L2;
  if (contains(first, "L3") || contains(first, "L4")) return remote ? MemLevel::RemoteCache : MemLevel::L3;
  return MemLevel::NotAvailable;
}

// Reads perf's "|OP ...|LVL ...|SNP ...|TLB ...|LCK ...|BLK ..." text.
inline PerfMemText read_perf_mem_text(const std::string& text) {
  using namespace hpcrun;
  PerfMemText r;
  std::stringstream in(text);
  std::string part;
  int seen = 0;
  while (std::getline(in, part, '|')) {
    const size_t sp = part.find(' ');
    if (sp == std::string::npos) continue;
    const std::string key = part.substr(0, sp);
    std::string value = part.substr(sp + 1);
    while (!value.empty() && value.back() == ' ') value.pop_back();
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (key == "OP") {
      r.want.op = value == "LOAD" ? MemOp::Load : value == "STORE" ? MemOp::Store
                : value == "PFETCH" ? MemOp::Prefetch : value == "EXEC" ? MemOp::Exec : MemOp::NotAvailable;
      ++seen;
    } else if (key == "LVL") {
      r.want.level = perf_level(value);
      r.want.remote = r.want.level == MemLevel::RemoteDram || r.want.level == MemLevel::RemoteCache;
      ++seen;
    } else if (key == "SNP") {
      r.want.hitm = contains(value, "HitM");
      r.want.peer = contains(value, "Peer");
      ++seen;
    } else if (key == "TLB") {
      r.want.tlb = value == "N/A" ? TlbState::NotAvailable : contains(value, "miss") ? TlbState::Miss
                 : contains(value, "hit") ? TlbState::Hit : TlbState::NotAvailable;
      ++seen;
    } else if (key == "LCK") {
      r.want.locked = value == "Yes";
      ++seen;
    }
  }
  r.ok = seen == 5;
  if (!r.ok) r.error = "not perf's data_src text (OP, LVL, SNP, TLB and LCK): " + text;
  return r;
}

// "field: got X, perf says Y" for each field of `got` that differs from `want`; empty when equal.
inline std::string mem_source_diff(const hpcrun::MemSource& got, const hpcrun::MemSource& want) {
  using namespace hpcrun;
  std::string d;
  auto add = [&](const char* field, const std::string& g, const std::string& w) {
    if (g != w) d += std::string(d.empty() ? "" : "; ") + field + ": got " + g + ", perf says " + w;
  };
  auto op = [](MemOp o) {
    return std::string(o == MemOp::Load ? "load" : o == MemOp::Store ? "store" : o == MemOp::Prefetch ? "prefetch"
                       : o == MemOp::Exec ? "exec" : "n/a");
  };
  auto tlb = [](TlbState t) { return std::string(t == TlbState::Hit ? "hit" : t == TlbState::Miss ? "miss" : "n/a"); };
  auto yes = [](bool b) { return std::string(b ? "yes" : "no"); };
  add("op", op(got.op), op(want.op));
  add("level", mem_level_name(got.level), mem_level_name(want.level));
  add("remote", yes(got.remote), yes(want.remote));
  add("hitm", yes(got.hitm), yes(want.hitm));
  add("peer", yes(got.peer), yes(want.peer));
  add("tlb", tlb(got.tlb), tlb(want.tlb));
  add("locked", yes(got.locked), yes(want.locked));
  return d;
}

}  // namespace hpcl_test
