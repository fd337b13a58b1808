// MPI halo exchange (benchmark workload): a 2-D grid split into row blocks, one per rank; every
// iteration exchanges one ghost row with each neighbour (MPI_Sendrecv) and does a 5-point Jacobi
// sweep with OpenMP. Run with 2 ranks (and OMP_NUM_THREADS=1 on a 2-core machine).
// Usage: halo_mpi [global-grid-size] [iterations]
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void sweep(double* restrict out, const double* restrict in, int rows, int n) {
#pragma omp parallel for schedule(static)
  for (int i = 1; i <= rows; ++i)
    for (int j = 1; j < n - 1; ++j) {
      const double* p = in + (long)i * n + j;
      out[(long)i * n + j] = 0.25 * (p[-1] + p[1] + p[-n] + p[n]);
    }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  int iters = argc > 2 ? atoi(argv[2]) : 150;
  int rows = n / size;
  // rows + 2 ghost rows
  double* u = calloc((size_t)(rows + 2) * n, sizeof(double));
  double* v = calloc((size_t)(rows + 2) * n, sizeof(double));
  if (!u || !v) MPI_Abort(MPI_COMM_WORLD, 1);
  if (rank == 0)
    for (int j = 0; j < n; ++j) u[j] = v[j] = 100.0;
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  for (int it = 0; it < iters; ++it) {
    MPI_Sendrecv(u + (long)1 * n, n, MPI_DOUBLE, up, 0, u + (long)(rows + 1) * n, n, MPI_DOUBLE, down,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(u + (long)rows * n, n, MPI_DOUBLE, down, 1, u, n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    sweep(v, u, rows, n);
    double* t = u;
    u = v;
    v = t;
  }
  double local = 0, total = 0;
  for (long k = n; k < (long)(rows + 1) * n; k += 97) local += u[k];
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("halo_mpi: n=%d iters=%d ranks=%d checksum=%.6e\n", n, iters, size, total);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
