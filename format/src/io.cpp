// The file container of docs/FORMAT.md: the 32-byte header, the optional zstd frame around the
// payload, and reading and writing whole files. What is inside the payload is encode.cpp's and
// decode.cpp's business. Every error is returned as "NAME: what is wrong" so that the analyzer
// can report a damaged input and go on with the others.
#include "hpcl/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <system_error>

#include "layout.h"
#include "payload.h"
#include "strf.h"
#include "wire.h"

namespace hpcl {
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

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

ReadResult fail(const std::string& name, const std::string& what) {
  ReadResult r;
  r.error = name + ": " + what;
  return r;
}

// Decompresses one zstd frame in steps. The output grows by doubling from a size proportional to
// the input, never beyond `limit`; a frame that would produce more is refused as soon as it does.
// Returns "" and the bytes in `out`, or says what is wrong.
std::string inflate_bounded(const uint8_t* src, size_t size, uint64_t limit, std::vector<uint8_t>& out) {
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  if (dctx == nullptr) return "cannot allocate a zstd decoder";
  // The writer's levels use windows of a few MiB; refuse frames that ask the decoder for more
  // than 128 MiB of history (zstd's default limit, stated here so it cannot drift).
  ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 27);
  size_t cap = static_cast<size_t>(std::min<uint64_t>(limit, std::max<uint64_t>(uint64_t{1} << 20, 4 * uint64_t{size})));
  out.resize(cap);
  ZSTD_inBuffer in{src, size, 0};
  size_t produced = 0;
  std::string err;
  for (;;) {
    ZSTD_outBuffer o{out.data() + produced, out.size() - produced, 0};
    size_t rc = ZSTD_decompressStream(dctx, &o, &in);
    produced += o.pos;
    if (ZSTD_isError(rc)) {
      err = strf("damaged compressed payload (%s)", ZSTD_getErrorName(rc));
      break;
    }
    if (rc == 0) break;  // the frame is complete (and its checksum, if any, verified)
    if (produced == out.size()) {
      if (out.size() >= limit) {
        err = strf("the compressed payload holds more than the %" PRIu64 " bytes the header says", limit);
        break;
      }
      out.resize(static_cast<size_t>(std::min<uint64_t>(limit, 2 * uint64_t{out.size()})));
    } else if (in.pos == in.size && o.pos == 0) {
      err = "damaged compressed payload (the frame is cut short)";
      break;
    }
  }
  ZSTD_freeDCtx(dctx);
  out.resize(produced);
  return err;
}

// Returns "" and fills `out` with the decompressed payload, or says what is wrong.
std::string decompress(const uint8_t* src, size_t size, uint64_t payload_size, std::vector<uint8_t>& out) {
  size_t frame = ZSTD_findFrameCompressedSize(src, size);
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
  if (std::string err = inflate_bounded(src, size, payload_size, out); !err.empty()) return err;
  if (out.size() != payload_size) {
    return strf("header says the payload is %" PRIu64 " bytes, it decompressed to %zu", payload_size,
                out.size());
  }
  return {};
}

std::vector<uint8_t> compress(const std::vector<uint8_t>& src, int level) {
  std::vector<uint8_t> out(ZSTD_compressBound(src.size()));
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (cctx == nullptr) return {};
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, std::min(level, ZSTD_maxCLevel()));
  // The checksum turns most on-disk damage into a clear error instead of a plausible profile.
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  size_t n = ZSTD_compress2(cctx, out.data(), out.size(), src.data(), src.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) return {};
  out.resize(n);
  return out;
}

bool write_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
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

std::vector<uint8_t> encode_profile(const Profile& profile, int zstd_level) {
  std::vector<uint8_t> payload = payload::encode(profile);
  std::vector<uint8_t> packed;
  // If compression fails (only on allocation failure) the file is still valid uncompressed.
  if (zstd_level > 0) packed = compress(payload, zstd_level);
  bool zstd = !packed.empty();

  std::vector<uint8_t> out;
  const std::vector<uint8_t>& body = zstd ? packed : payload;
  out.reserve(layout::kHeaderSize + body.size());
  wire::Writer w(out);
  w.bytes(layout::kMagic, sizeof(layout::kMagic));
  w.u16(kMajorVersion);
  // The lowest minor that describes the file: without memory metrics, page faults, balance,
  // offset histograms or callees it is a 1.0 file byte for byte.
  w.u16(payload::named_sites(profile) > 0 || payload::has_site_apis_of_1_7(profile)
            ? kMinorSiteNames
        : payload::has_watch_metrics(profile) ? kMinorWatch
        : payload::has_memory_metrics(profile) || !profile.balance.first_touch.empty()
            ? kMinorMemoryMetrics
        : payload::has_page_faults(profile)   ? kMinorPageFaults
        : profile.balance.present()           ? kMinorBalance
        : !profile.offsets.empty()            ? kMinorOffsets
        : payload::callee_count(profile) > 0 ? kMinorCallees
                                              : 0);
  w.u32(static_cast<uint32_t>(profile.kind));
  w.u64(payload.size());
  w.u32(zstd ? layout::kFlagZstd : 0);
  w.u32(0);
  w.bytes(body.data(), body.size());
  return out;
}

bool write_profile_file(const Profile& profile, const std::string& path, std::string* error,
                        int zstd_level, unsigned mode) {
  auto report = [&](const std::string& what, int err) {
    if (error) *error = path + ": " + what + ": " + errno_text(err);
    return false;
  };
  std::vector<uint8_t> bytes = encode_profile(profile, zstd_level);

  // A unique temporary name beside the target, so rename() is atomic (same file system) and two
  // threads or processes writing at once never share one. O_EXCL retries on a stale leftover.
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = strf("%s.tmp.%ld.%u", path.c_str(), static_cast<long>(::getpid()), counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                static_cast<mode_t>(mode));
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return report("cannot create temporary file " + tmp, errno);

  if (!write_all(fd, bytes.data(), bytes.size())) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return report("cannot write " + tmp, err);
  }
  // On disk before it gets its final name: after a crash of the machine the name holds either
  // nothing or the whole file. fsync and close can report a deferred write error (NFS, quota,
  // a full disk); a file that failed then is not kept.
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return report("cannot write " + tmp, err);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return report("cannot write " + tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return report("cannot rename " + tmp + " to the final name", err);
  }
  // The rename itself is durable once the directory is synced (best effort: not every file
  // system lets a directory be opened for that).
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

ReadResult read_profile_bytes(const uint8_t* data, size_t size, const std::string& name) {
  using namespace layout;
  if (size == 0) return fail(name, "empty file (not a hpcrun-lite file)");
  // A file shorter than the magic that starts like one is a truncated profile, not a stranger.
  if (std::memcmp(data, kMagic, std::min(size, sizeof(kMagic))) != 0) {
    std::string what = other_format(data, size);
    return fail(name, what.empty() ? "not a hpcrun-lite file (bad magic)"
                                   : "not a hpcrun-lite file (bad magic): this looks like " + what);
  }
  if (size < kHeaderSize) {
    return fail(name, strf("truncated in the header (%zu of %zu bytes)", size, kHeaderSize));
  }
  auto major = static_cast<uint16_t>(wire::load_le(data + kOffMajor, 2));
  auto minor = static_cast<uint16_t>(wire::load_le(data + kOffMinor, 2));
  if (major > kMajorVersion) {
    return fail(name, strf("written by a newer hpcrun-lite (format %u.%u); this reader understands format %u.x",
                           major, minor, kMajorVersion));
  }
  if (major < kMajorVersion) {
    return fail(name, strf("format %u.%u is not supported; this reader understands format %u.x", major,
                           minor, kMajorVersion));
  }
  auto kind = static_cast<uint32_t>(wire::load_le(data + kOffKind, 4));
  if (kind != static_cast<uint32_t>(FileKind::Process) && kind != static_cast<uint32_t>(FileKind::Database)) {
    return fail(name, strf("unknown file kind %" PRIu32 " (1 = process profile, 2 = database)", kind));
  }
  uint64_t payload_size = wire::load_le(data + kOffPayloadSize, 8);
  auto flags = static_cast<uint32_t>(wire::load_le(data + kOffFlags, 4));
  if (flags & ~kKnownFlags) {
    return fail(name, strf("unknown header flags 0x%" PRIx32, flags & ~kKnownFlags));
  }

  const uint8_t* body = data + kHeaderSize;
  size_t body_size = size - kHeaderSize;
  std::vector<uint8_t> inflated;
  if (flags & kFlagZstd) {
    if (std::string err = decompress(body, body_size, payload_size, inflated); !err.empty()) {
      return fail(name, err);
    }
    body = inflated.data();
    body_size = inflated.size();
  } else if (payload_size != body_size) {
    return fail(name, strf("%s: header says the payload is %" PRIu64 " bytes, the file holds %zu",
                           payload_size > body_size ? "truncated" : "trailing bytes", payload_size,
                           body_size));
  }

  ReadResult r;
  r.profile.kind = static_cast<FileKind>(kind);
  if (std::string err = payload::decode(body, body_size, r.profile); !err.empty()) {
    return fail(name, err);
  }
  r.ok = true;
  return r;
}

ReadResult read_profile_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO named like a profile must not wait for a writer. The size is
  // checked before anything is read, and exactly that many bytes are read: a device or a file
  // that grows while we read cannot make us read (or hold) without end.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(path, errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(path, errno_text(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(path, S_ISDIR(st.st_mode) ? errno_text(EISDIR) : "not a regular file");
  }
  auto size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxFileSize) {
    ::close(fd);
    return fail(path, strf("the file is %" PRIu64 " bytes, larger than any profile this reader accepts "
                           "(%" PRIu64 " bytes)", size, kMaxFileSize));
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return fail(path, strf("read error at byte %zu: %s", got, errno_text(err).c_str()));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got < bytes.size()) {
    return fail(path, strf("the file shrank while being read (%zu of %" PRIu64 " bytes)", got, size));
  }
  return read_profile_bytes(bytes.data(), bytes.size(), path);
}

}  // namespace hpcl
