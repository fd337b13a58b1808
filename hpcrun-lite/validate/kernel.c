/* The built-in kernel of `hpcrun-lite --check --validate` (launcher/validate.h): three heap
 * arrays of 256 MiB (a page apart in size, so that the profile tells them apart), each from
 * its own allocation site, filled by a thread of their own (its samples are not the test's: the
 * kernel prints the reading thread's id) and read by the main thread with one access pattern:
 * every 64-byte line once per pass, in strides of 4160 bytes (a line and a page apart). Each array is larger than any last-level
 * cache a core sees, so no pass finds what an earlier one left. A round reads the first array
 * once, the second twice, the third three times: the loads are in the ratio 1:2:3, and on most
 * machines so is the time; not on all (a fresh 6.18 guest timed 36.7/25.7/37.7 once: one
 * array's loads cost three times another's), so the truth is the times measured. The kernel
 * measures both, since a time-weighted source (soft) must match the time and a counting
 * one (PEBS loads above a latency, IBS ops) the loads.
 * Usage: hpcrun-lite-validate-kernel [SECONDS of CPU time, default 1.5]. Prints
 * "reader_tid TID", one line per array: "array BYTES loads N cpu_ns T", then "checksum X". */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MIB (1u << 20)
#define STRIDE (4160u / 8)  /* in 8-byte words */
#define LINE (64u / 8)

static uint64_t cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Each array's own site, so the profile tells them apart (and by their sizes). */
__attribute__((noinline)) static uint64_t *alloc_first(size_t n) { return malloc(n); }
__attribute__((noinline)) static uint64_t *alloc_second(size_t n) { return malloc(n); }
__attribute__((noinline)) static uint64_t *alloc_third(size_t n) { return malloc(n); }

static const size_t sizes[3] = {256 * MIB, 256 * MIB + 4096, 256 * MIB + 8192};
static uint64_t *arrays[3];

static void *fill(void *unused) {
  (void)unused;
  for (int k = 0; k < 3; ++k)
    for (size_t i = 0; i < sizes[k] / 8; ++i) arrays[k][i] = i * 7 + (uint64_t)k;
  return 0;
}

/* Reads every line of a once, in strides; returns the sum and counts the loads. Whole words
 * added from memory: the load never overwrites its own address register (the software
 * sampler's decoder then names its address). */
__attribute__((noinline)) static uint64_t read_all(const uint64_t *a, size_t words, uint64_t *loads) {
  uint64_t sum = 0, count = 0;
  for (size_t start = 0; start < STRIDE; start += LINE)
    for (size_t i = start; i < words; i += STRIDE, ++count) sum += a[i];
  *loads += count;
  return sum;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.5;
  if (!(seconds > 0)) seconds = 1.5;
  const int passes[3] = {1, 2, 3};
  arrays[0] = alloc_first(sizes[0]);
  arrays[1] = alloc_second(sizes[1]);
  arrays[2] = alloc_third(sizes[2]);
  for (int k = 0; k < 3; ++k)
    if (!arrays[k]) return 1;
  pthread_t filler;
  if (pthread_create(&filler, 0, fill, 0) != 0 || pthread_join(filler, 0) != 0) return 1;
  printf("reader_tid %ld\n", (long)syscall(SYS_gettid));
  uint64_t loads[3] = {0, 0, 0}, ns[3] = {0, 0, 0}, sum = 0;
  const uint64_t budget = (uint64_t)(seconds * 1e9), start = cpu_ns();
  while (cpu_ns() - start < budget) {
    for (int k = 0; k < 3; ++k)
      for (int p = 0; p < passes[k]; ++p) {
        uint64_t t0 = cpu_ns();
        sum += read_all(arrays[k], sizes[k] / 8, &loads[k]);
        ns[k] += cpu_ns() - t0;
      }
  }
  for (int k = 0; k < 3; ++k)
    printf("array %zu loads %llu cpu_ns %llu\n", sizes[k], (unsigned long long)loads[k],
           (unsigned long long)ns[k]);
  printf("checksum %llu\n", (unsigned long long)sum);
  for (int k = 0; k < 3; ++k) free(arrays[k]);
  return 0;
}
