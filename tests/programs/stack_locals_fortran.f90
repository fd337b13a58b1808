! stack_locals_fortran: stack data named by its owner in Fortran (issue 38). sweep_auto reads an
! automatic array tmp(n) and sweep_fixed a fixed-size local loc(4096); built -O2 -g -fopenmp
! -fstack-arrays -fno-inline, both live in their subroutine's frame (the automatic one in its
! dynamic area), and no sweep is inlined into the program.
! Each sweep times itself with cpu_time and the program writes the timing lines of
! tests/programs/workload.h to $HPCL_TEST_TIMING_FILE.<pid> (default 1500 rounds, about 2 s).
! Both read with the same loop, one add from memory per element, weights 2:1, unrolled by 2 in
! both. A timer sample that lands on a loop's compare or branch has no data address; in a loop of
! one access per iteration such landings took under 1% of sweep_auto's samples in most runs but
! 15-23% in about one run in four (24 runs on the development VM, 4 Dec 2026), and tmp's share
! then fell up to 5 points below its time; the unrolled loop had about 1% in every run. (Such
! landings now go to the loop's one load, rule LoopAccess; the unrolling stays as calibrated.)
! Expected: two stack rows, tmp and loc, named with their subroutine, with the shares of the time
! measured. Prints one checksum line.
module stack_kernels
  implicit none
contains

  ! Keeps an array in memory: the compiler cannot see what an external reader does with it.
  subroutine keep(a)
    real(8), intent(inout) :: a(:)
    a(1) = a(1) + 0d0
  end subroutine keep

  subroutine sweep_auto(n, reps, s)
    integer, intent(in) :: n, reps
    real(8), intent(inout) :: s
    real(8) :: tmp(n)
    integer :: r, j
    do j = 1, n
      tmp(j) = dble(mod(j, 97)) * 0.5d0
    end do
    call keep(tmp)
    do r = 1, reps
      ! Unrolled by 2, as GCC unrolls sweep_fixed's loop of constant length: both loops then have
      ! the same shape (header comment).
      !GCC$ unroll 2
      do j = 1, n
        s = s + tmp(j)
      end do
      call keep(tmp)
    end do
  end subroutine sweep_auto

  subroutine sweep_fixed(reps, s)
    integer, intent(in) :: reps
    real(8), intent(inout) :: s
    real(8) :: loc(4096)
    integer :: r, j
    do j = 1, 4096
      loc(j) = dble(mod(j, 89)) * 0.25d0
    end do
    call keep(loc)
    do r = 1, reps
      do j = 1, 4096
        s = s + loc(j)
      end do
      call keep(loc)
    end do
  end subroutine sweep_fixed

end module stack_kernels

program stack_locals_fortran
  use stack_kernels
  use workload_timing
  implicit none
  character(len=16) :: labels(2) = [character(len=16) :: "tmp", "loc"]
  integer :: weights(2) = [2, 1]
  real(8) :: seconds(2) = 0, t0, t1, total = 0
  integer :: rounds = 1500, r, calls(2) = 0
  character(len=32) :: arg

  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  do r = 1, rounds
    call cpu_time(t0)
    call sweep_auto(4096, 100 * weights(1), total)
    call cpu_time(t1)
    seconds(1) = seconds(1) + (t1 - t0)
    call cpu_time(t0)
    call sweep_fixed(100 * weights(2), total)
    call cpu_time(t1)
    seconds(2) = seconds(2) + (t1 - t0)
    calls = calls + 1
  end do
  call write_timing(labels, weights, seconds, calls)
  print '(a, i0, a, es20.12)', "stack_locals_fortran: ", rounds, " rounds, checksum ", total
end program stack_locals_fortran
