// See timer_signal.h.
#include "hpcrun/probe/timer_signal.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "options.h"
#include "hpcrun/probe/pmu_sysfs.h"
#include "hpcrun/probe/perf_event.h"

namespace hpcrun {

namespace {

// si_code of a perf sigtrap (<asm-generic/siginfo.h>; glibc before 2.34 does not define it).
constexpr int kTrapPerf = 6;

// The kernel's siginfo puts the perf fields right after si_addr (_sigfault._perf: a long of
// sig_data, then the event type and flags); glibc's siginfo_t does not name them before 2.35.
uint64_t perf_sig_data(const siginfo_t* info) {
  uint64_t data;
  memcpy(&data, reinterpret_cast<const char*>(info) + offsetof(siginfo_t, si_addr) + sizeof(void*),
         sizeof data);
  return data;
}

int read_tracer_pid() {
  char buf[4096];
  if (read_root_file("/", "proc/self/status", buf, sizeof buf) <= 0) return 0;
  const char* t = strstr(buf, "\nTracerPid:");
  return t ? atoi(t + strlen("\nTracerPid:")) : 0;
}

bool probe_sigtrap() {
  int fd = perf_open(soft_clock_attr(1000000, true), 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return false;
  close(fd);
  return true;
}

}  // namespace

bool parse_kernel_release(const char* release, int* major, int* minor) {
  char* end;
  long a = strtol(release, &end, 10);
  if (end == release || *end != '.') return false;
  const char* second = end + 1;
  long b = strtol(second, &end, 10);
  if (end == second || a < 0 || b < 0) return false;
  *major = int(a);
  *minor = int(b);
  return true;
}

TimerSignalChoice timer_signal_decide(const TimerSignalFacts& f) {
  if (f.env && strcmp(f.env, "0") == 0) return {TimerSignal::Realtime, "HPCRUN_LITE_SIGTRAP=0"};
  if (f.kernel_major < 6 || (f.kernel_major == 6 && f.kernel_minor < 11))
    return {TimerSignal::Realtime, "the kernel is older than 6.11"};
  if (f.tracer_pid != 0) return {TimerSignal::Realtime, "a debugger traces the process"};
  if (!f.probe_opens) return {TimerSignal::Realtime, "the kernel refuses perf's sigtrap"};
  return {TimerSignal::Trap, "perf's sigtrap: no interrupt per sample"};
}

TimerSignalFacts timer_signal_facts() {
  TimerSignalFacts f;
  f.env = getenv(kEnvSigtrap);
  utsname u;
  if (uname(&u) == 0) parse_kernel_release(u.release, &f.kernel_major, &f.kernel_minor);
  f.tracer_pid = read_tracer_pid();
  // The probe only when nothing before it decided.
  TimerSignalFacts without = f;
  without.probe_opens = true;
  if (timer_signal_decide(without).signal == TimerSignal::Trap) f.probe_opens = probe_sigtrap();
  return f;
}

const char* timer_signal_name(TimerSignal s) { return s == TimerSignal::Trap ? "sigtrap" : "realtime"; }

bool timer_trap_is_ours(const siginfo_t* info) {
  return info->si_code == kTrapPerf && perf_sig_data(info) == kTimerTrapCookie;
}

}  // namespace hpcrun
