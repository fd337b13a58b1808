// printf-style formatting into a std::string for error messages (libstdc++ 12 has no
// std::format), and the system's words for an errno. The format attribute lets -Wformat check
// every call.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>
#include <system_error>

namespace hpcl {

__attribute__((format(printf, 1, 2))) inline std::string strf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string s(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(s.data(), s.size() + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

inline std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

}  // namespace hpcl
