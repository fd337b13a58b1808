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

ReadResult read_profile_meta(const std::string& path) {
  container::Buffer file;
  size_t file_size = 0;
  if (std::string err = container::read_file(path, file, &file_size); !err.empty()) return read_failed(err);
  using namespace layout;
  const uint8_t* bytes = file.data.get();
  const std::string& name = path;
  if (file_size < kHeaderSize || std::memcmp(bytes, kMagic, sizeof kMagic) != 0 ||
      wire::load_le(bytes + kOffMajor, 2) != kMajorVersion)
    return read_profile_bytes(bytes, file_size, path);  // its own words for what is wrong
  const uint8_t* body = bytes + kHeaderSize;
  const size_t body_size = file_size - kHeaderSize;
  std::vector<uint8_t> head;
  if (wire::load_le(bytes + kOffFlags, 4) & kFlagZstd) {
    // As much of the frame as the first section needs: its header, then its length.
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    if (dctx == nullptr) return fail(name, "cannot allocate a zstd decoder");
    ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 27);
    ZSTD_inBuffer in{body, body_size, 0};
    size_t want = kSectionHeaderSize;
    head.resize(1 << 16);
    size_t produced = 0;
    while (produced < want) {
      if (head.size() < want) head.resize(want);
      ZSTD_outBuffer o{head.data() + produced, head.size() - produced, 0};
      size_t rc = ZSTD_decompressStream(dctx, &o, &in);
      produced += o.pos;
      if (produced >= kSectionHeaderSize && want == kSectionHeaderSize) {
        const uint64_t length = wire::load_le(head.data() + 8, 8);
        if (length > (uint64_t{4} << 30)) break;  // beyond any payload a reader accepts
        want = kSectionHeaderSize + static_cast<size_t>(length);
      }
      if (ZSTD_isError(rc) || rc == 0 || (in.pos == in.size && o.pos == 0)) break;
    }
    ZSTD_freeDCtx(dctx);
    head.resize(std::min(produced, want));
    body = head.data();
  }
  const size_t available = (wire::load_le(bytes + kOffFlags, 4) & kFlagZstd) ? head.size() : body_size;
  ReadResult r;
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
  r.ok = true;
  r.profile = std::move(meta);
  return r;
}

}  // namespace hpcl
