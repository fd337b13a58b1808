// See ring_event.h.
#include "sources/ring_event.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>

#include "process/fd_guard.h"

namespace hpcrun {

void ring_event_reset(RingEvent* e) {
  e->fd = -1;
  e->ring = PerfRing{};
}

void ring_event_publish(RingEvent* e, int fd, const PerfRing& ring) {
  fd_guard_add(fd);  // kept from the program's closefrom and dup2 (fd_guard.h)
  e->ring = ring;
  __atomic_store_n(&e->fd, fd, __ATOMIC_RELEASE);
}

bool ring_event_live(const RingEvent& e) { return __atomic_load_n(&e.fd, __ATOMIC_ACQUIRE) >= 0; }

bool ring_event_pending(const RingEvent& e) { return ring_event_live(e) && perf_ring_pending(e.ring); }

bool ring_event_disable(const RingEvent& e) {
  const int fd = __atomic_load_n(&e.fd, __ATOMIC_ACQUIRE);
  if (fd < 0) return false;
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  return true;
}

bool ring_event_release(RingEvent* e) {
  const int fd = __atomic_exchange_n(&e->fd, -1, __ATOMIC_ACQ_REL);
  if (fd < 0) return false;
  perf_ring_unmap(&e->ring);
  fd_guard_close(fd);
  return true;
}

}  // namespace hpcrun
