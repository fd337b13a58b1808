! hpcrun-lite's annotation API for Fortran (see include/hpcrun-lite.h for what a name does).
!
!   use hpcrun_lite
!   call hpcrun_lite_name(c_loc(pool(1)), int(n * 8, c_size_t), "alpha")
!   call hpcrun_lite_name(c_loc(pool(1)), int(n * 8, c_size_t), "")   ! removes the name
!
! The C function is defined by the preloaded runtime. Fortran has no weak declarations, so the
! module looks it up at run time with dlsym (in glibc's libc since 2.34, no -ldl needed on
! Debian 12): a program built with this module links and runs unchanged without the tool, where
! the call does nothing.
module hpcrun_lite
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: hpcrun_lite_name

  abstract interface
    subroutine name_fn(addr, bytes, name) bind(C)
      import :: c_ptr, c_size_t, c_char
      type(c_ptr), value :: addr
      integer(c_size_t), value :: bytes
      character(kind=c_char), dimension(*) :: name
    end subroutine name_fn
  end interface

  interface
    function dlsym(handle, symbol) bind(C, name="dlsym")
      import :: c_ptr, c_funptr, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), dimension(*) :: symbol
      type(c_funptr) :: dlsym
    end function dlsym
  end interface

  logical, save :: looked_up = .false.
  procedure(name_fn), pointer, save :: runtime_name => null()

contains

  subroutine hpcrun_lite_name(addr, bytes, name)
    type(c_ptr), intent(in) :: addr
    integer(c_size_t), intent(in) :: bytes
    character(len=*), intent(in) :: name
    type(c_funptr) :: f
    if (.not. looked_up) then
      ! RTLD_DEFAULT is the null handle in glibc.
      f = dlsym(c_null_ptr, "hpcrun_lite_name" // c_null_char)
      if (c_associated(f)) call c_f_procpointer(f, runtime_name)
      looked_up = .true.
    end if
    if (associated(runtime_name)) call runtime_name(addr, bytes, trim(name) // c_null_char)
  end subroutine hpcrun_lite_name

end module hpcrun_lite
