/* Threads started before the runtime (issue 11): libhpcl_ctor_threads' constructor starts its
 * pool before the preloaded runtime's constructor; the pool then does all the memory work.
 * Usage: ctor_threads [SECONDS per worker, default 0.4]. Prints a checksum. */
#include <stdio.h>
#include <stdlib.h>

double ctor_pool_run(double seconds);

int main(int argc, char **argv) {
  double s = ctor_pool_run(argc > 1 ? atof(argv[1]) : 0.4);
  printf("checksum %s\n", s > 0 ? "ok" : "bad");
  return 0;
}
