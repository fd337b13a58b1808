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

// mkdir -p with `mode` (before the umask) for each directory it creates; true when the directory
// exists afterwards (errno set otherwise). Measurement directories are created 0700 unless the
// user asks for the umask (output_mode()).
bool make_dirs(const std::string& dir, unsigned mode = 0700);

// The modes of the measurement directory and of the profiles: 0700 and 0600, or 0777 and 0666
// (so that the umask decides) when HPCRUN_LITE_UMASK=1 (the launcher's --umask).
struct OutputModes {
  unsigned dir;
  unsigned file;
};
OutputModes output_modes();

// Whether the process runs with privileges it did not start with (setuid or setgid, or a file
// capability): the kernel's AT_SECURE, or real and effective ids that differ. The runtime stays
// inert there. The arguments are getauxval(AT_SECURE) and the four ids.
bool runs_privileged(unsigned long at_secure, unsigned ruid, unsigned euid, unsigned rgid,
                     unsigned egid);
bool runs_privileged();

// `s` made safe as one component of a file name: '/' and NUL become '_', and a leading '.'
// becomes '_' (no "..", no hidden file), so a profile's name cannot leave its directory.
std::string file_name_component(std::string s);

// The file name of a process profile, EXE.HOST.RANK.PID[.TAG].hpcl (RANK "norank" for a rank
// below 0), one path component. The exe part is cut so that the name with the format
// library's temporary suffix (NAME.tmp.PID.N, io.cpp) stays within kMaxProfileName bytes: a
// long program name must not cost the profile (ENAMETOOLONG after the run).
inline constexpr size_t kMaxProfileName = 255;  // NAME_MAX of Linux's common file systems
std::string profile_file_name(const std::string& exe, const std::string& host, int rank, long pid,
                              const char* tag);
// The longest name, temporary suffix included, that a process of `exe` on `host` may create in
// the measurement directory (the largest pid, rank and exec tag): the launcher creates a probe
// file of this length before the program starts, so a file system with a shorter NAME_MAX is
// found then.
size_t longest_profile_name(const std::string& exe, const std::string& host);

}  // namespace hpcrun
