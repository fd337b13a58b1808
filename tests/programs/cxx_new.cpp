// C++ allocations read in known proportions: an array from new[] (weight 3), a std::vector
// whose storage comes from operator new (weight 1), and a static array inside a namespace
// (weight 2), whose symbol is mangled. Also throws and catches one exception, because a
// preloaded runtime that drags in a second unwinder can break C++ exception handling.
//
// Usage: cxx_new [ROUNDS]   (one round = 6 kernel calls; the default takes about 2.5 s with
// OMP_NUM_THREADS=2). Prints two lines on stdout.
#include "kernel.h"
#include "workload.h"

#include <cstdio>
#include <stdexcept>
#include <vector>

namespace tables {
double lookup[TEST_ARRAY_DOUBLES];
}

namespace {

constexpr int kDefaultRounds = 1800;

[[gnu::noinline]] void refuse(int value) {
  if (value > 0)
    throw std::runtime_error("thrown under the tool");
}

} // namespace

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, kDefaultRounds);

  auto *with_new = new double[TEST_ARRAY_DOUBLES];
  std::vector<double> with_vector(TEST_ARRAY_DOUBLES);
  fill_array(with_new, TEST_ARRAY_DOUBLES, 1.0);
  fill_array(with_vector.data(), TEST_ARRAY_DOUBLES, 2.0);
  fill_array(tables::lookup, TEST_ARRAY_DOUBLES, 3.0);

  try {
    refuse(argc);
    std::puts("exception: not thrown");
  } catch (const std::runtime_error &e) {
    std::printf("exception: caught \"%s\"\n", e.what());
  }

  const test_array arrays[] = {
      {"operator new[]", with_new, 3},
      {"operator new", with_vector.data(), 1},
      {"tables::lookup", tables::lookup, 2},
  };
  double checksum = run_weighted(arrays, 3, rounds);
  std::printf("cxx_new: 3 arrays, %d rounds, checksum %.12e\n", rounds, checksum);

  delete[] with_new;
  return 0;
}
