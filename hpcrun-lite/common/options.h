// Measurement options shared by the launcher (which validates the command line and exports them
// as environment variables) and the runtime (which reads those variables, also when a user sets
// LD_PRELOAD by hand). Parsing allocates nothing, so the runtime can use it before malloc works.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hpcrun {

inline constexpr const char* kEnvOut = "HPCRUN_LITE_OUT";
inline constexpr const char* kEnvEvents = "HPCRUN_LITE_EVENTS";
inline constexpr const char* kEnvMinBytes = "HPCRUN_LITE_MIN_BYTES";
inline constexpr const char* kEnvSmallEvery = "HPCRUN_LITE_SMALL_EVERY";
inline constexpr const char* kEnvTrackBudget = "HPCRUN_LITE_TRACK_BUDGET";
inline constexpr const char* kEnvVerbose = "HPCRUN_LITE_VERBOSE";
inline constexpr const char* kEnvSignal = "HPCRUN_LITE_SIGNAL";
// "0": the timer's samples come as the real-time signal, never as perf's SIGTRAP (timer_signal.h)
inline constexpr const char* kEnvSigtrap = "HPCRUN_LITE_SIGTRAP";
inline constexpr const char* kEnvUmask = "HPCRUN_LITE_UMASK";  // "1": modes from the umask
inline constexpr const char* kEnvNuma = "HPCRUN_LITE_NUMA";  // "0": no NUMA placement lookup
// Which run a process belongs to (process_env.h run_id_for_launch), written to META run_id so
// that merge can tell two runs in one directory apart.
inline constexpr const char* kEnvRunId = "HPCRUN_LITE_RUN_ID";
inline constexpr size_t kMaxRunId = 32;

// Samples per second of each thread's CPU time. On the 2-vCPU development VM a sample costs
// 30-40 us of CPU (the task clock's timer expiry alone 21 us: reprogramming the timer exits to the
// hypervisor), so 1,000/s took 5.7% of LAMMPS's 400-step run there and 500/s takes 3.8%, most of
// the rest being the fixed start-up cost (docs/PERFORMANCE.md, "The default rate"). A share of 10%
// from 10 s of one thread still has a 95% interval of +-0.8 points. HPCToolkit's hpcrun samples
// CPUTIME at 200/s by default.
inline constexpr uint64_t kDefaultSoftRate = 500;
// PAPI events without @PERIOD: one overflow per million events (PAPI_TOT_CYC: about a thousand a
// second on a 1 GHz core).
inline constexpr uint64_t kDefaultPapiPeriod = 1000000;
inline constexpr uint64_t kMaxSoftRate = 20000;
inline constexpr uint64_t kDefaultMinBytes = 4096;
// --small-every: "auto" (adaptive, every block while within the budget), 0 (never), N (fixed
// one in N; 1 = every block). kSmallEveryAuto stands for "auto".
inline constexpr uint64_t kSmallEveryAuto = UINT64_MAX;
inline constexpr uint64_t kDefaultSmallEvery = kSmallEveryAuto;
// --track-budget: tracked small allocations per second of each thread, sustained (auto only),
// each priced at one per 200 ns it costs (memory/track_control.h).
inline constexpr uint64_t kDefaultTrackBudget = 50000;

// Pebs is `pebs-load` (also spelled `pebs`), Ibs is `ibs-op` (also `ibs`). New kinds are appended
// so that the numbers of the others stay. PageFaults (first touch) runs beside one
// address-sampling source or alone; its rate is a period (one record every N faults).
enum class SourceKind : uint8_t {
  Auto, Soft, Pebs, Ibs,
  PebsStore,   // pebs-store: precise stores
  Papi,        // PAPI_<NAME> or COMPONENT::EVENT: a PAPI event, named in SourceSpec::papi_event
  PageFaults,  // page-faults: first touch
  WpSharing,   // wp-sharing: false/true sharing from debug-register watches, beside a sampling source
  WpReuse,     // wp-reuse: reuse times from debug-register watches, beside a sampling source
};
const char* source_name(SourceKind kind);

inline constexpr size_t kMaxPapiName = 48;
struct SourceSpec {
  SourceKind kind = SourceKind::Auto;
  // After '@': samples per second of CPU time for soft; the event period (events between two
  // samples) for the hardware sources and PAPI. 0 = the source's default.
  uint64_t rate = 0;
  uint32_t ldlat = 0;                // pebs-load ":ldlat=N" (cycles), 0 = the default
  bool l3miss = false;               // ibs-op ":l3miss": only ops that miss L3
  char papi_event[kMaxPapiName] = {};  // Papi only: "PAPI_TOT_CYC", "sde:::LIB::EVENT"
};

inline constexpr int kMaxSources = 4;
struct Options {
  SourceSpec sources[kMaxSources];
  int nsources = 0;
  uint64_t min_bytes = kDefaultMinBytes;
  uint64_t small_every = kDefaultSmallEvery;
  uint64_t track_budget = kDefaultTrackBudget;
  bool verbose = false;
};

// Parses "SOURCE[@RATE]" (and "pebs-load[@PERIOD][:ldlat=N]", "ibs-op[@PERIOD][:l3miss]",
// "PAPI_NAME[@PERIOD]"). On error returns false and writes a message (NUL-terminated) to err.
bool parse_source(const char* text, size_t len, SourceSpec* out, char* err, size_t errlen);
// Parses a comma-separated list of sources into opts (replacing what was there).
bool parse_sources(const char* text, Options* opts, char* err, size_t errlen);
// Writes a source back in the spelling parse_source reads ("pebs-load@20000:ldlat=30").
const char* source_text(const SourceSpec& spec, char* buf, size_t len);
// Parses a non-negative decimal integer with an optional k/K, m/M, g/G suffix (powers of 1024).
bool parse_size(const char* text, uint64_t* out);
// Why parse_size refused `text`: "too large" for digits (and a suffix) beyond 2^64-1, else
// "not a number". For messages.
const char* size_problem(const char* text);
// Parses --small-every: "auto" (kSmallEveryAuto) or a number as parse_size.
bool parse_small_every(const char* text, uint64_t* out);
// Writes a --small-every value as the user would ("auto" or the number) into buf.
const char* small_every_text(uint64_t value, char* buf, size_t len);

}  // namespace hpcrun
