// Builds PERF_RECORD_SAMPLE records byte by byte, in the kernel's field order, for the parser
// and decoder tests; and a ring in memory that the drain reads as it reads the kernel's.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "sources/perf_ring.h"

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

// A perf ring buffer in memory: records written at data_head, wrapping, as the kernel writes them.
struct FakeRing {
  alignas(64) perf_event_mmap_page meta{};
  std::vector<uint8_t> data;
  hpcrun::PerfRing ring;
  explicit FakeRing(size_t size) : data(size) {
    ring.meta = &meta;
    ring.data = data.data();
    ring.data_size = size;
  }
  void put(const std::vector<uint8_t>& rec) {
    for (size_t i = 0; i < rec.size(); ++i) data[(meta.data_head + i) % data.size()] = rec[i];
    meta.data_head += rec.size();
  }
};
