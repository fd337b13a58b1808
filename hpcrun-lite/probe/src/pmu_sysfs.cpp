// See pmu_sysfs.h.
#include "hpcrun/probe/pmu_sysfs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hpcrun {

namespace {

constexpr const char* kDevices = "sys/bus/event_source/devices";
constexpr const char* kDevicesCopy = "sys/devices";

// The architectural fields of an x86 core PMU, for a copy that lacks their format files.
bool known_core_format(const char* pmu, const char* term, size_t n, FormatField* f) {
  if (strcmp(pmu, "cpu") != 0 && strcmp(pmu, "cpu_core") != 0 && strcmp(pmu, "cpu_atom") != 0)
    return false;
  static const struct {
    const char* name;
    const char* format;
  } kArch[] = {{"event", "config:0-7"},    {"umask", "config:8-15"}, {"edge", "config:18"},
               {"inv", "config:23"},       {"cmask", "config:24-31"}, {"ldlat", "config1:0-15"}};
  for (const auto& k : kArch)
    if (strlen(k.name) == n && memcmp(k.name, term, n) == 0) return parse_format(k.format, f);
  return false;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Parses a decimal or 0x-hex number of [p, end); false when anything else is there.
bool parse_number(const char* p, const char* end, uint64_t* out) {
  if (p == end) return false;
  uint64_t v = 0;
  if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    for (p += 2; p < end; ++p) {
      char c = *p;
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0 || v >> 60) return false;
      v = v << 4 | uint64_t(d);
    }
  } else {
    for (; p < end; ++p) {
      if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10) return false;
      v = v * 10 + uint64_t(*p - '0');
    }
  }
  *out = v;
  return true;
}

uint64_t* word_of(perf_event_attr* a, uint8_t word) {
  switch (word) {
    case 0: return reinterpret_cast<uint64_t*>(&a->config);
    case 1: return reinterpret_cast<uint64_t*>(&a->config1);
    case 2: return reinterpret_cast<uint64_t*>(&a->config2);
#ifdef PERF_ATTR_SIZE_VER8
    case 3: return reinterpret_cast<uint64_t*>(&a->config3);
#endif
    default: return nullptr;
  }
}

// "config", "config1", ... as a word number; -1 otherwise.
int word_number(const char* p, size_t n) {
  if (n < 6 || strncmp(p, "config", 6) != 0) return -1;
  if (n == 6) return 0;
  if (n == 7 && p[6] >= '1' && p[6] <= '3') return p[6] - '0';
  return -1;
}

// One term of [p, end): name and value (1 without '=').
struct Term {
  const char* name;
  size_t name_len;
  uint64_t value;
};

bool parse_term(const char* p, const char* end, Term* t, char* err, size_t errlen) {
  while (p < end && is_space(*p)) ++p;
  while (end > p && is_space(end[-1])) --end;
  const char* eq = static_cast<const char*>(memchr(p, '=', size_t(end - p)));
  const char* name_end = eq ? eq : end;
  while (name_end > p && is_space(name_end[-1])) --name_end;
  if (name_end == p) {
    snprintf(err, errlen, "an empty term");
    return false;
  }
  t->name = p;
  t->name_len = size_t(name_end - p);
  t->value = 1;
  if (eq) {
    const char* v = eq + 1;
    while (v < end && is_space(*v)) ++v;
    if (!parse_number(v, end, &t->value)) {
      snprintf(err, errlen, "term %.*s: '%.*s' is not a number", int(t->name_len), t->name,
               int(end - v), v);
      return false;
    }
  }
  return true;
}

// Applies every term of `terms` (comma-separated) to `a`.
bool apply_terms(const char* root, const char* pmu, const char* terms, perf_event_attr* a,
                 char* err, size_t errlen) {
  for (const char* p = terms; *p;) {
    const char* comma = strchr(p, ',');
    const char* end = comma ? comma : p + strlen(p);
    Term t;
    const char* q = p;
    while (q < end && is_space(*q)) ++q;
    if (q < end) {  // an empty piece (a trailing comma) is nothing
      if (!parse_term(p, end, &t, err, errlen)) return false;
      const int whole = word_number(t.name, t.name_len);
      if (whole >= 0) {
        uint64_t* w = word_of(a, uint8_t(whole));
        if (!w) {
          snprintf(err, errlen, "%.*s is not in this kernel's perf_event_attr", int(t.name_len), t.name);
          return false;
        }
        *w = t.value;
      } else {
        char rel[128], text[128];
        snprintf(rel, sizeof rel, "format/%.*s", int(t.name_len), t.name);
        FormatField f;
        if (!pmu_read(root, pmu, rel, text, sizeof text)) {
          if (!known_core_format(pmu, t.name, t.name_len, &f)) {
            snprintf(err, errlen, "%s has no format for term '%.*s'", pmu, int(t.name_len), t.name);
            return false;
          }
          snprintf(text, sizeof text, "architectural");
        } else if (!parse_format(text, &f)) {
          snprintf(err, errlen, "%s/format/%.*s: cannot read '%s'", pmu, int(t.name_len), t.name, text);
          return false;
        }
        if (!format_apply(f, t.value, a)) {
          snprintf(err, errlen, "%.*s=%llu does not fit %s's format '%s'", int(t.name_len), t.name,
                   (unsigned long long)t.value, pmu, text);
          return false;
        }
      }
    }
    if (!comma) break;
    p = comma + 1;
  }
  return true;
}

}  // namespace

int FormatField::width() const {
  int n = 0;
  for (int i = 0; i < nranges; ++i) n += ranges[i].hi - ranges[i].lo + 1;
  return n;
}

bool parse_format(const char* text, FormatField* out) {
  *out = FormatField{};
  const char* p = text;
  while (is_space(*p)) ++p;
  const char* colon = strchr(p, ':');
  if (!colon) return false;
  const char* name_end = colon;
  while (name_end > p && is_space(name_end[-1])) --name_end;
  int w = word_number(p, size_t(name_end - p));
  if (w < 0) return false;
  out->word = uint8_t(w);
  p = colon + 1;
  for (;;) {
    while (is_space(*p)) ++p;
    if (!*p) break;
    if (out->nranges == 4) return false;
    uint64_t lo, hi;
    const char* e = p;
    while (*e >= '0' && *e <= '9') ++e;
    if (!parse_number(p, e, &lo)) return false;
    hi = lo;
    p = e;
    if (*p == '-') {
      e = ++p;
      while (*e >= '0' && *e <= '9') ++e;
      if (!parse_number(p, e, &hi)) return false;
      p = e;
    }
    if (lo > hi || hi > 63) return false;
    out->ranges[out->nranges++] = {uint8_t(lo), uint8_t(hi)};
    while (is_space(*p)) ++p;
    if (*p == ',') ++p;
    else if (*p) return false;
  }
  return out->nranges > 0;
}

bool format_apply(const FormatField& f, uint64_t value, perf_event_attr* a) {
  uint64_t* w = word_of(a, f.word);
  if (!w) return false;
  const int width = f.width();
  if (width < 64 && (value >> width) != 0) return false;
  int vbit = 0;
  for (int i = 0; i < f.nranges; ++i)
    for (int b = f.ranges[i].lo; b <= f.ranges[i].hi; ++b, ++vbit) {
      const uint64_t m = uint64_t(1) << b;
      *w = (value >> vbit & 1) ? (*w | m) : (*w & ~m);
    }
  return true;
}

long read_root_file(const char* root, const char* rel, char* buf, size_t len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t got = 0;
  while (got + 1 < len) {
    ssize_t n = read(fd, buf + got, len - 1 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += size_t(n);
  }
  close(fd);
  buf[got] = 0;
  return long(got);
}

const char* pmu_base(const char* root) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, kDevices);
  struct stat st;
  return stat(path, &st) != 0 ? kDevicesCopy : kDevices;
}

bool pmu_read(const char* root, const char* pmu, const char* rel, char* buf, size_t len) {
  char path[384];
  snprintf(path, sizeof path, "%s/%s/%s", pmu_base(root), pmu, rel);
  if (read_root_file(root, path, buf, len) < 0) return false;
  // Anything after a NUL (tar's padding) is cut by strlen.
  size_t n = strlen(buf);
  while (n > 0 && is_space(buf[n - 1])) buf[--n] = 0;
  size_t start = 0;
  while (start < n && is_space(buf[start])) ++start;
  if (start) memmove(buf, buf + start, n - start + 1);
  return true;
}

bool pmu_exists(const char* root, const char* pmu, const char* rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s/%s/%s", root, pmu_base(root), pmu, rel);
  struct stat st;
  return stat(path, &st) == 0;
}

int pmu_type_at(const char* root, const char* pmu) {
  char buf[32];
  uint64_t v;
  if (!pmu_read(root, pmu, "type", buf, sizeof buf) || !parse_number(buf, buf + strlen(buf), &v) ||
      v > 0x7fffffff)
    return -1;
  return int(v);
}

bool pmu_encode(const char* root, const char* pmu, const char* terms, const char* overrides,
                perf_event_attr* a, char* err, size_t errlen) {
  a->config = a->config1 = a->config2 = 0;
  if (!apply_terms(root, pmu, terms, a, err, errlen)) return false;
  return !overrides || apply_terms(root, pmu, overrides, a, err, errlen);
}

bool pmu_encode_event(const char* root, const char* pmu, const char* name, const char* overrides,
                      perf_event_attr* a, char* err, size_t errlen) {
  char rel[128], terms[256];
  snprintf(rel, sizeof rel, "events/%s", name);
  if (!pmu_read(root, pmu, rel, terms, sizeof terms)) {
    snprintf(err, errlen, "%s has no events/%s", pmu, name);
    return false;
  }
  char why[200];
  if (!pmu_encode(root, pmu, terms, overrides, a, why, sizeof why)) {
    snprintf(err, errlen, "%s/events/%s ('%s'): %s", pmu, name, terms, why);
    return false;
  }
  return true;
}

}  // namespace hpcrun
