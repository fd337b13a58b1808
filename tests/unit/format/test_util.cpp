// Sample profiles, the canonical dump and the hand byte builder of test_util.h.
#include "test_util.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <initializer_list>

namespace hpcl::test {

uint32_t add(Tree& t, uint32_t parent, NodeKind kind, uint32_t a, uint64_t b,
             std::initializer_list<Metric> metrics) {
  Node n;
  n.parent = parent;
  n.kind = kind;
  n.a = a;
  n.b = b;
  n.metrics = metrics;
  t.nodes.push_back(n);
  return static_cast<uint32_t>(t.nodes.size() - 1);
}

namespace {


Tree root_only(uint32_t tid) {
  Tree t;
  t.tid = tid;
  t.nodes.emplace_back();
  return t;
}

// Every kind of node under one root: heap -> site -> access path, static, unknown, no-data.
Tree full_tree(uint32_t tid, uint64_t scale) {
  Tree t = root_only(tid);
  uint32_t heap = add(t, 0, NodeKind::HeapRoot, 0, 0);
  uint32_t var = add(t, heap, NodeKind::HeapVar, 1, 0);
  uint32_t f = add(t, var, NodeKind::Frame, 0, 0x401000);
  add(t, f, NodeKind::Frame, 1, 0x2233, {{kMetricSamples, 10 * scale}, {kMetricLatency, 900 * scale}});
  add(t, f, NodeKind::Frame, kNoModule, 0xffffffffffffull,
      {{kMetricSamples, 2 * scale}, {kMetricDataSrcBase + 3, scale}});
  uint32_t var0 = add(t, heap, NodeKind::HeapVar, 0, 0);
  add(t, var0, NodeKind::Frame, 0, 0x401010, {{kMetricSamples, 7 * scale}});
  uint32_t stat = add(t, 0, NodeKind::StaticRoot, 0, 0);
  uint32_t sv = add(t, stat, NodeKind::StaticVarNode, 1, 0);
  add(t, sv, NodeKind::Frame, 0, 0x401234, {{kMetricSamples, 3 * scale}, {200, 5}});
  uint32_t unk = add(t, 0, NodeKind::UnknownRoot, 0, 0);
  uint32_t stack = add(t, unk, NodeKind::UnknownClass, static_cast<uint32_t>(UnknownClass::Stack), 0);
  add(t, stack, NodeKind::Frame, 0, 0x401500, {{kMetricSamples, scale}});
  uint32_t other = add(t, unk, NodeKind::UnknownClass, static_cast<uint32_t>(UnknownClass::Other), 0);
  add(t, other, NodeKind::Frame, 1, 0x10, {{kMetricSamples, 4 * scale}});
  uint32_t nodata = add(t, 0, NodeKind::NoDataRoot, 0, 0);
  add(t, nodata, NodeKind::Frame, 0, 0x401600, {{kMetricSamples, 6 * scale}, {65535, 1}});
  return t;
}

void common_tables(Profile& p) {
  p.modules = {
      {"/home/u/app", "0123456789abcdef0123456789abcdef01234567", 0x555555554000},
      {"/usr/lib/x86_64-linux-gnu/libc.so.6", "", 0x7ffff7dd0000},
  };
  AllocSite s0;
  s0.api = AllocApi::Malloc;
  s0.frames = {{0, 0x401100}, {0, 0x401200}};
  s0.allocations = 3;
  s0.bytes = 3 << 20;
  AllocSite s1;
  s1.api = AllocApi::NewArrayAligned;
  s1.flags = kSiteSampled;
  s1.frames = {{1, 0x999}, {kNoModule, 0x7fff0000}, {0, 0x401300}};
  s1.allocations = 1000;
  s1.bytes = 64000;
  AllocSite s2;  // no frames at all: allowed
  s2.api = AllocApi::Mmap;
  s2.allocations = 1;
  s2.bytes = uint64_t{1} << 40;
  p.sites = {s0, s1, s2};
  p.statics = {
      {0, 0x404040, 8000, 0, "_ZN3app5tableE"},
      {1, 0x10, 8, kStaticTls, "errno_tls"},
      {0, 0x403000, 4096, kStaticSection, "[app]"},
      {kNoModule, 0, 0, 0, ""},
  };
}

const char* kind_name(NodeKind k) {
  static const char* names[] = {"Root", "HeapRoot", "StaticRoot", "UnknownRoot", "NoDataRoot",
                                "Frame", "HeapVar", "StaticVar", "UnknownClass"};
  auto i = static_cast<unsigned>(k);
  return i < 9 ? names[i] : "?";
}

}  // namespace

Profile rich_process() {
  Profile p;
  p.kind = FileKind::Process;
  p.meta = {{"tool", "hpcrun-lite"}, {"tool_version", "0.1.0"}, {"pid", "4242"}, {"rank", "-1"},
            {"cmdline", "./app --size 100 \"quoted\" \xc3\xa9t\xc3\xa9"}, {"empty", ""}};
  common_tables(p);
  p.trees.push_back(full_tree(4242, 1));
  p.trees.push_back(full_tree(4243, 100));
  p.trees.push_back(root_only(4244));  // a thread that was never sampled
  OffsetHistogram h;
  h.min = 0;
  h.max = 4095;
  for (uint32_t b = 0; b < kOffsetBins; ++b) h.bins[b] = b * 3;
  p.offsets.push_back(h);
  return p;
}

Profile rich_database() {
  Profile p;
  p.kind = FileKind::Database;
  p.meta = {{"tool", "hpcprof-lite"}, {"processes", "2"}, {"threads", "5"}, {"skipped", ""}};
  common_tables(p);
  p.trees.push_back(full_tree(0, 3));
  p.symbols = {
      {{0, 0x401000}, {{"main", "/src/app.cpp", 12}}},
      {{0, 0x401234}, {{"std::vector<int>::operator[](unsigned long)", "/usr/include/c++/12/bits/stl_vector.h", 1123},
                       {"compute(int)", "/src/app.cpp", 40},
                       {"main", "/src/app.cpp", 55}}},
      {{1, 0x10}, {{"", "", 0}}},
      {{kNoModule, 0xffffffffffffull}, {}},
  };
  return p;
}

Profile small_process() {
  Profile p;
  p.kind = FileKind::Process;
  p.meta = {{"tool", "hpcrun-lite"}, {"pid", "7"}};
  p.modules = {{"/bin/a", "ab", 0x1000}};
  AllocSite s;
  s.api = AllocApi::Calloc;
  s.frames = {{0, 0x10}};
  s.allocations = 2;
  s.bytes = 128;
  p.sites = {s};
  p.statics = {{0, 0x20, 4, 0, "g"}};
  Tree t = root_only(7);
  uint32_t heap = add(t, 0, NodeKind::HeapRoot, 0, 0);
  uint32_t var = add(t, heap, NodeKind::HeapVar, 0, 0);
  add(t, var, NodeKind::Frame, 0, 0x30, {{kMetricSamples, 5}});
  uint32_t st = add(t, 0, NodeKind::StaticRoot, 0, 0);
  uint32_t sv = add(t, st, NodeKind::StaticVarNode, 0, 0);
  add(t, sv, NodeKind::Frame, 0, 0x34, {{kMetricSamples, 1}, {kMetricLatency, 300}});
  p.trees.push_back(t);
  return p;
}

Profile small_process_offsets() {
  Profile p = small_process();
  OffsetHistogram heap;
  heap.index = 0;
  heap.min = 8;
  heap.max = 60;
  heap.bins[2] = 4;
  heap.bins[15] = 1;
  OffsetHistogram st;
  st.owner = OffsetOwner::Static;
  st.min = st.max = 3;
  st.bins[31] = 1;
  p.offsets = {heap, st};
  return p;
}

Profile small_database() {
  Profile p = small_process();
  p.kind = FileKind::Database;
  p.meta = {{"tool", "hpcprof-lite"}, {"processes", "1"}};
  p.trees[0].tid = 0;
  p.symbols = {{{0, 0x30}, {{"f", "a.c", 3}, {"main", "a.c", 9}}}, {{0, 0x34}, {{"g", "", 0}}}};
  return p;
}

Profile small_database_balance() {
  Profile p = small_database();
  p.balance.rank_groups = 2;
  p.balance.thread_groups = 3;
  // Site 0: 2 samples on rank 0, 3 on rank 1 (its thread 0, pid 42); static 0: one sample on
  // rank 0's thread 1; [stack]: 2 samples in a process without a rank (pid 99).
  Spread site_ranks{2, 5, 13, 0, 2, 3, {1, 0, 0}};
  Spread site_threads{2, 5, 13, 0, 2, 3, {1, 42, 0}};
  Spread static_ranks{1, 1, 1, 0, 1, 1, {0, 0, 0}};
  Spread static_threads{1, 1, 1, 0, 1, 1, {0, 41, 1}};
  Spread stack{1, 2, 4, 0, 2, 2, {-1, 99, 0}};
  p.balance.variables = {{BalanceOwner::Site, 0, site_ranks, site_threads},
                         {BalanceOwner::Static, 0, static_ranks, static_threads},
                         {BalanceOwner::Unknown, 0, stack, stack}};
  return p;
}

Profile small_database_first_touch() {
  Profile p = small_database_balance();
  // Site 0: 6 page faults, all on thread 0 of pid 42 (rank 1), node 1; static 0: 3 and 1 on
  // two threads.
  p.trees[0].nodes.back().add_metric(kMetricPageFaults, 6);
  p.trees[0].nodes.back().add_metric(kMetricFirstTouchNodeBase + 1, 6);
  p.balance.first_touch = {{BalanceOwner::Site, 0, Spread{1, 6, 36, 0, 6, 6, {1, 42, 0}}},
                           {BalanceOwner::Static, 0, Spread{2, 4, 10, 0, 1, 3, {0, 41, 1}}}};
  return p;
}

Profile small_database_ranks() {
  Profile p = small_database();
  // The heap access (node 3, 5 samples): 2 on rank 0, 3 on rank 1; the static one (node 6, one
  // sample, 300 cycles): rank 0 alone.
  p.rank_values = {{3, 0, kMetricSamples, 2}, {3, 1, kMetricSamples, 3},
                   {6, 0, kMetricSamples, 1}, {6, 0, kMetricLatency, 300}};
  return p;
}

Profile python_process() {
  Profile p = small_process();
  p.modules.push_back({kScriptModulePath, "", 0});
  // Entry 3 repeats entry 1, as a merge may leave it.
  p.script_frames = {{"/app/train.py", "Model.forward", 42},
                     {"/app/train.py", "main", 7},
                     {"<frozen runpy>", "_run_code", 0},
                     {"/app/train.py", "main", 7}};
  // A buffer allocated by native code (0x18) called from Python: innermost first.
  AllocSite s;
  s.api = AllocApi::Malloc;
  s.frames = {{0, 0x18}, {1, 0}, {1, 1}, {1, 2}};
  s.allocations = 1;
  s.bytes = 1 << 20;
  p.sites.push_back(s);
  // Its access path, outermost first: main, then Model.forward, then the native leaf.
  Tree& t = p.trees[0];
  uint32_t var = add(t, 1, NodeKind::HeapVar, 1, 0);
  uint32_t main = add(t, var, NodeKind::Frame, 1, 3);
  uint32_t forward = add(t, main, NodeKind::Frame, 1, 0);
  add(t, forward, NodeKind::Frame, 0, 0x40, {{kMetricSamples, 9}});
  return p;
}

Profile python_database() {
  Profile p = python_process();
  p.kind = FileKind::Database;
  p.meta = {{"tool", "hpcprof-lite"}, {"processes", "1"}};
  p.trees[0].tid = 0;
  p.symbols = {{{0, 0x30}, {{"f", "a.c", 3}}},
               {{0, 0x34}, {{"g", "", 0}}},
               {{0, 0x40}, {{"add", "ufunc.c", 80}}},
               {{1, 0}, {{"Model.forward", "/app/train.py", 42}}},
               {{1, 3}, {{"main", "/app/train.py", 7}}, {"Model.forward", "/app/train.py", 42}}};
  return p;
}

void write_pieces(ProfileWriter& w, const Profile& p, bool script_frames_first) {
  if (script_frames_first) w.script_frames(p.script_frames);
  w.meta(p.meta);
  w.modules(p.modules);
  uint64_t frames = 0;
  for (const AllocSite& s : p.sites) frames += s.frames.size();
  w.begin_sites(static_cast<uint32_t>(p.sites.size()), frames);
  for (const AllocSite& s : p.sites) w.site(s);
  w.statics(p.statics);
  for (const Tree& t : p.trees) w.tree(t);
  w.offsets(p.offsets);
  if (!script_frames_first) w.script_frames(p.script_frames);
}

uint16_t minor_of(const std::vector<uint8_t>& file) { return uint16_t(file[10] | file[11] << 8); }

std::vector<uint8_t> with_last_section(const Profile& p, uint16_t minor, uint32_t tag,
                                       const std::vector<uint8_t>& body) {
  Bytes payload;
  payload.raw(payload_of(encode_profile(p, 0)));
  payload.section(tag, body);
  return file_with({1, minor, static_cast<uint32_t>(p.kind), 0}, payload.v);
}

std::string dump(const Profile& p) {
  std::string s;
  char buf[512];
  auto line = [&](const char* fmt, auto... args) {
    std::snprintf(buf, sizeof buf, fmt, args...);
    s += buf;
    s += '\n';
  };
  line("kind %u", static_cast<unsigned>(p.kind));
  for (const auto& [k, v] : p.meta) s += "meta [" + k + "] = [" + v + "]\n";
  for (const Module& m : p.modules) {
    s += "module [" + m.path + "] [" + m.build_id + "]";
    line(" bias %" PRIx64, m.load_bias);
  }
  for (const AllocSite& site : p.sites) {
    line("site api %u flags %u allocs %" PRIu64 " bytes %" PRIu64, static_cast<unsigned>(site.api),
         site.flags, site.allocations, site.bytes);
    if (!site.name.empty()) line("  name %s", site.name.c_str());
    for (const Frame& f : site.frames) line("  frame %u:%" PRIx64, f.module, f.offset);
  }
  for (const StaticVar& v : p.statics) {
    line("static %u:%" PRIx64 " size %" PRIu64 " flags %u", v.module, v.offset, v.size, v.flags);
    s += "  name [" + v.name + "]\n";
  }
  for (const Tree& t : p.trees) {
    line("tree tid %u nodes %zu", t.tid, t.nodes.size());
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      const Node& n = t.nodes[i];
      line("  %zu parent %d %s a %u b %" PRIx64, i, static_cast<int>(n.parent), kind_name(n.kind), n.a, n.b);
      for (const Metric& m : n.metrics) line("    metric %u = %" PRIu64, m.id, m.value);
    }
  }
  for (const Symbolized& sym : p.symbols) {
    line("symbol %u:%" PRIx64, sym.frame.module, sym.frame.offset);
    for (const SourceLoc& l : sym.locs) s += "  [" + l.function + "] [" + l.file + "]:" + std::to_string(l.line) + "\n";
    if (!sym.callee.function.empty())
      s += "  calls [" + sym.callee.function + "] [" + sym.callee.file + "]:" + std::to_string(sym.callee.line) + "\n";
  }
  for (const OffsetHistogram& h : p.offsets) {
    line("offsets owner %u index %u min %" PRIu64 " max %" PRIu64, static_cast<unsigned>(h.owner),
         h.index, h.min, h.max);
    s += " ";
    for (uint64_t b : h.bins) s += " " + std::to_string(b);
    s += "\n";
  }
  if (p.balance.present() || !p.balance.variables.empty())
    line("balance ranks %" PRIu64 " threads %" PRIu64, p.balance.rank_groups, p.balance.thread_groups);
  for (const VariableBalance& v : p.balance.variables) {
    line("  owner %u index %u", static_cast<unsigned>(v.owner), v.index);
    for (const Spread* sp : {&v.ranks, &v.threads})
      line("    groups %" PRIu64 " sum %" PRIu64 " sumsq %" PRIu64 ":%" PRIu64 " min %" PRIu64
           " max %" PRIu64 " at %" PRId64 "/%" PRIu64 "/%u",
           sp->groups, sp->sum, sp->sumsq_hi, sp->sumsq_lo, sp->min, sp->max, sp->max_group.rank,
           sp->max_group.pid, sp->max_group.thread);
  }
  for (const ScriptFrame& f : p.script_frames)
    s += "script [" + f.function + "] [" + f.file + "]:" + std::to_string(f.line) + "\n";
  for (const RankValue& v : p.rank_values)
    line("rank value node %u rank %" PRId64 " metric %u = %" PRIu64, v.node, v.rank, v.metric, v.value);
  for (const StackThreadValue& v : p.stack_threads)
    line("stack thread node %u group %" PRId64 "/%" PRIu64 "/%u = %" PRIu64, v.node, v.thread.rank,
         v.thread.pid, v.thread.thread, v.samples);
  return s;
}

namespace {

// The merge's reader (hpcl/scan.h) must agree with read_profile_bytes on every input a test
// reads: the same profile, or the same error, except that children with the same key are left
// to its caller (who finds them as find_duplicate_children() names them). One scanner serves
// every call, so its buffers come from other, often larger, files.
void expect_scanner_agrees(const std::vector<uint8_t>& bytes, const std::string& name,
                           const ReadResult& r) {
  static ProfileScanner scanner;
  static ScannedProfile scanned;
  std::string error = scanner.read_bytes(bytes.data(), bytes.size(), name, scanned);
  const bool duplicates = !r.ok && r.error.find("with the same kind and payload") != std::string::npos;
  if (!r.ok && !duplicates) {
    EXPECT_EQ(error, r.error) << "the scanner and the reader disagree";
    return;
  }
  if (duplicates && !error.empty()) {
    // The reader stopped at the duplicates; the scanner went on to a later check that failed.
    EXPECT_EQ(error.rfind(name + ": ", 0), 0u) << error;
    return;
  }
  ASSERT_EQ(error, "") << "the scanner refused what the reader accepted";
  Profile rebuilt = scanned.profile;
  std::string found;
  for (size_t t = 0; t < scanned.trees().size(); ++t) {
    rebuilt.trees.push_back(unflatten(scanned.trees()[t]));
    if (found.empty()) found = find_duplicate_children(scanned.trees()[t], t);
  }
  if (duplicates) {
    EXPECT_EQ(name + ": " + found, r.error);
  } else {
    EXPECT_EQ(found, "");
    EXPECT_EQ(dump(rebuilt), dump(r.profile)) << "the scanner read another profile";
  }
}

}  // namespace

ReadResult read(const std::vector<uint8_t>& bytes, const std::string& name) {
  ReadResult r = read_profile_bytes(bytes.data(), bytes.size(), name);
  expect_scanner_agrees(bytes, name, r);
  return r;
}

Bytes& Bytes::u8(uint8_t x) {
  v.push_back(x);
  return *this;
}
Bytes& Bytes::u16(uint16_t x) {
  for (int i = 0; i < 2; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  return *this;
}
Bytes& Bytes::u32(uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  return *this;
}
Bytes& Bytes::u64(uint64_t x) {
  for (int i = 0; i < 8; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  return *this;
}
Bytes& Bytes::str(std::string_view s) {
  u32(static_cast<uint32_t>(s.size()));
  v.insert(v.end(), s.begin(), s.end());
  return *this;
}
Bytes& Bytes::raw(const std::vector<uint8_t>& b) {
  v.insert(v.end(), b.begin(), b.end());
  return *this;
}
Bytes& Bytes::section(uint32_t tag, const std::vector<uint8_t>& body) {
  return u32(tag).u32(0).u64(body.size()).raw(body);
}

std::vector<uint8_t> file_with(const Header& h, const std::vector<uint8_t>& payload) {
  Bytes b;
  b.v = {0x48, 0x50, 0x43, 0x4c, 0x49, 0x54, 0x45, 0x1a};
  b.u16(h.major).u16(h.minor).u32(h.kind).u64(payload.size()).u32(h.flags).u32(0).raw(payload);
  return b.v;
}

std::vector<uint8_t> payload_of(const std::vector<uint8_t>& file) {
  return std::vector<uint8_t>(file.begin() + 32, file.end());
}

std::vector<RawSection> split_sections(const std::vector<uint8_t>& payload) {
  auto le = [&](size_t at, int n) {
    uint64_t x = 0;
    for (int i = n - 1; i >= 0; --i) x = x << 8 | payload[at + i];
    return x;
  };
  std::vector<RawSection> out;
  size_t at = 0;
  while (at + 16 <= payload.size()) {
    auto tag = static_cast<uint32_t>(le(at, 4));
    size_t len = le(at + 8, 8);
    out.push_back({tag, at, std::vector<uint8_t>(payload.begin() + at + 16, payload.begin() + at + 16 + len)});
    at += 16 + len;
  }
  return out;
}

}  // namespace hpcl::test
