// The interposed MPI initialisation calls, so that a process whose launcher left no rank in the
// environment (a singleton run without mpirun, an unknown launcher) still gets its MPI rank in
// the profile (mpi_rank.h). C: MPI_Init, MPI_Init_thread; Fortran (gfortran's `use mpi` /
// mpif.h naming): mpi_init_, mpi_init_thread_. Open MPI's Fortran bindings call PMPI_Init, not
// MPI_Init, hence their own wrappers; `use mpi_f08` is not covered.
//
// Each wrapper calls the next definition of the same name (dlsym(RTLD_NEXT)), not PMPI_Init:
// a PMPI tool the program links (its MPI_Init then calls PMPI_Init) stays in the chain. Where
// the global scope has none, the definition is the one the caller would have bound to without
// us: the first in its own module's scope (that module and what it needs). So it is when MPI
// comes in through a library loaded RTLD_LOCAL: Python imports mpi4py's extension module so,
// with libmpi as its dependency, and the extension's call to MPI_Init_thread still binds to this
// wrapper (the preload is first in the global scope), where RTLD_NEXT, searching the global
// scope, cannot see libmpi: every mpi4py program failed with MPI_ERR_OTHER before this. The
// wrapper returns what that call returned, with the arguments untouched, and only then asks the
// rank, through PMPI_Comm_rank so that such a tool sees no call it did not make. Without MPI in
// the process (a program that looks MPI_Init up by name to test for MPI), the C wrappers return
// 16, Open MPI's MPI_ERR_OTHER (MPICH's is 15; any non-zero value says "failed"), and the Fortran
// ones store that in ierr.
//
// Not reachable from a signal handler. The real call runs outside the runtime guard, so MPI's
// own allocations are the program's as they would be without these wrappers, except that its
// small ones are tracked one in 64 (t_in_mpi_init, alloc_track.h); the symbol lookups run inside
// the guard (dlsym may allocate).
#include <dlfcn.h>

#include "base/guard.h"
#include "base/real_fns.h"
#include "interpose/alloc_track.h"
#include "base/log.h"
#include "interpose/export.h"
#include "process/mpi_rank.h"
#include "process_env.h"

namespace hpcrun {
namespace {

constexpr int kNoMpi = 16;

// The scope of the module whose call came to a wrapper, once MPI was found there and not in the
// global scope (a handle from dlopen(RTLD_NOLOAD), kept: the module stays loaded with MPI).
void* g_caller_scope = nullptr;

// `name` in the scope of the module holding `caller` (an address in its code), or nullptr.
void* caller_scope_symbol(const char* name, const void* caller, void** scope) {
  Dl_info info;
  if (caller == nullptr || dladdr(caller, &info) == 0 || info.dli_fname == nullptr || !*info.dli_fname)
    return nullptr;
  ensure_real_fns();
  void* h = real.dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) return nullptr;
  void* p = dlsym(h, name);
  if (p) *scope = h;
  else dlclose(h);
  return p;
}

// For the rank query: the first definition in the process, not the next after this library. An
// executable that names MPI_COMM_WORLD holds a copy-relocated `ompi_mpi_comm_world` that libmpi
// itself then uses; RTLD_NEXT skips the executable and would return libmpi's stale original
// (lmp under mpirun: rank 0 on every rank). RTLD_NEXT only when the global scope lacks it, and
// the scope MPI_Init was found in when neither has it.
void* mpi_symbol(const char* name) {
  void* p = dlsym(RTLD_DEFAULT, name);
  if (!p) p = dlsym(RTLD_NEXT, name);
  if (!p && g_caller_scope) p = dlsym(g_caller_scope, name);
  return p;
}

// The next definition of `name` for a call from `caller`, or nullptr (never this library's own
// wrapper).
template <typename Fn>
Fn next_fn(const char* name, Fn self, const void* caller) {
  RuntimeGuard guard;
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  if (fn == nullptr) {
    void* scope = nullptr;
    fn = reinterpret_cast<Fn>(caller_scope_symbol(name, caller, &scope));
    if (fn != nullptr && fn != self) {
      g_caller_scope = scope;
      log_info("%s: found in the scope of the module that called it (MPI loaded RTLD_LOCAL)", name);
    }
  }
  return fn == self ? nullptr : fn;
}

// Marks the thread as inside MPI's initialisation for the duration of the real call.
class InMpiInit {
 public:
  InMpiInit() : outer_(t_in_mpi_init == 0) { t_in_mpi_init = 1; }
  ~InMpiInit() {
    if (outer_) t_in_mpi_init = 0;
  }
  InMpiInit(const InMpiInit&) = delete;
  InMpiInit& operator=(const InMpiInit&) = delete;

 private:
  bool outer_;
};

void after_init(int rc, const char* which) {
  if (rc != 0) return;
  RuntimeGuard guard;
  const char* family = nullptr;
  int rank = query_mpi_rank(mpi_symbol, &family);
  record_mpi_rank(rank);
  const char* var = nullptr;
  int env_rank = mpi_rank_from_environment(&var);
  if (rank >= 0) {
    log_info("%s: %s says rank %d (environment: %s)", which, family, rank, var ? var : "none");
  } else {
    log_info("%s: rank unknown (%s)", which,
             family ? "PMPI_Comm_rank failed" : "MPI library not recognised");
  }
  if (var && rank >= 0 && env_rank != rank) {
    log_warn("%s: %s=%d but MPI says rank %d; the profile uses %d", which, var, env_rank, rank,
             env_rank);
  }
}

}  // namespace
}  // namespace hpcrun

using hpcrun::after_init;
using hpcrun::InMpiInit;
using hpcrun::kNoMpi;
using hpcrun::next_fn;

extern "C" {

HPCL_EXPORT int MPI_Init(int* argc, char*** argv) {
  static auto real = next_fn("MPI_Init", &MPI_Init, __builtin_return_address(0));
  if (!real) return kNoMpi;
  int rc;
  {
    InMpiInit scope;
    rc = real(argc, argv);
  }
  after_init(rc, "MPI_Init");
  return rc;
}

HPCL_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  static auto real = next_fn("MPI_Init_thread", &MPI_Init_thread, __builtin_return_address(0));
  if (!real) return kNoMpi;
  int rc;
  {
    InMpiInit scope;
    rc = real(argc, argv, required, provided);
  }
  after_init(rc, "MPI_Init_thread");
  return rc;
}

// Fortran: MPI_Fint is a C int in both families (default INTEGER).
HPCL_EXPORT void mpi_init_(int* ierr) {
  static auto real = next_fn("mpi_init_", &mpi_init_, __builtin_return_address(0));
  if (!real) {
    *ierr = kNoMpi;
    return;
  }
  {
    InMpiInit scope;
    real(ierr);
  }
  after_init(*ierr, "mpi_init");
}

HPCL_EXPORT void mpi_init_thread_(int* required, int* provided, int* ierr) {
  static auto real = next_fn("mpi_init_thread_", &mpi_init_thread_, __builtin_return_address(0));
  if (!real) {
    *ierr = kNoMpi;
    return;
  }
  {
    InMpiInit scope;
    real(required, provided, ierr);
  }
  after_init(*ierr, "mpi_init_thread");
}

}  // extern "C"
