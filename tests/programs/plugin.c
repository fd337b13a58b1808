/* A shared library loaded at run time with dlopen: its static array must be found as a static
 * variable of this library, although the library was not there when the runtime started. */
#include "workload.h"

double plugin_table[TEST_ARRAY_DOUBLES];

double *plugin_data(void) { return plugin_table; }
