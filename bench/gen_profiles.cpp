// Writes N synthetic process profiles (synthetic_profile.h) into a directory, as one MPI run of
// N ranks would: gen_profiles DIR N [threads] [paths-per-thread]. Prints the total bytes and
// the number of tree nodes of one profile.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "hpcl/io.h"
#include "synthetic_profile.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gen_profiles DIR N [threads] [paths-per-thread]\n");
    return 2;
  }
  std::string dir = argv[1];
  int n = std::atoi(argv[2]);
  hpcl_bench::SyntheticShape shape;
  if (argc > 3) shape.threads = std::atoi(argv[3]);
  if (argc > 4) shape.paths_per_thread = std::atoi(argv[4]);
  std::filesystem::create_directories(dir);
  uintmax_t bytes = 0;
  size_t nodes = 0;
  for (int rank = 0; rank < n; ++rank) {
    hpcl::Profile p = hpcl_bench::make_process_profile(rank, shape);
    if (rank == 0)
      for (const auto& t : p.trees) nodes += t.nodes.size();
    std::string path = dir + "/app.node" + std::to_string(rank / 32) + "." + std::to_string(rank) + "." +
                       std::to_string(10000 + rank) + ".hpcl";
    std::string err;
    if (!hpcl::write_profile_file(p, path, &err)) {
      std::fprintf(stderr, "gen_profiles: %s\n", err.c_str());
      return 1;
    }
    bytes += std::filesystem::file_size(path);
  }
  std::printf("gen_profiles: %d profiles in %s, %ju bytes, %zu tree nodes per profile\n", n, dir.c_str(),
              bytes, nodes);
  return 0;
}
