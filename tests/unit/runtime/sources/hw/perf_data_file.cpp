// See perf_data_file.h. Layout (perf's util/header.h): a header of magic "PERFILE2", its own
// size, the size of one attr entry, then three sections {u64 offset, u64 size} (attrs, data,
// event types) and a 256-bit feature bitmap. An attr entry is a perf_event_attr of the writer's
// version followed by a section naming that event's u64 ids; the data section is a run of
// records, each a perf_event_header and its body.
#include "perf_data_file.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace hpcl_test {

namespace {

struct Section {
  uint64_t offset = 0, size = 0;
};

bool read_u64(const std::vector<uint8_t>& f, uint64_t at, uint64_t* v) {
  if (at > f.size() || f.size() - at < 8) return false;
  memcpy(v, f.data() + at, 8);
  return true;
}

bool read_section(const std::vector<uint8_t>& f, uint64_t at, Section* s) {
  return read_u64(f, at, &s->offset) && read_u64(f, at + 8, &s->size) && s->offset <= f.size() &&
         f.size() - s->offset >= s->size;
}

}  // namespace

const PerfDataAttr* PerfDataFile::attr_of(uint64_t id) const {
  for (const PerfDataAttr& a : attrs)
    if (std::find(a.ids.begin(), a.ids.end(), id) != a.ids.end()) return &a;
  return nullptr;
}

std::vector<const PerfDataRecord*> PerfDataFile::of_type(uint32_t type) const {
  std::vector<const PerfDataRecord*> out;
  for (const PerfDataRecord& r : records)
    if (r.type == type) out.push_back(&r);
  return out;
}

bool read_perf_data(const std::string& path, PerfDataFile* out, std::string* err) {
  *out = PerfDataFile{};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = path + ": cannot open";
    return false;
  }
  const std::vector<uint8_t> f{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto bad = [&](const std::string& what) {
    *err = path + ": " + what;
    return false;
  };
  if (f.size() < 8 || memcmp(f.data(), "PERFILE2", 8) != 0)
    return bad("not a perf.data file (no PERFILE2 magic; pipe-mode and big-endian files are not read)");
  uint64_t header_size = 0, attr_size = 0;
  Section attrs, data;
  if (!read_u64(f, 8, &header_size) || !read_u64(f, 16, &attr_size) || !read_section(f, 24, &attrs) ||
      !read_section(f, 40, &data))
    return bad("header truncated or its sections lie outside the file");
  if (header_size < 72) return bad("header of " + std::to_string(header_size) + " bytes is too small");
  // Each entry: the writer's perf_event_attr, then the section of its ids.
  if (attr_size <= sizeof(Section) || attrs.size % attr_size != 0)
    return bad("attr section of " + std::to_string(attrs.size) + " bytes is not a run of " +
               std::to_string(attr_size) + "-byte entries");
  const uint64_t attr_bytes = attr_size - sizeof(Section);
  for (uint64_t at = attrs.offset; at < attrs.offset + attrs.size; at += attr_size) {
    PerfDataAttr a;
    memcpy(&a.attr, f.data() + at, std::min<uint64_t>(attr_bytes, sizeof a.attr));
    if (a.attr.size < sizeof a.attr) memset(reinterpret_cast<uint8_t*>(&a.attr) + a.attr.size, 0, sizeof a.attr - a.attr.size);
    Section ids;
    if (!read_section(f, at + attr_bytes, &ids) || ids.size % 8 != 0) return bad("attr ids outside the file");
    for (uint64_t i = 0; i < ids.size / 8; ++i) {
      uint64_t id = 0;
      read_u64(f, ids.offset + 8 * i, &id);
      a.ids.push_back(id);
    }
    out->attrs.push_back(std::move(a));
  }
  for (uint64_t at = data.offset; at < data.offset + data.size;) {
    perf_event_header h;
    if (data.offset + data.size - at < sizeof h) return bad("data section ends inside a record header");
    memcpy(&h, f.data() + at, sizeof h);
    if (h.size < sizeof h || h.size > data.offset + data.size - at)
      return bad("record at offset " + std::to_string(at) + " has size " + std::to_string(h.size));
    out->records.push_back(PerfDataRecord{h.type, std::vector<uint8_t>(f.begin() + long(at), f.begin() + long(at + h.size))});
    at += h.size;
  }
  return true;
}

}  // namespace hpcl_test
