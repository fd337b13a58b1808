/* MPI reached only through a library loaded RTLD_LOCAL, as Python imports mpi4py: this program
 * does not link MPI; it dlopens mpi_local_lib.c's library (which does) with RTLD_LOCAL and calls
 * its entry. The library's call to MPI_Init_thread binds to the preloaded runtime's wrapper (the
 * preload is first in the global scope), which must find libmpi in the library's own scope.
 * Usage: mpi_local LIBRARY. Prints "rank R of N" and exits 0, or says what failed and exits 1. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: mpi_local LIBRARY\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "mpi_local: %s\n", dlerror());
    return 1;
  }
  int (*run)(void) = (int (*)(void))dlsym(lib, "mpi_local_run");
  if (!run) {
    fprintf(stderr, "mpi_local: no mpi_local_run in %s\n", argv[1]);
    return 1;
  }
  return run();
}
