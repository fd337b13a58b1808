/* Test subject for naming stack variables (stack_locals_test.cpp), built -g -O2 -fopenmp. Each
 * case hands its variables to stack_report, which prints what the profiler would record for
 * the caller's frame: the call site (return address - 1, link-time) and the caller's canonical
 * frame address, both found by unwinding, and each variable's first and last byte relative to
 * that CFA. The test reads the expected declaration lines through the DECL comments, so this
 * file can be edited freely.
 *
 * Built with STACK_REPORT_ONLY, it is just stack_report, for the Fortran subject to call. */
#define _GNU_SOURCE
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unwind.h>

struct walk {
  int depth;
  uintptr_t ip, cfa;
};

/* Frame 0 is stack_report, 1 its caller. libgcc's _Unwind_GetCFA gives the stack pointer of the
 * frame at the context's IP, which is the CFA of the frame it called: the caller's CFA is read
 * at frame 2. */
static _Unwind_Reason_Code at_frame(struct _Unwind_Context* ctx, void* arg) {
  struct walk* w = arg;
  const int depth = w->depth++;
  if (depth == 1) w->ip = (uintptr_t)_Unwind_GetIP(ctx);
  if (depth < 2) return _URC_NO_REASON;
  w->cfa = (uintptr_t)_Unwind_GetCFA(ctx);
  return _URC_END_OF_STACK;
}

/* dl_iterate_phdr lists the main program first; its dlpi_addr is the load bias. */
static int first_bias(struct dl_phdr_info* info, size_t size, void* out) {
  (void)size;
  *(uintptr_t*)out = (uintptr_t)info->dlpi_addr;
  return 1;
}

/* One line: "<label> <pc> <first> <last> [<first> <last>]", offsets in decimal. */
__attribute__((noinline)) void stack_report(const char* label, const void* a, size_t a_size,
                                            const void* b, size_t b_size) {
  struct walk w = {0, 0, 0};
  _Unwind_Backtrace(at_frame, &w);
  uintptr_t bias = 0;
  dl_iterate_phdr(first_bias, &bias);
  printf("%s 0x%lx %ld %ld", label, (unsigned long)(w.ip - 1 - bias), (long)((uintptr_t)a - w.cfa),
         (long)((uintptr_t)a + a_size - 1 - w.cfa));
  if (b != NULL)
    printf(" %ld %ld", (long)((uintptr_t)b - w.cfa), (long)((uintptr_t)b + b_size - 1 - w.cfa));
  printf("\n");
  fflush(stdout);
}

#ifndef STACK_REPORT_ONLY
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Reading the arrays back after the report keeps them in memory and the report from becoming a
 * tail call. */
static double sum(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}

/* Three frames with arrays of different sizes, far from and near the CFA. */
__attribute__((noinline)) double huge_frame(int n) {
  double huge[16384]; /* DECL: huge */
  for (int i = 0; i < 16384; ++i) huge[i] = i * n;
  stack_report("huge", huge, sizeof huge, NULL, 0);
  return sum(huge, 16384);
}

__attribute__((noinline)) double medium_frame(int n) {
  double medium[2048]; /* DECL: medium */
  for (int i = 0; i < 2048; ++i) medium[i] = i + n;
  stack_report("medium", medium, sizeof medium, NULL, 0);
  return sum(medium, 2048);
}

__attribute__((noinline)) double small_frame(int n) {
  double small[24]; /* DECL: small */
  for (int i = 0; i < 24; ++i) small[i] = i - n;
  stack_report("small", small, sizeof small, NULL, 0);
  return sum(small, 24);
}

/* A small struct next to an array: a slot across both goes to the larger overlap. */
struct particle {
  double x, y, z;
  long id;
};

__attribute__((noinline)) double struct_frame(int n) {
  struct particle p; /* DECL: p */
  double hist[12];   /* DECL: hist */
  p.x = n, p.y = 2 * n, p.z = 3 * n, p.id = n;
  for (int i = 0; i < 12; ++i) hist[i] = i;
  stack_report("struct", &p, sizeof p, hist, sizeof hist);
  return p.x + p.y + p.z + (double)p.id + sum(hist, 12);
}

/* Two blocks whose arrays GCC gives the same stack slot: which one a slot is depends on the pc. */
__attribute__((noinline)) double blocks_frame(int n) {
  double s = 0;
  {
    double first[32]; /* DECL: first */
    for (int i = 0; i < 32; ++i) first[i] = i * n;
    stack_report("block1", first, sizeof first, NULL, 0);
    s += sum(first, 32);
  }
  {
    double second[32]; /* DECL: second */
    for (int i = 0; i < 32; ++i) second[i] = i + n;
    stack_report("block2", second, sizeof second, NULL, 0);
    s += sum(second, 32);
  }
  return s;
}

/* A C VLA below a fixed array: the VLA lives in the dynamic area under the frame pointer. */
__attribute__((noinline)) double vla_frame(int n) {
  double fixed[6]; /* DECL: fixed */
  double vla[n];   /* DECL: vla */
  for (int i = 0; i < 6; ++i) fixed[i] = i;
  for (int i = 0; i < n; ++i) vla[i] = i;
  stack_report("vla", vla, sizeof vla, fixed, sizeof fixed);
  return sum(vla, n) + sum(fixed, 6);
}

/* alloca'd storage no variable names: a temporary of the dynamic area. */
__attribute__((noinline)) double alloca_frame(int n) {
  double* scratch = __builtin_alloca(n * sizeof(double));
  for (int i = 0; i < n; ++i) scratch[i] = i;
  stack_report("alloca", scratch, n * sizeof(double), NULL, 0);
  return sum(scratch, n);
}

/* An array of an inlined function belongs to it, not to its caller. */
static inline __attribute__((always_inline)) double inlined_scratch(int n) {
  double scratch[40]; /* DECL: scratch */
  for (int i = 0; i < 40; ++i) scratch[i] = i * n;
  stack_report("inlined", scratch, sizeof scratch, NULL, 0);
  return sum(scratch, 40);
}

__attribute__((noinline)) double inlining_frame(int n) { return inlined_scratch(n) * 2; }

/* An OpenMP private array lives in the outlined region's frame. */
__attribute__((noinline)) double omp_frame(int n) {
  double total = 0;
  double priv[300]; /* DECL: priv */
#pragma omp parallel num_threads(2) private(priv) reduction(+ : total)
  {
    for (int i = 0; i < 300; ++i) priv[i] = i + omp_get_thread_num() + n;
    if (omp_get_thread_num() == 0) stack_report("omp", priv, sizeof priv, NULL, 0);
    total += sum(priv, 300);
  }
  return total;
}

int main(int argc, char** argv) {
  (void)argv;
  double s = huge_frame(argc) + medium_frame(argc) + small_frame(argc) + struct_frame(argc);
  s += blocks_frame(argc) + vla_frame(argc + 99) + alloca_frame(argc + 49);
  s += inlining_frame(argc) + omp_frame(argc);
  return s > 0 ? 0 : 1;
}
#endif
