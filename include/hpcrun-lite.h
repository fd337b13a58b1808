/* hpcrun-lite's annotation API, for C and C++ programs.
 *
 * hpcrun_lite_name(addr, bytes, name) names the range [addr, addr + bytes) of the program's
 * memory. Under hpcrun-lite the range is a variable of its own in the report: kind heap,
 * allocator `named`, its name the one given, its allocation path the call path of the
 * annotation. It wins over the heap block or mapping it lies in, so a pool or arena carved into
 * sub-arrays (Kokkos views in one allocation, an Umpire pool, a hand-made arena) shows each
 * sub-array as its own row instead of one row for the pool.
 *
 *   - Naming bytes that already carry a name cuts the old name there (the last name wins).
 *   - A null or empty name removes every name in the range: call it when the pool hands the range
 *     out again for other data, then name the new data.
 *   - A name ends by itself when the tracked block or mapping it lies in is freed or unmapped.
 *     Memory the tool did not track (a small block below --min-bytes that was not sampled, a
 *     static array, the stack) keeps its names until they are removed.
 *   - The name is copied (up to 255 bytes); the call costs 0.2-0.5 us under the tool (a call
 *     path is captured; 100,000 names on a development VM), so name arrays when they are
 *     carved, not on every access.
 *
 * The function is defined by the preloaded runtime. The declaration below is weak, so a program
 * built with this header links and runs unchanged without the tool, where the call does nothing
 * (HPCRUN_LITE_NAME checks for the runtime first). See docs/USAGE.md "Naming parts of a pool" and
 * examples/named_pool.c.
 */
#ifndef HPCRUN_LITE_H
#define HPCRUN_LITE_H

#include <stddef.h>

/* The range's bytes are never read: naming freshly allocated memory draws no warning. */
#if defined(__has_attribute)
#if __has_attribute(access)
#define HPCRUN_LITE_NO_ACCESS __attribute__((access(none, 1)))
#endif
#endif
#ifndef HPCRUN_LITE_NO_ACCESS
#define HPCRUN_LITE_NO_ACCESS
#endif

#ifdef __cplusplus
extern "C" {
#endif

void hpcrun_lite_name(const void *addr, size_t bytes, const char *name)
    __attribute__((weak)) HPCRUN_LITE_NO_ACCESS;

#ifdef __cplusplus
}
#endif

/* Names the range when the program runs under hpcrun-lite; does nothing otherwise. */
#define HPCRUN_LITE_NAME(addr, bytes, name)                                                        \
  do {                                                                                             \
    if (hpcrun_lite_name) hpcrun_lite_name((addr), (bytes), (name));                               \
  } while (0)

#endif
