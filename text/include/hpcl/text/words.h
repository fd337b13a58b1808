// Counts in messages read as English: "1 sample", "2 samples", "1 process", and fractions as
// percentages. Shared by every part of the analyzer that writes a number into a sentence or a
// cell: the model's notes as well as the formatters.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace hpcl::analysis {

// "N what" with `what` in the singular for 1, else `many` (default: `what` + "s").
inline std::string count_of(uint64_t n, std::string_view what, std::string_view many = {}) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(what);
  if (!many.empty()) return out.append(many);
  return out.append(what).append("s");
}

// A fraction as a percentage with one decimal: "12.3%".
inline std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

// The verb for a count: "was"/"were", "is"/"are".
inline const char* was_were(uint64_t n) { return n == 1 ? "was" : "were"; }
inline const char* is_are(uint64_t n) { return n == 1 ? "is" : "are"; }

}  // namespace hpcl::analysis
