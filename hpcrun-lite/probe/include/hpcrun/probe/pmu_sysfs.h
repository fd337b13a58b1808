// A perf PMU as the kernel publishes it under <root>/sys/bus/event_source/devices/<pmu>/: its
// `type`, its named events (`events/mem-loads` holds "event=0xcd,umask=0x1,ldlat=3"), the bit
// fields of its attribute words (`format/ldlat` holds "config1:0-15"), its capabilities (`caps/`).
// Events are encoded from these files the way perf does, so a CPU works the day its kernel
// support lands, whatever libpfm4 knows.
//
// Every spelling the kernel writes, and those a copy of the tree may have, is accepted: values
// with or without a trailing newline (the kernel writes event strings without one and format
// strings with one), spaces around terms, NUL padding (tar pads sysfs files to their stated size
// of 4096), decimal or hex values, a term without a value (1), and formats spread over several
// bit ranges ("config:0-7,32-35": the value's low bits fill the lowest range first).
//
// Where sysfs is silent on a term of an x86 core PMU (a copy that lacks format/event, say), the
// architectural layout the kernel gives every Intel core PMU fills in (core.c: event config:0-7,
// umask config:8-15, edge 18, inv 23, cmask config:24-31, ldlat config1:0-15).
//
// `root` is a machine root: "/" here, or a copy of another machine's files (--check --root DIR).
// A copy that has sys/devices/<pmu> but not sys/bus/event_source/devices is read there.
// Reads with open/read into the caller's buffers: no malloc, the runtime calls it at start-up.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace hpcrun {

// One bit field of a PMU's attribute words.
struct FormatField {
  uint8_t word = 0;  // 0 config, 1 config1, 2 config2, 3 config3
  uint8_t nranges = 0;
  struct Range {
    uint8_t lo, hi;
  } ranges[4] = {};
  int width() const;
};

// Parses a format file's text ("config1:0-15", "config:19", "config:0-7,32-35").
bool parse_format(const char* text, FormatField* out);
// Places `value` into the attribute word the field names (its bits cleared first). False when
// the value does not fit the field.
bool format_apply(const FormatField& f, uint64_t value, perf_event_attr* a);

// Reads <root>/<rel> into buf (NUL-terminated, truncated to len-1); its length, or -1.
long read_root_file(const char* root, const char* rel, char* buf, size_t len);

// The directory of the root's PMUs, relative to it: "sys/bus/event_source/devices", or
// "sys/devices" for a copy without the bus directory.
const char* pmu_base(const char* root);

// Reads <root>/<pmu_base>/<pmu>/<rel> into buf (NUL-terminated), trimmed of
// surrounding white space and anything from the first NUL on. False when absent or unreadable.
bool pmu_read(const char* root, const char* pmu, const char* rel, char* buf, size_t len);
// Whether the PMU directory (or one of its files) exists.
bool pmu_exists(const char* root, const char* pmu, const char* rel = "type");
// The PMU's perf type; -1 when absent or not a number.
int pmu_type_at(const char* root, const char* pmu);

// Encodes event terms ("event=0xcd,umask=0x1,ldlat=3") for `pmu` into a->config/config1/
// config2/config3 through its format files, then `overrides` ("ldlat=30"; may be null), whose
// terms replace same-named ones. The terms config, config1, config2 and config3 set a word
// whole. False with the reason when a term has no format file or a value does not fit.
bool pmu_encode(const char* root, const char* pmu, const char* terms, const char* overrides,
                perf_event_attr* a, char* err, size_t errlen);

// pmu_encode of the PMU's named event (events/<name>).
bool pmu_encode_event(const char* root, const char* pmu, const char* name, const char* overrides,
                      perf_event_attr* a, char* err, size_t errlen);

}  // namespace hpcrun
