// Dropping parameter lists and template arguments from demangled names (see cxx_names.h).
#include "cxx_names.h"

#include <cctype>
#include <map>
#include <set>

namespace hpcl::analysis {
namespace {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '>' || c == ']' ||
         c == ')';
}

// Whether the text so far ends with an operator name whose symbol starts with `c`.
bool in_operator_name(const std::string& out, char c) {
  for (std::string_view op : {"operator", "operator<", "operator<="})
    if (out.ends_with(op)) return c != '(' || op == "operator";
  return false;
}

// Removes every balanced `open ... close` group that directly follows a name.
std::string drop_groups(std::string_view s, char open, char close) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == open && !out.empty() && name_char(out.back())) {
      if (in_operator_name(out, c)) {
        // operator() / operator< ...: the brackets are the name itself.
        out += c;
        ++i;
        if (open == '(' && i < s.size() && s[i] == ')') out += s[i++];
        continue;
      }
      size_t depth = 0, j = i;
      for (; j < s.size(); ++j) {
        if (s[j] == open) ++depth;
        else if (s[j] == close && --depth == 0) break;
      }
      if (j == s.size()) {  // unbalanced: leave the rest alone
        out.append(s.substr(i));
        break;
      }
      i = j + 1;
      if (open == '(') {  // cv- and ref-qualifiers belong to the parameter list
        for (std::string_view q : {" const", " volatile", " &&", " &"})
          if (s.substr(i).starts_with(q)) i += q.size();
      }
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace

bool python_statement_label(std::string_view s) {
  size_t where = s.rfind(" (");
  if (where == std::string_view::npos || !s.ends_with(")")) return false;
  std::string_view file = s.substr(where + 2);
  size_t colon = file.rfind(':');
  return colon != std::string_view::npos && file.substr(0, colon).ends_with(".py");
}

namespace {

// One shortening step over all names, kept only where it stays unambiguous.
void apply_unique(std::vector<std::string>& names, std::string (*step)(std::string_view)) {
  std::map<std::string, std::set<std::string>> sources;  // shortened -> distinct originals
  std::vector<std::string> shortened;
  shortened.reserve(names.size());
  for (const std::string& n : names) {
    shortened.push_back(python_statement_label(n) ? n : step(n));
    sources[shortened.back()].insert(n);
  }
  for (size_t i = 0; i < names.size(); ++i)
    if (sources[shortened[i]].size() == 1) names[i] = std::move(shortened[i]);
}

}  // namespace

std::string drop_parameter_lists(std::string_view name) { return drop_groups(name, '(', ')'); }

std::string drop_template_arguments(std::string_view name) { return drop_groups(name, '<', '>'); }

void simplify_names(std::vector<std::string>& names) {
  apply_unique(names, drop_parameter_lists);
  apply_unique(names, drop_template_arguments);
}

}  // namespace hpcl::analysis
