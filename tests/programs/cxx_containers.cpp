// C++ containers whose growth allocates inside libstdc++ (vector push_back growth and resize,
// std::string appends, unordered_map nodes and buckets), each in a function of its own.
//
// What the report must say (tests/e2e/names.sh, check_report.py `names`; run with
// --min-bytes 1 --small-every 1 so that every block, small ones included, is tracked): every
// heap variable allocated from this file is named after a frame of this file, not after
// std::vector<...>::_M_realloc_insert, _M_default_append, basic_string::_M_create or the
// hashtable's node allocation; each `// site: FUNCTION` line names at least one variable,
// `FUNCTION(...) (cxx_containers.cpp:LINE)` (several paths through libstdc++ from one line
// are told apart by a `#N` suffix).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

__attribute__((noinline)) std::vector<double> by_push_back(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i * 0.5);  // site: by_push_back
  return v;
}

__attribute__((noinline)) std::vector<double> by_resize(int n) {
  std::vector<double> v;
  v.resize(static_cast<size_t>(n));  // site: by_resize
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

__attribute__((noinline)) std::string build_text(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "abcdefgh";  // site: build_text
  return s;
}

__attribute__((noinline)) std::unordered_map<int, double> build_index(int n) {
  std::unordered_map<int, double> m;
  for (int i = 0; i < n; ++i) m[i * 7] = i;  // site: build_index
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  double sum = 0;
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> a = by_push_back(20000);
    std::vector<double> b = by_resize(20000);
    std::string s = build_text(2000);
    std::unordered_map<int, double> m = build_index(2000);
    for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
    sum += static_cast<double>(s.size()) + m[7];
  }
  std::printf("cxx_containers: %.6e\n", sum);
  return 0;
}
