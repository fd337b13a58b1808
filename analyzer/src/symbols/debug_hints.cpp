// See debug_hints.h.
#include "debug_hints.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "location.h"

namespace hpcl::analysis {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

// Names a path may have in dpkg's database: as given, resolved, and across the /usr merge
// (Debian 12 lists /usr/lib/... files under /lib/... for packages built before the merge).
std::vector<std::string> aliases(const std::string& path) {
  std::vector<std::string> out{path};
  std::error_code ec;
  std::string real = std::filesystem::canonical(path, ec).string();
  if (!ec && real != path) out.push_back(real);
  for (size_t i = 0, n = out.size(); i < n; ++i) {
    const std::string& p = out[i];
    if (p.starts_with("/usr/")) out.push_back(p.substr(4));
    else if (p.starts_with("/lib") || p.starts_with("/bin/") || p.starts_with("/sbin/"))
      out.push_back("/usr" + p);
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> debian_packages(const std::vector<std::string>& paths) {
  std::map<std::string, std::string> owner_of_alias;  // alias -> path asked about
  std::string command = "dpkg -S --";
  for (const std::string& p : paths)
    for (const std::string& a : aliases(p))
      if (owner_of_alias.emplace(a, p).second) command += " " + shell_quote(a);
  std::map<std::string, std::string> packages;
  if (owner_of_alias.empty()) return packages;
  FILE* in = popen((command + " 2>/dev/null").c_str(), "r");
  if (in == nullptr) return packages;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, in) != nullptr) {
    // "libgomp1:amd64: /usr/lib/x86_64-linux-gnu/libgomp.so.1" (diversions list several).
    std::string line(buf);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    size_t sep = line.find(": /");
    if (sep == std::string::npos) continue;
    auto it = owner_of_alias.find(line.substr(sep + 2));
    if (it == owner_of_alias.end()) continue;
    std::string pkg = line.substr(0, line.find_first_of(":,"));
    if (!pkg.empty()) packages.emplace(it->second, pkg);
  }
  pclose(in);
  return packages;
}

std::string missing_debug_info_message(const std::vector<std::string>& modules,
                                       const std::map<std::string, std::string>& packages) {
  if (modules.empty()) return {};
  std::string msg = "no debug information for " + std::to_string(modules.size()) +
                    (modules.size() == 1 ? " module: its" : " modules: their") +
                    " frames are named by symbols, or by the start of their function in the "
                    "code (module!0xADDR), without file and line.";
  // One line per package (an MPI stack is dozens of libraries from a few packages), then one
  // per module that no package owns.
  std::map<std::string, std::string> by_package;  // package -> module basenames
  std::string install;
  for (const std::string& m : modules) {
    auto it = packages.find(m);
    if (it == packages.end()) continue;
    std::string& names = by_package[it->second];
    names += (names.empty() ? "" : ", ") + std::string(basename_of(m));
  }
  for (const auto& [pkg, names] : by_package) {
    msg += "\n  " + pkg + ": " + names;
    install += " " + pkg + "-dbgsym";
  }
  for (const std::string& m : modules)
    if (packages.find(m) == packages.end())
      msg += "\n  " + m + ": rebuild it with -g, or give merge --debug-dir where its debug file is";
  if (!install.empty())
    msg += "\n  Install the debug packages (from 'deb http://deb.debian.org/debian-debug/ "
           "<suite>-debug main' in the apt sources): apt install" + install;
  msg += "\n  With network access, libdw can fetch debug files instead: "
         "export DEBUGINFOD_URLS=https://debuginfod.debian.net before merging.";
  return msg;
}

}  // namespace hpcl::analysis
