// Writing files of docs/FORMAT.md: the 32-byte header, the payload (payload.h's Encoder)
// compressed as a zstd stream while it is encoded, and the file made visible atomically. A
// whole Profile (write_profile_file, encode_profile) goes through the same writer as a profile
// handed over in pieces, so both give the same bytes.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>

#include "hpcl/io.h"
#include "layout.h"
#include "payload.h"
#include "strf.h"
#include "wire.h"

namespace hpcl {
namespace {

// All of `size` bytes, at the file offset `at` (pwrite), or at the current one when `at` < 0.
bool write_all(int fd, const uint8_t* data, size_t size, off_t at = -1) {
  while (size > 0) {
    ssize_t n = at < 0 ? ::write(fd, data, size) : ::pwrite(fd, data, size, at);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
    if (at >= 0) at += n;
  }
  return true;
}

}  // namespace

struct ProfileWriter::Impl {
  Impl(FileKind file_kind, int zstd_level)
      : kind(file_kind), level(zstd_level), encoder(file_kind, &Impl::drain, this) {}
  ~Impl() {
    if (cctx) ZSTD_freeCCtx(cctx);
    if (fd >= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
    }
  }

  // The file's bytes after the header go to the file or to `memory`.
  bool emit(const uint8_t* data, size_t size) {
    if (memory) {
      memory->insert(memory->end(), data, data + size);
      return true;
    }
    if (!write_all(fd, data, size)) {
      if (what.empty()) what = "cannot write " + tmp + ": " + errno_text(errno);
      return false;
    }
    return true;
  }

  // Compresses what the encoder hands over (or stores it, without zstd) and emits the frame's
  // bytes as zstd makes them: the writer holds zstd's window and one output block, no more.
  bool put(const uint8_t* data, size_t size, ZSTD_EndDirective mode) {
    if (cctx == nullptr) return emit(data, size);
    ZSTD_inBuffer in{data, size, 0};
    for (;;) {
      ZSTD_outBuffer o{out.get(), out_size, 0};
      size_t left = ZSTD_compressStream2(cctx, &o, &in, mode);
      if (ZSTD_isError(left)) {
        what = std::string("cannot compress the payload: ") + ZSTD_getErrorName(left);
        return false;
      }
      if (o.pos && !emit(out.get(), o.pos)) return false;
      // A flush or the end is done when zstd has nothing left to emit, the rest when it took all.
      if (mode == ZSTD_e_continue ? in.pos == in.size : left == 0) return true;
    }
  }

  static bool drain(void* self, const uint8_t* data, size_t size, bool block_end) {
    return static_cast<Impl*>(self)->put(data, size, block_end ? ZSTD_e_flush : ZSTD_e_continue);
  }

  // zstd when asked and available; without a context (allocation failure) the payload is
  // stored, which is still a valid file.
  void start() {
    if (level > 0) {
      out_size = ZSTD_CStreamOutSize();
      out.reset(new (std::nothrow) uint8_t[out_size]);
      cctx = out ? ZSTD_createCCtx() : nullptr;
      if (cctx) {
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, std::min(level, ZSTD_maxCLevel()));
        // The fastest level is the runtime's, writing in the ending process: a 128 KiB window
        // instead of 512 KiB keeps the pages zstd copies the payload into, and faults in, few.
        if (level == 1) ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, 17);
        // The checksum turns most on-disk damage into a clear error instead of a plausible profile.
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
      }
    }
    // The header's minor and payload size are known at the end: a placeholder until then.
    uint8_t zero[layout::kHeaderSize] = {};
    emit(zero, sizeof zero);
  }

  // The header, now that the payload is complete.
  std::vector<uint8_t> header() const {
    std::vector<uint8_t> h;
    wire::Writer w(h);
    w.bytes(layout::kMagic, sizeof(layout::kMagic));
    w.u16(kMajorVersion);
    w.u16(encoder.minor());
    w.u32(static_cast<uint32_t>(kind));
    w.u64(encoder.size());
    w.u32(cctx ? layout::kFlagZstd : 0);
    w.u32(0);
    return h;
  }

  // The payload's last bytes, the frame's end and the header. "" or what went wrong (a failed
  // write's own words before the encoder's, which only says that its drain failed).
  std::string finish() {
    if (std::string e = encoder.finish(); !e.empty()) return what.empty() ? e : what;
    std::vector<uint8_t>& rest = encoder.buffer();
    if (!put(rest.data(), rest.size(), ZSTD_e_end)) return what;
    std::vector<uint8_t> h = header();
    if (memory) {
      std::copy(h.begin(), h.end(), memory->begin() + static_cast<std::ptrdiff_t>(memory_start));
    } else if (!write_all(fd, h.data(), h.size(), 0)) {
      return "cannot write " + tmp + ": " + errno_text(errno);
    }
    return {};
  }

  FileKind kind;
  int level;
  payload::Encoder encoder;
  ZSTD_CCtx* cctx = nullptr;
  std::unique_ptr<uint8_t[]> out;
  size_t out_size = 0;
  std::vector<uint8_t>* memory = nullptr;
  size_t memory_start = 0;
  int fd = -1;
  std::string what;  // the first failure of a write or of zstd
  std::string path, tmp;
};

ProfileWriter::ProfileWriter(FileKind kind, int zstd_level) : impl_(new Impl(kind, zstd_level)) {}
ProfileWriter::~ProfileWriter() = default;

bool ProfileWriter::open(const std::string& path, unsigned mode, std::string* error) {
  Impl& d = *impl_;
  // A unique temporary name beside the target, so rename() is atomic (same file system) and two
  // threads or processes writing at once never share one. O_EXCL retries on a stale leftover.
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100 && d.fd < 0; ++attempt) {
    d.tmp = strf("%s.tmp.%ld.%u", path.c_str(), static_cast<long>(::getpid()), counter++);
    d.fd = ::open(d.tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  static_cast<mode_t>(mode));
    if (d.fd < 0 && errno != EEXIST) break;
  }
  if (d.fd < 0) {
    if (error) *error = path + ": cannot create temporary file " + d.tmp + ": " + errno_text(errno);
    return false;
  }
  d.path = path;
  d.start();
  return true;
}

void ProfileWriter::open(std::vector<uint8_t>* out) {
  impl_->memory = out;
  impl_->memory_start = out->size();
  impl_->start();
}

void ProfileWriter::meta(const std::vector<std::pair<std::string, std::string>>& meta) { impl_->encoder.meta(meta); }
void ProfileWriter::modules(std::span<const Module> modules) { impl_->encoder.modules(modules); }
void ProfileWriter::begin_sites(uint32_t count, uint64_t frames) { impl_->encoder.begin_sites(count, frames); }
void ProfileWriter::site(const AllocSite& site) { impl_->encoder.site(site); }
void ProfileWriter::statics(std::span<const StaticVar> statics) { impl_->encoder.statics(statics); }
void ProfileWriter::tree(const Tree& tree) { impl_->encoder.tree(tree); }
void ProfileWriter::offsets(std::span<const OffsetHistogram> offsets) { impl_->encoder.offsets(offsets); }
void ProfileWriter::script_frames(std::span<const ScriptFrame> frames) {
  impl_->encoder.script_frames(frames);
}
void ProfileWriter::all(const Profile& profile) { impl_->encoder.all(profile); }

bool ProfileWriter::commit(std::string* error) {
  Impl& d = *impl_;
  if (!d.memory && d.fd < 0) {
    if (error) *error = "the profile writer was not opened";
    return false;
  }
  std::string what = d.finish();
  if (d.memory) {
    if (!what.empty() && error) *error = what;
    return what.empty();
  }
  // A file that failed is not kept.
  auto failed = [&](const std::string& how) {
    if (error) *error = d.path + ": " + how;
    if (d.fd >= 0) ::close(d.fd);
    d.fd = -1;
    ::unlink(d.tmp.c_str());
    return false;
  };
  if (!what.empty()) return failed(what);
  // On disk before it gets its final name: after a crash of the machine the name holds either
  // nothing or the whole file. fsync and close can report a deferred write error (NFS, quota,
  // a full disk).
  if (::fsync(d.fd) != 0 && errno != EINVAL && errno != EROFS)
    return failed("cannot write " + d.tmp + ": " + errno_text(errno));
  int fd = d.fd;
  d.fd = -1;
  if (::close(fd) != 0) return failed("cannot write " + d.tmp + ": " + errno_text(errno));
  if (::rename(d.tmp.c_str(), d.path.c_str()) != 0)
    return failed("cannot rename " + d.tmp + " to the final name: " + errno_text(errno));
  // The rename itself is durable once the directory is synced (best effort: not every file
  // system lets a directory be opened for that).
  size_t slash = d.path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : d.path.substr(0, slash);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

std::vector<uint8_t> encode_profile(const Profile& profile, int zstd_level) {
  std::vector<uint8_t> out;
  ProfileWriter w(profile.kind, zstd_level);
  w.open(&out);
  w.all(profile);
  w.commit(nullptr);  // in memory, from one Profile: nothing can fail but an allocation
  return out;
}

bool write_profile_file(const Profile& profile, const std::string& path, std::string* error,
                        int zstd_level, unsigned mode) {
  ProfileWriter w(profile.kind, zstd_level);
  if (!w.open(path, mode, error)) return false;
  w.all(profile);
  return w.commit(error);
}

}  // namespace hpcl
