! Access patterns with a known answer, in Fortran (issue 22): the cases of access_patterns.c,
! module arrays with constant bounds (their strides are constants of the code) and a list of
! nodes allocated one by one.
!   patterns::rows   rows(n, n), summed in storage order (i fastest)       -> sequential
!   patterns::cols   cols(n, n), summed along its second index first       -> strided, 8 x n bytes
!                                                                             (a column), line use 1/8
!   patterns::recs   records of 8 real(8) (64 bytes), x and y read         -> strided 64 bytes, fields
!                                                                             x and y carry the samples
!   patterns::vals   read through a shuffled index (patterns::idx)         -> indirect
!   patterns::idx    summed in order by a loop of its own (sum_index)      -> sequential: beside the
!                    gather's misses it takes too few samples for a verdict there
!   the nodes        type(node), 48 bytes, one ALLOCATE each (build_list), -> dependent
!                    linked in a shuffled order and walked
! Each phase runs until it has used `budget` seconds of CPU time (the index's loop three, below);
! the phases' times go to HPCL_TEST_TIMING_FILE like workload.c's. The record loop keeps a
! running decay, a recurrence no compiler vectorizes. Built at -O2 and -O3, for baseline x86-64 and for AVX2.
!
! Usage: access_patterns_f [PHASE_SECONDS]   (default 0.4)
module patterns
  implicit none
  integer, parameter :: n = 2048
  integer, parameter :: nrecs = 524288, nvalues = 2097152, nnodes = 524288
  type rec
    real(8) :: x, a, b, c, d, e, f, y
  end type
  type node
    integer(8) :: val
    type(node), pointer :: next => null()
    integer(8) :: pad(4)
  end type
  type node_ptr
    type(node), pointer :: p => null()
  end type
  real(8) :: rows(n, n), cols(n, n)
  type(rec) :: recs(nrecs)
  real(8) :: vals(nvalues)
  integer(4) :: idx(nvalues)
  real(8) :: checksum = 0  ! the last call's result: every call of a kernel gives the same
contains
  subroutine sum_storage_order()
    integer :: i, j
    real(8) :: s
    s = 0
    do j = 1, n
      do i = 1, n
        s = s + rows(i, j)
      end do
    end do
    checksum = s
  end subroutine

  subroutine sum_across()
    integer :: i, j
    real(8) :: s
    s = 0
    do i = 1, n
      do j = 1, n
        s = s + cols(i, j)
      end do
    end do
    checksum = s
  end subroutine

  subroutine decay_records()
    integer :: i
    real(8) :: acc
    acc = 0
    do i = 1, nrecs
      acc = acc * 0.5d0 + recs(i)%x * recs(i)%y
    end do
    checksum = acc
  end subroutine

  subroutine gather()
    integer :: i
    real(8) :: s
    s = 0
    do i = 1, nvalues
      s = s + vals(idx(i))
    end do
    checksum = s
  end subroutine

  ! The index read in order, as the gather reads it, but with nothing else to wait for.
  subroutine sum_index()
    integer :: i
    integer(8) :: s
    s = 0
    do i = 1, nvalues
      s = s + idx(i)
    end do
    checksum = real(s, 8)
  end subroutine

  subroutine walk(head)
    type(node), pointer, intent(in) :: head
    type(node), pointer :: p
    integer(8) :: s
    s = 0
    p => head
    do while (associated(p))
      s = s + p%val
      p => p%next
    end do
    checksum = real(s, 8)
  end subroutine

  integer(8) function next_random(s)
    integer(8), intent(inout) :: s
    s = ieor(s, ishft(s, 13))
    s = ieor(s, ishft(s, -7))
    s = ieor(s, ishft(s, 17))
    next_random = iand(s, huge(s))
  end function

  subroutine build_list(head, seed)
    type(node), pointer, intent(out) :: head
    integer(8), intent(inout) :: seed
    type(node_ptr), allocatable :: order(:)
    type(node_ptr) :: t
    integer :: i, j
    allocate (order(nnodes))
    do i = 1, nnodes
      allocate (order(i)%p)
      order(i)%p%val = i
    end do
    do i = nnodes, 2, -1
      j = int(mod(next_random(seed), int(i, 8))) + 1
      t = order(i)
      order(i) = order(j)
      order(j) = t
    end do
    do i = 1, nnodes - 1
      order(i)%p%next => order(i + 1)%p
    end do
    head => order(1)%p
    deallocate (order)
  end subroutine
end module

program access_patterns_f
  use patterns
  implicit none
  character(len=8), parameter :: labels(6) = [character(len=8) :: 'rows', 'cols', 'recs', 'values', 'index', &
                                                 'list']
  type(node), pointer :: head
  real(8) :: budget, seconds(6), t0, t1
  ! The index's own loop runs three budgets: it reads in order, so most of its time is the
  ! arithmetic after each load (at -O3 without AVX2 each integer is widened by four SSE2
  ! instructions), and the samples that name the load are few: 50-69 of ~400 at 1,000/s, once 12.
  integer, parameter :: weights(6) = [1, 1, 1, 1, 3, 1]
  integer :: phase, i, j, status, u, t
  integer(8) :: calls(6), seed
  character(len=4096) :: arg, path

  budget = 0.4d0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=status) budget
    if (status /= 0 .or. budget <= 0) then
      write (0, '(a)') 'usage: access_patterns_f [PHASE_SECONDS]'
      stop 2
    end if
  end if
  seed = 88172645463325252_8
  rows = 1
  cols = 2
  do i = 1, nrecs
    recs(i)%x = mod(i, 7)
    recs(i)%y = 0.25d0
  end do
  vals = 3
  do i = 1, nvalues
    idx(i) = i
  end do
  do i = nvalues, 2, -1
    j = int(mod(next_random(seed), int(i, 8))) + 1
    t = idx(i)
    idx(i) = idx(j)
    idx(j) = t
  end do
  call build_list(head, seed)

  seconds = 0
  calls = 0
  do phase = 1, 6
    call cpu_time(t0)
    do
      select case (phase)
      case (1)
        call sum_storage_order()
      case (2)
        call sum_across()
      case (3)
        call decay_records()
      case (4)
        call gather()
      case (5)
        call sum_index()
      case default
        call walk(head)
      end select
      calls(phase) = calls(phase) + 1
      call cpu_time(t1)
      if (t1 - t0 >= budget * weights(phase)) exit
    end do
    seconds(phase) = t1 - t0
  end do
  print '(a,es14.6)', 'checksum ', checksum

  call get_environment_variable('HPCL_TEST_TIMING_FILE', path, status=status)
  if (status == 0 .and. len_trim(path) > 0) then
    write (arg, '(a,a,i0)') trim(path), '.', getpid()
    open (newunit=u, file=trim(arg), position='append', action='write')
    do phase = 1, 6
      write (u, '(a,a16,a,i2,a,f12.1,a,f8.3,a)') 'timing: ', labels(phase), ' weight ', weights(phase), '  ', &
        seconds(phase) / calls(phase) * 1.0d6, ' us/call  ', seconds(phase), ' s total'
    end do
    close (u)
  end if
end program
