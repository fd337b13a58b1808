// Builds PERF_RECORD_SAMPLE records byte by byte, in the kernel's field order, for the parser
// and decoder tests.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <vector>

struct RecordBuilder {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(sizeof(perf_event_header));
  template <class T>
  RecordBuilder& put(T v) {
    size_t at = bytes.size();
    bytes.resize(at + sizeof v);
    memcpy(bytes.data() + at, &v, sizeof v);
    return *this;
  }
  RecordBuilder& put_bytes(const void* p, size_t n) {
    size_t at = bytes.size();
    bytes.resize(at + n);
    memcpy(bytes.data() + at, p, n);
    return *this;
  }
  // Writes the header (type, size = everything so far) and returns the record.
  std::vector<uint8_t> finish(uint32_t type = PERF_RECORD_SAMPLE) {
    perf_event_header h{type, 0, uint16_t(bytes.size())};
    memcpy(bytes.data(), &h, sizeof h);
    return bytes;
  }
};
