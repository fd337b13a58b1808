// What the probe's findings mean for each source: does it work here, and if not, why and what
// would fix it (the sysctl, the capability, or "a VM without vPMU: use -e soft"). Shared by
// `hpcrun-lite --check` and the launcher's refusal of an unavailable source, so both say the
// same thing.
#pragma once

#include <cstddef>

#include "hpcrun/probe/timer_signal.h"
#include "hpcrun/probe/source_probe.h"

namespace hpcrun {

enum class Verdict : uint8_t {
  Works,        // opens here and this version reads it
  NoReader,     // opens here, but this version has no reader for its records yet
  Unavailable,  // absent or refused: see reason and fix
};

struct SourceVerdict {
  Verdict verdict = Verdict::Unavailable;
  int precise_ip = -1;   // PEBS: the highest level that opened
  char reason[256] = {};
  char fix[256] = {};    // "" when nothing needs fixing
};

// The name a user types for the probed source ("pebs-load", "arm-spe", ...).
const char* probed_name(ProbedSource s);
// The probed source behind a requested kind, or kNumProbed for auto and PAPI.
ProbedSource probed_for(SourceKind kind);
// Whether this version can read the source's records. The hardware readers land separately
// (sources/pebs, sources/ibs); each flips its line here when it does.
bool source_has_reader(ProbedSource s);

// Needs probe_opens() to have run for "works" to be known; without it, presence counts.
SourceVerdict source_verdict(const HardwareProbe& hw, ProbedSource s);

// What `auto` picks: the first precise source that works, else soft. Writes why.
ProbedSource auto_choice(const HardwareProbe& hw, char* why, size_t whylen);

// How the soft source's timer would signal: on this machine, as the runtime decides
// (timer_signal_facts, in the launcher's process); on a copy of another machine's files, from
// its kernel release alone (nothing can be opened there).
TimerSignalChoice timer_signal_for(const HardwareProbe& hw);

// The source the runtime uses for a request, with a human-readable reason: auto_choice() for
// auto; a request the launcher would have refused (HPCRUN_LITE_EVENTS set by hand) becomes soft.
SourceKind choose_source(SourceKind requested, const HardwareProbe& hw, char* why, size_t whylen);

}  // namespace hpcrun
