// The program's sigaction, signal, bsd_signal, sysv_signal, sigprocmask and pthread_sigmask:
// the runtime's signals keep working whatever the program does (process/signal_guard.h).
#include <signal.h>

#include "base/real_fns.h"
#include "interpose/export.h"
#include "process/signal_guard.h"

using namespace hpcrun;

extern "C" {

HPCL_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  return program_sigaction(sig, act, old);
}

// glibc's signal(): BSD semantics (the handler stays, the signal is blocked while it runs,
// interrupted system calls restart).
HPCL_EXPORT OldHandler signal(int sig, OldHandler handler) {
  return program_signal(sig, handler, SA_RESTART, true);
}
HPCL_EXPORT OldHandler bsd_signal(int sig, OldHandler handler) {
  return program_signal(sig, handler, SA_RESTART, true);
}
// System V semantics: the handler is reset on delivery and the signal is not blocked.
HPCL_EXPORT OldHandler sysv_signal(int sig, OldHandler handler) {
  return program_signal(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

HPCL_EXPORT int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  ensure_real_fns();
  return program_sigmask(real.sigprocmask, how, set, old);
}

HPCL_EXPORT int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  ensure_real_fns();
  return program_sigmask(real.pthread_sigmask, how, set, old);
}

}  // extern "C"
