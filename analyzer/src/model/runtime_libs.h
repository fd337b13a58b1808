// Which data belongs to a runtime library rather than to the program: MPI and its plugins, the
// OpenMP runtime, the C and C++ runtime, the Fortran runtime, the numerical libraries (FFTW,
// ScaLAPACK, BLAS, LAPACK) and the memory allocators (jemalloc, tcmalloc, mimalloc, TBB). On real codes such libraries hold dozens of small
// variables each (Open MPI's free lists, plugin state), which crowd the program's own out of a
// report; the report model folds each family into one row (report_model.h, --no-group).
#pragma once

#include <string>
#include <string_view>

namespace hpcl::analysis {

enum class RuntimeFamily { None, Mpi, OpenMp, Cxx, Fortran, Numerics, Allocator, Profiler, Python };

// By the module's file name: libmpi*, libopen-pal, libopen-rte, mca_*.so, libucp/uct/ucs/ucm/
// libucx, libpmix, libhwloc, libevent* -> Mpi; libgomp, libomp, libiomp -> OpenMp; libc, ld.so /
// ld-linux, libstdc++, libm, libgcc_s, libpthread, libdl, librt, and the kernel's [vdso] and
// [vvar] (the clock that libc's clock_gettime reads) -> Cxx; libgfortran, libquadmath, libifcore,
// libifport, libflang -> Fortran; libfftw3*, libscalapack*, libblacs*, libopenblas*, libblas*,
// libcblas, liblapack*, libmkl_* -> Numerics; the allocators of hpcl/allocator_libs.h ->
// Allocator; the profiler's own modules (is_profiler_module: libhpcrun-lite, libunwind,
// libZydis) -> Profiler; the Python interpreter (python3.11, libpython3.11.so) and its extension
// modules (*.cpython-311-x86_64-linux-gnu.so: NumPy's, the standard library's) -> Python.
RuntimeFamily runtime_family(std::string_view module_path);

// "[MPI runtime data]", "[OpenMP runtime data]", "[C/C++ runtime data]", "[Fortran runtime
// data]", "[numerical library data]", "[allocator data]", "[profiler's own data]", "[Python
// runtime data]"; "" for None.
std::string runtime_family_row(RuntimeFamily family);

}  // namespace hpcl::analysis
