// Shared fixtures of the format tests: sample profiles that use every feature of the format, a
// canonical text dump so a failed comparison shows a readable diff, and a little-endian byte
// builder that is independent of the library's own writer (hand-built files check the reader
// against the spec, not against the writer).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hpcl/io.h"
#include "hpcl/profile.h"
#include "hpcl/scan.h"

namespace hpcl::test {

// A process profile with two threads and every node kind, site api, static flag and metric kind.
Profile rich_process();
// A database: one tree, symbols with inlined frames.
Profile rich_database();
// A small process profile for golden bytes and truncation loops.
Profile small_process();
// small_process() with two offset histograms (format 1.2).
Profile small_process_offsets();
// A small database for golden bytes.
// Appends a node to `t` (parents first, as the format requires); returns its index.
uint32_t add(Tree& t, uint32_t parent, NodeKind kind, uint32_t a, uint64_t b,
             std::initializer_list<Metric> metrics = {});

Profile small_database();
// small_database() with a BALANCE section (format 1.3): a site, a static and an unknown class.
Profile small_database_balance();
// small_database_balance() with a FIRST_TOUCH section and a first-touch-by-node metric (1.5).
Profile small_database_first_touch();
// small_database() with RANK_VALUES (1.9): its two accesses split over ranks 0 and 1.
Profile small_database_ranks();
// small_process() with Python frames (1.8): the script pseudo-module (module 1), SCRIPT_FRAMES
// with a duplicated entry, a site and an access path through script frames.
Profile python_process();
// python_process() as a database, with symbols for its native and its script frames.
Profile python_database();

// Hands `p` to the streaming writer piece by piece, in the order the runtime does at exit; the
// script frames last, or first (the writer takes them at any time before commit).
void write_pieces(ProfileWriter& w, const Profile& p, bool script_frames_first = false);

// The minor version in a file's header.
uint16_t minor_of(const std::vector<uint8_t>& file);
// An uncompressed file of `p`'s kind whose header says `minor`: `p`'s payload as the writer
// writes it, then a section `tag` with `body` (a section written by hand, as the spec spells it).
std::vector<uint8_t> with_last_section(const Profile& p, uint16_t minor, uint32_t tag,
                                       const std::vector<uint8_t>& body);

// Every field, one line per record; equal dumps mean equal profiles.
std::string dump(const Profile& p);

// read_profile_bytes, checked against the merge's reader (ProfileScanner) on the same bytes.
ReadResult read(const std::vector<uint8_t>& bytes, const std::string& name = "test.hpcl");

// Builds bytes by hand, little-endian.
struct Bytes {
  std::vector<uint8_t> v;
  Bytes& u8(uint8_t x);
  Bytes& u16(uint16_t x);
  Bytes& u32(uint32_t x);
  Bytes& u64(uint64_t x);
  Bytes& str(std::string_view s);
  Bytes& raw(const std::vector<uint8_t>& b);
  Bytes& section(uint32_t tag, const std::vector<uint8_t>& body);
};

struct Header {
  uint16_t major = 1;
  uint16_t minor = 0;
  uint32_t kind = 1;
  uint32_t flags = 0;
};
// A complete uncompressed file around `payload` (payload_size = payload.size()).
std::vector<uint8_t> file_with(const Header& h, const std::vector<uint8_t>& payload);

// The payload of an uncompressed file (bytes after the header).
std::vector<uint8_t> payload_of(const std::vector<uint8_t>& file);

struct RawSection {
  uint32_t tag;
  size_t offset;  // of the section header in the payload
  std::vector<uint8_t> body;
};
// Splits a payload into sections (the test's own parser, trusting the input).
std::vector<RawSection> split_sections(const std::vector<uint8_t>& payload);

}  // namespace hpcl::test
