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

#ifdef __cplusplus
}
#endif

#endif
