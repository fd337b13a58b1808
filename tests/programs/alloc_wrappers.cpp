// Hot small tables allocated through the program's own allocation wrapper class, the way LAMMPS
// does it (class Memory: smalloc/srealloc, create<T> inlined into its callers, grow<T> not).
// Eleven tables of 2 KiB, from several call sites in one function and from three functions, are
// read over and over with weights 1..11, so they are the hottest heap variables.
//
// What the report must say (tests/e2e/names.sh, check_report.py `names`; run with
// --min-bytes 1 --small-every 1 since every table is under 4 KiB): each table is named after
// the line of its `// site: FUNCTION` marker, `FUNCTION(...) (alloc_wrappers.cpp:LINE)`, never
// after md::Memory::smalloc / srealloc / create / grow; the wrapper frames
// are in the JSON allocation path marked "wrapper": true; the ten hottest heap variables have at
// least 8 distinct names (here: 10).
#include <cstddef>
#include <cstdio>
#include <cstdlib>

// A named namespace with external linkage, as in LAMMPS_NS: the debug information then carries
// qualified linkage names (members of an anonymous namespace are named by DW_AT_name alone).
namespace md {

class Memory {
 public:
  __attribute__((noinline)) void* smalloc(size_t n, const char* name) {
    void* p = std::malloc(n);
    if (p == nullptr) fail(name);
    bytes_ += n;
    return p;
  }
  __attribute__((noinline)) void* srealloc(void* old, size_t n, const char* name) {
    void* p = std::realloc(old, n);
    if (p == nullptr) fail(name);
    bytes_ += n;
    return p;
  }
  template <class T>
  T* create(T*& array, int n, const char* name) {
    array = static_cast<T*>(smalloc(sizeof(T) * static_cast<size_t>(n), name));
    return array;
  }
  template <class T>
  __attribute__((noinline)) T* grow(T*& array, int n, const char* name) {
    array = static_cast<T*>(srealloc(array, sizeof(T) * static_cast<size_t>(n), name));
    return array;
  }
  size_t bytes() const { return bytes_; }

 private:
  [[noreturn]] static void fail(const char* name) {
    std::fprintf(stderr, "alloc_wrappers: cannot allocate %s\n", name);
    std::exit(1);
  }
  size_t bytes_ = 0;
};

constexpr int kN = 256;  // doubles per table: 2 KiB
constexpr int kTables = 11;

struct Tables {
  double* t[kTables] = {};
};

__attribute__((noinline)) void setup_pair(Memory& m, Tables& s) {
  m.create(s.t[0], kN, "pair:cut");  // site: md::setup_pair
  m.create(s.t[1], kN, "pair:epsilon");  // site: md::setup_pair
  m.create(s.t[2], kN, "pair:sigma");  // site: md::setup_pair
  m.create(s.t[3], kN, "pair:offset");  // site: md::setup_pair
}

__attribute__((noinline)) void setup_neighbor(Memory& m, Tables& s) {
  // grow() is never the last call: a call in tail position becomes a jump, and this function's
  // frame would not be on the stack when the table is allocated.
  m.grow(s.t[6], kN, "neigh:binhead");  // site: md::setup_neighbor
  m.create(s.t[4], kN, "neigh:bins");  // site: md::setup_neighbor
  m.create(s.t[5], kN, "neigh:stencil");  // site: md::setup_neighbor
}

__attribute__((noinline)) void setup_atoms(Memory& m, Tables& s) {
  m.grow(s.t[9], kN, "atom:type");  // site: md::setup_atoms
  m.create(s.t[7], kN, "atom:x");  // site: md::setup_atoms
  m.grow(s.t[10], kN, "atom:q");  // site: md::setup_atoms
  m.create(s.t[8], kN, "atom:v");  // site: md::setup_atoms
}

}  // namespace md

namespace {

// noipa: GCC would otherwise see that the function is pure and sum each table once per round.
__attribute__((noipa)) double sum_table(const double* t, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += t[i];
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  long rounds = argc > 1 ? std::atol(argv[1]) : 70000;
  md::Memory memory;
  md::Tables tables;
  md::setup_pair(memory, tables);
  md::setup_neighbor(memory, tables);
  md::setup_atoms(memory, tables);
  for (int k = 0; k < md::kTables; ++k)
    for (int i = 0; i < md::kN; ++i) tables.t[k][i] = k + i * 1e-3;
  double total = 0;
  for (long r = 0; r < rounds; ++r)
    for (int k = 0; k < md::kTables; ++k)
      for (int w = 0; w <= k; ++w) total += sum_table(tables.t[k], md::kN);
  std::printf("alloc_wrappers: %zu bytes in %d tables, sum %.6e\n", memory.bytes(), md::kTables, total);
  for (double* t : tables.t) std::free(t);
  return 0;
}
