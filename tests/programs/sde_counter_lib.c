// A library that defines a software-defined event through PAPI's SDE API, as a numerical library
// can: "sde:::HPCL_TEST::WORK" counts the units of work its callers report. The event is
// registered in the library's constructor, so it exists before the program's main() and before
// the profiler's runtime starts the main thread's PAPI event set.
#include <sde_lib.h>

static void* g_counter;

__attribute__((constructor)) static void register_work_counter(void) {
  papi_handle_t lib = papi_sde_init("HPCL_TEST");
  papi_sde_create_counter(lib, "WORK", PAPI_SDE_RO | PAPI_SDE_DELTA, &g_counter);
}

void* hpcl_work_counter(void) { return g_counter; }
