// Loops sampled by sampling_test.cpp, in their own translation unit so that their code is the
// plain -O2 code of a real program (see CMakeLists.txt).
#include <cstddef>

extern "C" __attribute__((noinline)) double hpcl_stream_sum(const double* a, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i];
  return s;
}

extern "C" __attribute__((noinline)) void hpcl_stream_scale(double* b, const double* a, size_t n, double k) {
  for (size_t i = 0; i < n; ++i) b[i] = k * a[i];
}
