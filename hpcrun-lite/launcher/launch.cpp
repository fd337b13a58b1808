// See launch.h.
#include "launch.h"

#include "install_paths.h"

#include "output_check.h"
#include "papi_query.h"
#include "process_env.h"
#include "program_check.h"
#include "run_id.h"

#include <elf.h>
#include <fcntl.h>

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hpcrun {

namespace {

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return path;
  return std::string(cwd) + "/" + path;
}

bool holds_profiles(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool found = false;
  while (dirent* e = readdir(d)) {
    size_t n = strlen(e->d_name);
    if (n > 5 && strcmp(e->d_name + n - 5, ".hpcl") == 0) {
      found = true;
      break;
    }
  }
  closedir(d);
  return found;
}

}  // namespace

bool is_static_elf(const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf64_Ehdr eh;
  bool is_static = false;
  if (pread(fd, &eh, sizeof eh, 0) == ssize_t(sizeof eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
    // Dynamically linked executables (and PIEs) name their loader in PT_INTERP.
    is_static = true;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph;
      if (pread(fd, &ph, sizeof ph, off_t(eh.e_phoff + i * sizeof ph)) != ssize_t(sizeof ph)) break;
      if (ph.p_type == PT_INTERP || ph.p_type == PT_DYNAMIC) {
        is_static = false;
        break;
      }
    }
  }
  close(fd);
  return is_static;
}

int launch(const LaunchRequest& req) {
  std::string lib = find_runtime_library();
  if (lib.empty()) {
    fprintf(stderr, "hpcrun-lite: cannot find libhpcrun-lite.so relative to the launcher (" HPCL_BIN_TO_LIB "/)\n");
    return 127;
  }
  // The program first: a name that does not run must not leave a measurement directory behind.
  ProgramCheck program = check_program(req.argv[0]);
  if (program.status != 0) {
    fprintf(stderr, "hpcrun-lite: %s\n", program.error.c_str());
    return program.status;
  }
  // A statically linked program never loads the runtime: say so rather than leave an empty
  // measurement directory to be discovered later. It still runs, as asked.
  if (is_static_elf(program.path.c_str()))
    fprintf(stderr, "hpcrun-lite: %s is statically linked: LD_PRELOAD cannot load the runtime "
                    "into it, so it will not be measured\n", program.path.c_str());
  // A script runs in its interpreter, which is what gets measured (and every program it starts,
  // each with a profile of its own): a shell wrapper's own profile then holds no samples.
  if (!program.interpreter.empty())
    fprintf(stderr, "hpcrun-lite: %s is a script (#!%s): the interpreter is measured, and each "
                    "program it starts writes a profile of its own; to measure one program alone, "
                    "put hpcrun-lite in front of it inside the script\n",
            program.path.c_str(), program.interpreter.c_str());

  std::string dir = req.out_dir.empty() ? default_out_dir(req.argv[0]) : req.out_dir;
  dir = absolute(dir);
  // Without MPI, a directory that already holds profiles is a previous run: merging would mix
  // the two. Under MPI every rank starts at once and the directory is shared on purpose.
  const bool under_mpi = mpi_rank_from_environment() >= 0;
  if (!under_mpi && holds_profiles(dir)) {
    fprintf(stderr,
            "hpcrun-lite: %s already holds profiles of an earlier run; choose another -o DIR "
            "or remove it\n", dir.c_str());
    return 2;
  }
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  std::string exe = program.measured_exe.substr(program.measured_exe.rfind('/') + 1);
  OutputDir out = prepare_output_dir(dir, output_modes().dir, longest_profile_name(exe, host));
  if (!out.error.empty()) {
    fprintf(stderr, "hpcrun-lite: %s; the program was not started\n", out.error.c_str());
    return 2;
  }

  std::string preload = lib;
  // A library registers its software-defined events in its constructor, and libsde looks for
  // PAPI right then, in the global scope: PAPI must be loaded before the program's libraries
  // start, which only a preload does. Other PAPI events need no such thing (the runtime opens
  // libpapi locally when it starts). The file preloaded is the one the event's check opened
  // (main.cpp): Debian's libpapi.so.7.0 or another PAPI 7's libpapi.so.7.
  for (int i = 0; i < req.opts.nsources; ++i) {
    if (req.opts.sources[i].kind == SourceKind::Papi &&
        strncmp(req.opts.sources[i].papi_event, "sde:::", 6) == 0) {
      const std::string opened = papi_library();
      preload.append(":").append(opened.empty() ? "libpapi.so.7" : opened);
      break;
    }
  }
  if (const char* old = getenv("LD_PRELOAD"); old && *old) preload.append(":").append(old);
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv(kEnvOut, dir.c_str(), 1);
  std::string events;
  for (int i = 0; i < req.opts.nsources; ++i) {
    if (i) events += ",";
    char text[96];
    events += source_text(req.opts.sources[i], text, sizeof text);
  }
  if (!events.empty()) setenv(kEnvEvents, events.c_str(), 1);
  setenv(kEnvMinBytes, std::to_string(req.opts.min_bytes).c_str(), 1);
  char every[32];
  setenv(kEnvSmallEvery, small_every_text(req.opts.small_every, every, sizeof every), 1);
  setenv(kEnvTrackBudget, std::to_string(req.opts.track_budget).c_str(), 1);
  if (req.opts.verbose) setenv(kEnvVerbose, "1", 1);
  // One id for every process of this run (under MPI, the same on every rank: run_id.h), kept
  // when a job script set one.
  if (!getenv(kEnvRunId)) {
    std::string id = run_id_for_launch(under_mpi, random_run_id());
    if (!id.empty()) setenv(kEnvRunId, id.c_str(), 1);
  }

  std::vector<char*> argv;
  for (const std::string& a : req.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // execvp with a path: as execv, and a file without "#!" runs in /bin/sh as a shell would.
  execvp(program.path.c_str(), argv.data());
  int err = errno;
  remove_created(out);
  fprintf(stderr, "hpcrun-lite: cannot run %s: %s\n", program.path.c_str(), strerror(err));
  return err == ENOENT ? 127 : 126;
}

}  // namespace hpcrun
