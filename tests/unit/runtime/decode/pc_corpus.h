// Instruction addresses of real functions (libc and this binary), for the concurrency and timing
// tests: every instruction boundary from each function's start to its end.
#pragma once

#include <Zydis/Zydis.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <vector>

#include "decode/access_decode.h"

namespace hpcl_test {

struct Pc {
  uint64_t pc, start, end;
};

inline std::vector<Pc> pc_corpus(int kFunctionsPerSeed = 8) {
  const void* fns[] = {
      reinterpret_cast<const void*>(&qsort),    reinterpret_cast<const void*>(&strtol),
      reinterpret_cast<const void*>(&strtod),   reinterpret_cast<const void*>(&getenv),
      reinterpret_cast<const void*>(&malloc),   reinterpret_cast<const void*>(&free),
      reinterpret_cast<const void*>(&realloc),  reinterpret_cast<const void*>(&fopen),
      reinterpret_cast<const void*>(&fclose),   reinterpret_cast<const void*>(&fwrite),
      reinterpret_cast<const void*>(&snprintf), reinterpret_cast<const void*>(&strftime),
      reinterpret_cast<const void*>(&mktime),   reinterpret_cast<const void*>(&memcpy),
      reinterpret_cast<const void*>(&strlen),   reinterpret_cast<const void*>(&memset),
  };
  ZydisDecoder dec;
  ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  std::vector<Pc> out;
  std::set<uint64_t> seen;
  // Each seed function and the functions that follow it in its module.
  for (const void* fn : fns) {
    uint64_t s = 0, e = 0;
    if (!hpcrun::function_bounds(reinterpret_cast<uint64_t>(fn), &s, &e)) continue;
    for (int k = 0; k < kFunctionsPerSeed; ++k) {
      if (seen.insert(s).second) {
        for (uint64_t at = s; at < e;) {
          ZydisDecodedInstruction in;
          const auto* p = reinterpret_cast<const uint8_t*>(at);
          if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, nullptr, p, e - at, &in))) break;
          out.push_back({at, s, e});
          at += in.length;
        }
      }
      uint64_t q = e, ns = 0, ne = 0;
      while (q < e + 256 && !(hpcrun::function_bounds(q, &ns, &ne) && ns == q)) ++q;
      if (q == e + 256) break;
      s = ns;
      e = ne;
    }
  }
  return out;
}

// What resolve_sample must return for `regs`, computed without the cache.
inline hpcrun::Access reference_access(const Pc& p, const hpcrun::SavedRegs& regs) {
  const hpcrun::PcDecision d =
      hpcrun::decide_from_code(reinterpret_cast<const uint8_t*>(p.start), p.end - p.start, p.start, p.pc);
  return hpcrun::access_for(d, regs);
}

inline bool same(const hpcrun::Access& x, const hpcrun::Access& y) {
  return x.kind == y.kind && x.insn == y.insn && x.ea == y.ea && x.size == y.size && x.is_write == y.is_write;
}

inline hpcrun::SavedRegs regs_for(uint64_t pc) {
  hpcrun::SavedRegs r{};
  for (unsigned i = 0; i < 16; ++i) r.gpr[i] = 0x100000ull * (i + 1);
  r.rip = pc;
  r.fs_base = 0x7f0000000000ull;
  return r;
}

}  // namespace hpcl_test
