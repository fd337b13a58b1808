// Interpreted-code frames (script_code.h).
#include "symbols/script_code.h"

#include <fstream>
#include <map>
#include <mutex>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl::analysis {

bool is_script_location(const Location& loc) { return loc.module == kScriptModulePath; }

namespace {

// The installed packages whose Python code makes and reads arrays for a program, named by their
// top-level directory: the SciPy stack, its MPI binding, and the array libraries built like it.
constexpr std::string_view kPythonRuntimePackages[] = {
    "numpy", "scipy", "mpi4py", "numba", "numexpr", "pandas", "h5py", "netCDF4", "xarray",
    "dask", "cupy", "cupyx", "pyfftw", "torch", "jax", "jaxlib", "llvmlite"};

}  // namespace

bool is_python_runtime_file(std::string_view file) {
  // Code the interpreter or a package generated, named in angle brackets: "<frozen
  // importlib._bootstrap>", NumPy's "<__array_function__ internals>". A program's own code run
  // from a string or typed in is "<string>", "<stdin>".
  if (file.starts_with("<") && file != "<string>" && file != "<stdin>") return true;
  for (std::string_view dir : {"/site-packages/", "/dist-packages/"}) {
    const size_t at = file.find(dir);
    if (at == std::string_view::npos) continue;
    std::string_view package = file.substr(at + dir.size());
    package = package.substr(0, package.find('/'));
    for (std::string_view p : kPythonRuntimePackages)
      if (package == p) return true;
    return false;
  }
  // The standard library: .../lib/python3.11/..., .../lib64/python3.11/...
  for (std::string_view lib : {"/lib/python", "/lib64/python"})
    for (size_t at = file.find(lib); at != std::string_view::npos; at = file.find(lib, at + 1)) {
      size_t v = at + lib.size();
      if (v < file.size() && file[v] >= '2' && file[v] <= '9') return true;
    }
  return false;
}

bool returns_its_call(const Location& loc) {
  if (!is_script_location(loc)) return false;
  const std::string statement = script_source_line(loc.file, loc.line);
  return statement.starts_with("return ") && statement.find('(') != std::string::npos;
}

const Location* program_script_frame(const std::vector<Location>& path) {
  const Location* first = nullptr;
  for (const Location& loc : path) {
    if (!is_script_location(loc)) continue;
    if (!is_python_runtime_file(loc.file)) return &loc;
    if (!first) first = &loc;
  }
  return first;
}

std::string script_source_line(std::string_view file, uint32_t line, size_t max) {
  if (line == 0 || file.empty() || file[0] == '<') return "";
  // Reports label every variable and access path: a file is read once and its lines kept.
  static std::mutex mu;
  static std::map<std::string, std::vector<std::string>, std::less<>> files;
  std::lock_guard<std::mutex> lock(mu);
  auto it = files.find(file);
  if (it == files.end()) {
    std::vector<std::string> lines;
    std::ifstream in{std::string(file)};
    for (std::string l; lines.size() < 1000000 && std::getline(in, l);) lines.push_back(std::move(l));
    it = files.emplace(std::string(file), std::move(lines)).first;
  }
  if (line > it->second.size()) return "";
  std::string_view text = it->second[line - 1];
  size_t b = text.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  text = text.substr(b);
  // A comment after the statement is not part of it: the first '#' outside a string literal.
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#') {
      text = text.substr(0, i);
      break;
    }
  }
  size_t e = text.find_last_not_of(" \t\r");
  if (e == std::string_view::npos) return "";
  text = text.substr(0, e + 1);
  // Cut at a character boundary (UTF-8 continuation bytes are 10xxxxxx).
  if (text.size() <= max) return std::string(text);
  size_t cut = max - 1;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "…";
}

}  // namespace hpcl::analysis
