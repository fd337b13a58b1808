// The process-wide pool of interned strings (see interned_string.h).
#include "interned_string.h"

#include <mutex>
#include <unordered_set>

namespace hpcl::analysis {
namespace {

struct Hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
};
struct Equal {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return a == b; }
};

struct Pool {
  std::mutex lock;
  // Node-based: an element never moves, so the pointers handed out stay valid.
  std::unordered_set<std::string, Hash, Equal> strings;
};

// Never destroyed: interned strings may be read by other static objects' destructors.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

const std::string* InternedString::empty_string() noexcept {
  static const std::string* empty = new std::string;
  return empty;
}

const std::string* InternedString::intern(std::string_view s) {
  if (s.empty()) return empty_string();
  Pool& p = pool();
  std::lock_guard<std::mutex> guard(p.lock);
  auto it = p.strings.find(s);
  if (it == p.strings.end()) it = p.strings.emplace(s).first;
  return &*it;
}

size_t InternedString::pool_size() {
  Pool& p = pool();
  std::lock_guard<std::mutex> guard(p.lock);
  return p.strings.size();
}

}  // namespace hpcl::analysis
