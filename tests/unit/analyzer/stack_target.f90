! Fortran subject for naming stack variables (stack_locals_test.cpp), built -g -O2
! -fstack-arrays -fopenmp and linked with stack_target.c built STACK_REPORT_ONLY: stack_report
! prints the caller's call site and CFA and where the two arrays it is given lie relative to that
! CFA. The test reads the expected declaration lines through the DECL comments.
module stack_cases
  use iso_c_binding
  implicit none
  interface
    subroutine stack_report(label, a, a_size, b, b_size) bind(c, name="stack_report")
      import :: c_char, c_double, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: label
      real(c_double), dimension(*), intent(in) :: a, b
      integer(c_size_t), value :: a_size, b_size
    end subroutine
  end interface
contains
  ! An automatic array (alloca'd under -fstack-arrays) beside a fixed local array.
  subroutine automatic(n, out)
    integer, intent(in) :: n
    real(8), intent(out) :: out
    real(8) :: tmp(n)     ! DECL: tmp
    real(8) :: loc(4096)  ! DECL: loc
    integer :: i
    do i = 1, n
      tmp(i) = i * 0.5d0
    end do
    do i = 1, 4096
      loc(i) = i
    end do
    call stack_report("automatic"//c_null_char, tmp, int(8 * n, c_size_t), loc, 32768_c_size_t)
    out = sum(tmp) + sum(loc)
  end subroutine

  ! The reversed, doubled section is an array temporary on the stack: no variable names it.
  subroutine temporary(n, a, out)
    integer, intent(in) :: n
    real(8), intent(in) :: a(n)
    real(8), intent(out) :: out
    call stack_report("temporary"//c_null_char, a(n:1:-1) * 2d0, int(8 * n, c_size_t), a, &
                      int(8 * n, c_size_t))
    out = a(1)
  end subroutine
end module

program stack_target
  use stack_cases
  implicit none
  real(8) :: r1, r2
  real(8), allocatable :: a(:)
  integer :: n
  ! tmp about as large as loc: the test's slots, which widen with the distance from the CFA,
  ! then fit inside either array.
  n = 4000 + command_argument_count()
  allocate(a(n))
  a = 1
  call automatic(n, r1)
  call temporary(n, a, r2)
  if (r1 + r2 < 0) stop 1
end program
