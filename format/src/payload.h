// Internal interface between the container (io.cpp: header, compression, files) and the payload:
// the sequence of sections that holds a Profile. Messages returned here do not carry the input's
// name; io.cpp prefixes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hpcl/profile.h"
#include "hpcl/scan.h"

namespace hpcl::payload {

// The uncompressed payload of `profile`: every section in spec order.
std::vector<uint8_t> encode(const Profile& profile);

// Parses a payload into `out` (whose kind is already set from the header) and validates it.
// Returns "" on success, otherwise what is wrong.
std::string decode(const uint8_t* data, size_t size, Profile& out);

// What the reader of a TREE as columns saw of its nodes, so that validate() need not walk them
// again: whether every node rule but the index ranges held, and one past the largest module,
// site and static index the nodes use.
struct FlatTreeCheck {
  bool nodes_ok = false;
  uint64_t modules = 0, sites = 0, statics = 0;
};

// decode() with every TREE left as columns in out.trees() (out.profile.trees stays empty), and
// checked as validate() checks it, except for children with the same key (hpcl/scan.h).
std::string decode_scanned(const uint8_t* data, size_t size, ScannedProfile& out);

// Checks what the section parser cannot see locally: tree invariants and every index into
// MODULES, SITES and STATICS. Returns "" when the profile is valid. With `flat`, those are the
// trees (profile.trees is ignored) and children with the same key are left to the caller.
std::string validate(const Profile& profile);
std::string validate(const Profile& profile, std::span<const FlatTree> flat,
                     std::span<const FlatTreeCheck> checks);

const char* section_name(uint32_t tag);

// Parses a payload whose first (and only needed) section is META into out.meta; what follows
// META is not looked at. Returns "" or what is wrong.
std::string decode_meta(const uint8_t* data, size_t size, Profile& out);

// What of a payload cut after `size` bytes is whole: "META (rank 1, pid 4242), MODULES, SITES
// and 2 TREEs are whole before the cut, which falls in TREE; ..." and whether that is of use.
std::string describe_prefix(const uint8_t* data, size_t size, FileKind kind);

// Symbols with a known callee: the entries of the CALLEES section (1.1).
uint32_t callee_count(const Profile& profile);
// Whether some tree node carries the page_faults metric (1.4).
bool has_page_faults(const Profile& profile);
// A node has a metric that format 1.5 added (ids 5-7, 32-36, 64-95).
bool has_memory_metrics(const Profile& profile);
// A node has a watchpoint metric (1.6, ids 96-151).
bool has_watch_metrics(const Profile& profile);
// Sites with a name: the entries of SITE_NAMES (1.7).
uint32_t named_sites(const Profile& profile);
// A site has an allocation API that 1.7 added (15-22).
bool has_site_apis_of_1_7(const Profile& profile);

}  // namespace hpcl::payload
