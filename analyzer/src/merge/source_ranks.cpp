// See source_ranks.h.
#include "source_ranks.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <vector>

namespace hpcl::analysis {

namespace {

constexpr char kSep = '\x1f';  // unit separator: in no source name, rank or reason
constexpr size_t kMaxFallbacks = 32;

std::string meta_or(const Profile& p, const char* key, const char* dflt) {
  const std::string* v = p.find_meta(key);
  return v ? *v : dflt;
}

// "0-2,5" from sorted ranks.
std::string ranges(const std::vector<long long>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(ranks[i]);
    if (j > i) s += '-' + std::to_string(ranks[j]);
    i = j + 1;
  }
  return s;
}

// A rank as the runtime writes it (a non-negative number), or -1.
long long rank_of(const std::string& text) {
  long long r = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), r);
  return ec == std::errc() && end == text.data() + text.size() && r >= 0 ? r : -1;
}

}  // namespace

std::string source_fact(const Profile& p) {
  const long long rank = rank_of(meta_or(p, "rank", "-1"));
  const std::string who = rank < 0 ? "pid " + meta_or(p, "pid", "?") : std::to_string(rank);
  return meta_or(p, "source", "") + kSep + who + kSep + meta_or(p, "source_requested", "") + kSep +
         meta_or(p, "source_fallback", "");
}

void set_source_meta(const std::set<std::string>& facts, Profile* db) {
  std::map<std::string, std::vector<long long>> ranks;
  std::map<std::string, std::vector<std::string>> pids;
  std::string fallbacks;
  size_t nfallbacks = 0;
  for (const std::string& f : facts) {
    size_t a = f.find(kSep), b = f.find(kSep, a + 1), c = f.find(kSep, b + 1);
    if (c == std::string::npos) continue;
    const std::string source = f.substr(0, a), who = f.substr(a + 1, b - a - 1);
    const std::string requested = f.substr(b + 1, c - b - 1), reason = f.substr(c + 1);
    if (const long long r = rank_of(who); r >= 0) ranks[source].push_back(r);
    else pids[source].push_back(who);
    if (reason.empty() || nfallbacks++ == kMaxFallbacks) continue;
    std::string entry = (who.starts_with("pid ") ? who : "rank " + who) + kSep + requested + kSep + reason;
    std::replace(entry.begin(), entry.end(), ';', ',');  // ';' separates entries
    fallbacks += (fallbacks.empty() ? "" : ";") + entry;
  }
  std::set<std::string> sources;
  for (auto& [s, r] : ranks) sources.insert(s);
  for (auto& [s, p] : pids) sources.insert(s);
  if (sources.size() < 2 && fallbacks.empty()) return;
  std::string text;
  for (const std::string& s : sources) {
    std::vector<long long>& r = ranks[s];
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    std::string who = ranges(r);
    const size_t np = pids[s].size();
    if (np) who += (who.empty() ? "" : ",") + std::to_string(np) + (np == 1 ? " process" : " processes");
    text += (text.empty() ? "" : ";") + s + ":" + who;
  }
  db->set_meta("source_ranks", text);
  if (!fallbacks.empty()) db->set_meta("source_fallbacks", fallbacks);
}

}  // namespace hpcl::analysis
