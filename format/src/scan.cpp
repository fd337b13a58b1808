// Reading profiles into reused buffers with their trees as columns (see hpcl/scan.h).
#include "hpcl/scan.h"

#include <algorithm>

#include "container.h"
#include "payload.h"

namespace hpcl {

void FlatTree::resize(size_t n, size_t m) {
  if (parent.size() < n) {
    // Grown to the largest tree seen, never shrunk: the next file's tree reuses the room.
    parent.resize(n);
    kind.resize(n);
    a.resize(n);
    b.resize(n);
    metric_end.resize(n);
  }
  if (metrics.size() < m) metrics.resize(m);
  nodes_ = n;
}

void flatten(const Tree& tree, FlatTree& out) {
  size_t m = 0;
  for (const Node& n : tree.nodes) m += n.metrics.size();
  out.tid = tree.tid;
  out.resize(tree.nodes.size(), m);
  size_t k = 0;
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    const Node& n = tree.nodes[i];
    out.parent[i] = n.parent;
    out.kind[i] = n.kind;
    out.a[i] = n.a;
    out.b[i] = n.b;
    for (const Metric& metric : n.metrics) out.metrics[k++] = metric;
    out.metric_end[i] = static_cast<uint32_t>(k);
  }
}

Tree unflatten(const FlatTree& tree) {
  Tree t;
  t.tid = tree.tid;
  t.nodes.resize(tree.size());
  for (size_t i = 0; i < tree.size(); ++i) {
    Node& n = t.nodes[i];
    n.parent = tree.parent[i];
    n.kind = tree.kind[i];
    n.a = tree.a[i];
    n.b = tree.b[i];
    std::span<const Metric> metrics = tree.metrics_of(i);
    n.metrics.assign(metrics.begin(), metrics.end());
  }
  return t;
}

FlatTree& ScannedProfile::add_tree() {
  if (ntrees_ == trees_.size()) trees_.emplace_back();
  FlatTree& t = trees_[ntrees_++];
  t.clear();
  return t;
}

void ScannedProfile::clear() {
  Profile empty;
  std::swap(profile, empty);
  ntrees_ = 0;
}

struct ProfileScanner::Buffers {
  container::Buffer file;
  container::Inflater inflater;
};

ProfileScanner::ProfileScanner() : buffers_(std::make_unique<Buffers>()) {}
ProfileScanner::~ProfileScanner() = default;

std::string ProfileScanner::read_bytes(const uint8_t* data, size_t size, const std::string& name,
                                       ScannedProfile& out) {
  out.clear();
  container::Payload payload;
  if (std::string err = container::open(data, size, buffers_->inflater, &payload); !err.empty())
    return name + ": " + err;
  out.profile.kind = payload.kind;
  if (std::string err = payload::decode_scanned(payload.data, payload.size, out); !err.empty())
    return name + ": " + err;
  return {};
}

std::string ProfileScanner::read_file(const std::string& path, ScannedProfile& out) {
  size_t size = 0;
  if (std::string err = container::read_file(path, buffers_->file, &size); !err.empty()) {
    out.clear();
    return err;
  }
  return read_bytes(buffers_->file.data.get(), size, path, out);
}

}  // namespace hpcl
