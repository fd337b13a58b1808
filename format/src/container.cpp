// Reading the container: whole files, the header, the bounded inflation of the payload (see
// container.h).
#include "container.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>

#include "layout.h"
#include "payload.h"
#include "strf.h"
#include "wire.h"

namespace hpcl::container {
namespace {

// A corrupt payload_size must not make the reader allocate without bound. The payload is
// decompressed as a stream into a buffer that grows with what the frame really yields, so a false
// claim costs nothing; these limits bound what a genuine zstd bomb could make us hold. Profiles
// and databases measured on this project's runs compress 2x to 37x (MPI profiles, whose module
// paths and call paths repeat, the most); 256x leaves a wide margin. Small files may always claim
// up to kPayloadFloor.
constexpr uint64_t kMaxPayload = uint64_t{4} << 30;
constexpr uint64_t kPayloadFloor = uint64_t{64} << 20;
constexpr uint64_t kMaxRatio = 256;
// The largest file worth opening: the largest payload, stored (or compressed without gain).
constexpr uint64_t kMaxFileSize = layout::kHeaderSize + ZSTD_COMPRESSBOUND(kMaxPayload);

// Decompresses one zstd frame in steps into inflater.out. The window it may fill grows by
// doubling from a size proportional to the input, never beyond `limit`; a frame that would
// produce more is refused as soon as it does. Returns "" or says what is wrong; *produced_out is
// what the frame yielded either way (a frame cut short yields its bytes up to the cut).
std::string inflate_bounded(const uint8_t* src, size_t size, uint64_t limit, Inflater& inflater,
                            size_t* produced_out) {
  if (fresh_decoder(inflater) == nullptr) return "cannot allocate a zstd decoder";
  Buffer& out = inflater.out;
  size_t window = static_cast<size_t>(
      std::min<uint64_t>(limit, std::max<uint64_t>(uint64_t{1} << 20, 4 * uint64_t{size})));
  out.reserve(window);
  // A buffer kept from a larger file may already hold more: use it, up to the limit.
  window = static_cast<size_t>(std::min<uint64_t>(limit, out.capacity));
  ZSTD_inBuffer in{src, size, 0};
  size_t& produced = *produced_out;
  produced = 0;
  for (;;) {
    ZSTD_outBuffer o{out.data.get() + produced, window - produced, 0};
    size_t rc = ZSTD_decompressStream(inflater.dctx, &o, &in);
    produced += o.pos;
    if (ZSTD_isError(rc)) return strf("damaged compressed payload (%s)", ZSTD_getErrorName(rc));
    if (rc == 0) break;  // the frame is complete (and its checksum, if any, verified)
    if (produced == window) {
      if (window >= limit) {
        return strf("the compressed payload holds more than the %" PRIu64 " bytes the header says", limit);
      }
      window = static_cast<size_t>(std::min<uint64_t>(limit, 2 * uint64_t{window}));
      out.grow(window, produced);
    } else if (in.pos == in.size && o.pos == 0) {
      return "damaged compressed payload (the frame is cut short)";
    }
  }
  return {};
}

// Returns "" and the decompressed payload in inflater.out (*produced bytes), or says what is
// wrong. A frame cut short (a file truncated by a full disk, a killed copy) sets *cut and leaves in
// inflater.out what the frame yields up to the cut.
std::string decompress(const uint8_t* src, size_t size, uint64_t payload_size, Inflater& inflater,
                       size_t* produced, bool* cut) {
  size_t frame = ZSTD_findFrameCompressedSize(src, size);
  if (ZSTD_isError(frame) && ZSTD_getErrorCode(frame) == ZSTD_error_srcSize_wrong &&
      payload_size <= kMaxPayload) {
    *cut = true;
    inflate_bounded(src, size, payload_size, inflater, produced);
    return "truncated";
  }
  if (ZSTD_isError(frame)) {
    return strf("damaged compressed payload (%s)", ZSTD_getErrorName(frame));
  }
  if (frame != size) {
    return strf("%zu bytes after the end of the compressed payload", size - frame);
  }
  unsigned long long content = ZSTD_getFrameContentSize(src, size);
  if (content == ZSTD_CONTENTSIZE_ERROR) return "damaged compressed payload (bad frame header)";
  if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != payload_size) {
    return strf("header says the payload is %" PRIu64 " bytes, the compressed frame holds %llu",
                payload_size, content);
  }
  if (payload_size > kMaxPayload) {
    return strf("payload size %" PRIu64 " is larger than this reader accepts (%" PRIu64 " bytes)",
                payload_size, kMaxPayload);
  }
  if (payload_size > kPayloadFloor && payload_size / kMaxRatio > size) {
    return strf("payload size %" PRIu64 " is not plausible for %zu compressed bytes (damaged header?)",
                payload_size, size);
  }
  if (std::string err = inflate_bounded(src, size, payload_size, inflater, produced); !err.empty())
    return err;
  if (*produced != payload_size) {
    return strf("header says the payload is %" PRIu64 " bytes, it decompressed to %zu", payload_size,
                *produced);
  }
  return {};
}

// Names the format of a file that is not ours, when its first bytes say which, so that a user
// who passed the wrong file learns what it is. "" when unknown.
std::string other_format(const uint8_t* data, size_t size) {
  struct Known {
    const char* magic;
    size_t len;
    const char* what;
  };
  static const Known kKnown[] = {
      {"\x7f" "ELF", 4, "an ELF file (a program or library)"},
      {"PERFILE2", 8, "a perf.data file (perf record)"},
      {"HPCRUN-profile", 14, "an HPCToolkit measurement file"},
      {"HPCPROF-", 8, "an HPCToolkit database file"},
      {"\x28\xb5\x2f\xfd", 4, "a zstd-compressed file (decompress it first?)"},
      {"\x1f\x8b", 2, "a gzip-compressed file (decompress it first?)"},
      {"SQLite format 3", 15, "an SQLite database"},
      {"PK\x03\x04", 4, "a zip archive"},
      {"%PDF", 4, "a PDF document"},
  };
  for (const Known& k : kKnown) {
    if (size >= k.len && std::memcmp(data, k.magic, k.len) == 0) return k.what;
  }
  if (size > 0 && (data[0] == '{' || data[0] == '[')) return "text (JSON?), perhaps a report";
  return "";
}

}  // namespace

void Buffer::reserve(size_t n) {
  if (n <= capacity) return;
  data.reset();  // the old block first, so the two are never held at once
  data.reset(new uint8_t[n]);
  capacity = n;
}

void Buffer::grow(size_t n, size_t keep) {
  if (n <= capacity) return;
  std::unique_ptr<uint8_t[]> bigger(new uint8_t[n]);
  if (keep) std::memcpy(bigger.get(), data.get(), keep);
  data = std::move(bigger);
  capacity = n;
}

Inflater::~Inflater() { ZSTD_freeDCtx(dctx); }

ZSTD_DCtx* fresh_decoder(Inflater& inflater) {
  if (inflater.dctx == nullptr) {
    inflater.dctx = ZSTD_createDCtx();
    if (inflater.dctx == nullptr) return nullptr;
    // The writer's levels use windows of a few MiB; refuse frames that ask the decoder for more
    // than 128 MiB of history (zstd's default limit, stated here so it cannot drift).
    ZSTD_DCtx_setParameter(inflater.dctx, ZSTD_d_windowLogMax, 27);
  } else {
    ZSTD_DCtx_reset(inflater.dctx, ZSTD_reset_session_only);  // keeps the parameter
  }
  return inflater.dctx;
}

std::string read_file(const std::string& path, Buffer& bytes, size_t* size_out) {
  uint64_t file_size = 0;
  return read_file_start(path, UINT64_MAX, bytes, size_out, &file_size);
}

std::string read_file_start(const std::string& path, uint64_t limit, Buffer& bytes, size_t* size_out,
                            uint64_t* file_size) {
  // O_NONBLOCK: opening a FIFO named like a profile must not wait for a writer. The size is
  // checked before anything is read, and that many bytes (at most `limit`) are read: a device or
  // a file that grows while we read cannot make us read (or hold) without end.
  auto fail = [&](const std::string& what) { return path + ": " + what; };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(errno_text(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(S_ISDIR(st.st_mode) ? errno_text(EISDIR) : "not a regular file");
  }
  auto size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxFileSize) {
    ::close(fd);
    return fail(strf("the file is %" PRIu64 " bytes, larger than any profile this reader accepts "
                     "(%" PRIu64 " bytes)", size, kMaxFileSize));
  }
  *file_size = size;
  size = std::min(size, limit);
  bytes.reserve(std::max<size_t>(static_cast<size_t>(size), 1));
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, bytes.data.get() + got, static_cast<size_t>(size) - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return fail(strf("read error at byte %zu: %s", got, errno_text(err).c_str()));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got < size) {
    return fail(strf("the file shrank while being read (%zu of %" PRIu64 " bytes)", got, size));
  }
  *size_out = got;
  return {};
}

std::string open(const uint8_t* data, size_t size, Inflater& inflater, Payload* payload) {
  using namespace layout;
  if (size == 0) return "empty file (not a hpcrun-lite file)";
  // A file shorter than the magic that starts like one is a truncated profile, not a stranger.
  if (std::memcmp(data, kMagic, std::min(size, sizeof(kMagic))) != 0) {
    std::string what = other_format(data, size);
    return what.empty() ? "not a hpcrun-lite file (bad magic)"
                        : "not a hpcrun-lite file (bad magic): this looks like " + what;
  }
  if (size < kHeaderSize) {
    return strf("truncated: %zu of %zu bytes of its header", size, kHeaderSize);
  }
  auto major = static_cast<uint16_t>(wire::load_le(data + kOffMajor, 2));
  auto minor = static_cast<uint16_t>(wire::load_le(data + kOffMinor, 2));
  if (major > kMajorVersion) {
    return strf("written by a newer hpcrun-lite (format %u.%u); this reader understands format %u.x",
                major, minor, kMajorVersion);
  }
  if (major < kMajorVersion) {
    return strf("format %u.%u is not supported; this reader understands format %u.x", major, minor,
                kMajorVersion);
  }
  auto kind = static_cast<uint32_t>(wire::load_le(data + kOffKind, 4));
  if (kind != static_cast<uint32_t>(FileKind::Process) && kind != static_cast<uint32_t>(FileKind::Database)) {
    return strf("unknown file kind %" PRIu32 " (1 = process profile, 2 = database)", kind);
  }
  uint64_t payload_size = wire::load_le(data + kOffPayloadSize, 8);
  auto flags = static_cast<uint32_t>(wire::load_le(data + kOffFlags, 4));
  if (flags & ~kKnownFlags) return strf("unknown header flags 0x%" PRIx32, flags & ~kKnownFlags);

  payload->kind = static_cast<FileKind>(kind);
  payload->data = data + kHeaderSize;
  payload->size = size - kHeaderSize;
  // A file cut short says how much of it arrived and what of that could be read.
  auto truncated = [&](const uint8_t* prefix, size_t n) -> std::string {
    if (n == payload_size)  // every byte but the frame's last: its checksum
      return strf("truncated: the end of its compressed payload is missing, so its %" PRIu64
                  " bytes cannot be checked; it is read whole or not at all", payload_size);
    return strf("truncated: %zu of %" PRIu64 " bytes of its payload; ", n, payload_size) +
           payload::describe_prefix(prefix, n, payload->kind);
  };
  if (flags & kFlagZstd) {
    size_t produced = 0;
    bool cut = false;
    if (std::string err = decompress(payload->data, payload->size, payload_size, inflater, &produced, &cut);
        !err.empty())
      return cut ? truncated(inflater.out.data.get(), produced) : err;
    payload->data = inflater.out.data.get();
    payload->size = produced;
  } else if (payload_size > payload->size) {
    return truncated(payload->data, payload->size);
  } else if (payload_size != payload->size) {
    return strf("trailing bytes: header says the payload is %" PRIu64 " bytes, the file holds %zu",
                payload_size, payload->size);
  }
  return {};
}

}  // namespace hpcl::container
