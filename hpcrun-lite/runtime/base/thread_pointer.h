// The calling thread's FS base: glibc's thread control block starts with a pointer to itself
// (tcbhead_t::tcb), and FS points at it. Signal-safe (one load, no system call). For threads not
// created by glibc, arch_prctl(ARCH_GET_FS) is the general (but errno-touching) way. x86-64 only,
// as the runtime.
#pragma once

#include <cstdint>

namespace hpcrun {

inline uint64_t fs_base_of_current_thread() {
  uint64_t v;
  asm volatile("movq %%fs:0, %0" : "=r"(v));
  return v;
}

}  // namespace hpcrun
