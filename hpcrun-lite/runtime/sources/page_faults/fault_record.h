// The page-fault source's perf attribute and its sample record, as plain functions so unit tests
// check both without running the event (every open still goes through perf_open()).
//
// The event is the software PERF_COUNT_SW_PAGE_FAULTS of one thread, user mode only (works with
// perf_event_paranoid=2), with the faulting data address (PERF_SAMPLE_ADDR): a first touch of a
// page, or of a 2 MiB page with transparent huge pages. Records go to a ring buffer
// (perf_ring.h); the kernel signals the thread when the ring is half full (watermark), not at
// every fault. The record layout below is this source's own fixed sample_type; the general
// PERF_RECORD_SAMPLE parser of the hardware sources can replace it when it lands.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace hpcrun {

// What a fault record carries, in the kernel's order of sample_type bits.
inline constexpr uint64_t kFaultSampleType =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU;
inline constexpr size_t kFaultRecordBody = 8 + 8 + 8 + 8 + 8;

// period: one record every `period` faults (1 = each). wakeup_bytes: the ring fill at which the
// kernel signals the owner. Created disabled, so the owner is set before the first wake-up.
perf_event_attr page_fault_attr(uint64_t period, uint32_t wakeup_bytes);

struct FaultRecord {
  uint64_t ip = 0;    // the faulting instruction
  uint64_t addr = 0;  // the faulting data address
  uint64_t time = 0;  // perf clock, ns
  uint32_t pid = 0, tid = 0, cpu = 0;
};

// Parses a PERF_RECORD_SAMPLE body written for kFaultSampleType. False if it is too short.
bool parse_fault_record(const uint8_t* body, size_t size, FaultRecord* out);

}  // namespace hpcrun
