// Dropping parameter lists and template arguments from demangled names (see cxx_names.h).
#include "hpcl/text/cxx_names.h"

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

namespace {

// A function template's demangled name starts with its return type ("Foam::tmp<Foam::Field<double>
// > Foam::operator*<...>(...)"): the text before the first space outside brackets, when it reads
// as a type (a scope, template arguments, a pointer or reference, a built-in type's word) and a
// parameter list follows. 0 when there is none.
size_t return_type_end(std::string_view name) {
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (c == ' ' && depth == 0) {
      const std::string_view type = name.substr(0, i), rest = name.substr(i + 1);
      // A parameter list before the space ("f(int) const") is a function's, not a type's.
      if (rest.empty() || rest[0] == '(' || rest[0] == '[' || rest.starts_with("in ") || type.ends_with("operator") ||
          type.starts_with("/") || type.find('(') != std::string_view::npos || rest.find('(') == std::string_view::npos)
        return 0;
      static constexpr std::string_view kWords[] = {"void", "bool", "char", "int", "long", "short", "unsigned",
                                                    "signed", "float", "double", "const", "auto", "wchar_t"};
      bool typelike = type.find("::") != std::string_view::npos || type.find('<') != std::string_view::npos ||
                      type.ends_with('*') || type.ends_with('&');
      for (std::string_view w : kWords) typelike |= type == w;
      return typelike ? i + 1 : 0;
    }
  }
  return 0;
}

}  // namespace

std::string tidy_cxx_name(std::string_view label) {
  // The return type goes from the function, after a "TYPE in " prefix when there is one.
  std::string joined;
  std::string_view function = label;
  if (const size_t type = type_prefix_end(label); type != std::string_view::npos) {
    joined = std::string(label.substr(0, type + 4));
    function = label.substr(type + 4);
  }
  while (const size_t end = return_type_end(function)) function.remove_prefix(end);
  joined += function;
  const std::string_view name = joined;
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    if (name.substr(i).starts_with("(anonymous namespace)::")) {
      i += std::string_view("(anonymous namespace)::").size();
    } else if (name.substr(i).starts_with("[abi:")) {
      const size_t close = name.find(']', i);
      i = close == std::string_view::npos ? name.size() : close + 1;
    } else if (name[i] == ' ' && i + 1 < name.size() && name[i + 1] == '>' && !out.empty() && out.back() == '>') {
      ++i;  // "> >" -> ">>"
    } else {
      out += name[i++];
    }
  }
  return out;
}

namespace {

// The last component of a qualified name (a type), its own template arguments included:
// "Foam::Tensor<double>" -> "Tensor<double>".
std::string_view last_component(std::string_view type) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < type.size(); ++i) {
    if (type[i] == '<' || type[i] == '(') ++depth;
    else if ((type[i] == '>' || type[i] == ')') && depth > 0) --depth;
    else if (depth == 0 && type[i] == ':' && type[i + 1] == ':') start = i + 2;
  }
  return type.substr(start);
}

std::string brief_from(std::string_view s, size_t& i);

// The arguments from just after '<' to the matching '>' (consumed), briefed.
std::string brief_arguments(std::string_view s, size_t& i) {
  std::string first;
  bool more = false;
  for (int depth = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(') ++depth;
    else if (c == ')' && depth > 0) --depth;
    else if (c == '>') {
      if (depth == 0) break;
      --depth;
    } else if (c == ',' && depth == 0) more = true;
    if (!more) first += c;
  }
  if (i < s.size()) ++i;  // the closing '>'
  while (!first.empty() && first.front() == ' ') first.erase(first.begin());
  while (!first.empty() && first.back() == ' ') first.pop_back();
  size_t j = 0;
  std::string inner = brief_from(first, j);
  return std::string(last_component(inner)) + (more ? ", \u2026" : "");
}

std::string brief_from(std::string_view s, size_t& i) {
  std::string out;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '<' && !out.empty() && name_char(out.back()) && !in_operator_name(out, c)) {
      ++i;
      out += '<' + brief_arguments(s, i) + '>';
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

// drop_template_arguments on what follows a "TYPE in " prefix only.
std::string drop_function_template_arguments(std::string_view name) {
  const size_t type = type_prefix_end(name);
  if (type == std::string_view::npos) return drop_template_arguments(name);
  return std::string(name.substr(0, type)) + drop_template_arguments(name.substr(type));
}

}  // namespace

std::string brief_template_arguments(std::string_view name) {
  size_t i = 0;
  return brief_from(name, i);
}

size_t type_prefix_end(std::string_view label) {
  int depth = 0;
  for (size_t i = 0; i < label.size(); ++i) {
    const char c = label[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    else if ((c == '>' || c == ')' || c == ']') && depth > 0) --depth;
    else if (c == ' ' && depth == 0) return label.substr(i).starts_with(" in ") && i > 0 ? i : std::string_view::npos;
  }
  return std::string_view::npos;
}

void simplify_names(std::vector<std::string>& names) {
  apply_unique(names, tidy_cxx_name);
  apply_unique(names, drop_parameter_lists);
  apply_unique(names, brief_template_arguments);
  apply_unique(names, drop_function_template_arguments);
}

namespace {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

// Whether `s` has the keyword "operator" at `i` (not part of a longer identifier).
bool operator_at(std::string_view s, size_t i) {
  return s.substr(i).starts_with("operator") && (i == 0 || !is_identifier_char(s[i - 1])) &&
         (i + 8 >= s.size() || !is_identifier_char(s[i + 8]));
}

// Index of the bracket closing the one at `open`, or s.size().
size_t matching_close(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == '>' || c == ')' || c == ']' || c == '}') && --depth == 0) return i;
  }
  return s.size();
}

constexpr std::string_view kAnonymous = "(anonymous namespace)";

}  // namespace

std::string_view qualified_name(std::string_view s) {
  size_t start = 0;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (s.substr(i).starts_with(kAnonymous)) {
      i += kAnonymous.size();
    } else if (operator_at(s, i)) {
      // "operator()", "operator<<", "operator new[]", "operator std::string": up to the
      // parameter list, whose '(' then ends the name below.
      i += 8;
      if (s.substr(i).starts_with("()")) i += 2;
      while (i < s.size() && s[i] != '(') ++i;
    } else if (c == ' ') {
      start = ++i;  // what came before was a return type ("void", "LAMMPS_NS::Pair*")
    } else if (c == '(') {
      size_t close = matching_close(s, i);
      // "f(int)::Local::g()": a parameter list followed by "::" belongs to an enclosing scope.
      if (close < s.size() && s.substr(close + 1).starts_with("::")) {
        i = close + 1;
      } else {
        return s.substr(start, i - start);
      }
    } else if (c == '<' || c == '[' || c == '{') {
      i = std::min(matching_close(s, i) + 1, s.size());
    } else {
      ++i;
    }
  }
  return s.substr(start);
}

std::string qualified_base_name(std::string_view demangled) {
  std::string_view q = qualified_name(demangled);
  std::string out;
  size_t i = 0;
  while (i < q.size()) {
    if (operator_at(q, i)) {  // "operator<" is a name, not template arguments
      size_t end = q.find('(', i + 8);
      if (end == std::string_view::npos) end = q.size();
      if (q.substr(i + 8).starts_with("()")) end = i + 10;
      out.append(q.substr(i, end - i));
      i = end;
    } else if (q[i] == '<') {
      i = std::min(matching_close(q, i) + 1, q.size());
    } else {
      out.push_back(q[i++]);
    }
  }
  return out;
}

size_t last_scope(std::string_view f) {
  int depth = 0;
  size_t found = std::string_view::npos;
  for (size_t i = 0; i + 1 < f.size(); ++i) {
    char c = f[i];
    if (c == '<' || c == '(') ++depth;
    else if ((c == '>' || c == ')') && depth > 0) --depth;
    else if (c == ':' && f[i + 1] == ':' && depth == 0) found = i;
  }
  return found;
}

}  // namespace hpcl::analysis
