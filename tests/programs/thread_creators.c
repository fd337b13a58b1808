/* Two threads started from two differently named functions, start_left_team and
 * start_right_team, run the same reader, each over its own heap array (left_array, right_array;
 * the left one is read twice as often). The reader's own frames are the same in both threads:
 * only the creation context, which the runtime puts above each thread's frames, tells whose
 * samples are whose. Expected: every access path of left_array passes through start_left_team
 * and never start_right_team, and the other way round; left:right samples about 2:1.
 *
 * Usage: thread_creators [ROUNDS]   (default 1500, about 1 s). Prints a checksum. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"
#include "workload.h"

struct job {
  const double *a;
  int rounds;
  double sum;
};

static void *reader(void *arg) {
  struct job *j = arg;
  for (int r = 0; r < j->rounds; ++r) j->sum += sum_plain(j->a, TEST_ARRAY_DOUBLES);
  return NULL;
}

__attribute__((noinline)) static double *alloc_left_array(void) {
  double *p = malloc(TEST_ARRAY_DOUBLES * sizeof(double));
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 1.0);
  return p;
}

__attribute__((noinline)) static double *alloc_right_array(void) {
  double *p = malloc(TEST_ARRAY_DOUBLES * sizeof(double));
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 2.0);
  return p;
}

/* noipa: each stays a frame of its own with its own call of pthread_create. */
__attribute__((noipa)) static int start_left_team(pthread_t *t, struct job *j) {
  return pthread_create(t, NULL, reader, j);
}

__attribute__((noipa)) static int start_right_team(pthread_t *t, struct job *j) {
  return pthread_create(t, NULL, reader, j);
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 1500);
  struct job left = {alloc_left_array(), 2 * rounds, 0}, right = {alloc_right_array(), rounds, 0};
  pthread_t tl, tr;
  if (start_left_team(&tl, &left) != 0 || start_right_team(&tr, &right) != 0) return 1;
  pthread_join(tl, NULL);
  pthread_join(tr, NULL);
  printf("checksum %.6e\n", left.sum + right.sum);
  free((void *)left.a);
  free((void *)right.a);
  return 0;
}
