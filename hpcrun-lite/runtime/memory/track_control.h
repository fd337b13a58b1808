// Which small allocations (below --min-bytes) are tracked: the per-thread adaptive controller.
//
// Every small block is tracked (k = 1) while the thread's tracked allocations stay within its
// budget; beyond it the thread tracks one in k, k a power of two that doubles when the budget
// runs out and halves when it refills. The budget is a token bucket, checked with one read of the
// thread's CPU clock every kCheckEvery tracked allocations:
//  - it refills at `budget` tokens per second of the thread's CPU time (not wall time: a thread
//    that waits, for its MPI daemon or for a CPU on a loaded machine, would otherwise earn
//    tracking it never pays for in run time: CP2K's own work went from 1.4% of its samples idle
//    to 1.5-1.7% at load 3-4), and a tracked allocation spends one token per
//    `unit_ns` of what it costs, at least one. The cost is measured: the first tracked allocation
//    after each check is timed (two more clock reads per kCheckEvery), and the thread keeps a
//    moving average. So the sustained cap is `budget` allocations per second and `budget *
//    unit_ns` of tracking time per second, whichever binds first: 50,000/s and 10 ms/s (1% of
//    the thread's CPU time) by default. A count alone was not enough: a tracked allocation costs
//    0.2 us with a shallow stack and few sites, and about 0.65 us in CP2K (30 Fortran frames to
//    unwind, 245,000 sites whose table misses the caches), where 50,000/s was 3.6% of the
//    samples (measured on the project's 2-vCPU EPYC VM);
//  - the first time k doubles to each level it grants one more `quantum` of allocations (one
//    token each, whatever they cost), so a burst of A allocations (a program building its data
//    at start-up) gets about
//    quantum * log2(A / quantum) of them tracked at once instead of only what the time-based
//    refill allows: enough tracked blocks for the estimates to be precise, at a cost that
//    shrinks relative to the burst. Levels grant again once k is back at 1, out of a reserve of
//    kReserveQuanta quanta that refills at 1/32 of the budget: without it a program that
//    alternates quiet phases and bursts collected new grants after every quiet phase (CP2K: k
//    back at 1 about 1,200 times and 251 grants per rank in 90 s, 4.1M tokens of grants beside
//    the 3.6M the refill paid, so its tracking ran at 1.7 times the budget); with it the grants
//    add at most 1/32 of the budget over a run, whatever the pattern, while a start-up burst
//    finds the reserve full.
//  - a grant shrinks with the share of the thread's tracked blocks that died young (freed before
//    about kRecent more were tracked; `young`): a grant buys precision for the data a program
//    builds and then reads, and a temporary freed at once is rarely alive when a sample comes.
//    OpenFOAM's simpleFoam makes ~400,000 small blocks a second, once started nearly all
//    temporaries freed within a few allocations; its grants tracked 75,000 of the 100,000
//    blocks a serial 100-iteration run tracked, the larger part of the profiler's own work
//    (measured on the project's 2-vCPU EPYC VM). A list built at start-up and walked keeps whole
//    grants. Which block is tracked still depends only on the draw: the weights stay unbiased.
// A full bucket (two quanta saved: a quiet phase, or a modest allocation rate) puts k back at 1.
// k doubles when the tokens are spent and halves for each half quantum saved, so under
// sustained allocation it settles around the rate the budget allows.
// The gap to the next tracked block is drawn uniformly from [1, 2k-1] (mean k), so a periodic
// allocation pattern cannot alias with it; each block is then tracked with probability 1/k and
// carries weight k (Horvitz-Thompson, see docs/REPORT.md). The cost decides only k, never which
// block is tracked, so the weights stay unbiased.
// A fixed --small-every N (no adaptation) and the "never" (0) / "always" (1) settings use the
// same state. Everything here is plain arithmetic on the owning thread's state: no locks.
#pragma once

#include <cstdint>

namespace hpcrun {

struct TrackPolicy {
  bool adaptive = true;
  uint32_t fixed_k = 0;             // when not adaptive: 0 = never, else one in fixed_k
  uint64_t budget = 50000;          // tokens per second, sustained (--track-budget)
  uint64_t unit_ns = 200;           // a tracked allocation spends one token per unit_ns it costs
  int64_t quantum = 16384;          // tokens at start and per new level of k
  uint32_t k_max = 1u << 16;
};

struct TrackControl {
  // The thread's CPU clock is a system call (the vDSO serves no CPU-time clock): one every 64
  // tracked blocks was 170 of the system calls a 1-rank LAMMPS start-up added. At 256 a burst
  // overspends by at most 256 tokens before k doubles, against quanta of 16,384.
  static constexpr uint32_t kCheckEvery = 256;
  // One timed allocation moves the average by 1/2^kCostShift of the difference, and counts for
  // at most twice the average: a sampling signal (20 us), a page fault or a preemption inside
  // the timed window (the clock is wall time; on a loaded machine a thread waits for its CPU)
  // raises the average by an eighth at most, while a real rise (a deeper stack, a site table
  // outgrowing the caches) is followed within a few windows. The average starts at one unit.
  static constexpr uint32_t kCostShift = 3;
  static constexpr int64_t kReserveQuanta = 16;  // about 10 are granted to a burst of 10^7
  // Young deaths: a tracked block freed while still in `recent` (a direct-mapped table of the
  // last tracked blocks' tags) died young. `young` is their share, a moving average over
  // about 2^kYoungShift tracked blocks in units of 1/kYoungOne; a grant is scaled by the rest,
  // down to 1/kMinGrantShare of a quantum.
  static constexpr uint32_t kRecent = 64;
  static constexpr uint32_t kYoungShift = 6;
  static constexpr uint32_t kYoungOne = 1u << 16;
  static constexpr int64_t kMinGrantShare = 16;
  static constexpr int64_t kMinRefillShare = 4;
  uint32_t k;           // current: track one in k
  uint32_t k_granted;   // highest level that granted its quantum since k was last 1
  uint32_t weight;      // k of the draw that set the countdown: the next tracked block's weight
  int64_t countdown;    // small allocations until the next tracked one
  int64_t tokens;       // time-based: refilled at `budget` per second, at most 2 quanta
  int64_t grant;        // burst allowance from new levels, spent before the tokens
  int64_t reserve;      // what the next grants may take: kReserveQuanta quanta at most
  uint32_t since_check;
  uint64_t last_ns;
  uint64_t rng;
  uint64_t tracked;     // tracked small allocations so far (diagnostics and tests)
  uint64_t seen;        // small allocations seen, estimated as the sum of weights
  uint64_t cost_ns;     // moving average of a tracked allocation's measured cost
  bool time_next;       // the caller times the next tracked allocation and calls note_cost()
  uint32_t young;       // share of tracked blocks that died young, in 1/kYoungOne
  uint64_t died_young;  // tracked small blocks freed young so far (diagnostics and tests)
  // The last tracked blocks, each by the low 32 bits of its 16-byte granule (0 = none; zero at
  // init): a block freed while its slot still holds its tag died young. Two blocks 64 GiB apart
  // share a tag; the moving share tolerates the rare mistake, at half the bytes.
  uint32_t recent[kRecent];

  void init(const TrackPolicy& p, uint64_t now_ns, uint64_t seed) {
    k = p.adaptive ? 1 : p.fixed_k;
    k_granted = 1;
    tokens = 0;
    grant = p.quantum;
    reserve = kReserveQuanta * p.quantum - p.quantum;
    since_check = 0;
    last_ns = now_ns;
    rng = seed ? seed : 0x9E3779B97F4A7C15ull;
    tracked = seen = 0;
    cost_ns = p.unit_ns;
    young = 0;
    died_young = 0;
    // `recent` is left as it is: zero in a new thread state (fresh pages of an mmap, which a
    // write here would fault in for every thread), and a value-initialized controller elsewhere.
    // Not the first: it creates libunwind's cache for the thread (~150 us, unwind.cpp).
    time_next = false;
    draw();
  }

  // A block this thread's controller picked is now tracked at `addr`.
  void note_tracked(uint64_t addr) {
    young -= young >> kYoungShift;
    recent[recent_slot(addr)] = recent_tag(addr);
  }

  // A tracked small block at `addr` is being freed by this thread: young if still in `recent`.
  void note_freed(uint64_t addr) {
    uint32_t& slot = recent[recent_slot(addr)];
    if (slot != recent_tag(addr)) return;
    slot = 0;
    ++died_young;
    young += kYoungOne >> kYoungShift;
    if (young > kYoungOne) young = kYoungOne;
  }

  // What the tracked allocation timed at time_next cost, from the caller's clock.
  void note_cost(uint64_t ns) {
    time_next = false;
    if (ns > 2 * cost_ns) ns = 2 * cost_ns;
    cost_ns = cost_ns - (cost_ns >> kCostShift) + (ns >> kCostShift);
    if (cost_ns == 0) cost_ns = 1;  // a clock that did not move: keep the average able to grow
  }

  // The fast path: one decrement. True when this allocation is to be tracked with weight
  // `weight`; the caller then calls after_tracked().
  bool pick() {
    if (k == 0) return false;
    return --countdown <= 0;
  }

  // Bookkeeping after a tracked allocation; `now` is called every kCheckEvery of them.
  template <typename Clock>
  void after_tracked(const TrackPolicy& p, Clock now) {
    ++tracked;
    seen += weight;
    if (p.adaptive) {
      if (grant > 0) --grant;
      else --tokens;
      if (++since_check >= kCheckEvery) {
        since_check = 0;
        // What the window cost beyond one token each, paid by the tokens, even while a burst
        // grant pays the one token: the grant counts allocations, so the logarithmic share of a
        // burst does not shrink with the cost (heap_list's walk: tracking its 1M nodes costs
        // 2 us a block while the address map's index pages are first touched, and priced grants
        // left 28,000 of them tracked instead of about 110,000, too few for its estimate), while
        // k halves only once the refill has paid for what the tracking cost. What the grants
        // can add over a run is bounded by the reserve.
        tokens -= extra_tokens(p);
        time_next = true;
        uint64_t t = now();
        uint64_t dt = t > last_ns ? t - last_ns : 0;
        last_ns = t;
        // Refill, capped at two quanta so a long quiet phase cannot pay for an unbounded burst.
        int64_t refill = survivors_share(int64_t(dt / 1000 * p.budget / 1000000), kMinRefillShare);
        reserve += refill / 32;
        if (reserve > kReserveQuanta * p.quantum) reserve = kReserveQuanta * p.quantum;
        if (tokens + refill >= 2 * p.quantum) {
          // The bucket filled up: the thread has been within its budget long enough (a quiet
          // phase, or a modest allocation rate) to start over, tracking every block.
          tokens = 2 * p.quantum;
          k = 1;
          k_granted = 1;
        } else {
          tokens += refill;
        }
        if (tokens <= 0 && grant <= 0 && k < p.k_max) {
          k *= 2;
          if (k > k_granted) {
            k_granted = k;
            const int64_t q = grant_size(p);
            grant = reserve < q ? reserve : q;
            reserve -= grant;
          }
          tokens = 0;  // no debt carried to the new level
        } else if (tokens >= p.quantum / 2 && k > 1) {
          k /= 2;  // paid with the half quantum saved: one level per saving
          tokens -= p.quantum / 2;
          if (k == 1) k_granted = 1;
        }
      }
    }
    draw();
  }

  // True with probability 1/n, from the same generator: a further thinning of blocks the
  // controller picked (a tracked one then carries n times the weight).
  bool one_in(uint32_t n) { return n <= 1 || next_random() % n == 0; }

 private:
  // What the last kCheckEvery tracked allocations cost beyond the one token each already spent.
  int64_t extra_tokens(const TrackPolicy& p) const {
    if (p.unit_ns == 0 || cost_ns <= p.unit_ns) return 0;
    return int64_t(kCheckEvery * (cost_ns - p.unit_ns) / p.unit_ns);
  }

  // `v` scaled by the share of tracked blocks that did not die young, down to v / min_share.
  int64_t survivors_share(int64_t v, int64_t min_share) const {
    int64_t s = v * int64_t(kYoungOne - young) / int64_t(kYoungOne);
    return s < v / min_share ? v / min_share : s;
  }
  int64_t grant_size(const TrackPolicy& p) const { return survivors_share(p.quantum, kMinGrantShare); }

  static uint32_t recent_slot(uint64_t addr) {
    return uint32_t(((addr >> 4) * 0x9E3779B97F4A7C15ull) >> (64 - 6));
  }
  static_assert(kRecent == 64, "recent_slot takes 6 bits of the hash");
  static uint32_t recent_tag(uint64_t addr) { return uint32_t(addr >> 4) | 1u; }  // never 0

  void draw() {
    weight = k;
    if (k == 0) return;
    countdown = int64_t(1 + next_random() % (2 * uint64_t(k) - 1));
  }

  uint64_t next_random() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  }
};

// What one sample in a block tracked with probability 1/w stands for (Horvitz-Thompson): its
// site gets w - 1 estimated samples beyond this one (metric 2), and the variance grows by
// (w^2 - w) * (2c + 1), c being the block's earlier samples (metric 3): summed over a block's y
// samples that is (w^2 - w) * y^2, the unbiased variance estimate for a cluster of y samples kept
// with probability 1/w (docs/REPORT.md). Plain arithmetic: safe in the signal handler.
struct SampleEstimate {
  uint64_t extra = 0;
  uint64_t var = 0;
  static SampleEstimate of(uint64_t w, uint64_t before) {
    return SampleEstimate{w - 1, (w * w - w) * (2 * before + 1)};
  }
};

}  // namespace hpcrun
