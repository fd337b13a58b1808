// See run_id.h.
#include "run_id.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace hpcrun {
namespace {

std::string hex64(uint64_t v) {
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string run_id_for_launch(bool under_mpi, const std::string& random) {
  if (!under_mpi) return random;
  // Equal on every rank of one job: set once by the job's launcher or batch system. Each name
  // enters the hash with its value, so two variables cannot stand in for each other.
  static const char* const kJobVars[] = {
      "PMIX_NAMESPACE",          // PMIx: Open MPI 4 and 5, srun --mpi=pmix, Flux
      "OMPI_MCA_orte_hnp_uri",   // Open MPI 4: mpirun's own address (pid-derived job family, port)
      "OMPI_MCA_ess_base_jobid", // Open MPI 4
      "SLURM_JOB_ID", "SLURM_STEP_ID",
      "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID",
  };
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  bool any = false;
  auto mix = [&h](const char* s) {
    for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const char* name : kJobVars) {
    const char* v = getenv(name);
    if (!v || !*v) continue;
    mix(name);
    mix(v);
    any = true;
  }
  return any ? hex64(h) : std::string();
}

std::string random_run_id() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof v)) {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    v = (static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec)) ^
        (static_cast<uint64_t>(getpid()) << 40);
  }
  return hex64(v);
}

}  // namespace hpcrun
