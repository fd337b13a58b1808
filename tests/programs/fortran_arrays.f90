! Fortran data the sampler must find: a module array, an allocatable array and a COMMON block,
! read by one OpenMP kernel in known proportions (decoder rule LoadFeeds).
!
! Built with gfortran -O3 -fopenmp and no -march: the reduction over integer(8) is vectorized for
! baseline x86-64 as `movdqu (%rdx),%xmm2; add $0x10,%rdx; paddq %xmm2,%xmm0`, so the timer
! sample lands on the paddq or after it, two instructions past the load, with rdx advanced.
!
! Arrays of 4 MiB, kernel calls per round:
!   fields::mod_table (module variable, symbol __fields_MOD_mod_table)   weight 3
!   the allocatable `heap` (allocated in the main program, site fortran_arrays) weight 2
!   /legacy/ (COMMON block, symbol legacy_)                               weight 1
! Expected: each array's share of the samples on the three matches the time share the program
! measures itself (HPCL_TEST_TIMING_FILE, lines like workload.c's; CPU time of the process, which
! is what the samples measure, so other programs on a busy machine do not blur it) within 5 points, and at least
! half of all samples carry a data address.
!
! Usage: fortran_arrays [ROUNDS]   (default about 2.5 s with OMP_NUM_THREADS=2)
module fields
  implicit none
  integer, parameter :: n = 524288
  integer(8) :: mod_table(n)
contains
  function sum_array(a) result(s)
    integer(8), intent(in) :: a(:)
    integer(8) :: s
    integer :: i
    s = 0
    !$omp parallel do reduction(+:s)
    do i = 1, size(a)
      s = s + a(i)
    end do
  end function
end module

program fortran_arrays
  use fields
  implicit none
  integer(8), allocatable :: heap(:)
  integer(8) :: legacy_arr(n)
  common /legacy/ legacy_arr
  character(len=16), parameter :: labels(3) = [character(len=16) :: 'mod_table', 'heap', 'legacy']
  integer, parameter :: weights(3) = [3, 2, 1]
  integer(8) :: total
  real(8) :: seconds(3), t0, t1
  integer :: r, k, a, rounds, status, u
  character(len=4096) :: arg, path

  rounds = 1000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=status) rounds
    if (status /= 0 .or. rounds <= 0) then
      write (0, '(a)') 'usage: fortran_arrays [ROUNDS]'
      stop 2
    end if
  end if
  allocate (heap(n))
  heap = 1
  mod_table = 2
  legacy_arr = 3
  total = 0
  seconds = 0
  do r = 1, rounds
    do a = 1, 3
      do k = 1, weights(a)
        call cpu_time(t0)
        select case (a)
        case (1)
          total = total + sum_array(mod_table)
        case (2)
          total = total + sum_array(heap)
        case default
          total = total + sum_array(legacy_arr)
        end select
        call cpu_time(t1)
        seconds(a) = seconds(a) + (t1 - t0)
      end do
    end do
  end do
  print '(a,i0)', 'checksum ', total

  call get_environment_variable('HPCL_TEST_TIMING_FILE', path, status=status)
  if (status == 0 .and. len_trim(path) > 0) then
    write (arg, '(a,a,i0)') trim(path), '.', getpid()
    open (newunit=u, file=trim(arg), position='append', action='write')
    do a = 1, 3
      write (u, '(a,a16,a,i2,a,f12.1,a,f8.3,a)') 'timing: ', labels(a), ' weight ', weights(a), '  ', &
        seconds(a) / (rounds * weights(a)) * 1.0d6, ' us/call  ', seconds(a), ' s total'
    end do
    close (u)
  end if
  deallocate (heap)
end program
