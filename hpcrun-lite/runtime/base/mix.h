// Bit mixing for the runtime's fixed tables: a key's bits spread over the whole word, so that its
// low bits index a power-of-two table.
#pragma once

#include <cstdint>

namespace hpcrun {

// Half of MurmurHash3's 64-bit finalizer: one multiply, enough for keys that are addresses.
inline uint64_t mix_bits(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return k;
}

}  // namespace hpcrun
