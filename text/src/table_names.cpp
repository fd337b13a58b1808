// Shortening the names of one table column without making rows look alike (see table_names.h).
#include "hpcl/text/table_names.h"

#include <algorithm>
#include <map>
#include <set>

#include "hpcl/text/cxx_names.h"
#include "hpcl/text/format_common.h"

namespace hpcl::analysis {
namespace {

constexpr std::string_view kCallerMark = " \u2190 ";
constexpr std::string_view kFarMark = "\u2026 \u2190 ";  // "f ← … ← g": g is a caller further out

// " ← ", or " ← … ← " before a caller further out than the next frame.
std::string caller_mark(const LabelParts& p) {
  return std::string(kCallerMark) + (p.far_caller ? std::string(kFarMark) : std::string());
}
constexpr std::string_view kRegionMark = " [omp region ";

// How much of a label a cell shows. The ladder below goes from all of it to the least.
struct Form {
  int caller_where;   // the caller's location: 2 whole, 1 the varying part, 0 none
  bool caller;
  bool region;
  bool full_name;     // else without namespaces
  int where;          // 2 whole, 1 the varying part, 0 none
};
constexpr Form kLadder[] = {
    {2, true, true, true, 2},    {0, true, true, true, 2},    {0, false, true, true, 2},
    {0, false, false, true, 2},  {0, false, false, false, 2}, {0, false, false, false, 1},
    {0, false, false, false, 0},
};

// " (heat2d.c:85)", " (:85)" or "" for `level` 2, 1, 0.
std::string where_text(const std::string& where, int level) {
  if (where.empty() || level == 0) return "";
  if (level == 2) return " (" + where + ")";
  std::string v = varying_part(where);
  return v.empty() ? "" : " (" + v + ")";
}

std::string where_text(const LabelParts& p, const Form& f) { return where_text(p.where, f.where); }

std::string caller_text(const LabelParts& p, const Form& f) {
  if (!f.caller || p.caller.empty()) return "";
  if (f.caller_where == 2) return caller_mark(p) + p.caller;
  const LabelParts c = split_label(p.caller);
  return caller_mark(p) + without_namespaces(c.name) + where_text(c.where, f.caller_where);
}

// Everything of the cell but its name.
std::string rest_of(const LabelParts& p, const Form& f) {
  return (f.region ? p.region : std::string()) + where_text(p, f) + caller_text(p, f) + p.number;
}

std::string name_of(const LabelParts& p, const Form& f) {
  return f.full_name ? p.name : without_namespaces(p.name);
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

size_t common_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  while (n > 0 && n < a.size() && is_continuation(a[n])) --n;
  return n;
}

std::string first_columns(std::string_view s, size_t cols) {
  size_t i = 0;
  for (size_t seen = 0; i < s.size(); ++i)
    if (!is_continuation(s[i]) && seen++ == cols) break;
  return std::string(s.substr(0, i));
}

// A name within `width`: cut in the middle keeping its last scope ("Pai…::compute"); where even
// that does not fit, the function alone ("compute") rather than its letters cut ("Pai…ute").
std::string cut_name(const std::string& name, size_t width) {
  if (display_width(name) <= width) return name;
  // "Field<double> in make_pressure": the type's arguments go first, then the type; the function
  // that made the data is what the row is.
  if (const size_t type = type_prefix_end(name); type != std::string::npos) {
    const std::string plain = drop_template_arguments(name.substr(0, type)) + name.substr(type);
    if (display_width(plain) <= width) return plain;
    return cut_name(name.substr(type + 4), width);
  }
  // Code known only by its address ("cp2k.psmp!0x28ffac0+0x4e"): the address tells it apart, the
  // module gives way ("cp2k…!0x28ffac0+0x4e").
  if (size_t bang = name.rfind("!0x"); bang != std::string::npos && bang > 0) {
    const std::string addr = name.substr(bang);
    if (display_width(addr) + 1 <= width) return first_columns(name, width - 1 - display_width(addr)) + "\u2026" + addr;
  }
  const size_t scope = last_scope(name);
  if (scope != std::string::npos && scope > 0) {
    const std::string last = name.substr(scope);  // "::compute"
    const size_t wlast = display_width(last);
    if (wlast + 1 + 2 <= width) return first_columns(name, width - 1 - wlast) + "\u2026" + last;
    if (wlast - 2 <= width) return last.substr(2);
  }
  return shorten_label(name, width);
}

// A caller's name within `width`: without its class ("build" for NPairHalf...::build) before
// it is cut.
std::string shorten_caller(const std::string& who, size_t width) {
  if (display_width(who) <= width) return who;
  // A chain of callers (the diff's "a < b < c"): the nearest tells most.
  if (size_t next = who.find(" < "); next != std::string::npos) {
    const std::string nearest = who.substr(0, next) + " < \u2026";
    return display_width(nearest) <= width ? nearest : shorten_caller(who.substr(0, next), width);
  }
  // "main (:41)": the location is what tells this caller from another.
  if (size_t paren = who.rfind(" ("); paren != std::string::npos && paren > 0 && who.back() == ')') {
    const std::string where = who.substr(paren);
    if (display_width(where) + 4 <= width)
      return cut_name(who.substr(0, paren), width - display_width(where)) + where;
  }
  const size_t scope = last_scope(who);
  if (scope != std::string::npos && display_width(who.substr(scope + 2)) <= width) return who.substr(scope + 2);
  return shorten_label(who, width);
}

// The cell in form `f` within `width`: the name gives way (cut in the middle, keeping its last
// scope) down to kMinName columns, then the caller's name; the location and the number stay
// whole while the name keeps a few columns.
std::string fit_form(const LabelParts& p, const Form& f, size_t width) {
  constexpr size_t kMinName = 8, kLeast = 4;
  const std::string name = name_of(p, f);
  std::string caller = caller_text(p, f);
  const std::string fixed = (f.region ? p.region : std::string()) + where_text(p, f) + p.number;
  const size_t wname = display_width(name), wfixed = display_width(fixed);
  if (wname + wfixed + display_width(caller) <= width) return name + fixed + caller;
  const size_t mark = display_width(caller_mark(p));
  const size_t keep_name = std::min(wname, kMinName);
  if (!caller.empty() && keep_name + wfixed + mark + 4 <= width) {
    const std::string who = caller.substr(caller_mark(p).size());
    const size_t room = width - wfixed - mark;  // for the name and the caller's name
    // The name whole when the caller can still show its function ("build" of ...::build); one
    // with a location ("main (:41)") keeps it all.
    const size_t scope = last_scope(who), next = who.find(" < ");
    const std::string least = next != std::string::npos ? who.substr(0, next) + " < \u2026"
                              : scope != std::string::npos && split_label(who).where.empty() ? who.substr(scope + 2)
                                                                                             : who;
    const std::string shown = wname + display_width(least) <= room ? shorten_caller(who, room - wname)
                              : display_width(who) + keep_name <= room ? who
                                                                       : shorten_caller(who, room - keep_name);
    // The number last, as in the whole label ("f ← g #3"): it counts sites of the whole path.
    const std::string before_caller = fixed.substr(0, fixed.size() - p.number.size());
    return cut_name(name, room - display_width(shown)) + before_caller + caller_mark(p) + shown +
           p.number;
  }
  if (wfixed + std::min(kLeast, wname) <= width) return cut_name(name, width - wfixed) + fixed;
  return shorten_label(name + fixed, width);
}

// A Python statement ("velocity = np.ones(n)", file "solver.py:18") within `width`: its end gives
// way first, for its start names what it assigns, then its file, for the line tells it from the
// other statements of the same file: "velocity = np.o… (solver.py:18)", "velocity
// (solver.py:18)", "velocity = np.o… (:18)", "velocity (:18)". Without `file`, only the last
// two. Empty when not even that fits.
std::string fit_statement(const LabelParts& p, size_t width, bool file = true) {
  constexpr size_t kMinStart = 8;
  const size_t eq = p.name.find(" = ");
  const std::string target = eq != std::string::npos ? p.name.substr(0, eq) : std::string();
  const size_t colon = p.where.rfind(':');
  if (colon == std::string::npos) return "";
  for (const std::string& where : {" (" + p.where + ")", " (" + p.where.substr(colon) + ")"}) {
    if (!file && where.size() == p.where.size() + 3) continue;
    const std::string fixed = where + p.number;
    const size_t wfixed = display_width(fixed);
    if (display_width(p.name) + wfixed <= width) return p.name + fixed;
    // The start cut after the assigned name and a little of what is assigned; else the name alone.
    const size_t room = width > wfixed + 1 ? width - wfixed - 1 : 0;
    if (room >= std::max(kMinStart, display_width(target) + 4))
      return first_columns(p.name, room) + "\u2026" + fixed;
    if (!target.empty() && display_width(target) + wfixed <= width) return target + fixed;
    if (room >= kMinStart) return first_columns(p.name, room) + "\u2026" + fixed;
  }
  return "";
}

// The richest form that fits without cutting the name; else the richest one whose name, cut,
// keeps kMinName columns (a name of 200 characters keeps its location); else the poorest one cut.
std::string best_fit(const LabelParts& p, size_t width) {
  constexpr size_t kMinName = 16;
  if (const std::string where = " (" + p.where + ")"; python_statement_label(p.name + where))
    if (std::string s = fit_statement(p, width); !s.empty()) return s;
  for (const Form& f : kLadder) {
    std::string s = name_of(p, f) + rest_of(p, f);
    if (display_width(s) <= width) return s;
  }
  // A container made in code without line information ("GeometricField<Vector<double>, …> in
  // gaussGrad::gradf (libfiniteVolume.so+0x15eba44)"): its type says more than the offset.
  if (const std::string name = without_namespaces(p.name);
      p.caller.empty() && type_prefix_end(name) != std::string::npos && varying_part(p.where).starts_with("+0x")) {
    const size_t type = type_prefix_end(name);
    for (const std::string& s : {name, drop_template_arguments(name.substr(0, type)) + name.substr(type)})
      if (display_width(s + p.number) <= width) return s + p.number;
  }
  for (const Form& f : kLadder)
    if (display_width(rest_of(p, f)) + kMinName <= width) return fit_form(p, f, width);
  return fit_form(p, kLadder[std::size(kLadder) - 1], width);
}

// The richest rung of the ladder that fits uncut and shows at least what `need` shows; else
// `need` alone, its name cut.
std::string fit_with(const LabelParts& p, const Form& need, size_t width) {
  for (const Form& rung : kLadder) {
    Form f = rung;
    f.caller = rung.caller || need.caller;
    f.caller_where = rung.caller ? std::max(rung.caller_where, need.caller_where) : need.caller_where;
    f.region = rung.region || need.region;
    f.full_name = rung.full_name || need.full_name;
    f.where = std::max(rung.where, need.where);
    std::string s = name_of(p, f) + rest_of(p, f);
    if (display_width(s) <= width) return s;
  }
  return fit_form(p, need, width);
}

// The form that shows what tells the members of `group` apart, and no more.
Form distinguishing_form(const std::vector<LabelParts>& parts, const std::vector<size_t>& group) {
  auto differ = [&](auto key) {
    std::set<std::string> seen;
    for (size_t i : group) seen.insert(key(parts[i]));
    return seen.size() > 1;
  };
  Form f{0, false, false, false, 0};
  const bool short_names = differ([](const LabelParts& p) { return without_namespaces(p.name); });
  f.full_name = !short_names && differ([](const LabelParts& p) { return p.name; });
  f.region = differ([](const LabelParts& p) { return p.region; });
  if (differ([](const LabelParts& p) { return varying_part(p.where); })) f.where = 1;
  else if (differ([](const LabelParts& p) { return p.where; })) f.where = 2;
  f.caller = differ([](const LabelParts& p) { return p.caller; });
  if (f.caller && !differ([](const LabelParts& p) { return without_namespaces(split_label(p.caller).name); }))
    f.caller_where = differ([](const LabelParts& p) { return varying_part(split_label(p.caller).where); }) ? 1 : 2;
  return f;
}

// `s` within `width` keeping the characters where it first differs from every one of `others`
// (from the start of that token: "+0x175", not "75"), the rest of it cut around an ellipsis.
// When the difference lies in a later frame of a call chain ("a ← … ← b"), that frame is kept
// whole after its arrow ("… ← cp2k.psmp!0x15f8ba0+0x16e0"): a cut inside it would glue the
// head's frame to the tail's ("cp2k.psmp!0x…!0x15f8ba0+0x16e0").
std::string keep_difference(const std::string& s, const std::vector<const std::string*>& others,
                            size_t width) {
  if (display_width(s) <= width) return s;
  size_t p = 0;
  for (const std::string* o : others) p = std::max(p, common_prefix(s, *o));
  if (size_t arrow = p >= kCallerMark.size() ? s.rfind(kCallerMark, p - kCallerMark.size()) : std::string::npos;
      arrow != std::string::npos && arrow > 0) {
    std::string frame = s.substr(arrow + kCallerMark.size());
    const size_t wmark = display_width(kCallerMark);
    // A frame too long for the cell keeps its address ("…!0x15f8ba0+0x16e0"): the module's name
    // gives way, as in cut_name.
    const size_t bang = frame.rfind('!');
    if (display_width(frame) + wmark + 1 > width && bang != std::string::npos && bang > 0)
      frame = "\u2026" + frame.substr(bang);
    const size_t wframe = display_width(frame);
    if (wframe + wmark + 1 <= width) {
      // The first frames, cut, where a few of their columns fit; else the ellipsis alone.
      constexpr size_t kMinHead = 10;
      const size_t head = width - wframe - wmark - 1;
      return (head >= kMinHead ? first_columns(s.substr(0, arrow), head) : std::string()) + "\u2026" +
             std::string(kCallerMark) + frame;
    }
  }
  while (p > 0 && std::string_view(" (:+!#<[,").find(s[p - 1]) == std::string_view::npos) --p;
  if (p > 0 && std::string_view(" (").find(s[p - 1]) == std::string_view::npos) --p;
  const std::string_view tail = std::string_view(s).substr(p);
  const size_t head_min = std::min<size_t>(4, display_width(s.substr(0, p)));
  if (display_width(tail) + 1 + head_min <= width)
    return first_columns(s, width - 1 - display_width(tail)) + "\u2026" + std::string(tail);
  if (width < head_min + 3) return shorten_label(s, width);
  return first_columns(s, head_min) + "\u2026" + first_columns(tail, width - head_min - 2) + "\u2026";
}

// Groups of cells that read alike while their inputs differ.
std::vector<std::vector<size_t>> look_alikes(const std::vector<std::string>& cells,
                                             const std::vector<std::string>& out) {
  std::map<std::string, std::map<std::string, std::vector<size_t>>> by_out;
  for (size_t i = 0; i < cells.size(); ++i) by_out[out[i]][cells[i]].push_back(i);
  std::vector<std::vector<size_t>> groups;
  for (auto& [text, inputs] : by_out) {
    if (inputs.size() < 2) continue;
    std::vector<size_t> g;
    for (auto& [input, rows] : inputs) g.insert(g.end(), rows.begin(), rows.end());
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace

LabelParts split_label(std::string_view s) {
  LabelParts p;
  if (size_t hash = s.rfind(" #"); hash != std::string_view::npos && hash > 0 && hash + 2 < s.size() &&
                                   s.find_first_not_of("0123456789", hash + 2) == std::string_view::npos) {
    p.number = std::string(s.substr(hash));
    s = s.substr(0, hash);
  }
  if (size_t mark = s.find(kCallerMark); mark != std::string_view::npos && mark > 0) {
    p.caller = std::string(s.substr(mark + kCallerMark.size()));
    // A far caller with a name is shortened as a name ("← … ← kEpsilon::correct"); code known
    // only by its address stays one chain, whose differing frame keep_difference keeps whole.
    if (p.caller.starts_with(kFarMark) && p.caller.find("!0x") == std::string::npos) {
      p.caller.erase(0, kFarMark.size());
      p.far_caller = true;
    }
    s = s.substr(0, mark);
  }
  if (size_t paren = s.rfind(" ("); paren != std::string_view::npos && paren > 0 && s.back() == ')' &&
                                    s.substr(paren + 2).find('(') == std::string_view::npos) {
    p.where = std::string(s.substr(paren + 2, s.size() - paren - 3));
    s = s.substr(0, paren);
  }
  if (size_t region = s.rfind(kRegionMark); region != std::string_view::npos && region > 0 && s.back() == ']') {
    p.region = std::string(s.substr(region));
    s = s.substr(0, region);
  }
  p.name = std::string(s);
  return p;
}

std::string without_namespaces(std::string_view name) {
  // "Foam::GeometricField<…> in Foam::fv::gaussGrad::calcGrad": the type by its class alone.
  if (const size_t type = type_prefix_end(name); type != std::string_view::npos) {
    const std::string_view t = name.substr(0, type);
    const size_t scope = last_scope(t);
    return std::string(scope == std::string_view::npos ? t : t.substr(scope + 2)) + " in " +
           without_namespaces(name.substr(type + 4));
  }
  const size_t last = last_scope(name);
  if (last == std::string_view::npos || last == 0) return std::string(name);
  const size_t before = last_scope(name.substr(0, last));
  if (before == std::string_view::npos) return std::string(name);
  return std::string(name.substr(before + 2));
}

std::string varying_part(std::string_view where) {
  if (size_t plus = where.rfind("+0x"); plus != std::string_view::npos) return std::string(where.substr(plus));
  // A stack variable's "local of kernel, k.c:14", "private, main [omp region 0], k.c:34": whose
  // frame it is in tells it apart, not the line of its declaration.
  // The owner without its namespaces or module ("automatic array of fields::sweep" -> "automatic
  // array of sweep"), an OpenMP private without its region's number ("private, main [omp region
  // 0]" -> "private, main").
  if (size_t comma = where.rfind(", "); comma != std::string_view::npos &&
                                        (where.find(" of ") < comma || where.starts_with("private, "))) {
    std::string owner(where.substr(0, comma));
    if (size_t region = owner.rfind(kRegionMark); region != std::string::npos && owner.back() == ']')
      owner.erase(region);
    const size_t start = owner.starts_with("private, ") ? 9 : owner.find(" of ") + 4;
    if (size_t scope = owner.rfind("::"); scope != std::string::npos && scope > start)
      owner.erase(start, scope + 2 - start);
    return owner;
  }
  if (size_t colon = where.rfind(':'); colon != std::string_view::npos &&
                                       where.find_first_not_of("0123456789", colon + 1) == std::string_view::npos &&
                                       colon + 1 < where.size())
    return std::string(where.substr(colon));
  return "";
}

std::vector<std::string> fit_column(const std::vector<std::string>& cells, size_t width) {
  std::vector<LabelParts> parts;
  parts.reserve(cells.size());
  std::vector<std::string> out;
  out.reserve(cells.size());
  for (const std::string& c : cells) {
    parts.push_back(split_label(c));
    out.push_back(display_width(c) <= width ? c : best_fit(parts.back(), width));
  }
  // Statements of a file one of which had to leave the file out all leave it out: the rows read
  // as one list ("u = np.zer… (:12)" over "v (:13)"), not as two.
  std::set<std::string> file_left_out;
  auto file_of = [](const LabelParts& p) { return p.where.substr(0, p.where.rfind(':')); };
  auto statement = [&](size_t i) {
    return parts[i].caller.empty() && python_statement_label(parts[i].name + " (" + parts[i].where + ")");
  };
  for (size_t i = 0; i < cells.size(); ++i)
    if (statement(i) && out[i].find(" (" + parts[i].where + ")") == std::string::npos)
      file_left_out.insert(file_of(parts[i]));
  for (size_t i = 0; i < cells.size(); ++i)
    if (statement(i) && file_left_out.count(file_of(parts[i])))
      if (std::string s = fit_statement(parts[i], width, false); !s.empty()) out[i] = s;
  // Rows that read alike get back what tells them apart; that may make new look-alikes with
  // other rows, hence a second round.
  for (int round = 0; round < 2; ++round) {
    const auto groups = look_alikes(cells, out);
    if (groups.empty()) return out;
    for (const std::vector<size_t>& g : groups) {
      const Form need = distinguishing_form(parts, g);
      for (size_t i : g) out[i] = fit_with(parts[i], need, width);
    }
  }
  // The differing characters themselves, around an ellipsis.
  for (const std::vector<size_t>& g : look_alikes(cells, out)) {
    for (size_t i : g) {
      std::vector<const std::string*> others;
      for (size_t j : g)
        if (cells[j] != cells[i]) others.push_back(&cells[j]);
      out[i] = keep_difference(cells[i], others, width);
    }
  }
  // A number for what still reads alike (the width is too small for any difference).
  for (const std::vector<size_t>& g : look_alikes(cells, out)) {
    std::map<std::string, size_t> number;
    for (size_t i : g) number.emplace(cells[i], number.size() + 1);
    for (size_t i : g) {
      const std::string n = " [" + std::to_string(number[cells[i]]) + "]";
      out[i] = width > display_width(n) ? shorten_label(out[i], width - display_width(n)) + n
                                        : shorten_label(out[i], width);
    }
  }
  return out;
}

}  // namespace hpcl::analysis
