// Writes a Profile as the payload of docs/FORMAT.md: META, MODULES, SITES, STATICS, one TREE per
// thread, then SYMBOLS and (only when there are any) CALLEES (1.1), OFFSETS (1.2) and
// BALANCE (1.3), FIRST_TOUCH (1.5), SITE_NAMES (1.7). Every 1.0
// section is written even when empty, so the bytes of a file depend only on the Profile and
// golden tests stay stable.
#include <algorithm>
#include <utility>

#include "layout.h"
#include "payload.h"
#include "wire.h"

namespace hpcl::payload {
namespace {

// Writes the section header with a placeholder length, runs `body`, then patches the length.
template <typename F>
void section(wire::Writer& w, uint32_t tag, F&& body) {
  w.u32(tag);
  w.u32(0);
  size_t length_pos = w.size();
  w.u64(0);
  size_t start = w.size();
  body();
  w.patch_u64(length_pos, w.size() - start);
}

void put_frame(wire::Writer& w, const Frame& f) {
  w.u32(f.module);
  w.u64(f.offset);
}

void put_tree(wire::Writer& w, const Tree& t) {
  w.u32(t.tid);
  w.u32(static_cast<uint32_t>(t.nodes.size()));
  for (const Node& n : t.nodes) {
    w.u32(n.parent);
    w.u8(static_cast<uint8_t>(n.kind));
    w.u32(n.a);
    w.u64(n.b);
    // nmetrics is a u8. Known ids stop at 31, so only a corrupt Node can have more; writing the
    // first 255 keeps the file parseable rather than letting the count wrap.
    size_t nm = std::min<size_t>(n.metrics.size(), 255);
    w.u8(static_cast<uint8_t>(nm));
    for (size_t i = 0; i < nm; ++i) {
      w.u16(n.metrics[i].id);
      w.u64(n.metrics[i].value);
    }
  }
}

void put_spread(wire::Writer& w, const Spread& s) {
  w.u64(s.groups);
  w.u64(s.sum);
  w.u64(s.sumsq_lo);
  w.u64(s.sumsq_hi);
  w.u64(s.min);
  w.u64(s.max);
  w.u64(static_cast<uint64_t>(s.max_group.rank));
  w.u64(s.max_group.pid);
  w.u32(s.max_group.thread);
}

}  // namespace

uint32_t callee_count(const Profile& p) {
  uint32_t n = 0;
  for (const Symbolized& s : p.symbols) n += !s.callee.function.empty();
  return n;
}

uint32_t named_sites(const Profile& p) {
  uint32_t n = 0;
  for (const AllocSite& s : p.sites) n += !s.name.empty();
  return n;
}

bool has_site_apis_of_1_7(const Profile& p) {
  for (const AllocSite& s : p.sites)
    if (static_cast<uint8_t>(s.api) > static_cast<uint8_t>(kLastAllocApi10)) return true;
  return false;
}

bool has_page_faults(const Profile& p) {
  for (const Tree& t : p.trees)
    for (const Node& n : t.nodes)
      if (n.metric(kMetricPageFaults) != 0) return true;
  return false;
}

bool has_watch_metrics(const Profile& p) {
  for (const Tree& t : p.trees)
    for (const Node& n : t.nodes)
      for (const Metric& m : n.metrics)
        if (is_watch_metric(m.id)) return true;
  return false;
}

bool has_memory_metrics(const Profile& p) {
  for (const Tree& t : p.trees)
    for (const Node& n : t.nodes)
      for (const Metric& m : n.metrics)
        // Latency (1) and the data sources (16..31) were named in 1.0 already.
        if ((m.id >= kMetricLatencySamples && m.id <= kMetricNumaRemote) ||
            (m.id >= kMetricTlbHit && m.id <= kMetricDcMiss) ||
            (m.id >= kMetricCounterBase && m.id < kMetricFirstTouchNodeEnd))
          return true;
  return false;
}

std::vector<uint8_t> encode(const Profile& p) {
  std::vector<uint8_t> out;
  wire::Writer w(out);
  section(w, layout::kTagMeta, [&] {
    w.u32(static_cast<uint32_t>(p.meta.size()));
    for (const auto& [key, value] : p.meta) {
      w.str(key);
      w.str(value);
    }
  });
  section(w, layout::kTagModules, [&] {
    w.u32(static_cast<uint32_t>(p.modules.size()));
    for (const Module& m : p.modules) {
      w.str(m.path);
      w.str(m.build_id);
      w.u64(m.load_bias);
    }
  });
  section(w, layout::kTagSites, [&] {
    w.u32(static_cast<uint32_t>(p.sites.size()));
    for (const AllocSite& s : p.sites) {
      w.u8(static_cast<uint8_t>(s.api));
      w.u8(s.flags);
      w.u64(s.allocations);
      w.u64(s.bytes);
      w.u32(static_cast<uint32_t>(s.frames.size()));
      for (const Frame& f : s.frames) put_frame(w, f);
    }
  });
  section(w, layout::kTagStatics, [&] {
    w.u32(static_cast<uint32_t>(p.statics.size()));
    for (const StaticVar& v : p.statics) {
      w.u32(v.module);
      w.u64(v.offset);
      w.u64(v.size);
      w.u8(v.flags);
      w.str(v.name);
    }
  });
  for (const Tree& t : p.trees) section(w, layout::kTagTree, [&] { put_tree(w, t); });
  // A process profile with symbols is a caller's bug; writing them lets the reader report it
  // instead of dropping data silently.
  if (p.kind == FileKind::Database || !p.symbols.empty()) {
    section(w, layout::kTagSymbols, [&] {
      w.u32(static_cast<uint32_t>(p.symbols.size()));
      for (const Symbolized& s : p.symbols) {
        put_frame(w, s.frame);
        w.u32(static_cast<uint32_t>(s.locs.size()));
        for (const SourceLoc& l : s.locs) {
          w.str(l.function);
          w.str(l.file);
          w.u32(l.line);
        }
      }
    });
  }
  if (uint32_t n = callee_count(p); n > 0) {
    section(w, layout::kTagCallees, [&] {
      w.u32(n);
      for (const Symbolized& s : p.symbols) {
        if (s.callee.function.empty()) continue;
        put_frame(w, s.frame);
        w.str(s.callee.function);
        w.str(s.callee.file);
        w.u32(s.callee.line);
      }
    });
  }
  // Only when there are histograms, so that a file without them keeps its earlier minor.
  if (!p.offsets.empty()) section(w, layout::kTagOffsets, [&] {
    w.u32(static_cast<uint32_t>(p.offsets.size()));
    for (const OffsetHistogram& h : p.offsets) {
      w.u8(static_cast<uint8_t>(h.owner));
      w.u32(h.index);
      w.u64(h.min);
      w.u64(h.max);
      w.u32(static_cast<uint32_t>(h.bins.size()));
      for (uint64_t b : h.bins) w.u64(b);
    }
  });
  // Only when the merge computed it, so that other files keep their earlier minor.
  if (p.balance.present()) section(w, layout::kTagBalance, [&] {
    w.u64(p.balance.rank_groups);
    w.u64(p.balance.thread_groups);
    w.u32(static_cast<uint32_t>(p.balance.variables.size()));
    for (const VariableBalance& v : p.balance.variables) {
      w.u8(static_cast<uint8_t>(v.owner));
      w.u32(v.index);
      put_spread(w, v.ranks);
      put_spread(w, v.threads);
    }
  });
  // Only when some variable has page faults, so that other databases keep their earlier minor.
  if (!p.balance.first_touch.empty()) section(w, layout::kTagFirstTouch, [&] {
    w.u32(static_cast<uint32_t>(p.balance.first_touch.size()));
    for (const VariableFirstTouch& v : p.balance.first_touch) {
      w.u8(static_cast<uint8_t>(v.owner));
      w.u32(v.index);
      put_spread(w, v.threads);
    }
  });
  // Only when some site has a name, so that other files keep their earlier minor.
  if (named_sites(p) > 0) section(w, layout::kTagSiteNames, [&] {
    w.u32(named_sites(p));
    for (size_t i = 0; i < p.sites.size(); ++i) {
      if (p.sites[i].name.empty()) continue;
      w.u32(static_cast<uint32_t>(i));
      w.str(p.sites[i].name);
    }
  });
  return out;
}

}  // namespace hpcl::payload
