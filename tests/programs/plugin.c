/* A shared library loaded at run time with dlopen: its static array must be found as a static
 * variable of this library, although the library was not there when the runtime started; and its
 * thread-local array, whose per-thread blocks glibc allocates only when a thread first touches
 * it (dynamic TLS), must be found as that TLS variable in whichever thread's block is read. */
#include "workload.h"

double plugin_table[TEST_ARRAY_DOUBLES];
__thread double plugin_tls[TEST_ARRAY_DOUBLES];

double *plugin_data(void) { return plugin_table; }

/* The calling thread's block of plugin_tls. */
double *plugin_tls_data(void) { return plugin_tls; }
