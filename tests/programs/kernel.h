/* The one kernel every test array is read through, so that each array costs the same per call
 * and its share of samples is set only by how often it is passed in. */
#ifndef HPCL_TEST_KERNEL_H
#define HPCL_TEST_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sums a[0..n) with an OpenMP parallel-for reduction. Defined in its own translation unit and
 * never inlined, so every sample of every array lands in the same code. */
double sum_array(const double *a, size_t n);

/* Sums a[0..n) on the calling thread alone, no OpenMP (a worker thread of the program's own must
 * not start a team). Out of line for the same reason as sum_array, and so that a compiler seeing
 * a pure function of an unchanged array cannot fold repeated calls into one. */
double sum_plain(const double *a, size_t n);

/* When sum_array_timing is set, every thread adds the CPU time (its own thread clock) it spent in
 * the loop of sum_array; sum_array_cpu_seconds() returns the total so far. The end-to-end tests
 * take it as the truth: the process CPU clock folds another running thread's time in only at
 * scheduler ticks (4 ms), which aliases with calls of a few hundred microseconds. */
extern int sum_array_timing;
double sum_array_cpu_seconds(void);

#ifdef __cplusplus
}
#endif

#endif
