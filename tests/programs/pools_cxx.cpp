// C++ pools whose frames stand between the program and operator new (issue 21):
//   - a boost::object_pool<Cell> grown by make_cells (Boost.Pool is header-only: its frames are
//     inlined into the program and must count as the allocator's, not name the variable);
//   - a std::pmr::monotonic_buffer_resource made with a size hint in build_tables, whose buffer
//     is allocated on first use by whichever vector asks first.
// Both are read in rounds (default 1500, about 1.5 s). Expected: the pool's chunks named by
// make_cells, the pmr buffer by its resource and build_tables (not the line of the first
// vector), both with most of the samples. Prints one checksum line.
#include <boost/pool/object_pool.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory_resource>
#include <vector>

#include "workload.h"

namespace {

struct Cell {
  double value[6];
  Cell* next;
};

[[gnu::noinline]] Cell* make_cells(boost::object_pool<Cell>& pool, size_t n) {
  Cell* head = nullptr;
  for (size_t i = 0; i < n; i++) {
    Cell* c = pool.construct();
    for (double& v : c->value) v = double(i % 7);
    c->next = head;
    head = c;
  }
  return head;
}

[[gnu::noinline]] double walk_cells(const Cell* c) {
  double s = 0;
  for (; c != nullptr; c = c->next) s += c->value[0] + c->value[5];
  return s;
}

struct Tables {
  std::pmr::monotonic_buffer_resource resource;
  std::pmr::vector<double> first, second;
  explicit Tables(size_t n) : resource(3 * n * sizeof(double)), first(&resource), second(&resource) {}
};

[[gnu::noinline]] Tables* build_tables(size_t n) {
  auto* t = new Tables(n);
  t->first.resize(n, 1.0);
  t->second.resize(n, 2.0);
  return t;
}

[[gnu::noinline]] double sum_tables(const Tables& t) {
  double s = 0;
  for (double v : t.first) s += v;
  for (double v : t.second) s += v;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = rounds_from_args(argc, argv, 1500);
  boost::object_pool<Cell> pool;
  Cell* cells = make_cells(pool, 200000);
  Tables* tables = build_tables(1 << 19);
  double sum = 0;
  for (int r = 0; r < rounds; r++) {
    sum += walk_cells(cells) + sum_tables(*tables);
    asm volatile("" ::: "memory");  // the reads are not loop invariants the compiler may hoist
  }
  std::printf("pools_cxx: %d rounds, checksum %.6e\n", rounds, sum);
  delete tables;
  return 0;
}
