// Parses the payload of docs/FORMAT.md into a Profile. Sections are read in whatever order they
// come; unknown tags are skipped and bytes left at the end of a known section are ignored, which
// is how a 1.x reader reads files of a later minor version. Cross-references between sections are
// checked afterwards by validate.cpp, once every section is in.
#include <algorithm>
#include <cinttypes>

#include "hpcl/scan.h"
#include "layout.h"
#include "payload.h"
#include "strf.h"
#include "wire.h"

namespace hpcl::payload {

const char* section_name(uint32_t tag) {
  switch (tag) {
    case layout::kTagMeta: return "META";
    case layout::kTagModules: return "MODULES";
    case layout::kTagSites: return "SITES";
    case layout::kTagStatics: return "STATICS";
    case layout::kTagTree: return "TREE";
    case layout::kTagSymbols: return "SYMBOLS";
    case layout::kTagCallees: return "CALLEES";
    case layout::kTagOffsets: return "OFFSETS";
    case layout::kTagBalance: return "BALANCE";
    case layout::kTagFirstTouch: return "FIRST_TOUCH";
    case layout::kTagSiteNames: return "SITE_NAMES";
    case layout::kTagScriptFrames: return "SCRIPT_FRAMES";
    case layout::kTagRankValues: return "RANK_VALUES";
    case layout::kTagStackNames: return "STACK_NAMES";
    case layout::kTagStackThreads: return "STACK_THREADS";
    default: return nullptr;
  }
}

namespace {

std::string describe(uint32_t tag) {
  const char* name = section_name(tag);
  return name ? std::string(name) : strf("with unknown tag %" PRIu32, tag);
}

// One section body being parsed. Truncation is remembered by the Reader; a count that cannot
// possibly fit is reported separately because it is more specific than "truncated".
struct Section {
  wire::Reader r;
  size_t base;  // payload offset of the body, so messages give positions in the payload
  const char* name;
  std::string error;

  bool fits(uint64_t count, size_t min_size, const char* what) {
    if (r.ok() && !r.can_hold(count, min_size) && error.empty()) {
      error = strf("section %s at payload byte %zu: %" PRIu64 " %s cannot fit in the %zu bytes left",
                   name, base + r.pos(), count, what, r.remaining());
    }
    return r.ok() && error.empty();
  }
  std::string result() const {
    if (!error.empty()) return error;
    if (!r.ok()) return strf("truncated in section %s at payload byte %zu", name, base + r.failed_at());
    return {};
  }
};

Frame get_frame(wire::Reader& r) {
  Frame f;
  f.module = r.u32();
  f.offset = r.u64();
  return f;
}

void read_meta(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kMetaPairMin, "entries")) return;
  p.meta.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    std::string key = s.r.str();
    std::string value = s.r.str();
    p.meta.emplace_back(std::move(key), std::move(value));
  }
}

void read_modules(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kModuleMin, "modules")) return;
  p.modules.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    Module& m = p.modules.emplace_back();
    m.path = s.r.str();
    m.build_id = s.r.str();
    m.load_bias = s.r.u64();
  }
}

void read_sites(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kSiteMin, "sites")) return;
  p.sites.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    AllocSite& site = p.sites.emplace_back();
    // Unknown api values are kept: alloc_api_name() shows them as "unknown".
    site.api = static_cast<AllocApi>(s.r.u8());
    site.flags = s.r.u8();
    site.allocations = s.r.u64();
    site.bytes = s.r.u64();
    uint32_t nframes = s.r.u32();
    if (!s.fits(nframes, layout::kFrameSize, "frames")) return;
    site.frames.reserve(nframes);
    for (uint32_t j = 0; j < nframes && s.r.ok(); ++j) site.frames.push_back(get_frame(s.r));
  }
}

void read_statics(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kStaticMin, "statics")) return;
  p.statics.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    StaticVar& v = p.statics.emplace_back();
    v.module = s.r.u32();
    v.offset = s.r.u64();
    v.size = s.r.u64();
    v.flags = s.r.u8();
    v.name = s.r.str();
  }
}

void read_tree(Section& s, Profile& p) {
  Tree& t = p.trees.emplace_back();
  t.tid = s.r.u32();
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kNodeMin, "nodes")) return;
  t.nodes.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    Node& node = t.nodes.emplace_back();
    node.parent = s.r.u32();
    // Out-of-range kinds are stored as read and refused by validate(), which names the node.
    node.kind = static_cast<NodeKind>(s.r.u8());
    node.a = s.r.u32();
    node.b = s.r.u64();
    uint8_t nm = s.r.u8();
    if (!s.fits(nm, layout::kMetricSize, "metrics")) return;
    node.metrics.resize(nm);
    for (Metric& m : node.metrics) {
      m.id = s.r.u16();
      m.value = s.r.u64();
    }
  }
}

// TREE as columns (hpcl/scan.h): the same fields and the same messages as read_tree. The fixed
// part of each node is read in one step where the section holds it, which is everywhere but at a
// truncation (there the field-by-field reads of read_tree say where it stopped), and the node
// rules of validate() are checked on the way (FlatTreeCheck), so that only a tree that breaks
// one is walked again, for the message. `script` is the script pseudo-module as far as the
// sections before the tree tell.
FlatTreeCheck read_flat_tree(Section& s, FlatTree& t, uint32_t script) {
  FlatTreeCheck check;
  check.script_module = script;
  t.tid = s.r.u32();
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kNodeMin, "nodes")) return check;
  t.resize(n, 0);
  const uint8_t* p = s.r.cursor();
  const uint8_t* const end = p + s.r.remaining();
  auto sync = [&] { s.r.skip(static_cast<uint64_t>(p - s.r.cursor())); };
  size_t nmetrics = 0;
  bool ok = n > 0;
  uint64_t modules = 0, sites = 0, statics = 0, script_frames = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (static_cast<size_t>(end - p) < layout::kNodeMin) {
      sync();
      s.r.u32(), s.r.u8(), s.r.u32(), s.r.u64(), s.r.u8();  // fails where the node is cut
      return check;
    }
    const uint32_t parent = wire::load_le32(p), a = wire::load_le32(p + 5);
    const auto kind = static_cast<NodeKind>(p[4]);
    t.parent[i] = parent;
    t.kind[i] = kind;
    t.a[i] = a;
    const uint64_t b = wire::load_le64(p + 9);
    t.b[i] = b;
    const uint8_t nm = p[17];
    p += layout::kNodeMin;
    ok &= i == 0 ? kind == NodeKind::Root && parent == kNoParent
                 : parent < i && kind != NodeKind::Root && static_cast<uint8_t>(kind) <= layout::kMaxNodeKind &&
                       (kind != NodeKind::StackSlot || a != 0);
    if ((kind == NodeKind::Frame || kind == NodeKind::StackOwner) && a != kNoModule)
      modules = std::max<uint64_t>(modules, uint64_t{a} + 1);
    // Saturating: an offset of 2^64 - 1 is out of range of any SCRIPT_FRAMES all the same.
    if (kind == NodeKind::Frame && a == script && script != kNoModule)
      script_frames = std::max(script_frames, b == UINT64_MAX ? b : b + 1);
    if (kind == NodeKind::HeapVar) sites = std::max<uint64_t>(sites, uint64_t{a} + 1);
    if (kind == NodeKind::StaticVarNode) statics = std::max<uint64_t>(statics, uint64_t{a} + 1);
    if (static_cast<size_t>(end - p) < size_t{nm} * layout::kMetricSize) {
      sync();
      s.fits(nm, layout::kMetricSize, "metrics");
      return check;
    }
    if (t.metrics.size() < nmetrics + nm) t.metrics.resize(std::max(nmetrics + nm, 2 * t.metrics.size()));
    for (uint8_t k = 0; k < nm; ++k, p += layout::kMetricSize) {
      const Metric m{wire::load_le16(p), wire::load_le64(p + 2)};
      ok &= m.value != 0 && (k == 0 || m.id > t.metrics[nmetrics + k - 1].id);
      t.metrics[nmetrics + k] = m;
    }
    nmetrics += nm;
    t.metric_end[i] = static_cast<uint32_t>(nmetrics);
  }
  sync();
  check.nodes_ok = ok;
  check.modules = modules;
  check.sites = sites;
  check.statics = statics;
  check.script_frames = script_frames;
  return check;
}

void read_symbols(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kSymbolMin, "symbols")) return;
  p.symbols.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    Symbolized& sym = p.symbols.emplace_back();
    sym.frame = get_frame(s.r);
    uint32_t nlocs = s.r.u32();
    if (!s.fits(nlocs, layout::kSourceLocMin, "source locations")) return;
    sym.locs.reserve(nlocs);
    for (uint32_t j = 0; j < nlocs && s.r.ok(); ++j) {
      SourceLoc& loc = sym.locs.emplace_back();
      loc.function = s.r.str();
      loc.file = s.r.str();
      loc.line = s.r.u32();
    }
  }
}

// CALLEES (1.1): each entry names a frame of SYMBOLS (both sorted by frame).
void read_callees(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kCalleeMin, "callees")) return;
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    Frame f = get_frame(s.r);
    SourceLoc callee;
    callee.function = s.r.str();
    callee.file = s.r.str();
    callee.line = s.r.u32();
    auto it = std::lower_bound(p.symbols.begin(), p.symbols.end(), f,
                               [](const Symbolized& sym, const Frame& fr) { return sym.frame < fr; });
    if (it == p.symbols.end() || it->frame != f) {
      if (s.error.empty())
        s.error = strf("section CALLEES: entry %u names frame %u:%" PRIx64 ", which has no symbol",
                       i, f.module, f.offset);
      return;
    }
    it->callee = std::move(callee);
  }
}

void read_offsets(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kOffsetsMin, "offset histograms")) return;
  p.offsets.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    OffsetHistogram& h = p.offsets.emplace_back();
    // Unknown owners and bin counts are kept as read and refused by validate().
    h.owner = static_cast<OffsetOwner>(s.r.u8());
    h.index = s.r.u32();
    h.min = s.r.u64();
    h.max = s.r.u64();
    uint32_t nbins = s.r.u32();
    if (!s.fits(nbins, 8, "bins")) return;
    h.bins.assign(nbins, 0);
    for (uint64_t& b : h.bins) b = s.r.u64();
  }
}

Spread get_spread(wire::Reader& r) {
  Spread s;
  s.groups = r.u64();
  s.sum = r.u64();
  s.sumsq_lo = r.u64();
  s.sumsq_hi = r.u64();
  s.min = r.u64();
  s.max = r.u64();
  s.max_group.rank = static_cast<int64_t>(r.u64());
  s.max_group.pid = r.u64();
  s.max_group.thread = r.u32();
  return s;
}

// BALANCE (1.3); its values are checked by validate().
void read_balance(Section& s, Profile& p) {
  p.balance.rank_groups = s.r.u64();
  p.balance.thread_groups = s.r.u64();
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kBalanceEntrySize, "balance entries")) return;
  p.balance.variables.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    VariableBalance& v = p.balance.variables.emplace_back();
    v.owner = static_cast<BalanceOwner>(s.r.u8());
    v.index = s.r.u32();
    v.ranks = get_spread(s.r);
    v.threads = get_spread(s.r);
  }
}

// FIRST_TOUCH (1.5); its values are checked by validate().
void read_first_touch(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kFirstTouchEntrySize, "first-touch entries")) return;
  p.balance.first_touch.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    VariableFirstTouch& v = p.balance.first_touch.emplace_back();
    v.owner = static_cast<BalanceOwner>(s.r.u8());
    v.index = s.r.u32();
    v.threads = get_spread(s.r);
  }
}

// Each entry names one site of SITES (read before it: sections come in tag order), sorted by
// site index, each at most once, never with an empty name.
std::string read_site_names(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kSiteNameMin, "site names")) return {};
  int64_t last = -1;
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    uint32_t site = s.r.u32();
    std::string name = s.r.str();
    if (!s.r.ok()) break;
    if (site >= p.sites.size())
      return strf("SITE_NAMES entry %" PRIu32 ": site index %" PRIu32 " out of range (%zu sites)",
                  i, site, p.sites.size());
    if (int64_t(site) <= last)
      return strf("SITE_NAMES entry %" PRIu32 ": site %" PRIu32 " out of order (entries are "
                  "sorted by site, each site at most once)", i, site);
    if (name.empty()) return strf("SITE_NAMES entry %" PRIu32 ": empty name", i);
    last = site;
    p.sites[site].name = std::move(name);
  }
  return {};
}

// SCRIPT_FRAMES (1.8): what each frame of the script pseudo-module stands for. Entries may repeat
// (a merge may keep equal ones); validate() checks the frames that point here.
std::string read_script_frames(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kScriptFrameMin, "script frames")) return {};
  p.script_frames.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    ScriptFrame f;
    f.file = s.r.str();
    f.function = s.r.str();
    f.line = s.r.u32();
    if (!s.r.ok()) break;
    // A frame is known by its function; without one a report would show an empty line.
    if (f.function.empty()) return strf("SCRIPT_FRAMES entry %" PRIu32 ": empty function", i);
    p.script_frames.push_back(std::move(f));
  }
  return {};
}

// RANK_VALUES (1.9); its order and node indices are checked by validate().
void read_rank_values(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kRankValueSize, "rank values")) return;
  p.rank_values.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    RankValue& v = p.rank_values.emplace_back();
    v.node = s.r.u32();
    v.rank = static_cast<int64_t>(s.r.u64());
    v.metric = s.r.u16();
    v.value = s.r.u64();
  }
}

// STACK_NAMES (1.10): the variables, then the slots that point into them; order, ranges and
// kinds are checked by validate().
void read_stack_names(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kStackVarMin, "stack variables")) return;
  p.stack_vars.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    StackVar& v = p.stack_vars.emplace_back();
    v.kind = static_cast<StackVarKind>(s.r.u8());
    v.name = s.r.str();
    v.function = s.r.str();
    v.file = s.r.str();
    v.line = s.r.u32();
    v.lo = static_cast<int64_t>(s.r.u64());
    v.size = s.r.u64();
    v.type = s.r.str();
  }
  if (!s.r.ok()) return;
  n = s.r.u32();
  if (!s.fits(n, layout::kStackSlotNameSize, "stack slots")) return;
  p.stack_slots.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    StackSlotName& v = p.stack_slots.emplace_back();
    v.owner.module = s.r.u32();
    v.owner.offset = s.r.u64();
    v.lo = static_cast<int64_t>(s.r.u64());
    v.width = s.r.u32();
    v.var = s.r.u32();
  }
}

// STACK_THREADS (1.11); its order and nodes are checked by validate().
void read_stack_threads(Section& s, Profile& p) {
  uint32_t n = s.r.u32();
  if (!s.fits(n, layout::kStackThreadSize, "stack thread values")) return;
  p.stack_threads.reserve(n);
  for (uint32_t i = 0; i < n && s.r.ok(); ++i) {
    StackThreadValue& v = p.stack_threads.emplace_back();
    v.node = s.r.u32();
    v.thread.rank = static_cast<int64_t>(s.r.u64());
    v.thread.pid = s.r.u64();
    v.thread.thread = s.r.u32();
    v.samples = s.r.u64();
  }
}

}  // namespace

std::string decode_meta(const uint8_t* data, size_t size, Profile& out) {
  wire::Reader r(data, size);
  if (r.remaining() < layout::kSectionHeaderSize) return "no META section";
  const uint32_t tag = r.u32();
  r.u32();
  const uint64_t length = r.u64();
  if (tag != layout::kTagMeta) return "the payload does not start with META";
  if (length > r.remaining()) return "truncated in section META";
  Section s{wire::Reader(data + r.pos(), length), r.pos(), "META", {}};
  read_meta(s, out);
  return s.result();
}

std::string describe_prefix(const uint8_t* data, size_t size, FileKind kind) {
  wire::Reader r(data, size);
  std::string whole, cut_in = size == 0 ? "its first section" : "a section header";
  size_t trees = 0;
  Profile meta;
  while (r.remaining() >= layout::kSectionHeaderSize) {
    const uint32_t tag = r.u32();
    r.u32();
    const uint64_t length = r.u64();
    const char* name = section_name(tag);
    if (length > r.remaining()) {
      cut_in = name ? name : "a section of a later version";
      break;
    }
    Section s{wire::Reader(data + r.pos(), length), r.pos(), name, {}};
    r.skip(length);
    if (!name) continue;
    if (tag == layout::kTagTree) {
      ++trees;
      continue;
    }
    std::string item = name;
    if (tag == layout::kTagMeta) {
      read_meta(s, meta);
      std::string who;
      for (const char* key : {"rank", "pid", "host"})
        if (const std::string* v = meta.find_meta(key); v && *v != "-1")
          who += (who.empty() ? "" : ", ") + std::string(key) + " " + *v;
      if (!who.empty()) item += " (" + who + ")";
    }
    whole += (whole.empty() ? "" : ", ") + item;
  }
  if (trees > 0)
    whole += (whole.empty() ? "" : ", ") + std::to_string(trees) + (trees == 1 ? " TREE" : " TREEs");
  const std::string place = "the cut falls in " + cut_in;
  if (whole.empty()) return "nothing of it can be read (" + place + ")";
  return "whole before the cut: " + whole + "; " + place +
         (kind == FileKind::Process ? "; a profile is merged whole or not at all"
                                    : "; a database is read whole or not at all (merge again)");
}

namespace {

// decode() and decode_scanned(): `scan` receives the trees as columns when it is given.
std::string decode_into(const uint8_t* data, size_t size, Profile& out, ScannedProfile* scan) {
  wire::Reader r(data, size);
  std::vector<FlatTreeCheck> checks;
  uint32_t seen = 0;  // bit per known tag, to refuse repeated sections
  uint32_t script = kNoModule;  // the script pseudo-module, once MODULES is read
  while (r.remaining() > 0) {
    size_t at = r.pos();
    if (r.remaining() < layout::kSectionHeaderSize) {
      return strf("truncated section header at payload byte %zu (%zu of %zu bytes)", at,
                  r.remaining(), layout::kSectionHeaderSize);
    }
    uint32_t tag = r.u32();
    r.u32();  // reserved; ignored so that a later minor may use it
    uint64_t length = r.u64();
    if (length > r.remaining()) {
      return strf("truncated in section %s at payload byte %zu: it is %" PRIu64
                  " bytes long but only %zu bytes follow",
                  describe(tag).c_str(), at, length, r.remaining());
    }
    Section s{wire::Reader(data + r.pos(), length), r.pos(), section_name(tag), {}};
    r.skip(length);
    if (s.name == nullptr) continue;  // a section of a later minor version

    uint32_t bit = 1u << tag;
    if (tag != layout::kTagTree && (seen & bit)) {
      return strf("section %s appears twice (again at payload byte %zu)", s.name, at);
    }
    seen |= bit;
    switch (tag) {
      case layout::kTagMeta: read_meta(s, out); break;
      case layout::kTagModules:
        read_modules(s, out);
        script = out.script_module();
        break;
      case layout::kTagSites: read_sites(s, out); break;
      case layout::kTagStatics: read_statics(s, out); break;
      case layout::kTagTree:
        if (scan) checks.push_back(read_flat_tree(s, scan->add_tree(), script));
        else read_tree(s, out);
        break;
      case layout::kTagSymbols:
        if (out.kind != FileKind::Database) {
          return strf("section SYMBOLS at payload byte %zu in a process profile "
                      "(only databases are symbolized)", at);
        }
        read_symbols(s, out);
        break;
      case layout::kTagCallees:
        if (out.kind != FileKind::Database || !(seen & (1u << layout::kTagSymbols))) {
          return strf("section CALLEES at payload byte %zu without SYMBOLS before it", at);
        }
        read_callees(s, out);
        break;
      case layout::kTagOffsets: read_offsets(s, out); break;
      case layout::kTagBalance:
        if (out.kind != FileKind::Database) {
          return strf("section BALANCE at payload byte %zu in a process profile "
                      "(only databases have rank and thread balance)", at);
        }
        read_balance(s, out);
        break;
      case layout::kTagFirstTouch:
        if (out.kind != FileKind::Database) {
          return strf("section FIRST_TOUCH at payload byte %zu in a process profile "
                      "(only databases have per-thread first touches)", at);
        }
        read_first_touch(s, out);
        break;
      case layout::kTagSiteNames:
        if (!(seen & (1u << layout::kTagSites)))
          return strf("section SITE_NAMES at payload byte %zu without SITES before it", at);
        if (std::string err = read_site_names(s, out); !err.empty()) return err;
        break;
      case layout::kTagScriptFrames:
        if (std::string err = read_script_frames(s, out); !err.empty()) return err;
        break;
      case layout::kTagRankValues:
        if (out.kind != FileKind::Database) {
          return strf("section RANK_VALUES at payload byte %zu in a process profile "
                      "(only a merge sums ranks)", at);
        }
        read_rank_values(s, out);
        break;
      case layout::kTagStackNames:
        if (out.kind != FileKind::Database) {
          return strf("section STACK_NAMES at payload byte %zu in a process profile "
                      "(only a merge names stack slots)", at);
        }
        read_stack_names(s, out);
        break;
      case layout::kTagStackThreads:
        if (out.kind != FileKind::Database) {
          return strf("section STACK_THREADS at payload byte %zu in a process profile "
                      "(only a merge sums threads)", at);
        }
        read_stack_threads(s, out);
        break;
    }
    if (std::string err = s.result(); !err.empty()) return err;
  }
  size_t trees = scan ? scan->trees().size() : out.trees.size();
  if (out.kind == FileKind::Database && trees != 1) {
    return strf("a database holds exactly one TREE section, this one has %zu", trees);
  }
  return scan ? validate(out, scan->trees(), checks) : validate(out);
}

}  // namespace

std::string decode(const uint8_t* data, size_t size, Profile& out) {
  return decode_into(data, size, out, nullptr);
}

std::string decode_scanned(const uint8_t* data, size_t size, ScannedProfile& out) {
  return decode_into(data, size, out.profile, &out);
}

}  // namespace hpcl::payload
