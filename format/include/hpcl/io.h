// Reading and writing profile and database files (docs/FORMAT.md). Errors are returned, never
// thrown, and always name the input, so one damaged file can be reported and skipped while the
// others merge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
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

// Writes a file piece by piece, compressing while it goes: for a writer whose profile is too
// large to hold twice (the runtime at exit hands over one site and one thread's tree at a time,
// so writing costs one tree and zstd's window of memory, not a copy of the profile). The pieces
// come in the order of docs/FORMAT.md: meta, modules, begin_sites and every site, statics, each
// tree, offsets; what came out of order, or fewer sites than announced, fails commit(). The
// script frames may come at any time before commit(), once. The file is what write_profile_file
// would write for the Profile that holds those pieces, byte for byte, and appears under its name
// only when commit() succeeds (as write_profile_file's).
class ProfileWriter {
 public:
  ProfileWriter(FileKind kind, int zstd_level = 3);
  ~ProfileWriter();  // a file not committed is removed
  ProfileWriter(const ProfileWriter&) = delete;
  ProfileWriter& operator=(const ProfileWriter&) = delete;

  // Creates the temporary file beside `path` (see write_profile_file). False and *error on failure.
  bool open(const std::string& path, unsigned mode, std::string* error);
  // Or appends the file image to *out (encode_profile).
  void open(std::vector<uint8_t>* out);

  void meta(const std::vector<std::pair<std::string, std::string>>& meta);
  void modules(std::span<const Module> modules);
  void begin_sites(uint32_t count, uint64_t frames);  // the sites and all their frames
  void site(const AllocSite& site);
  void statics(std::span<const StaticVar> statics);
  void tree(const Tree& tree);
  void offsets(std::span<const OffsetHistogram> offsets);
  // SCRIPT_FRAMES (1.8), copied and written at commit(): the interpreter's frames that the frames
  // of the script pseudo-module (kScriptModulePath) stand for, in the sites and the trees.
  void script_frames(std::span<const ScriptFrame> frames);
  // Every section of a whole Profile, instead of the pieces above.
  void all(const Profile& profile);

  // Completes the file (header, payload, fsync, rename). False and *error (naming the path).
  bool commit(std::string* error);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpcl
