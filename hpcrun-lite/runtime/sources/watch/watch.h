// The watchpoint analyses (-e wp-sharing[@RATE], -e wp-reuse[@RATE]): a sample of the address
// source (soft, or a hardware source) gives an address and a thread; this arms debug-register
// watches (perf PERF_TYPE_BREAKPOINT events) on it for a bounded window and classifies what traps.
//
//   sharing: after a sampled access by thread A to a cache line, watches on that line's words in
//            up to kWatchMaxTargets other threads (the sampled word first, then others), on reads
//            and writes after A's write, on writes after A's read. A trap in B on other bytes of
//            the line is false sharing, on the bytes A touched true sharing.
//   reuse:   after a sampled access by A, a watch on the same 8-byte word in A. The time to its
//            next access is a reuse time; a watch that expires is "no reuse within the window".
//
// Every thread opens its kWatchSlots breakpoint events at its start, outside any handler,
// disabled and aimed at a dummy word. Handlers only re-aim them (PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
// Linux >= 4.17) and disable them: system calls on descriptors the process owns, no allocation, no
// lock, bounded loops (watch_slot.h says who may touch a slot when). Registers the program
// itself uses (a debugger's watchpoints) make perf_event_open fail with ENOSPC: those slots are
// not opened, counted in META wp_registers_taken, and the program keeps its registers.
#pragma once

#include <cstdint>

namespace hpcl {
struct Profile;
}

namespace hpcrun {

struct SourceOps;

struct ThreadState;

inline constexpr uint64_t kDefaultWpSharingRate = 50;   // arming decisions per second per thread
inline constexpr uint64_t kDefaultWpReuseRate = 100;
inline constexpr uint64_t kDefaultWpSharingWindowNs = 10 * 1000000ull;   // 10 ms
inline constexpr uint64_t kDefaultWpReuseWindowNs = 500 * 1000000ull;    // 500 ms: a 64 MiB sweep at 0.3 GB/s
inline constexpr int kWatchMaxTargets = 3;  // other threads armed per sampled access

struct WatchConfig {
  uint64_t sharing_rate = 0;  // 0: no sharing analysis
  uint64_t reuse_rate = 0;    // 0: no reuse analysis
  uint64_t sharing_window_ns = kDefaultWpSharingWindowNs;
  uint64_t reuse_window_ns = kDefaultWpReuseWindowNs;
  // Registers taken per thread (HPCRUN_LITE_WP_REGISTERS, 1-4): fewer leave the others to a
  // debugger attached during the run (perf reserves a register when the event is opened).
  int registers = 4;
};

// Not signal-safe. `signo`: the sampling signal, whose handler (sources/handler.cpp) passes
// traps here.
void watch_init(const WatchConfig& config, int signo);
bool watch_enabled();
const WatchConfig& watch_config();
// On the thread itself (`self`) or for it, at adoption, outside handlers: opens its watch
// events. The trap latency is calibrated on a thread's own start only (it traps itself).
void watch_start_thread(ThreadState* ts, bool self);
// On the thread itself at its end, outside handlers: closes them (a pending watch is counted).
void watch_stop_thread(ThreadState* ts);
// Fork child: the parent's events are not this process's threads'; close them.
void watch_forget(ThreadState* ts);

// Async-signal-safe, from the sampling handler of thread `ts`: a sampled access to `ea` of the
// variable at node `var_node` of ts's tree. `executed`: the access already ran (false when the
// sampled instruction is the interrupted one, not yet executed: no reuse watch, it would trap on
// itself).
void watch_on_sample(ThreadState* ts, uint64_t ea, uint32_t size, bool is_write, bool executed,
                     uint32_t var_node);
// Async-signal-safe, at the very end of the sampling handler of `ts`: reuse watches armed by
// this handler start counting now, so that the handler's own remaining time is not reuse time.
void watch_sample_done(ThreadState* ts);
// Async-signal-safe: whether `fd` is one of ts's watch events; if so its trap is handled. The
// trapping access is decoded from the signal's context `ucv` (the instruction before the PC, as
// for a soft sample) to tell which bytes of the watched word it touched.
bool watch_on_signal(ThreadState* ts, int fd, void* ucv);
// Before the profile is written: disables every watch, counts those pending.
void watch_stop_all();

struct WatchCounts {
  uint64_t slots_opened = 0;     // breakpoint events opened, over all threads
  uint64_t registers_taken = 0;  // opens refused with ENOSPC/EBUSY: the registers were in use
  uint64_t open_failed = 0;      // refused for another reason (no breakpoint support, EACCES)
  uint64_t armed = 0;            // watches enabled
  uint64_t traps = 0;            // traps counted (sharing or reuse)
  uint64_t expired = 0;          // watches that reached their window unused
  uint64_t pending_end = 0;      // watches still armed at the end, window not over: not counted
  uint64_t no_slot = 0;          // arming decisions that found no free register
  uint64_t modify_failed = 0;    // re-aiming refused by the kernel (< 4.17: no modify ioctl)
  uint64_t stale = 0;            // signals of a watch that had already been handled or re-armed
  uint64_t trap_latency_ns = 0;  // the smallest time from an access to its trap's handler, measured
                                 // at the first thread's start and subtracted from reuse times
};
WatchCounts watch_counts();
// META wp_* (source_table.h: write_meta): the settings and what became of every watch; logs
// the summary.
void watch_write_meta(hpcl::Profile& p);

// The row of the source table (process/source_table.h) that sources/source_list.cpp lists.
extern const SourceOps kWatchSource;

}  // namespace hpcrun
