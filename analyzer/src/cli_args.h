// Command-line parsing shared by hpcprof-lite and hpcprof-lite-mpi: option forms
// ("--name=value", "--name value", "-xvalue", "-x value") and counts.
#pragma once

#include <charconv>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace hpcl::analysis {

inline std::optional<size_t> parse_count(const std::string& s) {
  size_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// The arguments after argv[0], consumed in order.
class Args {
 public:
  Args(int argc, char** argv) : args_(argv + 1, argv + argc) {}
  bool done() const { return pos_ >= args_.size(); }
  std::string next() { return args_[pos_++]; }
  // If `arg` is one of the names, stores its value (from "=value" or the next argument).
  bool option(const std::string& arg, std::initializer_list<const char*> names, std::string* value,
              std::string* error) {
    for (std::string name : names) {
      if (arg == name) {
        if (done()) {
          *error = name + " needs a value";
          return true;
        }
        *value = next();
        return true;
      }
      bool long_form = name.starts_with("--");
      if (long_form && arg.starts_with(name + "=")) {
        *value = arg.substr(name.size() + 1);
        return true;
      }
      if (!long_form && arg.size() > name.size() && arg.starts_with(name)) {
        *value = arg.substr(name.size());
        return true;
      }
    }
    return false;
  }

 private:
  std::vector<std::string> args_;
  size_t pos_ = 0;
};

}  // namespace hpcl::analysis
