// Reading and writing profile and database files (docs/FORMAT.md). Errors are returned, never
// thrown, and always name the input, so one damaged file can be reported and skipped while the
// others merge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl {

struct ReadResult {
  bool ok = false;
  Profile profile;
  std::string error;  // "PATH: what is wrong" when !ok
};

// Reads a whole file. `path` appears in every error message.
ReadResult read_profile_file(const std::string& path);
// Parses bytes of a whole file (header included); `name` appears in error messages.
ReadResult read_profile_bytes(const uint8_t* data, size_t size, const std::string& name);

// Only the META section of a profile or database file (the first section): the header is
// checked as read_profile_file checks it, and the payload is decompressed only as far as META
// goes. For choosing which files to merge before merging them. `profile.meta` and `kind` are
// set; nothing else is.
ReadResult read_profile_meta(const std::string& path);

// The complete file image: header and payload. zstd_level > 0 compresses the payload (flags bit 0);
// zstd_level == 0 stores it uncompressed, which golden tests use to pin exact bytes.
std::vector<uint8_t> encode_profile(const Profile& profile, int zstd_level = 3);

// Writes under a temporary name in the same directory (created with O_EXCL | O_NOFOLLOW, so an
// existing file or a planted symbolic link is never written through), fsyncs it and renames it
// when complete, so a reader never sees a partial file, even after a crash of the machine.
// `mode` is the new file's permission before the umask (the runtime's profiles: 0600).
// Returns false and sets *error (naming the path) on failure, leaving no temporary file.
bool write_profile_file(const Profile& profile, const std::string& path, std::string* error,
                        int zstd_level = 3, unsigned mode = 0666);

}  // namespace hpcl
