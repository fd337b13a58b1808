// A thread's perf event with its ring buffer, as the page-fault and hardware sources hold one in
// their slots: the life cycle both follow. The thread (or the one that adopts it) opens and maps
// it, then publishes it; its sampling handler reads the ring while the event is published; the
// thread's end and the process's end both release it, whichever comes first. Only `fd` is read
// across threads, so it is published last and taken back first.
#pragma once

#include "sources/perf_ring.h"

namespace hpcrun {

struct RingEvent {
  int fd;         // the event that owns the ring; -1 while none is published
  PerfRing ring;  // its mapping, valid while fd >= 0
};

// A new owner of the slot: no event. Not for an event in use.
void ring_event_reset(RingEvent* e);
// Makes a mapped event visible: the ring first, then the fd (release), so a handler that sees
// the fd finds the ring. Guards the fd from the program's dup2 and closefrom (fd_guard.h).
void ring_event_publish(RingEvent* e, int fd, const PerfRing& ring);
// Whether an event is published. Async-signal-safe.
bool ring_event_live(const RingEvent& e);
// Whether the published event's ring holds records not read yet (one load when it is empty).
// Async-signal-safe.
bool ring_event_pending(const RingEvent& e);
// Stops the event counting (the process's end, before the last read); false when none is
// published. Async-signal-safe.
bool ring_event_disable(const RingEvent& e);
// Unmaps the ring and closes the event; the exchange makes one of the thread's end and the
// process's end do it. False when there was none. Async-signal-safe.
bool ring_event_release(RingEvent* e);

}  // namespace hpcrun
