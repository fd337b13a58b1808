// Byte messages of any size between the ranks of hpcprof-lite-mpi. MPI counts are `int`, so a
// message is a header (total size, chunk size) and then chunks of at most `chunk` bytes; the
// receiver takes the chunk size from the header. Every wait (sender, receiver, broadcast) sleeps
// between polls instead of spinning in MPI: on a node where every core also runs a merging rank,
// a rank spinning in MPI_Send or MPI_Recv takes CPU from the rank it waits for.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hpcl::analysis::mpi {

// Chunk size: 1 GiB, or HPCPROF_LITE_MPI_CHUNK bytes when set (tests make it small so that
// every message crosses chunk boundaries).
size_t chunk_bytes();

void send_bytes(const std::vector<uint8_t>& bytes, int dest, MPI_Comm comm);
std::vector<uint8_t> recv_bytes(int source, MPI_Comm comm);
// Root's `bytes` are copied into every other rank's `bytes`.
void bcast_bytes(std::string& bytes, int root, MPI_Comm comm);

}  // namespace hpcl::analysis::mpi
