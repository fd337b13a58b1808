// See view_evidence.h.
#include "hpcl/view/view_evidence.h"

#include <cctype>
#include <cstdio>
#include <sstream>

#include "hpcl/text/format_common.h"
#include "output/text_evidence.h"

namespace hpcl::analysis {
namespace {

// Appends `text` word-wrapped to `width`, continuation lines indented by `indent`.
void wrap(const std::string& text, size_t width, size_t indent, std::vector<std::string>& out) {
  std::ostringstream s;
  print_wrapped(std::string(indent, ' '), text, width, s);
  std::string line;
  std::istringstream lines(s.str());
  bool first = true;
  while (std::getline(lines, line)) {
    out.push_back(first ? line.substr(std::min(indent, line.size())) : line);
    first = false;
  }
}

std::string pct(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100.0);
  return buf;
}

}  // namespace

std::vector<std::string> why_lines(const ViewModel& m, const ViewNode& row, size_t width) {
  std::vector<std::string> out;
  if (row.kind == RowKind::Variable) {
    const Variable& v = m.report().variables[row.ref];
    const AccessEvidence& e = v.evidence;
    if (!e.analysed) {
      // An unattributed class: what it holds, and the functions that read it (no pattern: it
      // mixes unrelated data).
      if (const char* meaning = v.kind == VariableKind::Unknown ? unknown_class_meaning(v.name) : nullptr) {
        std::string text = std::string(meaning) + ".";
        text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
        wrap(text, width, 0, out);
        for (size_t k = 0; k < v.read_in.size() && k < 4; ++k) {
          const ReaderShare& r = v.read_in[k];
          const double share = v.samples > 0 ? static_cast<double>(r.samples) / static_cast<double>(v.samples) : 0;
          wrap(pad_left(pct(share), 4) + "  read in " + r.function, width, 6, out);
        }
        return out;
      }
      out.emplace_back("only heap and static variables are analysed");
      return out;
    }
    if (e.unreadable) {
      out.emplace_back("its binaries were not read (see the report's notes)");
      return out;
    }
    for (size_t k = 0; k < e.lines.size() && k < 4; ++k) {
      const LinePattern& l = e.lines[k];
      const double share = v.samples > 0 ? static_cast<double>(l.samples) / static_cast<double>(v.samples) : 0;
      wrap(pad_left(pct(share), 4) + "  " + line_label(l) + ": " + pattern_text(l.pattern, true), width, 6, out);
    }
    if (const std::string f = fields_text(v); !f.empty()) wrap("fields: " + f, width, 2, out);
    for (const Advice& a : e.advice) wrap("what to try: " + a.text, width, 2, out);
    return out;
  }
  if (!row.pattern.analysed) {
    out.emplace_back("no access pattern for this row: select a variable or a sampled instruction");
    return out;
  }
  std::string text = pattern_text(row.pattern, true);
  if (row.pattern.size > 0) text += "; " + std::to_string(row.pattern.size) + "-byte accesses";
  if (row.pattern.has_outer_stride)
    text += "; the enclosing loop moves the address by " + std::to_string(row.pattern.outer_stride) + " bytes";
  wrap(text, width, 2, out);
  return out;
}

}  // namespace hpcl::analysis
