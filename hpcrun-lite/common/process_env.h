// What the environment says about where a measured process runs, shared by the launcher and the
// runtime so that both agree: the MPI rank, the default measurement directory (with the batch
// job id), and creating that directory.
#pragma once

#include <string>

namespace hpcrun {

// The MPI rank that the process's launcher put in its environment, or -1 when none did. The
// variables, first one set to a decimal number wins:
//   OMPI_COMM_WORLD_RANK  Open MPI's mpirun/prterun (the MPI_COMM_WORLD rank itself)
//   MV2_COMM_WORLD_RANK   MVAPICH's mpirun_rsh (likewise)
//   PMIX_RANK             any PMIx server: Open MPI 5, srun --mpi=pmix, Flux
//   PMI_RANK              MPICH's Hydra and other PMI-1/PMI-2 launchers (Intel MPI, MVAPICH)
//   SLURM_PROCID          srun, only in a job step of more than one task (see below)
// The MPI-specific world ranks come first because they are exactly MPI_COMM_WORLD's numbering;
// the process-manager ranks equal it for a job launched directly. SLURM_PROCID comes last and
// counts only inside an srun step of several tasks (SLURM_STEP_NUM_TASKS > 1; where that is
// absent, SLURM_STEP_ID set and SLURM_NTASKS > 1): a batch script also has SLURM_PROCID=0 and
// SLURM_NTASKS = the allocation's tasks, and a program run there is no rank of anything.
// A value that is not a decimal number is ignored (the next variable is tried).
// `source`, when given, receives the name of the variable used (a static string) or nullptr.
int mpi_rank_from_environment(const char** source = nullptr);

// hpcrun-lite-<exe>-measurements, with -<jobid> appended when SLURM_JOB_ID, PBS_JOBID,
// LSB_JOBID or FLUX_JOB_ID is set. `program` may be a path.
std::string default_out_dir(const std::string& program);

// mkdir -p; true when the directory exists afterwards (errno set otherwise).
bool make_dirs(const std::string& dir);

}  // namespace hpcrun
