// Frames of a database -> the source locations a report shows (inline expansion, readable
// function names, recovered tail calls), each distinct frame worked out once and kept. Millions
// of access paths share a few thousand frames: expanding a path is then copying small
// Locations, and a report can expand its paths one at a time as it writes them instead of
// holding all of them (ReportModel::access_path).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "hpcl/profile.h"
#include "symbols/location.h"

namespace hpcl::analysis {

class PathExpander {
 public:
  // The database must outlive the expander. Not thread-safe: the cache grows as frames are met.
  explicit PathExpander(const Profile& db);

  // The inline-expanded locations of one frame, innermost first; an unsymbolized frame gives
  // one location with its module and offset only.
  void append(const Frame& f, std::vector<Location>& out) const;
  // A path of frames, innermost first, with the frames of tail calls recovered: when a call
  // site's callee (known from its call instruction) is not the function of the next frame
  // inward, the callee ran and tail-called onward, leaving no frame. For an allocation path
  // the next frame inward of frames[0] is the allocator itself.
  void append_path(const std::vector<Frame>& frames, bool allocation, std::vector<Location>& out) const;
  // The access path ending at node `leaf` of the database's tree: its Frame nodes up to the
  // variable node (exclusive), expanded as append_path does.
  void append_access_path(uint32_t leaf, std::vector<Location>& out) const;
  // The first location of the access path ending at `leaf`; nullptr when the leaf is no frame.
  // Valid until the expander next meets a new frame.
  const Location* access_leaf(uint32_t leaf) const;

 private:
  struct FrameHash {
    size_t operator()(const Frame& f) const noexcept {
      return std::hash<uint64_t>()(f.offset * 0x9e3779b97f4a7c15ull ^ f.module);
    }
  };
  // A frame's locations are arena_[first, first + count), then its callee when has_callee: the
  // callee of a call-site frame (tail_call set) whose call instruction names one;
  // callee_allocates: it is an allocation function (no frame to recover on allocation paths).
  struct Slot {
    uint32_t first = 0;
    uint32_t count = 0;
    bool has_callee = false;
    bool callee_allocates = false;
  };
  Slot slot(const Frame& f) const;
  const Symbolized* symbolized(const Frame& f) const;

  const Profile& db_;
  mutable std::unordered_map<Frame, Slot, FrameHash> cache_;
  mutable std::vector<Location> arena_;
  mutable std::vector<Frame> frames_;  // scratch of append_access_path
};

}  // namespace hpcl::analysis
