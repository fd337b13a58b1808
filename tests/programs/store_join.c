/* A cache-missing store followed by a branch target (decoder rule BranchJoin).
 *
 * The loop is hpcc RandomAccess's update, `table[ran & mask] ^= ran` on a 64 MiB table allocated
 * by alloc_table, made conditional, with an else branch and a counter kept on the stack. At -O2 GCC
 * lays it out as
 *     xor    %rcx,(%r8,%rax,8)      <- the store that misses the caches
 *     mov    -0x10(%rsp),%rax       <- the join of the if/else (a jump target): updates++
 * so a timer sample after the store lands on a branch target whose instruction reads the stack.
 * Expected: the table has the large majority (at least 75%) of the samples with a data address,
 * [stack] under 10% of them: the counters stay in L1 and cost little.
 *
 * Usage: store_join [MILLIONS]   (updates in millions; the default takes about 2.5 s here) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TABLE_ENTRIES ((size_t)8 << 20) /* 64 MiB of uint64_t */
#define POLY 0x0000000000000007ULL

__attribute__((noinline)) static uint64_t *alloc_table(void) {
  uint64_t *t = malloc(TABLE_ENTRIES * sizeof *t);
  if (!t) exit(1);
  for (size_t i = 0; i < TABLE_ENTRIES; i++)
    t[i] = i;
  return t;
}

__attribute__((noinline)) static uint64_t update_table(uint64_t *table, uint64_t mask, long n, uint64_t ran) {
  volatile long updates = 0, skipped = 0;
  for (long i = 0; i < n; i++) {
    ran = (ran << 1) ^ ((int64_t)ran < 0 ? POLY : 0);
    if (ran & 0x10)
      table[ran & mask] ^= ran;
    else
      skipped++;
    updates++;
  }
  return ran + (uint64_t)updates + (uint64_t)skipped;
}

int main(int argc, char **argv) {
  long millions = 200;
  if (argc > 1 && (millions = strtol(argv[1], NULL, 10)) <= 0) {
    fprintf(stderr, "usage: store_join [MILLIONS]\n");
    return 2;
  }
  uint64_t *table = alloc_table();
  uint64_t r = update_table(table, TABLE_ENTRIES - 1, millions * 1000000, 1);
  uint64_t check = 0;
  for (size_t i = 0; i < TABLE_ENTRIES; i += 4096)
    check ^= table[i];
  printf("checksum %llu %llu\n", (unsigned long long)r, (unsigned long long)check);
  free(table);
  return 0;
}
