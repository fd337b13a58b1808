// Writes this process's profile at exit: the runtime's raw tables (addresses, site ids,
// module/symbol indices) are translated into the format's records and written by the format
// library, so the analyzer's reader is the one that checks what we wrote. The large tables
// (sites, trees) are streamed: the write costs one tree and zstd's window of memory.
// Runs once, under the runtime guard, after sampling stopped; it may allocate.
#include "writer/writer.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "hpcl/io.h"
#include "base/clock.h"
#include "hpcl/profile.h"
#include "hpcl/tree.h"
#include "base/log.h"
#include "loader/modules.h"
#include "memory/offset_hist.h"
#include "options.h"
#include "process/mpi_rank.h"
#include "base/real_fns.h"
#include "process_env.h"
#include "process/runtime.h"
#include "process/source_table.h"
#include "process/thread_state.h"
#include "python/py_probe.h"
#include "python/script_frames.h"

namespace hpcrun {

namespace {

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string exe_name_of(const std::string& exe_path) {
  return basename_of(exe_path.empty() ? "program" : exe_path);
}

// Runs `write` with SIGXFSZ held back in this thread. A write beyond RLIMIT_FSIZE raises
// SIGXFSZ, whose default action ends the process (and the runtime's ending handler would end it
// the same way): a profile too large for the user's file-size limit must fail the write (EFBIG)
// and nothing else. The signal our own write raised is taken from the pending set before the
// mask is restored; one the program had pending before stays pending.
template <typename Write>
bool without_sigxfsz(Write&& write) {
  sigset_t xfsz, saved, pending;
  sigemptyset(&xfsz);
  sigaddset(&xfsz, SIGXFSZ);
  real.pthread_sigmask(SIG_BLOCK, &xfsz, &saved);
  sigemptyset(&pending);
  sigpending(&pending);
  bool was_pending = sigismember(&pending, SIGXFSZ) == 1;
  bool ok = write();
  if (!was_pending) {
    timespec zero{0, 0};
    while (sigtimedwait(&xfsz, nullptr, &zero) == SIGXFSZ) {
    }
  }
  real.pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  return ok;
}

// Translates the runtime's tables into the format's records and hands them to the file writer
// one at a time: a site, then one thread's tree, each dropped once written. A process that
// allocated from hundreds of thousands of call paths (a CP2K rank: 260,000 sites, a 79 MB
// payload) would otherwise hold its profile a second time at exit, in the format's model and
// then as bytes. Only the small tables (modules, statics, offset histograms) are built whole.
class ProfileStreamer {
 public:
  // The code segments of every module, sorted, for a binary search per frame: a process with
  // tens of thousands of call paths (an MPI library's start-up allocations) and a hundred
  // modules would otherwise spend most of the write in modules_find_code's linear scan, and a
  // profile written on SIGTERM must be written before the launcher's SIGKILL.
  // `script_module`: the index of the [python] pseudo-module in MODULES (kNoModule without one).
  ProfileStreamer(std::vector<const ThreadState*> threads, uint32_t script_module)
      : threads_(std::move(threads)), nsites_(g_sites.size()), script_module_(script_module),
        nscript_(script_module == hpcl::kNoModule ? 0 : g_script_frames.size()) {
    for (uint32_t i = 0; i < modules_count(); ++i) {
      const ModuleEntry* m = module_get(i);
      for (uint32_t s = 0; s < m->nsegs; ++s) segments_.push_back({m->seg_lo[s], m->seg_hi[s], i});
    }
    std::sort(segments_.begin(), segments_.end(),
              [](const Segment& a, const Segment& b) { return a.lo < b.lo; });
    // One size per tree for both walks: a thread that is still running may add nodes meanwhile.
    for (const ThreadState* t : threads_) sizes_.push_back(t->cct.size());
    index_statics();
  }

  std::vector<hpcl::StaticVar> statics;
  std::vector<hpcl::OffsetHistogram> offsets;

  void write(hpcl::ProfileWriter& w, const hpcl::Profile& head) {
    w.meta(head.meta);
    w.modules(head.modules);
    write_sites(w);
    w.statics(statics);
    for (size_t i = 0; i < threads_.size(); ++i) {
      hpcl::Tree tree = build_tree(i);
      if (i == 0) add_source_metrics(tree);
      w.tree(tree);
    }
    w.offsets(offsets);
    write_script_frames(w);
  }

 private:
  // Call paths share most of their frames (the same wrappers, the same main loop), so a
  // direct-mapped cache of translated addresses spares most of the binary searches: an MPI
  // rank's 20,000 start-up sites have 400,000 frames.
  hpcl::Frame frame(uint64_t addr) {
    // A Python frame (python/py_paths.h): an entry of SCRIPT_FRAMES. One interned after the
    // table was counted for this file has no entry: the frame is left unknown.
    if (is_script_frame_address(addr)) {
      uint32_t id = script_frame_id(addr);
      return id < nscript_ ? hpcl::Frame{script_module_, id} : hpcl::Frame{hpcl::kNoModule, 0};
    }
    FrameSlot& slot = frame_cache_[(addr ^ (addr >> 12)) % kFrameCache];
    if (slot.addr == addr) return slot.frame;
    auto it = std::upper_bound(segments_.begin(), segments_.end(), addr,
                               [](uint64_t a, const Segment& s) { return a < s.lo; });
    hpcl::Frame f{hpcl::kNoModule, addr};
    if (it != segments_.begin() && addr < (it - 1)->hi) {
      uint32_t m = (it - 1)->module;
      f = hpcl::Frame{m, addr - module_get(m)->bias};
    }
    slot = FrameSlot{addr, f};
    return f;
  }

  uint32_t static_index(uint32_t module, int64_t symbol) {
    auto key = std::make_pair(module, symbol);
    auto it = statics_index_.find(key);
    if (it != statics_index_.end()) return it->second;
    hpcl::StaticVar v;
    v.module = module;
    const ModuleEntry* m = module_get(module);
    if (symbol < 0 || !m || uint64_t(symbol) >= m->symbols.count) {
      v.flags = hpcl::kStaticSection;
      v.name = "[" + basename_of(m ? m->path : "?") + " data]";
      if (m) v.size = m->hi - m->lo;
    } else {
      const DataSymbol& s = m->symbols.syms[symbol];
      v.offset = s.value;
      v.size = s.size;
      v.flags = s.is_tls ? hpcl::kStaticTls : 0;
      // Read from the module's file (elf_symbols.h); a file gone since names the place.
      char name[1024];
      if (read_symbol_name(m->path, m->symbols, s, name, sizeof name) && name[0]) {
        v.name = name;
      } else {
        snprintf(name, sizeof name, "%s+0x%llx", basename_of(m->path).c_str(), (unsigned long long)s.value);
        v.name = name;
      }
    }
    uint32_t idx = uint32_t(statics.size());
    statics.push_back(std::move(v));
    statics_index_.emplace(key, idx);
    return idx;
  }

  // STATICS precedes the trees, so every static a tree, a histogram or a source's own metrics
  // (the watches) name gets its index first, in the order the trees, the histograms and the
  // sources name them.
  void index_statics() {
    for (size_t i = 0; i < threads_.size(); ++i) {
      const Cct& c = threads_[i]->cct;
      for (uint32_t n = 1; n < sizes_[i]; ++n) {
        const RtNode* node = c.at(n);
        if (hpcl::NodeKind(node->kind) == hpcl::NodeKind::StaticVarNode)
          static_index(uint32_t(node->a), int64_t(node->b));
      }
    }
    add_offsets();
    sources_variable_metrics(
        [](const VariableMetrics& v, void* self) {
          if (v.root == kCctStaticRoot)
            static_cast<ProfileStreamer*>(self)->static_index(v.a, int64_t(v.b));
        },
        this);
  }

  // A site's frames as written: none if the record claims more than a path can have (the count
  // announced ahead and the frames written must agree, or the whole file is refused).
  static uint32_t frames_of(const SiteRecord& r) {
    return r.nframes <= uint32_t(kMaxAllocFrames) ? r.nframes : 0;
  }

  void write_sites(hpcl::ProfileWriter& w) {
    uint64_t frames = 0;
    for (uint32_t id = 0; id < nsites_; ++id)
      if (const SiteRecord* r = g_sites.get(id)) frames += frames_of(*r);
    w.begin_sites(nsites_, frames);
    hpcl::AllocSite s;  // one record, its frames' storage reused from site to site
    for (uint32_t id = 0; id < nsites_; ++id) {
      const SiteRecord* r = g_sites.get(id);
      s.frames.clear();
      s.name.clear();
      if (!r) {
        s.api = hpcl::AllocApi::Malloc;
        s.flags = 0;
        s.allocations = s.bytes = 0;
        w.site(s);
        continue;
      }
      s.api = hpcl::AllocApi(r->api);
      s.flags = r->flags;
      s.allocations = r->allocations.load(std::memory_order_relaxed);
      s.bytes = r->bytes.load(std::memory_order_relaxed);
      uint64_t raw[kMaxAllocFrames];
      const uint32_t n = frames_of(*r);
      if (n) unpack_frames(*r, raw);
      for (uint32_t k = 0; k < n; ++k) s.frames.push_back(frame(raw[k]));
      if (r->name_len) s.name.assign(r->name, r->name_len);
      w.site(s);
    }
  }

  hpcl::Tree build_tree(size_t thread) {
    const ThreadState* ts = threads_[thread];
    hpcl::Tree tree;
    tree.tid = uint32_t(ts->tid);
    hpcl::TreeBuilder b(tree);
    const Cct& c = ts->cct;
    const uint32_t n_nodes = sizes_[thread];
    std::vector<uint32_t> map(n_nodes, 0);
    for (uint32_t i = 1; i < n_nodes; ++i) {
      const RtNode* n = c.at(i);
      auto kind = hpcl::NodeKind(n->kind);
      uint32_t a = 0;
      uint64_t bb = 0;
      switch (kind) {
        case hpcl::NodeKind::Frame:
        case hpcl::NodeKind::StackOwner: {
          hpcl::Frame f = frame(n->b);
          a = f.module;
          bb = f.offset;
          break;
        }
        case hpcl::NodeKind::StackSlot:
          a = uint32_t(n->a);
          bb = n->b;
          break;
        case hpcl::NodeKind::HeapVar: a = uint32_t(n->a); break;
        case hpcl::NodeKind::StaticVarNode: a = static_index(uint32_t(n->a), int64_t(n->b)); break;
        case hpcl::NodeKind::UnknownClass: a = uint32_t(n->a); break;
        default: break;
      }
      map[i] = b.child(map[n->parent], kind, a, bb);
      if (n->samples) tree.nodes[map[i]].add_metric(hpcl::kMetricSamples, n->samples);
      if (n->estimated_extra)
        tree.nodes[map[i]].add_metric(hpcl::kMetricSamplesEstimated, n->estimated_extra);
      if (n->estimated_var)
        tree.nodes[map[i]].add_metric(hpcl::kMetricSamplesEstimatedVar, n->estimated_var);
      if (n->page_faults) tree.nodes[map[i]].add_metric(hpcl::kMetricPageFaults, n->page_faults);
      if (const MemCounts* m = c.mem_at(i)) {
        hpcl::Metric ms[kMaxMemMetrics];
        const int k = mem_counts_metrics(*m, ms);
        for (int j = 0; j < k; ++j) tree.nodes[map[i]].add_metric(ms[j].id, ms[j].value);
      }
    }
    return tree;
  }

  void write_script_frames(hpcl::ProfileWriter& w) {
    if (nscript_ == 0) return;
    std::vector<hpcl::ScriptFrame> frames(nscript_);
    for (uint32_t i = 0; i < nscript_; ++i) {
      const ScriptFrameEntry* e = g_script_frames.get(i);
      // An id claimed by an intern that did not finish (its text did not fit, or the thread was
      // stopped inside it) is in no path; it still holds its place in the list.
      if (!e) {
        frames[i].function = "[unknown]";
        continue;
      }
      frames[i].file.assign(e->file, e->file_len);
      frames[i].function.assign(e->function, e->function_len);
      frames[i].line = e->line;
    }
    w.script_frames(frames);
  }

  // The histograms of where samples fell inside each variable (OFFSETS section).
  void add_offsets() {
    offsets_for_each(
        [](const OffsetRecord& r, void* self) {
          auto* ps = static_cast<ProfileStreamer*>(self);
          hpcl::OffsetHistogram h;
          if (r.is_static) {
            h.owner = hpcl::OffsetOwner::Static;
            h.index = ps->static_index(r.module, r.symbol);
          } else {
            if (r.site >= ps->nsites_) return;
            h.index = r.site;
          }
          h.min = r.min;
          h.max = r.max;
          h.bins.assign(r.bins, r.bins + kOffsetBinCount);
          ps->offsets.push_back(std::move(h));
        },
        this);
  }

  // The sources' own metrics of variables (source_table.h: the watchpoint analyses' counts) on
  // each variable's node in the first tree: they are the process's, not one thread's, and merges
  // sum them.
  void add_source_metrics(hpcl::Tree& first) {
    struct Ctx {
      ProfileStreamer* ps;
      hpcl::TreeBuilder b;
    } ctx{this, hpcl::TreeBuilder(first)};
    sources_variable_metrics(
        [](const VariableMetrics& v, void* p) {
          auto* c = static_cast<Ctx*>(p);
          uint32_t a = v.a;
          hpcl::NodeKind root, kind;
          if (v.root == kCctHeapRoot) {
            if (a >= c->ps->nsites_) return;
            root = hpcl::NodeKind::HeapRoot, kind = hpcl::NodeKind::HeapVar;
          } else if (v.root == kCctStaticRoot) {
            root = hpcl::NodeKind::StaticRoot, kind = hpcl::NodeKind::StaticVarNode;
            a = c->ps->static_index(v.a, int64_t(v.b));
          } else {
            root = hpcl::NodeKind::UnknownRoot, kind = hpcl::NodeKind::UnknownClass;
          }
          const uint32_t var = c->b.child(c->b.child(0, root, 0, 0), kind, a, 0);
          for (int j = 0; j < v.n; ++j)
            c->b.tree().nodes[var].add_metric(v.metrics[j].id, v.metrics[j].value);
        },
        &ctx);
  }

  struct Segment {
    uint64_t lo, hi;
    uint32_t module;
  };
  struct FrameSlot {
    uint64_t addr = ~uint64_t{0};  // no code address: an empty slot
    hpcl::Frame frame;
  };
  static constexpr size_t kFrameCache = 4096;
  std::vector<FrameSlot> frame_cache_ = std::vector<FrameSlot>(kFrameCache);
  std::vector<const ThreadState*> threads_;
  std::vector<uint32_t> sizes_;
  const uint32_t nsites_;  // the sites of the snapshot: a running thread may add more
  const uint32_t script_module_;  // the [python] pseudo-module, or kNoModule
  const uint32_t nscript_;        // the script frames of the snapshot
  std::vector<Segment> segments_;
  std::map<std::pair<uint32_t, int64_t>, uint32_t> statics_index_;
};

}  // namespace

bool write_process_profile(const char* tag, char* written, size_t n) {
  const uint64_t began_ns = monotonic_ns();
  // META and MODULES; the rest is streamed from the runtime's tables (ProfileStreamer).
  hpcl::Profile p;
  p.kind = hpcl::FileKind::Process;

  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  int rank = process_rank();
  const ModuleEntry* exe = module_get(0);
  std::string exe_path = exe ? exe->path : "";

  std::vector<const ThreadState*> threads;
  uint64_t samples = 0, dropped = 0, nested = 0, busy = 0, nodata = 0, unresolved = 0, overruns = 0;
  for (ThreadState* t = threads_head(); t; t = t->next) {
    if (t->stale) continue;
    threads.push_back(t);
    samples += t->samples;
    dropped += t->dropped;
    nested += t->nested;
    overruns += t->overruns;
    busy += t->busy;
    nodata += t->nodata;
    unresolved += t->unresolved;
  }
  std::sort(threads.begin(), threads.end(),
            [](const ThreadState* a, const ThreadState* b) { return a->index < b->index; });

  p.set_meta("tool", "hpcrun-lite");
  p.set_meta("tool_version", HPCL_VERSION);
  p.set_meta("host", host);
  p.set_meta("pid", std::to_string(getpid()));
  if (g_config.run_id[0]) p.set_meta("run_id", g_config.run_id);
  p.set_meta("rank", std::to_string(rank));
  p.set_meta("exe", exe_path);
  p.set_meta("cmdline", g_config.cmdline);
  p.set_meta("source", g_config.source);
  if (g_config.sampling && g_config.source_requested)
    p.set_meta("source_requested", g_config.source_requested);
  if (g_config.source_fallback[0]) p.set_meta("source_fallback", g_config.source_fallback);
  p.set_meta("rate", std::to_string(g_config.rate));
  p.set_meta("min_bytes", std::to_string(g_config.min_bytes));
  char every[32];
  p.set_meta("small_every", small_every_text(g_config.small_every, every, sizeof every));
  p.set_meta("track_budget", std::to_string(g_config.track.budget));
  p.set_meta("start_ns", std::to_string(g_config.start_ns));
  p.set_meta("end_ns", std::to_string(wall_ns()));
  p.set_meta("threads", std::to_string(threads_count()));
  p.set_meta("samples_total", std::to_string(samples));
  // Only a full tree drops a sample; one that interrupted the runtime is kept as code time.
  p.set_meta("samples_dropped", std::to_string(dropped + nested));
  p.set_meta("samples_in_runtime", std::to_string(busy));
  // What the recorded ones lacked (the report explains each).
  p.set_meta("samples_dropped_full", std::to_string(dropped));
  // A soft sample that interrupted a PAPI overflow handler on the same thread (papi_source.h).
  if (g_config.npapi) p.set_meta("samples_dropped_nested", std::to_string(nested));
  // Overflows during a slower handler: the handler's own time, not the program's (sampler.cpp).
  p.set_meta("samples_overruns", std::to_string(overruns));
  // Blocks left untracked because the site table or the address map was full.
  p.set_meta("allocs_lost", std::to_string(g_allocs_lost.load(std::memory_order_relaxed)));
  p.set_meta("samples_no_data", std::to_string(nodata));
  p.set_meta("samples_unresolved", std::to_string(unresolved));
  p.set_meta("offsets_lost", std::to_string(offsets_lost()));
  // Each source's settings and the counts that account for its records (source_table.h): the
  // soft timer's signal and overflows, the NUMA placement's counts, ...
  sources_write_meta(p);

  for (uint32_t i = 0; i < modules_count(); ++i) {
    const ModuleEntry* m = module_get(i);
    p.modules.push_back(hpcl::Module{m->path, m->symbols.build_id, m->bias});
  }
  uint32_t script_module = hpcl::kNoModule;
  if (g_script_frames.size()) {
    script_module = uint32_t(p.modules.size());
    p.modules.push_back(hpcl::Module{hpcl::kScriptModulePath, "", 0});
  }
  if (python_target()) p.set_meta("python_version", python_version_text());

  std::string dir = g_config.out_dir;
  const OutputModes modes = output_modes();
  if (!make_dirs(dir, modes.dir)) {
    log_warn("cannot create the measurement directory %s: %s; no profile written", dir.c_str(),
             strerror(errno));
    return false;
  }
  // Every part of the name is one path component: the profile lands in `dir` and nowhere else.
  std::string path = dir + "/" + profile_file_name(exe_name_of(exe_path), host, rank, getpid(), tag);
  std::string err;
  const size_t nthreads = threads.size();
  ProfileStreamer streamer(std::move(threads), script_module);
  bool ok = without_sigxfsz([&] {
    // zstd level 1: its tables are 64 KiB where level 3's are 768 KiB, every page of which the
    // ending process would fault in to zero (255 of a LAMMPS start-up's added page faults), for
    // files 5% larger (bench/kernel_entries.sh).
    hpcl::ProfileWriter w(hpcl::FileKind::Process, 1);
    if (!w.open(path, modes.file, &err)) return false;
    streamer.write(w, p);
    return w.commit(&err);
  });
  if (!ok) {
    log_warn("cannot write the profile: %s; the program's run is not affected", err.c_str());
    return false;
  }
  if (written && n) snprintf(written, n, "%s", path.c_str());
  // Only with -v: the address map's footprint reads its 6,144 chunk pointers (0.5 ms of every
  // process's exit when computed for nothing).
  if (g_verbose)
    log_info("wrote %s in %.1f ms: %u threads in %zu trees, %llu samples (%llu dropped, %llu in the "
             "runtime), %u heap variables, %zu static variables; address map %zu blocks, %zu KiB; %d "
             "arena heaps",
             path.c_str(), double(monotonic_ns() - began_ns) / 1e6, threads_count(), nthreads,
             (unsigned long long)samples, (unsigned long long)dropped, (unsigned long long)busy,
             g_sites.size(), streamer.statics.size(), g_heap.size(), g_heap.footprint() / 1024,
             g_heap_extent.arena_heaps());
  if (g_verbose) {
    // What the tracking controller did (track_control.h): how many small blocks it tracked of
    // the estimated number the threads allocated, and what it priced one at; and how often each
    // thread's cache of its recent sites answered (alloc_sites.h), summed over all threads.
    uint64_t hits = 0;
    for (const ThreadState* t = threads_head(); t; t = t->next) {
      hits += t->site_cache.hits;
      if (!t->stale && t->track.seen)
        log_info("thread %u: tracked %llu of ~%llu small blocks, now one in %u, %llu ns each; "
                 "%llu died young (%u%% of late)",
                 t->index, (unsigned long long)t->track.tracked, (unsigned long long)t->track.seen,
                 t->track.k, (unsigned long long)t->track.cost_ns,
                 (unsigned long long)t->track.died_young,
                 unsigned(uint64_t(t->track.young) * 100 / TrackControl::kYoungOne));
    }
    log_info("sites: %u; %llu tracked blocks found theirs in their thread's cache", g_sites.size(),
             (unsigned long long)hits);
  }
  return true;
}

}  // namespace hpcrun
