// See text_evidence.h.
#include "text_evidence.h"

#include <algorithm>
#include <cstdio>

#include "format_common.h"

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
  bool any = false;
  const size_t limit = width == 0 ? 100 : std::max<size_t>(width, 40);
  for (size_t i = 0; i < listed.size(); ++i) {
    const Variable& v = *listed[i];
    const AccessEvidence& e = v.evidence;
    if (!e.analysed || e.unreadable || e.lines.empty() || v.samples == 0) continue;
    size_t shown = 0;
    for (const LinePattern& l : e.lines) {
      if (l.pattern.unreadable) continue;  // the notes name the files not read
      const double share = static_cast<double>(l.samples) / static_cast<double>(v.samples);
      if (shown == kLinesShown || (shown > 0 && share < kLineMinShare)) break;
      if (!any) out << "\nAccess patterns (each variable's hottest source lines, in their innermost loop):\n";
      any = true;
      const std::string prefix = (shown == 0 ? pad_left(std::to_string(i + 1), 3) : std::string(3, ' ')) + "  " +
                                 pad_left(pct0(share), 4) + "  ";
      const std::string indent(display_width(prefix) + 2, ' ');
      std::string pattern = pattern_text(l.pattern, false);
      // The kinds speak for themselves; an unknown one says why (JSON has every reason).
      if (l.pattern.kind == PatternKind::Unknown && !l.pattern.why.empty()) pattern += ": " + l.pattern.why;
      // One line when it fits, else the pattern under its label.
      const std::string label = shorten_label(l.label, limit > display_width(prefix) ? limit - display_width(prefix) : 24);
      if (display_width(prefix) + display_width(label) + 2 + display_width(pattern) <= limit) {
        out << prefix << label << "  " << pattern << '\n';
      } else {
        out << prefix << label << '\n';
        print_wrapped(indent.substr(1), pattern, width, out);
      }
      ++shown;
    }
  }
}

void print_fields(const std::vector<const Variable*>& listed, size_t width, std::ostream& out) {
  bool any = false;
  for (size_t i = 0; i < listed.size(); ++i) {
    const std::string text = fields_text(*listed[i]);
    if (text.empty()) continue;
    if (!any) out << "\nFields (the members of each variable's element that carry its samples):\n";
    any = true;
    print_wrapped(pad_left(std::to_string(i + 1), 3) + " ", text, width, out);
  }
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
