// The rank of a process: from each launcher's environment in the documented order
// (process_env.h), and from MPI itself through a fake Open MPI and a fake MPICH (mpi_rank.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "process/mpi_rank.h"
#include "process_env.h"

using namespace hpcrun;

namespace {

const char* const kRankVars[] = {"OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMIX_RANK",
                                 "PMI_RANK", "SLURM_PROCID", "SLURM_NTASKS",
                                 "SLURM_STEP_NUM_TASKS", "SLURM_STEP_ID"};

// Clears every variable that names a rank and restores them afterwards (ctest may run inside
// a job).
class RankEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kRankVars) {
      if (const char* old = getenv(v)) saved_.emplace_back(v, old);
      unsetenv(v);
    }
    record_mpi_rank(-1);
  }
  void TearDown() override {
    for (const char* v : kRankVars) unsetenv(v);
    for (auto& [k, v] : saved_) setenv(k.c_str(), v.c_str(), 1);
    record_mpi_rank(-1);
  }
  static int rank(std::string* source = nullptr) {
    const char* s = nullptr;
    int r = mpi_rank_from_environment(&s);
    if (source) *source = s ? s : "";
    return r;
  }

 private:
  std::vector<std::pair<std::string, std::string>> saved_;
};

}  // namespace

TEST_F(RankEnv, NoneSet) {
  std::string src = "x";
  EXPECT_EQ(rank(&src), -1);
  EXPECT_EQ(src, "");
}

TEST_F(RankEnv, EachLauncherAlone) {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    setenv(v, "7", 1);
    std::string src;
    EXPECT_EQ(rank(&src), 7) << v;
    EXPECT_EQ(src, v);
    unsetenv(v);
  }
}

TEST_F(RankEnv, DocumentedOrder) {
  setenv("SLURM_PROCID", "5", 1);
  setenv("SLURM_STEP_NUM_TASKS", "8", 1);
  EXPECT_EQ(rank(), 5);
  setenv("PMI_RANK", "4", 1);
  EXPECT_EQ(rank(), 4);
  setenv("PMIX_RANK", "3", 1);
  EXPECT_EQ(rank(), 3);
  setenv("MV2_COMM_WORLD_RANK", "2", 1);
  EXPECT_EQ(rank(), 2);
  setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  std::string src;
  EXPECT_EQ(rank(&src), 1);
  EXPECT_EQ(src, "OMPI_COMM_WORLD_RANK");
}

TEST_F(RankEnv, SlurmOnlyInAStepOfSeveralTasks) {
  setenv("SLURM_PROCID", "3", 1);
  EXPECT_EQ(rank(), -1);  // no task count at all
  // A batch script: the allocation's task count, SLURM_PROCID=0, no step variables.
  setenv("SLURM_PROCID", "0", 1);
  setenv("SLURM_NTASKS", "4", 1);
  EXPECT_EQ(rank(), -1);
  // srun without SLURM_STEP_NUM_TASKS (older Slurm): a step id and several tasks.
  setenv("SLURM_PROCID", "3", 1);
  setenv("SLURM_STEP_ID", "0", 1);
  EXPECT_EQ(rank(), 3);
  setenv("SLURM_NTASKS", "1", 1);
  EXPECT_EQ(rank(), -1);
  // The step's own count decides when present.
  setenv("SLURM_NTASKS", "4", 1);
  setenv("SLURM_STEP_NUM_TASKS", "1", 1);
  EXPECT_EQ(rank(), -1);  // srun -n 1 inside a 4-task allocation
  setenv("SLURM_STEP_NUM_TASKS", "2", 1);
  std::string src;
  EXPECT_EQ(rank(&src), 3);
  EXPECT_EQ(src, "SLURM_PROCID");
}

TEST_F(RankEnv, IgnoresValuesThatAreNotRanks) {
  for (const char* bad : {"", "abc", "-1", "1x", " 2", "99999999999"}) {
    setenv("OMPI_COMM_WORLD_RANK", bad, 1);
    EXPECT_EQ(rank(), -1) << '"' << bad << '"';
    setenv("PMI_RANK", "6", 1);
    EXPECT_EQ(rank(), 6) << "falls through to the next variable after \"" << bad << '"';
    unsetenv("PMI_RANK");
  }
  setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  EXPECT_EQ(rank(), 0);
}

// --- MPI itself, through fake libraries --------------------------------------------------

namespace fake {

int ompi_world;  // stands for Open MPI's ompi_mpi_comm_world object
int calls;
int rank_to_give = 3;
int rc_to_give = 0;
const char* version = "";

int ompi_comm_rank(void* comm, int* rank) {
  ++calls;
  *rank = comm == &ompi_world ? rank_to_give : -99;
  return rc_to_give;
}

// MPICH's MPI_Comm is an int; the runtime must pass 0x44000000.
int mpich_comm_rank(int comm, int* rank) {
  ++calls;
  *rank = comm == 0x44000000 ? rank_to_give : -99;
  return rc_to_give;
}

int get_library_version(char* buf, int* len) {
  strcpy(buf, version);
  *len = int(strlen(version));
  return 0;
}

void* open_mpi(const char* name) {
  if (!strcmp(name, "PMPI_Comm_rank")) return reinterpret_cast<void*>(&ompi_comm_rank);
  if (!strcmp(name, "ompi_mpi_comm_world")) return &ompi_world;
  if (!strcmp(name, "PMPI_Get_library_version")) return reinterpret_cast<void*>(&get_library_version);
  return nullptr;
}

void* mpich(const char* name) {
  if (!strcmp(name, "PMPI_Comm_rank")) return reinterpret_cast<void*>(&mpich_comm_rank);
  if (!strcmp(name, "PMPI_Get_library_version")) return reinterpret_cast<void*>(&get_library_version);
  return nullptr;
}

void* nothing(const char*) { return nullptr; }

}  // namespace fake

class MpiRank : public RankEnv {
 protected:
  void SetUp() override {
    RankEnv::SetUp();
    fake::calls = 0;
    fake::rank_to_give = 3;
    fake::rc_to_give = 0;
    fake::version = "";
  }
};

TEST_F(MpiRank, OpenMpiWorldIsTheSymbolsAddress) {
  fake::version = "Open MPI v4.1.4, package: Debian OpenMPI";
  const char* what = nullptr;
  EXPECT_EQ(query_mpi_rank(fake::open_mpi, &what), 3);
  EXPECT_STREQ(what, "Open MPI");
  EXPECT_EQ(fake::calls, 1);
}

TEST_F(MpiRank, MpichFamilyWorldIsTheConstant) {
  for (const char* v : {"MPICH Version:\t4.0.2", "MPI VERSION    : CRAY MPICH version 8.1",
                        "MVAPICH2 Version      :\t2.3.7", "Intel(R) MPI Library 2021.6 for Linux* OS"}) {
    fake::version = v;
    const char* what = nullptr;
    EXPECT_EQ(query_mpi_rank(fake::mpich, &what), 3) << v;
    EXPECT_STREQ(what, "MPICH") << v;
  }
}

TEST_F(MpiRank, UnknownLibraryIsNotGuessedAt) {
  fake::version = "Some Other MPI 1.0";
  EXPECT_EQ(query_mpi_rank(fake::mpich), -1);
  EXPECT_EQ(fake::calls, 0) << "PMPI_Comm_rank must not be called with a guessed handle";
  EXPECT_EQ(query_mpi_rank(fake::nothing), -1);
}

TEST_F(MpiRank, FailedCallGivesNoRank) {
  fake::rc_to_give = 5;
  EXPECT_EQ(query_mpi_rank(fake::open_mpi), -1);
}

TEST_F(MpiRank, ProcessRankPrefersTheEnvironmentReadAtEachCall) {
  EXPECT_EQ(process_rank(), -1);
  record_mpi_rank(query_mpi_rank(fake::open_mpi));
  EXPECT_EQ(process_rank(), 3);  // a singleton: MPI's rank
  setenv("PMI_RANK", "1", 1);
  EXPECT_EQ(process_rank(), 1);  // the launcher's rank, as set at the time of the call
  unsetenv("PMI_RANK");
  EXPECT_EQ(process_rank(), 3);
}
