! named_pool_fortran: the Fortran binding of hpcrun_lite_name (include/hpcrun_lite.f90). One
! allocatable pool of 3 x 512K doubles; its thirds are named alpha, beta and gamma and read in
! proportions 3:2:1 (default 2000 rounds, about 2 s); each read times itself with cpu_time and the
! program writes the timing lines of tests/programs/workload.h to $HPCL_TEST_TIMING_FILE.<pid>.
! Expected: three variables named alpha, beta and gamma with the shares of the time measured.
! Without the tool the program runs unchanged. Prints one checksum line.
program named_pool_fortran
  use, intrinsic :: iso_c_binding
  use hpcrun_lite
  use workload_timing
  implicit none
  integer, parameter :: n = 524288
  real(c_double), allocatable, target :: pool(:)
  character(len=16) :: labels(3) = [character(len=16) :: "alpha", "beta", "gamma"]
  integer :: weights(3) = [3, 2, 1]
  real(8) :: seconds(3) = 0, t0, t1, total = 0
  integer :: rounds = 2000, r, i, k, calls(3) = 0
  character(len=32) :: arg

  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  allocate (pool(3 * n))
  do i = 1, 3 * n
    pool(i) = dble(mod(i, 1024)) * 0.001d0
  end do
  do k = 1, 3
    call hpcrun_lite_name(c_loc(pool((k - 1) * n + 1)), int(n * 8, c_size_t), labels(k))
  end do
  do r = 1, rounds
    do k = 1, 3
      do i = 1, weights(k)
        call cpu_time(t0)
        total = total + part_sum(pool((k - 1) * n + 1:k * n))
        call cpu_time(t1)
        seconds(k) = seconds(k) + (t1 - t0)
        calls(k) = calls(k) + 1
      end do
    end do
  end do
  call write_timing(labels, weights, seconds, calls)
  print '(a, i0, a, es20.12)', "named_pool_fortran: ", rounds, " rounds, checksum ", total
  deallocate (pool)

contains

  function part_sum(a) result(s)
    real(c_double), intent(in) :: a(:)
    real(8) :: s
    integer :: j
    s = 0
    do j = 1, size(a)
      s = s + a(j)
    end do
  end function part_sum

end program named_pool_fortran
