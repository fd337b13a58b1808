/* heat2d: the example program of hpcrun-lite, a 2-D heat-diffusion (Jacobi) solver in MPI+OpenMP.
 *
 * The global grid is split by rows across the MPI ranks; each rank keeps one halo row above and
 * below its block and swaps them with its neighbours every step. The update loops are OpenMP
 * parallel. The data a profile should name:
 *   - the temperature field: one block from malloc (alloc_field) holding both time levels,
 *     which swap roles each step;
 *   - the diffusion coefficients: one block from calloc (zero means insulator);
 *   - heater_profile: a static table, read for every cell but small enough to stay in cache.
 *
 * One loop is deliberately bad: column_means_bad() walks the field column by column, so every access
 * jumps a whole row ahead in memory. A data-centric profile shows the field as the hottest
 * variable and column_means as the code that makes it hot. `heat2d --fixed` walks the rows
 * instead and gives the same output faster.
 *
 * Usage: [mpirun -np N] heat2d [--fixed] [STEPS]
 * Prints a few progress lines and a checksum on stdout (rank 0 only). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 2048, NY_GLOBAL = 2048, DEFAULT_STEPS = 180 };

static double heater_profile[NX]; /* heat added per step, by column */

struct block {
  int rank, size;
  int up, down;   /* neighbour ranks, MPI_PROC_NULL at the domain edge */
  int rows;       /* rows owned by this rank; the field has rows + 2 (halo rows 0 and rows+1) */
  int first_row;  /* global index of owned row 1 */
};

static double *at(double *field, int i, int j) { return &field[(size_t)i * NX + j]; }

/* Both time levels of the field in one block: level 1 starts `field_size(b)` after level 0. */
static size_t field_size(const struct block *b) { return (size_t)(b->rows + 2) * NX; }

__attribute__((noinline)) static double *alloc_field(const struct block *b) {
  double *f = malloc(2 * field_size(b) * sizeof(double));
  if (f == NULL) {
    perror("heat2d: malloc");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t k = 0; k < 2 * field_size(b); k++)
    f[k] = 0.0;
  return f;
}

/* Diffusivity * dt / h^2 per cell: a slow-conducting disc in a faster plate, insulated border. */
static double *make_coefficients(const struct block *b) {
  double *c = calloc((size_t)(b->rows + 2) * NX, sizeof(double));
  if (c == NULL) {
    perror("heat2d: calloc");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
#pragma omp parallel for
  for (int i = 1; i <= b->rows; i++) {
    double y = (double)(b->first_row + i - 1) / NY_GLOBAL - 0.5;
    for (int j = 1; j < NX - 1; j++) {
      double x = (double)j / NX - 0.5;
      *at(c, i, j) = (x * x + y * y < 0.04) ? 0.05 : 0.2;
    }
  }
  return c;
}

static void exchange_halos(const struct block *b, double *u) {
  MPI_Sendrecv(at(u, 1, 0), NX, MPI_DOUBLE, b->up, 0, at(u, b->rows + 1, 0), NX, MPI_DOUBLE,
               b->down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(at(u, b->rows, 0), NX, MPI_DOUBLE, b->down, 1, at(u, 0, 0), NX, MPI_DOUBLE, b->up,
               1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* One Jacobi step; returns this rank's sum of squared changes. */
static double jacobi_step(const struct block *b, const double *c, double *u, double *next) {
  double change = 0.0;
#pragma omp parallel for reduction(+ : change)
  for (int i = 1; i <= b->rows; i++) {
    for (int j = 1; j < NX - 1; j++) {
      double centre = *at(u, i, j);
      double laplacian =
          *at(u, i - 1, j) + *at(u, i + 1, j) + *at(u, i, j - 1) + *at(u, i, j + 1) - 4.0 * centre;
      double updated = centre + c[(size_t)i * NX + j] * laplacian + heater_profile[j];
      *at(next, i, j) = updated;
      change += (updated - centre) * (updated - centre);
    }
  }
  return change;
}

/* Mean temperature of each column of this rank's block. The bad version: parallel over columns,
 * each thread walks down its columns with a stride of one row (16 KiB), missing the cache and the
 * TLB on nearly every access. */
static void column_means_bad(const struct block *b, double *u, double *means) {
#pragma omp parallel for
  for (int j = 0; j < NX; j++) {
    double s = 0.0;
    for (int i = 1; i <= b->rows; i++)
      s += *at(u, i, j);
    means[j] = s / b->rows;
  }
}

/* The fix: walk the rows in memory order and accumulate per column. Same sums, same order. */
static void column_means_fixed(const struct block *b, double *u, double *means) {
#pragma omp parallel for
  for (int j0 = 0; j0 < NX; j0 += 256) {
    double s[256] = {0};
    for (int i = 1; i <= b->rows; i++)
      for (int j = j0; j < j0 + 256; j++)
        s[j - j0] += *at(u, i, j);
    for (int j = j0; j < j0 + 256; j++)
      means[j] = s[j - j0] / b->rows;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct block b;
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.size);

  int fixed = 0, steps = DEFAULT_STEPS;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--fixed") == 0)
      fixed = 1;
    else if (atoi(argv[a]) > 0)
      steps = atoi(argv[a]);
    else {
      if (b.rank == 0)
        fprintf(stderr, "usage: heat2d [--fixed] [STEPS]\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (NY_GLOBAL % b.size != 0) {
    if (b.rank == 0)
      fprintf(stderr, "heat2d: %d rows do not split evenly over %d ranks\n", NY_GLOBAL, b.size);
    MPI_Finalize();
    return 2;
  }
  b.rows = NY_GLOBAL / b.size;
  b.first_row = b.rank * b.rows;
  b.up = b.rank > 0 ? b.rank - 1 : MPI_PROC_NULL;
  b.down = b.rank < b.size - 1 ? b.rank + 1 : MPI_PROC_NULL;

  for (int j = 0; j < NX; j++) /* a heater strip in the middle third of the plate */
    heater_profile[j] = (j > NX / 3 && j < 2 * NX / 3) ? 1e-3 : 0.0;

  double *field = alloc_field(&b);
  double *u[2] = {field, field + field_size(&b)};
  double *coef = make_coefficients(&b);
  double means[NX];

  double mean_sum = 0.0;
  for (int step = 1; step <= steps; step++) {
    exchange_halos(&b, u[0]);
    double local = jacobi_step(&b, coef, u[0], u[1]), change = 0.0;
    double *t = u[0];
    u[0] = u[1];
    u[1] = t;
    MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (fixed) /* a diagnostic every step, as a monitoring code might print */
      column_means_fixed(&b, u[0], means);
    else
      column_means_bad(&b, u[0], means);
    for (int j = 0; j < NX; j++)
      mean_sum += means[j];
    if (b.rank == 0 && (step % 60 == 0 || step == steps))
      printf("step %4d  rms change %.6e\n", step, sqrt(change / ((double)NX * NY_GLOBAL)));
  }

  double total = 0.0;
  MPI_Reduce(&mean_sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (b.rank == 0)
    printf("heat2d: %d ranks, %d x %d grid, %d steps, checksum %.9e\n", b.size, NX, NY_GLOBAL, steps,
           total);
  free(field);
  free(coef);
  MPI_Finalize();
  return 0;
}
