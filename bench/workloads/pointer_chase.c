// Pointer-chasing kernel (benchmark workload): each OpenMP thread follows a random cyclic
// permutation through a heap array much larger than the caches, so nearly every step is a
// dependent cache miss (mov rax,[rax+...] style loads that the decoder must handle).
// Usage: pointer_chase [nodes-in-millions] [steps-in-millions per thread]
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
  struct node* next;
  uint64_t pad[7];  // one node per cache line
};

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static struct node* chase(struct node* p, long steps) {
  for (long s = 0; s < steps; ++s) p = p->next;
  return p;
}

int main(int argc, char** argv) {
  long n = (argc > 1 ? atol(argv[1]) : 1) * 1000000L;
  long steps = (argc > 2 ? atol(argv[2]) : 4) * 1000000L;
  struct node* nodes = malloc(sizeof(struct node) * n);
  long* order = malloc(sizeof(long) * n);
  if (!nodes || !order) return 1;
  for (long i = 0; i < n; ++i) order[i] = i;
  for (long i = n - 1; i > 0; --i) {  // Fisher-Yates: one cycle through every node
    long j = (long)(next_random() % (uint64_t)(i + 1));
    long t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (long i = 0; i < n; ++i) nodes[order[i]].next = &nodes[order[(i + 1) % n]];
  free(order);
  long sum = 0;
#pragma omp parallel reduction(+ : sum)
  {
    struct node* start = &nodes[(long)omp_get_thread_num() * (n / 2)];
    sum += chase(start, steps) - nodes;
  }
  printf("pointer_chase: n=%ld steps=%ld threads=%d checksum=%ld\n", n, steps, omp_get_max_threads(), sum);
  free(nodes);
  return 0;
}
