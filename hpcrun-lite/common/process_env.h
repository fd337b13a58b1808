// What the environment says about where a measured process runs, shared by the launcher and the
// runtime so that both agree: the MPI rank, the default measurement directory (with the batch
// job id), and creating that directory.
#pragma once

#include <string>

namespace hpcrun {

// The MPI rank from the launcher's environment (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,
// SLURM_PROCID), or -1 without MPI.
int mpi_rank_from_environment();

// hpcrun-lite-<exe>-measurements, with -<jobid> appended when SLURM_JOB_ID, PBS_JOBID,
// LSB_JOBID or FLUX_JOB_ID is set. `program` may be a path.
std::string default_out_dir(const std::string& program);

// mkdir -p; true when the directory exists afterwards (errno set otherwise).
bool make_dirs(const std::string& dir);

}  // namespace hpcrun
