// See pmu_type.h.
#include "sources/hw/pmu_type.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace hpcrun {

int read_pmu_type(const char* root, const char* pmu, uint32_t* type) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s/type", root, pmu);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  char buf[32];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  int err = n < 0 ? -errno : 0;
  close(fd);
  if (err) return err;
  uint64_t v = 0;
  ssize_t i = 0;
  for (; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) v = v * 10 + uint64_t(buf[i] - '0');
  if (i == 0 || v > UINT32_MAX || (i < n && buf[i] != '\n')) return -EINVAL;
  *type = uint32_t(v);
  return 0;
}

bool pmu_has(const char* root, const char* pmu, const char* rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s/%s", root, pmu, rel);
  struct stat st;
  return stat(path, &st) == 0;
}

}  // namespace hpcrun
