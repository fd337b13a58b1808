/* Two heap arrays allocated in one function, for a binary whose symbols and debug information
 * the end-to-end test strips (tests/e2e/stripped.sh): the report must name both sites after
 * the one unnamed function that holds them (`app!0x...`), with distinct offsets; with the debug
 * information split off into a build-id directory, by function, file and line.
 * Proportions: "first" is read twice per round, "second" once (see workload.h for the timing).
 *
 * Usage: split_sites [ROUNDS]   (the default takes about 1.5 s with OMP_NUM_THREADS=2) */
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 500);
  double *first = malloc(TEST_ARRAY_DOUBLES * sizeof(double));  /* MARK: first-site */
  double *second = malloc(TEST_ARRAY_DOUBLES * sizeof(double)); /* MARK: second-site */
  if (!first || !second)
    return 1;
  fill_array(first, TEST_ARRAY_DOUBLES, 1.0);
  fill_array(second, TEST_ARRAY_DOUBLES, 2.0);
  struct test_array arrays[] = {{"first", first, 2}, {"second", second, 1}};
  printf("checksum %.6e\n", run_weighted(arrays, 2, rounds));
  free(first);
  free(second);
  return 0;
}
