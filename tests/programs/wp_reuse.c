// Reuse times under watchpoints (tests/e2e/wp_reuse.sh): a 4 KiB heap table re-read continuously
// (each word comes back after ~512 loads: well under a microsecond) and a 64 MiB heap buffer
// swept end to end (each word comes back after 8M loads: milliseconds), in alternating phases.
// The buffer's median reuse must come out at least 100 times the table's. The result line is
// the same with and without the tool.
#include <stdio.h>
#include <stdlib.h>

#define TABLE_WORDS (4096 / sizeof(long))
#define BUF_WORDS ((64u << 20) / sizeof(long))

__attribute__((noinline)) static long read_table(const volatile long *table, long rounds) {
  long s = 0;
  for (long r = 0; r < rounds; ++r)
    for (size_t i = 0; i < TABLE_WORDS; ++i) s += table[i];
  return s;
}

__attribute__((noinline)) static long sweep_buffer(const volatile long *buf, int sweeps) {
  long s = 0;
  for (int r = 0; r < sweeps; ++r)
    for (size_t i = 0; i < BUF_WORDS; ++i) s += buf[i];
  return s;
}

int main(void) {
  long *table = malloc(TABLE_WORDS * sizeof(long));
  long *buf = malloc(BUF_WORDS * sizeof(long));
  for (size_t i = 0; i < TABLE_WORDS; ++i) table[i] = (long)i;
  for (size_t i = 0; i < BUF_WORDS; ++i) buf[i] = (long)(i & 1023);
  long s = 0;
  for (int phase = 0; phase < 12; ++phase) {
    s += read_table(table, 150000);
    s += sweep_buffer(buf, 8);
  }
  printf("reuse %ld\n", s);
  free(table);
  free(buf);
  return 0;
}
