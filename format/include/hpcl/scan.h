// Reading profiles for a merge of thousands of them. ProfileScanner checks a file as
// read_profile_file does, with one rule left to its caller, and keeps its buffers (the file, the
// inflated payload, the zstd context, the trees) from one file to the next, so a scanner that has
// read one profile reads the next without growing. Each TREE is left as columns (FlatTree)
// instead of Node objects: a merge reads a node's four fields and its metrics once, and a
// 20,000-node tree costs no allocation per node. The other sections decode into a Profile exactly
// as read_profile_file decodes them.
//
// The rule left to the caller: no two children of one parent have the same (kind, a, b). The
// reader checks it with a sort per tree, which cost more than the rest of the checks together; a
// merge finds such a pair for free, as two nodes of one tree that land on one merged node, and
// must then refuse the file (duplicate_children_error() says it in the reader's words).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl {

// One calling-context tree as columns: node i is (parent[i], kind[i], a[i], b[i]) with the
// metrics metrics[metric_begin(i) .. metric_end[i]). Its vectors may be longer than size(): they
// keep their capacity when the scanner reuses the tree for the next file.
struct FlatTree {
  uint32_t tid = 0;
  std::vector<uint32_t> parent;
  std::vector<NodeKind> kind;
  std::vector<uint32_t> a;
  std::vector<uint64_t> b;
  std::vector<uint32_t> metric_end;
  std::vector<Metric> metrics;

  size_t size() const { return nodes_; }
  uint32_t metric_begin(size_t i) const { return i == 0 ? 0 : metric_end[i - 1]; }
  std::span<const Metric> metrics_of(size_t i) const {
    return {metrics.data() + metric_begin(i), metrics.data() + metric_end[i]};
  }
  // Makes room for n nodes (contents unspecified) and m metrics.
  void resize(size_t n, size_t m);
  void clear() { nodes_ = 0; }

 private:
  size_t nodes_ = 0;
};

// `tree` as columns, into `out` (whose capacity is reused); and back.
void flatten(const Tree& tree, FlatTree& out);
Tree unflatten(const FlatTree& tree);

// A profile as the scanner reads it: `profile` without trees, and the trees as columns. Every
// other section is in `profile` as read_profile_file gives it, script_frames among them.
struct ScannedProfile {
  Profile profile;  // profile.trees is empty
  std::span<const FlatTree> trees() const { return {trees_.data(), ntrees_}; }

  // For the scanner: the next tree, reusing a spare one.
  FlatTree& add_tree();
  void clear();

 private:
  std::vector<FlatTree> trees_;  // the first ntrees_ are this profile's; the rest are spare
  size_t ntrees_ = 0;
};

class ProfileScanner {
 public:
  ProfileScanner();
  ~ProfileScanner();
  ProfileScanner(const ProfileScanner&) = delete;
  ProfileScanner& operator=(const ProfileScanner&) = delete;

  // "" and the file in `out`, or "PATH: what is wrong" as read_profile_file says it.
  std::string read_file(const std::string& path, ScannedProfile& out);
  // The same for the bytes of a whole file; `name` appears in error messages.
  std::string read_bytes(const uint8_t* data, size_t size, const std::string& name, ScannedProfile& out);

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

// What read_profile_file says of tree `tree` (thread id `tid`) whose nodes `first` < `second`
// are children of `parent` with the same kind and payload.
std::string duplicate_children_error(size_t tree, uint32_t tid, uint32_t first, uint32_t second,
                                     uint32_t parent);
// The first such pair of `tree` by (parent, kind, a, b), in those words; "" when there is none.
// The reader's own check, for a caller that cannot find the pairs more cheaply.
std::string find_duplicate_children(const FlatTree& tree, size_t index);

}  // namespace hpcl
