// Reading whole files of docs/FORMAT.md through container.h (file_writer.cpp writes them). What
// is inside the payload is decode.cpp's business. Every error is returned as "NAME: what is
// wrong" so that the analyzer can report a damaged input and go on with the others.
#include "hpcl/io.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>

#include "container.h"
#include "layout.h"
#include "payload.h"
#include "wire.h"

namespace hpcl {
namespace {

ReadResult fail(const std::string& name, const std::string& what) {
  ReadResult r;
  r.error = name + ": " + what;
  return r;
}

}  // namespace

ReadResult read_profile_bytes(const uint8_t* data, size_t size, const std::string& name) {
  container::Inflater inflater;
  container::Payload payload;
  if (std::string err = container::open(data, size, inflater, &payload); !err.empty())
    return fail(name, err);
  ReadResult r;
  r.profile.kind = payload.kind;
  if (std::string err = payload::decode(payload.data, payload.size, r.profile); !err.empty()) {
    return fail(name, err);
  }
  r.ok = true;
  return r;
}

namespace {

// An error of container::read_file, which already names the file.
ReadResult read_failed(std::string error) {
  ReadResult r;
  r.error = std::move(error);
  return r;
}

}  // namespace

ReadResult read_profile_file(const std::string& path) {
  container::Buffer bytes;
  size_t size = 0;
  if (std::string err = container::read_file(path, bytes, &size); !err.empty()) return read_failed(err);
  return read_profile_bytes(bytes.data.get(), size, path);
}

namespace {

// The META section from the start of a compressed payload: *head holds its section header and
// body, or less when the frame ends, breaks or needs more than `body` holds (*more_input). zstd
// inflates the next block (128 KiB of the payload) as soon as it has flushed one whole and has
// input at hand, even into a full output: so each step first takes what the blocks inflated so
// far hold, without input, and gives input only when that falls short. The output is never
// larger than what is still wanted.
void inflate_meta(const uint8_t* body, size_t body_size, ZSTD_DCtx* dctx, std::vector<uint8_t>* head,
                  bool* more_input) {
  using namespace layout;
  ZSTD_inBuffer in{body, body_size, 0};
  size_t want = kSectionHeaderSize, produced = 0;
  *more_input = false;
  while (produced < want) {
    // A MiB at a time: a damaged length must not make us allocate what the frame never yields.
    head->resize(std::min(want, produced + (size_t{1} << 20)));
    ZSTD_outBuffer o{head->data() + produced, head->size() - produced, 0};
    ZSTD_inBuffer held{body, in.pos, in.pos};
    size_t rc = ZSTD_decompressStream(dctx, &o, &held);
    if (!ZSTD_isError(rc) && rc != 0 && o.pos < o.size) rc = ZSTD_decompressStream(dctx, &o, &in);
    produced += o.pos;
    if (produced >= kSectionHeaderSize && want == kSectionHeaderSize) {
      const uint64_t length = wire::load_le(head->data() + 8, 8);
      if (length > (uint64_t{4} << 30)) break;  // beyond any payload a reader accepts
      want = kSectionHeaderSize + static_cast<size_t>(length);
    }
    if (ZSTD_isError(rc) || rc == 0) break;
    if (in.pos == in.size && o.pos < o.size) {  // everything given was used: the META goes on
      *more_input = produced < want;
      break;
    }
  }
  head->resize(std::min(produced, want));
}

}  // namespace

ReadResult read_profile_meta(const std::string& path) {
  using namespace layout;
  // The start of the file, then more while the META section goes on past it: a writer of this
  // version ends a compressed block after META (payload.h), so the first 16 KiB hold it.
  // A zstd context per thread, kept across files: merge reads the META of every file of a
  // directory before it merges them (thousands, from a few threads), and a new context per file
  // cost an allocation of its window each time.
  thread_local container::Inflater inflater;
  container::Buffer file;
  const std::string& name = path;
  for (uint64_t limit = uint64_t{16} << 10;; limit *= 8) {
    size_t got = 0;
    uint64_t file_size = 0;
    if (std::string err = container::read_file_start(path, limit, file, &got, &file_size); !err.empty())
      return read_failed(err);
    const uint8_t* bytes = file.data.get();
    const bool whole = got == file_size;
    if (got < kHeaderSize || std::memcmp(bytes, kMagic, sizeof kMagic) != 0 ||
        wire::load_le(bytes + kOffMajor, 2) != kMajorVersion) {
      if (whole) return read_profile_bytes(bytes, got, path);  // its own words for what is wrong
      return read_profile_file(path);
    }
    const uint8_t* body = bytes + kHeaderSize;
    size_t available = got - kHeaderSize;
    std::vector<uint8_t> head;
    if (wire::load_le(bytes + kOffFlags, 4) & kFlagZstd) {
      ZSTD_DCtx* dctx = container::fresh_decoder(inflater);
      if (dctx == nullptr) return fail(name, "cannot allocate a zstd decoder");
      bool more_input = false;
      inflate_meta(body, available, dctx, &head, &more_input);
      if (more_input && !whole) continue;
      body = head.data();
      available = head.size();
    } else if (!whole && (available < kSectionHeaderSize ||
                          wire::load_le(body + 8, 8) > available - kSectionHeaderSize)) {
      continue;  // a stored payload whose META goes past what was read
    }
    if (available < kSectionHeaderSize || wire::load_le(body, 4) != kTagMeta)
      return fail(name, "no META section at the start of its payload");
    const uint64_t length = wire::load_le(body + 8, 8);
    if (length > available - kSectionHeaderSize) return fail(name, "its META section is cut short");
    Profile meta;
    meta.kind = static_cast<FileKind>(wire::load_le(bytes + kOffKind, 4));
    // The section alone, as a payload of one section: the same parser as every read.
    if (std::string err = payload::decode_meta(body, kSectionHeaderSize + static_cast<size_t>(length), meta);
        !err.empty())
      return fail(name, err);
    ReadResult r;
    r.ok = true;
    r.profile = std::move(meta);
    return r;
  }
}

}  // namespace hpcl
