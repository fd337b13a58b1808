// What PAPI offers on this machine, for `--check` and for `-e PAPI_NAME`. libpapi is opened with
// dlopen by the launcher only: neither the launcher's start nor the runtime depends on it, and
// a machine without PAPI just says so.
#pragma once

#include <string>
#include <vector>

namespace hpcrun {

struct PapiComponent {
  std::string name;
  bool disabled = false;
  std::string disabled_reason;
  int counters = 0;        // hardware counters it drives
  int native_events = 0;
  int preset_events = 0;
};

struct PapiView {
  bool loaded = false;     // libpapi opened and initialised
  std::string error;       // why not, when !loaded
  std::string library;     // which file was opened
  std::string version;
  std::vector<PapiComponent> components;
  std::vector<std::string> presets;  // the presets available here
};

PapiView papi_view();
// The libpapi file the launcher opened (libpapi.so.7.0, libpapi.so.7, ...), opening it if no
// check did yet; "" when none could be opened and initialised.
std::string papi_library();

// Whether `-e NAME` (a PAPI preset or native event) can be counted here; a software-defined
// event (sde:::) is left to the runtime, since the program defines it. On false, *why says so, naming what PAPI
// reported (no hardware counters, the component's disabled reason, an unknown name).
bool papi_event_available(const PapiView& view, const char* name, std::string* why);

}  // namespace hpcrun
