! The timing lines of tests/programs/workload.h, from Fortran: one line per phase appended to
! $HPCL_TEST_TIMING_FILE.<pid>, nothing when the variable is unset. The end-to-end tests take
! the times as the truth the samples' shares must match.
module workload_timing
  implicit none
contains
  subroutine write_timing(labels, weights, seconds, calls)
    character(len=*), intent(in) :: labels(:)
    integer, intent(in) :: weights(:), calls(:)
    real(8), intent(in) :: seconds(:)
    character(len=4096) :: prefix
    character(len=4200) :: path
    integer :: length, status, unit, j
    call get_environment_variable("HPCL_TEST_TIMING_FILE", prefix, length, status)
    if (status /= 0 .or. length == 0) return
    write (path, '(a, a, i0)') trim(prefix), ".", getpid()
    open (newunit=unit, file=trim(path), position="append", action="write")
    do j = 1, size(labels)
      write (unit, '(a, a16, a, i2, f10.1, a, f7.3, a)') "timing: ", labels(j), " weight ", weights(j), &
        seconds(j) / calls(j) * 1d6, " us/call ", seconds(j), " s total"
    end do
    close (unit)
  end subroutine write_timing
end module workload_timing
