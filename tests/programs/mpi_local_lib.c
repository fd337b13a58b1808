/* The MPI half of mpi_local.c, in a library of its own linked against libmpi. */
#include <mpi.h>
#include <stdio.h>

int mpi_local_run(void) {
  int provided = 0, rank = -1, size = 0;
  int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "mpi_local: MPI_Init_thread failed with %d\n", rc);
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d of %d\n", rank, size);
  MPI_Finalize();
  return 0;
}
