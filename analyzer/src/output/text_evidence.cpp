// See text_evidence.h.
#include "text_evidence.h"

#include <algorithm>
#include <cstdio>

#include "hpcl/text/cxx_names.h"
#include "hpcl/text/format_common.h"

namespace hpcl::analysis {
namespace {

// Source lines of a variable worth a line of their own: at least 5% of its samples, at most 3.
constexpr double kLineMinShare = 0.05;
constexpr size_t kLinesShown = 3;

std::string pct0(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100.0);
  return buf;
}

void print_patterns(const std::vector<const Variable*>& listed, size_t width, std::ostream& out) {
  const size_t limit = width == 0 ? 100 : std::max<size_t>(width, 40);
  // The lines shown, then their labels shortened as the table's names are (parameter lists and
  // template arguments dropped where the rest stays unique).
  struct Shown {
    size_t row;
    bool first;
    double share;
    const LinePattern* line;
  };
  std::vector<Shown> shown;
  std::vector<std::string> labels;
  for (size_t i = 0; i < listed.size(); ++i) {
    const Variable& v = *listed[i];
    const AccessEvidence& e = v.evidence;
    if (!e.analysed || e.unreadable || e.lines.empty() || v.samples == 0) continue;
    size_t n = 0;
    for (const LinePattern& l : e.lines) {
      if (l.pattern.unreadable) continue;  // the notes name the files not read
      const double share = static_cast<double>(l.samples) / static_cast<double>(v.samples);
      if (n == kLinesShown || (n > 0 && share < kLineMinShare)) break;
      shown.push_back({i + 1, n == 0, share, &l});
      labels.push_back(l.label);
      ++n;
    }
  }
  if (shown.empty()) return;
  simplify_names(labels);
  out << "\nAccess patterns (each variable's hottest source lines, in their innermost loop):\n";
  for (size_t k = 0; k < shown.size(); ++k) {
    const Shown& x = shown[k];
    const PatternView& p = x.line->pattern;
    const std::string prefix = (x.first ? pad_left(std::to_string(x.row), 3) : std::string(3, ' ')) + "  " +
                               pad_left(pct0(x.share), 4) + "  ";
    const std::string indent(display_width(prefix) + 2, ' ');
    std::string pattern = pattern_text(p, false);
    // The kinds speak for themselves; an unknown one says why (JSON has every reason).
    if (p.kind == PatternKind::Unknown && !p.why.empty()) pattern += ": " + p.why;
    // One line when it fits, else the pattern under its label. The Python line that ran the code
    // stays whole while the native line keeps a few columns; it goes last.
    const size_t room = limit > display_width(prefix) ? limit - display_width(prefix) : 24;
    const std::string caller = x.line->caller.empty() ? "" : " \u2190 " + x.line->caller;
    const std::string label = display_width(caller) + 16 <= room
                                  ? shorten_label(labels[k], room - display_width(caller)) + caller
                                  : shorten_label(labels[k] + caller, room);
    if (display_width(prefix) + display_width(label) + 2 + display_width(pattern) <= limit) {
      out << prefix << label << "  " << pattern << '\n';
    } else {
      out << prefix << label << '\n';
      print_wrapped(indent.substr(1), pattern, width, out);
    }
  }
}

// "3-11, 13, 15-20": table rows, runs joined.
std::string row_list(const std::vector<size_t>& rows) {
  std::string s;
  for (size_t i = 0; i < rows.size();) {
    size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1] == rows[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(rows[i]) + (j > i ? "-" + std::to_string(rows[j]) : "");
    i = j + 1;
  }
  return s;
}

void print_fields(const std::vector<const Variable*>& listed, size_t width, std::ostream& out) {
  // A note several variables share ("no DWARF for liblammps.so.0") is one line, after the others.
  std::vector<std::pair<size_t, std::string>> lines;
  std::vector<std::pair<std::string, std::vector<size_t>>> notes;
  for (size_t i = 0; i < listed.size(); ++i) {
    const std::string text = fields_text(*listed[i]);
    if (text.empty()) continue;
    if (!listed[i]->evidence.fields.empty()) {
      lines.emplace_back(i + 1, text);
      continue;
    }
    auto it = std::find_if(notes.begin(), notes.end(), [&](const auto& n) { return n.first == text; });
    if (it == notes.end()) notes.push_back({text, {i + 1}});
    else it->second.push_back(i + 1);
  }
  for (const auto& [text, rows] : notes)
    if (rows.size() < 3)
      for (size_t r : rows) lines.emplace_back(r, text);
  std::sort(lines.begin(), lines.end());
  if (lines.empty() && notes.empty()) return;
  out << "\nFields (the members of each variable's element that carry its samples):\n";
  for (const auto& [row, text] : lines) print_wrapped(pad_left(std::to_string(row), 3) + " ", text, width, out);
  for (const auto& [text, rows] : notes)
    if (rows.size() >= 3) print_wrapped("  rows " + row_list(rows) + ":", text, width, out);
}

void print_advice(const std::vector<const Variable*>& listed, const std::vector<std::string>& names, size_t width,
                  std::ostream& out) {
  bool any = false;
  for (size_t i = 0; i < listed.size(); ++i)
    for (const Advice& a : listed[i]->evidence.advice) {
      if (!any) out << "\nWhat to try (each from the evidence it names):\n";
      any = true;
      print_wrapped(pad_left(std::to_string(i + 1), 3) + " ", names[i] + ": " + a.text, width, out);
    }
}

}  // namespace

std::string fields_text(const Variable& v) {
  const AccessEvidence& e = v.evidence;
  if (!e.analysed || e.unreadable) return {};
  if (e.fields.empty()) return e.fields_note;
  std::vector<const FieldShare*> order;
  for (const FieldShare& f : e.fields) order.push_back(&f);
  std::stable_sort(order.begin(), order.end(), [](const FieldShare* a, const FieldShare* b) { return a->samples > b->samples; });
  std::string s = e.element_type + ", " + std::to_string(e.element_size) + " bytes:";
  const double total = static_cast<double>(v.samples);
  size_t shown = 0;
  for (const FieldShare* f : order) {
    if (shown == 6) {
      s += " and " + std::to_string(order.size() - shown) + " more";
      break;
    }
    s += std::string(shown ? ", " : " ") + f->name + " " + pct0(total > 0 ? f->samples / total : 0);
    ++shown;
  }
  return s + " (" + hot_bytes_text(e) + ")";
}

void print_access_evidence(const std::vector<const Variable*>& listed, const std::vector<std::string>& names,
                           size_t width, std::ostream& out) {
  print_patterns(listed, width, out);
  print_fields(listed, width, out);
  print_advice(listed, names, width, out);
}

}  // namespace hpcl::analysis
