// The container-plumbing rule (see container_plumbing.h) over demangled names.
#include "container_plumbing.h"

#include <cctype>
#include <string_view>

#include "heap_naming.h"
#include "symbols/naming.h"
#include "symbols/script_code.h"

namespace hpcl::analysis {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The base name of a template-id ("Matrix<int>" -> "Matrix"); operators are left whole.
std::string_view without_arguments(std::string_view name) {
  if (name.starts_with("operator")) return name;
  return name.substr(0, name.find('<'));
}

// A frame's function as a member of a class: "Foam::List<Foam::Tensor<double> >::List(int)" has
// class "Foam::List<Foam::Tensor<double> >", class base "Foam::List", member "List", top
// namespace "Foam", and is a constructor of a class template.
struct Member {
  std::string cls, cls_base, member, top;
  bool class_template = false, ctor = false;
};

Member member_of(const Location& loc) {
  Member m;
  if (loc.function.empty() || loc.unnamed_function || is_script_location(loc)) return m;
  const std::string_view q = qualified_name(loc.function);
  const size_t scope = last_scope(q);
  if (scope == std::string_view::npos) return m;
  m.cls = std::string(q.substr(0, scope));
  m.member = std::string(without_arguments(q.substr(scope + 2)));
  m.cls_base = qualified_base_name(m.cls);
  const size_t first = m.cls_base.find("::");
  m.top = m.cls_base.substr(0, first);
  m.class_template = m.cls.find('<') != std::string::npos;
  const size_t last = m.cls_base.rfind("::");
  m.ctor = m.member == (last == std::string::npos ? m.cls_base : m.cls_base.substr(last + 2));
  return m;
}

// A member name of the container's own growth: resize, setSize, reserve, doResize.
bool grows(std::string_view member) {
  const std::string m = lower(member);
  return m.find("size") != std::string::npos || m.find("reserve") != std::string::npos;
}

// Whether k is plumbing given the frame just inside it, `inner` (see the header's rules): null
// for the allocation call itself (malloc, operator new), which allocation paths leave out;
// `inner_plumbing`: that frame was itself found to be plumbing.
bool is_plumbing(const Location& k, const Location* inner, bool inner_plumbing) {
  if (k.function.empty() || k.unnamed_function || is_script_location(k)) return false;
  if (in_private_scope(k.function)) return true;
  const Member mk = member_of(k);
  if (!mk.class_template) return false;
  if (inner == nullptr || (!inner->function.empty() && is_allocation_function(inner->function)))
    return mk.ctor || grows(mk.member) || has_allocating_name(k.function);
  if (!inner_plumbing) return false;
  // Below, the inner frame is plumbing of the same code base (top-level namespace).
  const Member mj = member_of(*inner);
  if (mj.top != mk.top) return false;
  if (in_private_scope(inner->function)) return true;  // a public class over its library's internals
  if (mj.cls_base == mk.cls_base || mj.member == mk.member || mk.ctor) return true;
  const std::string_view arguments = std::string_view(mk.cls).substr(mk.cls.find('<'));
  return arguments.find(mj.cls_base) != std::string_view::npos;
}

}  // namespace

bool in_private_scope(std::string_view function) {
  const std::string base = qualified_base_name(function);
  const size_t last = last_scope(base);
  if (last == std::string::npos) return false;
  std::string_view scopes = std::string_view(base).substr(0, last);
  while (!scopes.empty()) {
    const size_t sep = scopes.find("::");
    const std::string part = lower(scopes.substr(0, sep));
    if (part == "internal" || part == "detail" || part == "details" || part == "impl" || part == "dtl" ||
        (part.starts_with('_') && !part.starts_with("(")))
      return true;
    if (sep == std::string_view::npos) break;
    scopes.remove_prefix(sep + 2);
  }
  return false;
}

bool may_be_plumbing(const Location& loc) {
  return !loc.function.empty() && (in_private_scope(loc.function) || member_of(loc).class_template);
}

size_t skip_container_plumbing(const std::vector<Location>& path, size_t first) {
  size_t k = first;
  bool inner_plumbing = false;
  while (k < path.size() && is_plumbing(path[k], k > 0 ? &path[k - 1] : nullptr, inner_plumbing)) {
    inner_plumbing = true;
    ++k;
  }
  return k;
}

std::string plumbing_container(const std::vector<Location>& path, size_t named) {
  std::string member_class;
  for (size_t j = named; j-- > 0;) {
    if (path[j].function.empty() || is_cxx_library_function(path[j].function) ||
        is_allocation_function(path[j].function) || in_private_scope(path[j].function))
      break;
    const Member m = member_of(path[j]);
    if (!m.class_template) break;
    if (m.ctor) return m.cls;
    if (member_class.empty()) member_class = m.cls;
  }
  return member_class;
}

}  // namespace hpcl::analysis
