// libpapi, opened with dlopen: the one loader of the launcher's --check (which events PAPI can
// count here) and of the runtime's PAPI source (counter overflows as samples). Opened, not
// linked: most runs ask for no PAPI event, and a launcher or runtime linked against libpapi
// would not start where it is missing. Built against papi.h (HPCL_HAVE_PAPI_H) for the types and
// the version: PAPI_library_init refuses a library of another major version.
#pragma once

#include <cstddef>

#ifdef HPCL_HAVE_PAPI_H
#include <papi.h>

namespace hpcrun {

// Every function either user calls; a library lacking one is refused whole.
struct PapiApi {
  int (*library_init)(int);
  int (*thread_init)(unsigned long (*)(void));
  int (*register_thread)();
  int (*unregister_thread)();
  int (*num_components)();
  const PAPI_component_info_t* (*get_component_info)(int);
  int (*enum_event)(int*, int);
  int (*event_code_to_name)(int, char*);
  int (*event_name_to_code)(const char*, int*);
  int (*query_event)(int);
  char* (*strerror)(int);
  int (*create_eventset)(int*);
  int (*add_event)(int, int);
  int (*add_named_event)(int, const char*);
  int (*overflow)(int, int, int, int, PAPI_overflow_handler_t);
  int (*get_overflow_event_index)(int, long long, int*, int*);
  int (*start)(int);
  int (*stop)(int, long long*);
  int (*cleanup_eventset)(int);
  int (*destroy_eventset)(int*);
};

// Opens libpapi (Debian's libpapi.so.7.0, else any PAPI 7's libpapi.so.7, else libpapi.so) and
// resolves every function of PapiApi, then calls PAPI_library_init. On success the
// opened name is in `library`; on failure `error` says why in words (not found, a function
// missing, another version). Not signal-safe; call once (neither dlopen nor the library's
// initialisation is undone).
bool papi_api_load(PapiApi* api, char* library, size_t library_len, char* error, size_t error_len);

}  // namespace hpcrun
#endif
