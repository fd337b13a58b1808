// Diagnostics of the runtime: one line on stderr, prefixed "hpcrun-lite:", written with write(2)
// from a stack buffer so that logging never allocates. Not for use inside the signal handler.
#pragma once

namespace hpcrun {

extern bool g_verbose;

// Something is wrong: always printed.
void log_warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Progress and statistics: printed with -v only.
void log_info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace hpcrun
