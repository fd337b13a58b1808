// One program, linked against each common allocator (glibc's malloc, jemalloc, tcmalloc,
// mimalloc, TBB's tbbmalloc_proxy), whose variables must come out the same whatever allocates
// them. Built once per allocator by tests/programs/CMakeLists.txt; API_ALLOC is the allocator's
// own entry point (mallocx, tc_malloc, mi_malloc, scalable_malloc).
//
//   allocators arrays [ROUNDS]      three `new double[]` arrays (new_alpha, new_beta, new_gamma),
//                                   one from malloc (malloc_delta) and, with an allocator that has
//                                   one, one from its own API (api_epsilon); read in proportions
//                                   3:2:1:2:2 through the OpenMP kernel (default 1000 rounds,
//                                   about 2-3 s). Expected: each array a variable named by the
//                                   function that allocated it, its share the program's measured
//                                   time share (HPCL_TEST_TIMING_FILE lines), little untracked.
//   allocators nodes [ROUNDS]       1M 48-byte nodes, one malloc each (make_nodes), linked in a
//                                   random order and walked (walk_list), beside a 32 MiB array
//                                   (make_array) summed each round. Expected: the variables'
//                                   shares add up to at most 100% (102% with the estimates'
//                                   noise), the nodes' estimated share near the walk's time.
//   allocators new_handler [ROUNDS] operator new of 1 PiB with a new_handler installed: the
//                                   handler runs once (it removes itself) and bad_alloc is caught;
//                                   the nothrow form returns null after its handler; then two
//                                   new[] arrays (new_alpha, new_beta) are read 2:1. Expected: the
//                                   same output under the tool (handler calls, the exception), and
//                                   both arrays variables: a throw out of operator new must not
//                                   leave the tool unable to track (default 1500 rounds).
//   allocators containers [ROUNDS]  a std::vector<double> (make_vector) beside a
//                                   std::unordered_map<long, long> (make_map) of 1M entries
//                                   looked up at random. Expected: each container's share near
//                                   its measured time; the vector takes no samples of the map.
// Prints one checksum line; the output does not depend on timing.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <unordered_map>
#include <vector>

#include "kernel.h"
#include "workload.h"

// Macros, not functions: the allocator's call must be in api_epsilon itself, the frame that
// names the variable.
#if defined(ALLOC_JEMALLOC)
#include <jemalloc/jemalloc.h>
#define API_ALLOC(n) mallocx((n), 0)
#define API_FREE(p, n) sdallocx((p), (n), 0)
#elif defined(ALLOC_TCMALLOC)
#include <gperftools/tcmalloc.h>
#define API_ALLOC(n) tc_malloc(n)
#define API_FREE(p, n) tc_free(p)
#elif defined(ALLOC_MIMALLOC)
#include <mimalloc.h>
#define API_ALLOC(n) mi_malloc(n)
#define API_FREE(p, n) mi_free(p)
#elif defined(ALLOC_TBB)
#include <tbb/scalable_allocator.h>
#define API_ALLOC(n) scalable_malloc(n)
#define API_FREE(p, n) scalable_free(p)
#endif

namespace {

constexpr size_t kDoubles = TEST_ARRAY_DOUBLES;

double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Runs `rounds` rounds of two phases, times each, writes their timing lines (workload.h) and
// returns the sum of what they returned.
template <typename A, typename B>
double timed_rounds(int rounds, const char* label_a, A phase_a, const char* label_b, B phase_b) {
  double seconds[2] = {0, 0}, sum = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = cpu_seconds();
    sum += phase_a();
    double t1 = cpu_seconds();
    sum += phase_b();
    seconds[0] += t1 - t0;
    seconds[1] += cpu_seconds() - t1;
  }
  const char* labels[] = {label_a, label_b};
  const int weights[] = {1, 1};
  const long calls[] = {rounds, rounds};
  write_timing(labels, weights, seconds, calls, 2);
  return sum;
}

template <typename T>
T* check(T* p) {
  if (p == nullptr) {
    std::perror("allocation");
    std::exit(3);
  }
  return p;
}

// One function per array: each is the frame that names its variable.
[[gnu::noinline]] double* new_alpha() {
  double* p = new double[kDoubles];
  fill_array(p, kDoubles, 1.0);
  return p;
}
[[gnu::noinline]] double* new_beta() {
  double* p = new double[kDoubles];
  fill_array(p, kDoubles, 2.0);
  return p;
}
[[gnu::noinline]] double* new_gamma() {
  double* p = new double[kDoubles];
  fill_array(p, kDoubles, 3.0);
  return p;
}
[[gnu::noinline]] double* malloc_delta() {
  double* p = check(static_cast<double*>(std::malloc(kDoubles * sizeof(double))));
  fill_array(p, kDoubles, 4.0);
  return p;
}
#ifdef API_ALLOC
[[gnu::noinline]] double* api_epsilon() {
  double* p = check(static_cast<double*>(API_ALLOC(kDoubles * sizeof(double))));
  fill_array(p, kDoubles, 5.0);
  return p;
}
#endif

int run_arrays(int rounds) {
  double* alpha = new_alpha();
  double* beta = new_beta();
  double* gamma = new_gamma();
  double* delta = malloc_delta();
#ifdef API_ALLOC
  double* epsilon = api_epsilon();
#endif
  const test_array arrays[] = {
      {"new_alpha", alpha, 3}, {"new_beta", beta, 2}, {"new_gamma", gamma, 1},
      {"malloc_delta", delta, 2},
#ifdef API_ALLOC
      {"api_epsilon", epsilon, 2},
#endif
  };
  const int count = int(sizeof arrays / sizeof arrays[0]);
  double sum = run_weighted(arrays, count, rounds);
  std::printf("allocators arrays: %d arrays, %d rounds, checksum %.12e\n", count, rounds, sum);
  delete[] alpha;
  delete[] beta;
  delete[] gamma;
  std::free(delta);
#ifdef API_ALLOC
  API_FREE(epsilon, kDoubles * sizeof(double));
#endif
  return 0;
}

// --- nodes: small blocks from malloc ---

struct Node {
  long val;
  Node* next;
  char pad[32];
};

unsigned long long g_rng = 88172645463325252ull;
unsigned long long next_random() {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

[[gnu::noinline]] Node** make_order(size_t n) {
  return check(static_cast<Node**>(std::malloc(n * sizeof(Node*))));
}

[[gnu::noinline]] Node* make_nodes(size_t n) {
  Node** v = make_order(n);
  for (size_t i = 0; i < n; i++) {
    v[i] = check(static_cast<Node*>(std::malloc(sizeof(Node))));
    v[i]->val = long(i % 1000);
  }
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = size_t(next_random() % (i + 1));
    Node* t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
  for (size_t i = 0; i + 1 < n; i++) v[i]->next = v[i + 1];
  v[n - 1]->next = nullptr;
  Node* head = v[0];
  std::free(v);
  return head;
}

[[gnu::noinline]] long walk_list(const Node* p) {
  long sum = 0;
  while (p != nullptr) {
    sum += p->val;
    p = p->next;
  }
  return sum;
}

[[gnu::noinline]] double* make_array(size_t n) {
  double* a = check(static_cast<double*>(std::malloc(n * sizeof(double))));
  fill_array(a, n, 1.0);
  return a;
}

[[gnu::noinline]] double sum_doubles(const double* a, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += a[i];
  return s;
}

int run_nodes(int rounds) {
  constexpr size_t kNodes = 1 << 20;
  constexpr size_t kArray = 4 << 20;  // 32 MiB
  Node* head = make_nodes(kNodes);
  double* array = make_array(kArray);
  double check_sum = timed_rounds(
      rounds, "list nodes", [&] { return double(walk_list(head)); }, "array",
      [&] { return sum_doubles(array, kArray); });
  std::printf("allocators nodes: %zu nodes, %d rounds, checksum %.6e\n", kNodes, rounds, check_sum);
  return 0;
}

// --- containers: a vector beside a hash map ---

[[gnu::noinline]] std::vector<double>* make_vector(size_t n) {
  auto* v = new std::vector<double>(n);
  fill_array(v->data(), n, 2.0);
  return v;
}

[[gnu::noinline]] std::unordered_map<long, long>* make_map(size_t n) {
  auto* m = new std::unordered_map<long, long>();
  m->reserve(n);
  for (size_t i = 0; i < n; i++) (*m)[long(i * 2654435761u % (n * 8))] = long(i);
  return m;
}

[[gnu::noinline]] long probe_map(const std::unordered_map<long, long>& m, size_t n, size_t probes) {
  long hits = 0;
  for (size_t i = 0; i < probes; i++) {
    auto it = m.find(long((next_random() % n) * 2654435761u % (n * 8)));
    if (it != m.end()) hits += it->second & 1;
  }
  return hits;
}

int run_containers(int rounds) {
  constexpr size_t kEntries = 1 << 20;
  constexpr size_t kVector = 4 << 20;  // 32 MiB
  std::vector<double>* vec = make_vector(kVector);
  std::unordered_map<long, long>* map = make_map(kEntries);
  double check_sum = timed_rounds(
      rounds, "vector", [&] { return sum_doubles(vec->data(), kVector); }, "hash map",
      [&] { return double(probe_map(*map, kEntries, 1 << 18)); });
  std::printf("allocators containers: %d rounds, checksum %.6e\n", rounds, check_sum);
  delete map;
  delete vec;
  return 0;
}

// --- new_handler: an exception out of operator new ---

int g_handler_calls = 0;
void no_memory() {
  ++g_handler_calls;
  std::set_new_handler(nullptr);  // the next failure throws bad_alloc
}

int run_new_handler(int rounds) {
  constexpr size_t kHuge = size_t(1) << 50;
  std::set_new_handler(no_memory);
  bool caught = false;
  try {
    void* p = ::operator new(kHuge);
    ::operator delete(p);
  } catch (const std::bad_alloc&) {
    caught = true;
  }
  std::set_new_handler(no_memory);
  void* q = ::operator new[](kHuge, std::nothrow);
  std::printf("allocators new_handler: handler called %d times, bad_alloc %s, nothrow %s\n",
              g_handler_calls, caught ? "caught" : "not thrown", q ? "not null" : "null");
  double* alpha = new_alpha();
  double* beta = new_beta();
  const test_array arrays[] = {{"new_alpha", alpha, 2}, {"new_beta", beta, 1}};
  double sum = run_weighted(arrays, 2, rounds);
  std::printf("allocators new_handler: %d rounds, checksum %.12e\n", rounds, sum);
  delete[] alpha;
  delete[] beta;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "arrays";
  int rounds = rounds_from_args(argc - 1, argv + 1, 0);
  if (std::strcmp(mode, "arrays") == 0) return run_arrays(rounds ? rounds : 1000);
  if (std::strcmp(mode, "nodes") == 0) return run_nodes(rounds ? rounds : 10);
  if (std::strcmp(mode, "containers") == 0) return run_containers(rounds ? rounds : 100);
  if (std::strcmp(mode, "new_handler") == 0) return run_new_handler(rounds ? rounds : 1500);
  std::fprintf(stderr, "usage: %s arrays|nodes|containers|new_handler [ROUNDS]\n", argv[0]);
  return 2;
}
