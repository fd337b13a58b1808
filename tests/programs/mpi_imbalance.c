/* Two heap arrays read by every MPI rank through the OpenMP kernel, in proportions that differ
 * between ranks: per round, rank 0 reads `wide` 5 times and `skewed` once, every other rank
 * reads `wide` 4 times and `skewed` twice. Every rank does the same work (6 calls per round), so
 * no rank waits long in MPI and the waiting does not show as imbalance of other data.
 *
 * Expected with 2 ranks (docs/REPORT.md "ranks"): skewed has ranks.imbalance = 2 / 1.5 = 4/3 on
 * rank 1; wide 5 / 4.5 = 1.11 on rank 0, well apart so that --sort imbalance puts skewed first
 * even when one rank's calls cost 10% more than the other's; merged shares among the two: wide
 * 3/4, skewed 1/4. The time each rank's kernel measured is the exact truth (workload.h).
 *
 * Usage: mpi_imbalance [ROUNDS]   (default 300). Rank 0 prints one checksum line. */
#include "kernel.h"
#include "workload.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BYTES (TEST_ARRAY_DOUBLES * sizeof(double))

static double *check(double *p) {
  if (p == NULL) {
    perror("malloc");
    exit(1);
  }
  return p;
}

__attribute__((noinline)) static double *alloc_wide(void) {
  double *p = check(malloc(BYTES));
  fill_array(p, TEST_ARRAY_DOUBLES, 1.0);
  return p;
}

__attribute__((noinline)) static double *alloc_skewed(void) {
  double *p = check(malloc(BYTES));
  fill_array(p, TEST_ARRAY_DOUBLES, 2.0);
  return p;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rounds = rounds_from_args(argc, argv, 300);
  struct test_array arrays[] = {
      {"wide", alloc_wide(), rank == 0 ? 5 : 4},
      {"skewed", alloc_skewed(), rank == 0 ? 1 : 2},
  };
  double local = run_weighted(arrays, 2, rounds), checksum = 0.0;
  MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mpi_imbalance: %d ranks, %d rounds, checksum %.12e\n", size, rounds, checksum);
  free(arrays[0].data);
  free(arrays[1].data);
  MPI_Finalize();
  return 0;
}
