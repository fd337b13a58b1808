// A test tool, not a measured program: reads one process profile (.hpcl) with the format
// library and prints, for each heap allocation site, the sum of every metric over its subtree
// by metric name, one line per site: "heap BYTES name=value ...", then "meta KEY VALUE" for the
// keys given after the file. The e2e tests check memory metrics (NUMA placement, the hardware
// sources' latency and data source) with it until the analyzer's report prints them.
// Usage: profile_metrics FILE.hpcl [META_KEY...]
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "hpcl/io.h"
#include "hpcl/profile.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: profile_metrics FILE.hpcl [META_KEY...]\n");
    return 2;
  }
  hpcl::ReadResult r = hpcl::read_profile_file(argv[1]);
  if (!r.ok) {
    fprintf(stderr, "profile_metrics: %s\n", r.error.c_str());
    return 1;
  }
  const hpcl::Profile& p = r.profile;
  std::map<uint32_t, std::map<uint16_t, uint64_t>> per_site;
  for (const hpcl::Tree& t : p.trees) {
    // The heap site each node lies under (parents come before children).
    std::vector<int64_t> site(t.nodes.size(), -1);
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      const hpcl::Node& n = t.nodes[i];
      if (n.kind == hpcl::NodeKind::HeapVar) site[i] = n.a;
      else if (n.parent != hpcl::kNoParent) site[i] = site[n.parent];
      if (site[i] < 0) continue;
      for (const hpcl::Metric& m : n.metrics) per_site[uint32_t(site[i])][m.id] += m.value;
    }
  }
  for (const auto& [s, metrics] : per_site) {
    printf("heap %llu", s < p.sites.size() ? (unsigned long long)p.sites[s].bytes : 0ull);
    for (const auto& [id, v] : metrics) {
      const char* name = hpcl::metric_name(id);
      printf(" %s=%llu", name && name[0] ? name : std::to_string(id).c_str(), (unsigned long long)v);
    }
    printf("\n");
  }
  for (int i = 2; i < argc; ++i) {
    const std::string* v = p.find_meta(argv[i]);
    printf("meta %s %s\n", argv[i], v ? v->c_str() : "(none)");
  }
  return 0;
}
