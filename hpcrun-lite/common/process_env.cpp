// See process_env.h.
#include "process_env.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>

namespace hpcrun {

int mpi_rank_from_environment() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    const char* v = getenv(var);
    if (v && *v) return atoi(v);
  }
  return -1;
}

std::string default_out_dir(const std::string& program) {
  std::string exe = program;
  size_t slash = exe.rfind('/');
  if (slash != std::string::npos) exe = exe.substr(slash + 1);
  std::string dir = "hpcrun-lite-" + exe + "-measurements";
  for (const char* var : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID"}) {
    const char* id = getenv(var);
    if (id && *id) {
      dir.append("-").append(id);
      break;
    }
  }
  return dir;
}

bool make_dirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (mkdir(dir.substr(0, i).c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

}  // namespace hpcrun
