// The file container of docs/FORMAT.md as io.cpp and scan.cpp read it: a whole file read into
// memory, the 32-byte header checked and the payload inflated, into buffers the caller may keep
// from file to file (a merge reads thousands of files: reusing the zstd context and the payload
// buffer saves an allocation, its page faults and a memset per file). Messages do not name the
// input unless they say so; the callers prefix it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "hpcl/profile.h"

struct ZSTD_DCtx_s;

namespace hpcl::container {

// Bytes that are never zero-filled: a growing vector<uint8_t> would memset what zstd or read()
// is about to overwrite anyway.
struct Buffer {
  std::unique_ptr<uint8_t[]> data;
  size_t capacity = 0;
  // At least n bytes; the old contents are lost.
  void reserve(size_t n);
  // At least n bytes; the first `keep` bytes stay.
  void grow(size_t n, size_t keep);
};

// Inflates payloads: a zstd context and the buffer they go to.
struct Inflater {
  ZSTD_DCtx_s* dctx = nullptr;
  Buffer out;
  Inflater() = default;
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  ~Inflater();
};

// The inflater's zstd context, created on first use (with the window limit every reader keeps)
// or reset for a new frame; nullptr when it cannot be allocated.
ZSTD_DCtx_s* fresh_decoder(Inflater& inflater);

// Reads the whole regular file `path` into `bytes` (*size of them). "" or "PATH: what is wrong".
std::string read_file(const std::string& path, Buffer& bytes, size_t* size);
// The same for at most its first `limit` bytes; *file_size is the whole file's size.
std::string read_file_start(const std::string& path, uint64_t limit, Buffer& bytes, size_t* size,
                            uint64_t* file_size);

// The payload of a whole file image: "" with the kind and the payload (in `data` when stored,
// in inflater.out when compressed), or what is wrong.
struct Payload {
  FileKind kind = FileKind::Process;
  const uint8_t* data = nullptr;
  size_t size = 0;
};
std::string open(const uint8_t* data, size_t size, Inflater& inflater, Payload* payload);

}  // namespace hpcl::container
