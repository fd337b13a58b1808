// Helpers that build synthetic process profiles and databases in code for the analyzer tests:
// a tree path is given as (kind root, variable node, frames outermost -> leaf, samples), the way
// the runtime records one sample.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hpcl/io.h"
#include "hpcl/profile.h"
#include "hpcl/tree.h"

namespace hpcl::testing {

// Adds `samples` at the end of root -> kind_root -> [var] -> frames; returns that node.
inline uint32_t add_sample_path(Tree& tree, NodeKind kind_root, std::optional<std::pair<NodeKind, uint32_t>> var,
                                const std::vector<Frame>& frames, uint64_t samples) {
  TreeBuilder b(tree);
  uint32_t n = b.child(0, kind_root, 0, 0);
  if (var) n = b.child(n, var->first, var->second, 0);
  for (const Frame& f : frames) n = b.child(n, NodeKind::Frame, f.module, f.offset);
  tree.nodes[n].add_metric(kMetricSamples, samples);
  return n;
}

inline void heap_sample(Tree& t, uint32_t site, const std::vector<Frame>& frames, uint64_t n) {
  add_sample_path(t, NodeKind::HeapRoot, std::make_pair(NodeKind::HeapVar, site), frames, n);
}
// Samples in blocks tracked with probability < 1: `extra` and `var` are the metrics 2 and 3.
inline void heap_sample_estimated(Tree& t, uint32_t site, const std::vector<Frame>& frames,
                                  uint64_t n, uint64_t extra, uint64_t var) {
  uint32_t leaf = add_sample_path(t, NodeKind::HeapRoot, std::make_pair(NodeKind::HeapVar, site), frames, n);
  t.nodes[leaf].add_metric(kMetricSamplesEstimated, extra);
  t.nodes[leaf].add_metric(kMetricSamplesEstimatedVar, var);
}
inline void static_sample(Tree& t, uint32_t var, const std::vector<Frame>& frames, uint64_t n) {
  add_sample_path(t, NodeKind::StaticRoot, std::make_pair(NodeKind::StaticVarNode, var), frames, n);
}
inline void unknown_sample(Tree& t, UnknownClass c, const std::vector<Frame>& frames, uint64_t n) {
  add_sample_path(t, NodeKind::UnknownRoot,
                  std::make_pair(NodeKind::UnknownClass, static_cast<uint32_t>(c)), frames, n);
}
// A stack sample the runtime placed: [stack] -> owner -> slot [lo, lo + width) -> frames.
inline uint32_t stack_sample(Tree& t, Frame owner, int64_t lo, uint32_t width, const std::vector<Frame>& frames,
                             uint64_t samples) {
  TreeBuilder b(t);
  uint32_t n = b.child(b.child(0, NodeKind::UnknownRoot, 0, 0), NodeKind::UnknownClass, 0, 0);
  n = b.child(n, NodeKind::StackOwner, owner.module, owner.offset);
  n = b.child(n, NodeKind::StackSlot, width, static_cast<uint64_t>(lo));
  for (const Frame& f : frames) n = b.child(n, NodeKind::Frame, f.module, f.offset);
  t.nodes[n].add_metric(kMetricSamples, samples);
  return n;
}
inline void nodata_sample(Tree& t, const std::vector<Frame>& frames, uint64_t n) {
  add_sample_path(t, NodeKind::NoDataRoot, std::nullopt, frames, n);
}

inline Tree new_tree(uint32_t tid) {
  Tree t;
  t.tid = tid;
  TreeBuilder b(t);  // creates the root
  return t;
}

inline Profile new_process(int rank, const std::string& source = "soft", const std::string& rate = "1000") {
  Profile p;
  p.kind = FileKind::Process;
  p.set_meta("tool", "hpcrun-lite");
  p.set_meta("tool_version", "0.1.0");
  p.set_meta("host", "node1");
  p.set_meta("pid", std::to_string(1000 + rank));
  p.set_meta("rank", std::to_string(rank));
  p.set_meta("exe", "/nonexistent/bin/app");
  p.set_meta("source", source);
  p.set_meta("rate", rate);
  p.set_meta("min_bytes", "4096");
  p.set_meta("small_every", "16");
  return p;
}

// A fresh directory under the test temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) / "hpcl-analyzer-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    const char* made = ::mkdtemp(buf.data());
    EXPECT_NE(made, nullptr);
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void write_or_fail(const Profile& p, const std::string& path) {
  std::string error;
  ASSERT_TRUE(write_profile_file(p, path, &error)) << error;
}

}  // namespace hpcl::testing
