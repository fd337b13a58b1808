! Fortran names as the source spells them: module variables and procedures (gfortran symbols
! __fields_MOD_*), an allocatable array allocated in a module procedure, a COMMON block (symbol
! legacy_), the main program (MAIN__ in the symbol table, naming_demo in DWARF) and an OpenMP
! region (outlined into __fields_MOD_total._omp_fn.0).
!
! What the report must say (tests/e2e/names.sh, check_report.py `names`): static variables
! fields::mod_table and /legacy/; the grid named after its allocate statement,
! fields::fill_grid (fortran_names.f90:LINE) at the `! site: fields::fill_grid` line; the OpenMP
! loop as the access `fields::total [omp region 0]` marked "omp_region": true, called from
! fields::total; the main program as naming_demo; no name of gfortran's mangling (_MOD_,
! _omp_fn, MAIN__) anywhere.
module fields
  implicit none
  integer, parameter :: n = 1000000
  double precision :: mod_table(n)
  double precision, allocatable :: grid(:)
contains
  subroutine fill_grid()
    integer :: i
    allocate(grid(n)) ! site: fields::fill_grid
    do i = 1, n
      grid(i) = i
    end do
  end subroutine

  double precision function total(a)
    double precision, intent(in) :: a(:)
    integer :: i
    total = 0
    !$omp parallel do reduction(+:total)
    do i = 1, size(a)
      total = total + a(i)
    end do
    !$omp end parallel do
  end function
end module

program naming_demo
  use fields
  implicit none
  double precision :: legacy(500000)
  common /legacy/ legacy
  double precision :: s
  integer :: k
  call fill_grid()
  mod_table = 1
  legacy = 2
  s = 0
  do k = 1, 300
    s = s + total(grid) + total(mod_table) + total(legacy)
  end do
  print *, s
end program
