/* Linked statically, so LD_PRELOAD cannot reach it: the launcher must say that it will not be
 * measured, and still run it. Prints one line and exits 4. */
#include <stdio.h>

int main(void) {
  printf("static program ran\n");
  return 4;
}
