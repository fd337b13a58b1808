// What merge tells the user about modules without debug information (no file and line for
// their frames): which Debian package each comes from, so the matching -dbgsym package can be
// installed, or how to let libdw fetch debug files from a debuginfod server.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace hpcl::analysis {

// The Debian package owning each path, from one `dpkg -S` run (also tried under the other
// side of the /usr merge and the resolved path). Paths without a package are left out; an
// empty map when dpkg is not there.
std::map<std::string, std::string> debian_packages(const std::vector<std::string>& paths);

// The message, one line per module then how to get the debug files; "" for no modules.
// `packages` as debian_packages returns it.
std::string missing_debug_info_message(const std::vector<std::string>& modules,
                                       const std::map<std::string, std::string>& packages);

// META `no_debug_info` of a database: the paths, ';'-separated.
inline constexpr const char* kMetaNoDebugInfo = "no_debug_info";

}  // namespace hpcl::analysis
