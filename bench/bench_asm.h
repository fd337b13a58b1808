// A hand-written streaming loop with known registers, so a synthetic sample can point the
// decoder at a load whose address is ours to choose: the load is `movsd xmm1,[rdi+rax*8]` and
// hpcl_bench_stream_after_load is the instruction after it (where a timer sample lands).
#pragma once

#include <cstddef>

extern "C" double hpcl_bench_stream_sum(const double* a, size_t n);
extern "C" const char hpcl_bench_stream_after_load[];
