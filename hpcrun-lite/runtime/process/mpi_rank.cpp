// See mpi_rank.h.
#include "process/mpi_rank.h"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "process_env.h"

namespace hpcrun {

namespace {

std::atomic<int> g_mpi_rank{-1};

// Both families' MPI_SUCCESS.
constexpr int kMpiSuccess = 0;
// MPICH's MPI_COMM_WORLD (mpi.h: `#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)`, MPI_Comm is int).
constexpr int kMpichCommWorld = 0x44000000;
// Above every library's MPI_MAX_LIBRARY_VERSION_STRING (MPICH 8192, Open MPI 256).
constexpr int kVersionBuffer = 8192 + 64;

// The MPICH family's version texts: "MPICH Version:", "CRAY MPICH version", "MVAPICH2
// Version", "Intel(R) MPI Library".
bool is_mpich_family(const char* version) {
  for (const char* mark : {"MPICH", "MVAPICH", "Intel(R) MPI"}) {
    if (strstr(version, mark)) return true;
  }
  return false;
}

}  // namespace

int query_mpi_rank(SymbolLookup lookup, const char** what) {
  if (what) *what = nullptr;
  void* comm_rank = lookup("PMPI_Comm_rank");
  if (!comm_rank) return -1;
  int rank = -1, rc;
  if (void* world = lookup("ompi_mpi_comm_world")) {
    if (what) *what = "Open MPI";
    rc = reinterpret_cast<int (*)(void*, int*)>(comm_rank)(world, &rank);
  } else {
    auto get_version = reinterpret_cast<int (*)(char*, int*)>(lookup("PMPI_Get_library_version"));
    char version[kVersionBuffer] = {};
    int len = 0;
    if (!get_version || get_version(version, &len) != kMpiSuccess) return -1;
    version[kVersionBuffer - 1] = 0;
    if (!is_mpich_family(version)) return -1;
    if (what) *what = "MPICH";
    rc = reinterpret_cast<int (*)(int, int*)>(comm_rank)(kMpichCommWorld, &rank);
  }
  return rc == kMpiSuccess && rank >= 0 ? rank : -1;
}

void record_mpi_rank(int rank) { g_mpi_rank.store(rank, std::memory_order_relaxed); }

int process_rank() {
  int rank = mpi_rank_from_environment();
  return rank >= 0 ? rank : g_mpi_rank.load(std::memory_order_relaxed);
}

}  // namespace hpcrun
