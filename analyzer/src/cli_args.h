// Counts on the command lines of hpcprof-lite and hpcprof-lite-mpi (CLI11 parses the options;
// this keeps our own messages for a bad number).
#pragma once

#include <charconv>
#include <cstddef>
#include <optional>
#include <string>

namespace hpcl::analysis {

inline std::optional<size_t> parse_count(const std::string& s) {
  size_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace hpcl::analysis
