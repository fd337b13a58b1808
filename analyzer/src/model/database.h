// Opening a database for reporting: read, check that it is a database (not a process profile)
// with one tree, and validate its indices, so the report model and the viewer can trust it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hpcl/profile.h"

namespace hpcl::analysis {

// On failure returns false with a one-line *error that names `path`.
bool load_database(const std::string& path, Profile* db, std::string* error);

// The same checks on the bytes of a whole file (the fuzzer's entry); `name` names the input.
bool load_database_bytes(const uint8_t* data, size_t size, const std::string& name, Profile* db,
                         std::string* error);

}  // namespace hpcl::analysis
