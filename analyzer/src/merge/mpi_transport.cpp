// See mpi_transport.h.
#include "mpi_transport.h"

#include <time.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "cli_args.h"

namespace hpcl::analysis::mpi {
namespace {

constexpr int kTagHeader = 1, kTagChunk = 2;
constexpr size_t kDefaultChunk = size_t{1} << 30;

// Completes `request`, polling every 200 us.
void wait_politely(MPI_Request* request) {
  int done = 0;
  MPI_Test(request, &done, MPI_STATUS_IGNORE);
  while (!done) {
    timespec ts{0, 200 * 1000};
    nanosleep(&ts, nullptr);
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
  }
}

int count_of(size_t n) { return static_cast<int>(n); }  // n <= chunk <= INT_MAX

}  // namespace

size_t chunk_bytes() {
  if (const char* s = std::getenv("HPCPROF_LITE_MPI_CHUNK"))
    if (auto n = parse_count(s); n && *n > 0) return std::min<size_t>(*n, INT_MAX);
  return kDefaultChunk;
}

void send_bytes(const std::vector<uint8_t>& bytes, int dest, MPI_Comm comm) {
  uint64_t header[2] = {bytes.size(), chunk_bytes()};
  MPI_Request request;
  MPI_Isend(header, 2, MPI_UINT64_T, dest, kTagHeader, comm, &request);
  wait_politely(&request);
  for (size_t at = 0; at < bytes.size(); at += header[1]) {
    size_t n = std::min<size_t>(header[1], bytes.size() - at);
    MPI_Isend(bytes.data() + at, count_of(n), MPI_BYTE, dest, kTagChunk, comm, &request);
    wait_politely(&request);
  }
}

std::vector<uint8_t> recv_bytes(int source, MPI_Comm comm) {
  uint64_t header[2] = {0, 1};
  MPI_Request request;
  MPI_Irecv(header, 2, MPI_UINT64_T, source, kTagHeader, comm, &request);
  wait_politely(&request);
  std::vector<uint8_t> bytes(header[0]);
  const size_t chunk = std::max<uint64_t>(header[1], 1);
  for (size_t at = 0; at < bytes.size(); at += chunk) {
    size_t n = std::min<size_t>(chunk, bytes.size() - at);
    MPI_Irecv(bytes.data() + at, count_of(n), MPI_BYTE, source, kTagChunk, comm, &request);
    wait_politely(&request);
  }
  return bytes;
}

void bcast_bytes(std::string& bytes, int root, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  uint64_t header[2] = {bytes.size(), chunk_bytes()};
  MPI_Request request;
  MPI_Ibcast(header, 2, MPI_UINT64_T, root, comm, &request);
  wait_politely(&request);
  if (rank != root) bytes.assign(header[0], '\0');
  for (size_t at = 0; at < bytes.size(); at += header[1]) {
    size_t n = std::min<size_t>(header[1], bytes.size() - at);
    MPI_Ibcast(bytes.data() + at, count_of(n), MPI_BYTE, root, comm, &request);
    wait_politely(&request);
  }
}

}  // namespace hpcl::analysis::mpi
