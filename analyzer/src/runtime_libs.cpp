// Runtime library families (see runtime_libs.h).
#include "runtime_libs.h"

#include "location.h"

namespace hpcl::analysis {
namespace {

bool starts_with_any(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (s.starts_with(p)) return true;
  return false;
}

}  // namespace

RuntimeFamily runtime_family(std::string_view module_path) {
  std::string_view base = basename_of(module_path);
  if (base.empty()) return RuntimeFamily::None;
  // Plugins are loaded from the library's own directory (openmpi/lib/openmpi3/mca_btl_vader.so,
  // ucx/libuct_ib.so); the file name alone is enough.
  if (starts_with_any(base, {"libmpi", "libopen-pal", "libopen-rte", "mca_", "libucp", "libuct",
                             "libucs", "libucm", "libucx", "libpmix", "libhwloc", "libevent"}))
    return RuntimeFamily::Mpi;
  if (starts_with_any(base, {"libgomp", "libomp", "libiomp"})) return RuntimeFamily::OpenMp;
  if (starts_with_any(base, {"libc.so", "libc-", "ld-linux", "ld.so", "ld64.so", "libstdc++",
                             "libm.so", "libm-", "libgcc_s", "libpthread", "libdl.so", "libdl-",
                             "librt.so", "librt-"}))
    return RuntimeFamily::Cxx;
  return RuntimeFamily::None;
}

std::string runtime_family_row(RuntimeFamily family) {
  switch (family) {
    case RuntimeFamily::Mpi: return "[MPI runtime data]";
    case RuntimeFamily::OpenMp: return "[OpenMP runtime data]";
    case RuntimeFamily::Cxx: return "[C/C++ runtime data]";
    case RuntimeFamily::None: break;
  }
  return "";
}

}  // namespace hpcl::analysis
