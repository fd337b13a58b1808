// Parsing of measurement options; see options.h. No allocation, no exceptions, no locale.
#include "options.h"

#include <cstdio>
#include <cstring>

namespace hpcrun {

const char* source_name(SourceKind kind) {
  switch (kind) {
    case SourceKind::Auto: return "auto";
    case SourceKind::Soft: return "soft";
    case SourceKind::Pebs: return "pebs-load";
    case SourceKind::Ibs: return "ibs-op";
    case SourceKind::PebsStore: return "pebs-store";
    case SourceKind::Papi: return "papi";
    case SourceKind::PageFaults: return "page-faults";
    case SourceKind::WpSharing: return "wp-sharing";
    case SourceKind::WpReuse: return "wp-reuse";
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

const char* size_problem(const char* text) {
  size_t len = strlen(text), digits = 0;
  while (digits < len && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const bool shaped = digits > 0 && (digits == len || (digits + 1 == len && strchr("kKmMgG", text[digits])));
  return shaped ? "too large (more than 2^64-1)" : "not a number";
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

// A PAPI preset as HPCToolkit users type it: "PAPI_" and upper-case letters, digits, '_'.
static bool is_papi_name(const char* s, size_t len) {
  if (len <= 5 || len >= kMaxPapiName || memcmp(s, "PAPI_", 5) != 0) return false;
  for (size_t i = 5; i < len; ++i)
    if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) return false;
  return true;
}

// A PAPI native event named with its component or PMU, as PAPI prints them: "sde:::LIB::EVENT",
// "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS", "skx::MEM_LOAD_RETIRED:L3_MISS". The name (colons
// and all) runs up to '@'; PAPI checks it.
static size_t native_papi_name_len(const char* s, size_t len) {
  size_t n = 0;
  while (n < len && s[n] != '@') ++n;
  if (n >= kMaxPapiName || !memmem(s, n, "::", 2) || s[0] == ':') return 0;
  for (size_t i = 0; i < n; ++i)
    if (s[i] <= ' ' || s[i] > '~' || s[i] == ',') return 0;
  return n;
}

bool parse_source(const char* text, size_t len, SourceSpec* out, char* err, size_t errlen) {
  // NAME, then "@RATE" up to the first ':', then ":ldlat=N" (pebs-load) or ":l3miss" (ibs-op). A PAPI native
  // event's name has colons of its own.
  size_t name_len = native_papi_name_len(text, len);
  const bool native = name_len > 0;
  while (!native && name_len < len && text[name_len] != '@' && text[name_len] != ':') ++name_len;
  const char* colon = native ? nullptr : static_cast<const char*>(memchr(text, ':', len));
  size_t rate_end = colon ? size_t(colon - text) : len;
  struct { const char* name; SourceKind kind; } names[] = {
      {"auto", SourceKind::Auto},       {"soft", SourceKind::Soft},
      {"pebs-load", SourceKind::Pebs},  {"pebs", SourceKind::Pebs},
      {"pebs-store", SourceKind::PebsStore},
      {"ibs-op", SourceKind::Ibs},      {"ibs", SourceKind::Ibs},
      {"page-faults", SourceKind::PageFaults},
      {"wp-sharing", SourceKind::WpSharing}, {"wp-reuse", SourceKind::WpReuse}};
  *out = SourceSpec();
  bool found = false;
  for (auto& n : names) {
    if (strlen(n.name) == name_len && memcmp(n.name, text, name_len) == 0) {
      out->kind = n.kind;
      found = true;
    }
  }
  if (!found && (native || is_papi_name(text, name_len))) {
    out->kind = SourceKind::Papi;
    memcpy(out->papi_event, text, name_len);
    found = true;
  }
  if (!found) {
    snprintf(err, errlen,
             "unknown sampling source '%.*s' (known: auto, soft, pebs-load, pebs-store, ibs-op, "
             "page-faults, wp-sharing, wp-reuse, PAPI_<NAME>, COMPONENT::EVENT)", int(name_len), text);
    return false;
  }
  if (name_len < rate_end) {  // text[name_len] == '@'
    size_t rlen = rate_end - name_len - 1;
    if (!parse_u64(text + name_len + 1, rlen, &out->rate) || out->rate == 0) {
      snprintf(err, errlen, "bad rate in '%.*s': expected a positive integer", int(len), text);
      return false;
    }
    if (out->kind == SourceKind::Papi && out->rate > 0x7fffffffu) {
      snprintf(err, errlen, "PAPI period %llu is above PAPI's maximum %u",
               (unsigned long long)out->rate, 0x7fffffffu);
      return false;
    }
    if (out->kind == SourceKind::Soft && out->rate > kMaxSoftRate) {
      snprintf(err, errlen, "soft rate %llu is above the maximum %llu samples/s",
               (unsigned long long)out->rate, (unsigned long long)kMaxSoftRate);
      return false;
    }
  }
  if (colon) {
    const char* mod = colon + 1;
    size_t mlen = len - rate_end - 1;
    if (out->kind == SourceKind::Ibs) {
      // IBS tags only the ops that miss L3 (its format/l3missonly, Zen 4 and later).
      if (mlen != 6 || memcmp(mod, "l3miss", 6) != 0) {
        snprintf(err, errlen, "bad modifier in '%.*s': ibs-op takes :l3miss", int(len), text);
        return false;
      }
      out->l3miss = true;
      return true;
    }
    uint64_t ldlat = 0;
    if (out->kind != SourceKind::Pebs) {
      snprintf(err, errlen, "'%.*s': only pebs-load (:ldlat=N) and ibs-op (:l3miss) take a modifier",
               int(len), text);
      return false;
    }
    // The kernel's ldlat field is 16 bits; Intel accepts thresholds from 1 cycle up.
    if (mlen <= 6 || memcmp(mod, "ldlat=", 6) != 0 || !parse_u64(mod + 6, mlen - 6, &ldlat) ||
        ldlat == 0 || ldlat > 65535) {
      snprintf(err, errlen, "bad modifier in '%.*s': expected :ldlat=N with 1 <= N <= 65535",
               int(len), text);
      return false;
    }
    out->ldlat = uint32_t(ldlat);
  }
  return true;
}

const char* source_text(const SourceSpec& spec, char* buf, size_t len) {
  int n = snprintf(buf, len, "%s",
                   spec.kind == SourceKind::Papi ? spec.papi_event : source_name(spec.kind));
  if (spec.rate && n >= 0 && size_t(n) < len)
    n += snprintf(buf + n, len - size_t(n), "@%llu", (unsigned long long)spec.rate);
  if (spec.ldlat && n >= 0 && size_t(n) < len)
    snprintf(buf + n, len - size_t(n), ":ldlat=%u", unsigned(spec.ldlat));
  if (spec.l3miss && n >= 0 && size_t(n) < len) snprintf(buf + n, len - size_t(n), ":l3miss");
  return buf;
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
