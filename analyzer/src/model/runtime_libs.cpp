// Runtime library families (see runtime_libs.h).
#include "runtime_libs.h"

#include "hpcl/allocator_libs.h"
#include "symbols/location.h"

namespace hpcl::analysis {
namespace {

struct Prefix {
  std::string_view prefix;
  RuntimeFamily family;
};

// By file name. Plugins are loaded from the library's own directory
// (openmpi/lib/openmpi3/mca_btl_vader.so, ucx/libuct_ib.so); the file name alone is enough.
constexpr Prefix kPrefixes[] = {
    {"libmpi", RuntimeFamily::Mpi},       {"libopen-pal", RuntimeFamily::Mpi},
    {"libopen-rte", RuntimeFamily::Mpi},  {"mca_", RuntimeFamily::Mpi},
    {"libucp", RuntimeFamily::Mpi},       {"libuct", RuntimeFamily::Mpi},
    {"libucs", RuntimeFamily::Mpi},       {"libucm", RuntimeFamily::Mpi},
    {"libucx", RuntimeFamily::Mpi},       {"libpmix", RuntimeFamily::Mpi},
    {"libhwloc", RuntimeFamily::Mpi},     {"libevent", RuntimeFamily::Mpi},
    {"libgomp", RuntimeFamily::OpenMp},   {"libomp", RuntimeFamily::OpenMp},
    {"libiomp", RuntimeFamily::OpenMp},   {"libc.so", RuntimeFamily::Cxx},
    {"libc-", RuntimeFamily::Cxx},        {"ld-linux", RuntimeFamily::Cxx},
    {"ld.so", RuntimeFamily::Cxx},        {"ld64.so", RuntimeFamily::Cxx},
    {"libstdc++", RuntimeFamily::Cxx},    {"libm.so", RuntimeFamily::Cxx},
    {"libm-", RuntimeFamily::Cxx},        {"libgcc_s", RuntimeFamily::Cxx},
    {"libpthread", RuntimeFamily::Cxx},   {"libdl.so", RuntimeFamily::Cxx},
    {"libdl-", RuntimeFamily::Cxx},       {"librt.so", RuntimeFamily::Cxx},
    {"librt-", RuntimeFamily::Cxx},       {"[vdso]", RuntimeFamily::Cxx},
    {"[vvar]", RuntimeFamily::Cxx},       {"linux-vdso", RuntimeFamily::Cxx},
    {"libgfortran", RuntimeFamily::Fortran},
    {"libquadmath", RuntimeFamily::Fortran}, {"libifcore", RuntimeFamily::Fortran},
    {"libifport", RuntimeFamily::Fortran}, {"libflang", RuntimeFamily::Fortran},
    {"libfftw3", RuntimeFamily::Numerics}, {"libscalapack", RuntimeFamily::Numerics},
    {"libblacs", RuntimeFamily::Numerics}, {"libopenblas", RuntimeFamily::Numerics},
    {"libblas", RuntimeFamily::Numerics},  {"libcblas", RuntimeFamily::Numerics},
    {"liblapack", RuntimeFamily::Numerics}, {"libmkl_", RuntimeFamily::Numerics},
    {"libpython", RuntimeFamily::Python},  {"python3", RuntimeFamily::Python},
    {"python2", RuntimeFamily::Python},
};

}  // namespace

RuntimeFamily runtime_family(std::string_view module_path) {
  if (is_profiler_module(module_path)) return RuntimeFamily::Profiler;
  std::string_view base = basename_of(module_path);
  for (const Prefix& p : kPrefixes)
    if (!base.empty() && base.starts_with(p.prefix)) return p.family;
  // An extension module of CPython, named by its ABI tag (PEP 3149).
  if (base.find(".cpython-") != std::string_view::npos && base.ends_with(".so"))
    return RuntimeFamily::Python;
  return is_allocator_library(base) ? RuntimeFamily::Allocator : RuntimeFamily::None;
}

std::string runtime_family_row(RuntimeFamily family) {
  switch (family) {
    case RuntimeFamily::Mpi: return "[MPI runtime data]";
    case RuntimeFamily::OpenMp: return "[OpenMP runtime data]";
    case RuntimeFamily::Cxx: return "[C/C++ runtime data]";
    case RuntimeFamily::Fortran: return "[Fortran runtime data]";
    case RuntimeFamily::Numerics: return "[numerical library data]";
    case RuntimeFamily::Allocator: return "[allocator data]";
    case RuntimeFamily::Profiler: return "[profiler's own data]";
    case RuntimeFamily::Python: return "[Python runtime data]";
    case RuntimeFamily::None: break;
  }
  return "";
}

}  // namespace hpcl::analysis
