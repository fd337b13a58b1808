// Folded stacks ("frame;frame;... COUNT", one stack a line): the input of flamegraph.pl,
// inferno-flamegraph and speedscope. Those tools have no escape syntax, so names are made safe
// by replacing what they would misread (exports.h, folded_frame_name).
#include <algorithm>
#include <map>

#include "exports.h"
#include "hpcl/text/format_common.h"
#include "symbols/location.h"

namespace hpcl::analysis {

std::string folded_frame_name(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c == ';') out += ':';
    else if (c < 0x20 || c == 0x7f) out += '?';
    else out += static_cast<char>(c);
  }
  // "name 12" as the leaf would end the line "...;name 12 30": a second count to inferno.
  size_t digits = out.size();
  while (digits > 0 && out[digits - 1] >= '0' && out[digits - 1] <= '9') --digits;
  if (digits < out.size() && digits > 0 && out[digits - 1] == ' ') out[digits - 1] = '_';
  if (out.empty()) out = "[?]";
  return out;
}

std::vector<FoldedStack> folded_stacks(const ReportModel& m, size_t top) {
  std::vector<FoldedStack> out;
  std::map<std::string, size_t> seen;  // joined stack -> index in out, to merge equal stacks
  auto add = [&](FoldedStack stack) {
    std::string key;
    for (const FoldedFrame& f : stack.frames) key += f.name + ';';
    auto [it, fresh] = seen.try_emplace(key, out.size());
    if (fresh) out.push_back(std::move(stack));
    else out[it->second].count += stack.count;
  };
  const size_t n = rows_to_print(m.variables.size(), top);
  for (size_t i = 0; i < n; ++i) {
    const Variable& v = m.variables[i];
    if (v.samples == 0) continue;
    std::vector<FoldedFrame> base = {{FoldedPart::Variable, folded_frame_name(v.name)}};
    for (auto it = v.allocation_path.rbegin(); it != v.allocation_path.rend(); ++it)
      base.push_back({FoldedPart::Allocation, folded_frame_name(location_label(*it))});
    uint64_t held = 0;
    for (const AccessPath& a : v.accesses) {
      FoldedStack s{base, a.samples};
      for (auto it = a.path.rbegin(); it != a.path.rend(); ++it)
        s.frames.push_back({FoldedPart::Access, folded_frame_name(location_label(*it))});
      held += a.samples;
      add(std::move(s));
    }
    if (held < v.samples) add(FoldedStack{{base.front()}, v.samples - held});
  }
  // The samples that interrupted the profiler's own allocation tracking are no-data samples of
  // their own (META samples_in_runtime): a block of their own, so a flame graph shows them.
  const uint64_t own = std::min(m.samples_in_runtime, m.no_data_samples);
  if (m.no_data_samples > own)
    add(FoldedStack{{{FoldedPart::NoData, "[no data]"}}, m.no_data_samples - own});
  if (own > 0) add(FoldedStack{{{FoldedPart::NoData, "[profiler's own work]"}}, own});
  return out;
}

void write_folded(const ReportModel& m, const ReportOptions& options, std::ostream& out) {
  for (const FoldedStack& s : folded_stacks(m, options.top)) {
    bool first = true;
    for (const FoldedFrame& f : s.frames) {
      if (!first) out << ';';
      out << f.name;
      first = false;
    }
    out << ' ' << s.count << '\n';
  }
}

}  // namespace hpcl::analysis
