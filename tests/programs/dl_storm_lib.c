/* The library that dl_storm.c opens and closes in a loop: its constructor and destructor
 * allocate, so every dlopen runs allocation wrappers (and their unwinding) while the loader is
 * busy with the module lists. */
#include <stdlib.h>
#include <string.h>

static char *storm_buffer;

__attribute__((constructor)) static void storm_lib_init(void) {
  storm_buffer = malloc(8192);
  if (storm_buffer) memset(storm_buffer, 1, 8192);
}

__attribute__((destructor)) static void storm_lib_fini(void) { free(storm_buffer); }

int storm_lib_value(void) { return storm_buffer ? storm_buffer[17] : 0; }
