// See papi_query.h. libpapi is opened by the probe library's loader (hpcrun/probe/papi_api.h);
// without papi.h at build time, --check says so.
#include "papi_query.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "hpcrun/probe/papi_api.h"

namespace hpcrun {

#ifdef HPCL_HAVE_PAPI_H

namespace {

// One opening per launcher run: dlopen and PAPI_library_init are not undone.
const PapiApi* papi_api(std::string* library, std::string* error) {
  static PapiApi api;
  static int state = 0;  // 0 untried, 1 ready, -1 failed
  static char lib[64], err[256];
  if (state == 0) state = papi_api_load(&api, lib, sizeof lib, err, sizeof err) ? 1 : -1;
  *library = lib;
  *error = err;
  return state == 1 ? &api : nullptr;
}

// Counts `code` for a moment in an event set of the launcher's own thread. PAPI lists presets
// from libpfm4's tables for the CPU model cpuid names, whether or not the kernel offers a core
// PMU (an AMD VM without a virtual PMU lists 23 presets): only adding and starting the event
// shows that it can be counted. Returns PAPI_OK or the first error.
int try_counting(const PapiApi* f, int code) {
  int set = PAPI_NULL;
  int rc = f->create_eventset(&set);
  if (rc != PAPI_OK) return rc;
  rc = f->add_event(set, code);
  if (rc == PAPI_OK) {
    rc = f->start(set);
    long long value = 0;
    if (rc == PAPI_OK) f->stop(set, &value);
  }
  f->cleanup_eventset(set);
  f->destroy_eventset(&set);
  return rc;
}

}  // namespace

std::string papi_library() {
  std::string lib, err;
  return papi_api(&lib, &err) ? lib : std::string();
}

PapiView papi_view() {
  PapiView view;
  const PapiApi* f = papi_api(&view.library, &view.error);
  if (!f) return view;
  view.loaded = true;
  char ver[32];
  snprintf(ver, sizeof ver, "%d.%d.%d", PAPI_VERSION_MAJOR(PAPI_VERSION),
           PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION));
  view.version = ver;
  for (int c = 0; c < f->num_components(); ++c) {
    const PAPI_component_info_t* ci = f->get_component_info(c);
    if (!ci) continue;
    PapiComponent pc;
    pc.name = ci->name;
    pc.disabled = ci->disabled != 0;
    pc.disabled_reason = ci->disabled_reason;
    pc.counters = ci->num_cntrs;
    pc.native_events = ci->num_native_events;
    pc.preset_events = ci->num_preset_events;
    view.components.push_back(pc);
  }
  int code = 0 | PAPI_PRESET_MASK;
  if (f->enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
    do {
      char name[PAPI_MAX_STR_LEN];
      if (f->query_event(code) == PAPI_OK && f->event_code_to_name(code, name) == PAPI_OK)
        view.presets.emplace_back(name);
    } while (f->enum_event(&code, PAPI_PRESET_ENUM_AVAIL) == PAPI_OK);
  }
  return view;
}

bool papi_event_available(const PapiView& view, const char* name, std::string* why) {
  if (!view.loaded) {
    *why = "PAPI is not usable here: " + view.error;
    return false;
  }
  // A software-defined event exists once the program's library registers it, after start: the
  // runtime checks it then and says so if it cannot count it.
  if (strncmp(name, "sde:::", 6) == 0) return true;
  std::string lib, err;
  const PapiApi* f = papi_api(&lib, &err);
  int code = 0;
  if (f->event_name_to_code(name, &code) != PAPI_OK) {
    *why = std::string("PAPI does not know ") + name;
    return false;
  }
  if (f->query_event(code) == PAPI_OK) {
    const int rc = try_counting(f, code);
    if (rc == PAPI_OK) return true;
    *why = std::string("PAPI lists ") + name + " but cannot count it here (" + f->strerror(rc) +
           (access("/sys/bus/event_source/devices/cpu", F_OK) != 0 &&
                    access("/sys/bus/event_source/devices/cpu_core", F_OK) != 0
                ? "; the kernel has no core PMU: a VM without a virtual PMU)"
                : ")");
    return false;
  }
  int counters = 0;
  std::string disabled;
  for (const PapiComponent& c : view.components) {
    counters += c.disabled ? 0 : c.counters;
    if (c.name == "perf_event" && c.disabled) disabled = c.disabled_reason;
  }
  *why = std::string("PAPI reports ") +
         (view.presets.empty() ? "no presets" : std::to_string(view.presets.size()) + " presets, not this one") +
         (counters == 0 ? " and no hardware counters" : "") +
         (disabled.empty() ? "" : " (perf_event component disabled: " + disabled + ")");
  return false;
}

#else  // !HPCL_HAVE_PAPI_H

std::string papi_library() {
  std::string lib, err;
  return papi_api(&lib, &err) ? lib : std::string();
}

std::string papi_library() { return std::string(); }

PapiView papi_view() {
  PapiView view;
  view.error = "this hpcrun-lite was built without papi.h (install libpapi-dev and rebuild)";
  return view;
}

bool papi_event_available(const PapiView& view, const char*, std::string* why) {
  *why = "PAPI is not usable here: " + view.error;
  return false;
}

#endif

}  // namespace hpcrun
