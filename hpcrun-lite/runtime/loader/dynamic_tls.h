// The TLS block of a module in any thread, read from glibc's dynamic thread vector (DTV).
//
// Modules loaded with dlopen get their TLS blocks lazily, per thread, from malloc: the blocks
// have no fixed distance from the thread pointer, and only the DTV knows them. On x86-64 glibc
// the thread control block at the thread pointer holds the DTV pointer at offset 8
// (tcbhead_t.dtv); the DTV is an array of 16-byte entries where entry -1 holds the number of
// slots, entry 0 the generation and entry `modid` ({block, to_free}) the module's block, or
// (void*)-1 while the thread has not touched that module's TLS. The module id is
// dl_iterate_phdr's dlpi_tls_modid.
//
// Everything here runs in the signal handler, on memory other threads own and may free at any
// moment (a thread exiting unmaps its TCB, a thread resizing its DTV frees the old one). So
// every load goes through safe_read, a process_vm_readv on our own process, which returns an
// error instead of faulting; every count and index is bounded before use. Races and why they are
// harmless are listed in dynamic_tls.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hpcrun {

// Copies n bytes at addr into dst; false (and nothing faults) when any of them is unreadable.
// Async-signal-safe (one system call); the caller saves errno.
bool safe_read(uint64_t addr, void* dst, size_t n);
// Whether safe_read can read at all here (false once the kernel refused process_vm_readv).
bool safe_read_works();

// The start of module `modid`'s TLS block in the thread with thread pointer `tp`, or 0 when that
// thread has none or anything read looks wrong. Async-signal-safe, no allocation, no lock.
uint64_t dtv_block(uint64_t tp, uint64_t modid);

}  // namespace hpcrun
