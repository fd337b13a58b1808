/* Ten equal arrays read in known proportions, each allocated a different way: eight heap APIs,
 * one static array and one stack array. A profile must give array i a share of samples equal to
 * weight[i] / sum(weights). An eleventh array is written once and never read: it must stay cold.
 *
 * Built twice: `alloc_apis`, and with -DWITH_MPI `mpi_alloc_apis`, where every rank runs the same
 * proportions and rank 0 prints the sum over ranks.
 *
 * Usage: alloc_apis [ROUNDS]   (one round = 55 kernel calls; the default takes about 2.5 s with
 * OMP_NUM_THREADS=2 on the project's 2-core machines). Prints one checksum line on stdout. */
#define _GNU_SOURCE
#include "kernel.h"
#include "workload.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#ifdef WITH_MPI
#include <mpi.h>
#endif

#define BYTES (TEST_ARRAY_DOUBLES * sizeof(double))
#define DEFAULT_ROUNDS 200

double static_array[TEST_ARRAY_DOUBLES]; /* the static variable; .bss, global symbol */

static void *check(void *p, const char *what) {
  if (p == NULL) {
    perror(what);
    exit(1);
  }
  return p;
}

/* One allocation function per API. Each fills its block, which also keeps the allocation call
 * from becoming a tail call: the function stays on the allocation path that names the variable. */
__attribute__((noinline)) static double *alloc_with_malloc(void) {
  double *p = check(malloc(BYTES), "malloc");
  fill_array(p, TEST_ARRAY_DOUBLES, 1.0);
  return p;
}

__attribute__((noinline)) static double *alloc_with_calloc(void) {
  double *p = check(calloc(TEST_ARRAY_DOUBLES, sizeof(double)), "calloc");
  fill_array(p, TEST_ARRAY_DOUBLES, 2.0);
  return p;
}

/* Grown from a block a quarter the size, so realloc really moves or extends data. */
__attribute__((noinline)) static double *alloc_with_realloc(void) {
  double *small = check(malloc(BYTES / 4), "malloc");
  fill_array(small, TEST_ARRAY_DOUBLES / 4, 3.0);
  double *p = check(realloc(small, BYTES), "realloc");
  fill_array(p, TEST_ARRAY_DOUBLES, 3.0);
  return p;
}

__attribute__((noinline)) static double *alloc_with_posix_memalign(void) {
  void *p = NULL;
  if (posix_memalign(&p, 64, BYTES) != 0)
    check(NULL, "posix_memalign");
  fill_array(p, TEST_ARRAY_DOUBLES, 4.0);
  return p;
}

__attribute__((noinline)) static double *alloc_with_aligned_alloc(void) {
  double *p = check(aligned_alloc(4096, BYTES), "aligned_alloc");
  fill_array(p, TEST_ARRAY_DOUBLES, 5.0);
  return p;
}

__attribute__((noinline)) static double *alloc_with_memalign(void) {
  double *p = check(memalign(128, BYTES), "memalign");
  fill_array(p, TEST_ARRAY_DOUBLES, 6.0);
  return p;
}

__attribute__((noinline)) static double *alloc_with_valloc(void) {
  double *p = check(valloc(BYTES), "valloc");
  fill_array(p, TEST_ARRAY_DOUBLES, 7.0);
  return p;
}

__attribute__((noinline)) static double *alloc_with_mmap(void) {
  void *p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    check(NULL, "mmap");
  fill_array(p, TEST_ARRAY_DOUBLES, 8.0);
  return p;
}

/* Written here and never read again. */
__attribute__((noinline)) static double *alloc_never_read(void) {
  double *p = check(malloc(BYTES), "malloc");
  fill_array(p, TEST_ARRAY_DOUBLES, 11.0);
  return p;
}

int main(int argc, char **argv) {
#ifdef WITH_MPI
  MPI_Init(&argc, &argv);
#endif
  int rounds = rounds_from_args(argc, argv, DEFAULT_ROUNDS);
  double stack_array[TEST_ARRAY_DOUBLES]; /* 4 MiB of main's 8 MiB stack */

  /* Fill everything before the first read. The weights are shuffled so that an error tied to
   * allocation order or address would show as a wrong share. */
  fill_array(static_array, TEST_ARRAY_DOUBLES, 9.0);
  fill_array(stack_array, TEST_ARRAY_DOUBLES, 10.0);
  struct test_array arrays[] = {
      {"malloc", alloc_with_malloc(), 4},
      {"calloc", alloc_with_calloc(), 7},
      {"realloc", alloc_with_realloc(), 2},
      {"posix_memalign", alloc_with_posix_memalign(), 9},
      {"aligned_alloc", alloc_with_aligned_alloc(), 1},
      {"memalign", alloc_with_memalign(), 6},
      {"valloc", alloc_with_valloc(), 3},
      {"mmap", alloc_with_mmap(), 8}, /* arrays[7]: released with munmap */
      {"static", static_array, 5},
      {"stack", stack_array, 10},
  };
  double *never_read = alloc_never_read();
  int count = (int)(sizeof arrays / sizeof arrays[0]);

  double checksum = run_weighted(arrays, count, rounds);

#ifdef WITH_MPI
  int rank = 0, size = 1;
  double local = checksum;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mpi_alloc_apis: %d ranks, %d arrays, %d rounds, checksum %.12e\n", size, count, rounds,
           checksum);
  MPI_Finalize();
#else
  printf("alloc_apis: %d arrays, %d rounds, checksum %.12e\n", count, rounds, checksum);
#endif
  /* Released only now, so that every block stays live (and tracked) for the whole run. */
  for (int i = 0; i < 7; i++) /* the malloc-family blocks: arrays[0..6] */
    free(arrays[i].data);
  munmap(arrays[7].data, BYTES);
  free(never_read);
  return 0;
}
