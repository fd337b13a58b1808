/* Static and thread-local data of a library loaded with dlopen, read in known proportions
 * against a heap array: plugin_table (weight 2, in libhpcl_plugin.so), a malloc'd array
 * (weight 1) and main's block of the plugin's __thread array plugin_tls (weight 2; dynamic TLS,
 * read by main and, through the OpenMP kernel, by the worker threads too).
 *
 * Usage: dlopen_static PLUGIN_PATH [ROUNDS]   (one round = 5 kernel calls; the default takes
 * about 2.5 s with OMP_NUM_THREADS=2). The plugin is opened by its path as given. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

/* Its own function, so the report names the heap array by a site nothing else shares; filling
 * the block keeps the malloc from becoming a tail call that would drop this frame. */
__attribute__((noinline)) static double *alloc_heap_array(void) {
  double *p = malloc(TEST_ARRAY_DOUBLES * sizeof(double));
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 1.0);
  return p;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: dlopen_static PLUGIN_PATH [ROUNDS]\n");
    return 2;
  }
  int rounds = rounds_from_args(argc - 1, argv + 1, 720);
  void *plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!plugin) {
    fprintf(stderr, "dlopen_static: %s\n", dlerror());
    return 1;
  }
  double *(*plugin_data)(void) = (double *(*)(void))dlsym(plugin, "plugin_data");
  if (!plugin_data) {
    fprintf(stderr, "dlopen_static: %s\n", dlerror());
    return 1;
  }
  double *heap = alloc_heap_array();
  double *(*plugin_tls_data)(void) = (double *(*)(void))dlsym(plugin, "plugin_tls_data");
  if (!plugin_tls_data) {
    fprintf(stderr, "dlopen_static: %s\n", dlerror());
    return 1;
  }
  double *table = plugin_data();
  fill_array(table, TEST_ARRAY_DOUBLES, 5.0);
  double *tls = plugin_tls_data();
  fill_array(tls, TEST_ARRAY_DOUBLES, 3.0);
  struct test_array arrays[] = {
      {"plugin_table", table, 2},
      {"malloc", heap, 1},
      {"plugin_tls", tls, 2},
  };
  printf("checksum %.6e\n", run_weighted(arrays, 3, rounds));
  free(heap);
  dlclose(plugin);
  return 0;
}
