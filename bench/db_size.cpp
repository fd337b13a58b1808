// Prints what a database costs in memory once decoded, for the report benchmark
// (bench/report_scale.sh): db_size DB -> "file_bytes=N decoded_bytes=N tree_nodes=N frames=N".
// decoded_bytes is the heap the decoded Profile holds: the bytes malloc has handed out and not
// taken back after load_database minus before (mallinfo2's uordblks, plus hblkhd for the large
// blocks malloc maps on their own, such as the tree's node vector), so vectors' spare capacity
// and strings' buffers count, and the reader's temporaries (the compressed file image, the
// inflated payload, the zstd buffers) do not.
#include <malloc.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "model/database.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: db_size DB\n");
    return 2;
  }
  const auto in_use = [] {
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
  };
  const size_t before = in_use();
  hpcl::Profile db;
  std::string error;
  if (!hpcl::analysis::load_database(argv[1], &db, &error)) {
    std::fprintf(stderr, "db_size: %s\n", error.c_str());
    return 1;
  }
  const size_t after = in_use();
  size_t nodes = 0;
  for (const hpcl::Tree& t : db.trees) nodes += t.nodes.size();
  std::printf("file_bytes=%ju decoded_bytes=%zu tree_nodes=%zu symbolized_frames=%zu\n",
              static_cast<uintmax_t>(std::filesystem::file_size(argv[1])), after - before, nodes,
              db.symbols.size());
  return 0;
}
