/* Test program for the symbolizer: an always-inlined function that calls a probe; the probe
 * prints the link-time address of its call site (return address - 1, minus the load bias),
 * which is exactly the kind of frame the runtime records. symbolize_test finds the expected
 * lines through the MARK comments, so this file can be edited freely. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>

static volatile int sink;

/* dl_iterate_phdr lists the main program first; its dlpi_addr is the load bias. */
static int first_bias(struct dl_phdr_info* info, size_t size, void* out) {
  (void)size;
  *(uintptr_t*)out = (uintptr_t)info->dlpi_addr;
  return 1;
}

__attribute__((noinline)) static void probe(void) { /* MARK: probe-entry */
  uintptr_t bias = 0;
  dl_iterate_phdr(first_bias, &bias);
  uintptr_t ra = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
  printf("0x%lx\n", (unsigned long)(ra - 1 - bias));
  sink++;
}

static inline __attribute__((always_inline)) int scale_inlined(int x) {
  probe(); /* MARK: probe-call */
  return x * 3;
}

int main(int argc, char** argv) {
  (void)argv;
  int r = scale_inlined(argc); /* MARK: inlined-call */
  return r == 3 ? 0 : 1;
}
