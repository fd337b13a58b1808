// See process_env.h.
#include "process_env.h"

#include "options.h"

#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace hpcrun {

namespace {

// A non-negative decimal int, or -1 (unset, empty, signs, trailing text, overflow).
int decimal(const char* v) {
  if (!v || !*v) return -1;
  long n = 0;
  for (const char* c = v; *c; ++c) {
    if (*c < '0' || *c > '9') return -1;
    n = n * 10 + (*c - '0');
    if (n > 0x7fffffff) return -1;
  }
  return int(n);
}

// Whether SLURM_PROCID names an MPI-like rank: this process is one task of an srun step of
// several tasks (process_env.h says why a batch script's SLURM_PROCID is not one).
bool in_slurm_step_of_many() {
  int step_tasks = decimal(getenv("SLURM_STEP_NUM_TASKS"));
  if (step_tasks >= 0) return step_tasks > 1;
  const char* step = getenv("SLURM_STEP_ID");
  return step && *step && decimal(getenv("SLURM_NTASKS")) > 1;
}

}  // namespace

int mpi_rank_from_environment(const char** source) {
  if (source) *source = nullptr;
  static const struct {
    const char* name;
    bool slurm_step;  // counts only in a Slurm step of several tasks
  } kVars[] = {{"OMPI_COMM_WORLD_RANK", false}, {"MV2_COMM_WORLD_RANK", false},
               {"PMIX_RANK", false}, {"PMI_RANK", false}, {"SLURM_PROCID", true}};
  for (const auto& var : kVars) {
    int rank = decimal(getenv(var.name));
    if (rank < 0 || (var.slurm_step && !in_slurm_step_of_many())) continue;
    if (source) *source = var.name;
    return rank;
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

bool make_dirs(const std::string& dir, unsigned mode) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (mkdir(dir.substr(0, i).c_str(), static_cast<mode_t>(mode)) != 0 && errno != EEXIST)
        return false;
    }
  }
  return true;
}

OutputModes output_modes() {
  const char* v = getenv(kEnvUmask);
  if (v && strcmp(v, "1") == 0) return {0777, 0666};
  return {0700, 0600};
}

bool runs_privileged(unsigned long at_secure, unsigned ruid, unsigned euid, unsigned rgid,
                     unsigned egid) {
  return at_secure != 0 || ruid != euid || rgid != egid;
}

bool runs_privileged() {
  return runs_privileged(getauxval(AT_SECURE), getuid(), geteuid(), getgid(), getegid());
}

std::string file_name_component(std::string s) {
  for (char& c : s)
    if (c == '/' || c == '\0') c = '_';
  if (s.empty() || s[0] == '.') s.insert(s.begin(), '_');
  return s;
}

namespace {

// What the format library appends while it writes: ".tmp.<pid>.<counter>" (io.cpp), with the
// widest pid (pid_max is at most 4194304) and counter (an unsigned).
constexpr size_t kTempSuffix = sizeof(".tmp.4194304.4294967295") - 1;

std::string profile_name_tail(const std::string& host, int rank, long pid, const char* tag) {
  return "." + host + "." + (rank >= 0 ? std::to_string(rank) : std::string("norank")) + "." +
         std::to_string(pid) + (tag ? std::string(".") + tag : std::string()) + ".hpcl";
}

}  // namespace

std::string profile_file_name(const std::string& exe, const std::string& host, int rank, long pid,
                              const char* tag) {
  std::string tail = profile_name_tail(host, rank, pid, tag);
  std::string head = exe;
  const size_t room = kMaxProfileName - kTempSuffix;
  if (head.size() + tail.size() > room) head.resize(tail.size() < room ? room - tail.size() : 1);
  return file_name_component(head + tail);
}

size_t longest_profile_name(const std::string& exe, const std::string& host) {
  // The widest rank (an int), pid and exec tag ("exec-" and a start time in nanoseconds).
  return profile_file_name(exe, host, 2147483647, 4194304, "exec-18446744073709551615").size() +
         kTempSuffix;
}

}  // namespace hpcrun
