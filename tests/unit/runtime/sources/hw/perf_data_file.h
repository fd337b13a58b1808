// A reader of Linux perf's perf.data files (tools/perf/Documentation/perf.data-file-format.txt),
// enough for the tests that feed the runtime's decoders records a real PMU wrote: the file
// header, each attr with its ids, and every record of the data section as the kernel laid it
// out (perf copies ring records to the file unchanged). File mode only (not perf's pipe mode);
// little-endian files only. Test code: it allocates and throws nothing.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hpcl_test {

struct PerfDataAttr {
  perf_event_attr attr = {};  // what the file holds, zero beyond its attr.size
  std::vector<uint64_t> ids;  // the sample ids of this event's per-CPU instances
};

struct PerfDataRecord {
  uint32_t type = 0;
  std::vector<uint8_t> bytes;  // the whole record, its perf_event_header first
};

struct PerfDataFile {
  std::vector<PerfDataAttr> attrs;
  std::vector<PerfDataRecord> records;  // in file order

  // The attr whose ids hold `id`, or null.
  const PerfDataAttr* attr_of(uint64_t id) const;
  // The records of `type` (PERF_RECORD_SAMPLE ...), in file order.
  std::vector<const PerfDataRecord*> of_type(uint32_t type) const;
};

// Reads `path` into `out`; false with the reason (naming the file and what is wrong) in `err`.
bool read_perf_data(const std::string& path, PerfDataFile* out, std::string* err);

}  // namespace hpcl_test
