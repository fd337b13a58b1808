// Uses a C++ allocator that never calls malloc (own_new_lib.cpp), then malloc itself. Each heap
// variable must be reported with the API that made it: the array from new[] as new[] (or as the
// mmap that the allocator made), and the block from malloc as malloc, not as new[].
// Prints a checksum.
#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) static double* alloc_with_new(std::size_t n) { return new double[n]; }
__attribute__((noinline)) static double* alloc_with_malloc(std::size_t n) {
  return static_cast<double*>(std::malloc(n * sizeof(double)));
}

int main() {
  const std::size_t n = 1 << 20;
  double* a = alloc_with_new(n);
  double* b = alloc_with_malloc(n);
  double s = 0;
  for (int round = 0; round < 200; ++round)
    for (std::size_t i = 0; i < n; i += 8) s += (a[i] = i) + (b[i] = i);
  std::printf("checksum %.3e\n", s);
  std::free(b);
  delete[] a;
  return 0;
}
