// Parsing of measurement options; see options.h. No allocation, no exceptions, no locale.
#include "options.h"

#include <cstdio>
#include <cstring>

namespace hpcrun {

const char* source_name(SourceKind kind) {
  switch (kind) {
    case SourceKind::Auto: return "auto";
    case SourceKind::Soft: return "soft";
    case SourceKind::Pebs: return "pebs";
    case SourceKind::Ibs: return "ibs";
    case SourceKind::PageFaults: return "page-faults";
  }
  return "?";
}

static bool parse_u64(const char* s, size_t len, uint64_t* out) {
  if (len == 0) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    uint64_t d = uint64_t(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool parse_size(const char* text, uint64_t* out) {
  size_t len = strlen(text);
  uint64_t mul = 1;
  if (len > 0) {
    switch (text[len - 1]) {
      case 'k': case 'K': mul = 1ull << 10; --len; break;
      case 'm': case 'M': mul = 1ull << 20; --len; break;
      case 'g': case 'G': mul = 1ull << 30; --len; break;
      default: break;
    }
  }
  uint64_t v;
  if (!parse_u64(text, len, &v) || v > UINT64_MAX / mul) return false;
  *out = v * mul;
  return true;
}

bool parse_small_every(const char* text, uint64_t* out) {
  if (strcmp(text, "auto") == 0) {
    *out = kSmallEveryAuto;
    return true;
  }
  uint64_t v;
  if (!parse_size(text, &v) || v == kSmallEveryAuto) return false;
  *out = v;
  return true;
}

const char* small_every_text(uint64_t value, char* buf, size_t len) {
  if (value == kSmallEveryAuto) snprintf(buf, len, "auto");
  else snprintf(buf, len, "%llu", (unsigned long long)value);
  return buf;
}

bool parse_source(const char* text, size_t len, SourceSpec* out, char* err, size_t errlen) {
  const char* at = static_cast<const char*>(memchr(text, '@', len));
  size_t name_len = at ? size_t(at - text) : len;
  struct { const char* name; SourceKind kind; } names[] = {
      {"auto", SourceKind::Auto}, {"soft", SourceKind::Soft},
      {"pebs", SourceKind::Pebs}, {"ibs", SourceKind::Ibs},
      {"page-faults", SourceKind::PageFaults}};
  bool found = false;
  for (auto& n : names) {
    if (strlen(n.name) == name_len && memcmp(n.name, text, name_len) == 0) {
      out->kind = n.kind;
      found = true;
    }
  }
  if (!found) {
    snprintf(err, errlen, "unknown sampling source '%.*s' (known: auto, soft, pebs, ibs, page-faults)",
             int(name_len), text);
    return false;
  }
  out->rate = 0;
  if (at) {
    size_t rlen = len - name_len - 1;
    if (!parse_u64(at + 1, rlen, &out->rate) || out->rate == 0) {
      snprintf(err, errlen, "bad rate in '%.*s': expected a positive integer", int(len), text);
      return false;
    }
    if (out->kind == SourceKind::Soft && out->rate > kMaxSoftRate) {
      snprintf(err, errlen, "soft rate %llu is above the maximum %llu samples/s",
               (unsigned long long)out->rate, (unsigned long long)kMaxSoftRate);
      return false;
    }
  }
  return true;
}

bool parse_sources(const char* text, Options* opts, char* err, size_t errlen) {
  opts->nsources = 0;
  const char* p = text;
  while (*p) {
    const char* comma = strchr(p, ',');
    size_t len = comma ? size_t(comma - p) : strlen(p);
    if (len > 0) {
      if (opts->nsources == kMaxSources) {
        snprintf(err, errlen, "too many sources (at most %d)", kMaxSources);
        return false;
      }
      if (!parse_source(p, len, &opts->sources[opts->nsources], err, errlen)) return false;
      ++opts->nsources;
    }
    if (!comma) break;
    p = comma + 1;
  }
  return true;
}

}  // namespace hpcrun
