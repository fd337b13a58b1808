/* A burst of small allocations, a second of sleep, then a smaller burst at another call site.
 * The tracking budget refills by the thread's CPU time (hpcrun-lite/runtime/memory/
 * track_control.h), so the sleep earns no tracking: the second burst is tracked at the rate the
 * first one ended with. A budget refilled by wall time would fill the bucket during the sleep and
 * track every block of the second burst again, 32,768 of them. e2e.track_cpu_budget checks it.
 * Usage: track_sleep */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile char sink;

/* Different bodies: identical ones would be folded into one function (GCC's -fipa-icf). */
__attribute__((noinline)) static char *first_site(size_t n) { return malloc(n); }
__attribute__((noinline)) static char *second_site(size_t n) { return malloc(n + 16); }

int main(void) {
  for (int i = 0; i < 2000000; i++) {
    char *p = first_site(48);
    if (!p) return 1;
    p[0] = (char)i;
    sink += p[0];
    free(p);
  }
  const struct timespec second = {1, 0};
  nanosleep(&second, NULL);
  for (int i = 0; i < 200000; i++) {
    char *p = second_site(48);
    if (!p) return 1;
    p[0] = (char)i;
    sink += p[0];
    free(p);
  }
  printf("done\n");
  return 0;
}
