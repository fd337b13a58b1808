! An MPI program in Fortran (`use mpi`): initialises MPI through the Fortran binding
! mpi_init_thread_ (Open MPI's Fortran bindings call PMPI_Init_thread, not the C MPI_Init_thread),
! prints its rank and the size of MPI_COMM_WORLD, and sums a small array so that the run has
! some work. Run as an MPI singleton by tests/e2e/mpi_singleton.sh: its profile must say rank 0.
program mpi_init_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nranks, provided, i
  double precision, allocatable :: a(:)
  double precision :: total
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  allocate(a(1000000))
  do i = 1, size(a)
    a(i) = dble(i)
  end do
  total = sum(a)
  print '(a,i0,a,i0,a,es22.15)', 'mpi_init_fortran: rank ', rank, ' of ', nranks, ', sum ', total
  deallocate(a)
  call MPI_Finalize(ierr)
end program mpi_init_fortran
