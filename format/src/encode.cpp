// Writes the payload of docs/FORMAT.md section by section (payload.h): META, MODULES, SITES,
// STATICS, one TREE per thread, then SYMBOLS and (only when there are any) CALLEES (1.1),
// OFFSETS (1.2), BALANCE (1.3), FIRST_TOUCH (1.5), SITE_NAMES (1.7), SCRIPT_FRAMES (1.8). Every
// 1.0 section is written even when empty, so the bytes of a file depend only on what it holds and
// golden tests stay stable; the lowest minor that describes them is found on the way.
#include <algorithm>
#include <string>
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

bool is_memory_metric(uint16_t id) {
  // Latency (1) and the data sources (16..31) were named in 1.0 already.
  return (id >= kMetricLatencySamples && id <= kMetricNumaRemote) ||
         (id >= kMetricTlbHit && id <= kMetricDcMiss) ||
         (id >= kMetricCounterBase && id < kMetricFirstTouchNodeEnd);
}

}  // namespace

Encoder::Encoder(FileKind kind, Drain drain, void* ctx)
    : kind_(kind), drain_(drain), ctx_(ctx), w_(buf_) {
  // A drained buffer holds a little over kDrainBytes at most: reserved at once, it never moves.
  // Grown by doubling it was copied eight times and its new pages zeroed each time (a tenth of
  // the page faults a LAMMPS start-up's profiling added, bench/kernel_entries.sh); reserved
  // memory that is never written costs nothing.
  if (drain_) buf_.reserve(2 * kDrainBytes);
}

void Encoder::need(uint16_t minor) { minor_ = std::max(minor_, minor); }

bool Encoder::enter(Stage stage) {
  if (!error_.empty()) return false;
  if (stage_ == Stage::Sites && stage != Stage::Sites) {
    // The length written ahead must be what the sites took, or every later offset is wrong.
    if (sites_left_ != 0 || size() - sites_start_ != sites_length_) {
      error_ = "SITES: the count or the frames announced differ from the sites written";
      return false;
    }
  }
  if (stage < stage_ || (stage == stage_ && stage != Stage::Trees && stage != Stage::Sites)) {
    error_ = std::string("sections out of order: ") + section_name(tag_of(stage)) + " after " +
             section_name(tag_of(stage_));
    return false;
  }
  // The sections of 1.0 are in every file, even empty.
  for (int s = static_cast<int>(stage_) + 1; s < static_cast<int>(stage); ++s) {
    Stage skipped = static_cast<Stage>(s);
    if (skipped == Stage::Meta || skipped == Stage::Modules || skipped == Stage::Sites ||
        skipped == Stage::Statics) {
      error_ = std::string(section_name(tag_of(skipped))) + " missing before " +
               section_name(tag_of(stage));
      return false;
    }
  }
  stage_ = stage;
  return true;
}

uint32_t Encoder::tag_of(Stage s) {
  switch (s) {
    case Stage::Start: return 0;
    case Stage::Meta: return layout::kTagMeta;
    case Stage::Modules: return layout::kTagModules;
    case Stage::Sites: return layout::kTagSites;
    case Stage::Statics: return layout::kTagStatics;
    case Stage::Trees: return layout::kTagTree;
    case Stage::Symbols: return layout::kTagSymbols;
    case Stage::Offsets: return layout::kTagOffsets;
    case Stage::Balance: return layout::kTagBalance;
    case Stage::End: return layout::kTagSiteNames;
  }
  return 0;
}

void Encoder::drain_if_full(bool block_end) {
  if (drain_ == nullptr || (buf_.size() < kDrainBytes && !block_end) || !error_.empty()) return;
  if (!drain_(ctx_, buf_.data(), buf_.size(), block_end)) error_ = "the payload could not be written";
  drained_ += buf_.size();
  buf_.clear();
}

void Encoder::meta(const std::vector<std::pair<std::string, std::string>>& meta) {
  if (!enter(Stage::Meta)) return;
  section(w_, layout::kTagMeta, [&] {
    w_.u32(static_cast<uint32_t>(meta.size()));
    for (const auto& [key, value] : meta) {
      w_.str(key);
      w_.str(value);
    }
  });
  drain_if_full(/*block_end=*/true);
}

void Encoder::modules(std::span<const Module> modules) {
  if (!enter(Stage::Modules)) return;
  section(w_, layout::kTagModules, [&] {
    w_.u32(static_cast<uint32_t>(modules.size()));
    for (const Module& m : modules) {
      w_.str(m.path);
      w_.str(m.build_id);
      w_.u64(m.load_bias);
    }
  });
  drain_if_full();
}

void Encoder::begin_sites(uint32_t count, uint64_t frames) {
  if (stage_ == Stage::Sites) {
    error_ = "SITES begun twice";
    return;
  }
  if (!enter(Stage::Sites)) return;
  // The length is known ahead, so the section need not stay in the buffer to be patched: the
  // sites can be drained as they come (a process may have hundreds of thousands).
  sites_length_ = 4 + uint64_t{count} * layout::kSiteMin + frames * layout::kFrameSize;
  w_.u32(layout::kTagSites);
  w_.u32(0);
  w_.u64(sites_length_);
  sites_start_ = size();
  sites_left_ = count;
  next_site_ = 0;
  w_.u32(count);
}

void Encoder::site(const AllocSite& s) {
  if (!error_.empty()) return;
  if (stage_ != Stage::Sites || sites_left_ == 0) {
    error_ = "SITES: more sites than announced";
    return;
  }
  --sites_left_;
  w_.u8(static_cast<uint8_t>(s.api));
  w_.u8(s.flags);
  w_.u64(s.allocations);
  w_.u64(s.bytes);
  w_.u32(static_cast<uint32_t>(s.frames.size()));
  for (const Frame& f : s.frames) put_frame(w_, f);
  if (static_cast<uint8_t>(s.api) > static_cast<uint8_t>(kLastAllocApi10)) need(kMinorSiteNames);
  if (!s.name.empty()) {
    site_names_.emplace_back(next_site_, s.name);
    need(kMinorSiteNames);
  }
  ++next_site_;
  drain_if_full();
}

void Encoder::statics(std::span<const StaticVar> statics) {
  if (!enter(Stage::Statics)) return;
  section(w_, layout::kTagStatics, [&] {
    w_.u32(static_cast<uint32_t>(statics.size()));
    for (const StaticVar& v : statics) {
      w_.u32(v.module);
      w_.u64(v.offset);
      w_.u64(v.size);
      w_.u8(v.flags);
      w_.str(v.name);
    }
  });
  drain_if_full();
}

void Encoder::tree(const Tree& t) {
  if (!enter(Stage::Trees)) return;
  section(w_, layout::kTagTree, [&] { put_tree(w_, t); });
  for (const Node& n : t.nodes) {
    if (n.kind == NodeKind::StackOwner || n.kind == NodeKind::StackSlot) need(kMinorStack);
    for (const Metric& m : n.metrics) {
      if (m.id == kMetricPageFaults && m.value != 0) need(kMinorPageFaults);
      if (is_memory_metric(m.id)) need(kMinorMemoryMetrics);
      if (is_watch_metric(m.id)) need(kMinorWatch);
    }
  }
  drain_if_full();
}

void Encoder::symbols(std::span<const Symbolized> symbols) {
  if (!enter(Stage::Symbols)) return;
  // A process profile with symbols is a caller's bug; writing them lets the reader report it
  // instead of dropping data silently.
  if (kind_ == FileKind::Database || !symbols.empty()) {
    section(w_, layout::kTagSymbols, [&] {
      w_.u32(static_cast<uint32_t>(symbols.size()));
      for (const Symbolized& s : symbols) {
        put_frame(w_, s.frame);
        w_.u32(static_cast<uint32_t>(s.locs.size()));
        for (const SourceLoc& l : s.locs) {
          w_.str(l.function);
          w_.str(l.file);
          w_.u32(l.line);
        }
      }
    });
  }
  uint32_t callees = 0;
  for (const Symbolized& s : symbols) callees += !s.callee.function.empty();
  if (callees > 0) {
    need(kMinorCallees);
    section(w_, layout::kTagCallees, [&] {
      w_.u32(callees);
      for (const Symbolized& s : symbols) {
        if (s.callee.function.empty()) continue;
        put_frame(w_, s.frame);
        w_.str(s.callee.function);
        w_.str(s.callee.file);
        w_.u32(s.callee.line);
      }
    });
  }
  drain_if_full();
}

void Encoder::offsets(std::span<const OffsetHistogram> offsets) {
  if (!enter(Stage::Offsets)) return;
  // Only when there are histograms, so that a file without them keeps its earlier minor.
  if (offsets.empty()) return;
  need(kMinorOffsets);
  section(w_, layout::kTagOffsets, [&] {
    w_.u32(static_cast<uint32_t>(offsets.size()));
    for (const OffsetHistogram& h : offsets) {
      w_.u8(static_cast<uint8_t>(h.owner));
      w_.u32(h.index);
      w_.u64(h.min);
      w_.u64(h.max);
      w_.u32(static_cast<uint32_t>(h.bins.size()));
      for (uint64_t b : h.bins) w_.u64(b);
    }
  });
  drain_if_full();
}

void Encoder::balance(const Balance& b) {
  if (!enter(Stage::Balance)) return;
  // Only when the merge computed it, so that other files keep their earlier minor.
  if (b.present()) {
    need(kMinorBalance);
    section(w_, layout::kTagBalance, [&] {
      w_.u64(b.rank_groups);
      w_.u64(b.thread_groups);
      w_.u32(static_cast<uint32_t>(b.variables.size()));
      for (const VariableBalance& v : b.variables) {
        w_.u8(static_cast<uint8_t>(v.owner));
        w_.u32(v.index);
        put_spread(w_, v.ranks);
        put_spread(w_, v.threads);
      }
    });
  }
  // Only when some variable has page faults, so that other databases keep their earlier minor.
  if (!b.first_touch.empty()) {
    need(kMinorMemoryMetrics);
    section(w_, layout::kTagFirstTouch, [&] {
      w_.u32(static_cast<uint32_t>(b.first_touch.size()));
      for (const VariableFirstTouch& v : b.first_touch) {
        w_.u8(static_cast<uint8_t>(v.owner));
        w_.u32(v.index);
        put_spread(w_, v.threads);
      }
    });
  }
  drain_if_full();
}

void Encoder::script_frames(std::span<const ScriptFrame> frames) {
  if (!error_.empty()) return;
  // A second list would silently replace the first, whose offsets the trees already use.
  if (script_frames_given_) {
    error_ = "SCRIPT_FRAMES handed over twice";
    return;
  }
  script_frames_given_ = true;
  script_frames_.assign(frames.begin(), frames.end());
}

void Encoder::rank_values(std::span<const RankValue> values) {
  if (!error_.empty()) return;
  if (rank_values_given_) {
    error_ = "RANK_VALUES handed over twice";
    return;
  }
  if (!values.empty() && kind_ != FileKind::Database) {
    error_ = "RANK_VALUES in a process profile (only a merge sums ranks)";
    return;
  }
  rank_values_given_ = true;
  rank_values_ = values;
}

void Encoder::stack_names(std::span<const StackVar> vars, std::span<const StackSlotName> slots) {
  if (!error_.empty()) return;
  if (stack_names_given_) {
    error_ = "STACK_NAMES handed over twice";
    return;
  }
  if ((!vars.empty() || !slots.empty()) && kind_ != FileKind::Database) {
    error_ = "STACK_NAMES in a process profile (only a merge names stack slots)";
    return;
  }
  stack_names_given_ = true;
  stack_vars_ = vars;
  stack_slots_ = slots;
}

void Encoder::stack_threads(std::span<const StackThreadValue> values) {
  if (!error_.empty()) return;
  if (stack_threads_given_) {
    error_ = "STACK_THREADS handed over twice";
    return;
  }
  if (!values.empty() && kind_ != FileKind::Database) {
    error_ = "STACK_THREADS in a process profile (only a merge sums threads)";
    return;
  }
  stack_threads_given_ = true;
  stack_threads_ = values;
}

std::string Encoder::finish() {
  if (!enter(Stage::End)) return error_;
  // Only when some site has a name, so that other files keep their earlier minor.
  if (!site_names_.empty()) {
    section(w_, layout::kTagSiteNames, [&] {
      w_.u32(static_cast<uint32_t>(site_names_.size()));
      for (const auto& [index, name] : site_names_) {
        w_.u32(index);
        w_.str(name);
      }
    });
  }
  // Only when there are script frames, for the same reason.
  if (!script_frames_.empty()) {
    need(kMinorScriptFrames);
    section(w_, layout::kTagScriptFrames, [&] {
      w_.u32(static_cast<uint32_t>(script_frames_.size()));
      for (const ScriptFrame& f : script_frames_) {
        w_.str(f.file);
        w_.str(f.function);
        w_.u32(f.line);
      }
    });
  }
  // Only when the merge kept them (merge --per-rank), so that other databases keep their minor.
  if (!rank_values_.empty()) {
    need(kMinorRankValues);
    section(w_, layout::kTagRankValues, [&] {
      w_.u32(static_cast<uint32_t>(rank_values_.size()));
      for (const RankValue& v : rank_values_) {
        w_.u32(v.node);
        w_.u64(static_cast<uint64_t>(v.rank));
        w_.u16(v.metric);
        w_.u64(v.value);
      }
    });
  }
  if (!stack_vars_.empty() || !stack_slots_.empty()) {
    need(kMinorStack);
    section(w_, layout::kTagStackNames, [&] {
      w_.u32(static_cast<uint32_t>(stack_vars_.size()));
      for (const StackVar& v : stack_vars_) {
        w_.u8(static_cast<uint8_t>(v.kind));
        w_.str(v.name);
        w_.str(v.function);
        w_.str(v.file);
        w_.u32(v.line);
        w_.u64(static_cast<uint64_t>(v.lo));
        w_.u64(v.size);
        w_.str(v.type);
      }
      w_.u32(static_cast<uint32_t>(stack_slots_.size()));
      for (const StackSlotName& n : stack_slots_) {
        w_.u32(n.owner.module);
        w_.u64(n.owner.offset);
        w_.u64(static_cast<uint64_t>(n.lo));
        w_.u32(n.width);
        w_.u32(n.var);
      }
    });
  }
  if (!stack_threads_.empty()) {
    need(kMinorStackThreads);
    section(w_, layout::kTagStackThreads, [&] {
      w_.u32(static_cast<uint32_t>(stack_threads_.size()));
      for (const StackThreadValue& v : stack_threads_) {
        w_.u32(v.node);
        w_.u64(static_cast<uint64_t>(v.thread.rank));
        w_.u64(v.thread.pid);
        w_.u32(v.thread.thread);
        w_.u64(v.samples);
      }
    });
  }
  return error_;
}

void Encoder::all(const Profile& p) {
  meta(p.meta);
  modules(p.modules);
  uint64_t frames = 0;
  for (const AllocSite& s : p.sites) frames += s.frames.size();
  begin_sites(static_cast<uint32_t>(p.sites.size()), frames);
  for (const AllocSite& s : p.sites) site(s);
  statics(p.statics);
  for (const Tree& t : p.trees) tree(t);
  symbols(p.symbols);
  offsets(p.offsets);
  balance(p.balance);
  script_frames(p.script_frames);
  rank_values(p.rank_values);
  stack_names(p.stack_vars, p.stack_slots);
  stack_threads(p.stack_threads);
}

}  // namespace hpcl::payload
