// Allocation-heavy C++ (benchmark workload): two threads that each, round after round,
//  - build small objects through a deep chain of calls (new/delete of 24-200 byte objects),
//  - fill and drain standard containers (std::map of strings, std::unordered_map, std::list),
//  - grow a std::vector by push_back and a C buffer by realloc (most of these pass --min-bytes),
// so the allocation wrappers, the small-block sampling and the tracked path with its call-path
// capture are all exercised. This is the workload heaptrack is compared on.
// Usage: alloc_heavy [rounds]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

struct Particle {
  double pos[3], vel[3];
  uint64_t id;
};

struct Record {
  std::string name;
  std::vector<int> values;
};

// A chain of distinct frames above each small allocation, like a real application's layers.
template <int Depth>
__attribute__((noinline)) std::unique_ptr<Particle> make_particle(uint64_t id) {
  if constexpr (Depth == 0) {
    auto p = std::make_unique<Particle>();
    p->id = id;
    p->pos[0] = double(id);
    return p;
  } else {
    auto p = make_particle<Depth - 1>(id + 1);
    asm volatile("" ::: "memory");  // keep the frame (no tail call)
    return p;
  }
}

__attribute__((noinline)) std::unique_ptr<Record> make_record(uint64_t i) {
  auto r = std::make_unique<Record>();
  r->name = "record-with-a-long-name-" + std::to_string(i);
  r->values.assign(1 + i % 13, int(i));
  return r;
}

uint64_t particles(uint64_t round) {
  std::vector<std::unique_ptr<Particle>> v;
  uint64_t sum = 0;
  for (uint64_t i = 0; i < 2000; ++i) v.push_back(make_particle<12>(round * 2000 + i));
  for (auto& p : v) sum += p->id;
  return sum;
}

uint64_t containers(uint64_t round) {
  std::map<uint64_t, std::string> m;
  std::unordered_map<uint64_t, std::unique_ptr<Record>> u;
  std::list<uint64_t> l;
  for (uint64_t i = 0; i < 600; ++i) {
    m.emplace(i * 7919 % 1000, "value-string-beyond-sso-" + std::to_string(i + round));
    u.emplace(i, make_record(i + round));
    l.push_back(i);
  }
  uint64_t sum = m.size() + u.size() + l.size();
  for (uint64_t i = 0; i < 600; i += 2) {
    m.erase(i * 7919 % 1000);
    u.erase(i);
  }
  return sum + m.size() + u.size();
}

uint64_t growth(uint64_t round) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < 20000; ++i) v.push_back(i ^ round);
  // A C buffer grown by realloc in 512-byte steps up to 64 KiB.
  size_t cap = 0;
  char* buf = nullptr;
  for (size_t len = 512; len <= 65536; len += 512) {
    char* nb = static_cast<char*>(realloc(buf, len));
    if (!nb) break;
    buf = nb;
    memset(buf + cap, int(len & 0xff), len - cap);
    cap = len;
  }
  uint64_t sum = v.back() + (buf ? uint8_t(buf[cap - 1]) : 0);
  free(buf);
  return sum;
}

void worker(int rounds, uint64_t* out) {
  uint64_t sum = 0;
  for (int r = 0; r < rounds; ++r) sum += particles(r) + containers(r) + growth(r);
  *out = sum;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 1500;
  uint64_t sums[2] = {0, 0};
  std::thread t0(worker, rounds, &sums[0]);
  std::thread t1(worker, rounds, &sums[1]);
  t0.join();
  t1.join();
  std::printf("alloc_heavy: rounds=%d threads=2 checksum=%llu\n", rounds,
              (unsigned long long)(sums[0] + sums[1]));
  return 0;
}
