// Whole files of docs/FORMAT.md: the 32-byte header and the optional zstd frame written around
// the payload, files written atomically, and files read through container.h. What is inside the
// payload is encode.cpp's and decode.cpp's business. Every error is returned as "NAME: what is wrong" so that the analyzer
// can report a damaged input and go on with the others.
#include "hpcl/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <memory>
#include <new>
#include <system_error>

#include "container.h"
#include "layout.h"
#include "payload.h"
#include "strf.h"
#include "wire.h"

namespace hpcl {
namespace {

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

ReadResult fail(const std::string& name, const std::string& what) {
  ReadResult r;
  r.error = name + ": " + what;
  return r;
}

std::vector<uint8_t> compress(const std::vector<uint8_t>& src, int level) {
  // The bound is the payload's size and more, but a profile compresses 2x to 37x: the frame goes
  // to a buffer that is never zero-filled (a vector of the bound would write every page of it:
  // 80 MB resident for one CP2K rank's profile), then into a vector of its own size.
  const size_t bound = ZSTD_compressBound(src.size());
  std::unique_ptr<uint8_t[]> frame(new (std::nothrow) uint8_t[bound]);
  if (!frame) return {};
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (cctx == nullptr) return {};
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, std::min(level, ZSTD_maxCLevel()));
  // The checksum turns most on-disk damage into a clear error instead of a plausible profile.
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  size_t n = ZSTD_compress2(cctx, frame.get(), bound, src.data(), src.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) return {};
  return std::vector<uint8_t>(frame.get(), frame.get() + n);
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
