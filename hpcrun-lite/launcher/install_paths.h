// Where the launcher finds what it runs, relative to its own executable, so that an installed
// prefix works wherever it is copied or moved and the build tree works as it is: the runtime
// library and the validation kernel, each first where `cmake --install` puts it (bin/ to lib*/ and
// to libexec/hpcrun-lite/, paths fixed at configure time), then where the build tree has it.
#pragma once

#include <string>

namespace hpcrun {

// The directory of the running launcher (/proc/self/exe, symbolic links resolved), "" if unknown.
std::string launcher_dir();

// The runtime library (libhpcrun-lite.so), absolute, or "" if missing.
std::string find_runtime_library();

// The built-in kernel of --check --validate, absolute, or "" if missing.
std::string find_validate_kernel();

}  // namespace hpcrun
