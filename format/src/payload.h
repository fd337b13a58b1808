// Internal interface between the container (io.cpp: header, compression, files) and the payload:
// the sequence of sections that holds a Profile. Messages returned here do not carry the input's
// name; io.cpp prefixes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl::payload {

// The uncompressed payload of `profile`: every section in spec order.
std::vector<uint8_t> encode(const Profile& profile);

// Parses a payload into `out` (whose kind is already set from the header) and validates it.
// Returns "" on success, otherwise what is wrong.
std::string decode(const uint8_t* data, size_t size, Profile& out);

// Checks what the section parser cannot see locally: tree invariants and every index into
// MODULES, SITES and STATICS. Returns "" when the profile is valid.
std::string validate(const Profile& profile);

const char* section_name(uint32_t tag);

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
